//! Shared by the `fly_*` and `sitl_*` tests: a short mission, a config pointing `alpha3` at a
//! local port, and the built-in world as a PX4-like vehicle on that port (the sim-bridge
//! endpoint, booting faster than PX4 so the tests stay short).
#![allow(dead_code, clippy::unwrap_used)]

use alpha3_sim::endpoint::{BootTiming, Endpoint, EndpointOptions, EndpointTransport, LinkOptions};
use alpha3_sim::{World, WorldOptions};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

pub use alpha3_test_support::{python, root};

pub fn free_udp_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    s.local_addr().unwrap().port()
}

/// A short delivery: one leg of ~45 m from an airborne spawn, no faults, no traffic — about
/// ten seconds of flight in real time.
pub fn short_scenario() -> Value {
    let text = std::fs::read_to_string(root().join("configs/scenarios/sc-0001.json")).unwrap();
    let mut s: Value = serde_json::from_str(&text).unwrap();
    s["name"] = json!("sitl-short");
    s["spawn"] = json!({"xyz": [102.0, 70.0, 32.0], "yaw_deg": 45.0});
    s["mission"]["waypoints"] = json!([[140.0, 95.0, 36.0]]);
    s["faults"] = json!([]);
    s["traffic"] = json!([]);
    s
}

pub fn write_scenario(dir: &Path) -> PathBuf {
    let path = dir.join("sitl-short.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&short_scenario()).unwrap(),
    )
    .unwrap();
    path
}

/// Suite scenario 0 with the vehicle on the ground, as a file.
pub fn ground_scenario(dir: &Path) -> PathBuf {
    let src = root().join("configs/scenarios/sc-0000.json");
    let mut s: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    s["spawn"]["xyz"][2] = Value::from(0.0);
    let path = dir.join("ground.json");
    std::fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
    path
}

/// `configs/alpha3.toml` with the link on `udpin:127.0.0.1:PORT`, short link timeouts and the
/// scripted policy.
pub fn write_config(dir: &Path, port: u16, extra_link: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap();
    let text = text.replace(
        "connect = \"udpin:127.0.0.1:14540\"",
        &format!("connect = \"udpin:127.0.0.1:{port}\"\n{extra_link}"),
    );
    assert!(text.contains(&format!("127.0.0.1:{port}")));
    let path = dir.join("alpha3.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A suite of the short scenario for `alpha3 sitl`: scripted policy, one seed.
pub fn write_suite(dir: &Path, config: &Path) -> PathBuf {
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    write_scenario(&scenarios);
    let policy = dir.join("scripted.toml");
    std::fs::write(
        &policy,
        "[policy]\nname = \"scripted\"\nbackend = \"scripted\"\ndeadline_ms = 1000\nmax_attempts = 1\n",
    )
    .unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[bench]\nname = \"sitl-short\"\nscenarios = [\"scenarios\"]\nseeds = [1]\npolicies = [\"scripted.toml\"]\nconcurrency = 1\nmin_turns = 2\nmax_turns = 6\nmax_tokens = 10000\nmax_tool_actions = 25\nbase_config = \"{}\"\n",
            config.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    suite
}

/// The built-in world of the short scenario as a PX4-like vehicle talking to `port`.
pub async fn vehicle(port: u16, seed: u64) -> Endpoint {
    vehicle_to(format!("127.0.0.1:{port}").parse().unwrap(), seed).await
}

/// As [`vehicle`], sending to `remote` (a forwarder, say).
pub async fn vehicle_to(remote: std::net::SocketAddr, seed: u64) -> Endpoint {
    let scenario = alpha3_sim::scenario::parse_scenario(&short_scenario().to_string()).unwrap();
    let world = World::new(scenario, WorldOptions::seeded(seed));
    let link = LinkOptions::onboard(EndpointTransport::Udp {
        bind: "127.0.0.1:0".parse().unwrap(),
        remote: Some(remote),
    });
    let mut options = EndpointOptions::single(0, link);
    options.boot = BootTiming {
        heartbeat_ms: 200,
        home_ms: 400,
        arm_ready_ms: 600,
    };
    Endpoint::spawn(world, options).await.unwrap()
}

/// The PX4 SITL install (`$PX4_SITL_HOME`, default `~/.cache/px4-sitl`, as `scripts/test.sh`
/// builds it), or `None` after printing why `what` skips — a failure under `CI=true`.
pub fn px4_build(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PX4_SITL_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/px4-sitl")));
    let found = dir.filter(|d| alpha3::sitl::px4::Px4Install::at(d).is_ok());
    if found.is_none() {
        alpha3_test_support::require_or_skip(
            &format!("PX4 SITL build for {what}"),
            "run scripts/px4-sitl.sh, or set PX4_SITL_HOME",
        );
    }
    found
}

/// The `alpha3` binary under test; `ALPHA3_BIN` runs another build (e.g. an older one, to
/// show that a regression test fails without its fix).
pub fn alpha3() -> std::process::Command {
    let bin = std::env::var_os("ALPHA3_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_alpha3")));
    std::process::Command::new(bin)
}

/// Reads a `.tlog` with pymavlink's log reader (hil/tests/py/read_tlog.py): message counts,
/// first stamp, monotonic stamps, BAD_DATA count.
pub fn pymavlink_read_tlog(path: &Path) -> Value {
    let out = std::process::Command::new(python())
        .arg(root().join("hil/tests/py/read_tlog.py"))
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "read_tlog.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Reads a `.tlog` with our reader and decoder: message name → count.
pub fn our_read_tlog(path: &Path) -> std::collections::BTreeMap<String, u64> {
    use alpha3_hil::dialect::Message;
    let entries = alpha3_hil::tlog::read_tlog(std::fs::File::open(path).unwrap()).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    let mut decoder = alpha3_hil::wire::Decoder::new();
    for e in &entries {
        decoder.push(&e.frame);
        let m = decoder.next(0).unwrap().unwrap();
        *counts
            .entry(m.message.message_name().to_string())
            .or_insert(0u64) += 1;
    }
    counts
}

/// Reads `fly`'s stderr as it comes: signals each line that satisfies `ready`, and returns
/// the whole text at the end.
pub fn read_stderr(
    child: &mut std::process::Child,
    ready: impl Fn(&str) -> bool + Send + 'static,
) -> (
    std::sync::mpsc::Receiver<()>,
    std::thread::JoinHandle<String>,
) {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if ready(&line) {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    (rx, reader)
}

/// The events of a record, in order.
pub fn events(path: &Path) -> Vec<alpha3_core::record::Event> {
    alpha3::recorder::read_record(path)
        .unwrap()
        .lines
        .into_iter()
        .map(|l| l.event)
        .collect()
}

/// `alpha3 sim-vehicle` on instance `n` (its companion link sends to 127.0.0.1:14540 + n) with
/// `extra` arguments (a speed factor, an autopilot, faults).
pub fn sim_vehicle_as(scenario: &Path, n: u16, extra: &[&str]) -> std::process::Child {
    alpha3()
        .args(["sim-vehicle", "--scenario"])
        .arg(scenario)
        .args(["--instance", &n.to_string()])
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The mission's anchor, as the record's header names it (`vehicle_link.anchor`).
pub fn anchor_of(events: &[alpha3_core::record::Event]) -> Value {
    let Some(alpha3_core::record::Event::Header { config, .. }) = events.first() else {
        panic!("no header")
    };
    config["vehicle_link"]["anchor"].clone()
}

/// A point of the header's JSON as a [`alpha3_core::frames::Geo`].
pub fn geo(v: &Value) -> alpha3_core::frames::Geo {
    serde_json::from_value(v.clone()).unwrap()
}

/// How the record ended: the termination's reason and success.
pub fn ended(events: &[alpha3_core::record::Event]) -> (String, bool) {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            alpha3_core::record::Event::Termination {
                reason, success, ..
            } => Some((reason.clone(), *success)),
            _ => None,
        })
        .expect("the record ends")
}
