//! Readiness: whether the autopilot itself says it could arm and fly, read from what it reports
//! rather than guessed from a retry window. ArduCopter needs ~40 s after boot (home at ~18 s,
//! its EKF using GPS at ~36–40 s) and says why it is not ready in three places:
//! - SYS_STATUS: the `PREARM_CHECK` bit is healthy once its pre-arm checks pass, and sensors it
//!   enabled but finds unhealthy (GPS, AHRS, …) are named;
//! - EKF_STATUS_REPORT: the estimator's solution flags (attitude, horizontal velocity,
//!   absolute horizontal and vertical position);
//! - STATUSTEXT `PreArm: …` / `Arm: …`: its own reasons, quoted when a wait times out.
//!
//! PX4 sends no EKF_STATUS_REPORT; for it only what it does report counts. Sans-IO: messages
//! and time in, a verdict and reasons out.

use crate::command::{CommandSpec, Target};
use crate::dialect::{MavMessage, mav};
use crate::profile::Profile;
use mav::{EkfStatusFlags, MavCmd, MavSysStatusSensor};
use std::collections::BTreeMap;

/// A reason text older than this is no longer quoted (ArduPilot repeats its pre-arm failures
/// every 30 s, and at once when asked with RUN_PREARM_CHECKS).
const REASON_TTL_MS: u64 = 35_000;
/// At most this many reason texts are kept.
const KEEP_REASONS: usize = 8;

/// The estimator solution ArduPilot needs to arm in a position mode and to fly GUIDED.
const EKF_NEEDED: [(EkfStatusFlags, &str); 4] = [
    (EkfStatusFlags::EKF_ATTITUDE, "attitude"),
    (EkfStatusFlags::EKF_VELOCITY_HORIZ, "horizontal velocity"),
    (
        EkfStatusFlags::EKF_POS_HORIZ_ABS,
        "absolute horizontal position",
    ),
    (
        EkfStatusFlags::EKF_POS_VERT_ABS,
        "absolute vertical position",
    ),
];

/// Sensors named when SYS_STATUS reports them enabled but unhealthy.
const SENSORS: [(MavSysStatusSensor, &str); 8] = [
    (MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_3D_GYRO, "gyro"),
    (
        MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_3D_ACCEL,
        "accelerometer",
    ),
    (MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_3D_MAG, "compass"),
    (
        MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE,
        "barometer",
    ),
    (MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_GPS, "GPS"),
    (MavSysStatusSensor::MAV_SYS_STATUS_AHRS, "AHRS"),
    (MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_BATTERY, "battery"),
    (
        MavSysStatusSensor::MAV_SYS_STATUS_PREARM_CHECK,
        "pre-arm checks",
    ),
];

/// How often ArduPilot is asked to run its pre-arm checks (and say why they fail) while it is
/// not ready; it answers at most every 4 s.
const PROBE_INTERVAL_US: u64 = 5_000_000;

/// Asks ArduPilot for its pre-arm verdict (MAV_CMD_RUN_PREARM_CHECKS) while it is not ready and
/// disarmed, so the reasons are fresh rather than up to 30 s old. Not acknowledged by us: the
/// answer that matters is in SYS_STATUS and the texts.
#[derive(Debug, Clone, Default)]
pub struct ReadinessProbe {
    next_us: u64,
}

impl ReadinessProbe {
    /// The probe due now, if `wanted`.
    pub fn poll_transmit(
        &mut self,
        now_us: u64,
        wanted: bool,
        target: Target,
    ) -> Option<MavMessage> {
        if !wanted || now_us < self.next_us {
            return None;
        }
        self.next_us = now_us + PROBE_INTERVAL_US;
        let spec = CommandSpec::long(MavCmd::MAV_CMD_RUN_PREARM_CHECKS, [0.0; 7]);
        Some(spec.to_message(target, 0))
    }

    pub fn poll_timeout(&self, wanted: bool) -> Option<u64> {
        wanted.then_some(self.next_us)
    }
}

/// What the autopilot last said about being ready.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Readiness {
    /// SYS_STATUS's pre-arm bit; `None` until a SYS_STATUS enables it (or when it never does).
    prearm_ok: Option<bool>,
    /// Newest EKF_STATUS_REPORT flags.
    ekf: Option<EkfStatusFlags>,
    /// Whether any SYS_STATUS came.
    sys_status: bool,
    /// Sensors enabled but unhealthy in the newest SYS_STATUS.
    unhealthy: Vec<&'static str>,
    /// `PreArm:` / `Arm:` texts and when each was last heard, ms.
    texts: BTreeMap<String, u64>,
}

impl Readiness {
    /// Takes one message from the autopilot (others are ignored).
    pub fn fold(&mut self, message: &MavMessage) {
        match message {
            MavMessage::SYS_STATUS(s) => {
                self.sys_status = true;
                let enabled = s.onboard_control_sensors_enabled;
                let health = s.onboard_control_sensors_health;
                let prearm = MavSysStatusSensor::MAV_SYS_STATUS_PREARM_CHECK;
                self.prearm_ok = enabled.contains(prearm).then(|| health.contains(prearm));
                self.unhealthy = SENSORS
                    .iter()
                    .filter(|(bit, _)| enabled.contains(*bit) && !health.contains(*bit))
                    .map(|(_, name)| *name)
                    .collect();
                if self.prearm_ok == Some(true) {
                    self.texts.clear();
                }
            }
            MavMessage::EKF_STATUS_REPORT(e) => self.ekf = Some(e.flags),
            _ => {}
        }
    }

    /// Takes a complete STATUSTEXT; keeps it when it is a pre-arm or arming reason.
    pub fn note_text(&mut self, now_ms: u64, text: &str) {
        let reason = text.starts_with("PreArm:") || text.starts_with("Arm:");
        if !reason {
            return;
        }
        self.texts.insert(text.to_string(), now_ms);
        while self.texts.len() > KEEP_REASONS {
            let oldest = self
                .texts
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.texts.remove(&k),
                None => break,
            };
        }
    }

    /// Estimator solution parts that are missing (all of them before the first report), and
    /// whether it is stuck in constant-position mode (no GPS fusion yet).
    fn ekf_missing(&self) -> (Vec<&'static str>, bool) {
        let flags = self.ekf.unwrap_or(EkfStatusFlags::empty());
        let missing = EKF_NEEDED
            .iter()
            .filter(|(bit, _)| !flags.contains(*bit))
            .map(|(_, name)| *name)
            .collect();
        (missing, flags.contains(EkfStatusFlags::EKF_CONST_POS_MODE))
    }

    fn ekf_good(&self) -> bool {
        let (missing, constant) = self.ekf_missing();
        missing.is_empty() && !constant
    }

    /// Whether `profile`'s autopilot says it is ready: its pre-arm checks pass (when it reports
    /// them) and, on ArduPilot, its EKF has an absolute position.
    pub fn is_ready(&self, profile: Profile) -> bool {
        if !self.sys_status || self.prearm_ok == Some(false) {
            return false;
        }
        match profile {
            Profile::ArduPilot => self.ekf_good(),
            Profile::Px4 => self.ekf.is_none() || self.ekf_good(),
        }
    }

    /// Why it is not ready, in the autopilot's words first; empty when it is.
    pub fn reasons(&self, profile: Profile, now_ms: u64) -> Vec<String> {
        if self.is_ready(profile) {
            return Vec::new();
        }
        let mut texts: Vec<(&String, &u64)> = self
            .texts
            .iter()
            .filter(|(_, t)| now_ms.saturating_sub(**t) <= REASON_TTL_MS)
            .collect();
        texts.sort_by_key(|(_, t)| std::cmp::Reverse(**t));
        let mut out: Vec<String> = texts.into_iter().map(|(s, _)| s.clone()).collect();
        if !self.sys_status {
            out.push("no SYS_STATUS yet".into());
        }
        if self.prearm_ok == Some(false) {
            out.push("SYS_STATUS: pre-arm checks failing".into());
        }
        let unhealthy: Vec<_> = self
            .unhealthy
            .iter()
            .filter(|n| **n != "pre-arm checks")
            .collect();
        if !unhealthy.is_empty() {
            let names: Vec<&str> = unhealthy.iter().map(|n| **n).collect();
            out.push(format!("SYS_STATUS: unhealthy {}", names.join(", ")));
        }
        let ekf_counts = profile == Profile::ArduPilot || self.ekf.is_some();
        if ekf_counts {
            let (missing, constant) = self.ekf_missing();
            if self.ekf.is_none() {
                out.push("no EKF_STATUS_REPORT yet".into());
            } else {
                let mut said: Vec<String> = missing.iter().map(|m| format!("no {m}")).collect();
                if constant {
                    said.push("constant-position mode".into());
                }
                if !said.is_empty() {
                    out.push(format!("EKF: {}", said.join(", ")));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys_status(prearm_healthy: bool, gps_healthy: bool) -> MavMessage {
        let s = MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_GPS
            | MavSysStatusSensor::MAV_SYS_STATUS_AHRS
            | MavSysStatusSensor::MAV_SYS_STATUS_PREARM_CHECK;
        let mut health = MavSysStatusSensor::MAV_SYS_STATUS_AHRS;
        if prearm_healthy {
            health |= MavSysStatusSensor::MAV_SYS_STATUS_PREARM_CHECK;
        }
        if gps_healthy {
            health |= MavSysStatusSensor::MAV_SYS_STATUS_SENSOR_GPS;
        }
        MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
            onboard_control_sensors_present: s,
            onboard_control_sensors_enabled: s,
            onboard_control_sensors_health: health,
            ..Default::default()
        })
    }

    fn ekf(flags: EkfStatusFlags) -> MavMessage {
        MavMessage::EKF_STATUS_REPORT(mav::EKF_STATUS_REPORT_DATA {
            flags,
            ..Default::default()
        })
    }

    const GOOD_EKF: EkfStatusFlags = EkfStatusFlags::EKF_ATTITUDE
        .union(EkfStatusFlags::EKF_VELOCITY_HORIZ)
        .union(EkfStatusFlags::EKF_POS_HORIZ_ABS)
        .union(EkfStatusFlags::EKF_POS_VERT_ABS);

    #[test]
    fn ardupilot_is_ready_when_its_prearm_bit_and_its_ekf_say_so() {
        let ap = Profile::ArduPilot;
        let mut r = Readiness::default();
        assert!(!r.is_ready(ap));
        assert_eq!(
            r.reasons(ap, 0),
            ["no SYS_STATUS yet", "no EKF_STATUS_REPORT yet"]
        );
        r.fold(&sys_status(false, false));
        r.fold(&ekf(
            EkfStatusFlags::EKF_ATTITUDE | EkfStatusFlags::EKF_CONST_POS_MODE
        ));
        r.note_text(1500, "PreArm: Need Position Estimate");
        r.note_text(1600, "AHRS: waiting for home");
        assert_eq!(
            r.reasons(ap, 2000),
            [
                "PreArm: Need Position Estimate",
                "SYS_STATUS: pre-arm checks failing",
                "SYS_STATUS: unhealthy GPS",
                "EKF: no horizontal velocity, no absolute horizontal position, no absolute \
                 vertical position, constant-position mode",
            ]
        );
        // The pre-arm checks may pass a moment before the EKF reports its position.
        r.fold(&sys_status(true, true));
        assert!(!r.is_ready(ap));
        r.fold(&ekf(GOOD_EKF));
        assert!(r.is_ready(ap));
        assert!(r.reasons(ap, 3100).is_empty());
    }

    #[test]
    fn old_reasons_are_not_quoted_and_px4_needs_no_ekf_report() {
        let mut r = Readiness::default();
        r.fold(&sys_status(false, true));
        r.note_text(0, "PreArm: Gyros inconsistent");
        assert_eq!(
            r.reasons(Profile::Px4, 1000)[0],
            "PreArm: Gyros inconsistent"
        );
        assert_eq!(
            r.reasons(Profile::Px4, 60_000),
            ["SYS_STATUS: pre-arm checks failing"]
        );
        r.fold(&sys_status(true, true));
        assert!(r.is_ready(Profile::Px4), "no EKF_STATUS_REPORT from PX4");
        assert!(!r.is_ready(Profile::ArduPilot));
        // An autopilot that does not report pre-arm checks at all is judged by the rest.
        let mut quiet = Readiness::default();
        quiet.fold(&MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA::default()));
        assert!(quiet.is_ready(Profile::Px4));
    }
}
