//! Waiting until the vehicle can be flown, before the first command: every input the gate
//! reads has been reported (battery, position, home, GNSS fix, landed state), every telemetry
//! stream asked for has arrived, and the autopilot itself says it is ready (see
//! [`readiness`](crate::readiness)). ArduPilot takes ~40 s after boot; the timeout message
//! quotes its own reasons.

use super::link::HilLink;
use crate::error::HilError;
use crate::profile::Profile;
use alpha3_core::vehicle::VehicleLink;
use std::time::Duration;

/// How often the wait looks again.
const POLL: Duration = Duration::from_millis(100);

/// What is still missing before the first command; `ready` when nothing is.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadyToFly {
    pub ready: bool,
    /// What is missing, ours first, then the autopilot's own reasons.
    pub missing: Vec<String>,
}

/// Whether `link` can be flown now, and if not, why.
pub fn ready_to_fly(link: &HilLink) -> ReadyToFly {
    let status = link.status();
    let snap = link.snapshot();
    let mut missing: Vec<String> = snap
        .unreported
        .names()
        .into_iter()
        .map(|n| format!("{n} not yet reported"))
        .collect();
    if !status.missing_streams.is_empty() {
        let ids: Vec<String> = status
            .missing_streams
            .iter()
            .map(|m| stream_name(*m))
            .collect();
        missing.push(format!("streams not arriving: {}", ids.join(", ")));
    }
    let Some(profile) = status.profile else {
        missing.push("no autopilot".into());
        return ReadyToFly {
            ready: false,
            missing,
        };
    };
    // Once armed, the autopilot is past its pre-arm checks (a restart mid-flight).
    let autopilot_ready = snap.armed || status.readiness.is_ready(profile);
    if !autopilot_ready {
        let reasons = status.readiness.reasons(profile, link.now_ms());
        let who = match profile {
            Profile::ArduPilot => "ArduPilot",
            Profile::Px4 => "PX4",
        };
        missing.push(format!("{who} not ready: {}", reasons.join("; ")));
    }
    ReadyToFly {
        ready: missing.is_empty(),
        missing,
    }
}

/// Waits until [`ready_to_fly`] says so, or fails after `timeout` with everything still
/// missing, in the autopilot's words where it gave any.
pub async fn wait_ready_to_fly(link: &HilLink, timeout: Duration) -> Result<(), HilError> {
    let started = tokio::time::Instant::now();
    loop {
        let now = ready_to_fly(link);
        if now.ready {
            return Ok(());
        }
        if started.elapsed() >= timeout {
            return Err(HilError::NotReady {
                missing: now.missing.join("; "),
                timeout_ms: timeout.as_millis() as u64,
            });
        }
        tokio::time::sleep(POLL).await;
    }
}

/// A message id by name, for the messages we ask for.
fn stream_name(id: u32) -> String {
    use crate::dialect::id as m;
    match id {
        m::SYS_STATUS => "SYS_STATUS".into(),
        m::GPS_RAW_INT => "GPS_RAW_INT".into(),
        m::ATTITUDE => "ATTITUDE".into(),
        m::GLOBAL_POSITION_INT => "GLOBAL_POSITION_INT".into(),
        m::BATTERY_STATUS => "BATTERY_STATUS".into(),
        m::HOME_POSITION => "HOME_POSITION".into(),
        m::EXTENDED_SYS_STATE => "EXTENDED_SYS_STATE".into(),
        m::EKF_STATUS_REPORT => "EKF_STATUS_REPORT".into(),
        other => format!("message {other}"),
    }
}
