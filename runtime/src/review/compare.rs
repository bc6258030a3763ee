//! A comparison page: two episodes (two policies on one scenario × seed, say) side by side, each
//! its full review page in a frame of the one file, moved together by one time slider. Still
//! self-contained: each frame's page is inlined (`srcdoc`).

use super::bound::MAX_PAGE_BYTES;
use super::page;
use super::timeline::Timeline;

const SCRIPT: &str = include_str!("assets/compare.js");

/// The page comparing `a` and `b`.
pub fn render(a: &Timeline, b: &Timeline) -> String {
    let end = a.meta.end_s.max(b.meta.end_s);
    let title = format!(
        "alpha3 compare · {} · seed {} · {} vs {}",
        a.meta.scenario, a.meta.seed, a.meta.policy, b.meta.policy
    );
    let frame = |t: &Timeline, side: &str| {
        format!(
            "<section><h2>{}</h2><iframe id=\"frame-{side}\" title=\"{}\" srcdoc=\"{}\"></iframe></section>",
            escape(&format!(
                "{} — {}{}",
                t.meta.policy,
                t.meta.termination.as_deref().unwrap_or("no termination"),
                t.alpha3
                    .map_or_else(String::new, |x| format!(", α3 {x:.3}"))
            )),
            escape(&super::bound::clip(&t.meta.episode_id)),
            framed(t)
        )
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-errors=\"\" data-rendered=\"0\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>\nbody {{ font: 13px system-ui, sans-serif; margin: 0; }}\nheader {{ padding: 8px 16px; background: #1c2430; color: #fff; }}\nh1 {{ font-size: 17px; margin: 0; }}\n#scrub {{ position: sticky; top: 0; background: #fff; padding: 6px 16px; display: flex; gap: 12px; border-bottom: 1px solid #ccc; z-index: 2; }}\n#slider {{ flex: 1; }}\nmain {{ display: grid; grid-template-columns: 1fr 1fr; gap: 8px; padding: 8px; }}\nh2 {{ font-size: 14px; margin: 4px 0; }}\niframe {{ width: 100%; height: 1900px; border: 1px solid #ccc; }}\n</style>\n</head>\n<body>\n<header><h1>{t}</h1></header>\n<div id=\"scrub\"><input id=\"slider\" type=\"range\" min=\"0\" max=\"{end}\" step=\"0.1\" value=\"{end}\" aria-label=\"time\"><span id=\"clock\">t = {end:.1} s</span></div>\n<main>\n{fa}\n{fb}\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        t = escape(&title),
        fa = frame(a, "a"),
        fb = frame(b, "b"),
    )
}

/// `t`'s page escaped for `srcdoc`, in half the page bound (escaping can grow a page several
/// times over: each side is shortened until it fits).
fn framed(t: &Timeline) -> String {
    let room = MAX_PAGE_BYTES / 2 - 4_000;
    let mut limit = room;
    loop {
        let escaped = escape(&page::render_within(t, limit));
        if escaped.len() <= room || limit < 1_000 {
            return escaped;
        }
        let shrink = room as f64 / escaped.len() as f64 * 0.9;
        limit = (limit as f64 * shrink) as usize;
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
