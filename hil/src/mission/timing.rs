//! How long to wait for the autopilot, and how often to ask again.

/// The mission service's timeouts: the spec's and QGC's values by default (1500 ms per
/// request, 250 ms per item request on download, 5 retries; mavlink-devguide mission.md
/// "Timeouts and retries", QGC PlanManager.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissionTiming {
    /// Waiting for MISSION_COUNT, for the autopilot's next request during an upload, and for
    /// the ACK of MISSION_CLEAR_ALL.
    pub request_timeout_ms: u64,
    /// Waiting for the item asked for with MISSION_REQUEST_INT during a download.
    pub item_timeout_ms: u64,
    /// Re-sends after the first send before the transfer fails.
    pub retries: u32,
}

impl Default for MissionTiming {
    fn default() -> Self {
        Self {
            request_timeout_ms: 1500,
            item_timeout_ms: 250,
            retries: 5,
        }
    }
}
