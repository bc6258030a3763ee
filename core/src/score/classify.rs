//! Tool classes for scoring: the catalogue's class when the name is ours, otherwise a
//! name-based guess, because published α3-Bench episodes use a free-form vocabulary
//! (`activate_payload`, `navigate_to`, `read_battery_status`, …) that NR and IQ still need to
//! classify.
//!
//! The name-based classifier, in order (the first rule that matches wins):
//! 1. **monitoring** — the name starts with a read verb (`read_`, `get_`, `check_`, `query_`,
//!    `monitor_`, `fetch_`, or is exactly one of them), or ends with `_status` or `_report`
//!    (`payload_status`, `status_report`): it reads state.
//! 2. **sensing** — the name contains a bulk-sensing word: `payload`, `sensor`, `camera`,
//!    `capture`, `stream`, `image`, `imag`(er/ing), `data`, `video`, `lidar`, `radar`,
//!    `thermal`, `scan`.
//! 3. **control-critical** — everything else (it moves or commands the vehicle, or we cannot
//!    tell, and treating the unknown as critical is the conservative choice).

use crate::protocol::{ToolClass, ToolSpec};

const READ_VERBS: [&str; 6] = ["read", "get", "check", "query", "monitor", "fetch"];
const READ_SUFFIXES: [&str; 2] = ["_status", "_report"];
const SENSING_WORDS: [&str; 13] = [
    "payload", "sensor", "camera", "capture", "stream", "image", "imag", "data", "video", "lidar",
    "radar", "thermal", "scan",
];
/// Verbs that wind sensing down rather than start it: not "new bulk sensing" under NR.
const WIND_DOWN_VERBS: [&str; 8] = [
    "stop",
    "deactivate",
    "disable",
    "pause",
    "reduce",
    "lower",
    "decrease",
    "end",
];

/// The class of a tool or task: the catalogue's when `name` is in it, else [`classify_name`].
pub fn class_of(catalogue: &[ToolSpec], name: &str) -> ToolClass {
    catalogue
        .iter()
        .find(|t| t.name == name)
        .map_or_else(|| classify_name(name), |t| t.class)
}

/// The name-based classifier for tools outside the catalogue (see the module docs).
pub fn classify_name(name: &str) -> ToolClass {
    let lower = name.to_ascii_lowercase();
    let first = lower.split(['_', '-', '.']).next().unwrap_or("");
    if READ_VERBS.contains(&first) || READ_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
        return ToolClass::Monitoring;
    }
    if SENSING_WORDS.iter().any(|w| lower.contains(w)) {
        return ToolClass::Sensing;
    }
    ToolClass::ControlCritical
}

/// Whether a sensing action winds sensing down (`stop_payload_stream`, `reduce_imager_bitrate`):
/// under a hard link that is the communication-safe thing to do, not new bulk traffic.
pub fn winds_down(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower
        .split(['_', '-', '.'])
        .any(|word| WIND_DOWN_VERBS.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::catalogue;

    #[test]
    fn catalogue_names_keep_their_catalogue_class() {
        let c = catalogue();
        assert_eq!(class_of(&c, "read_telemetry"), ToolClass::Monitoring);
        assert_eq!(class_of(&c, "capture"), ToolClass::Sensing);
        assert_eq!(class_of(&c, "set_waypoint"), ToolClass::ControlCritical);
        // The catalogue wins over the name rule (`status_update` has no read verb).
        assert_eq!(class_of(&c, "status_update"), ToolClass::Monitoring);
        assert_eq!(
            class_of(&c, "collision_avoidance"),
            ToolClass::ControlCritical
        );
    }

    #[test]
    fn published_names_are_classified_by_their_words() {
        for n in [
            "read_battery",
            "get_weather_update",
            "check_payload_status",
            "query_payload_status",
            "payload_status",
            "status_report",
            "monitor_battery",
            "read",
        ] {
            assert_eq!(classify_name(n), ToolClass::Monitoring, "{n}");
        }
        for n in [
            "activate_payload",
            "start_data_stream",
            "capture_image",
            "camera_activate",
            "record_video",
            "radar_scan",
            "request_lidar_activation",
            "reduce_imager_bitrate",
        ] {
            assert_eq!(classify_name(n), ToolClass::Sensing, "{n}");
        }
        for n in [
            "navigate_to",
            "set_course",
            "land",
            "return_to_base",
            "send_message",
        ] {
            assert_eq!(classify_name(n), ToolClass::ControlCritical, "{n}");
        }
    }

    #[test]
    fn wind_down_verbs_are_recognised_as_words() {
        assert!(winds_down("stop_payload_stream"));
        assert!(winds_down("deactivate_thermal_camera"));
        assert!(winds_down("reduce_payload_bitrate"));
        assert!(!winds_down("start_payload_stream"));
        // "end" only as a word, not inside "send" or "extend".
        assert!(!winds_down("send_data"));
    }
}
