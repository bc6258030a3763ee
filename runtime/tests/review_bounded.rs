//! A review page stays bounded whatever the record holds (issue 30, item 11): each text on the
//! page is cut with a visible marker (`… [truncated: N bytes, full text in the record]`) and
//! the whole page stays under `review::bound::MAX_PAGE_BYTES`, while the record keeps
//! everything. A real record (`alpha3 bench`, the scripted agent) is given a 50 MB operator
//! text — and, in a second one, 30,000 operator lines of 2,000 bytes — as a record file the
//! way the recorder writes it; `alpha3 review` (one page, and two side by side) draws it.
#![allow(clippy::unwrap_used)]

use alpha3::review::bound::MAX_PAGE_BYTES;
use alpha3_test_support::root;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The `alpha3` binary under test; `ALPHA3_BIN` runs another build (an older one, to show that
/// this test fails without its fix).
fn alpha3() -> std::process::Command {
    std::process::Command::new(
        std::env::var_os("ALPHA3_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_alpha3").into()),
    )
}

const FIFTY_MB: usize = 50 * 1024 * 1024;

/// One scripted episode of sc-0000 (seed 1) flown by `alpha3 bench`: its record's lines.
fn flown_record(dir: &Path) -> Vec<Value> {
    let root = root().canonicalize().unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[bench]\nname = \"bounded\"\nscenarios = [\"{root}/configs/scenarios/sc-0000.json\"]\nseeds = [1]\npolicies = [\"{root}/configs/policies/scripted.toml\"]\nconcurrency = 1\nmin_turns = 6\nmax_turns = 6\nmax_tokens = 100000\nmax_tool_actions = 25\nbase_config = \"{root}/configs/alpha3.toml\"\n",
            root = root.display()
        ),
    )
    .unwrap();
    let out = dir.join("flown");
    let o = alpha3()
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let record = out.join("records/scripted__sc-0000__s1.jsonl");
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes `lines` as a record (sequence numbers in order, as the recorder writes them).
fn write_record(path: &Path, mut lines: Vec<Value>) {
    let mut text = String::new();
    for (seq, line) in lines.iter_mut().enumerate() {
        line["seq"] = json!(seq);
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn first_operator_turn(lines: &[Value]) -> usize {
    lines
        .iter()
        .position(|l| l["event"] == "operator_turn")
        .expect("the episode has an operator turn")
}

/// `alpha3 review` of `records` into `out`; the pages it wrote (beside them it also writes
/// each record's flown path as a `.plan`).
fn review(records: &[&Path], out: &Path, extra: &[&str]) -> Vec<PathBuf> {
    let o = alpha3()
        .arg("review")
        .args(records)
        .arg("--out")
        .arg(out)
        .arg("--scenarios")
        .arg(root().join("configs/scenarios"))
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect()
}

#[test]
fn a_50_mb_operator_text_gives_a_bounded_page_with_the_marker() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = flown_record(dir.path());
    let at = first_operator_turn(&lines);
    let text = "ground: hold there. ".repeat(FIFTY_MB / 20);
    lines[at]["text"] = json!(text);
    let record = dir.path().join("huge.jsonl");
    write_record(&record, lines);
    let record_bytes = std::fs::metadata(&record).unwrap().len();
    let pages = review(&[&record], &dir.path().join("review"), &[]);
    let page = std::fs::read_to_string(&pages[0]).unwrap();
    eprintln!(
        "record {record_bytes} bytes, page {} bytes (bound {MAX_PAGE_BYTES})",
        page.len()
    );
    assert!(
        page.len() <= MAX_PAGE_BYTES,
        "the page is {} bytes",
        page.len()
    );
    let marker = regex_free_marker(&page).expect("the cut text is marked");
    assert!(
        marker > FIFTY_MB - 3_000,
        "the marker counts the bytes left out: {marker}"
    );
    assert!(page.contains("ground: hold there. ground: hold there."));
    // The record keeps everything.
    assert_eq!(std::fs::metadata(&record).unwrap().len(), record_bytes);
    assert!(record_bytes > FIFTY_MB as u64);
}

/// N of the first `[truncated: N bytes, full text in the record]` on the page.
fn regex_free_marker(page: &str) -> Option<usize> {
    let start = page.find("… [truncated: ")? + "… [truncated: ".len();
    let rest = &page[start..];
    let end = rest.find(" bytes, full text in the record]")?;
    rest[..end].parse().ok()
}

#[test]
fn a_record_of_endless_operator_lines_gives_a_bounded_page_and_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = flown_record(dir.path());
    let at = first_operator_turn(&lines);
    let turn = lines[at].clone();
    let extra: Vec<Value> = (0..30_000)
        .map(|i| {
            let mut l = turn.clone();
            l["text"] = json!(format!("{i:05} ").repeat(333));
            l
        })
        .collect();
    lines.splice(at + 1..at + 1, extra);
    let record = dir.path().join("endless.jsonl");
    write_record(&record, lines);
    let record_bytes = std::fs::metadata(&record).unwrap().len();
    let one = review(&[&record], &dir.path().join("one"), &[]);
    let page = std::fs::read_to_string(&one[0]).unwrap();
    eprintln!(
        "record {record_bytes} bytes, page {} bytes (bound {MAX_PAGE_BYTES})",
        page.len()
    );
    assert!(record_bytes > 60_000_000);
    assert!(page.len() <= MAX_PAGE_BYTES, "{} bytes", page.len());
    assert!(page.contains("rows not shown, full text in the record]"));
    assert!(page.contains("page kept under"));
    let both = review(
        &[&record, &record],
        &dir.path().join("both"),
        &["--compare"],
    );
    let compared = std::fs::metadata(&both[0]).unwrap().len();
    eprintln!("comparison page {compared} bytes");
    assert!(compared as usize <= MAX_PAGE_BYTES, "{compared} bytes");
}
