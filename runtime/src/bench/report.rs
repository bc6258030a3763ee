//! `report.html`: the leaderboard, the safety counts, how every scenario ended for every policy,
//! and five plots (α3 macro per policy, pillar means, α3/s against α3/1k tokens, safety counts,
//! per-scenario outcomes) as SVG files in `plots/` next to it, and a grid of every episode
//! (scenario × policy, one link per seed to its review page in `episodes/`). No script, no
//! network asset: the page opens from disk anywhere.

use super::episode_pages;
use super::plot;
use super::plot::escape;
use super::results::EpisodeResult;
use crate::score::Leaderboard;
use crate::score::{PASS_K_SHOWN, pass_k_cell};
use alpha3_core::score::NAMES;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The plot files, relative to the report.
pub const PLOTS: [(&str, &str); 5] = [
    ("plots/alpha3_macro.svg", "α3 macro per policy"),
    ("plots/pillars.svg", "Pillar means per policy"),
    (
        "plots/efficiency.svg",
        "α3 per second against α3 per 1k tokens",
    ),
    ("plots/safety.svg", "Safety counts per policy"),
    ("plots/scenarios.svg", "Per-scenario outcomes"),
];

/// Writes `report.html` and its plots into `dir`, linking the review pages in `pages`.
pub fn write(
    dir: &Path,
    title: &str,
    board: &Leaderboard,
    results: &[EpisodeResult],
    pages: &episode_pages::Pages,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("plots"))?;
    let svgs = plots(board, results);
    for ((file, _), svg) in PLOTS.iter().zip(&svgs) {
        std::fs::write(dir.join(file), svg)?;
    }
    std::fs::write(dir.join("report.html"), html(title, board, results, pages))
}

fn policies(board: &Leaderboard) -> Vec<String> {
    board.runs.iter().map(|r| r.model.clone()).collect()
}

/// Per policy, per scenario: (missions completed, episodes, termination reasons).
type Outcomes = BTreeMap<(String, String), (usize, usize, BTreeMap<String, usize>)>;

fn outcomes(results: &[EpisodeResult]) -> (Vec<String>, Outcomes) {
    let mut scenarios: Vec<String> = results.iter().map(|r| r.scenario.clone()).collect();
    scenarios.sort();
    scenarios.dedup();
    let mut map: Outcomes = BTreeMap::new();
    for r in results {
        let e = map
            .entry((r.policy.clone(), r.scenario.clone()))
            .or_default();
        e.0 += usize::from(r.eval.success);
        e.1 += 1;
        let reason = r.reason.clone().unwrap_or_else(|| "unfinished".into());
        *e.2.entry(reason).or_default() += 1;
    }
    (scenarios, map)
}

fn plots(board: &Leaderboard, results: &[EpisodeResult]) -> Vec<String> {
    let names = policies(board);
    let macros: Vec<f64> = board.runs.iter().map(|r| r.summary.alpha3_macro).collect();
    let macro_svg = plot::horizontal_bars("α3 macro per policy", &names, &macros, Some(1.0));
    let pillar_names: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = board
        .runs
        .iter()
        .map(|r| (r.model.clone(), r.summary.pillars.values().to_vec()))
        .collect();
    let pillars_svg = plot::grouped_bars(
        "Pillar means (valid episodes)",
        &pillar_names,
        &series,
        Some(1.0),
    );
    let points: Vec<(String, f64, f64)> = board
        .runs
        .iter()
        .filter_map(|r| {
            Some((
                r.model.clone(),
                r.summary.alpha3_per_1k_tokens?,
                r.summary.alpha3_per_s?,
            ))
        })
        .collect();
    let efficiency_svg = plot::scatter(
        "Efficiency: α3/s against α3/1k tokens",
        "α3 macro per 1k tokens",
        "α3 macro per second of generation",
        &points,
        "no policy here spends generation time or tokens (scripted only)",
    );
    let kinds = [
        "proposed",
        "approved",
        "clamped",
        "denied",
        "truth violations",
    ];
    let mut safety_series: Vec<(String, Vec<f64>)> = Vec::new();
    for r in &board.runs {
        let s = &r.summary.safety;
        let n = r.summary.requested.max(1) as f64;
        safety_series.push((
            r.model.clone(),
            [
                s.proposed,
                s.approved,
                s.clamped,
                s.denied,
                s.truth_violations,
            ]
            .iter()
            .map(|v| *v as f64 / n)
            .collect(),
        ));
    }
    let kind_names: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
    let safety_svg = plot::grouped_bars(
        "Safety counts per episode (gate verdicts, truth violations)",
        &kind_names,
        &safety_series,
        None,
    );
    let (scenarios, map) = outcomes(results);
    let cells: Vec<Vec<(Option<f64>, String)>> = names
        .iter()
        .map(|p| {
            scenarios
                .iter()
                .map(|s| match map.get(&(p.clone(), s.clone())) {
                    Some((ok, n, reasons)) => {
                        let why: Vec<String> =
                            reasons.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
                        (
                            Some(*ok as f64 / (*n).max(1) as f64),
                            format!("{p} · {s}: {ok}/{n} completed ({})", why.join(", ")),
                        )
                    }
                    None => (None, format!("{p} · {s}: not run")),
                })
                .collect()
        })
        .collect();
    let scenarios_svg = plot::heat_map(
        "Missions completed per scenario (share over seeds; green = all)",
        &names,
        &scenarios,
        &cells,
    );
    vec![
        macro_svg,
        pillars_svg,
        efficiency_svg,
        safety_svg,
        scenarios_svg,
    ]
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.digits$}"))
}

fn html(
    title: &str,
    board: &Leaderboard,
    results: &[EpisodeResult],
    pages: &episode_pages::Pages,
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>\nbody {{ font-family: sans-serif; margin: 2em; color: #222; }}\ntable {{ border-collapse: collapse; margin: 1em 0; }}\nth, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}\nth:nth-child(2), td:nth-child(2) {{ text-align: left; }}\nimg {{ max-width: 100%; display: block; margin: 1em 0; }}\ntable.grid td {{ text-align: left; }}\ntable.grid a {{ margin-right: .6em; text-decoration: none; }}\n.ok {{ color: #1a7f37; }} .fail {{ color: #c62828; }}\n</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(title)
    );
    let _ = writeln!(
        h,
        "<p>Metric <code>{}</code>, alpha3 {}; {} episode(s), {} polic{}. Ranked by α3 macro = mean × reliability × coverage × call efficiency.</p>",
        escape(board.metric_version),
        escape(board.alpha3_version),
        results.len(),
        board.runs.len(),
        if board.runs.len() == 1 { "y" } else { "ies" }
    );
    h.push_str("<h2>Leaderboard</h2>\n<table>\n<tr><th>#</th><th>policy</th><th>α3 macro</th><th>mean ± ci95</th><th>n/N</th><th>success</th>");
    for n in NAMES {
        let _ = write!(h, "<th>{n}</th>");
    }
    h.push_str(
        "<th>call eff.</th><th>pass^k, k = 1…</th><th>claims agree</th><th>gen s</th><th>tokens</th><th>α3/s</th><th>α3/1k tok</th></tr>\n",
    );
    for (i, r) in board.runs.iter().enumerate() {
        let m = &r.summary;
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{:.4}</td><td>{:.4} ± {:.4}</td><td>{}/{}</td><td>{:.2}</td>",
            i + 1,
            escape(&r.display_name()),
            m.alpha3_macro,
            m.mean,
            m.ci95,
            m.n,
            m.requested,
            m.success_rate
        );
        for v in m.pillars.values() {
            let _ = write!(h, "<td>{v:.3}</td>");
        }
        let _ = writeln!(
            h,
            "<td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            m.call_efficiency,
            escape(&pass_k_cell(m)),
            escape(&m.claims.summary()),
            opt(m.mean_gen_time_s, 2),
            opt(m.mean_total_tokens, 0),
            opt(m.alpha3_per_s, 4),
            opt(m.alpha3_per_1k_tokens, 4)
        );
    }
    h.push_str("</table>\n");
    let _ = writeln!(
        h,
        "<p>pass^k: all k seeded repeats of a scenario succeed, with its 95 % Wilson interval over the scenarios (k = 1 … {PASS_K_SHOWN}, as many as the seeds flown). Claims agree: the agent's final word on the outcome against the truth, agreeing/claimed (over: said completed, was not; under: the reverse); a policy that states no outcome is silent, not wrong.{}</p>",
        if board.runs.iter().any(|r| r.summary.baseline) {
            " Baselines (hover: take off, hold, land; random: well-formed random turns) fly the same scenarios and seeds: the floor the other rows are read against."
        } else {
            ""
        }
    );
    for (file, caption) in PLOTS {
        let _ = writeln!(
            h,
            "<h2>{c}</h2>\n<img src=\"{f}\" alt=\"{c}\">",
            c = escape(caption),
            f = escape(file)
        );
    }
    h.push_str("<h2>Safety</h2>\n<table>\n<tr><th>#</th><th>policy</th><th>proposed</th><th>approved</th><th>clamped</th><th>denied</th><th>truth violations</th><th>top denials</th></tr>\n");
    for (i, r) in board.runs.iter().enumerate() {
        let s = &r.summary.safety;
        let mut top: Vec<(&String, &u64)> = s.denied_by_finding.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let top: Vec<String> = top
            .iter()
            .take(3)
            .map(|(k, v)| format!("{} ×{v}", escape(k)))
            .collect();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            i + 1,
            escape(&r.model),
            s.proposed,
            s.approved,
            s.clamped,
            s.denied,
            s.truth_violations,
            top.join(", ")
        );
    }
    h.push_str("</table>\n<h2>How episodes ended</h2>\n<table>\n<tr><th>#</th><th>policy</th><th>termination reasons</th></tr>\n");
    for (i, r) in board.runs.iter().enumerate() {
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for e in results.iter().filter(|e| e.policy == r.model) {
            *reasons
                .entry(e.reason.clone().unwrap_or_else(|| "unfinished".into()))
                .or_default() += 1;
        }
        let list: Vec<String> = reasons
            .iter()
            .map(|(k, v)| format!("{} ×{v}", escape(k)))
            .collect();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
            i + 1,
            escape(&r.model),
            list.join(", ")
        );
    }
    h.push_str("</table>\n");
    h.push_str(&episode_grid(board, results, pages));
    let problems: Vec<String> = board
        .runs
        .iter()
        .flat_map(|r| {
            r.problems.iter().map(move |p| {
                format!(
                    "<li>{}: <code>{}</code>: {}</li>",
                    escape(&r.model),
                    escape(&p.file),
                    escape(&p.reason)
                )
            })
        })
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Episodes outside V</h2>\n<ul>\n{}\n</ul>",
            problems.join("\n")
        );
    }
    h.push_str("<p>Files: <a href=\"leaderboard.csv\">leaderboard.csv</a> · <a href=\"leaderboard.json\">leaderboard.json</a> · <a href=\"leaderboard.md\">leaderboard.md</a> · <a href=\"records/\">records/</a></p>\n</body>\n</html>\n");
    h
}

/// Every episode, scenario by policy: one entry per seed (✓ completed, ✗ not), linked to its
/// review page when it has one, with the termination reason on hover; and per seed flown by
/// two or more policies, a link to their comparison.
fn episode_grid(
    board: &Leaderboard,
    results: &[EpisodeResult],
    pages: &episode_pages::Pages,
) -> String {
    let names = policies(board);
    let (scenarios, _) = outcomes(results);
    let mut h = String::from(
        "<h2 id=\"episodes\">Episodes</h2>\n<p>One entry per seed (✓ mission completed, ✗ not); each opens the episode's review page: map, timelines, dialogue and pillars.</p>\n<table class=\"grid\">\n<tr><th>scenario</th>",
    );
    for n in &names {
        let _ = write!(h, "<th>{}</th>", escape(n));
    }
    let comparing = !pages.comparisons.is_empty();
    if comparing {
        h.push_str("<th>compare</th>");
    }
    h.push_str("</tr>\n");
    for s in &scenarios {
        let _ = write!(h, "<tr><td>{}</td>", escape(s));
        for p in &names {
            h.push_str("<td>");
            let mut eps: Vec<&EpisodeResult> = results
                .iter()
                .filter(|r| &r.scenario == s && &r.policy == p)
                .collect();
            eps.sort_by_key(|r| r.seed);
            for r in eps {
                let mark = if r.eval.success { "✓" } else { "✗" };
                let class = if r.eval.success { "ok" } else { "fail" };
                let tip = format!("{}: {}", r.id, r.reason.as_deref().unwrap_or("unfinished"));
                let label = format!("s{} {mark}", r.seed);
                if pages.episodes.contains(&r.id) {
                    let _ = write!(
                        h,
                        "<a class=\"{class}\" href=\"{}\" title=\"{}\">{}</a>",
                        escape(&episode_pages::href(&r.id)),
                        escape(&tip),
                        escape(&label)
                    );
                } else {
                    let _ = write!(
                        h,
                        "<span class=\"{class}\" title=\"{}\">{}</span> ",
                        escape(&tip),
                        escape(&label)
                    );
                }
            }
            h.push_str("</td>");
        }
        if comparing {
            h.push_str("<td>");
            for (_, seed) in pages.comparisons.iter().filter(|(sc, _)| sc == s) {
                let _ = write!(
                    h,
                    "<a href=\"{}\">s{seed} ⇄</a>",
                    escape(&episode_pages::compare_href(s, *seed))
                );
            }
            h.push_str("</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    h
}
