//! One self-contained HTML page from a [`Timeline`]: the template, the vendored uPlot (MIT,
//! `runtime/assets/uplot/`), the views' scripts and styles and the episode as embedded JSON.
//! Nothing is loaded from the network. A page stays under [`MAX_PAGE_BYTES`] whatever the
//! record holds ([`super::bound`]).

use super::bound::{MAX_PAGE_BYTES, fit};
use super::timeline::Timeline;

const TEMPLATE: &str = include_str!("assets/page.html");
const CSS: &str = include_str!("assets/page.css");
const UPLOT_JS: &str = include_str!("../../assets/uplot/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../../assets/uplot/uPlot.min.css");
/// The views, in load order: the shared cursor first, the page's start-up last.
const SCRIPTS: [&str; 6] = [
    include_str!("assets/sync.js"),
    include_str!("assets/map.js"),
    include_str!("assets/charts.js"),
    include_str!("assets/dialogue.js"),
    include_str!("assets/pillars.js"),
    include_str!("assets/main.js"),
];

/// The page for `timeline`, under [`MAX_PAGE_BYTES`].
pub fn render(timeline: &Timeline) -> String {
    render_within(timeline, MAX_PAGE_BYTES)
}

/// The page for `timeline` in at most `max_bytes` (when that leaves room for its header): the
/// texts cut and, when it is too large, the timeline shortened ([`fit`]).
pub fn render_within(timeline: &Timeline, max_bytes: usize) -> String {
    let fixed = TEMPLATE.len()
        + CSS.len()
        + UPLOT_CSS.len()
        + UPLOT_JS.len()
        + SCRIPTS.iter().map(|s| s.len() + 1).sum::<usize>();
    let mut budget = max_bytes.saturating_sub(fixed + 1_000);
    loop {
        let mut fitted = timeline.clone();
        fit(&mut fitted, budget);
        let page = assemble(&fitted);
        if page.len() <= max_bytes || budget == 0 {
            return page;
        }
        budget /= 2;
    }
}

fn assemble(timeline: &Timeline) -> String {
    let data = serde_json::to_string(timeline).unwrap_or_else(|_| "null".into());
    let title = format!(
        "alpha3 review · {} · {}",
        timeline.meta.episode_id, timeline.meta.scenario
    );
    // Placeholders are replaced in one pass, so text inside the data cannot be mistaken for one.
    let mut out = String::with_capacity(TEMPLATE.len() + data.len() + UPLOT_JS.len() + 40_000);
    let mut rest = TEMPLATE;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        match &after[..end] {
            "TITLE" => out.push_str(&escape_html(&title)),
            "CSS" => out.push_str(CSS),
            "UPLOT_CSS" => out.push_str(UPLOT_CSS),
            "UPLOT_JS" => out.push_str(UPLOT_JS),
            "JS" => out.push_str(&SCRIPTS.join("\n")),
            "DATA" => out.push_str(&script_safe(&data)),
            other => {
                out.push_str("{{");
                out.push_str(other);
                out.push_str("}}");
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

pub(super) fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON that cannot close its `<script>` element: `<` is written as `\u003c` (still the same
/// JSON string).
pub(super) fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::timeline::Entry;

    #[test]
    fn a_page_stays_under_its_bound_with_every_text_cut() {
        let mut t = crate::review::timeline::build(
            &alpha3_core::record::ParsedRecord {
                lines: Vec::new(),
                torn_tail: false,
            },
            None,
        );
        let row = |i: usize, text: String| Entry {
            t_s: i as f64,
            kind: "operator",
            turn: Some(i as u32),
            action: None,
            text,
            tag: None,
            findings: Vec::new(),
            tokens: None,
            latency_ms: None,
        };
        t.meta.episode_id = "e".repeat(10_000);
        t.dialogue.push(row(0, "<".repeat(5_000_000)));
        t.dialogue
            .extend((1..20_000).map(|i| row(i, format!("line {i} ").repeat(100))));
        for i in 0..200_000 {
            t.truth.t_s.push(i as f64);
            for c in [&mut t.truth.x, &mut t.truth.y, &mut t.truth.z] {
                c.push(i as f64);
            }
            for c in [&mut t.truth.vx, &mut t.truth.vy, &mut t.truth.vz] {
                c.push(1.5);
            }
            t.truth.speed_mps.push(2.0);
            t.truth.battery_pct.push(50.0);
            t.truth.armed.push(true);
            t.truth.airborne.push(true);
            t.truth.flyer.push(0);
        }
        let page = render(&t);
        assert!(page.len() <= MAX_PAGE_BYTES, "{}", page.len());
        assert!(page.contains("[truncated: "), "the cut is marked");
        assert!(page.contains("rows not shown"));
        assert!(page.contains("page kept under"));
        // Half the bound is kept to as well.
        assert!(render_within(&t, MAX_PAGE_BYTES / 2).len() <= MAX_PAGE_BYTES / 2);
    }

    #[test]
    fn embedded_json_cannot_close_the_script_and_still_parses() {
        let json =
            serde_json::to_string(&serde_json::json!({"text": "</script><b>{{JS}}"})).unwrap();
        let safe = script_safe(&json);
        assert!(!safe.contains("</script"));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["text"], "</script><b>{{JS}}");
    }
}
