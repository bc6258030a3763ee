//! How far ahead the gate looks at a hover: long enough for a move out of the way
//! (`substitute::hold`) to begin once the watchdog sees a breach coming.

use super::context::GateContext;

/// How far the moves out of the way go, in separations.
pub(crate) const ESCAPE_SEPARATIONS: f64 = 2.0;
/// A hold is turned into a move this long before the lead too: the watchdog acts on a breach
/// its own margin (3 s by default) plus a sampling interval before the lead, and its coasting
/// prediction differs a little from holding still.
pub(crate) const SLACK_S: f64 = 5.0;

/// How long a move out of the way takes: [`ESCAPE_SEPARATIONS`] separations sideways at
/// cruise speed from rest to rest, as the gate's path model times it (wait `v/2a`, fly, brake
/// `v/2a`), seconds.
pub(crate) fn move_s(ctx: &GateContext) -> f64 {
    let v = ctx.vehicle.cruise_speed_mps.max(0.1);
    let a = ctx.vehicle.max_accel_mps2;
    ESCAPE_SEPARATIONS * ctx.limits.min_separation_m / v + v / a
}

/// How long a hover after an approved command is checked, seconds: the tuning's hold horizon
/// (the next decision), and at least as long as a move out of the way takes plus the
/// watchdog's reaction ([`SLACK_S`]). Until then nothing else can be relied on to move a
/// holding vehicle; from then on the watchdog sees a breach coming early enough for the move.
pub(crate) fn hover_horizon_s(ctx: &GateContext) -> f64 {
    ctx.tuning.hold_horizon_s.max(move_s(ctx) + SLACK_S)
}

/// How long before such a breach the move must begin: the move itself, plus the hover horizon,
/// so that a move approved then still has a clear hold at its end.
pub fn escape_lead_ms(ctx: &GateContext) -> u64 {
    ((move_s(ctx) + hover_horizon_s(ctx)) * 1000.0).round() as u64
}

impl GateContext {
    /// How long the gate checks the hover at a command's target, seconds: the tuning's hold
    /// horizon, and at least the time a move out of the way takes (two separations at cruise
    /// speed) plus the watchdog's reaction, so that after it the watchdog's predicted breach
    /// can move a holding vehicle in time.
    pub fn hover_horizon_s(&self) -> f64 {
        hover_horizon_s(self)
    }
}
