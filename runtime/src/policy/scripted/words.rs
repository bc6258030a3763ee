//! The operator's words as the scripted agent reads them: abort, hold, an added waypoint, and
//! the status line that names the next waypoint.

/// One thing the operator said that changes the plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Heard {
    Abort,
    Hold {
        duration_s: f64,
    },
    AddWaypoint([f64; 3]),
    /// "Next is waypoint i at (x, y, z)": where the world's mission stands.
    Next([f64; 3]),
    /// "0 waypoint(s) left".
    NoneLeft,
}

/// What `text` orders or reports, if anything.
pub(super) fn hear(text: &str) -> Option<Heard> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("abort") && !lower.contains("aborted") {
        Some(Heard::Abort)
    } else if lower.contains("add a waypoint at") {
        first_triple(&lower).map(Heard::AddWaypoint)
    } else if lower.contains("hold your position for") {
        let at = lower.find("for")?;
        numbers(&lower[at..])
            .first()
            .filter(|d| d.is_finite() && **d >= 0.0)
            .map(|&duration_s| Heard::Hold { duration_s })
    } else if lower.contains("next is waypoint") {
        first_triple(&lower).map(Heard::Next)
    } else if lower.contains("0 waypoint(s) left") {
        Some(Heard::NoneLeft)
    } else {
        None
    }
}

/// Every number in `text`, in order.
pub(super) fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter_map(|t| t.trim_end_matches('.').parse::<f64>().ok())
        .collect()
}

/// The first `(x, y, z)` in `text`.
pub(super) fn first_triple(text: &str) -> Option<[f64; 3]> {
    let start = text.find('(')?;
    let end = start + text[start..].find(')')?;
    let n = numbers(&text[start..end]);
    (n.len() == 3).then(|| [n[0], n[1], n[2]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_words_are_read() {
        assert_eq!(
            hear(
                "Change of plan: add a waypoint at (120.5, -40, 35) and visit it next, then continue."
            ),
            Some(Heard::AddWaypoint([120.5, -40.0, 35.0]))
        );
        assert_eq!(
            hear("Hold your position for 15 s: traffic is being cleared ahead."),
            Some(Heard::Hold { duration_s: 15.0 })
        );
        assert_eq!(
            hear("Abort the mission now and land at the nearest authorised site: (1, 2)."),
            Some(Heard::Abort)
        );
        assert_eq!(
            hear(
                "Copy. Next is waypoint 2 at (444, 448, 60); 5 waypoint(s) left, 318 s of budget."
            ),
            Some(Heard::Next([444.0, 448.0, 60.0]))
        );
        assert_eq!(
            hear("Copy. 0 waypoint(s) left, 100 s of budget, battery 80.0 %."),
            Some(Heard::NoneLeft)
        );
        assert_eq!(hear("Approved: proceed."), None);
        assert_eq!(hear("Hold your position for a while"), None);
    }
}
