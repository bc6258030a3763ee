//! The llama-cpp-python server the remote-policy tests talk to (issue 30 item 13): on a machine
//! with AMX its native build carried AMX kernels and segfaulted in its first decode, and the
//! tests said only "connection refused". It is built portably by `scripts/setup.sh` (no
//! CPU-specific kernels: no AMX, no AVX-512), and a server that dies is reported as a crash,
//! with its signal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use alpha3_test_support::{LlamaServer, python_path, require_or_skip, root, test_model};
use std::path::PathBuf;
use std::process::Command;

/// The native CPU backend of the venv's llama-cpp-python, when installed.
fn ggml_cpu_library() -> Option<PathBuf> {
    let out = Command::new(python_path())
        .args([
            "-c",
            "import llama_cpp, os; print(os.path.join(os.path.dirname(llama_cpp.__file__), 'lib', 'libggml-cpu.so'))",
        ])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if out.status.success() && path.is_file() {
        Some(path)
    } else {
        require_or_skip(
            "llama-cpp-python",
            &format!(
                "not installed for {} (run scripts/setup.sh)",
                python_path().display()
            ),
        );
        None
    }
}

#[test]
fn the_llama_server_peer_is_built_without_cpu_specific_kernels() {
    let Some(lib) = ggml_cpu_library() else {
        return;
    };
    let bytes = std::fs::read(&lib).unwrap();
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(
        !has(b"ggml_backend_amx"),
        "{} carries AMX kernels: rebuild with scripts/setup.sh",
        lib.display()
    );
    // The instructions themselves: AMX tile loads and AVX-512's zmm registers.
    let dump = Command::new("objdump")
        .arg("-d")
        .arg(&lib)
        .output()
        .unwrap();
    assert!(dump.status.success(), "objdump -d {}", lib.display());
    let text = String::from_utf8_lossy(&dump.stdout);
    let amx = text.matches("tileloadd").count();
    let zmm = text.matches("%zmm").count();
    assert_eq!(
        (amx, zmm),
        (0, 0),
        "{}: AMX tile loads and AVX-512 instructions found",
        lib.display()
    );
    let marker = std::fs::read_to_string(root().join(".venv/.llama-cpp-python-build")).unwrap();
    assert!(marker.contains("-DGGML_NATIVE=OFF"), "{marker}");
}

#[test]
fn a_llama_server_that_dies_is_reported_as_a_crash() {
    let Some(model) = test_model() else {
        return;
    };
    let Some(mut server) = LlamaServer::start(&model, None) else {
        return;
    };
    assert_eq!(server.death(), None);
    // What a decode on the wrong kernels does to it.
    let killed = Command::new("kill")
        .args(["-SEGV", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let death = loop {
        if let Some(d) = server.death() {
            break d;
        }
        assert!(std::time::Instant::now() < until, "the server did not die");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(death.starts_with("crashed (signal 11, SIGSEGV)"), "{death}");
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.assert_alive()))
        .expect_err("a dead server must fail the test");
    let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("crashed"), "{text}");
}
