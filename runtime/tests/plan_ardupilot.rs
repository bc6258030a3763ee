//! `QGC WPL 110` missions and fences on the real ArduCopter SITL, as ArduPilot users work:
//! pymavlink's `mavwp` loads a `.waypoints` mission and a fence file and uploads them over the
//! mission protocol (as MAVProxy's wp and fence modules do); then `alpha3 check` and
//! `alpha3 fly --plan` connect on the companion link and must
//! 1. refuse a waypoint outside the autopilot's fence that the plan alone does not forbid;
//! 2. fly a mission whose straight line home crosses an exclusion polygon home, around it,
//!    under the uploaded fence, with no truth violation and no scenario file;
//! 3. name the offending item of a mission that breaks the fence.
//!
//! Without the SITL build or pymavlink the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ardupilot_support;
mod plan_support;
mod sitl_support;

use ardupilot_support::{Sitl, SitlOptions, mavwp, sitl_build};
use plan_support::*;
use sitl_support::write_config;
use std::process::Command;

/// SITL instance 4 (TCP 5800) and the companion port it sends to; the other ArduPilot tests
/// use instances 2, 3 and 6.
const INSTANCE: u8 = 4;
const PORT: u16 = 14674;

#[test]
fn ardupilot_missions_are_checked_against_the_uploaded_fence_and_flown_around_exclusions() {
    let Some(py) = python_with("pymavlink") else {
        return;
    };
    let Some((bin, parm)) = sitl_build() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = SitlOptions::new(INSTANCE, PORT);
    // ArduPilot's own test site (CMAC), where the shipped .waypoints files are drawn.
    options.home = "-35.363262,149.165237,584,353".into();
    options.params.push(("BATT_CAPACITY", 10_000.0));
    let mut sitl = Sitl::start(&bin, &parm, &options);
    let cfg = write_config(dir.path(), PORT, "");
    let alpha3 = std::path::PathBuf::from(env!("CARGO_BIN_EXE_alpha3"));
    let mission = plan("cmac-detour.waypoints");
    let breaks = plan("cmac-breaks-fence.waypoints");
    let fence = plan("cmac-fence.waypoints");
    let small = plan("cmac-small-fence.waypoints");
    let with = |m: &std::path::Path, connect: bool| -> Vec<String> {
        let mut v = vec![
            "--plan".to_string(),
            m.display().to_string(),
            "--fence".into(),
            fence.display().to_string(),
        ];
        if connect {
            v.extend(["--connect".into(), "auto".into()]);
        }
        v
    };
    let run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        check(&alpha3, &cfg, &refs)
    };

    let up = mavwp(&py, &sitl, &[("mission", &mission), ("fence", &small)]);
    assert!(up.contains("\"fence\": 4"), "{up}");

    // 1. The mission under its own fence passes; under ArduCopter's, items 2 and 3 are refused.
    let (code, alone) = run(with(&mission, false));
    assert_eq!(code, 0, "{alone}");
    let (code, against) = run(with(&mission, true));
    assert_eq!(code, 1, "{against}");
    assert_eq!(
        refusals(&against),
        vec![
            (Some(2), "gate.geofence.outside".to_string()),
            (Some(3), "gate.geofence.outside".to_string())
        ],
        "{against}"
    );
    assert!(
        against["sources"]["fence"]
            .to_string()
            .contains("autopilot FENCE plan inclusion polygon 0"),
        "{against}"
    );

    // 3. A mission that breaks the fence: the offending item is named.
    let (code, broken) = run(with(&breaks, true));
    assert_eq!(code, 1, "{broken}");
    assert!(
        refusals(&broken).contains(&(Some(2), "gate.geofence.outside".to_string())),
        "{broken}"
    );

    // The pilot uploads the mission's own fence; the mission then passes, around the exclusion.
    mavwp(&py, &sitl, &[("fence", &fence)]);
    let (code, ready) = run(with(&mission, true));
    assert_eq!(code, 0, "{ready}");
    assert_eq!(
        detours(&ready),
        vec![(Some(4), "gate.no_fly.path_crosses".to_string())],
        "{ready}"
    );

    // 2. Flown on ArduCopter under the uploaded fence.
    let out = dir.path().join("out");
    let status = Command::new(&alpha3)
        .args(["fly", "--config"])
        .arg(&cfg)
        .args(with(&mission, false))
        .arg("--out")
        .arg(&out)
        .args([
            "--episode-id",
            "plan",
            "--no-stdin",
            "--ready-timeout-s",
            "120",
        ])
        .status()
        .unwrap();
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());
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
