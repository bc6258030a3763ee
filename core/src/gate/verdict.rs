//! The gate's answer. Fixed-capacity, so evaluating a command allocates nothing.

use super::approved::ApprovedCommand;
use super::ids::{self, FindingKind};
use crate::command::Command;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How serious a finding is; the record spells it in snake case (`"deny"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
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

impl Finding {
    /// What its id says about the denial: what stands in the way, whether it passes by itself
    /// ([`ids::kind`]).
    pub fn kind(&self) -> FindingKind {
        ids::kind(self.id)
    }

    pub(crate) const fn deny(
        id: &'static str,
        reason: &'static str,
        limit: f64,
        measured: f64,
    ) -> Self {
        Self {
            id,
            severity: Severity::Deny,
            reason,
            limit,
            measured,
        }
    }

    pub(crate) const fn clamp(
        id: &'static str,
        reason: &'static str,
        limit: f64,
        measured: f64,
    ) -> Self {
        Self {
            severity: Severity::Clamp,
            ..Self::deny(id, reason, limit, measured)
        }
    }
}

/// At most this many findings are kept per verdict (the most severe first).
pub const MAX_FINDINGS: usize = 8;

/// Findings of one evaluation.
pub type Findings = heapless::Vec<Finding, MAX_FINDINGS>;

/// Adds `f`, keeping the most severe first and, within a severity, the order of the checks;
/// when full, the least severe (latest) finding gives way.
pub(crate) fn push_finding(findings: &mut Findings, f: Finding) {
    let at = findings
        .iter()
        .position(|g| g.severity < f.severity)
        .unwrap_or(findings.len());
    if findings.is_full() {
        if at == findings.len() {
            return;
        }
        findings.pop();
    }
    // Cannot fail: there is room now.
    let _ = findings.insert(at, f);
}

/// Which way the gate decided, without the command or the findings: what the record's verdict
/// event keeps, spelt as the gate's verdict tags itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictOutcome {
    Approved,
    Clamped,
    Denied,
}

impl VerdictOutcome {
    /// The serialized spelling, for text that quotes the outcome.
    pub const fn as_str(self) -> &'static str {
        match self {
            VerdictOutcome::Approved => "approved",
            VerdictOutcome::Clamped => "clamped",
            VerdictOutcome::Denied => "denied",
        }
    }
}

impl std::fmt::Display for VerdictOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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

    pub fn outcome(&self) -> VerdictOutcome {
        match self {
            Verdict::Approved(_) => VerdictOutcome::Approved,
            Verdict::Clamped { .. } => VerdictOutcome::Clamped,
            Verdict::Denied(_) => VerdictOutcome::Denied,
        }
    }

    /// `command` approved at `now_ms` in place of what was asked, with the finding that says
    /// why.
    pub(crate) fn instead(command: Command, finding: Finding, now_ms: u64) -> Self {
        let mut findings = Findings::new();
        push_finding(&mut findings, finding);
        Verdict::Clamped {
            approved: ApprovedCommand::new(command, now_ms),
            findings,
        }
    }

    /// Denied for one finding.
    pub(crate) fn denied(finding: Finding) -> Self {
        let mut findings = Findings::new();
        push_finding(&mut findings, finding);
        Verdict::Denied(findings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_keep_the_most_severe_first_and_in_check_order() {
        let mut fs = Findings::new();
        for i in 0..MAX_FINDINGS {
            push_finding(&mut fs, Finding::clamp("gate.a.clamp", "", i as f64, 0.0));
        }
        push_finding(&mut fs, Finding::deny("gate.b.deny", "", 1.0, 0.0));
        push_finding(&mut fs, Finding::deny("gate.c.deny", "", 2.0, 0.0));
        assert_eq!(fs.len(), MAX_FINDINGS);
        assert_eq!(fs[0].id, "gate.b.deny");
        assert_eq!(fs[1].id, "gate.c.deny");
        assert_eq!(fs[2].limit, 0.0);
        assert_eq!(fs[MAX_FINDINGS - 1].limit, 5.0);
        // A full list of denials drops a new clamp.
        let mut fs = Findings::new();
        for _ in 0..MAX_FINDINGS {
            push_finding(&mut fs, Finding::deny("gate.b.deny", "", 0.0, 0.0));
        }
        push_finding(&mut fs, Finding::clamp("gate.a.clamp", "", 0.0, 0.0));
        assert!(fs.iter().all(|f| f.severity == Severity::Deny));
    }

    #[test]
    fn outcomes_and_severities_keep_their_recorded_spelling() {
        let denied = Verdict::denied(Finding::deny("gate.b.deny", "", 0.0, 0.0));
        assert_eq!(denied.outcome(), VerdictOutcome::Denied);
        // The record wrote these literals before the outcome was typed.
        for (o, old) in [
            (VerdictOutcome::Approved, "approved"),
            (VerdictOutcome::Clamped, "clamped"),
            (VerdictOutcome::Denied, "denied"),
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), old);
            assert_eq!(o.as_str(), old);
        }
        // The record wrote `format!("{:?}", severity).to_lowercase()` before it was typed.
        for s in [Severity::Info, Severity::Clamp, Severity::Deny] {
            let old = format!("{s:?}").to_lowercase();
            assert_eq!(serde_json::to_value(s).unwrap(), old.as_str());
        }
    }
}
