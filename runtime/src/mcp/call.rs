//! A tool call on its way from an MCP session to the episode loop, and the answer that goes
//! back once the loop has run it.

use super::caller::Caller;
use super::caps::OverCap;
use alpha3_core::protocol::tools::CommandStatus;
use serde_json::Value;
use tokio::sync::oneshot;

/// One `tools/call`, handed to the episode loop's policy.
#[derive(Debug)]
pub struct CallRequest {
    /// The tool's name (an excerpt when over its cap).
    pub name: String,
    /// The arguments (excerpts when over a cap).
    pub arguments: Value,
    pub caller: Caller,
    /// The cap the call is over: it is refused, and only its excerpt is recorded.
    pub over_cap: Option<OverCap>,
    pub reply: oneshot::Sender<CallReply>,
}

/// What the loop made of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallReply {
    /// The call was the agent's action: its observation (a tool result, or the gate's denial
    /// with its findings), with the telemetry after it played out.
    Observed {
        result: Value,
        /// The action did not do what was asked (denied, failed, held back by the slice
        /// policy).
        refused: bool,
        telemetry: Value,
    },
    /// The call failed the schema check and was not run.
    Rejected { error: String },
    /// The call was refused before the schema check (over a cap, or an acting call from a
    /// session that does not hold control) and was not run.
    Refused { reason: String },
    /// The call was not run: the episode had ended, or ended before the call's turn.
    NotRun { reason: String },
}

impl CallReply {
    /// The reply for an observation of the catalogue's tools: refused when its `status` says
    /// the action did not happen.
    pub fn observed(result: Value, telemetry: Value) -> Self {
        let refused = matches!(
            CommandStatus::of(&result),
            Some(
                CommandStatus::Denied
                    | CommandStatus::Failed
                    | CommandStatus::Deferred
                    | CommandStatus::Buffered
            )
        );
        CallReply::Observed {
            result,
            refused,
            telemetry,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_denial_or_a_hold_back_is_refused_and_a_reading_is_not() {
        for (status, refused) in [
            ("denied", true),
            ("failed", true),
            ("deferred", true),
            ("buffered", true),
            ("accepted", false),
            ("completed", false),
        ] {
            let r = CallReply::observed(json!({"status": status}), json!({}));
            assert!(
                matches!(r, CallReply::Observed { refused: r, .. } if r == refused),
                "{status}"
            );
        }
        let telemetry = CallReply::observed(json!({"pose": {}}), json!({}));
        assert!(matches!(
            telemetry,
            CallReply::Observed { refused: false, .. }
        ));
    }
}
