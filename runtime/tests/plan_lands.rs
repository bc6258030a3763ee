//! A plan that ends with a landing lands there: `configs/plans/zurich-land.plan` (take-off, a
//! waypoint 120 m east, NAV_LAND 60 m north of it) flown by `alpha3 fly --plan` ends
//! `mission_complete` with the vehicle on the ground at the landing's position — the last
//! waypoint is the landing's place, the landing is the failsafe's land step through the gate,
//! and the place is an authorised landing site, so the descent below the band is no violation.
//! Flown on `alpha3 sim-vehicle` (PX4's imitation) and on the real PX4 SITL; and
//! `cmac-land.waypoints`, the same shape as a `QGC WPL 110` mission at ArduPilot's test site,
//! on the real ArduCopter SITL under `cmac-fence.waypoints`.
//!
//! Without the PX4 or ArduPilot build those tests skip with the reason; under `CI=true` they
//! fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ardupilot_support;
mod plan_support;
mod sitl_support;

use alpha3::sitl::px4::{Px4Install, Px4Options, Px4Process, companion_port};
use alpha3_core::frames::{Geo, LocalFrame};
use plan_support::{plan, record_lines};
use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, px4_build, write_config};
use std::path::Path;
use std::process::Stdio;

/// SITL instance: companion link → 14579; clear of the other tests' instances.
const INSTANCE: u16 = 39;

/// PX4 instance: clear of the other PX4 tests' (3, 5–9).
const PX4_INSTANCE: u8 = 4;

/// ArduCopter SITL instance 5 (TCP 5810) and its companion port; the other ArduPilot tests
/// use instances 2, 3, 4, 6 and 7.
const ARDUPILOT_INSTANCE: u8 = 5;
const ARDUPILOT_PORT: u16 = 14685;

/// The NAV_LAND of `zurich-land.plan`.
const ZURICH_LAND: Geo = Geo {
    lat_deg: 47.3982815,
    lon_deg: 8.5471883,
    alt_amsl_m: 488.0,
};

/// ArduPilot's test site (CMAC) and the NAV_LAND of `cmac-land.waypoints`.
const CMAC: Geo = Geo {
    lat_deg: -35.363262,
    lon_deg: 149.165237,
    alt_amsl_m: 584.0,
};
const CMAC_LAND: Geo = Geo {
    lat_deg: -35.362723,
    lon_deg: 149.1665589,
    alt_amsl_m: 584.0,
};

const HOME: Geo = Geo {
    lat_deg: 47.397742,
    lon_deg: 8.545594,
    alt_amsl_m: 488.0,
};

#[test]
fn a_plan_ending_with_a_landing_lands_at_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let mut vehicle = alpha3()
        .args(["sim-vehicle", "--scenario"])
        .arg(&scenario)
        .args(["--instance", &INSTANCE.to_string(), "--speed-factor", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = fly_landing_plan(dir.path(), 14540 + INSTANCE, &[plan("zurich-land.plan")]);
    let _ = vehicle.kill();
    let _ = vehicle.wait();
    check_landed(dir.path(), &run, HOME, ZURICH_LAND);
}

#[test]
fn a_plan_ending_with_a_landing_lands_at_its_position_on_real_px4() {
    let Some(px4) = px4_build("a plan's landing on PX4") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let install = Px4Install::at(&px4).unwrap();
    let process = Px4Process::start(
        &install,
        &Px4Options {
            instance: PX4_INSTANCE,
            speed_factor: 2.0, // PX4_SIM_SPEED_FACTOR
            run_dir: dir.path().join("px4"),
            params: Vec::new(),
        },
    )
    .unwrap();
    let run = fly_landing_plan(
        dir.path(),
        companion_port(PX4_INSTANCE),
        &[plan("zurich-land.plan")],
    );
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(process.stop());
    check_landed(dir.path(), &run, HOME, ZURICH_LAND);
}

#[test]
fn a_waypoints_mission_ending_with_a_landing_lands_at_its_position_on_real_arducopter() {
    let Some((bin, parm)) = ardupilot_support::sitl_build() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = ardupilot_support::SitlOptions::new(ARDUPILOT_INSTANCE, ARDUPILOT_PORT);
    options.home = "-35.363262,149.165237,584,353".into();
    options.params.push(("BATT_CAPACITY", 10_000.0));
    let mut sitl = ardupilot_support::Sitl::start(&bin, &parm, &options);
    let run = fly_landing_plan(
        dir.path(),
        ARDUPILOT_PORT,
        &[
            plan("cmac-land.waypoints"),
            "--fence".into(),
            plan("cmac-fence.waypoints"),
        ],
    );
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());
    check_landed(dir.path(), &run, CMAC, CMAC_LAND);
}

/// `alpha3 fly --plan PLAN...` on the vehicle at companion `port`, into `dir/out`.
fn fly_landing_plan(dir: &Path, port: u16, plan: &[std::path::PathBuf]) -> std::process::Output {
    let cfg = write_config(dir, port, "");
    alpha3()
        .args(["fly", "--config"])
        .arg(&cfg)
        .arg("--plan")
        .args(plan)
        .arg("--out")
        .arg(dir.join("out"))
        .args([
            "--episode-id",
            "land",
            "--no-stdin",
            "--ready-timeout-s",
            "120",
        ])
        .output()
        .unwrap()
}

/// The episode in `dir/out` ended `mission_complete`, landed at `land` (the mission's frame is
/// centred on `home`), no violation.
fn check_landed(dir: &Path, run: &std::process::Output, home: Geo, land: Geo) {
    let out = dir.join("out");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");

    let lines = record_lines(&out.join("records/land.jsonl"));
    let plan_note = &lines[0]["config"]["vehicle_link"]["plan"];
    assert_eq!(
        plan_note["ends_with_landing"],
        Value::Bool(true),
        "{plan_note}"
    );
    assert!(
        plan_note["sources"]["landing_sites"]
            .to_string()
            .contains("NAV_LAND"),
        "{plan_note}"
    );
    let end = lines
        .iter()
        .rev()
        .find(|l| l["event"] == "termination")
        .unwrap();
    assert_eq!(
        end["reason"],
        "mission_complete",
        "{}\n{stderr}",
        story(&lines)
    );
    assert!(
        !lines.iter().any(|l| l["event"] == "violation"),
        "a truth violation: {stderr}"
    );
    let landed = lines
        .iter()
        .any(|l| l["event"] == "watchdog" && l["action"] == "land");
    assert!(landed, "no landing after the last waypoint");
    let last = lines.iter().rev().find(|l| l["event"] == "truth").unwrap();
    assert_eq!(
        last["airborne"],
        Value::Bool(false),
        "still in the air: {last}"
    );
    let target = LocalFrame::new(home).to_enu(land);
    let (x, y) = (
        last["position"]["x"].as_f64().unwrap(),
        last["position"]["y"].as_f64().unwrap(),
    );
    let off = ((x - target.x).powi(2) + (y - target.y).powi(2)).sqrt();
    eprintln!("landed {off:.1} m from the NAV_LAND position");
    assert!(off < 5.0, "landed {off:.1} m from the NAV_LAND position");
}

/// The record without its truth and link samples, one short line per event: what the agent
/// asked, what the gate said, what the watchdog did — so a failure explains itself in CI.
fn story(lines: &[Value]) -> String {
    lines
        .iter()
        .filter(|l| !matches!(l["event"].as_str(), Some("truth" | "link" | "header")))
        .map(|l| {
            let mut line = l.to_string();
            if line.len() > 400 {
                line.truncate(line.floor_char_boundary(400));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}
