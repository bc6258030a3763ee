//! Bringing a connected vehicle to a scenario's start: ready to fly, on the ground, the mission
//! anchored at its home, then at the spawn point — each command through the gate.

use super::kit::OnboardError;
use crate::agent::anchor::{Anchor, anchor};
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::gate::{GateContext, GateState, Verdict, evaluate, evaluate_failsafe};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::HilLink;
use alpha3_sim::World;
use std::time::Duration;

/// Waits (up to `timeout`) until the vehicle can be flown, before the first command: every
/// input the gate reads reported (battery, position, home, fix, landed state), the telemetry
/// asked for arriving, the autopilot itself ready by its own account (ArduPilot: ~40 s after
/// boot, EKF and pre-arm checks) — then for a 3-D fix, which the gate needs for every move.
/// The error names what is missing, in the autopilot's words where it gave any.
pub async fn wait_ready_to_fly(link: &HilLink, timeout: Duration) -> Result<(), OnboardError> {
    let started = tokio::time::Instant::now();
    alpha3_hil::wait_ready_to_fly(link, timeout).await?;
    wait_until(link, started, timeout, |l| l.snapshot().gnss.fix.is_3d()).await
}

/// Brings a vehicle that is still in the air (an earlier episode or run left it flying) down
/// where it is, with the failsafe's landing, and waits until it is on the ground: a mission is
/// anchored at, and starts from, a vehicle on the ground. Then waits until the vehicle has
/// disarmed itself. Returns whether it had to land it.
pub async fn settle_on_ground(link: &mut HilLink, timeout: Duration) -> Result<bool, OnboardError> {
    let snap = link.snapshot();
    let landed = snap.is_airborne();
    if landed {
        let land = Command::Land { site: None };
        let Some(approved) = evaluate_failsafe(&snap, &land, link.now_ms())
            .approved()
            .cloned()
        else {
            return Err(OnboardError::Start(
                "the vehicle is in the air and the failsafe may not land it".into(),
            ));
        };
        let receipt = link.send(approved).await.map_err(|e| {
            OnboardError::Start(format!("landing the vehicle left in the air: {e}"))
        })?;
        if !receipt.accepted {
            return Err(OnboardError::Start(format!(
                "landing the vehicle left in the air refused: {}",
                receipt.message.unwrap_or_default()
            )));
        }
        let started = tokio::time::Instant::now();
        wait_until(link, started, timeout, |l| !l.snapshot().is_airborne()).await?;
    }
    // Both autopilots disarm by themselves after touch-down (PX4 COM_DISARM_LAND, ArduCopter's
    // LAND). Starting before that would skip arming and ask an armed vehicle, still in its
    // landing mode, to take off: ArduCopter refuses that (take-off only in GUIDED).
    if link.snapshot().armed && !link.snapshot().is_airborne() {
        let started = tokio::time::Instant::now();
        wait_until(link, started, DISARM_WAIT, |l| !l.snapshot().armed)
            .await
            .map_err(|_| {
                OnboardError::Start(format!(
                    "the vehicle stayed armed on the ground for {} s; it must disarm before a \
                     mission starts",
                    DISARM_WAIT.as_secs()
                ))
            })?;
    }
    Ok(landed)
}

/// How long an armed vehicle on the ground is given to disarm itself before a mission.
const DISARM_WAIT: Duration = Duration::from_secs(30);

/// Places `scenario` on the earth so that its home is where the vehicle stands (see
/// [`crate::agent::anchor`]) and switches the link to that frame: from here on telemetry and
/// commands are in the scenario's coordinates. Build the mission's world with
/// [`Anchor::origin`].
///
/// Anchored only on a 3-D fix and a reported home (waited for up to a minute): a
/// position before the fix can be kilometres off (issue 30 item 12: PX4 under load reported a
/// position 25 km away, fix none, and the mission was anchored there).
pub async fn anchor_mission(link: &HilLink, scenario: &Scenario) -> Result<Anchor, OnboardError> {
    let a = anchor(scenario, &fix_and_home(link).await?);
    link.set_origin(Some(a.origin)).await?;
    tracing::info!(
        origin = ?a.origin,
        home = ?a.home,
        point = ?a.point,
        "mission anchored at the autopilot"
    );
    Ok(a)
}

/// The vehicle relative to the autopilot's home (the link's frame set back to it), once it
/// has held a 3-D fix and a home for 1.5 s (`FIX_HOLD_MS`) of the autopilot's time without its
/// position jumping (waited for up to a minute): what a mission is placed by.
///
/// A snapshot that merely says "3-D" is not enough: the fix comes in the GNSS report (2 Hz
/// asked) and the position in the estimator's (up to 50 Hz), so for up to a report's period
/// after a fix is lost the snapshot pairs the last good report's "3-D" with a position that
/// already drifted. CI saw that pairing: a mission anchored as the vehicle disarmed, on the
/// moment the fix went, and its take-off refused for "no 3-D position fix".
pub async fn fix_and_home(link: &HilLink) -> Result<VehicleSnapshot, OnboardError> {
    link.set_origin(None).await?;
    let started = tokio::time::Instant::now();
    let mut hold = FixHold::default();
    loop {
        let snap = link.snapshot();
        if hold.observe(&snap, link.now_ms()) {
            return Ok(snap);
        }
        if started.elapsed() > ANCHOR_FIX_WAIT {
            return Err(OnboardError::Start(format!(
                "no 3-D fix and home held for {} ms within {} s: position {:?}, fix {:?}, \
                 home {}",
                FIX_HOLD_MS,
                ANCHOR_FIX_WAIT.as_secs(),
                snap.position,
                snap.gnss.fix,
                if snap.unreported.home {
                    "not reported"
                } else {
                    "reported"
                }
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How long anchoring waits for a 3-D fix and a home position.
const ANCHOR_FIX_WAIT: Duration = Duration::from_secs(60);

/// How long (autopilot ms) the fix, the home and a steady position must hold before a mission
/// is anchored: three periods of the GNSS report asked for (2 Hz), so a lost fix is heard of.
const FIX_HOLD_MS: u64 = 1_500;

/// How far the position may move between two looks beyond what its own ground speed explains,
/// m: a jump is an estimator that lost or regained its fix, not flight.
const FIX_HOLD_JUMP_M: f64 = 5.0;

/// Whether the fix has held long enough to anchor on, fed one look at a time.
#[derive(Debug, Default)]
struct FixHold {
    /// Since when (autopilot ms) the fix has held, and the last look's position and time.
    since_ms: Option<u64>,
    last: Option<(Enu, u64)>,
}

impl FixHold {
    /// Takes one look at `snap` at `now_ms`; true once the fix has held [`FIX_HOLD_MS`].
    fn observe(&mut self, snap: &VehicleSnapshot, now_ms: u64) -> bool {
        let steady = self.last.is_none_or(|(at, t)| {
            let dt_s = now_ms.saturating_sub(t) as f64 / 1000.0;
            snap.position.distance(at) <= FIX_HOLD_JUMP_M + 2.0 * snap.ground_speed_mps() * dt_s
        });
        self.last = Some((snap.position, now_ms));
        if !fixed_with_home(snap) || !steady {
            self.since_ms = None;
            return false;
        }
        let since = *self.since_ms.get_or_insert(now_ms);
        now_ms.saturating_sub(since) >= FIX_HOLD_MS
    }
}

/// A snapshot a mission can be anchored on: a 3-D fix, a home position, finite coordinates.
fn fixed_with_home(s: &alpha3_core::snapshot::VehicleSnapshot) -> bool {
    s.gnss.fix.is_3d()
        && !s.unreported.home
        && !s.unreported.position
        && [s.position.x, s.position.y, s.position.z]
            .iter()
            .all(|v| v.is_finite())
}

/// How long a start command refused only for stale telemetry is asked again: a loaded machine
/// can hold telemetry up for seconds, and that moment is waited out, not the episode failed.
const STALE_RETRY: Duration = Duration::from_secs(20);

/// How close to the scenario's spawn point the vehicle must be before the agent flies, m.
const START_TOLERANCE_M: f64 = 10.0;

/// Brings the vehicle to `world`'s spawn point — armed and airborne when the spawn is in the
/// air — with commands the gate approved, and waits until it is there (`timeout`). A vehicle
/// already there is left alone. Returns what was done, for the log.
pub async fn bring_to_start(
    link: &mut HilLink,
    world: &World,
    gate: &GateContext,
    timeout: Duration,
) -> Result<Vec<String>, OnboardError> {
    let spawn = world.snapshot().position;
    let mut done = Vec::new();
    let at_start = |link: &HilLink| link.snapshot().position.distance(spawn) <= START_TOLERANCE_M;
    if at_start(link) {
        return Ok(done);
    }
    let mut state = GateState::default();
    let mut steps = Vec::new();
    if spawn.z > 1.0 {
        let snap = link.snapshot();
        if !snap.is_airborne() {
            if !snap.armed {
                steps.push(Command::Arm);
            }
            steps.push(Command::Takeoff {
                altitude_m: spawn.z,
            });
        }
        steps.push(Command::GoTo {
            target: Enu::new(spawn.x, spawn.y, spawn.z),
            speed_mps: None,
        });
    }
    let started = tokio::time::Instant::now();
    for command in steps {
        let verdict = judged_when_fresh(link, gate, &command, &mut state).await;
        let approved = match &verdict {
            Verdict::Approved(a) | Verdict::Clamped { approved: a, .. } => a.clone(),
            Verdict::Denied(f) => {
                return Err(OnboardError::Start(format!(
                    "the gate denied {}: {}",
                    command.name(),
                    f.iter()
                        .map(|x| format!(
                            "{} (measured {}, limit {})",
                            x.reason, x.measured, x.limit
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                )));
            }
        };
        let receipt = link
            .send(approved)
            .await
            .map_err(|e| OnboardError::Start(format!("{}: {e}", command.name())))?;
        if !receipt.accepted {
            return Err(OnboardError::Start(format!(
                "{} refused: {}",
                command.name(),
                receipt.message.unwrap_or_default()
            )));
        }
        done.push(command.name().to_string());
        if let Command::Takeoff { altitude_m } = command {
            wait_until(link, started, timeout, |l| {
                (l.snapshot().position.z - altitude_m).abs() < 1.0
            })
            .await?;
        }
    }
    wait_until(link, started, timeout, |l| {
        at_start(l) && l.snapshot().ground_speed_mps() < 1.0
    })
    .await?;
    Ok(done)
}

/// The gate's verdict on `command` now; while it is refused only because the telemetry is too
/// old, asked again every 100 ms for up to [`STALE_RETRY`] (issue 30 item 12: a start under load
/// failed on "telemetry is too old to decide on (measured 3083, limit 1000)").
async fn judged_when_fresh(
    link: &HilLink,
    gate: &GateContext,
    command: &Command,
    state: &mut GateState,
) -> Verdict {
    let started = tokio::time::Instant::now();
    loop {
        let verdict = evaluate(gate, &link.snapshot(), command, link.now_ms(), state);
        if !only_stale(&verdict) || started.elapsed() > STALE_RETRY {
            return verdict;
        }
        tracing::debug!(
            command = command.name(),
            "telemetry too old for the gate; waiting"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A denial whose every finding is stale telemetry.
pub(crate) fn only_stale(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Denied(f)
        if !f.is_empty() && f.iter().all(|x| x.id == alpha3_core::gate::ids::STATE_STALE_SNAPSHOT))
}

async fn wait_until(
    link: &HilLink,
    started: tokio::time::Instant,
    timeout: Duration,
    done: impl Fn(&HilLink) -> bool,
) -> Result<(), OnboardError> {
    while !done(link) {
        if started.elapsed() > timeout {
            let s = link.snapshot();
            return Err(OnboardError::Start(format!(
                "not ready within {} s: position {:?}, fix {:?}",
                timeout.as_secs(),
                s.position,
                s.gnss.fix
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::frames::Geo;
    use alpha3_core::snapshot::FixType;

    fn at(x: f64, fix: FixType) -> VehicleSnapshot {
        let mut s = VehicleSnapshot::on_ground_at_home(
            Geo {
                lat_deg: 47.0,
                lon_deg: 8.0,
                alt_amsl_m: 400.0,
            },
            0,
        );
        s.position = Enu::new(x, 0.0, 0.0);
        s.gnss.fix = fix;
        s
    }

    /// Looks every 100 ms from `from_ms`; the first time (ms) the hold says anchor.
    fn anchored_at(looks: impl Fn(u64) -> VehicleSnapshot, from_ms: u64) -> Option<u64> {
        let mut hold = FixHold::default();
        (from_ms..from_ms + 10_000)
            .step_by(100)
            .find(|&t| hold.observe(&looks(t), t))
    }

    #[test]
    fn a_fix_must_hold_before_a_mission_is_anchored() {
        assert_eq!(anchored_at(|_| at(0.0, FixType::Fix3d), 1_000), Some(2_500));
        // Lost from 2 s to 4 s: the hold starts again when it is back.
        let lost = |t: u64| {
            let fix = if (2_000..4_000).contains(&t) {
                FixType::None
            } else {
                FixType::Fix3d
            };
            at(0.0, fix)
        };
        assert_eq!(anchored_at(lost, 1_000), Some(5_500));
    }

    #[test]
    fn a_position_that_jumps_under_a_fix_starts_the_hold_again() {
        // The estimator's position jumped 25 km at 1.2 s while the last report still said 3-D,
        // and came back at 1.6 s.
        let jumpy = |t: u64| {
            let x = if (1_200..1_600).contains(&t) {
                25_000.0
            } else {
                0.0
            };
            at(x, FixType::Fix3d)
        };
        assert_eq!(anchored_at(jumpy, 1_000), Some(3_200));
        // Flying at 10 m/s is not a jump.
        let flying = |t: u64| {
            let mut s = at(t as f64 / 100.0, FixType::Fix3d);
            s.velocity = Enu::new(10.0, 0.0, 0.0);
            s
        };
        assert_eq!(anchored_at(flying, 1_000), Some(2_500));
    }
}
