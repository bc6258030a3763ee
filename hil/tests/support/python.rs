//! Runs the pymavlink peer (tests/py/peer.py) and reads its JSON summary.

use super::{python, script};
use serde_json::Value;
use std::process::Stdio;
use tokio::process::{Child, Command};

/// Starts `peer.py` toward our udpin `port`.
pub fn spawn_peer(port: u16, seconds: f64, key: Option<&str>) -> Child {
    let mut cmd = Command::new(python());
    cmd.arg(script("peer.py"))
        .args([
            "--port",
            &port.to_string(),
            "--seconds",
            &seconds.to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(k) = key {
        cmd.args(["--key", k]);
    }
    cmd.spawn().expect("the project's Python runs")
}

/// Waits for the peer and parses what it printed.
pub async fn summary(child: Child) -> Value {
    let out = child.wait_with_output().await.unwrap();
    assert!(
        out.status.success(),
        "peer.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
