//! The safety gate: every command is checked on its path before it may reach the flight
//! controller. Only this module can make an [`ApprovedCommand`]; a denial is a [`Verdict`] value
//! that the agent gets back as an observation.
//!
//! [`evaluate`] is the substitution step around the judgement:
//!
//! - `check`: the checks, one file each, that only report findings from an `Input`: `state`
//!   (arguments, telemetry, arming, speeds), `rate` (a token bucket in the caller's
//!   [`GateState`]), `altitude` (the band), `site` (take-off and landing at home or an
//!   authorised site), `geofence` (inclusion areas), `no_fly` (exclusion areas, static and
//!   moving), `separation` (traffic and peers' plans) and `energy` (to the target and home with
//!   the reserve). One table holds them with their names ([`CHECK_ORDER`]); `unreported` denies
//!   a command whose checks need a value the autopilot has not reported yet (battery, position,
//!   home, fix, landed state). Each finding has a stable id ([`ids`]), the limit and the
//!   measured value; [`ids::kind`] (or [`Finding::kind`]) says what the id is about — what
//!   stands in the leg's way, whether a detour or waiting helps, whether the denial passes by
//!   itself — so no caller keeps its own list of ids.
//! - `judge`: one command, as it is, through the checks to a verdict; on approval it updates the
//!   [`GateState`] (memory: rate tokens, cruise speed). It substitutes nothing.
//! - `substitute`: what is flown instead of what was asked, decided around the judgement and
//!   allowed to ask it to approve a replacement: `landing` (below the band a landing is
//!   committed: a hold becomes the landing, moves are denied; a take-off likewise), `hold` (a
//!   hold where traffic or a moving zone is about to pass becomes a short move out of the way
//!   that the judgement approves; one that would leave too little battery for the way home
//!   becomes the return) and `altitude` (an out-of-band target is clamped into the band when
//!   `limits.clamp_altitude` allows).
//! - The checks look at the path, not only the end point: `plan` turns a command into legs and a
//!   timeline with the stopping distance `v²/2a`, the position uncertainty and the timing error
//!   as margins (its module docs give the model); `horizon` says how long the hover at its end
//!   is checked ([`escape_lead_ms`]).
//! - [`time_to_breach`] predicts, for the present velocity, when a limit would be crossed, with
//!   the geometry of the checks (their `breach_s`).
//! - [`evaluate_failsafe`] is the watchdog's narrow way through: hold, return or land;
//!   [`evaluate_failsafe_in`] is the same knowing the airspace, with the `landing` and `hold`
//!   substitutions.
//! - [`check_target`]: the target tests of the checks asked of one point, without a command
//!   (what `check_geofence` answers), so a tool that reports a limit reports the gate's.
//! - [`command_cost`]: a command's duration, energy and end on the same path model, for checking
//!   a whole mission before take-off.
//! - `route`: the route handed over to the autopilot ([`Route`], adopted into the context) and
//!   the rule for `fly_mission`: every leg left must pass unchanged ([`RouteFlight`] walks it).
//! - [`autopilot`]: PX4's return and landing as both the gate and the built-in world fly them.
//!
//! Imports point one way: `evaluate` → `substitute` → `judge` → `check` → `plan`, `context`.
//! `evaluate` is pure — the clock is an argument, the memory is [`GateState`] — and allocates
//! nothing: the plan and the findings are fixed-capacity; only [`GateContext`] allocates, when it
//! is built. Its trigonometry is `libm`'s, as the built-in world's is, so a record replayed on
//! another CPU gets the same verdicts.

mod approved;
pub mod autopilot;
mod check;
mod context;
mod cost;
mod evaluate;
pub(crate) mod geometry;
mod horizon;
pub mod ids;
mod inputs;
mod judge;
mod memory;
mod plan;
mod profile;
mod route;
mod shape;
mod substitute;
mod target;
#[cfg(test)]
mod testkit;
mod time_to_breach;
mod verdict;

pub use approved::ApprovedCommand;
pub use check::CHECK_ORDER;
pub use context::{GateContext, GateContextError};
pub use cost::{CommandCost, command_cost};
pub use evaluate::{evaluate, evaluate_failsafe, evaluate_failsafe_in};
pub use horizon::escape_lead_ms;
pub use inputs::{PeerPlan, PlanKnot, Track, Tuning, Wind, WindLayer};
pub use memory::{GateState, RateState};
pub use route::{Route, RouteEnd, RouteFlight, RoutePoint};
pub use target::{TargetCheck, check_target};
pub use time_to_breach::{Breach, time_to_breach};
pub use verdict::{Finding, Findings, MAX_FINDINGS, Severity, Verdict, VerdictOutcome};
