//! The swarm scenarios checked in under `configs/swarm/` (issue 33), generated like the
//! single-vehicle suite: every swarm file and every vehicle's scenario comes from the layouts
//! here, the checked-in files are compared with them by the test suite, and each validates as
//! `alpha3 validate` validates it.
//!
//! All vehicles fly at 40 m in one common frame (x east, y north, metres from the swarm's
//! origin), inside one geofence, in clear weather with no other traffic: the conflicts are
//! between the swarm's own vehicles.
//!
//! - `cross-3`: three straight legs through one point, (100, 100), runtimes started 0, 5 and
//!   10 s apart; `cross-3-at-once`: the same, all at once (a three-way conflict at once).
//! - `corridor-3`: one shared corridor, x = 100 from y = 40 to y = 260, entered from three
//!   sides and left to three ends 60 m apart: the vehicles merge into it and fly it in trail.
//! - `landing-3`: the same landing site, a depot of three pads 45 m apart at y = 220; each
//!   vehicle flies to the pad across from its home (the paths in cross) and lands on it, its
//!   mission's last waypoint on the ground.

use super::generate::scenario_to_json;
use super::load::parse_scenario;
use crate::error::SimError;
use serde_json::{Value, json};
use std::path::Path;

/// The altitude every leg is flown at, m.
const ALT_M: f64 = 40.0;
/// The separation every vehicle's scenario asks for, m (the shipped config's too).
const SEPARATION_M: f64 = 25.0;
/// The swarms' common origin: PX4 SITL's default home.
const ORIGIN: (f64, f64, f64) = (47.397742, 8.545594, 488.0);

/// How to regenerate the checked-in files (printed when they drift).
pub const SWARM_REGENERATE_COMMAND: &str =
    "ALPHA3_REGENERATE_SCENARIOS=1 cargo test -p alpha3-sim --test swarm_suite";

/// One vehicle of a layout.
struct Leg {
    spawn: [f64; 2],
    waypoints: Vec<[f64; 2]>,
    /// The pad it lands on at the end, if it does: a waypoint above it at the legs' altitude,
    /// then one on the ground on it.
    pad: Option<[f64; 2]>,
}

/// One swarm: its vehicles' legs and what the file says of them.
struct Layout {
    /// The scenario folder and the swarm file's name.
    name: &'static str,
    /// Where its scenarios are (another layout's, for a variant of the same flight).
    scenarios: &'static str,
    about: &'static str,
    /// Swarm time before each runtime starts, s.
    delays_s: Vec<f64>,
    legs: Vec<Leg>,
}

fn layouts() -> Vec<Layout> {
    let cross = || {
        vec![
            Leg {
                spawn: [0.0, 0.0],
                waypoints: vec![[200.0, 200.0]],
                pad: None,
            },
            Leg {
                spawn: [200.0, 0.0],
                waypoints: vec![[0.0, 200.0]],
                pad: None,
            },
            Leg {
                spawn: [100.0, -40.0],
                waypoints: vec![[100.0, 240.0]],
                pad: None,
            },
        ]
    };
    vec![
        Layout {
            name: "cross-3",
            scenarios: "cross-3",
            about: "Three vehicles on crossing paths (issue 33): each flies from its home straight through the\n\
                    # point (100, 100) of the common frame to the far side, all at 40 m, their runtimes started 5 s\n\
                    # of swarm time apart. Without the swarm's A2A each pair would pass that point closer than the\n\
                    # separation; with it, the lower system id has the right of way and the others give way.\n\
                    # `cross-3-at-once.toml` starts all three together (a three-way conflict at once).",
            delays_s: vec![0.0, 5.0, 10.0],
            legs: cross(),
        },
        Layout {
            name: "cross-3-at-once",
            scenarios: "cross-3",
            about: "`cross-3.toml` with every runtime started at once: the three-way conflict over (100, 100)\n\
                    # begins with all three climbing together.",
            delays_s: vec![0.0, 0.0, 0.0],
            legs: cross(),
        },
        Layout {
            name: "corridor-3",
            scenarios: "corridor-3",
            about: "One shared corridor (issue 33): three vehicles from three homes enter the corridor x = 100\n\
                    # at y = 40, fly it north to y = 260 and leave it to three ends 60 m apart, all at 40 m,\n\
                    # their runtimes started 5 s of swarm time apart: they merge into it in turn and fly it\n\
                    # in trail, each keeping the separation from the one ahead.",
            delays_s: vec![0.0, 5.0, 10.0],
            legs: [[0.0, 0.0], [200.0, 0.0], [100.0, -60.0]]
                .into_iter()
                .zip([40.0, 100.0, 160.0])
                .map(|(spawn, end_x)| Leg {
                    spawn,
                    waypoints: vec![[100.0, 40.0], [100.0, 260.0], [end_x, 320.0]],
                    pad: None,
                })
                .collect(),
        },
        Layout {
            name: "landing-3",
            scenarios: "landing-3",
            about: "The same landing site (issue 33): one depot at y = 220 with three pads 45 m apart, each\n\
                    # vehicle landing on the pad across from its home (its path to it crosses the others' on\n\
                    # the way in), all at 40 m until over the pad, runtimes started 5 s of swarm time apart.\n\
                    # The pads are the separation plus the gates' margins apart: a vehicle descends onto its\n\
                    # pad beside mates that have landed or are landing on theirs.",
            delays_s: vec![0.0, 5.0, 10.0],
            legs: [[0.0, 0.0], [200.0, 0.0], [100.0, -40.0]]
                .into_iter()
                .zip([PADS[2], PADS[0], PADS[1]])
                .map(|(spawn, pad)| Leg {
                    spawn,
                    waypoints: Vec::new(),
                    pad: Some(pad),
                })
                .collect(),
        },
    ]
}

/// The depot's pads in `landing-3`, west to east, m: 45 m apart, beyond the 25 m separation
/// plus the gate's margins for a descent beside a mate on the next pad.
const PADS: [[f64; 2]; 3] = [[55.0, 220.0], [100.0, 220.0], [145.0, 220.0]];

/// One vehicle's scenario.
fn scenario(layout: &Layout, k: usize) -> Value {
    let leg = &layout.legs[k];
    let n = layout.legs.len();
    let mut waypoints: Vec<[f64; 3]> = leg.waypoints.iter().map(|w| [w[0], w[1], ALT_M]).collect();
    if let Some(pad) = leg.pad {
        waypoints.push([pad[0], pad[1], ALT_M]);
        waypoints.push([pad[0], pad[1], 0.0]);
    }
    let length_m: f64 = std::iter::once(leg.spawn)
        .chain(waypoints.iter().map(|w| [w[0], w[1]]))
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .sum();
    let route = match leg.pad {
        Some(pad) => format!(
            "to the depot's pad at ({:.0}, {:.0}) at {ALT_M:.0} m AGL ({length_m:.0} m), then lands \
             on it (the mission's last waypoint is on the ground), the depot's other pads \
             taken by its mates",
            pad[0], pad[1]
        ),
        None => format!(
            "through {} waypoint{} at {ALT_M:.0} m AGL ({length_m:.0} m)",
            waypoints.len(),
            if waypoints.len() == 1 { "" } else { "s" },
        ),
    };
    let text = format!(
        "Quadcopter {} of {n} in the swarm {}: from its home at ({:.0}, {:.0}) {route}, keeping \
         {SEPARATION_M:.0} m from its mates.\nAltitude is limited to 10 to 120 m AGL inside a \
         geofence; time budget 240 s.\nWeather: clear, wind 1.0 m/s from 90°.\nNo no-fly zones; \
         no traffic but the swarm's own.",
        k + 1,
        layout.scenarios,
        leg.spawn[0],
        leg.spawn[1],
    );
    // Home, and every pad of the depot: the sites a gate lets a landing end at.
    let sites: Vec<[f64; 3]> = std::iter::once(leg.spawn)
        .chain(layout.legs.iter().filter_map(|l| l.pad))
        .map(|p| [p[0], p[1], 0.0])
        .collect();
    json!({
        "name": format!("swarm-{}-uav-{}", layout.scenarios, k + 1),
        "sim": {"dt": 0.02, "duration_steps": 15000, "policy_frequency": 20.0},
        "uav": {
            "type": "quadcopter",
            "mass_kg": 2.0,
            "battery_Wh": 100.0,
            "max_speed_mps": 13.0,
            "reserve_fraction": 0.24,
            "battery_model": {"hover_power_W": 90.7, "k_drag": 0.05, "k_manoeuvre": 37.0},
            "rotorcraft": {"rotor_count": 4, "max_climb_mps": 4.2, "hover_ceiling_m": 1200.0, "disk_area_m2": 0.39},
            "payloads": []
        },
        "environment": {
            "airspace": "industrial",
            "weather": {"wind_mps": 1.0, "wind_dir_deg": 90.0, "gust_mps": 0.0, "visibility": "high", "phenomena": []},
            "wind_profile": [
                {"alt_m": 0.0, "wind_mps": 1.0, "dir_deg": 90.0},
                {"alt_m": 120.0, "wind_mps": 1.5, "dir_deg": 90.0}
            ],
            "gnss_multipath": false,
            "gnss_jam_dbm": -140.0,
            "em_interference": false
        },
        "airspace": {
            "altitude_agl_min_m": 10.0,
            "altitude_agl_max_m": 120.0,
            "geofence": [{"type": "polygon", "points": [[-150.0, -150.0], [350.0, -150.0], [350.0, 400.0], [-150.0, 400.0]]}],
            "no_fly_zones": [],
            "no_fly_zones_dynamic": []
        },
        "spawn": {"xyz": [leg.spawn[0], leg.spawn[1], ALT_M], "yaw_deg": 0.0},
        "mission": {
            "type": "delivery",
            "waypoints": waypoints,
            "pattern": "point_to_point",
            "time_budget_s": 240.0,
            "runway_required": false
        },
        "landing": {"emergency_sites": sites},
        "traffic": [],
        "faults": [],
        "comms": {"loss_windows": [], "uplink_ok": true, "downlink_ok": true, "rssi_dbm_min": -70.0},
        "daa": {"sep_threshold_m": SEPARATION_M, "ttc_threshold_s": 8.0},
        "moving_obstacles": [],
        "swarm": {"enabled": true, "size": n, "roles": vec!["member"; n], "inter_uav_sep_min_m": SEPARATION_M},
        "description": {"text": text},
        "label": {"risk_level": 2, "risk_category": "Moderate Risk", "factors": ["Swarm", "GeofencedArea"]},
        "benchmark_tags": ["Delivery", "Industrial", "Swarm", "AltitudeBounded", "GeofencedArea", "ModerateRisk"]
    })
}

/// The swarm file of `layout`.
fn swarm_toml(layout: &Layout) -> String {
    let (lat, lon, alt) = ORIGIN;
    let mut out = format!(
        "# Generated by alpha3-sim's swarm suite (sim-bridge/src/scenario/swarm_suite.rs); regenerate with\n\
         # {SWARM_REGENERATE_COMMAND}\n#\n# {}\n\
         name = \"{}\"\norigin_lat_deg = {lat}     # PX4 SITL's default home\norigin_lon_deg = {lon}\n\
         origin_alt_amsl_m = {alt:.1}\n\
         # A vehicle waiting for a mate's right of way asks again every decision period (5 s), two turns\n\
         # and an action or more a time: the benchmark's 12 turns and 24 actions would end its episode\n\
         # after half a minute of waiting.\n\
         max_turns = 40\n\
         max_tool_actions = 120\n",
        layout.about, layout.name
    );
    for (k, delay) in layout.delays_s.iter().enumerate() {
        out.push_str(&format!(
            "\n[[vehicle]]\nname = \"uav-{}\"\nscenario = \"{}/uav-{}.json\"\n",
            k + 1,
            layout.scenarios,
            k + 1
        ));
        if *delay > 0.0 {
            out.push_str(&format!("start_delay_s = {delay:.1}\n"));
        }
    }
    out
}

/// Every swarm file and scenario, as (path under `configs/swarm/`, text).
pub fn swarm_suite_files() -> Result<Vec<(String, String)>, SimError> {
    let mut out = Vec::new();
    for layout in layouts() {
        out.push((format!("{}.toml", layout.name), swarm_toml(&layout)));
        if layout.scenarios != layout.name {
            continue;
        }
        for k in 0..layout.legs.len() {
            let raw = scenario(&layout, k).to_string();
            // Through the loader: the file is what a scenario serialises to, checked as one.
            let text = scenario_to_json(&parse_scenario(&raw)?)?;
            out.push((format!("{}/uav-{}.json", layout.name, k + 1), text));
        }
    }
    Ok(out)
}

/// Writes the swarm suite into `dir` (`configs/swarm/`).
pub fn write_swarm_suite(dir: &Path) -> Result<(), SimError> {
    for (name, text) in swarm_suite_files()? {
        let path = dir.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| SimError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| SimError::Io { path, source })?;
    }
    Ok(())
}
