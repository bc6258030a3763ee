//! The gate's answer. Fixed-capacity, so evaluating a command allocates nothing.

use super::approved::ApprovedCommand;
use serde::Serialize;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Recorded; the command passes unchanged.
    Info,
    /// The command was changed to pass (clamped).
    Clamp,
    /// The command is refused.
    Deny,
}

/// One check's result: a stable dotted id, the limit and the measured value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Finding {
    /// Stable id, e.g. `gate.geofence.outside`.
    pub id: &'static str,
    pub severity: Severity,
    /// Why, in a few words.
    pub reason: &'static str,
    pub limit: f64,
    pub measured: f64,
}

/// At most this many findings are kept per verdict (the most severe first).
pub const MAX_FINDINGS: usize = 8;

/// Findings of one evaluation.
pub type Findings = heapless::Vec<Finding, MAX_FINDINGS>;

/// The gate's decision on one command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Verdict {
    Approved(ApprovedCommand),
    Clamped {
        approved: ApprovedCommand,
        findings: Findings,
    },
    Denied(Findings),
}

impl Verdict {
    pub fn approved(&self) -> Option<&ApprovedCommand> {
        match self {
            Verdict::Approved(a) | Verdict::Clamped { approved: a, .. } => Some(a),
            Verdict::Denied(_) => None,
        }
    }

    pub fn findings(&self) -> &[Finding] {
        match self {
            Verdict::Approved(_) => &[],
            Verdict::Clamped { findings, .. } | Verdict::Denied(findings) => findings,
        }
    }

    pub fn outcome(&self) -> &'static str {
        match self {
            Verdict::Approved(_) => "approved",
            Verdict::Clamped { .. } => "clamped",
            Verdict::Denied(_) => "denied",
        }
    }
}
