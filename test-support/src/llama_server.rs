//! llama-cpp-python's OpenAI-compatible server from the project venv, on the test model and a
//! free loopback port: the outside peer of the remote backend's tests.

use crate::paths::python_path;
use crate::skip::require_or_skip;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running server; killed (and reaped) when dropped, whatever the test's outcome.
#[derive(Debug)]
pub struct LlamaServer {
    child: Child,
    pub port: u16,
    /// The server's standard error, for the last words of a server that died.
    stderr: tempfile_path::TempLog,
}

/// A file in the system's temporary folder, removed when dropped.
mod tempfile_path {
    use std::path::PathBuf;

    #[derive(Debug)]
    pub struct TempLog(pub PathBuf);

    impl Drop for TempLog {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

impl LlamaServer {
    /// Starts a server on `model`, serving it as `gemma3-270m`, and waits until it answers;
    /// its access log (one line per request) goes to `log` when given. `None` (after
    /// [`require_or_skip`]) when llama-cpp-python is not installed.
    ///
    /// # Panics
    /// When the server exits early or does not answer within two minutes.
    pub fn start(model: &Path, log: Option<&Path>) -> Option<Self> {
        let py = python_path();
        let probe = Command::new(&py)
            .args(["-c", "import llama_cpp.server"])
            .output();
        if !probe.is_ok_and(|o| o.status.success()) {
            require_or_skip(
                "llama-cpp-python's server",
                &format!("not installed for {} (run scripts/setup.sh)", py.display()),
            );
            return None;
        }
        let port = free_port();
        let stdout = match log {
            Some(path) => Stdio::from(
                File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            ),
            None => Stdio::null(),
        };
        let stderr_path: PathBuf = std::env::temp_dir().join(format!(
            "alpha3-llama-server-{}-{port}.err",
            std::process::id()
        ));
        let stderr =
            File::create(&stderr_path).unwrap_or_else(|e| panic!("{}: {e}", stderr_path.display()));
        let child = Command::new(&py)
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--model")
            .arg(model)
            .args(["--model_alias", "gemma3-270m", "--chat_format", "gemma"])
            .args(["--n_ctx", "4096", "--n_threads", "2", "--seed", "42"])
            .args(["--verbose", "false"])
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", py.display()));
        let mut server = Self {
            child,
            port,
            stderr: tempfile_path::TempLog(stderr_path),
        };
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until {
            if get(port, "/v1/models").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
                // One token first: a server built with kernels this CPU runs wrongly dies in its
                // first decode, and the test should say so, not "connection refused".
                let _ = post(port, "/v1/completions", r#"{"prompt":"Hi","max_tokens":1}"#);
                server.assert_alive();
                return Some(server);
            }
            if let Some(death) = server.death() {
                panic!("the server exited before it answered: {death}");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("the server did not answer on port {port} within 120 s");
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// How the server died, when it has: "crashed (signal 11, SIGSEGV)" or "exited with
    /// status 1", with the tail of its standard error. `None` while it runs.
    pub fn death(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        let tail = std::fs::read_to_string(&self.stderr.0).unwrap_or_default();
        let tail: Vec<&str> = tail.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Some(format!("{}; its last words: {:?}", describe(status), tail))
    }

    /// Panics with [`Self::death`] when the server is no longer running: a test whose peer
    /// died reports the crash, not the refused connections that follow it.
    ///
    /// # Panics
    /// When the server has died.
    pub fn assert_alive(&mut self) {
        if let Some(death) = self.death() {
            panic!("the llama-cpp-python server {death}");
        }
    }

    /// The operating system's id of the server's process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the server now (a server lost mid-run).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An exit status in words: a signal is a crash, named.
pub fn describe(status: ExitStatus) -> String {
    match status.signal() {
        Some(sig) => {
            let name = match sig {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                15 => "SIGTERM",
                _ => "a signal",
            };
            format!("crashed (signal {sig}, {name})")
        }
        None => format!("exited with {status}"),
    }
}

/// A plain HTTP POST of a JSON body on loopback; `None` when nothing answers.
pub fn post(port: u16, path: &str, body: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

/// A plain HTTP GET on loopback; `None` when nothing answers.
pub fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}
