//! One self-contained HTML page from a [`Timeline`]: the template, the vendored uPlot (MIT,
//! `runtime/assets/uplot/`), the views' scripts and styles and the episode as embedded JSON.
//! Nothing is loaded from the network.

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

/// The page for `timeline`.
pub fn render(timeline: &Timeline) -> String {
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

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON that cannot close its `<script>` element: `<` is written as `\u003c` (still the same
/// JSON string).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

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
