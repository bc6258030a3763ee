//! Replays the fuzz corpus through every fuzz target: the checked-in seeds
//! (`fuzz/corpus/<target>/`) and every input that once crashed a target
//! (`fuzz/regressions/<target>/`). A panic here is a crash the fuzzer found (or would find):
//! `scripts/fuzz.sh` runs the long, coverage-guided campaign (fuzz/README.md).

#![allow(clippy::unwrap_used)]

use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo, LocalFrame, Ned};
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_fuzz_targets::TARGETS;
use alpha3_hil::command::Target;
use alpha3_hil::profile::Profile;
use alpha3_hil::translate::{Context, GotoMethod, Step, translate};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted; none when it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every input of `dirs` through `target`; returns how many ran, or the inputs that
/// panicked with their messages.
fn replay(target: fn(&[u8]), files: &[PathBuf]) -> Result<usize, Vec<String>> {
    let mut failed = Vec::new();
    for f in files {
        let data = std::fs::read(f).unwrap();
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| target(&data))) {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(format!("{}: {why}", f.display()));
        }
    }
    if failed.is_empty() {
        Ok(files.len())
    } else {
        Err(failed)
    }
}

#[test]
fn every_target_has_a_seed_corpus() {
    for (name, _) in TARGETS {
        let n = inputs(&fuzz_dir().join("corpus").join(name)).len();
        assert!(n > 0, "fuzz/corpus/{name}/ has no seeds");
    }
}

#[test]
fn the_seed_corpus_replays_without_a_crash() {
    let mut failed = Vec::new();
    for (name, target) in TARGETS {
        match replay(*target, &inputs(&fuzz_dir().join("corpus").join(name))) {
            Ok(n) => eprintln!("{name}: {n} seeds"),
            Err(f) => failed.extend(f),
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn every_input_that_once_crashed_a_target_is_handled() {
    let mut failed = Vec::new();
    let mut total = 0;
    for (name, target) in TARGETS {
        match replay(*target, &inputs(&fuzz_dir().join("regressions").join(name))) {
            Ok(n) => total += n,
            Err(f) => failed.extend(f),
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(
        total > 0,
        "fuzz/regressions/ holds the crashes found so far"
    );
}

/// A corrupted-but-valid telemetry frame can put the vehicle at an infinite position; the
/// arrival wait of a go-to from there used to overflow (`arrival_budget_ms`, found by the
/// `translate` target): it saturates now, and the procedure still names the command.
#[test]
fn a_go_to_from_an_infinite_position_gets_a_saturated_arrival_wait() {
    let home = Geo {
        lat_deg: 47.4,
        lon_deg: 8.5,
        alt_amsl_m: 400.0,
    };
    let mut snapshot = VehicleSnapshot::on_ground_at_home(home, 0);
    snapshot.position = Enu::new(f64::INFINITY, 0.0, 20.0);
    let ctx = Context {
        target: Target {
            system: 1,
            component: 1,
        },
        snapshot,
        frame: LocalFrame::new(home),
        home_local: Ned {
            north: 0.0,
            east: 0.0,
            down: 0.0,
        },
        goto: GotoMethod::Reposition,
        streaming: false,
        arm_ready_ms: 15_000,
        arm_interval_ms: 1000,
        arrive_timeout_ms: 10_000,
        cruise_speed_mps: None,
    };
    let land = Command::Land {
        site: Some([30.0, 40.0]),
    };
    for profile in [Profile::Px4, Profile::ArduPilot] {
        let procedure = translate(&land, profile, &ctx).unwrap();
        assert_eq!(procedure.command, "land");
        let waits: Vec<u64> = procedure
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Await { within_ms, .. } => Some(*within_ms),
                _ => None,
            })
            .collect();
        assert_eq!(waits, vec![u64::MAX], "{profile:?}");
    }
}
