//! The closed loop: one episode of alternating agent and operator turns against a vehicle,
//! as `ARCHITECTURE.md` draws one decision — situation → policy (under a deadline) → for each
//! action: slice decision → gate → execution → observation — with the watchdog keeping the
//! vehicle safe and every step written to the flight record. What is safe is decided in
//! `alpha3-core` (the gate, the slice policy, the link monitor, the watchdog and where its
//! return goes); the loop decides the pacing: when a move has played out, when a turn and
//! when the episode ends.
//!
//! The loop flies a [`VehicleLink`](alpha3_core::vehicle::VehicleLink) that is also its own
//! [`Surroundings`]: the built-in world itself, or a flight controller over MAVLink with the
//! world as its twin ([`LinkedVehicle`], for `alpha3 sitl` and `alpha3 fly`).
//!
//! World time is simulated and independent of how long a model thinks: a decision takes no
//! world time unless it misses its deadline, when the world runs on for the deadline under the
//! watchdog. So a record replayed with its own completions reproduces itself. Every agent turn
//! spans at least the configured decision period (`watchdog.decision_period_ms`), so a turn
//! that moves nothing still lets the world, its faults and the watchdog's ladder go on.
//!
//! An episode that ends without success with the vehicle in the air hands it to the failsafe,
//! which brings it down before the termination is recorded (`handover`).

mod advance;
mod agent_turn;
mod airspace;
pub mod anchor;
mod decide;
mod episode;
mod execute;
mod execute_mission;
mod failsafe_step;
mod flight;
mod handover;
mod interruption;
mod linked;
pub mod mission_mode;
mod mission_watch;
pub mod onboard;
mod safety_timing;
mod surroundings;
mod traffic;

pub use episode::{EpisodeOutcome, run_episode, run_episode_on};
pub use execute::ActionOutcome;
pub use linked::{LinkHealth, LinkedVehicle, OperatorSource, Sources};
pub use safety_timing::{PhaseSummary, SafetySummary, SafetyTiming, Spread};
pub use surroundings::Surroundings;
