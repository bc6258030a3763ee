//! Small SVG charts for the report, written by hand so the report needs no plotting library and
//! no network: horizontal bars, grouped vertical bars, a scatter and a heat map. Every chart is
//! a complete standalone SVG document with a title, axes labels and a legend where needed.

use std::fmt::Write as _;

/// Colours for series (colour-blind friendly, Okabe–Ito).
const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
];

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escapes text for XML content and attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document being drawn.
struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// A canvas at least as wide as its title needs.
    fn new(width: f64, height: f64, title: &str) -> Self {
        let width = width.max(text_width(title, TITLE_SIZE) + 2.0 * TITLE_MARGIN);
        let mut s = Self {
            width,
            height,
            body: String::new(),
        };
        s.text(width / 2.0, 22.0, title, "middle", TITLE_SIZE, "bold");
        s
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}">"#,
            w.max(0.0),
            h.max(0.0)
        );
        if let Some(t) = tip {
            let _ = write!(self.body, "<title>{}</title>", escape(t));
        }
        self.body.push_str("</rect>\n");
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="1"/>"#
        );
    }

    fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str, tip: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{fill}"><title>{}</title></circle>"#,
            escape(tip)
        );
    }

    fn text(&mut self, x: f64, y: f64, s: &str, anchor: &str, size: f64, weight: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" font-weight="{weight}">{}</text>"#,
            escape(s)
        );
    }

    fn rotated_text(&mut self, x: f64, y: f64, s: &str, anchor: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="11" transform="rotate(-40 {x:.1} {y:.1})">{}</text>"#,
            escape(s)
        );
    }

    fn legend(&mut self, x: f64, y: f64, names: &[String]) {
        for (i, n) in names.iter().enumerate() {
            let yy = y + i as f64 * 16.0;
            self.rect(x, yy - 10.0, 12.0, 12.0, colour(i), None);
            self.text(x + 17.0, yy, n, "start", 12.0, "normal");
        }
    }

    fn finish(self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n{body}</svg>\n",
            w = self.width,
            h = self.height,
            body = self.body
        )
    }
}

/// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`.
/// Title font size, px.
const TITLE_SIZE: f64 = 15.0;
/// Space kept either side of a title, px.
const TITLE_MARGIN: f64 = 16.0;

/// An upper bound of the width of `s` in sans-serif at `size` px (bold included).
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.62
}

/// Axis tick `v` with as many decimals as the ticks' `step` needs (0.005 → 3, 0.25 → 2,
/// 50 → 0), so neighbouring ticks never read alike.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = (0..=9)
        .find(|d| {
            let scaled = step * 10f64.powi(*d);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .unwrap_or(9) as usize;
    format!("{v:.decimals$}")
}

fn nice_max(max: f64) -> f64 {
    if !max.is_finite() || max <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= max)
        .unwrap_or(10.0 * p)
}

fn label_number(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// One horizontal bar per label, values printed at the bars' ends; `x_max` fixes the scale.
pub fn horizontal_bars(
    title: &str,
    labels: &[String],
    values: &[f64],
    x_max: Option<f64>,
) -> String {
    let left = 200.0;
    let bar_h = 24.0;
    let width = 720.0;
    let height = 60.0 + bar_h * labels.len().max(1) as f64 + 30.0;
    let mut svg = Svg::new(width, height, title);
    let plot_w = width - left - 80.0;
    let max = x_max.unwrap_or_else(|| nice_max(values.iter().copied().fold(0.0, f64::max)));
    let top = 45.0;
    for (i, (l, v)) in labels.iter().zip(values).enumerate() {
        let y = top + i as f64 * bar_h;
        let w = plot_w * (v / max).clamp(0.0, 1.0);
        svg.text(left - 8.0, y + bar_h * 0.65, l, "end", 12.0, "normal");
        svg.rect(
            left,
            y + 3.0,
            w,
            bar_h - 6.0,
            colour(i),
            Some(&format!("{l}: {v:.4}")),
        );
        svg.text(
            left + w + 5.0,
            y + bar_h * 0.65,
            &format!("{v:.4}"),
            "start",
            11.0,
            "normal",
        );
    }
    let axis_y = top + bar_h * labels.len() as f64 + 4.0;
    svg.line(left, top, left, axis_y, "#333");
    svg.line(left, axis_y, left + plot_w, axis_y, "#333");
    for k in 0..=4 {
        let v = max * f64::from(k) / 4.0;
        let x = left + plot_w * f64::from(k) / 4.0;
        svg.line(x, axis_y, x, axis_y + 4.0, "#333");
        svg.text(
            x,
            axis_y + 16.0,
            &tick_label(v, max / 4.0),
            "middle",
            10.0,
            "normal",
        );
    }
    svg.finish()
}

/// Vertical bars grouped by category, one colour per series (with a legend).
pub fn grouped_bars(
    title: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    y_max: Option<f64>,
) -> String {
    let left = 60.0;
    let top = 45.0;
    let plot_h = 240.0;
    let group_w = (40.0 + 18.0 * series.len() as f64).max(60.0);
    let plot_w = group_w * categories.len().max(1) as f64;
    let legend_w = 220.0;
    let width = left + plot_w + legend_w;
    let height = top + plot_h + 90.0;
    let mut svg = Svg::new(width, height, title);
    let all_max = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0.0, f64::max);
    let max = y_max.unwrap_or_else(|| nice_max(all_max));
    let base = top + plot_h;
    for k in 0..=4 {
        let v = max * f64::from(k) / 4.0;
        let y = base - plot_h * f64::from(k) / 4.0;
        svg.line(left - 4.0, y, left + plot_w, y, "#ddd");
        svg.text(
            left - 7.0,
            y + 4.0,
            &tick_label(v, max / 4.0),
            "end",
            10.0,
            "normal",
        );
    }
    let bar_w = (group_w - 20.0) / series.len().max(1) as f64;
    for (ci, cat) in categories.iter().enumerate() {
        let gx = left + ci as f64 * group_w + 10.0;
        for (si, (name, values)) in series.iter().enumerate() {
            let v = values.get(ci).copied().unwrap_or(0.0);
            let h = plot_h * (v / max).clamp(0.0, 1.0);
            let tip = format!("{name} · {cat}: {}", label_number(v));
            let x = gx + si as f64 * bar_w;
            svg.rect(x, base - h, bar_w - 2.0, h, colour(si), Some(&tip));
            if series.len() <= 3 {
                // Small values stay readable next to large ones.
                let _ = writeln!(
                    svg.body,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{}</text>"#,
                    x + (bar_w - 2.0) / 2.0,
                    base - h - 3.0,
                    escape(&label_number(v))
                );
            }
        }
        svg.rotated_text(gx + (group_w - 20.0) / 2.0, base + 16.0, cat, "end");
    }
    svg.line(left, top, left, base, "#333");
    svg.line(left, base, left + plot_w, base, "#333");
    let names: Vec<String> = series.iter().map(|s| s.0.clone()).collect();
    svg.legend(left + plot_w + 20.0, top + 10.0, &names);
    svg.finish()
}

/// Labelled points on linear axes starting at zero; a note replaces the plot when empty.
pub fn scatter(
    title: &str,
    x_label: &str,
    y_label: &str,
    points: &[(String, f64, f64)],
    empty_note: &str,
) -> String {
    let (left, top, plot_w, plot_h) = (70.0, 45.0, 420.0, 280.0);
    let width = left + plot_w + 230.0;
    let height = top + plot_h + 60.0;
    let mut svg = Svg::new(width, height, title);
    let x_max = nice_max(points.iter().map(|p| p.1).fold(0.0, f64::max));
    let y_max = nice_max(points.iter().map(|p| p.2).fold(0.0, f64::max));
    let base = top + plot_h;
    for k in 0..=4 {
        let f = f64::from(k) / 4.0;
        let (x, y) = (left + plot_w * f, base - plot_h * f);
        svg.line(left, y, left + plot_w, y, "#eee");
        svg.line(x, top, x, base, "#eee");
        svg.text(
            left - 7.0,
            y + 4.0,
            &tick_label(y_max * f, y_max / 4.0),
            "end",
            10.0,
            "normal",
        );
        svg.text(
            x,
            base + 15.0,
            &tick_label(x_max * f, x_max / 4.0),
            "middle",
            10.0,
            "normal",
        );
    }
    svg.line(left, top, left, base, "#333");
    svg.line(left, base, left + plot_w, base, "#333");
    svg.text(
        left + plot_w / 2.0,
        base + 38.0,
        x_label,
        "middle",
        12.0,
        "normal",
    );
    let _ = writeln!(
        svg.body,
        r#"<text x="18" y="{:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 18 {:.1})">{}</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0,
        escape(y_label)
    );
    if points.is_empty() {
        svg.text(
            left + plot_w / 2.0,
            top + plot_h / 2.0,
            empty_note,
            "middle",
            12.0,
            "normal",
        );
    }
    for (i, (name, x, y)) in points.iter().enumerate() {
        let px = left + plot_w * (x / x_max).clamp(0.0, 1.0);
        let py = base - plot_h * (y / y_max).clamp(0.0, 1.0);
        svg.circle(px, py, 6.0, colour(i), &format!("{name}: ({x:.4}, {y:.4})"));
    }
    let names: Vec<String> = points.iter().map(|p| p.0.clone()).collect();
    svg.legend(left + plot_w + 20.0, top + 10.0, &names);
    svg.finish()
}

/// A grid of cells coloured from red (0) to green (1); `None` is grey. Each cell has a tooltip.
pub fn heat_map(
    title: &str,
    rows: &[String],
    columns: &[String],
    cells: &[Vec<(Option<f64>, String)>],
) -> String {
    let left = 210.0;
    let top = 120.0;
    let cell_w = 26.0;
    let cell_h = 24.0;
    let width = left + cell_w * columns.len().max(1) as f64 + 40.0;
    let height = top + cell_h * rows.len().max(1) as f64 + 40.0;
    let mut svg = Svg::new(width.max(420.0), height, title);
    for (ci, c) in columns.iter().enumerate() {
        svg.rotated_text(left + cell_w * (ci as f64 + 0.6), top - 6.0, c, "start");
    }
    for (ri, r) in rows.iter().enumerate() {
        let y = top + ri as f64 * cell_h;
        svg.text(left - 8.0, y + cell_h * 0.65, r, "end", 12.0, "normal");
        for (ci, (v, tip)) in cells.get(ri).into_iter().flatten().enumerate() {
            let fill = v.map_or_else(|| "#cccccc".to_string(), red_to_green);
            svg.rect(
                left + ci as f64 * cell_w,
                y,
                cell_w - 2.0,
                cell_h - 2.0,
                &fill,
                Some(tip),
            );
        }
    }
    svg.finish()
}

fn red_to_green(v: f64) -> String {
    let v = v.clamp(0.0, 1.0);
    let r = (215.0 * (1.0 - v) + 26.0 * v) as u8;
    let g = (48.0 * (1.0 - v) + 152.0 * v) as u8;
    let b = (39.0 * (1.0 - v) + 80.0 * v) as u8;
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_standalone_svg_with_escaped_text() {
        let labels = vec!["a<b".to_string(), "c".to_string()];
        let svg = horizontal_bars("α3 & co", &labels, &[0.5, 0.25], Some(1.0));
        assert!(svg.starts_with("<?xml"));
        assert!(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a&lt;b") && svg.contains("α3 &amp; co"));
        let empty = scatter("t", "x", "y", &[], "nothing to show");
        assert!(empty.contains("nothing to show"));
    }

    #[test]
    fn ticks_read_apart_and_titles_fit() {
        let max = nice_max(0.0123);
        let ticks: Vec<String> = (0..=4)
            .map(|k| tick_label(max * f64::from(k) / 4.0, max / 4.0))
            .collect();
        assert_eq!(ticks, ["0.000", "0.005", "0.010", "0.015", "0.020"]);
        let ticks: Vec<String> = (0..=4)
            .map(|k| tick_label(f64::from(k) * 0.25, 0.25))
            .collect();
        assert_eq!(ticks, ["0.00", "0.25", "0.50", "0.75", "1.00"]);
        assert_eq!(tick_label(250.0, 125.0), "250");
        let title = "A title far longer than the plot itself is wide, which used to be cut off";
        let svg = heat_map(title, &[], &[], &[]);
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(width >= text_width(title, TITLE_SIZE));
    }

    #[test]
    fn axis_bounds_are_round() {
        assert_eq!(nice_max(0.73), 1.0);
        assert_eq!(nice_max(0.0123), 0.02);
        assert_eq!(nice_max(340.0), 500.0);
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(f64::NAN), 1.0);
    }
}
