//! The aircraft: frame class, limits, the energy model from momentum theory, sensors and
//! payloads fitting the mission, and a battery sized for the route.

use super::{MissionType, round_to};
use crate::rng::SimRng;
use alpha3_core::scenario::{Airframe, BatteryModel, Rotorcraft};
use serde_json::{Map, Value, json};

const AIR_DENSITY: f64 = 1.225;
const G: f64 = 9.80665;

/// A frame class and the ranges its numbers are drawn from.
#[derive(Debug, Clone, Copy)]
struct FrameClass {
    kind: &'static str,
    mass_kg: (f64, f64),
    rotors: u32,
    disk_area_m2: (f64, f64),
    max_speed_mps: (f64, f64),
    tilt_deg: f64,
}

const FRAMES: [FrameClass; 3] = [
    FrameClass {
        kind: "quadcopter",
        mass_kg: (1.5, 3.0),
        rotors: 4,
        disk_area_m2: (0.3, 0.6),
        max_speed_mps: (12.0, 16.0),
        tilt_deg: 35.0,
    },
    FrameClass {
        kind: "hexacopter",
        mass_kg: (4.0, 6.0),
        rotors: 6,
        disk_area_m2: (1.2, 2.0),
        max_speed_mps: (14.0, 18.0),
        tilt_deg: 30.0,
    },
    FrameClass {
        kind: "octocopter",
        mass_kg: (7.0, 10.0),
        rotors: 8,
        disk_area_m2: (2.0, 3.0),
        max_speed_mps: (12.0, 16.0),
        tilt_deg: 25.0,
    },
];

/// An imaging payload.
#[derive(Debug, Clone, Copy)]
struct PayloadKind {
    kind: &'static str,
    category: &'static str,
    mass_kg: f64,
    power_w: f64,
    bitrate_mbps: f64,
    stream: &'static str,
    fov_deg: f64,
    resolution: &'static str,
}

const PAYLOADS: [PayloadKind; 5] = [
    PayloadKind {
        kind: "rgb_camera_zoom",
        category: "imaging_optical",
        mass_kg: 0.35,
        power_w: 8.0,
        bitrate_mbps: 6.0,
        stream: "video",
        fov_deg: 62.0,
        resolution: "1920x1080@30",
    },
    PayloadKind {
        kind: "thermal_camera_lwir",
        category: "imaging_thermal",
        mass_kg: 0.45,
        power_w: 18.0,
        bitrate_mbps: 4.2,
        stream: "video",
        fov_deg: 55.0,
        resolution: "640x512@30",
    },
    PayloadKind {
        kind: "lidar",
        category: "imaging_advanced",
        mass_kg: 0.7,
        power_w: 45.0,
        bitrate_mbps: 8.0,
        stream: "pointcloud",
        fov_deg: 360.0,
        resolution: "10cm",
    },
    PayloadKind {
        kind: "multispectral_camera",
        category: "imaging_advanced",
        mass_kg: 0.3,
        power_w: 12.0,
        bitrate_mbps: 2.0,
        stream: "images",
        fov_deg: 48.0,
        resolution: "1280x960",
    },
    PayloadKind {
        kind: "photogrammetry_camera",
        category: "imaging_optical",
        mass_kg: 0.6,
        power_w: 10.0,
        bitrate_mbps: 3.0,
        stream: "images",
        fov_deg: 78.0,
        resolution: "6000x4000",
    },
];

fn payload(index: usize, band: (f64, f64)) -> Value {
    let PayloadKind {
        kind,
        category,
        mass_kg: mass,
        power_w: power,
        bitrate_mbps: bitrate,
        stream,
        fov_deg: fov,
        resolution,
    } = PAYLOADS[index];
    json!({
        "id": kind,
        "type": kind,
        "category": category,
        "mass_kg": mass,
        "power_W": power,
        "drag_cdA": round_to(mass * 0.015, 3),
        "mount": if kind == "lidar" { "belly" } else { "gimbal" },
        "data": { "stream": stream, "bitrate_mbps": bitrate, "storage_GB": 64 },
        "operating": { "fov_deg": fov, "resolution": resolution },
        "constraints": {
            "min_alt_m": band.0,
            "max_alt_m": band.1,
            "day_night": if category == "imaging_thermal" { "both" } else { "day" },
            "weather_ok": ["clear", "fog", "light_rain"]
        }
    })
}

/// Payload indices per mission: the first is required, the second optional.
fn payloads_for(mission: MissionType) -> (&'static [usize], &'static [usize]) {
    match mission {
        MissionType::Inspection => (&[0, 1], &[2]),
        MissionType::Delivery => (&[0], &[]),
        MissionType::SearchAndRescue => (&[1, 0], &[]),
        MissionType::Mapping => (&[4, 2], &[3]),
        MissionType::Surveillance => (&[0, 1], &[]),
    }
}

pub(super) fn draw_airframe(rng: &mut SimRng, mission: MissionType, band: (f64, f64)) -> Airframe {
    let frame = rng.pick(&FRAMES).copied().unwrap_or(FRAMES[0]);
    let (kind, rotors, tilt) = (frame.kind, frame.rotors, frame.tilt_deg);
    let mass_kg = round_to(rng.range(frame.mass_kg.0, frame.mass_kg.1), 1);
    let disk_area_m2 = round_to(rng.range(frame.disk_area_m2.0, frame.disk_area_m2.1), 2);
    // Ideal hover power from momentum theory, with a figure of merit of 0.98 (as UAVBench's
    // autofix gives 176.8 W for 5.2 kg on 1.8 m²).
    let thrust = mass_kg * G;
    let hover_power_w = round_to(
        libm::pow(thrust, 1.5) / (2.0 * AIR_DENSITY * disk_area_m2).sqrt() / 0.98,
        1,
    );
    let (required, optional) = payloads_for(mission);
    let first = required[rng.below(required.len() as u64) as usize];
    let mut chosen = vec![first];
    if required.len() > 1 && rng.chance(0.7) {
        chosen.extend(required.iter().copied().filter(|&i| i != first).take(1));
    }
    if let Some(&o) = optional.first()
        && rng.chance(0.4)
    {
        chosen.push(o);
    }
    let payloads: Vec<Value> = chosen.iter().map(|&i| payload(i, band)).collect();
    let has = |k: &str| chosen.iter().any(|&i| PAYLOADS[i].kind == k);
    let mut extra = Map::new();
    extra.insert("fuel_L".into(), json!(0));
    extra.insert("energy_source".into(), json!("battery"));
    extra.insert("max_tilt_deg".into(), json!(tilt));
    extra.insert(
        "aero".into(),
        json!({
            "wing_area_m2": 0.0, "aspect_ratio": 0.0, "cl_max": 0.0,
            "cd0": round_to(rng.range(0.03, 0.06), 3),
            "prop_efficiency": round_to(rng.range(0.75, 0.85), 2),
            "stall_speed_mps": 0.0
        }),
    );
    extra.insert(
        "sensors".into(),
        json!({
            "gnss": true, "imu": true, "magnetometer": true, "barometer": true,
            "lidar": has("lidar"), "radar": rng.chance(0.3),
            "camera_rgb": has("rgb_camera_zoom") || has("photogrammetry_camera"),
            "camera_thermal": has("thermal_camera_lwir")
        }),
    );
    Airframe {
        kind: kind.to_string(),
        mass_kg,
        battery_wh: 0.0,
        max_speed_mps: round_to(rng.range(frame.max_speed_mps.0, frame.max_speed_mps.1), 0),
        reserve_fraction: Some(round_to(rng.range(0.2, 0.3), 2)),
        battery_model: Some(BatteryModel {
            hover_power_w,
            k_drag: round_to(rng.range(0.05, 0.2), 2),
            k_manoeuvre: round_to(rng.range(15.0, 40.0), 0),
            extra: Map::new(),
        }),
        rotorcraft: Some(Rotorcraft {
            rotor_count: Some(rotors),
            max_climb_mps: Some(round_to(rng.range(3.0, 6.0), 1)),
            hover_ceiling_m: Some(1200.0),
            extra: [("disk_area_m2".to_string(), json!(disk_area_m2))]
                .into_iter()
                .collect(),
        }),
        payloads,
        extra,
    }
}

/// Sizes the battery so the route flown at `airspeed_mps` (cruise into the strongest wind)
/// takes at most 40 % of it, in 50 Wh steps.
pub(super) fn size_battery(uav: &mut Airframe, route_m: f64, airspeed_mps: f64) {
    let Some(model) = &uav.battery_model else {
        return;
    };
    let payload_w: f64 = uav
        .payloads
        .iter()
        .filter_map(|p| p.get("power_W")?.as_f64())
        .sum();
    let v = airspeed_mps;
    let power_w = model.hover_power_w + model.k_drag * v * v * v + payload_w;
    let ground_mps = (uav.max_speed_mps * 0.6 * 0.5).max(1.0);
    let hours = (route_m / ground_mps + 120.0) / 3600.0;
    let needed_wh = power_w * hours / 0.4;
    uav.battery_wh = ((needed_wh / 50.0).ceil() * 50.0).max(100.0);
}

/// The payload ids, in order.
pub(super) fn payload_ids(uav: &Airframe) -> Vec<String> {
    uav.payloads
        .iter()
        .filter_map(|p| p.get("id").and_then(Value::as_str).map(str::to_string))
        .collect()
}
