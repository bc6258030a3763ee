//! The MAVLink command protocol (COMMAND_LONG / COMMAND_INT answered by COMMAND_ACK), sans-IO.
//!
//! One command is in flight at a time. Each send waits `ack_timeout` for an ACK and is re-sent
//! at most `retries` times; IN_PROGRESS extends the wait without re-sending. A command that
//! timed out or was replaced is gone for good: nothing re-sends it later, and an ACK for it that
//! turns up afterwards is reported as [`AckMatch::Late`] instead of being taken as the answer to
//! a newer command.

use crate::dialect::{MavMessage, mav};
use mav::{MavCmd, MavFrame, MavResult};

/// Who a command is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub system: u8,
    pub component: u8,
}

/// COMMAND_LONG (seven floats) or COMMAND_INT (positions as scaled integers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CommandForm {
    Long([f32; 7]),
    Int {
        frame: MavFrame,
        params: [f32; 4],
        x: i32,
        y: i32,
        z: f32,
    },
}

/// How refusals are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// A refusal is final.
    Standard,
    /// A refusal means "not yet" (arming during boot): re-send every `interval_ms` until
    /// `within_ms` after the start, then the last refusal is final.
    UntilReady { within_ms: u64, interval_ms: u64 },
}

/// One command to send with the protocol.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandSpec {
    pub command: MavCmd,
    pub form: CommandForm,
    pub retry: Retry,
}

impl CommandSpec {
    pub fn long(command: MavCmd, params: [f32; 7]) -> Self {
        Self {
            command,
            form: CommandForm::Long(params),
            retry: Retry::Standard,
        }
    }

    pub fn int(command: MavCmd, frame: MavFrame, params: [f32; 4], x: i32, y: i32, z: f32) -> Self {
        Self {
            command,
            form: CommandForm::Int {
                frame,
                params,
                x,
                y,
                z,
            },
            retry: Retry::Standard,
        }
    }

    pub fn until_ready(mut self, within_ms: u64, interval_ms: u64) -> Self {
        self.retry = Retry::UntilReady {
            within_ms,
            interval_ms,
        };
        self
    }

    /// The message for send number `attempt` (0 first); COMMAND_LONG counts it in
    /// `confirmation` so the autopilot can tell a re-send from a new command.
    pub fn to_message(&self, target: Target, attempt: u32) -> MavMessage {
        match self.form {
            CommandForm::Long(p) => MavMessage::COMMAND_LONG(mav::COMMAND_LONG_DATA {
                param1: p[0],
                param2: p[1],
                param3: p[2],
                param4: p[3],
                param5: p[4],
                param6: p[5],
                param7: p[6],
                command: self.command,
                target_system: target.system,
                target_component: target.component,
                confirmation: u8::try_from(attempt).unwrap_or(u8::MAX),
            }),
            CommandForm::Int {
                frame,
                params,
                x,
                y,
                z,
            } => MavMessage::COMMAND_INT(mav::COMMAND_INT_DATA {
                param1: params[0],
                param2: params[1],
                param3: params[2],
                param4: params[3],
                x,
                y,
                z,
                command: self.command,
                target_system: target.system,
                target_component: target.component,
                frame,
                current: 0,
                autocontinue: 0,
            }),
        }
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CommandOutcome {
    Accepted { result: MavResult },
    Refused { result: MavResult },
    TimedOut { sends: u32, waited_ms: u64 },
}

/// What an incoming COMMAND_ACK meant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AckMatch {
    Outcome(CommandOutcome),
    /// IN_PROGRESS, or a refusal that will be retried.
    Pending,
    /// For a command that already timed out or was replaced: the vehicle may have acted on it.
    Late {
        command: MavCmd,
        result: MavResult,
    },
    Unrelated,
}

/// Timeouts and retries (from the link config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandTiming {
    pub ack_timeout_ms: u64,
    pub retries: u32,
    /// How long an IN_PROGRESS command may take before it counts as timed out.
    pub in_progress_timeout_ms: u64,
}

#[derive(Debug, Clone)]
struct InFlight {
    spec: CommandSpec,
    target: Target,
    started_us: u64,
    sends: u32,
    silent_timeouts: u32,
    next_send_us: Option<u64>,
    deadline_us: u64,
    in_progress: bool,
}

/// Remembered this long after a timeout, to recognise its late ACK.
const LATE_WINDOW_US: u64 = 60_000_000;

/// The command-protocol state machine.
#[derive(Debug, Clone)]
pub struct CommandMachine {
    timing: CommandTiming,
    inflight: Option<InFlight>,
    /// Given-up commands: (command, remembered until).
    expired: Vec<(MavCmd, u64)>,
}

impl CommandMachine {
    pub fn new(timing: CommandTiming) -> Self {
        Self {
            timing,
            inflight: None,
            expired: Vec::new(),
        }
    }

    pub fn is_busy(&self) -> bool {
        self.inflight.is_some()
    }

    /// Starts `spec`; a command still in flight is abandoned (never re-sent).
    pub fn start(&mut self, now_us: u64, spec: CommandSpec, target: Target) {
        self.abandon(now_us);
        self.inflight = Some(InFlight {
            spec,
            target,
            started_us: now_us,
            sends: 0,
            silent_timeouts: 0,
            next_send_us: Some(now_us),
            deadline_us: u64::MAX,
            in_progress: false,
        });
    }

    /// Gives up the command in flight, if any.
    pub fn abandon(&mut self, now_us: u64) {
        if let Some(f) = self.inflight.take()
            && f.sends > 0
        {
            self.expired.push((f.spec.command, now_us + LATE_WINDOW_US));
        }
        self.expired.retain(|(_, until)| *until > now_us);
    }

    /// The next command frame due now, if any.
    pub fn poll_transmit(&mut self, now_us: u64) -> Option<MavMessage> {
        let f = self.inflight.as_mut()?;
        f.next_send_us.filter(|t| *t <= now_us)?;
        let message = f.spec.to_message(f.target, f.sends);
        f.sends += 1;
        f.next_send_us = None;
        f.deadline_us = now_us + self.timing.ack_timeout_ms * 1000;
        Some(message)
    }

    /// When [`handle_timeout`](Self::handle_timeout) or [`poll_transmit`](Self::poll_transmit)
    /// next has something to do.
    pub fn poll_timeout(&self) -> Option<u64> {
        let f = self.inflight.as_ref()?;
        Some(f.next_send_us.unwrap_or(f.deadline_us))
    }

    /// Re-sends after a silent timeout, or gives up.
    pub fn handle_timeout(&mut self, now_us: u64) -> Option<CommandOutcome> {
        let f = self.inflight.as_mut()?;
        if f.next_send_us.is_some() || now_us < f.deadline_us {
            return None;
        }
        if !f.in_progress && f.silent_timeouts < self.timing.retries {
            f.silent_timeouts += 1;
            f.next_send_us = Some(now_us);
            return None;
        }
        let outcome = CommandOutcome::TimedOut {
            sends: f.sends,
            waited_ms: (now_us - f.started_us) / 1000,
        };
        self.abandon(now_us);
        Some(outcome)
    }

    /// Matches a COMMAND_ACK from system `from_system`, addressed (if it says) to `us`.
    pub fn on_ack(
        &mut self,
        now_us: u64,
        from_system: u32,
        ack: &mav::COMMAND_ACK_DATA,
        us: Target,
    ) -> AckMatch {
        let for_us = (ack.target_system == 0 || ack.target_system == us.system)
            && (ack.target_component == 0 || ack.target_component == us.component);
        if !for_us {
            return AckMatch::Unrelated;
        }
        let matches = self.inflight.as_ref().is_some_and(|f| {
            f.spec.command == ack.command
                && f.sends > 0
                && from_system == u32::from(f.target.system)
        });
        if !matches {
            if let Some(i) = self.expired.iter().position(|(c, _)| *c == ack.command) {
                self.expired.swap_remove(i);
                return AckMatch::Late {
                    command: ack.command,
                    result: ack.result,
                };
            }
            return AckMatch::Unrelated;
        }
        let Some(f) = self.inflight.as_mut() else {
            return AckMatch::Unrelated;
        };
        match ack.result {
            MavResult::MAV_RESULT_ACCEPTED => {
                self.inflight = None;
                AckMatch::Outcome(CommandOutcome::Accepted { result: ack.result })
            }
            MavResult::MAV_RESULT_IN_PROGRESS => {
                f.in_progress = true;
                f.deadline_us = now_us + self.timing.in_progress_timeout_ms * 1000;
                AckMatch::Pending
            }
            result => {
                if let Retry::UntilReady {
                    within_ms,
                    interval_ms,
                } = f.spec.retry
                {
                    let next = now_us + interval_ms * 1000;
                    if next < f.started_us + within_ms * 1000 && is_not_yet(result) {
                        f.next_send_us = Some(next);
                        f.deadline_us = u64::MAX;
                        f.silent_timeouts = 0;
                        return AckMatch::Pending;
                    }
                }
                self.inflight = None;
                AckMatch::Outcome(CommandOutcome::Refused { result })
            }
        }
    }
}

/// Refusals that may turn into acceptance once the autopilot is ready.
fn is_not_yet(result: MavResult) -> bool {
    matches!(
        result,
        MavResult::MAV_RESULT_TEMPORARILY_REJECTED
            | MavResult::MAV_RESULT_DENIED
            | MavResult::MAV_RESULT_FAILED
    )
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
