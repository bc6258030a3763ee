//! Runs a [`Procedure`] step by step against the command machine, the setpoint stream and
//! telemetry, and decides how it ended. Sans-IO: time and the snapshot are arguments.

use crate::command::{CommandMachine, CommandOutcome, Target};
use crate::confirm::Confirm;
use crate::dialect::{MavMessage, mav};
use crate::offboard::SetpointStream;
use crate::translate::{Procedure, Step};
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use std::collections::VecDeque;

/// How a procedure ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ProcedureOutcome {
    /// Telemetry showed the command took effect.
    Confirmed,
    /// The autopilot said no (COMMAND_ACK).
    Refused { result: mav::MavResult },
    /// Acknowledged, but telemetry did not show `expected` in time.
    Unconfirmed { expected: String },
    /// The autopilot never answered.
    TimedOut { what: String, waited_ms: u64 },
    /// A newer command replaced it first.
    Superseded,
    /// The link stopped commanding the autopilot first (`reason`): e.g. it came back and
    /// has to prove again what it is.
    Withdrawn { reason: String },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Wait {
    /// Start the step at `step`.
    Next,
    Command,
    Stream {
        until_us: u64,
    },
    /// Stop the stream once the autopilot has left OFFBOARD.
    LeaveOffboard {
        deadline_us: u64,
    },
    Await {
        until: Confirm,
        deadline_us: u64,
    },
    Confirm {
        deadline_us: u64,
    },
}

/// The parts of a session a procedure drives.
#[derive(Debug)]
pub struct ProcedureIo<'a> {
    pub commands: &'a mut CommandMachine,
    pub stream: &'a mut SetpointStream,
    pub outbox: &'a mut VecDeque<MavMessage>,
    pub target: Target,
}

/// One procedure in progress.
#[derive(Debug, Clone)]
pub struct ProcedureRunner {
    pub id: u64,
    pub procedure: Procedure,
    pub started_us: u64,
    step: usize,
    wait: Wait,
    confirm_us: u64,
    command_result: Option<CommandOutcome>,
}

impl ProcedureRunner {
    pub fn new(id: u64, procedure: Procedure, now_us: u64, confirm_ms: u64) -> Self {
        Self {
            id,
            procedure,
            started_us: now_us,
            step: 0,
            wait: Wait::Next,
            confirm_us: confirm_ms * 1000,
            command_result: None,
        }
    }

    /// The command machine finished the command this procedure started.
    pub fn command_done(&mut self, outcome: CommandOutcome) {
        if self.wait == Wait::Command {
            self.command_result = Some(outcome);
        }
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        match self.wait {
            Wait::Stream { until_us } => Some(until_us),
            Wait::LeaveOffboard { deadline_us }
            | Wait::Await { deadline_us, .. }
            | Wait::Confirm { deadline_us } => Some(deadline_us),
            Wait::Next | Wait::Command => None,
        }
    }

    /// Goes as far as it can now; `Some` when the procedure has ended.
    pub fn advance(
        &mut self,
        now_us: u64,
        snap: &VehicleSnapshot,
        io: &mut ProcedureIo<'_>,
    ) -> Option<ProcedureOutcome> {
        loop {
            match self.wait {
                Wait::Next => self.start_step(now_us, io),
                Wait::Command => match self.command_result.take()? {
                    CommandOutcome::Accepted { .. } => self.next_step(),
                    CommandOutcome::Refused { result } => {
                        return Some(ProcedureOutcome::Refused { result });
                    }
                    CommandOutcome::TimedOut { waited_ms, .. } => {
                        let what = match self.procedure.steps.get(self.step) {
                            Some(Step::Command(spec)) => format!("{:?}", spec.command),
                            _ => self.procedure.command.to_string(),
                        };
                        return Some(ProcedureOutcome::TimedOut { what, waited_ms });
                    }
                },
                Wait::Stream { until_us } => {
                    if now_us < until_us {
                        return None;
                    }
                    self.next_step();
                }
                Wait::LeaveOffboard { deadline_us } => {
                    if snap.mode != FlightMode::Offboard {
                        io.stream.stop();
                    } else if now_us < deadline_us {
                        return None;
                    }
                    // Still in OFFBOARD at the deadline: keep streaming, or PX4 would see a
                    // lost companion; the procedure's confirmation will report the failure.
                    self.next_step();
                }
                Wait::Await { until, deadline_us } => {
                    if until.is_met(snap) {
                        self.next_step();
                    } else if now_us >= deadline_us {
                        return Some(ProcedureOutcome::Unconfirmed {
                            expected: until.describe(),
                        });
                    } else {
                        return None;
                    }
                }
                Wait::Confirm { deadline_us } => {
                    if self.procedure.confirm.is_met(snap) {
                        return Some(ProcedureOutcome::Confirmed);
                    }
                    if now_us >= deadline_us {
                        return Some(ProcedureOutcome::Unconfirmed {
                            expected: self.procedure.confirm.describe(),
                        });
                    }
                    return None;
                }
            }
        }
    }

    fn next_step(&mut self) {
        self.step += 1;
        self.wait = Wait::Next;
    }

    fn start_step(&mut self, now_us: u64, io: &mut ProcedureIo<'_>) {
        let Some(step) = self.procedure.steps.get(self.step) else {
            self.wait = Wait::Confirm {
                deadline_us: now_us + self.confirm_us,
            };
            return;
        };
        match step {
            Step::Command(spec) => {
                io.commands.start(now_us, *spec, io.target);
                self.wait = Wait::Command;
            }
            Step::Send(message) => {
                io.outbox.push_back(message.clone());
                self.next_step();
            }
            Step::Stream {
                setpoint,
                warmup_ms,
            } => {
                io.stream.set(now_us, setpoint.clone());
                let streamed = io.stream.streamed_us(now_us);
                self.wait = Wait::Stream {
                    until_us: now_us + (warmup_ms * 1000).saturating_sub(streamed),
                };
            }
            Step::StopStream => {
                self.wait = Wait::LeaveOffboard {
                    deadline_us: now_us + self.confirm_us,
                };
            }
            Step::Await { until, within_ms } => {
                self.wait = Wait::Await {
                    until: *until,
                    deadline_us: now_us + within_ms * 1000,
                };
            }
        }
    }
}
