//! Runs a [`Plan`] step by step against the command machine, the setpoint stream and
//! telemetry, and decides how it ended. Sans-IO: time and the snapshot are arguments.

use crate::command::{CommandMachine, CommandOutcome, Target};
use crate::confirm::Confirm;
use crate::dialect::{MavMessage, mav};
use crate::offboard::SetpointStream;
use crate::translate::{Plan, Step};
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use std::collections::VecDeque;

/// How a plan ended.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanOutcome {
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

/// The parts of a session a plan drives.
#[derive(Debug)]
pub struct PlanIo<'a> {
    pub commands: &'a mut CommandMachine,
    pub stream: &'a mut SetpointStream,
    pub outbox: &'a mut VecDeque<MavMessage>,
    pub target: Target,
}

/// One plan in progress.
#[derive(Debug, Clone)]
pub struct PlanRunner {
    pub id: u64,
    pub plan: Plan,
    pub started_us: u64,
    step: usize,
    wait: Wait,
    confirm_us: u64,
    command_result: Option<CommandOutcome>,
}

impl PlanRunner {
    pub fn new(id: u64, plan: Plan, now_us: u64, confirm_ms: u64) -> Self {
        Self {
            id,
            plan,
            started_us: now_us,
            step: 0,
            wait: Wait::Next,
            confirm_us: confirm_ms * 1000,
            command_result: None,
        }
    }

    /// The command machine finished the command this plan started.
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

    /// Goes as far as it can now; `Some` when the plan has ended.
    pub fn advance(
        &mut self,
        now_us: u64,
        snap: &VehicleSnapshot,
        io: &mut PlanIo<'_>,
    ) -> Option<PlanOutcome> {
        loop {
            match self.wait {
                Wait::Next => self.start_step(now_us, io),
                Wait::Command => match self.command_result.take()? {
                    CommandOutcome::Accepted { .. } => self.next_step(),
                    CommandOutcome::Refused { result } => {
                        return Some(PlanOutcome::Refused { result });
                    }
                    CommandOutcome::TimedOut { waited_ms, .. } => {
                        let what = match self.plan.steps.get(self.step) {
                            Some(Step::Command(spec)) => format!("{:?}", spec.command),
                            _ => self.plan.command.to_string(),
                        };
                        return Some(PlanOutcome::TimedOut { what, waited_ms });
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
                    // lost companion; the plan's confirmation will report the failure.
                    self.next_step();
                }
                Wait::Await { until, deadline_us } => {
                    if until.is_met(snap) {
                        self.next_step();
                    } else if now_us >= deadline_us {
                        return Some(PlanOutcome::Unconfirmed {
                            expected: until.describe(),
                        });
                    } else {
                        return None;
                    }
                }
                Wait::Confirm { deadline_us } => {
                    if self.plan.confirm.is_met(snap) {
                        return Some(PlanOutcome::Confirmed);
                    }
                    if now_us >= deadline_us {
                        return Some(PlanOutcome::Unconfirmed {
                            expected: self.plan.confirm.describe(),
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

    fn start_step(&mut self, now_us: u64, io: &mut PlanIo<'_>) {
        let Some(step) = self.plan.steps.get(self.step) else {
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
