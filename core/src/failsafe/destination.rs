//! Where the watchdog's return goes, and the way there that its land step is weighed against.
//!
//! The return goes to the nearest authorised place to land that is open: home, as PX4's RTL
//! does, unless the gate rules the way there out (a zone, the fence, the energy, no position
//! fix), or an emergency site the gate approves a landing at now (PX4's "closest safe
//! destination" RTL with rally points). Only when none is open is the return ruled out, and the
//! watchdog's land step puts the vehicle down where it is.

use super::way_home::ReturnStatus;
use crate::command::Command;
use crate::frames::Enu;
use crate::gate::{GateContext, GateState, Severity, evaluate, evaluate_failsafe_in, ids};
use crate::snapshot::VehicleSnapshot;

/// Whether the gate rules `command` out from `snap` for good: a denial that does not pass by
/// itself (traffic moving on, the rate limit refilling, fresh telemetry are transient, and a
/// return waits them out).
fn ruled_out(gate: &GateContext, snap: &VehicleSnapshot, command: &Command, now_ms: u64) -> bool {
    let mut scratch = GateState::default();
    evaluate(gate, snap, command, now_ms, &mut scratch)
        .findings()
        .iter()
        .any(|f| f.severity == Severity::Deny && !f.kind().transient)
}

/// Whether the gate denies `command` now for traffic or a peer on its way (the failsafe path
/// would fly it anyway).
fn traffic_in_the_way(
    gate: &GateContext,
    snap: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
) -> bool {
    evaluate(gate, snap, command, now_ms, &mut GateState::default())
        .findings()
        .iter()
        .any(|f| f.severity == Severity::Deny && f.kind().obstacle == Some(ids::Obstacle::Traffic))
}

/// The return to fly from `snap`: home when the gate does not rule the way there out (PX4's
/// RTL), else — or first, with `nearest` — the nearest authorised place to land that is open:
/// an emergency site when the gate approves a landing there now with nothing in the way (PX4's
/// "closest safe destination" RTL with rally points). The hand-over at an episode's end uses
/// `nearest`: the mission is over, so the quickest safe landing ends the flight, and it takes
/// the nearest place whose way is clear of everything, traffic too, before flying home through
/// traffic. `None` when none is open. Without a fix none is: the return would fly on a
/// drifting estimate — towards a place that is not there, possibly out of the fence — so, as
/// PX4 does on position loss, the vehicle lands instead.
pub fn return_command(
    gate: &GateContext,
    snap: &VehicleSnapshot,
    now_ms: u64,
    nearest: bool,
) -> Option<Command> {
    let here = |x: f64, y: f64| (x - snap.position.x).hypot(y - snap.position.y);
    let home = gate.home();
    let mut places: Vec<(f64, Command)> = gate
        .landing_sites()
        .map(|site| (here(site[0], site[1]), Command::Land { site: Some(site) }))
        .collect();
    // Home first unless the nearest place is wanted.
    let home_at = if nearest { here(home.x, home.y) } else { -1.0 };
    places.push((home_at, Command::ReturnToHome));
    places.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The hand-over takes the nearest place whose way is clear of everything, traffic too. A
    // site is only ever taken clear, so when none is, home is all that is left.
    let home_open = || !ruled_out(gate, snap, &Command::ReturnToHome, now_ms);
    if nearest {
        return places
            .iter()
            .map(|(_, c)| *c)
            .find(|c| clear(gate, snap, c, now_ms))
            .or_else(|| home_open().then_some(Command::ReturnToHome));
    }
    places.into_iter().map(|(_, c)| c).find(|c| match c {
        Command::ReturnToHome => home_open(),
        // The way to a site must be clear of everything the gate checks, traffic too: the
        // failsafe path flies it whatever comes.
        land => clear(gate, snap, land, now_ms),
    })
}

/// Whether the gate approves `command` as it is, on both paths: nothing in its way now.
fn clear(gate: &GateContext, snap: &VehicleSnapshot, command: &Command, now_ms: u64) -> bool {
    evaluate(gate, snap, command, now_ms, &mut GateState::default())
        .approved()
        .is_some_and(|a| a.command() == command)
        && evaluate_failsafe_in(gate, snap, command, now_ms)
            .approved()
            .is_some_and(|a| a.command() == command)
}

/// Where `command` (a return) ends, on the ground.
fn destination(gate: &GateContext, command: Option<&Command>) -> Enu {
    match command {
        Some(Command::Land { site: Some([x, y]) }) => Enu::new(*x, *y, gate.home().z),
        _ => gate.home(),
    }
}

/// The way from `snap` along the return under way (`returning`; home when none is): how far,
/// how high, and whether the gate rules it out. A return that is not under way yet is ruled
/// out only when no destination is possible ([`return_command`], nearest first with
/// `nearest`); traffic in its way now is reported, so the watchdog holds clear of it before it
/// returns.
pub fn return_status(
    gate: &GateContext,
    snap: &VehicleSnapshot,
    now_ms: u64,
    returning: Option<&Command>,
    nearest: bool,
) -> ReturnStatus {
    let to = destination(gate, returning);
    let (ruled_out, traffic_in_way) = match returning {
        _ if !snap.is_airborne() => (false, false),
        Some(command) => (ruled_out(gate, snap, command, now_ms), false),
        None => match return_command(gate, snap, now_ms, nearest) {
            None => (true, false),
            Some(command) => (false, traffic_in_the_way(gate, snap, &command, now_ms)),
        },
    };
    ReturnStatus {
        home_distance_m: snap.position.horizontal_distance(to),
        height_m: snap.position.z - to.z,
        ruled_out,
        traffic_in_way,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airspace::Area;
    use crate::config::Config;
    use crate::frames::Geo;
    use crate::snapshot::{FixType, LandedState};

    const NOW: u64 = 10_000;

    /// The shipped vehicle under the shipped limits.
    fn gate() -> GateContext {
        let config = Config::from_toml(include_str!("../../../configs/alpha3.toml")).unwrap();
        GateContext::new(config.limits.unwrap(), config.vehicle.unwrap()).unwrap()
    }

    fn hovering(x: f64, y: f64, z: f64) -> VehicleSnapshot {
        let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), NOW);
        s.armed = true;
        s.landed = LandedState::InAir;
        s.position = Enu::new(x, y, z);
        s
    }

    #[test]
    fn the_way_home_is_measured_and_open_in_an_open_field() {
        let s = return_status(&gate(), &hovering(300.0, 400.0, 40.0), NOW, None, false);
        assert!((s.home_distance_m - 500.0).abs() < 1e-9);
        assert!((s.height_m - 40.0).abs() < 1e-9);
        assert!(!s.ruled_out);
        assert_eq!(
            return_command(&gate(), &hovering(300.0, 400.0, 40.0), NOW, false),
            Some(Command::ReturnToHome)
        );
    }

    #[test]
    fn an_empty_battery_or_a_zone_on_the_way_rule_the_return_out() {
        let mut empty = hovering(300.0, 0.0, 40.0);
        empty.battery.remaining_pct = 16.0;
        assert!(return_status(&gate(), &empty, NOW, None, false).ruled_out);
        let zone = gate()
            .with_no_fly(&Area::circle([150.0, 0.0], 40.0))
            .unwrap();
        assert!(return_status(&zone, &hovering(300.0, 0.0, 40.0), NOW, None, false).ruled_out);
    }

    #[test]
    fn a_zone_on_the_way_home_sends_the_return_to_the_nearest_open_site() {
        let zone = gate()
            .with_no_fly(&Area::circle([150.0, 0.0], 40.0))
            .unwrap()
            // Nearest, but behind the zone too; then one the way to is open.
            .with_landing_site(Enu::new(60.0, 0.0, 0.0))
            .with_landing_site(Enu::new(300.0, 200.0, 0.0))
            .with_landing_site(Enu::new(700.0, 0.0, 0.0));
        let at = hovering(300.0, 0.0, 40.0);
        let command = return_command(&zone, &at, NOW, false);
        assert_eq!(
            command,
            Some(Command::Land {
                site: Some([300.0, 200.0])
            })
        );
        let s = return_status(&zone, &at, NOW, command.as_ref(), false);
        assert!(!s.ruled_out);
        assert!(
            (s.home_distance_m - 200.0).abs() < 1e-9,
            "measured to the site"
        );
        // Still ruled out while nothing is under way: no, a site is open.
        assert!(!return_status(&zone, &at, NOW, None, false).ruled_out);
        // Under way home, home is what is measured and ruled out.
        assert!(return_status(&zone, &at, NOW, Some(&Command::ReturnToHome), false).ruled_out);
    }

    /// The hand-over lands at the nearest open place rather than fly a long way home.
    #[test]
    fn a_site_nearer_than_home_is_where_the_hand_over_return_goes() {
        let sites = gate().with_landing_site(Enu::new(320.0, 0.0, 0.0));
        let at = hovering(300.0, 0.0, 40.0);
        assert_eq!(
            return_command(&sites, &at, NOW, true),
            Some(Command::Land {
                site: Some([320.0, 0.0])
            })
        );
        // Home nearer: home. And home first unless the nearest is wanted.
        assert_eq!(
            return_command(&sites, &hovering(100.0, 0.0, 40.0), NOW, true),
            Some(Command::ReturnToHome)
        );
        assert_eq!(
            return_command(&sites, &at, NOW, false),
            Some(Command::ReturnToHome)
        );
    }

    #[test]
    fn without_a_fix_the_return_is_ruled_out_even_with_sites() {
        let sites = gate().with_landing_site(Enu::new(320.0, 0.0, 0.0));
        let mut no_fix = hovering(300.0, 0.0, 40.0);
        no_fix.gnss.fix = FixType::None;
        assert!(return_status(&sites, &no_fix, NOW, None, false).ruled_out);
        assert_eq!(return_command(&sites, &no_fix, NOW, true), None);
    }

    /// `g` with an aircraft parked at (150, 0, 40): on the way home from (300, 0, 40).
    fn parked_on_the_way_home(mut g: GateContext) -> GateContext {
        g.set_traffic(vec![crate::gate::Track {
            position: Enu::new(150.0, 0.0, 40.0),
            velocity: Enu::default(),
            time_ms: NOW,
        }])
        .unwrap();
        g
    }

    #[test]
    fn traffic_on_the_way_home_is_reported_not_ruled_out() {
        let g = parked_on_the_way_home(gate());
        let s = return_status(&g, &hovering(300.0, 0.0, 40.0), NOW, None, false);
        assert!(!s.ruled_out);
        assert!(s.traffic_in_way);
        let clear = return_status(&gate(), &hovering(300.0, 0.0, 40.0), NOW, None, false);
        assert!(!clear.traffic_in_way);
    }

    /// The hand-over takes a site clear of traffic before a way home through it.
    #[test]
    fn the_hand_over_takes_a_clear_site_before_a_way_home_through_traffic() {
        // Home 300 m west with traffic parked on the way; a site 320 m north, clear.
        let g = parked_on_the_way_home(gate().with_landing_site(Enu::new(300.0, 320.0, 0.0)));
        let at = hovering(300.0, 0.0, 40.0);
        let site = Command::Land {
            site: Some([300.0, 320.0]),
        };
        assert_eq!(return_command(&g, &at, NOW, true), Some(site));
        let s = return_status(&g, &at, NOW, None, true);
        assert!(!s.ruled_out && !s.traffic_in_way, "{s:?}");
        // Home first (a lost link, PX4's RTL): home, and the traffic is reported.
        assert_eq!(
            return_command(&g, &at, NOW, false),
            Some(Command::ReturnToHome)
        );
        assert!(return_status(&g, &at, NOW, None, false).traffic_in_way);
        // Nothing clear: home all the same, with the traffic reported (the watchdog holds
        // clear of it first).
        let g = parked_on_the_way_home(gate());
        assert_eq!(
            return_command(&g, &at, NOW, true),
            Some(Command::ReturnToHome)
        );
        assert!(return_status(&g, &at, NOW, None, true).traffic_in_way);
    }

    #[test]
    fn on_the_ground_nothing_is_ruled_out() {
        let mut parked = hovering(300.0, 0.0, 0.0);
        parked.landed = LandedState::OnGround;
        parked.gnss.fix = FixType::None;
        assert!(!return_status(&gate(), &parked, NOW, None, false).ruled_out);
    }
}
