//! QGroundControl plans on the real PX4 SITL, as a drone engineer works: MAVSDK-Python (PyPI
//! `mavsdk`, MAVSDK itself inside the wheel) imports a `.plan` with
//! `mission_raw.import_qgroundcontrol_mission` and uploads its fence (and mission and rally
//! points) to PX4 on its ground-station port; then `alpha3 check` and `alpha3 fly --plan`
//! connect on the companion port and must
//! 1. refuse a waypoint outside the autopilot's fence that the plan alone does not forbid;
//! 2. fly a plan whose straight line home crosses an exclusion polygon home, around it, with
//!    no truth violation and no scenario file;
//! 3. name the offending item of a plan that breaks the fence.
//!
//! MAVSDK's reading of the file and ours agree item for item.
//!
//! Without the PX4 build or MAVSDK-Python the test skips with the reason; under `CI=true` it
//! fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;
mod sitl_support;

use alpha3::sitl::px4::{Px4Install, Px4Options, Px4Process, companion_port};
use alpha3_core::mission_file::{ReadOptions, read_plan};
use plan_support::*;
use serde_json::Value;
use sitl_support::{px4_build, write_config};
use std::process::Command;

/// Clear of the other PX4 tests' instances (6–9) and a developer's instance 0.
const INSTANCE: u8 = 5;

/// MAVSDK's import of `plan` (its JSON items) and ours agree on every field.
fn same_reading(imported: &Value, plan: &std::path::Path) {
    let ours = read_plan(&std::fs::read(plan).unwrap(), &ReadOptions::default()).unwrap();
    let lists = [
        ("mission", ours.mission_items()),
        ("fence", ours.fence_items().unwrap()),
        ("rally", ours.rally_items().unwrap()),
    ];
    for (list, items) in lists {
        let theirs = imported[list].as_array().unwrap();
        assert_eq!(theirs.len(), items.len(), "{list}: item counts");
        for (t, o) in theirs.iter().zip(&items) {
            let num = |v: &Value| v.as_f64().map_or(f64::NAN, |x| x);
            let same =
                |a: f64, b: f32| (a.is_nan() && b.is_nan()) || (a - f64::from(b)).abs() < 1e-6;
            assert_eq!(
                t["command"].as_u64(),
                Some(u64::from(o.command)),
                "{list} {t}"
            );
            assert_eq!(t["frame"].as_u64(), Some(u64::from(o.frame)), "{list} {t}");
            assert_eq!(t["x"].as_i64(), Some(i64::from(o.x)), "{list} {t}");
            assert_eq!(t["y"].as_i64(), Some(i64::from(o.y)), "{list} {t}");
            assert!(same(num(&t["z"]), o.z), "{list} z: {t} vs {o:?}");
            for (k, p) in ["param1", "param2", "param3", "param4"]
                .iter()
                .zip(o.params())
            {
                assert!(same(num(&t[*k]), p), "{list} {k}: {t} vs {o:?}");
            }
        }
    }
}

#[test]
fn px4_plans_are_checked_against_the_autopilots_fence_and_flown_around_exclusions() {
    let Some(py) = python_with("mavsdk") else {
        return;
    };
    let Some(px4) = px4_build("QGroundControl plans on real PX4") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let install = Px4Install::at(&px4).unwrap();
    let process = Px4Process::start(
        &install,
        &Px4Options {
            instance: INSTANCE,
            speed_factor: 1.0,
            run_dir: dir.path().join("px4"),
            params: Vec::new(),
        },
    )
    .unwrap();
    let cfg = write_config(dir.path(), companion_port(INSTANCE), "");
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_alpha3"));
    let detour = plan("zurich-detour.plan");
    let small = plan("zurich-small-fence.plan");
    let breaks = plan("zurich-breaks-fence.plan");
    let connect = ["--connect", "auto"];

    // PX4's GCS link listens on 18570 + instance.
    let mut gcs = GroundStation::start(
        &py,
        &format!("udpout://127.0.0.1:{}", 18570 + u16::from(INSTANCE)),
        dir.path().join("mavsdk.log"),
    );
    let small_up = gcs.upload(&small, true);
    assert_eq!(
        small_up["fence_on_autopilot"].as_u64(),
        Some(4),
        "{small_up}"
    );

    // 1. The plan alone passes; against PX4's fence, its items 3 and 4 are refused.
    let (code, alone) = check(&bin, &cfg, &["--plan", detour.to_str().unwrap()]);
    assert_eq!(code, 0, "{alone}");
    let mut args = vec!["--plan", detour.to_str().unwrap()];
    args.extend(connect);
    let (code, against) = check(&bin, &cfg, &args);
    assert_eq!(code, 1, "{against}");
    assert_eq!(
        refusals(&against),
        vec![
            (Some(3), "gate.geofence.outside".to_string()),
            (Some(4), "gate.geofence.outside".to_string())
        ],
        "{against}"
    );
    let fence = against["sources"]["fence"].to_string();
    assert!(
        fence.contains("autopilot FENCE plan inclusion polygon 0"),
        "{fence}"
    );

    // `fly --plan` will not start it, and the pilot's ground station is told which items.
    let out = dir.path().join("out");
    let refused = fly(&bin, &cfg, &detour, &out, "refused");
    assert_eq!(
        refused.code(),
        Some(1),
        "fly --plan of a plan the check refuses"
    );
    assert!(!out.join("records/refused.jsonl").exists());
    // Why, item by item, went to the autopilot as STATUSTEXT for its ground station (in the
    // run's .tlog: alpha3 said it on the wire).
    let said = statustexts(&out.join("tlogs/refused.tlog"));
    assert!(
        said.iter()
            .any(|t| t.starts_with("alpha3: denied item 3: the target is outside the g")),
        "alpha3 said: {said:?}"
    );

    // 3. A plan that breaks its own fence: the offending item is named.
    let mut args = vec!["--plan", breaks.to_str().unwrap()];
    args.extend(connect);
    let (code, broken) = check(&bin, &cfg, &args);
    assert_eq!(code, 1, "{broken}");
    assert!(
        refusals(&broken).contains(&(Some(3), "gate.geofence.outside".to_string())),
        "{broken}"
    );

    // The engineer uploads the whole plan; MAVSDK and we read it alike.
    let up = gcs.upload(&detour, false);
    same_reading(&up["imported"], &detour);
    assert_eq!(up["fence_on_autopilot"].as_u64(), Some(8), "{up}");
    let (code, ready) = check(&bin, &cfg, &args_with(&detour, &connect));
    assert_eq!(code, 0, "{ready}");
    assert_eq!(
        detours(&ready),
        vec![(Some(5), "gate.no_fly.path_crosses".to_string())],
        "the way home goes around the exclusion: {ready}"
    );

    // 2. Flown by the scripted agent, leg by leg through the gate, on PX4.
    let status = fly(&bin, &cfg, &detour, &out, "plan");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(process.stop());
    drop(gcs);
    assert!(status.success(), "fly --plan: {status}");
    let f = flown(
        &out.join("records/plan.jsonl"),
        [-40.0, 40.0, 80.0, 130.0],
        [-250.0, 350.0, -250.0, 350.0],
    );
    eprintln!(
        "flown: {}, {} truth samples, {:.1} m closest to the exclusion, {:.1} m outside the fence",
        f.termination, f.truth_samples, f.closest_to_exclusion_m, f.outside_fence_m
    );
    assert_eq!(f.termination, "mission_complete");
    assert!(f.truth_samples > 20);
    assert!(f.closest_to_exclusion_m > 0.0, "flew into the exclusion");
    assert_eq!(f.outside_fence_m, 0.0, "left the fence");
    let sources = f.plan["sources"].to_string();
    assert!(
        sources.contains("autopilot FENCE plan exclusion polygon 1"),
        "{sources}"
    );
    // The plan ends with RTL: the vehicle is landed at home, not left hovering.
    assert!(f.ended_on_ground, "still airborne at the end");
    assert!(
        f.end_from_home_m < 10.0,
        "landed {:.1} m from home",
        f.end_from_home_m
    );
}

/// `alpha3 fly --plan` as a user runs it, on the scripted agent, without stdin.
fn fly(
    bin: &std::path::Path,
    cfg: &std::path::Path,
    plan: &std::path::Path,
    out: &std::path::Path,
    id: &str,
) -> std::process::ExitStatus {
    Command::new(bin)
        .args(["fly", "--config"])
        .arg(cfg)
        .arg("--plan")
        .arg(plan)
        .arg("--out")
        .arg(out)
        .args(["--episode-id", id, "--no-stdin", "--ready-timeout-s", "120"])
        .status()
        .unwrap()
}

/// The STATUSTEXT chunks in a `.tlog`, as pymavlink reads them.
fn statustexts(tlog: &std::path::Path) -> Vec<String> {
    let script = "import sys\nfrom pymavlink import mavutil\nm = mavutil.mavlink_connection(sys.argv[1])\nwhile True:\n    t = m.recv_match(type='STATUSTEXT')\n    if t is None: break\n    print(t.text)\n";
    let out = Command::new(alpha3_test_support::python())
        .args(["-c", script])
        .arg(tlog)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn args_with<'a>(plan: &'a std::path::Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--plan", plan.to_str().unwrap()];
    v.extend(extra);
    v
}
