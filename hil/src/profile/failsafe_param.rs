//! A profile's failsafe parameters: which autopilot parameter guards which failsafe, and which
//! values of it mean "off". Preflight reads them; each profile lists its own.

use crate::param::ParamValue;

/// When a failsafe parameter means "off".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OffWhen {
    Zero,
    /// Off at or below this value (e.g. PX4 GF_ACTION 0 none, 1 warn only).
    AtMost(i64),
    /// Every value is an action; reported for information.
    Never,
}

/// A failsafe parameter of a profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FailsafeParam {
    pub name: &'static str,
    /// The name older firmware gives it, read when `name` does not answer.
    pub older: Option<&'static str>,
    pub what: &'static str,
    pub off_when: OffWhen,
}

impl FailsafeParam {
    pub const fn new(name: &'static str, what: &'static str, off_when: OffWhen) -> Self {
        Self {
            name,
            older: None,
            what,
            off_when,
        }
    }

    /// The same parameter, called `older` by older firmware.
    pub const fn formerly(self, older: &'static str) -> Self {
        Self {
            older: Some(older),
            ..self
        }
    }

    /// Whether the value `v` read for this parameter means the failsafe is off.
    pub fn is_off(&self, v: ParamValue) -> bool {
        match self.off_when {
            OffWhen::Zero => v.as_f64() == 0.0,
            OffWhen::AtMost(limit) => v.as_f64() <= limit as f64,
            OffWhen::Never => false,
        }
    }
}
