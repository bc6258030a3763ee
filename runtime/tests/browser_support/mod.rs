//! Pages opened as a person opens them: headless Chromium (Debian's `chromium`, installed by
//! scripts/setup.sh), its DOM after the scripts ran, and screenshots kept under
//! `target/tmp/review_browser/`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use alpha3_test_support::require_or_skip;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How much virtual time Chromium gives the page's scripts, ms.
const VIRTUAL_TIME_MS: &str = "10000";

/// `$CHROMIUM`, else `chromium` on the PATH; `None` after [`require_or_skip`].
pub fn chromium() -> Option<PathBuf> {
    let bin = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("chromium"));
    let works = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(bin);
    }
    require_or_skip(
        "chromium",
        "run scripts/setup.sh (installs Debian's chromium), or set CHROMIUM",
    );
    None
}

/// Where screenshots are kept after the test.
pub fn shots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("review_browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn headless(chromium: &Path) -> Command {
    let mut c = Command::new(chromium);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        &format!("--virtual-time-budget={VIRTUAL_TIME_MS}"),
    ]);
    c
}

fn url(page: &Path) -> String {
    format!("file://{}", page.canonicalize().unwrap().display())
}

/// The page's DOM after its scripts ran.
pub fn dump_dom(chromium: &Path, page: &Path) -> String {
    let out = headless(chromium)
        .arg("--dump-dom")
        .arg(url(page))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn screenshot(chromium: &Path, page: &Path, png: &Path) {
    let out = headless(chromium)
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1400,1500")
        .arg(url(page))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::metadata(png).unwrap().len() > 10_000,
        "{}",
        png.display()
    );
}

/// The value of attribute `name` in every element of the DOM text whose opening tag starts
/// with `tag_start` (attributes as Chromium serialises them, double-quoted).
pub fn attrs(dom: &str, tag_start: &str, name: &str) -> Vec<String> {
    dom.match_indices(tag_start)
        .filter_map(|(i, _)| {
            let tag = &dom[i..i + dom[i..].find('>')?];
            let key = format!(" {name}=\"");
            let at = tag.find(&key)? + key.len();
            Some(tag[at..at + tag[at..].find('"')?].to_string())
        })
        .collect()
}
