//! Taking off from the ground in real scenarios (wind, turbulence, sensor noise): the vehicle
//! must climb away, not count a downdraft on its first steps as a touch-down (which disarmed
//! it, so a vehicle that had returned home could never take off again).
#![allow(clippy::unwrap_used)]

use alpha3_core::command::Command;
use alpha3_sim::scenario::parse_scenario;
use alpha3_sim::{World, WorldOptions};

fn scenario(i: usize) -> alpha3_core::scenario::Scenario {
    let path = format!(
        "{}/../configs/scenarios/sc-{i:04}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_scenario(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_landed_vehicle_takes_off_again_in_wind() {
    for i in [9, 22, 7] {
        let mut s = scenario(i);
        s.spawn.xyz[2] = 0.0;
        let mut w = World::new(s, WorldOptions::seeded(1));
        assert!(!w.snapshot().armed);
        assert!(w.execute_unchecked(&Command::Arm).accepted);
        assert!(
            w.execute_unchecked(&Command::Takeoff { altitude_m: 30.0 })
                .accepted
        );
        w.advance_to_ms(2_000);
        let t = w.truth();
        assert!(
            t.airborne && t.armed && t.position[2] > 1.0,
            "sc-{i}: {t:?}"
        );
        assert!(w.advance_until_settled(60_000), "sc-{i}");
        assert!((w.truth().position[2] - 30.0).abs() < 2.0);
    }
}

#[test]
fn a_vehicle_takes_off_again_after_returning_home() {
    for i in [9, 22] {
        let mut w = World::new(scenario(i), WorldOptions::seeded(1));
        assert!(w.execute_unchecked(&Command::ReturnToHome).accepted);
        assert!(w.advance_until_settled(200_000), "sc-{i}: landed");
        assert!(!w.truth().airborne);
        assert!(w.execute_unchecked(&Command::Arm).accepted);
        assert!(
            w.execute_unchecked(&Command::Takeoff { altitude_m: 30.0 })
                .accepted
        );
        w.advance_to_ms(w.now_ms() + 2_000);
        let t = w.truth();
        assert!(
            t.airborne && t.armed && t.position[2] > 1.0,
            "sc-{i}: {t:?}"
        );
        assert!(w.violations().is_empty(), "sc-{i}: {:?}", w.violations());
    }
}
