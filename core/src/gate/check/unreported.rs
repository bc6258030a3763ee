//! Inputs not yet reported: a command whose checks need a value the autopilot has not sent yet
//! (battery, position, home, GNSS fix, landed state) is denied with *that* reason, before any
//! check could mistake the placeholder for a value — an unknown battery for an empty one, an
//! unknown position for home, an unknown landed state for flying. `hold` never gets here.

use crate::command::Command;
use crate::gate::ids;
use crate::gate::verdict::{Finding, Findings, push_finding};
use crate::snapshot::{Unreported, VehicleSnapshot};

/// What `command`'s checks read from the snapshot.
fn needs(command: &Command) -> Unreported {
    let moving = Unreported {
        battery: true,
        position: true,
        home: true,
        fix: true,
        landed: true,
    };
    match *command {
        Command::Arm => Unreported {
            landed: false,
            ..moving
        },
        Command::Takeoff { .. }
        | Command::GoTo { .. }
        | Command::ReturnToHome
        | Command::FlyMission => moving,
        Command::Land { site } => Unreported {
            fix: site.is_some(),
            ..moving
        },
        Command::SetAltitude { .. } => Unreported {
            fix: false,
            ..moving
        },
        Command::Disarm => Unreported {
            landed: true,
            ..Unreported::default()
        },
        Command::SetSpeed { .. } | Command::SetYaw { .. } | Command::Hold => Unreported::default(),
    }
}

/// One denial per input `command` needs that `snap` has not reported; empty when none.
pub(crate) fn check(snap: &VehicleSnapshot, command: &Command) -> Findings {
    let need = needs(command);
    let missing = snap.unreported;
    let mut out = Findings::new();
    for (gap, id, reason) in [
        (
            need.battery && missing.battery,
            ids::STATE_BATTERY_UNREPORTED,
            "battery not yet reported",
        ),
        (
            need.position && missing.position,
            ids::STATE_POSITION_UNREPORTED,
            "position not yet reported",
        ),
        (
            need.home && missing.home,
            ids::STATE_HOME_UNREPORTED,
            "home not yet reported",
        ),
        (
            need.fix && missing.fix,
            ids::STATE_FIX_UNREPORTED,
            "GNSS fix not yet reported",
        ),
        (
            need.landed && missing.landed,
            ids::STATE_LANDED_UNREPORTED,
            "landed state not yet reported",
        ),
    ] {
        if gap {
            push_finding(&mut out, Finding::deny(id, reason, 0.0, 0.0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::Enu;
    use crate::gate::testkit::*;
    use crate::gate::{GateState, Verdict, evaluate};

    fn fresh_link(mut s: VehicleSnapshot) -> VehicleSnapshot {
        s.unreported = Unreported::ALL;
        // What a cache holds before the first report: an empty battery, no fix, home at 0.
        s.battery.remaining_pct = 0.0;
        s.gnss.fix = crate::snapshot::FixType::None;
        s
    }

    #[test]
    fn an_unreported_battery_denies_arming_as_unreported_not_as_empty() {
        let ctx = open_field();
        let mut snap = on_ground(0.0, 0.0);
        snap.armed = false;
        snap.unreported.battery = true;
        snap.battery.remaining_pct = 0.0;
        let f = only_finding(&ctx, &snap, Command::Arm);
        assert_eq!(
            (f.id, f.reason),
            (ids::STATE_BATTERY_UNREPORTED, "battery not yet reported")
        );
        // Once reported, the same empty battery is what it is.
        snap.unreported.battery = false;
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Arm),
            [ids::STATE_BATTERY_LOW]
        );
    }

    #[test]
    fn each_missing_input_gives_its_own_reason_and_nothing_else() {
        let ctx = open_field();
        let mut snap = fresh_link(on_ground(0.0, 0.0));
        snap.armed = false;
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Arm),
            [
                ids::STATE_BATTERY_UNREPORTED,
                ids::STATE_POSITION_UNREPORTED,
                ids::STATE_HOME_UNREPORTED,
                ids::STATE_FIX_UNREPORTED,
            ]
        );
        let flying = fresh_link(hovering(0.0, 0.0, 30.0));
        assert_eq!(
            deny_ids(&ctx, &flying, go(50.0, 0.0, 30.0)),
            [
                ids::STATE_BATTERY_UNREPORTED,
                ids::STATE_POSITION_UNREPORTED,
                ids::STATE_HOME_UNREPORTED,
                ids::STATE_FIX_UNREPORTED,
                ids::STATE_LANDED_UNREPORTED,
            ]
        );
        let mut only_landed = hovering(0.0, 0.0, 30.0);
        only_landed.unreported.landed = true;
        assert_eq!(
            deny_ids(&ctx, &only_landed, Command::Disarm),
            [ids::STATE_LANDED_UNREPORTED]
        );
        assert_eq!(
            deny_ids(&ctx, &only_landed, Command::Takeoff { altitude_m: 40.0 }),
            [ids::STATE_LANDED_UNREPORTED]
        );
    }

    #[test]
    fn commands_that_do_not_read_an_input_do_not_wait_for_it() {
        let ctx = open_field();
        let mut snap = hovering(0.0, 0.0, 30.0);
        snap.unreported.fix = true;
        assert!(deny_ids(&ctx, &snap, Command::SetAltitude { altitude_m: 40.0 }).is_empty());
        assert!(deny_ids(&ctx, &snap, Command::Land { site: None }).is_empty());
        assert!(deny_ids(&ctx, &snap, Command::SetSpeed { speed_mps: 5.0 }).is_empty());
        let all = fresh_link(hovering(0.0, 0.0, 30.0));
        assert!(deny_ids(&ctx, &all, Command::SetYaw { yaw_deg: 90.0 }).is_empty());
        let mut state = GateState::default();
        assert!(matches!(
            evaluate(&ctx, &all, &Command::Hold, NOW, &mut state),
            Verdict::Approved(_)
        ));
    }

    #[test]
    fn a_fully_reported_snapshot_is_judged_exactly_as_before() {
        let snap = hovering(0.0, 0.0, 30.0);
        assert!(snap.unreported.is_empty());
        for c in [
            Command::Arm,
            Command::Disarm,
            Command::Takeoff { altitude_m: 40.0 },
            go(10.0, 0.0, 30.0),
            Command::GoTo {
                target: Enu::new(0.0, 10.0, 30.0),
                speed_mps: Some(5.0),
            },
            Command::ReturnToHome,
            Command::Land {
                site: Some([0.0, 0.0]),
            },
        ] {
            assert!(check(&snap, &c).is_empty(), "{c:?}");
        }
    }
}
