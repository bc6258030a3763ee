//! The vehicle profile the gate plans with: the shipped quadrotor, and a scenario's airframe
//! laid over a base profile.

use alpha3_core::config::VehicleProfile;
use alpha3_core::scenario::Scenario;

/// The quadrotor of `configs/alpha3.toml` (its `[vehicle]`), for code that plans without a
/// config at hand; a scenario's airframe overrides what it says ([`profile_for_scenario`]).
pub fn shipped_vehicle() -> VehicleProfile {
    VehicleProfile {
        name: "quad-x500".into(),
        frame: "quadrotor".into(),
        mass_kg: 2.0,
        max_speed_mps: 12.0,
        cruise_speed_mps: 8.0,
        max_climb_mps: 3.0,
        max_descent_mps: 1.5,
        max_accel_mps2: 4.0,
        max_yaw_rate_dps: 60.0,
        battery_capacity_wh: 74.0,
        hover_power_w: 220.0,
        drag_power_w_per_mps3: 0.05,
        manoeuvre_power_w_per_mps2: 15.0,
    }
}

/// The vehicle profile the gate should use for a scenario's airframe: the scenario's mass,
/// speed, climb rate, battery and power model over `base` for what the scenario leaves out.
pub fn profile_for_scenario(scenario: &Scenario, base: &VehicleProfile) -> VehicleProfile {
    let u = &scenario.uav;
    let mut p = base.clone();
    p.name = format!("{}-{}", scenario.name, u.kind);
    p.frame = u.kind.clone();
    p.mass_kg = u.mass_kg;
    p.max_speed_mps = u.max_speed_mps;
    p.cruise_speed_mps = (u.max_speed_mps * 0.6).min(base.cruise_speed_mps.max(1.0) * 2.0);
    p.battery_capacity_wh = u.battery_wh;
    if let Some(b) = &u.battery_model {
        p.hover_power_w = b.hover_power_w;
        p.drag_power_w_per_mps3 = b.k_drag;
        p.manoeuvre_power_w_per_mps2 = b.k_manoeuvre;
    }
    if let Some(climb) = u.rotorcraft.as_ref().and_then(|r| r.max_climb_mps) {
        p.max_climb_mps = climb;
        p.max_descent_mps = (climb / 2.0).max(1.0);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::config::Config;

    #[test]
    fn the_shipped_vehicle_is_the_configs_vehicle() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/alpha3.toml");
        let config = Config::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(config.vehicle, Some(shipped_vehicle()));
    }
}
