//! Preflight: the autopilot's own failsafes, read over the PARAM protocol and reported; flight
//! is refused when the config requires a failsafe that is off or cannot be read.

use crate::param::ParamValue;
use crate::profile::Profile;
use std::collections::BTreeMap;
use std::fmt;

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
    pub what: &'static str,
    pub off_when: OffWhen,
}

impl FailsafeParam {
    pub const fn new(name: &'static str, what: &'static str, off_when: OffWhen) -> Self {
        Self {
            name,
            what,
            off_when,
        }
    }

    fn is_off(&self, v: ParamValue) -> bool {
        match self.off_when {
            OffWhen::Zero => v.as_f64() == 0.0,
            OffWhen::AtMost(limit) => v.as_f64() <= limit as f64,
            OffWhen::Never => false,
        }
    }
}

/// One parameter as read.
#[derive(Debug, Clone, PartialEq)]
pub struct FailsafeReading {
    pub name: String,
    pub what: &'static str,
    /// `None` when the autopilot did not answer.
    pub value: Option<ParamValue>,
    pub off: bool,
    pub required: bool,
}

/// Everything preflight found.
#[derive(Debug, Clone, PartialEq)]
pub struct PreflightReport {
    pub profile: Profile,
    pub readings: Vec<FailsafeReading>,
}

impl PreflightReport {
    /// Names to read: the profile's failsafes and any extra required ones.
    pub fn names(profile: Profile, required: &[String]) -> Vec<String> {
        let mut names: Vec<String> = profile
            .failsafes()
            .iter()
            .map(|f| f.name.to_string())
            .collect();
        for r in required {
            if !names.contains(r) {
                names.push(r.clone());
            }
        }
        names
    }

    pub fn evaluate(
        profile: Profile,
        required: &[String],
        values: &BTreeMap<String, ParamValue>,
    ) -> Self {
        let readings = Self::names(profile, required)
            .into_iter()
            .map(|name| {
                let known = profile.failsafes().iter().find(|f| f.name == name);
                let param = known.copied().unwrap_or(FailsafeParam::new(
                    "",
                    "required by config",
                    OffWhen::Zero,
                ));
                let value = values.get(&name).copied();
                FailsafeReading {
                    off: value.is_some_and(|v| param.is_off(v)),
                    required: required.contains(&name),
                    what: param.what,
                    value,
                    name,
                }
            })
            .collect();
        Self { profile, readings }
    }

    /// Why flight is refused; empty when it is not.
    pub fn refusals(&self) -> Vec<String> {
        self.readings
            .iter()
            .filter(|r| r.required)
            .filter_map(|r| match r.value {
                None => Some(format!("{} ({}) could not be read", r.name, r.what)),
                Some(v) if r.off => Some(format!("{} ({}) is off: {v}", r.name, r.what)),
                Some(_) => None,
            })
            .collect()
    }

    pub fn is_ok(&self) -> bool {
        self.refusals().is_empty()
    }
}

impl fmt::Display for PreflightReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} failsafes:", self.profile.name())?;
        for r in &self.readings {
            let value = r.value.map_or("unread".to_string(), |v| v.to_string());
            let state = if r.value.is_none() {
                "?"
            } else if r.off {
                "off"
            } else {
                "on"
            };
            let req = if r.required { " (required)" } else { "" };
            writeln!(
                f,
                "  {:<16} {:>8} {:<3} {}{}",
                r.name, value, state, r.what, req
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn a_required_failsafe_that_is_off_refuses_flight() {
        let required = vec!["NAV_DLL_ACT".to_string()];
        let v = values(&[
            ("NAV_DLL_ACT", ParamValue::Int(0)),
            ("GF_ACTION", ParamValue::Int(1)),
        ]);
        let report = PreflightReport::evaluate(Profile::Px4, &required, &v);
        assert_eq!(
            report.refusals(),
            ["NAV_DLL_ACT (data-link loss action) is off: 0"]
        );
        let gf = report
            .readings
            .iter()
            .find(|r| r.name == "GF_ACTION")
            .unwrap();
        assert!(
            gf.off && !gf.required,
            "warn-only fence is off, but not required here"
        );
        assert!(report.to_string().contains("NAV_DLL_ACT"));
    }

    #[test]
    fn unread_required_parameters_refuse_and_unknown_names_are_checked_for_zero() {
        let required = vec!["NAV_DLL_ACT".to_string(), "MY_FS".to_string()];
        let v = values(&[("MY_FS", ParamValue::Int(3))]);
        let report = PreflightReport::evaluate(Profile::Px4, &required, &v);
        assert_eq!(
            report.refusals(),
            ["NAV_DLL_ACT (data-link loss action) could not be read"]
        );
        let ok = values(&[
            ("MY_FS", ParamValue::Int(3)),
            ("NAV_DLL_ACT", ParamValue::Int(2)),
        ]);
        assert!(PreflightReport::evaluate(Profile::Px4, &required, &ok).is_ok());
    }
}
