//! `alpha3 bench` on a small scripted-only suite: every output is written, every record is
//! complete and valid, the report renders (its HTML is balanced and every plot it shows is a
//! non-empty, well-formed SVG), and records export to valid α3-Bench episode files.

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;

const PUBLISHED_HEADER: &str = "model,domain,mean,ci95,n,success_rate,gen_fail_rate,reliability,coverage,alpha3_rel,pillars,mean_gen_time_s,mean_total_tokens,alpha3_per_second,alpha3_per_1k_tokens,total_attempt_calls,mean_attempts_used,call_efficiency";

#[test]
fn a_scripted_suite_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 3, &[1, 2], 2);
    let out = dir.path().join("out");
    let o = run_suite(&suite, &out, &[]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some(out.join("report.html").to_str().unwrap()),
        "the report's path is the last line"
    );
    for f in [
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.md",
        "report.html",
        "manifest.json",
    ] {
        assert!(!read(&out.join(f)).is_empty(), "{f}");
    }
    let csv = read(&out.join("leaderboard.csv"));
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(PUBLISHED_HEADER));
    let row = lines.next().unwrap();
    assert!(row.starts_with("scripted,uav,"), "{row}");
    assert!(csv.contains("scripted,macro,"), "{csv}");
    let board: serde_json::Value =
        serde_json::from_str(&read(&out.join("leaderboard.json"))).unwrap();
    let run = &board["runs"][0];
    assert_eq!(run["requested"], 6);
    assert_eq!(run["episodes"].as_array().unwrap().len(), 6);

    let names = record_names(&out);
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(names.contains(&"scripted__sc-0002__s2.jsonl".to_string()));
    for n in &names {
        let p = out.join("records").join(n);
        assert_eq!(event_count(&p, "header"), 1, "{n}");
        assert_eq!(event_count(&p, "termination"), 1, "{n}");
        assert_eq!(event_count(&p, "score"), 1, "{n}");
        let first = read(&p).lines().next().unwrap().to_string();
        assert!(
            first.contains("\"initial_state\""),
            "{n}: header carries the initial state"
        );
    }
    let v = alpha3()
        .args(["validate", "--quiet"])
        .arg(out.join("records"))
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
}

#[test]
fn the_report_renders() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 2, &[1], 1);
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);
    let html = read(&out.join("report.html"));
    assert!(html.starts_with("<!DOCTYPE html>"));
    check_balanced(&html, true).unwrap_or_else(|e| panic!("report.html: {e}"));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no network assets"
    );
    let images = attribute_values(&html, "img", "src");
    assert_eq!(images.len(), 5, "{images:?}");
    for src in images {
        let path = out.join(&src);
        let svg = read(&path);
        assert!(svg.len() > 200, "{src} is nearly empty");
        assert!(
            svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{src}"
        );
        check_balanced(&svg, false).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(
            svg.contains("<rect") || svg.contains("<circle"),
            "{src} draws something"
        );
    }
    let scenarios = read(&out.join("plots/scenarios.svg"));
    assert!(scenarios.contains("sc-0000") && scenarios.contains("sc-0001"));
}

#[test]
fn records_export_to_valid_episode_files() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 2, &[1], 1);
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);
    let export = dir.path().join("export");
    let o = bench(&[
        "export",
        "--records",
        out.join("records").to_str().unwrap(),
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let files = export.join("alpha3/scripted/uav");
    let mut names: Vec<String> = std::fs::read_dir(&files)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["sc-0000-ep-01.json", "sc-0001-ep-01.json"]);
    let v = alpha3()
        .args(["validate", "--kind", "episode"])
        .arg(&files)
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    let episode: serde_json::Value =
        serde_json::from_str(&read(&files.join("sc-0000-ep-01.json"))).unwrap();
    assert_eq!(episode["dialogue"][0]["speaker"], "agent");
    assert!(episode["initial_state"]["airspace"]["geofence"].is_array());
}

#[test]
fn bad_invocations_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let o = bench(&[
        "--suite",
        "/nonexistent/suite.toml",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/suite.toml"));
    let suite = write_suite(dir.path(), 1, &[1], 1);
    for shard in ["2/2", "x", "1/0"] {
        let o = bench(&[
            "--suite",
            suite.to_str().unwrap(),
            "--out",
            dir.path().join("out").to_str().unwrap(),
            "--shard",
            shard,
        ]);
        assert_eq!(o.status.code(), Some(1), "--shard {shard}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--shard"));
    }
    assert_eq!(bench(&[]).status.code(), Some(2));
}

/// The `attr` values of every `<tag …>` in `html`.
fn attribute_values(html: &str, tag: &str, attr: &str) -> Vec<String> {
    let open = format!("<{tag} ");
    let key = format!("{attr}=\"");
    html.match_indices(&open)
        .filter_map(|(i, _)| {
            let rest = &html[i..];
            let end = rest.find('>')?;
            let inside = &rest[..end];
            let at = inside.find(&key)? + key.len();
            let len = inside[at..].find('"')?;
            Some(inside[at..at + len].to_string())
        })
        .collect()
}

/// Every element closed in order: a stack of open tags; `<!…>`, `<?…?>` and self-closing tags
/// need no close; in HTML the void elements need none either.
fn check_balanced(text: &str, html: bool) -> Result<(), String> {
    const VOID: [&str; 6] = ["meta", "img", "br", "hr", "link", "input"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').ok_or("a tag is never closed with '>'")?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') || tag.starts_with('?') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim();
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            return Err(format!("bad tag <{tag}>"));
        }
        if tag.ends_with('/') || (html && VOID.contains(&name.as_str())) {
            continue;
        }
        stack.push(name);
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("unclosed: {stack:?}"))
    }
}

#[test]
fn the_balance_check_can_fail() {
    assert!(check_balanced("<a><b></a></b>", false).is_err());
    assert!(check_balanced("<a><b/></a>", false).is_ok());
    assert!(check_balanced("<p><img src=\"x\"></p>", true).is_ok());
    assert!(check_balanced("<p>", true).is_err());
}
