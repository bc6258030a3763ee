//! An out-of-band target altitude moved into the band (`limits.clamp_altitude`), and the
//! judgement of a command after it: the way `evaluate` judges anything but a hold or a
//! committed vehicle's command.

use crate::command::Command;
use crate::gate::check::altitude::outside_target_band;
use crate::gate::context::GateContext;
use crate::gate::ids;
use crate::gate::judge::{judge, refused};
use crate::gate::memory::GateState;
use crate::gate::verdict::{Finding, Verdict};
use crate::snapshot::VehicleSnapshot;

/// The command with its target altitude moved into the target band when it is outside and
/// `limits.clamp_altitude` allows, and the clamp finding that says so.
pub(crate) fn clamp(ctx: &GateContext, command: &Command) -> (Command, Option<Finding>) {
    if !ctx.limits.clamp_altitude {
        return (*command, None);
    }
    let Some((asked, bound)) = outside_target_band(ctx, command) else {
        return (*command, None);
    };
    let clamped = match *command {
        Command::Takeoff { .. } => Command::Takeoff { altitude_m: bound },
        Command::SetAltitude { .. } => Command::SetAltitude { altitude_m: bound },
        Command::GoTo {
            mut target,
            speed_mps,
        } => {
            target.z = bound;
            Command::GoTo { target, speed_mps }
        }
        other => other,
    };
    let reason = "target altitude moved into the band";
    (
        clamped,
        Some(Finding::clamp(ids::ALTITUDE_CLAMPED, reason, bound, asked)),
    )
}

/// `command` refused when the checks cannot judge it, else clamped into the band and judged.
/// A clamped command judged again with the state from before comes back approved, unchanged.
pub(crate) fn clamped_and_judged(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
    state: &mut GateState,
) -> Verdict {
    if let Some(v) = refused(snapshot, command) {
        return v;
    }
    let (command, noted) = clamp(ctx, command);
    judge(ctx, snapshot, command, noted, now_ms, state)
}

#[cfg(test)]
mod tests {
    use crate::command::Command;
    use crate::frames::Enu;
    use crate::gate::testkit::*;
    use crate::gate::{Severity, Verdict, ids};

    #[test]
    fn an_out_of_band_target_is_clamped_and_the_clamped_command_passes_unchanged() {
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let v = verdict(&ctx, &snap, go(100.0, 0.0, 150.0));
        let Verdict::Clamped { approved, findings } = &v else {
            panic!("{v:?}")
        };
        // The band is 10–120 m, less the 2 m position uncertainty at each edge; the move is
        // approved at the cruise speed it was checked at.
        let cruise = Some(ctx.vehicle().cruise_speed_mps);
        let clamped = Command::GoTo {
            target: Enu::new(100.0, 0.0, 118.0),
            speed_mps: cruise,
        };
        assert_eq!(*approved.command(), clamped);
        let f = findings[0];
        assert_eq!(
            (f.id, f.severity, f.limit, f.measured),
            (ids::ALTITUDE_CLAMPED, Severity::Clamp, 118.0, 150.0)
        );
        let again = verdict(&ctx, &snap, *approved.command());
        assert_eq!(again.approved().map(|a| *a.command()), Some(clamped));
        assert!(matches!(again, Verdict::Approved(_)));
    }

    #[test]
    fn a_target_on_the_edge_of_the_band_is_moved_inside_by_the_uncertainty() {
        // Regression (adversarial policies): clamped exactly to 10 m, a holding vehicle dipped
        // below the band. Targets keep the 2 m position uncertainty from both edges.
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        for (asked, expected) in [(0.0, 12.0), (10.0, 12.0), (119.0, 118.0), (1e300, 118.0)] {
            let v = verdict(&ctx, &snap, Command::SetAltitude { altitude_m: asked });
            let Verdict::Clamped { approved, .. } = &v else {
                panic!("{asked}: {v:?}")
            };
            assert_eq!(
                *approved.command(),
                Command::SetAltitude {
                    altitude_m: expected
                }
            );
        }
        let inside = verdict(&ctx, &snap, Command::SetAltitude { altitude_m: 12.0 });
        assert!(matches!(inside, Verdict::Approved(_)), "{inside:?}");
    }
}
