//! The way home as the runtime measures it, and the distances and wait the ladder weighs its
//! return and land steps against.

use serde::{Deserialize, Serialize};

/// The way home as the runtime measures it while the ladder is engaged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReturnStatus {
    /// Horizontal distance to home, m.
    pub home_distance_m: f64,
    /// Height above home, m.
    pub height_m: f64,
    /// The gate rules a return from here out (its path, the energy to get home, no fix).
    pub ruled_out: bool,
    /// Traffic is in the way of the return right now. It passes, and a hold is kept clear of
    /// it (the gate's escapes), so the return step waits for it — one step interval at most.
    #[serde(default)]
    pub traffic_in_way: bool,
}

/// A return is progressing while, within each step interval, it gets at least this much closer
/// to home or climbs or descends this much (to its return altitude, or landing at home), m.
pub const RETURN_PROGRESS_M: f64 = 10.0;
/// Closer than this to home (horizontally) the return is landing there: the land step would
/// only land on the same spot, m.
pub const RETURN_AT_HOME_M: f64 = 5.0;

/// How long the hand-over's return waits for traffic in its way, from the episode's end, ms.
pub const HANDOVER_TRAFFIC_WAIT_MS: u64 = 60_000;
