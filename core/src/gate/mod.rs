//! The safety gate: every command is checked on its path before it may reach the flight
//! controller. Only this module can make an [`ApprovedCommand`]; a denial is a [`Verdict`] value
//! that the agent gets back as an observation.

mod approved;
mod verdict;

pub use approved::ApprovedCommand;
pub use verdict::{Finding, Findings, MAX_FINDINGS, Severity, Verdict};
