//! Time to breach along the flown path: at every truth sample, the gate's own prediction
//! ([`alpha3_core::gate::time_to_breach`]) for a vehicle coasting at the recorded velocity,
//! against the scenario's airspace and traffic and the record's limits and vehicle. Peers'
//! plans shared during the flight are not in the record, so they are not in this prediction.

use super::timeline::Timeline;
use crate::episode_setup::profile_for_scenario;
use alpha3_core::config::{Limits, VehicleProfile};
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::gate::{GateContext, time_to_breach};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};
use serde_json::Value;

/// Fills `breach_s` and `breach_id` of `timeline`, one per truth sample, from the header's
/// `[limits]` and `[vehicle]`; leaves them empty and says why when those are missing.
pub fn fill(
    timeline: &mut Timeline,
    scenario: &Scenario,
    header_config: &Value,
) -> Result<(), String> {
    let section = |name: &str| {
        header_config
            .get(name)
            .cloned()
            .ok_or_else(|| format!("the header's configuration has no [{name}]"))
    };
    let limits: Limits = serde_json::from_value(section("limits")?)
        .map_err(|e| format!("the header's [limits]: {e}"))?;
    let vehicle: VehicleProfile = serde_json::from_value(section("vehicle")?)
        .map_err(|e| format!("the header's [vehicle]: {e}"))?;
    let profile = profile_for_scenario(scenario, &vehicle);
    let ctx = GateContext::from_scenario(scenario, &limits, &profile, 0)
        .map_err(|e| format!("gate context: {e}"))?;
    let tr = &timeline.truth;
    let mut secs = Vec::with_capacity(tr.t_s.len());
    let mut ids = Vec::with_capacity(tr.t_s.len());
    for i in 0..tr.t_s.len() {
        let now_ms = (tr.t_s[i] * 1000.0).round() as u64;
        let mut snap = VehicleSnapshot::on_ground_at_home(Geo::default(), now_ms);
        snap.armed = tr.armed[i];
        snap.landed = if tr.airborne[i] {
            LandedState::InAir
        } else {
            LandedState::OnGround
        };
        snap.position = Enu::new(tr.x[i], tr.y[i], tr.z[i]);
        snap.velocity = Enu::new(tr.vx[i], tr.vy[i], tr.vz[i]);
        snap.battery.remaining_pct = tr.battery_pct[i];
        let breach = time_to_breach(&ctx, &snap, now_ms);
        secs.push(breach.map(|b| (b.in_ms as f64 / 10.0).round() / 100.0));
        ids.push(breach.map(|b| b.id.to_string()));
    }
    timeline.breach_s = secs;
    timeline.breach_id = ids;
    Ok(())
}
