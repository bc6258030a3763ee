//! A real Slurm: a one-node cluster (`scripts/slurm/cluster.sh`, Debian's slurm-wlm and munge)
//! runs `scripts/slurm/submit.sh`'s array job of 4 shards and the merge that waits for it; the
//! merged leaderboard and every record equal a single-process run of the same suite. The
//! daemons are stopped at the end, pass or fail.

#![allow(clippy::unwrap_used)]

mod bench_support;

use alpha3_test_support::require_or_skip;
use bench_support::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The cluster's daemons, stopped on drop.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(dir: &Path) -> Self {
        let o = Command::new(root().join("scripts/slurm/cluster.sh"))
            .args(["start", dir.to_str().unwrap()])
            .env("SLURMCTLD_PORT", free_port().to_string())
            .env("SLURMD_PORT", free_port().to_string())
            .output()
            .unwrap();
        let cluster = Self {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
        };
        assert!(
            o.status.success(),
            "cluster.sh start: {}\n{}",
            String::from_utf8_lossy(&o.stderr),
            cluster.logs()
        );
        cluster
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn logs(&self) -> String {
        ["slurmctld.log", "slurmd.log"]
            .iter()
            .map(|f| {
                let text = std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(15).collect();
                format!(
                    "--- {f}\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `(JobState, ExitCode)` of a job from `scontrol show job`.
    fn job_state(&self, id: &str) -> Option<(String, String)> {
        let o = self
            .command("scontrol")
            .args(["show", "job", "-o", id])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let field = |name: &str| {
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .map(str::to_string)
        };
        Some((field("JobState=")?, field("ExitCode=")?))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/slurm/cluster.sh"))
            .args(["stop", self.dir.to_str().unwrap_or_default()])
            .status();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
        || Path::new("/usr/sbin").join(tool).is_file()
}

#[test]
fn an_array_job_on_a_real_slurm_equals_one_process() {
    let missing: Vec<&str> = ["slurmctld", "slurmd", "sbatch", "munged", "mungekey"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    if !missing.is_empty() {
        require_or_skip(
            "Slurm",
            &format!("{missing:?} not found; scripts/setup.sh installs slurm-wlm and munge"),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(&dir.path().join("cluster"));
    let suite = write_suite(dir.path(), 6, &[1, 2], 1);
    let shared = dir.path().join("shared");

    let o = cluster
        .command(root().join("scripts/slurm/submit.sh").to_str().unwrap())
        .args([suite.to_str().unwrap(), shared.to_str().unwrap(), "4"])
        .env("ALPHA3_BIN", env!("CARGO_BIN_EXE_alpha3"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "submit.sh: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ids = String::from_utf8_lossy(&o.stdout).to_string();
    let [array, merge] = ids.split_whitespace().collect::<Vec<_>>()[..] else {
        panic!("submit.sh printed {ids:?}");
    };

    // Waits for the merge to end (a generous bound, so a broken cluster fails the test rather
    // than hanging it; not a speed target).
    let started = Instant::now();
    let (state, exit) = loop {
        match cluster.job_state(merge) {
            // COMPLETING: the job's processes have ended, Slurm is still cleaning up.
            Some((s, e))
                if !matches!(
                    s.as_str(),
                    "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING"
                ) =>
            {
                break (s, e);
            }
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(900),
            "merge job {merge} did not end; array {array}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let log = |pattern: &str| -> String {
        std::fs::read_dir(shared.join("slurm"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(pattern))
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    assert_eq!(
        (state.as_str(), exit.as_str()),
        ("COMPLETED", "0:0"),
        "merge job:\n{}\nbench tasks:\n{}",
        log("merge-"),
        log("bench-")
    );
    for i in 0..4 {
        let shard = shared.join(format!("shards/{i}-of-4"));
        assert!(
            !record_names(&shard).is_empty(),
            "task {i} ran its own shard"
        );
        assert!(log("bench-").contains(&format!("shard {i}/4 from the scheduler")));
    }

    let whole = dir.path().join("whole");
    run_suite(&suite, &whole, &[]);
    assert_eq!(record_names(&shared), record_names(&whole));
    for name in record_names(&whole) {
        assert_eq!(
            read(&shared.join("records").join(&name)),
            read(&whole.join("records").join(&name)),
            "{name}"
        );
    }
    for f in ["leaderboard.csv", "leaderboard.json", "leaderboard.md"] {
        assert_eq!(read(&shared.join(f)), read(&whole.join(f)), "{f}");
    }
}
