//! The safety gate: every command is checked on its path before it may reach the flight
//! controller. Only this module can make an [`ApprovedCommand`]; a denial is a [`Verdict`] value
//! that the agent gets back as an observation.
//!
//! - [`evaluate`] runs one command through the checks of [`CHECK_ORDER`], one file each:
//!   `state` (arguments, telemetry, arming, speeds), `rate` (a token bucket in the caller's
//!   [`GateState`]), `altitude` (the band; clamps an out-of-band target when allowed), `site`
//!   (take-off and landing at home or an authorised site), `geofence` (inclusion areas),
//!   `no_fly` (exclusion areas, static and moving), `separation` (traffic and peers' plans) and
//!   `energy` (to the target and home with the reserve). Each finding has a stable id
//!   ([`ids`]), the limit and the measured value.
//! - Before them, `unreported`: a command whose checks need a value the autopilot has not
//!   reported yet (battery, position, home, fix, landed state) is denied with that reason.
//! - The checks look at the path, not only the end point: `plan` turns a command into legs and a
//!   timeline with the stopping distance `v²/2a`, the position uncertainty and the timing error
//!   as margins (its module docs give the model).
//! - [`time_to_breach`] predicts, for the present velocity, when a limit would be crossed.
//! - [`evaluate_failsafe`] is the watchdog's narrow way through: hold, return or land;
//!   [`evaluate_failsafe_in`] is the same knowing the airspace (a landing below the band is
//!   continued rather than interrupted).
//! - `landing`: below the band a landing is committed (hold becomes land, moves are denied).
//! - `escape`: a hold where traffic or a moving zone is about to pass becomes a short move out
//!   of the way that the checks approve.
//! - [`autopilot`]: PX4's return and landing as both the gate and the built-in world fly them.
//!
//! `evaluate` is pure — the clock is an argument, the memory is [`GateState`] — and allocates
//! nothing: the plan and the findings are fixed-capacity; only [`GateContext`] allocates, when it
//! is built.

mod altitude;
mod approved;
pub mod autopilot;
mod context;
mod energy;
mod escape;
mod evaluate;
mod geofence;
mod geometry;
pub mod ids;
mod inputs;
mod landing;
mod no_fly;
mod plan;
mod profile;
mod rate;
mod separation;
mod shape;
mod site;
mod state;
#[cfg(test)]
mod testkit;
mod time_to_breach;
mod unreported;
mod verdict;

pub use approved::ApprovedCommand;
pub use context::{GateContext, GateContextError};
pub use escape::escape_lead_ms;
pub use evaluate::{CHECK_ORDER, GateState, evaluate, evaluate_failsafe, evaluate_failsafe_in};
pub use inputs::{PeerPlan, PlanKnot, Track, Tuning, Wind, WindLayer};
pub use rate::RateState;
pub use time_to_breach::{Breach, time_to_breach};
pub use verdict::{Finding, Findings, MAX_FINDINGS, Severity, Verdict};
