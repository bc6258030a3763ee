//! Fixtures for the gate's unit tests: round numbers so expected values can be worked out by
//! hand.

use super::{GateContext, GateState, Verdict, evaluate};
use crate::command::Command;
use crate::config::{Limits, VehicleProfile};
use crate::frames::{Enu, Geo};
use crate::gate::{Finding, Severity};
use crate::snapshot::{LandedState, VehicleSnapshot};

pub const NOW: u64 = 100_000;

/// Band 10–120 m, return at 50 m, reserve 20 % (hard 10 %), separation 20 m, uncertainty 2 m,
/// 5 commands/s, clamping on.
pub fn limits() -> Limits {
    Limits {
        min_altitude_m: 10.0,
        max_altitude_m: 120.0,
        return_altitude_m: 50.0,
        reserve_battery_pct: 20.0,
        hard_reserve_battery_pct: 10.0,
        min_separation_m: 20.0,
        position_uncertainty_m: 2.0,
        max_commands_per_s: 5.0,
        clamp_altitude: true,
    }
}

/// 15 m/s max, 10 m/s cruise, 2.5 m/s² (so v²/2a = 20 m at cruise), 100 Wh, 200 W hover.
pub fn vehicle() -> VehicleProfile {
    VehicleProfile {
        name: "test-quad".into(),
        frame: "quadrotor".into(),
        mass_kg: 1.5,
        max_speed_mps: 15.0,
        cruise_speed_mps: 10.0,
        max_climb_mps: 3.0,
        max_descent_mps: 2.0,
        max_accel_mps2: 2.5,
        max_yaw_rate_dps: 90.0,
        battery_capacity_wh: 100.0,
        hover_power_w: 200.0,
        drag_power_w_per_mps3: 0.0,
        manoeuvre_power_w_per_mps2: 0.0,
    }
}

/// No fence, no zones, no traffic, calm.
pub fn open_field() -> GateContext {
    GateContext::new(limits(), vehicle()).unwrap()
}

/// Armed, in the air, at rest, full battery, fresh telemetry.
pub fn hovering(x: f64, y: f64, z: f64) -> VehicleSnapshot {
    let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), NOW);
    s.armed = true;
    s.landed = LandedState::InAir;
    s.position = Enu::new(x, y, z);
    s.gnss.eph_m = 0.5;
    s
}

/// Armed, on the ground.
pub fn on_ground(x: f64, y: f64) -> VehicleSnapshot {
    let mut s = hovering(x, y, 0.0);
    s.landed = LandedState::OnGround;
    s
}

pub fn go(x: f64, y: f64, z: f64) -> Command {
    Command::GoTo {
        target: Enu::new(x, y, z),
        speed_mps: None,
    }
}

pub fn verdict(ctx: &GateContext, snap: &VehicleSnapshot, cmd: Command) -> Verdict {
    evaluate(ctx, snap, &cmd, NOW, &mut GateState::default())
}

/// The ids of the denying findings (empty when the command passes).
pub fn deny_ids(ctx: &GateContext, snap: &VehicleSnapshot, cmd: Command) -> Vec<&'static str> {
    verdict(ctx, snap, cmd)
        .findings()
        .iter()
        .filter(|f| f.severity == Severity::Deny)
        .map(|f| f.id)
        .collect()
}

/// The one finding of a verdict.
pub fn only_finding(ctx: &GateContext, snap: &VehicleSnapshot, cmd: Command) -> Finding {
    let v = verdict(ctx, snap, cmd);
    assert_eq!(v.findings().len(), 1, "{v:?}");
    v.findings()[0]
}
