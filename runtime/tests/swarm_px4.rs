//! A real swarm (issue 33) on real PX4 SITL: `alpha3 swarm` starts three fresh PX4 instances,
//! the swarm network's hub and one `alpha3 fly` per vehicle (scripted policy), each its own
//! gate, watchdog, record and system id. The three fly straight legs that cross over one point,
//! all at 40 m, all at once (`configs/swarm/cross-3.toml`); they learn of each other only from
//! the network — the autopilots' broadcast positions and the runtimes' signed A2A intents in
//! MAVLink TUNNEL frames — and pymavlink, a fourth party on the network with the swarm's key,
//! verifies the signatures and decodes the intents.
//!
//! 1. Crossing paths: no separation violation in truth (the hub's pairwise distances from the
//!    autopilots' own positions), every runtime heard both mates, a gate acted on a mate, every
//!    mission completes (a vehicle that gives way waits with the swarm file's turn budget,
//!    40), and the swarm's review page renders in Chromium with every vehicle on one map.
//! 2. A silenced peer: uav-2's radio dies 18 s in, once all three have joined, while it climbs
//!    over its home (nothing from or to it, its
//!    autopilot's positions no longer heard). It hears no mate, so it holds and lands where it
//!    is (`swarm_lost`); the others take it for landed there, keep clear of the region it
//!    could have reached; uav-1, with the right of way, completes its mission (uav-3 starts
//!    10 s in: a silence before it
//!    joined would leave it a mate it never heard, `docs/SWARM.md`).
//!
//! 3. A liar: pymavlink, with the swarm's key, sends signed intents in uav-3's name from 14 s
//!    on — "holding" 160 m south of its home — which uav-3's own autopilot broadcasts
//!    contradict (`tests/py/a2a_liar.py`). uav-1 and uav-2 flag it (three strikes, each against
//!    a newer intent), refuse every later intent in its name (its real runtime's too), and fly
//!    around it as traffic: no violation in truth, uav-1 completes its mission.
//!
//! 4. The same landing site (`configs/swarm/landing-3.toml`): three vehicles fly to one depot
//!    of three pads 45 m apart, each to the pad across from its home (their paths cross on
//!    the way in), and land on it, the mission's last waypoint being on the ground: every
//!    mission complete, each record ending on its own pad, no violation in truth.
//!
//! All four use PX4 instances 0–2 and run one at a time (a lock file). Without the PX4 build the
//! tests skip with the reason; under `CI=true` they fail instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser_support;
mod sitl_support;

use alpha3_core::record::{Event, parse_record};
use browser_support::{attrs, chromium, dump_dom, screenshot, shots_dir};
use serde_json::Value;
use sitl_support::{alpha3, free_udp_port, px4_build, python, root};
use std::path::Path;
use std::process::{Child, Command};

/// A fixed test key (64 hex digits): the listener must know it.
const KEY: &str = "a2a3a2a3000102030405060708090a0b0c0d0e0f101112131415161718191a1b";
const SPEED: &str = "2";

struct Run {
    summary: Value,
    listener: Value,
    /// What the liar said it sent (`Value::Null` without one).
    liar: Value,
    stderr: String,
}

/// Where the liar claims uav-3 holds: 160 m south of its home, 40 m up — far from anywhere
/// its autopilot flies.
const LIE_EAST_NORTH_M: (f64, f64) = (100.0, -200.0);

/// pymavlink signing with the swarm's key in uav-3's name (tests/py/a2a_liar.py), lying from
/// 14 s on (all three runtimes have joined by then).
fn liar(port: u16, dir: &Path) -> (Child, std::path::PathBuf, std::path::PathBuf) {
    let out = dir.join("liar.json");
    let stop = dir.join("liar.stop");
    let origin = alpha3_core::frames::Geo {
        lat_deg: 47.397742,
        lon_deg: 8.545594,
        alt_amsl_m: 488.0,
    };
    let (e, n) = LIE_EAST_NORTH_M;
    let claim = alpha3_core::frames::LocalFrame::new(origin)
        .to_geo(alpha3_core::frames::Enu::new(e, n, 40.0));
    let child = Command::new(python())
        .arg(root().join("tests/py/a2a_liar.py"))
        .arg(port.to_string())
        .arg(KEY)
        .args(["3", "uav-3"])
        .arg(((claim.lat_deg * 1e7).round() as i64).to_string())
        .arg(((claim.lon_deg * 1e7).round() as i64).to_string())
        .arg(((claim.alt_amsl_m * 10.0).round() as i64).to_string())
        .arg("14")
        .arg(&out)
        .arg(&stop)
        .spawn()
        .unwrap();
    (child, out, stop)
}

/// Serialises the swarm tests: they share PX4 instances 0–2.
fn lock() -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(std::env::temp_dir().join("alpha3-swarm-tests.lock"))
        .unwrap();
    f.lock().unwrap();
    f
}

fn listener(port: u16, dir: &Path) -> (Child, std::path::PathBuf, std::path::PathBuf) {
    let out = dir.join("listener.json");
    let stop = dir.join("listener.stop");
    let child = Command::new(python())
        .arg(root().join("tests/py/a2a_listener.py"))
        .arg(port.to_string())
        .arg(KEY)
        .arg("900")
        .arg(&out)
        .arg(&stop)
        .spawn()
        .unwrap();
    (child, out, stop)
}

fn fly_swarm(px4: &Path, dir: &Path, extra: &[&str], with_liar: bool) -> Run {
    fly_swarm_file(px4, dir, "cross-3.toml", extra, with_liar)
}

/// [`fly_swarm`] with another swarm file of `configs/swarm/`.
fn fly_swarm_file(px4: &Path, dir: &Path, file: &str, extra: &[&str], with_liar: bool) -> Run {
    let port = free_udp_port();
    let (mut child, listener_out, stop) = listener(port, dir);
    let mut lying = with_liar.then(|| liar(port, dir));
    let out = dir.join("out");
    let run = alpha3()
        .arg("swarm")
        .arg("--swarm")
        .arg(root().join("configs/swarm").join(file))
        .arg("--config")
        .arg(root().join("configs/alpha3.toml"))
        .arg("--px4")
        .arg(px4)
        .args(["--first-instance", "0", "--speed-factor", SPEED])
        .args(["--hub", &format!("127.0.0.1:{port}")])
        .args(["--key-env", "ALPHA3_TEST_SWARM_KEY", "--timeout-s", "600"])
        .arg("--out")
        .arg(&out)
        .args(extra)
        .env("ALPHA3_TEST_SWARM_KEY", KEY)
        .output()
        .unwrap();
    std::fs::write(&stop, b"").unwrap();
    child.wait().unwrap();
    let liar = match &mut lying {
        Some((child, out, stop)) => {
            std::fs::write(stop, b"").unwrap();
            child.wait().unwrap();
            serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
        }
        None => Value::Null,
    };
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    eprintln!("{stderr}\n{}", String::from_utf8_lossy(&run.stdout));
    for name in ["uav-1", "uav-2", "uav-3"] {
        tell_story(&out, name);
    }
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.join("swarm-summary.json")).unwrap()).unwrap();
    let listener: Value =
        serde_json::from_slice(&std::fs::read(&listener_out).unwrap()).unwrap_or(Value::Null);
    eprintln!("hub: {}", summary["hub"]);
    eprintln!("listener: {listener}");
    Run {
        summary,
        listener,
        liar,
        stderr,
    }
}

/// What a vehicle's runtime did, for a failure to be read from CI's output alone (the run's
/// folder is gone by then): its log's last lines and its warnings counted, and its record's
/// story — every event but the samples, the truth every 10 s.
fn tell_story(out: &Path, name: &str) {
    let log = std::fs::read_to_string(out.join(name).join("fly.log")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(6).collect();
    eprintln!("--- {name} fly.log (last lines) ---");
    for l in tail.iter().rev() {
        eprintln!("{l}");
    }
    let mut warnings: Vec<(String, usize)> = Vec::new();
    for l in log.lines().map(plain) {
        if !(l.contains(" WARN ") || l.contains(" ERROR ")) {
            continue;
        }
        // Without its time stamp and cut short (a count in it changes), so that repeats
        // count as one.
        let text: String = l
            .split_once(' ')
            .map_or(l.as_str(), |(_, rest)| rest)
            .chars()
            .take(90)
            .collect();
        match warnings.iter_mut().find(|(w, _)| *w == text) {
            Some((_, n)) => *n += 1,
            None => warnings.push((text, 1)),
        }
    }
    eprintln!("--- {name} warnings ({} kinds) ---", warnings.len());
    for (w, n) in warnings.iter().take(30) {
        eprintln!("{n:>6} × {w}");
    }
    // The autopilot's own account: its mode changes, failsafes and warnings.
    let px4 =
        std::fs::read_to_string(out.join("px4").join(name).join("px4.log")).unwrap_or_default();
    let said: Vec<&str> = px4
        .lines()
        .filter(|l| {
            (l.contains("WARN") || l.contains("ERROR") || l.contains("[commander]"))
                && !l.contains("LED")
        })
        .collect();
    eprintln!("--- {name} px4.log ({} lines told) ---", said.len());
    for l in said.iter().rev().take(40).rev() {
        eprintln!("{l}");
    }
    let record = out.join(name).join("records").join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(record).unwrap_or_default();
    let mut story = Vec::new();
    let mut next_truth_ms = 0;
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            story.push(format!("(unparsed) {line}"));
            continue;
        };
        let t = v["t_ms"].as_u64().unwrap_or(0);
        match v["event"].as_str().unwrap_or("") {
            "link" | "slice_decision" => {}
            "truth" if t < next_truth_ms => {}
            "truth" => {
                next_truth_ms = t + 10_000;
                let p = &v["position"];
                let at = |k: &str| p[k].as_f64().unwrap_or(f64::NAN);
                story.push(format!(
                    "{t:>7} truth ({:.1}, {:.1}, {:.1}) armed {} airborne {} battery {}",
                    at("x"),
                    at("y"),
                    at("z"),
                    v["armed"],
                    v["airborne"],
                    v["battery_pct"]
                ));
            }
            "header" => story.push(format!("{t:>7} header {}", v["scenario"])),
            _ => {
                let mut s = line.to_string();
                s.truncate(400);
                story.push(format!("{t:>7} {s}"));
            }
        }
    }
    eprintln!("--- {name} record ({} events told) ---", story.len());
    let skip = story.len().saturating_sub(120);
    for (i, s) in story.iter().enumerate() {
        if i < 60 || i >= skip {
            eprintln!("{s}");
        } else if i == 60 {
            eprintln!("... {} events ...", skip - 60);
        }
    }
}

/// `line` without its terminal colours (`tracing` writes them to a file too).
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // An escape runs to its final letter.
            for e in chars.by_ref() {
                if e.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The gate's separation findings and watchdog lines in a vehicle's record.
fn separation_acts(dir: &Path, name: &str) -> usize {
    let record = dir
        .join("out")
        .join(name)
        .join("records")
        .join(format!("{name}.jsonl"));
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("gate.separation"))
        .count()
}

/// The swarm's review page `alpha3 swarm` wrote, opened in Chromium: it rendered with no
/// script error, one flown path per vehicle with every sample of the hub's track, one cross per
/// gate refusal or change in the vehicles' records; a screenshot is kept as `shot`.
fn check_swarm_page(dir: &Path, shot: &str) {
    let out = dir.join("out");
    let page = out.join("swarm.html");
    assert!(page.exists(), "alpha3 swarm wrote no review page");
    let Some(chromium) = chromium() else {
        return;
    };
    let dom = dump_dom(&chromium, &page);
    let root_tag = &dom[..dom.find("<head").unwrap()];
    assert!(root_tag.contains("data-rendered=\"1\""), "{root_tag}");
    assert!(root_tag.contains("data-errors=\"\""), "{root_tag}");
    let track: Value =
        serde_json::from_slice(&std::fs::read(out.join("swarm-track.json")).unwrap()).unwrap();
    let tracks = track["vehicles"].as_array().unwrap();
    let flown = attrs(&dom, "<polyline class=\"flown\"", "points");
    assert_eq!(flown.len(), tracks.len(), "one flown path per vehicle");
    for (points, v) in flown.iter().zip(tracks) {
        let samples = v["t"].as_array().unwrap().len();
        assert!(samples > 50, "{}: {samples} samples", v["name"]);
        assert_eq!(points.split(' ').count(), samples, "{}", v["name"]);
    }
    let refusals: usize = ["uav-1", "uav-2", "uav-3"]
        .iter()
        .map(|name| {
            let record = out.join(name).join("records").join(format!("{name}.jsonl"));
            let parsed = parse_record(&std::fs::read_to_string(record).unwrap()).unwrap();
            parsed
                .lines
                .iter()
                .filter(|l| {
                    matches!(&l.event, Event::Verdict { outcome, .. } if outcome.as_str() != "approved")
                })
                .count()
        })
        .sum();
    assert_eq!(
        attrs(&dom, "<path class=\"finding\"", "d").len(),
        refusals,
        "one cross per refused or changed command"
    );
    assert!(dom.contains("closest now:"), "the slider's readout");
    screenshot(&chromium, &page, &shots_dir().join(shot));
}

#[test]
fn three_px4_on_crossing_paths_keep_their_separation_over_signed_a2a() {
    let Some(px4) = px4_build("the swarm on real PX4") else {
        return;
    };
    let _lock = lock();
    let dir = tempfile::tempdir().unwrap();
    let r = fly_swarm(&px4, dir.path(), &[], false);
    let s = &r.summary;
    let hub = &s["hub"];
    assert_eq!(
        hub["separation_violations"], 0,
        "separation violations in truth: {hub}"
    );
    let limit = hub["min_separation_limit_m"].as_f64().unwrap();
    let closest = hub["min_separation_m"].as_f64().expect("pairs compared");
    assert!(closest >= limit, "closest pair {closest} m < {limit} m");
    for v in s["vehicles"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        eprintln!("{name}: {}", v["termination"]);
        assert_eq!(v["termination"], "mission_complete", "{name}: {v}");
        assert_eq!(v["record_violations"], 0, "{name}: {v}");
        let peers = v["swarm"]["peers"].as_array().expect("a swarm report");
        assert_eq!(peers.len(), 2, "{name} knows both mates: {v}");
        assert!(
            v["swarm"]["intents_taken"].as_u64().unwrap() > 10,
            "{name}: {v}"
        );
        assert_eq!(v["swarm"]["counts"]["bad_signature"], 0, "{name}: {v}");
        assert!(peers.iter().all(|p| p["flagged"].is_null()), "{name}: {v}");
    }
    assert_eq!(s["missions_completed"], 3, "{}", r.stderr);
    // The fourth party: pymavlink verified the signatures and read every vehicle's intents.
    let l = &r.listener;
    assert!(l["tunnel_signed"].as_u64().unwrap() > 30, "{l}");
    assert_eq!(l["tunnel_unsigned"], 0, "{l}");
    assert_eq!(l["bad_chunks"], 0, "{l}");
    for name in ["uav-1", "uav-2", "uav-3"] {
        assert!(l["intents"][name].as_u64().unwrap_or(0) > 5, "{name}: {l}");
    }
    assert_eq!(l["positions"].as_object().unwrap().len(), 3, "{l}");
    // The paths cross: someone had to give way, and the gate said why.
    let acts: usize = ["uav-1", "uav-2", "uav-3"]
        .iter()
        .map(|n| separation_acts(dir.path(), n))
        .sum();
    eprintln!("separation findings in the records: {acts}");
    assert!(acts > 0, "no vehicle's gate ever acted on a mate");
    check_swarm_page(dir.path(), "swarm_cross_3.png");
}

#[test]
fn a_silenced_peer_is_kept_clear_of() {
    let Some(px4) = px4_build("the swarm on real PX4") else {
        return;
    };
    let _lock = lock();
    let dir = tempfile::tempdir().unwrap();
    let r = fly_swarm(&px4, dir.path(), &["--silence", "uav-2@18"], false);
    let s = &r.summary;
    let hub = &s["hub"];
    assert!(hub["silenced_at_s"].as_f64().is_some(), "{hub}");
    assert_eq!(
        hub["separation_violations"], 0,
        "separation violations in truth: {hub}"
    );
    let uav2 = &hub["vehicles"][1];
    assert!(uav2["silenced_drops"].as_u64().unwrap() > 0, "{uav2}");
    for v in s["vehicles"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        assert_eq!(v["record_violations"], 0, "{name}: {v}");
        if name == "uav-2" {
            // Deaf to its mates: it held and landed where it was.
            assert_eq!(v["termination"], "swarm_lost", "{v}");
            assert!(v["swarm"]["lost_at_ms"].as_u64().is_some(), "{v}");
            continue;
        }
        eprintln!("{name}: {}", v["termination"]);
        if name == "uav-1" {
            assert_eq!(v["termination"], "mission_complete", "{name}: {v}");
        }
        // The others last heard uav-2 long before the end, and kept clear of where it could be.
        let peers = v["swarm"]["peers"].as_array().expect("a swarm report");
        let silent = peers
            .iter()
            .find(|p| p["system"] == 2)
            .unwrap_or_else(|| panic!("{name} heard uav-2 before it fell silent: {v}"));
        assert!(
            silent["position_age_ms"].as_u64().unwrap() > 10_000,
            "{name}: {silent}"
        );
        assert!(
            silent["radius_m"].as_f64().unwrap() > 50.0,
            "{name}: {silent}"
        );
    }
}

#[test]
fn a_peer_that_lies_is_flagged_and_flown_around_as_traffic() {
    let Some(px4) = px4_build("the swarm on real PX4") else {
        return;
    };
    let _lock = lock();
    let dir = tempfile::tempdir().unwrap();
    let r = fly_swarm(&px4, dir.path(), &[], true);
    let s = &r.summary;
    let hub = &s["hub"];
    assert!(r.liar["intents_sent"].as_u64().unwrap() > 10, "{}", r.liar);
    assert_eq!(
        hub["separation_violations"], 0,
        "separation violations in truth: {hub}"
    );
    let limit = hub["min_separation_limit_m"].as_f64().unwrap();
    assert!(hub["min_separation_m"].as_f64().unwrap() >= limit, "{hub}");
    for v in s["vehicles"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        eprintln!("{name}: {}", v["termination"]);
        assert_eq!(v["record_violations"], 0, "{name}: {v}");
        let swarm = &v["swarm"];
        if name == "uav-3" {
            // The lies in its own name came back to it and were dropped as its own.
            assert!(swarm["counts"]["own"].as_u64().unwrap() > 0, "{v}");
            continue;
        }
        // Signed with the swarm's key, in a roster member's name: taken, held against what
        // uav-3's autopilot broadcasts, and flagged; from then on every intent in uav-3's name
        // (its real runtime's too) is refused, and uav-3 is traffic.
        let peers = swarm["peers"].as_array().expect("a swarm report");
        let uav3 = peers
            .iter()
            .find(|p| p["system"] == 3)
            .expect("uav-3 known");
        let flag = &uav3["flagged"];
        assert!(flag["off_by_m"].as_f64().unwrap() > 100.0, "{name}: {uav3}");
        assert!(
            swarm["intents_refused"].as_u64().unwrap() > 5,
            "{name}: {v}"
        );
        assert_eq!(swarm["counts"]["bad_signature"], 0, "{name}: {v}");
        if name == "uav-1" {
            assert_eq!(v["termination"], "mission_complete", "{name}: {v}");
        }
    }
}

#[test]
fn three_px4_land_on_one_depot_each_on_its_own_pad() {
    let Some(px4) = px4_build("the swarm on real PX4") else {
        return;
    };
    let _lock = lock();
    let dir = tempfile::tempdir().unwrap();
    let r = fly_swarm_file(&px4, dir.path(), "landing-3.toml", &[], false);
    let s = &r.summary;
    let hub = &s["hub"];
    assert_eq!(
        hub["separation_violations"], 0,
        "separation violations in truth: {hub}"
    );
    // uav-1 to the east pad, uav-2 to the west one, uav-3 to the middle (the swarm suite).
    let pads = [
        ("uav-1", 145.0, 220.0),
        ("uav-2", 55.0, 220.0),
        ("uav-3", 100.0, 220.0),
    ];
    for (name, x, y) in pads {
        let v = s["vehicles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("{name} in the summary: {s}"));
        assert_eq!(v["termination"], "mission_complete", "{name}: {v}");
        assert_eq!(v["record_violations"], 0, "{name}: {v}");
        // Its record ends on its own pad: within the world's waypoint tolerance (6 m across,
        // 4 m up) of the ground there, after a landing the gate approved at that pad.
        let text = std::fs::read_to_string(
            dir.path()
                .join("out")
                .join(name)
                .join("records")
                .join(format!("{name}.jsonl")),
        )
        .unwrap();
        let record = parse_record(&text).unwrap();
        let last = record
            .lines
            .iter()
            .rev()
            .find_map(|l| match &l.event {
                Event::Truth { position, .. } => Some(*position),
                _ => None,
            })
            .expect("truth in the record");
        let off = (last.x - x).hypot(last.y - y);
        assert!(
            off <= 6.0 && last.z <= 4.0,
            "{name} ends at {last:?}, its pad ({x}, {y})"
        );
        let landed_here = record.lines.iter().any(|l| {
            matches!(&l.event, Event::AgentTurn { agent_turn, .. }
                if agent_turn.actions.iter().any(|a| serde_json::to_value(a)
                    .is_ok_and(|a| a["name"] == "land" && a["args"]["site"]["x"] == x)))
        });
        assert!(landed_here, "{name} never asked to land on its pad");
    }
    assert_eq!(s["missions_completed"], 3, "{}", r.stderr);
}
