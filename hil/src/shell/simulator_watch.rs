//! The link task's side of [`crate::simulator`]: asks the autopilot for the evidence whenever
//! it is found or comes back, turns the answer into the status's verdict, and — under
//! [`SimulatorPolicy::Require`] — holds every command until the autopilot is proven a
//! simulator again.

use crate::error::HilError;
use crate::session::Session;
use crate::simulator::{SimulatorCheck, SimulatorPolicy, evidence_names, judge};
use std::net::SocketAddr;

#[derive(Debug)]
pub(crate) struct SimulatorWatch {
    policy: SimulatorPolicy,
    /// Evidence asked for and not judged yet.
    asked: bool,
}

impl SimulatorWatch {
    pub fn new(policy: SimulatorPolicy) -> Self {
        Self {
            policy,
            asked: false,
        }
    }

    /// The verdict before anything was asked.
    pub fn initial(&self) -> SimulatorCheck {
        match self.policy {
            SimulatorPolicy::Ignore => SimulatorCheck::NotAsked,
            _ => SimulatorCheck::Checking,
        }
    }

    /// The transport went away: whatever answers next must prove itself again.
    pub fn reset(&mut self, verdict: &mut SimulatorCheck) {
        if self.policy != SimulatorPolicy::Ignore {
            self.asked = false;
            *verdict = SimulatorCheck::Checking;
        }
    }

    /// Under `Require`, the session stops what it was sending the moment the autopilot comes
    /// back (before the next frame goes out): a retry must not reach a firmware that has not
    /// proven itself yet.
    pub fn configure(&self, session: &mut Session) {
        if self.policy == SimulatorPolicy::Require {
            session.withdraw_commands_on_return();
        }
    }

    /// The autopilot was found, came back or rejoined: ask it again.
    pub fn ask(&mut self, now_us: u64, session: &mut Session, verdict: &mut SimulatorCheck) {
        if self.policy == SimulatorPolicy::Ignore {
            return;
        }
        let Some(profile) = session.profile() else {
            return;
        };
        session.read_params(now_us, &evidence_names(profile));
        self.asked = true;
        *verdict = SimulatorCheck::Checking;
    }

    /// Judges the answers once every parameter read has ended; returns whether it did.
    pub fn judge(
        &mut self,
        session: &Session,
        peer: Option<SocketAddr>,
        verdict: &mut SimulatorCheck,
    ) -> bool {
        if !self.asked || !session.params_done() {
            return false;
        }
        let Some(profile) = session.profile() else {
            return false;
        };
        self.asked = false;
        *verdict = judge(profile, session.params(), peer);
        match verdict {
            SimulatorCheck::Simulated(why) => tracing::info!(%why, "the autopilot is a simulator"),
            other => {
                tracing::warn!(why = %other.reason(), "the autopilot is not proven a simulator")
            }
        }
        true
    }

    /// Whether a command or parameter write may go out now.
    pub fn allows(&self, verdict: &SimulatorCheck) -> Result<(), HilError> {
        if self.policy != SimulatorPolicy::Require || verdict.is_simulated() {
            return Ok(());
        }
        Err(HilError::NotSimulated(verdict.reason().to_string()))
    }
}
