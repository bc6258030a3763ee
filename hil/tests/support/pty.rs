//! A fresh serial pty pair per test, made by `socat` (unread bytes must not carry over).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Two linked ptys at `a` and `b` (symlinks that survive a restart).
#[derive(Debug)]
pub struct PtyPair {
    child: Option<Child>,
    dir: PathBuf,
    pub a: PathBuf,
    pub b: PathBuf,
}

impl PtyPair {
    pub fn new() -> Self {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("alpha3-hil-pty-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut pair = Self {
            child: None,
            a: dir.join("a"),
            b: dir.join("b"),
            dir,
        };
        pair.spawn();
        pair
    }

    fn spawn(&mut self) {
        let _ = std::fs::remove_file(&self.a);
        let _ = std::fs::remove_file(&self.b);
        let end = |p: &PathBuf| format!("pty,raw,echo=0,link={}", p.display());
        let child = Command::new("socat")
            .arg(end(&self.a))
            .arg(end(&self.b))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat is installed by scripts/setup.sh");
        self.child = Some(child);
        let start = Instant::now();
        while !(self.a.exists() && self.b.exists()) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "socat made no ptys"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The cable is pulled (both ends vanish).
    pub fn unplug(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A new cable: new ptys behind the same paths.
    pub fn plug(&mut self) {
        self.unplug();
        self.spawn();
    }

    pub fn serial_a(&self) -> String {
        format!("serial:{}:921600", self.a.display())
    }

    pub fn serial_b(&self) -> String {
        format!("serial:{}:921600", self.b.display())
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        self.unplug();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
