//! The failsafe, so the LLM is never in the control loop: the [`Watchdog`] steps the vehicle
//! down a ladder when no good decision comes, and [`return_command`] chooses where its return
//! goes. Pure: every input carries its time.
//!
//! # The ladder
//! The ladder is configured (`watchdog.ladder`; hold → return → land by default). The watchdog
//! takes one step at a time, the next one each `watchdog.step_interval_ms` while the cause
//! lasts, and the runtime flies each step through the gate's failsafe path
//! ([`crate::gate::evaluate_failsafe_in`]). While a decision is pending and nothing escalates,
//! the runtime streams hold setpoints ([`WatchdogAction::StreamHold`]).
//!
//! # What engages it
//! The strongest cause first ([`Cause`]):
//! - a lost link (the runtime also reports a vehicle it lost as a lost link);
//! - `watchdog.max_generation_failures` generation failures in a row (an answer without a valid
//!   turn counts, and ends the wait for a decision);
//! - a decision later than its deadline;
//! - the episode's end with the vehicle in the air ([`Watchdog::episode_ended`]): the
//!   hand-over, where no decision will come.
//!
//! A breach the gate predicts sooner than `watchdog.min_time_to_breach_ms` takes the first
//! step (the hold) at once, and takes the hold again every [`PREDICTED_BREACH_REPEAT_MS`]
//! while it stands (every [`PREDICTED_BREACH_URGENT_REPEAT_MS`] once there is no time left
//! before the move out of the way), so that the gate's failsafe path can turn it into a move out of traffic's
//! way. It never keeps the ladder from its next step, and a hold taken for it is not time
//! served for a cause that escalates later: that cause's ladder starts at its own hold.
//!
//! # How it ends
//! A valid decision resets the ladder unless the link is still lost or the ladder reached its
//! last step: a landing is never undone by a late answer. A return or landing taken for a lost
//! link is released when the link is back ([`Watchdog::released`]), so the runtime stops
//! waiting on the turn it was flying and the agent decides again. In the hand-over nothing
//! resets it: the runtime flies it until the vehicle is down or `watchdog.handover_max_ms` has
//! passed.
//!
//! # Where the return goes
//! The return goes home, as PX4's RTL does, unless the gate rules the way there out (a zone,
//! the fence, the energy, no position fix); then to the nearest emergency site the gate
//! approves a landing at now with nothing in the way ([`return_command`]). The hand-over takes
//! the nearest such place first, home included, and home through traffic only when no site is
//! clear. Without a position fix no place is open. A return ends with a landing at its
//! destination; the land step lands where the vehicle is, off any authorised site.
//!
//! The runtime measures the way along the return each tick ([`return_status`], a
//! [`ReturnStatus`]) and the watchdog weighs its steps against it: a return the gate rules out
//! is skipped for the land step; a return waits for traffic in its way for one step interval
//! at most (in the hand-over, [`HANDOVER_TRAFFIC_WAIT_MS`] from the episode's end, holding
//! clear of it); and the land step pre-empts a return under way only when the gate rules the
//! return out or it made no progress ([`RETURN_PROGRESS_M`]) within a step interval — never
//! over home ([`RETURN_AT_HOME_M`]). At the episode's end the ladder takes the vehicle down
//! from its return at once, unless a return or landing is already under way.

mod destination;
mod return_steps;
mod state;
mod watchdog;
mod way_home;

pub use destination::{return_command, return_status};
pub use state::Cause;
pub use watchdog::{
    PREDICTED_BREACH_REPEAT_MS, PREDICTED_BREACH_URGENT_REPEAT_MS, Watchdog, WatchdogAction,
};
pub use way_home::{HANDOVER_TRAFFIC_WAIT_MS, RETURN_AT_HOME_M, RETURN_PROGRESS_M, ReturnStatus};
