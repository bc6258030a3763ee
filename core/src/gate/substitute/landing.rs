//! Committed to land or to take off: below the altitude band a vehicle is exempt from it only
//! while it lands or takes off. A climb, a go-to, a return or a hold there would leave it low
//! and neither landing nor taking off — in breach at once. So below the band a landing can only be continued: a hold becomes "keep landing"
//! (clamped), anything that moves the vehicle is denied. A take-off there can only be continued
//! or turned into a landing (there is no command that continues it, so a hold is denied and the
//! take-off goes on to its altitude, inside the band). Speed and yaw changes pass.

use crate::command::Command;
use crate::gate::context::GateContext;
use crate::gate::ids;
use crate::gate::verdict::{Finding, Verdict};
use crate::snapshot::{FlightMode, LandedState, VehicleSnapshot};

/// Whether the vehicle is landing (the land mode, or the landing at the end of a return)
/// below the band.
fn landing_below_band(ctx: &GateContext, snap: &VehicleSnapshot) -> bool {
    let landing = snap.mode == FlightMode::Land || snap.landed == LandedState::Landing;
    snap.is_airborne() && landing && snap.position.z < ctx.limits.min_altitude_m
}

/// Whether the vehicle is taking off below the band.
fn taking_off_below_band(ctx: &GateContext, snap: &VehicleSnapshot) -> bool {
    let taking_off = snap.mode == FlightMode::Takeoff || snap.landed == LandedState::TakingOff;
    snap.is_airborne() && taking_off && snap.position.z < ctx.limits.min_altitude_m
}

/// What the commitment makes of `command`: `None` when it does not apply, else the command to
/// fly instead (`Some(Ok)`, a clamp) or the denial.
fn committed(
    ctx: &GateContext,
    snap: &VehicleSnapshot,
    command: &Command,
) -> Option<Result<(Command, Finding), Finding>> {
    let (limit, measured) = (ctx.limits.min_altitude_m, snap.position.z);
    if taking_off_below_band(ctx, snap) {
        return match command {
            Command::Land { site: None } | Command::SetSpeed { .. } | Command::SetYaw { .. } => {
                None
            }
            _ => Some(Err(Finding::deny(
                ids::TAKEOFF_COMMITTED,
                "taking off below the band: only the take-off (or a landing) may continue",
                limit,
                measured,
            ))),
        };
    }
    if !landing_below_band(ctx, snap) {
        return None;
    }
    match command {
        Command::Land { site: None } | Command::SetSpeed { .. } | Command::SetYaw { .. } => None,
        Command::Hold => Some(Ok((
            Command::Land { site: None },
            Finding::clamp(
                ids::LANDING_COMMITTED,
                "landing below the band: the hold continues the landing",
                limit,
                measured,
            ),
        ))),
        _ => Some(Err(Finding::deny(
            ids::LANDING_COMMITTED,
            "landing below the band: only the landing may continue",
            limit,
            measured,
        ))),
    }
}

/// The verdict of the commitment, when it applies: the landing instead of a hold (clamped), or
/// the denial at `now_ms`.
pub(crate) fn commitment(
    ctx: &GateContext,
    snap: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
) -> Option<Verdict> {
    Some(match committed(ctx, snap, command)? {
        Ok((landing, finding)) => Verdict::instead(landing, finding, now_ms),
        Err(finding) => Verdict::denied(finding),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testkit::*;
    use crate::gate::{Severity, Verdict, evaluate_failsafe_in};

    fn landing_at(z: f64) -> VehicleSnapshot {
        let mut s = hovering(0.0, 0.0, z);
        s.mode = FlightMode::Land;
        s.landed = LandedState::Landing;
        s
    }

    #[test]
    fn below_the_band_a_landing_can_only_continue() {
        let ctx = open_field();
        let low = landing_at(4.0);
        for c in [
            go(30.0, 0.0, 30.0),
            Command::SetAltitude { altitude_m: 30.0 },
            Command::ReturnToHome,
            Command::Land {
                site: Some([100.0, 0.0]),
            },
        ] {
            assert_eq!(deny_ids(&ctx, &low, c), [ids::LANDING_COMMITTED], "{c:?}");
        }
        let hold = verdict(&ctx, &low, Command::Hold);
        let Verdict::Clamped { approved, findings } = &hold else {
            panic!("{hold:?}")
        };
        assert_eq!(*approved.command(), Command::Land { site: None });
        assert_eq!(
            (findings[0].id, findings[0].severity),
            (ids::LANDING_COMMITTED, Severity::Clamp)
        );
        assert!(deny_ids(&ctx, &low, Command::Land { site: None }).is_empty());
        assert!(deny_ids(&ctx, &low, Command::SetSpeed { speed_mps: 3.0 }).is_empty());
        // The watchdog's hold and return keep the landing too.
        for c in [Command::Hold, Command::ReturnToHome] {
            let v = evaluate_failsafe_in(&ctx, &low, &c, NOW);
            assert_eq!(
                v.approved().map(|a| *a.command()),
                Some(Command::Land { site: None }),
                "{c:?}"
            );
        }
    }

    #[test]
    fn below_the_band_a_take_off_can_only_continue_or_land() {
        let ctx = open_field();
        let mut climbing = hovering(0.0, 0.0, 7.0);
        climbing.mode = FlightMode::Takeoff;
        climbing.landed = LandedState::TakingOff;
        for c in [
            Command::Hold,
            Command::ReturnToHome,
            go(30.0, 0.0, 30.0),
            Command::SetAltitude { altitude_m: 50.0 },
        ] {
            assert_eq!(
                deny_ids(&ctx, &climbing, c),
                [ids::TAKEOFF_COMMITTED],
                "{c:?}"
            );
        }
        assert!(deny_ids(&ctx, &climbing, Command::Land { site: None }).is_empty());
        // The watchdog's hold and return are refused too: the take-off goes on.
        for c in [Command::Hold, Command::ReturnToHome] {
            let v = evaluate_failsafe_in(&ctx, &climbing, &c, NOW);
            assert!(v.approved().is_none(), "{c:?}: {v:?}");
        }
        // In the band the take-off may be changed.
        climbing.position.z = 15.0;
        assert!(deny_ids(&ctx, &climbing, go(30.0, 0.0, 30.0)).is_empty());
    }

    #[test]
    fn in_the_band_or_not_landing_the_commitment_does_not_apply() {
        let ctx = open_field();
        // Landing, still in the band: it may stop and go elsewhere.
        assert!(deny_ids(&ctx, &landing_at(30.0), go(30.0, 0.0, 30.0)).is_empty());
        assert!(matches!(
            verdict(&ctx, &landing_at(30.0), Command::Hold),
            Verdict::Approved(_)
        ));
        // Low but not landing (e.g. after a take-off): it may climb into the band.
        assert!(deny_ids(&ctx, &hovering(0.0, 0.0, 4.0), go(30.0, 0.0, 30.0)).is_empty());
    }
}
