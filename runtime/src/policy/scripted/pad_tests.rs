//! The landing on the mission's pad, turn by turn: flown from the waypoint over it.

use super::ScriptedPolicy;
use crate::episode_setup::EpisodeSettings;
use crate::policy::{DecisionContext, EpisodeBrief};
use alpha3_core::config::Config;
use alpha3_core::frames::Geo;
use alpha3_core::link::{LinkSample, Slice};
use alpha3_core::protocol::{AgentTurn, Situation, ToolObservation};
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};
use serde_json::json;

/// On the ground at home, or in the air at `at`; `after`: every action of that turn accepted.
fn situation(at: Option<[f64; 3]>, after: Option<&AgentTurn>) -> Situation {
    let mut snapshot = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
    if let Some([x, y, z]) = at {
        snapshot.armed = true;
        snapshot.landed = LandedState::InAir;
        snapshot.position = alpha3_core::frames::Enu::new(x, y, z);
        snapshot.battery.remaining_pct = 90.0;
    }
    let observations = after.map_or_else(Vec::new, |t| {
        t.actions
            .iter()
            .map(|a| ToolObservation {
                name: a.name().to_string(),
                result: json!({"status": "accepted"}),
            })
            .collect()
    });
    Situation {
        snapshot,
        link: LinkSample {
            slice: Slice::Urllc,
            lat_ms: 7.0,
            jitter_ms: 1.0,
            loss_pct: 0.1,
            throughput_mbps: 50.0,
            edge_load: 0.3,
        },
        observations,
        operator: None,
    }
}

/// `(x, y, z)` of every `set_waypoint` and `(x, y)` of every `land` in `turn`.
fn moves(turn: &AgentTurn) -> (Vec<[f64; 3]>, Vec<[f64; 2]>) {
    let (mut legs, mut lands) = (Vec::new(), Vec::new());
    for a in &turn.actions {
        let v = serde_json::to_value(a).unwrap();
        let f = |p: &serde_json::Value, k: &str| p[k].as_f64().unwrap();
        match a.name() {
            "set_waypoint" => {
                let w = &v["args"]["waypoint"];
                legs.push([f(w, "x"), f(w, "y"), f(w, "z")]);
            }
            "land" => {
                let s = &v["args"]["site"];
                lands.push([f(s, "x"), f(s, "y")]);
            }
            _ => {}
        }
    }
    (legs, lands)
}

/// uav-1 of the same-landing-site swarm: its waypoint over the pad at 40 m, then the pad. Its
/// first turn flies to that waypoint and does not land yet. The watchdog took it down to 15 m
/// to let a mate pass on its way there (a PX4 run: it then landed from 15 m, the 40 m waypoint
/// never reached, the mission incomplete): the agent flies back up to that waypoint first, and
/// lands from it the turn after; a landing stopped half-way then goes on from there.
#[test]
fn a_vehicle_moved_off_the_waypoint_over_its_pad_flies_back_to_it_before_landing() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let scenario = alpha3_sim::scenario::read_scenario(std::path::Path::new(&format!(
        "{root}/configs/swarm/landing-3/uav-1.json"
    )))
    .unwrap();
    let config =
        Config::from_toml(&std::fs::read_to_string(format!("{root}/configs/alpha3.toml")).unwrap())
            .unwrap();
    let settings = EpisodeSettings::from_config(&config, None);
    let vehicle =
        crate::episode_setup::profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let brief = EpisodeBrief {
        scenario: &scenario,
        settings: &settings,
        vehicle: &vehicle,
        seed: 0,
    };
    let mut agent = ScriptedPolicy::new("scripted", &brief);
    let over = [145.0, 220.0, 40.0];
    let mut ctx = DecisionContext::first("deliver", situation(None, None));
    let first = agent.turn(&ctx);
    let (legs, lands) = moves(&first);
    assert_eq!(legs.last(), Some(&over), "{first:?}");
    // The landing waits for the vehicle to be over its pad.
    assert!(lands.is_empty(), "{first:?}");
    // Set down and aside by the watchdog, 40 m short of the pad.
    ctx.advance(
        first.clone(),
        situation(Some([120.0, 190.0, 15.0]), Some(&first)),
    );
    let back = agent.turn(&ctx);
    let (legs, lands) = moves(&back);
    assert_eq!(legs.last(), Some(&over), "{back:?}");
    assert!(
        lands.is_empty(),
        "lands before it is back over its pad: {back:?}"
    );
    ctx.advance(
        back.clone(),
        situation(Some([145.5, 219.0, 39.2]), Some(&back)),
    );
    let down = agent.turn(&ctx);
    assert_eq!(moves(&down), (vec![], vec![[145.0, 220.0]]), "{down:?}");
    // The watchdog stops the descent at 25 m (a mate's right of way): the landing goes on
    // from there, not from the waypoint above, which the vehicle has flown.
    ctx.advance(
        down.clone(),
        situation(Some([145.3, 220.4, 25.0]), Some(&down)),
    );
    let on = agent.turn(&ctx);
    assert_eq!(moves(&on), (vec![], vec![[145.0, 220.0]]), "{on:?}");
}
