//! llama-cpp-python's OpenAI-compatible server from the project venv, on the test model and a
//! free loopback port: the outside peer of the remote backend's tests.

use crate::paths::python_path;
use crate::skip::require_or_skip;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server; killed (and reaped) when dropped, whatever the test's outcome.
#[derive(Debug)]
pub struct LlamaServer {
    child: Child,
    pub port: u16,
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
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", py.display()));
        let mut server = Self { child, port };
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until {
            if get(port, "/v1/models").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
                return Some(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("the server exited early: {status}");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("the server did not answer on port {port} within 120 s");
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
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
