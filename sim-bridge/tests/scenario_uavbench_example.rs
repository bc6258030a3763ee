//! The real UAVBench example (read in place from the published reference data, `data/` in the
//! shared folder next to the project): it loads, runs, and reports its mission waypoints, zones
//! and faults; its motor failure and loss window happen at their times.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_sim::network::RadioState;
use alpha3_sim::scenario::{ScenarioSummary, read_scenario, zone_lines};
use alpha3_sim::{World, WorldOptions};

fn example() -> Option<alpha3_core::scenario::Scenario> {
    let path = common::example_path()?;
    Some(read_scenario(&path).unwrap())
}

#[test]
fn the_example_loads_and_reports_waypoints_zones_and_faults() {
    let Some(s) = example() else { return };
    let summary = ScenarioSummary::of(&s);
    println!("{summary}");
    for z in zone_lines(&s) {
        println!("  {z}");
    }
    assert_eq!(summary.name, "battery_emergency_forced_landing_harbor_fog");
    assert_eq!(summary.mission, "inspection");
    assert_eq!(summary.waypoints.len(), 5);
    assert_eq!(summary.waypoints[0], [150.0, 150.0, 40.0]);
    assert_eq!(summary.waypoints[4], [700.0, 500.0, 30.0]);
    assert_eq!(summary.altitude_band_m, (10.0, 150.0));
    assert_eq!(
        (
            summary.geofences,
            summary.static_zones,
            summary.moving_zones
        ),
        (1, 1, 1)
    );
    assert_eq!(
        summary.faults,
        vec![(420.0, "motor_failure".to_string(), 0.0)]
    );
    assert_eq!(summary.loss_windows, vec![[410.0, 430.0]]);
    assert_eq!(summary.traffic, 1);
    let text = summary.to_string();
    assert!(text.contains("waypoint 4: (700, 500, 30)") && text.contains("motor_failure at 420 s"));
    let zones = zone_lines(&s);
    assert!(
        zones.iter().any(|z| z.contains("moving (1.5, 0.8) m/s")),
        "{zones:?}"
    );
}

#[test]
fn the_example_runs_through_its_loss_window_and_motor_failure() {
    let Some(s) = example() else { return };
    let mut w = World::new(s, WorldOptions::seeded(7));
    assert!(w.snapshot().is_airborne(), "spawned in the air at 30 m");
    // Fly the corridor, then hold at the last waypoint.
    for p in w.scenario().mission.waypoints.clone() {
        w.execute_unchecked(&Command::GoTo {
            target: Enu::new(p[0], p[1], p[2]),
            speed_mps: Some(8.0),
        });
        w.advance_until_settled(120_000);
    }
    let report = w.mission_report();
    assert_eq!(report.waypoints_reached, 5, "{report:?}");
    w.advance_to_ms(415_000);
    assert_eq!(w.network().radio_state(415.0), RadioState::Lost);
    assert_eq!(w.link_sample().loss_pct, 100.0);
    let climb_before = w.flight_limits().max_climb_mps;
    w.advance_to_ms(421_000);
    assert!(
        w.fault_log()
            .iter()
            .any(|(t, k, started)| *t == 420_000 && k == "motor_failure" && *started)
    );
    assert!((w.flight_limits().max_climb_mps - climb_before * (1.0 - 0.8 * 0.8)).abs() < 1e-9);
    w.advance_to_ms(431_000);
    assert_ne!(w.network().radio_state(431.0), RadioState::Lost);
    // The forced landing at the designated site (700, 500) ends the episode safely.
    w.execute_unchecked(&Command::Land {
        site: Some([700.0, 500.0]),
    });
    assert!(w.advance_until_settled(300_000));
    let r = w.mission_report();
    println!("{r:#?}");
    assert!(!w.truth().airborne);
    assert_eq!(
        r.final_state,
        alpha3_sim::evaluator::FinalState::LandedAuthorised
    );
}
