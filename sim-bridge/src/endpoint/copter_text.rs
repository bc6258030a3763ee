//! ArduCopter's status texts where they differ from PX4's.

/// What ArduCopter says where the shared vehicle code says PX4's words: its own text, nothing
/// (PX4-only notices), or the text unchanged.
pub(super) fn text_for(px4: &str) -> Option<String> {
    match px4 {
        "Landing detected" | "Takeoff complete, holding" => None,
        t if t.starts_with("Disarmed by") => Some("Disarming motors".into()),
        t => Some(t.to_string()),
    }
}
