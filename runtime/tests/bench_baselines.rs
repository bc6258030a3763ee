//! Issue 32: a bench suite with `baselines = true` flies the hover and random baselines on the
//! same scenarios and seeds, and every leaderboard form marks them, counts the agents' claims
//! against the truth and gives pass^k with its interval for each k up to the seeds flown. Run
//! through the binary, as a user runs it; `alpha3 score --compare` lists pass^k too.

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::{read, record_names, run_suite, write_suite};
use serde_json::Value;

#[test]
fn a_suite_with_baselines_reports_them_with_claims_and_pass_k() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 2, &[1, 2, 3, 4], 2);
    let text = read(&suite) + "baselines = true\n";
    std::fs::write(&suite, text).unwrap();
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);

    // 2 scenarios × 4 seeds × (scripted, hover, random).
    let records = record_names(&out);
    assert_eq!(records.len(), 24, "{records:?}");
    for policy in ["scripted", "hover", "random"] {
        let n = records
            .iter()
            .filter(|r| r.starts_with(&format!("{policy}__")))
            .count();
        assert_eq!(n, 8, "{policy}: {records:?}");
    }

    let board: Value = serde_json::from_str(&read(&out.join("leaderboard.json"))).unwrap();
    let runs = board["runs"].as_array().unwrap();
    let run = |name: &str| {
        runs.iter()
            .find(|r| r["model"] == name)
            .unwrap_or_else(|| panic!("no run {name} in {runs:?}"))
    };
    assert_eq!(run("scripted")["baseline"], false);
    for name in ["hover", "random"] {
        let r = run(name);
        assert_eq!(r["baseline"], true, "{name}");
        assert_eq!(r["n"], 8, "{name}");
    }
    // The hover baseline flies no waypoint: it completes no mission; the scripted agent does.
    assert_eq!(run("hover")["success_rate"], 0.0);
    assert!(run("scripted")["success_rate"].as_f64().unwrap() > 0.5);
    assert!(
        run("scripted")["alpha3_macro"].as_f64().unwrap()
            > run("hover")["alpha3_macro"].as_f64().unwrap()
    );
    for r in runs {
        let pass = r["pass_k"].as_object().unwrap();
        let ci = r["pass_k_ci95"].as_object().unwrap();
        assert_eq!(pass.len(), 4, "k = 1 … 4 with four seeds: {r}");
        for (k, p) in pass {
            let p = p.as_f64().unwrap();
            let lo = ci[k][0].as_f64().unwrap();
            let hi = ci[k][1].as_f64().unwrap();
            assert!(
                lo <= p && p <= hi && (0.0..=1.0).contains(&lo) && hi <= 1.0,
                "{r}"
            );
        }
        // pass^k never rises with k.
        let v: Vec<f64> = (1..=4)
            .map(|k| pass[&k.to_string()].as_f64().unwrap())
            .collect();
        assert!(v.windows(2).all(|w| w[1] <= w[0] + 1e-12), "{v:?}");
        // The scripted agent states an outcome only when it aborts ("abort_and_land"), the
        // baselines never: no claim is wrong, and a baseline's are all silent.
        let claims = &r["claims"];
        assert_eq!(claims["overclaims"], 0, "{r}");
        assert_eq!(claims["underclaims"], 0, "{r}");
        if r["baseline"] == true {
            assert_eq!(claims["silent"], r["n"], "{r}");
        }
    }

    let md = read(&out.join("leaderboard.md"));
    assert!(
        md.contains("hover (baseline)") && md.contains("random (baseline)"),
        "{md}"
    );
    assert!(md.contains("pass^k") && md.contains("claims agree"), "{md}");
    let html = read(&out.join("report.html"));
    assert!(
        html.contains("hover (baseline)") && html.contains("Wilson"),
        "report.html"
    );

    // `score --compare` lists pass^k and the claims' share next to the published columns.
    let published =
        bench_support::root().join("../shared/data/alphabench/reports/leaderboard_uav.csv");
    if published.exists() {
        let o = bench_support::alpha3()
            .arg("score")
            .arg(out.join("records"))
            .arg("--compare")
            .arg(&published)
            .arg("--out")
            .arg(dir.path().join("scored"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("pass^4") && stdout.contains("claim_agreement"),
            "{stdout}"
        );
    }
}
