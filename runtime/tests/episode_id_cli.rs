//! `--episode-id` of `alpha3 fly` and `alpha3 mcp` names the record and the telemetry log inside
//! `--out`: an id that is not a plain file name (`../../x`, an absolute path, one with a slash)
//! is a usage error (exit 2) before anything is opened, and nothing is written anywhere.
//! (A NUL cannot reach a command line; the parser's unit test refuses it.)

#![allow(clippy::unwrap_used)]

use alpha3_test_support::root;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn free_udp_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    s.local_addr().unwrap().port()
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p);
            }
        }
    }
    found
}

/// Runs `alpha3 COMMAND … --out OUT --episode-id ID` (killed after a minute) and gives its exit
/// code and stderr.
fn run(command: &str, out: &Path, id: &str) -> (Option<i32>, String) {
    let root = root();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_alpha3"));
    cmd.arg(command)
        .arg("--config")
        .arg(root.join("configs/alpha3.toml"))
        .arg("--scenario")
        .arg(root.join("configs/scenarios/sc-0000.json"))
        .arg("--out")
        .arg(out)
        .args(["--episode-id", id]);
    if command == "fly" {
        // Nothing listens there: the old code opened its log and waited for a vehicle.
        let connect = format!("udpin:127.0.0.1:{}", free_udp_port());
        cmd.args([
            "--connect",
            &connect,
            "--no-stdin",
            "--ready-timeout-s",
            "2",
        ]);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn an_episode_id_that_is_not_a_plain_file_name_is_refused_before_anything_is_written() {
    for command in ["fly", "mcp"] {
        let dir = tempfile::tempdir().unwrap();
        // Deep enough that `../../x` from `out/records` still lands inside the temp folder.
        let out = dir.path().join("a/b/out");
        let absolute = dir.path().join("abs").display().to_string();
        for id in ["../../x", absolute.as_str(), "sub/ep"] {
            let (code, err) = run(command, &out, id);
            let written = files_under(dir.path());
            assert!(
                written.is_empty(),
                "alpha3 {command} --episode-id {id} wrote {written:?}\n{err}"
            );
            assert_eq!(code, Some(2), "alpha3 {command} --episode-id {id}: {err}");
            assert!(
                err.contains("--episode-id") && err.contains("only ASCII letters"),
                "{err}"
            );
        }
    }
}
