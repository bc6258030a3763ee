//! State rules: arguments and telemetry must be numbers, no take-off when airborne, no disarm in
//! the air, no mission command before arming (or on the ground), a position fix for anything
//! that navigates, speeds within the airframe's.

use super::input::Input;
use crate::command::Command;
use crate::frames::Enu;
use crate::gate::ids;
use crate::gate::verdict::{Finding, Findings, push_finding};
use crate::snapshot::{FixType, VehicleSnapshot};

/// A command or snapshot the checks cannot reason about (non-finite numbers): denied before any
/// check runs.
pub(crate) fn invalid(snap: &VehicleSnapshot, command: &Command) -> Option<Finding> {
    let finite3 = |p: Enu| p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
    let args_ok = match *command {
        Command::Takeoff { altitude_m } | Command::SetAltitude { altitude_m } => {
            altitude_m.is_finite()
        }
        Command::GoTo { target, speed_mps } => {
            finite3(target) && speed_mps.is_none_or(f64::is_finite)
        }
        Command::SetSpeed { speed_mps } => speed_mps.is_finite(),
        Command::SetYaw { yaw_deg } => yaw_deg.is_finite(),
        Command::Land { site } => site.is_none_or(|s| s[0].is_finite() && s[1].is_finite()),
        Command::Arm
        | Command::Disarm
        | Command::Hold
        | Command::ReturnToHome
        | Command::FlyMission => true,
    };
    if !args_ok {
        return Some(Finding::deny(
            ids::STATE_INVALID_ARGUMENT,
            "a command argument is not a finite number",
            0.0,
            0.0,
        ));
    }
    let b = &snap.battery;
    let snap_ok = finite3(snap.position)
        && finite3(snap.velocity)
        && b.remaining_pct.is_finite()
        && snap.gnss.eph_m.is_finite()
        && snap.gnss.eph_m >= 0.0;
    (!snap_ok).then_some(Finding::deny(
        ids::STATE_SNAPSHOT_INVALID,
        "telemetry holds a value that is not a finite number",
        0.0,
        0.0,
    ))
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let snap = input.snap;
    let mut deny = |id, reason, limit, measured| {
        push_finding(out, Finding::deny(id, reason, limit, measured));
    };
    let age_ms = input.now_ms.saturating_sub(snap.time_ms);
    let max_age = input.ctx.tuning.max_snapshot_age_ms;
    if age_ms > max_age {
        deny(
            ids::STATE_STALE_SNAPSHOT,
            "telemetry is too old to decide on",
            max_age as f64,
            age_ms as f64,
        );
    }
    let airborne = snap.is_airborne();
    let needs_fix = match *input.command {
        Command::Arm => {
            let reserve = input.ctx.limits.reserve_battery_pct;
            if !snap.armed && snap.battery.remaining_pct <= reserve {
                deny(
                    ids::STATE_BATTERY_LOW,
                    "battery at or below the reserve: do not arm",
                    reserve,
                    snap.battery.remaining_pct,
                );
            }
            !snap.armed
        }
        Command::Disarm => {
            if airborne {
                deny(
                    ids::STATE_DISARM_IN_AIR,
                    "cannot disarm in the air",
                    0.0,
                    0.0,
                );
            }
            false
        }
        // Judged leg by leg (`route`), each leg with these checks; here only the arming.
        Command::FlyMission => {
            if !snap.armed {
                deny(
                    ids::STATE_NOT_ARMED,
                    "arm before flying the mission",
                    0.0,
                    0.0,
                );
            }
            true
        }
        Command::Takeoff { .. } => {
            if !snap.armed {
                deny(ids::STATE_NOT_ARMED, "arm before taking off", 0.0, 0.0);
            } else if airborne {
                deny(ids::STATE_TAKEOFF_AIRBORNE, "already airborne", 0.0, 0.0);
            }
            true
        }
        Command::GoTo { .. }
        | Command::SetAltitude { .. }
        | Command::ReturnToHome
        | Command::Land { .. } => {
            if !snap.armed {
                deny(ids::STATE_NOT_ARMED, "arm and take off first", 0.0, 0.0);
            } else if !airborne {
                deny(ids::STATE_ON_GROUND, "take off first", 0.0, 0.0);
            }
            !matches!(
                input.command,
                Command::SetAltitude { .. } | Command::Land { site: None }
            )
        }
        Command::SetSpeed { .. } | Command::SetYaw { .. } | Command::Hold => false,
    };
    if needs_fix && !snap.gnss.fix.is_3d() {
        deny(
            ids::STATE_NO_FIX,
            "no 3-D position fix",
            3.0,
            fix_rank(snap.gnss.fix),
        );
    }
    let speed = match *input.command {
        Command::GoTo { speed_mps, .. } => speed_mps,
        Command::SetSpeed { speed_mps } => Some(speed_mps),
        _ => None,
    };
    let max = input.ctx.vehicle.max_speed_mps;
    if let Some(s) = speed.filter(|s| !(*s > 0.0 && *s <= max)) {
        deny(
            ids::STATE_SPEED,
            "speed must be above 0 and at most the maximum",
            max,
            s,
        );
    }
}

fn fix_rank(fix: FixType) -> f64 {
    match fix {
        FixType::None => 0.0,
        FixType::Fix2d => 2.0,
        FixType::Fix3d => 3.0,
        FixType::Dgps => 4.0,
        FixType::RtkFloat => 5.0,
        FixType::RtkFixed => 6.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Verdict;
    use crate::gate::testkit::*;

    #[test]
    fn no_takeoff_when_airborne_and_no_disarm_in_the_air() {
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Takeoff { altitude_m: 40.0 }),
            [ids::STATE_TAKEOFF_AIRBORNE]
        );
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Disarm),
            [ids::STATE_DISARM_IN_AIR]
        );
    }

    #[test]
    fn no_mission_command_before_arming_or_on_the_ground() {
        let ctx = open_field();
        let mut snap = on_ground(0.0, 0.0);
        snap.armed = false;
        let go = Command::GoTo {
            target: Enu::new(10.0, 0.0, 30.0),
            speed_mps: None,
        };
        assert_eq!(deny_ids(&ctx, &snap, go), [ids::STATE_NOT_ARMED]);
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Takeoff { altitude_m: 30.0 }),
            [ids::STATE_NOT_ARMED]
        );
        snap.armed = true;
        assert_eq!(deny_ids(&ctx, &snap, go), [ids::STATE_ON_GROUND]);
        assert!(deny_ids(&ctx, &snap, Command::Takeoff { altitude_m: 30.0 }).is_empty());
    }

    #[test]
    fn speed_must_be_within_the_airframe() {
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let max = ctx.vehicle().max_speed_mps;
        let f = only_finding(
            &ctx,
            &snap,
            Command::SetSpeed {
                speed_mps: max + 1.0,
            },
        );
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::STATE_SPEED, max, max + 1.0)
        );
        assert!(deny_ids(&ctx, &snap, Command::SetSpeed { speed_mps: 0.0 }).len() == 1);
        assert!(deny_ids(&ctx, &snap, Command::SetSpeed { speed_mps: max }).is_empty());
    }

    #[test]
    fn non_finite_arguments_and_stale_or_broken_telemetry_are_refused() {
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let go = Command::GoTo {
            target: Enu::new(f64::NAN, 0.0, 30.0),
            speed_mps: None,
        };
        assert_eq!(deny_ids(&ctx, &snap, go), [ids::STATE_INVALID_ARGUMENT]);
        let mut broken = snap;
        broken.velocity.x = f64::INFINITY;
        assert_eq!(
            deny_ids(&ctx, &broken, Command::ReturnToHome),
            [ids::STATE_SNAPSHOT_INVALID]
        );
        let mut state = Default::default();
        let stale =
            crate::gate::evaluate(&ctx, &snap, &Command::ReturnToHome, NOW + 5_000, &mut state);
        assert_eq!(stale.findings()[0].id, ids::STATE_STALE_SNAPSHOT);
        // Hold always passes, even on stale or broken telemetry.
        let hold = crate::gate::evaluate(&ctx, &broken, &Command::Hold, NOW + 5_000, &mut state);
        assert!(matches!(hold, Verdict::Approved(_)));
    }

    #[test]
    fn arming_needs_a_fix_and_charge() {
        let ctx = open_field();
        let mut snap = on_ground(0.0, 0.0);
        snap.armed = false;
        assert!(deny_ids(&ctx, &snap, Command::Arm).is_empty());
        snap.battery.remaining_pct = ctx.limits().reserve_battery_pct;
        snap.gnss.fix = FixType::Fix2d;
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Arm),
            [ids::STATE_BATTERY_LOW, ids::STATE_NO_FIX]
        );
    }
}
