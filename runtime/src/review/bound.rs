//! Pages stay bounded whatever the record holds. A record keeps everything (an operator's
//! 50 MB message, an endless dialogue); its page shows each text up to [`MAX_TEXT_BYTES`],
//! cut with a visible marker that says how much is left out and where it is, and the whole
//! page stays under [`MAX_PAGE_BYTES`]: past that, rows of the dialogue and of the verdicts are
//! left out (a row says how many), the time series thinned, the map's areas and tracks
//! shortened — each said in the page's notes.

use super::timeline::{Entry, Timeline, Track};

/// The most a text on the page takes, bytes (an operator line is at most 2,000: shown whole).
pub const MAX_TEXT_BYTES: usize = 2_100;
/// The most a page takes, bytes (the longest suite episode's page is about 0.2 MB).
pub const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;
/// Room kept for the marker at the end of a cut text.
const MARKER_ROOM: usize = 80;
/// Rounds of shrinking before the page keeps only its header.
const ROUNDS: usize = 12;
/// Findings shown per row or verdict (the gate reports at most 8).
const MAX_FINDINGS: usize = 16;
/// The dialogue row that stands for the rows left out.
const MARKER_KIND: &str = "truncated";

/// `text` whole when it fits in [`MAX_TEXT_BYTES`], else its head and the marker
/// `… [truncated: N bytes, full text in the record]` (N: the bytes left out).
pub fn clip(text: &str) -> String {
    if text.len() <= MAX_TEXT_BYTES {
        return text.to_string();
    }
    let mut cut = MAX_TEXT_BYTES - MARKER_ROOM;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}… [truncated: {} bytes, full text in the record]",
        &text[..cut],
        text.len() - cut
    )
}

fn clip_in_place(text: &mut String) {
    if text.len() > MAX_TEXT_BYTES {
        *text = clip(text);
    }
}

/// Cuts every text of `t` to [`MAX_TEXT_BYTES`] and its finding lists to 16 findings.
pub fn clip_texts(t: &mut Timeline) {
    let m = &mut t.meta;
    for s in [
        &mut m.episode_id,
        &mut m.scenario,
        &mut m.policy,
        &mut m.metric_version,
        &mut m.frame_source,
    ] {
        clip_in_place(s);
    }
    for s in [&mut m.model, &mut m.termination].into_iter().flatten() {
        clip_in_place(s);
    }
    for e in &mut t.dialogue {
        clip_in_place(&mut e.text);
        if let Some(tag) = &mut e.tag {
            clip_in_place(tag);
        }
        e.findings.truncate(MAX_FINDINGS);
        for f in &mut e.findings {
            clip_in_place(&mut f.id);
            clip_in_place(&mut f.reason);
        }
    }
    for v in &mut t.verdicts {
        if let Some(tool) = &mut v.tool {
            clip_in_place(tool);
        }
        v.findings.truncate(MAX_FINDINGS);
        for f in &mut v.findings {
            clip_in_place(&mut f.id);
            clip_in_place(&mut f.reason);
        }
    }
    for s in t
        .link
        .slice
        .iter_mut()
        .chain(t.breach_id.iter_mut().flatten())
    {
        clip_in_place(s);
    }
    for track in t.frame.traffic.iter_mut().chain(&mut t.frame.peers) {
        clip_in_place(&mut track.name);
    }
    for p in &mut t.pillars {
        clip_in_place(&mut p.name);
        clip_in_place(&mut p.why);
    }
    for s in [&mut t.breach_note, &mut t.pillars_note]
        .into_iter()
        .flatten()
    {
        clip_in_place(s);
    }
    for n in &mut t.notes {
        clip_in_place(n);
    }
}

/// The bytes `t` takes embedded in a page (its JSON, with `<` escaped as the page does).
pub fn embedded_size(t: &Timeline) -> usize {
    let json = serde_json::to_string(t).unwrap_or_default();
    json.len() + 5 * json.bytes().filter(|&b| b == b'<').count()
}

/// Makes `t` fit in `max_bytes` embedded: texts clipped, then, while it is too large, every
/// long part shrunk in proportion; at the last, only the header and a note are kept.
pub fn fit(t: &mut Timeline, max_bytes: usize) {
    clip_texts(t);
    let mut cut = Cut::default();
    for _ in 0..ROUNDS {
        let size = embedded_size(t);
        if size <= max_bytes {
            cut.note(t, max_bytes);
            return;
        }
        // A little under the proportion, so a round rarely falls just short.
        let keep = (max_bytes as f64 / size as f64) * 0.9;
        cut.shrink(t, keep);
    }
    if embedded_size(t) > max_bytes {
        keep_only_the_header(t, max_bytes, cut.rows);
    }
}

/// What was left out, for the note.
#[derive(Debug, Default)]
struct Cut {
    rows: usize,
    /// When the first row left out was.
    rows_from_s: f64,
    verdicts: usize,
    every_nth_sample: usize,
    areas: usize,
    track_points: usize,
}

impl Cut {
    fn shrink(&mut self, t: &mut Timeline, keep: f64) {
        let part = |n: usize| ((n as f64 * keep).floor() as usize).min(n.saturating_sub(1));
        // The dialogue: its first rows, the marker, its last row (how the episode ended).
        if t.dialogue.len() > 2 {
            let last = t.dialogue.pop();
            t.dialogue.retain(|e| e.kind != MARKER_KIND);
            let kept = part(t.dialogue.len()).max(1).min(t.dialogue.len());
            let dropped: Vec<Entry> = t.dialogue.drain(kept..).collect();
            if let Some(first) = dropped.first() {
                self.rows_from_s = first.t_s;
            }
            self.rows += dropped.len();
            if self.rows > 0 {
                t.dialogue.push(marker(self.rows_from_s, self.rows));
            }
            t.dialogue.extend(last);
        }
        let v = t.verdicts.len();
        if v > 0 {
            let kept = part(v);
            self.verdicts += v - kept;
            t.verdicts.truncate(kept);
            let s = t.slice_decisions.len();
            t.slice_decisions.truncate(part(s));
        }
        let step = ((1.0 / keep).ceil() as usize).max(2);
        if t.truth.t_s.len() > 2 {
            self.every_nth_sample = self.every_nth_sample.max(1) * step;
            thin_truth(t, step);
        }
        if t.link.t_s.len() > 2 {
            let keep_at = kept_indices(t.link.t_s.len(), step);
            let l = &mut t.link;
            l.t_s = pick(&l.t_s, &keep_at);
            l.lat_ms = pick(&l.lat_ms, &keep_at);
            l.loss_pct = pick(&l.loss_pct, &keep_at);
            l.slice = pick(&l.slice, &keep_at);
        }
        let f = &mut t.frame;
        for areas in [&mut f.geofence, &mut f.no_fly] {
            let kept = part(areas.len()).max(1).min(areas.len());
            self.areas += areas.len() - kept;
            areas.truncate(kept);
        }
        for track in f.traffic.iter_mut().chain(&mut f.peers) {
            let before = track.t_s.len();
            thin_track(track, step);
            self.track_points += before - track.t_s.len();
        }
        for list in [&mut f.waypoints, &mut f.emergency_sites] {
            let kept = part(list.len()).max(1).min(list.len());
            list.truncate(kept);
        }
    }

    /// Says in the page's notes what was left out, if anything.
    fn note(&self, t: &mut Timeline, max_bytes: usize) {
        let mut parts = Vec::new();
        if self.rows > 0 {
            parts.push(format!("{} dialogue rows", self.rows));
        }
        if self.verdicts > 0 {
            parts.push(format!("{} verdict marks", self.verdicts));
        }
        if self.every_nth_sample > 1 {
            parts.push(format!(
                "all but every {}th truth and link sample",
                self.every_nth_sample
            ));
        }
        if self.areas > 0 {
            parts.push(format!("{} map areas", self.areas));
        }
        if self.track_points > 0 {
            parts.push(format!("{} track points", self.track_points));
        }
        if !parts.is_empty() {
            t.notes.push(format!(
                "page kept under {:.1} MB: left out {} (full record in the record file)",
                max_bytes as f64 / 1e6,
                parts.join(", ")
            ));
        }
    }
}

/// The row standing for `n` rows left out from `t_s` on.
fn marker(t_s: f64, n: usize) -> Entry {
    Entry {
        t_s,
        kind: MARKER_KIND,
        turn: None,
        action: None,
        text: format!("… [truncated: {n} rows not shown, full text in the record]"),
        tag: None,
        findings: Vec::new(),
        tokens: None,
        latency_ms: None,
    }
}

/// Every `step`-th index of `n`, and the last.
fn kept_indices(n: usize, step: usize) -> Vec<usize> {
    let mut keep: Vec<usize> = (0..n).step_by(step).collect();
    if keep.last() != Some(&(n - 1)) {
        keep.push(n - 1);
    }
    keep
}

fn pick<T: Clone>(v: &[T], at: &[usize]) -> Vec<T> {
    at.iter().filter_map(|&i| v.get(i).cloned()).collect()
}

/// Every `step`-th truth sample (and the last), with its time to breach.
fn thin_truth(t: &mut Timeline, step: usize) {
    let at = kept_indices(t.truth.t_s.len(), step);
    let tr = &mut t.truth;
    tr.t_s = pick(&tr.t_s, &at);
    tr.x = pick(&tr.x, &at);
    tr.y = pick(&tr.y, &at);
    tr.z = pick(&tr.z, &at);
    tr.vx = pick(&tr.vx, &at);
    tr.vy = pick(&tr.vy, &at);
    tr.vz = pick(&tr.vz, &at);
    tr.speed_mps = pick(&tr.speed_mps, &at);
    tr.battery_pct = pick(&tr.battery_pct, &at);
    tr.armed = pick(&tr.armed, &at);
    tr.airborne = pick(&tr.airborne, &at);
    tr.flyer = pick(&tr.flyer, &at);
    if !t.breach_s.is_empty() {
        t.breach_s = pick(&t.breach_s, &at);
        t.breach_id = pick(&t.breach_id, &at);
    }
}

fn thin_track(track: &mut Track, step: usize) {
    if track.t_s.len() <= 2 {
        return;
    }
    let at = kept_indices(track.t_s.len(), step);
    track.t_s = pick(&track.t_s, &at);
    track.x = pick(&track.x, &at);
    track.y = pick(&track.y, &at);
}

/// The last resort: the header, the ending and a note; nothing else of the record.
fn keep_only_the_header(t: &mut Timeline, max_bytes: usize, left_out: usize) {
    let end = t.dialogue.pop();
    let rows = left_out + t.dialogue.iter().filter(|e| e.kind != MARKER_KIND).count();
    let (meta, alpha3) = (t.meta.clone(), t.alpha3);
    *t = super::timeline::build(
        &alpha3_core::record::ParsedRecord {
            lines: Vec::new(),
            torn_tail: false,
        },
        None,
    );
    t.meta = meta;
    t.alpha3 = alpha3;
    t.dialogue.push(marker(0.0, rows));
    t.dialogue.extend(end);
    t.notes.push(format!(
        "the record is too large for a page of {:.1} MB: only its header and ending are shown \
         (full record in the record file)",
        max_bytes as f64 / 1e6
    ));
    clip_texts(t);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_with_a_marker_that_counts_what_is_left_out() {
        assert_eq!(clip("short"), "short");
        let line = "x".repeat(2_000);
        assert_eq!(clip(&line), line, "an operator line is shown whole");
        let long = "é".repeat(1_000_000);
        let cut = clip(&long);
        assert!(cut.len() <= MAX_TEXT_BYTES, "{}", cut.len());
        let head = cut.split('…').next().unwrap().len();
        assert!(cut.ends_with(&format!(
            "… [truncated: {} bytes, full text in the record]",
            long.len() - head
        )));
        assert_eq!(clip(&cut), cut, "cutting again changes nothing");
    }
}
