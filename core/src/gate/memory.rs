//! What the gate remembers between commands.

use serde::{Deserialize, Serialize};

/// What the gate remembers between commands. The caller owns it and passes it to every
/// `evaluate`; replaying the same commands with the same states gives the same verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct GateState {
    pub rate: RateState,
    /// The cruise speed last approved with `set_speed` (a `go_to` without a speed flies at it);
    /// the profile's cruise speed until then.
    pub cruise_speed_mps: Option<f64>,
}

/// The rate limit's bucket level at the last approved command (`check::rate`); a default state
/// is a full bucket.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct RateState {
    pub(crate) last_ms: Option<u64>,
    pub(crate) tokens: f64,
}
