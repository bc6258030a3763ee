//! Preflight: the autopilot's own failsafes, read over the PARAM protocol and reported; flight
//! is refused when the config requires a failsafe that is off or cannot be read. A parameter
//! that firmware renamed is read under both names (ArduPilot 4.7's `MAV_GCS_SYSID` was
//! `SYSID_MYGCS`); the new name wins when both answer.

use crate::param::ParamValue;
use crate::profile::{FailsafeParam, OffWhen, Profile};
use std::collections::BTreeMap;
use std::fmt;

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
    /// Names to read: the profile's failsafes (under their older names too) and any extra
    /// required ones.
    pub fn names(profile: Profile, required: &[String]) -> Vec<String> {
        let mut names: Vec<String> = profile
            .failsafes()
            .iter()
            .flat_map(|f| std::iter::once(f.name).chain(f.older))
            .map(str::to_string)
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
        let older: Vec<&str> = profile.failsafes().iter().filter_map(|f| f.older).collect();
        let wanted = |name: &str| required.iter().any(|r| r == name);
        let readings = Self::names(profile, required)
            .into_iter()
            // An older name is shown in its new name's row, unless the config names it.
            .filter(|name| !older.contains(&name.as_str()) || wanted(name))
            .map(|asked| {
                let known = profile.failsafes().iter().find(|f| f.name == asked);
                let param = known.copied().unwrap_or(FailsafeParam::new(
                    "",
                    "required by config",
                    OffWhen::Zero,
                ));
                let required = wanted(&asked) || param.older.is_some_and(wanted);
                let answered = std::iter::once(asked.as_str())
                    .chain(param.older)
                    .find_map(|n| values.get(n).map(|v| (n.to_string(), *v)));
                let (name, value) = match answered {
                    Some((n, v)) => (n, Some(v)),
                    None => (asked, None),
                };
                FailsafeReading {
                    off: value.is_some_and(|v| param.is_off(v)),
                    required,
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

    /// The height above home the autopilot's own return climbs to, metres: PX4's
    /// `RTL_RETURN_ALT` is in metres, ArduPilot's `RTL_ALT` in centimetres.
    pub fn return_altitude_m(&self) -> Option<f64> {
        let (name, per_metre) = match self.profile {
            Profile::Px4 => ("RTL_RETURN_ALT", 1.0),
            Profile::ArduPilot => ("RTL_ALT", 100.0),
        };
        let r = self.readings.iter().find(|r| r.name == name)?;
        Some(r.value?.as_f64() / per_metre)
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
    fn renamed_parameters_are_read_under_either_name_and_rtl_alt_is_centimetres() {
        let new = values(&[
            ("MAV_GCS_SYSID", ParamValue::Int(255)),
            ("RTL_ALT", ParamValue::Int(1500)),
        ]);
        let report = PreflightReport::evaluate(Profile::ArduPilot, &[], &new);
        let names: Vec<_> = report.readings.iter().map(|r| r.name.as_str()).collect();
        assert!(names.contains(&"MAV_GCS_SYSID") && !names.contains(&"SYSID_MYGCS"));
        assert_eq!(report.return_altitude_m(), Some(15.0));
        let old = values(&[("SYSID_MYGCS", ParamValue::Int(255))]);
        let report = PreflightReport::evaluate(Profile::ArduPilot, &[], &old);
        let gcs = report
            .readings
            .iter()
            .find(|r| r.what.contains("GCS failsafe watches"))
            .unwrap();
        assert_eq!(
            (gcs.name.as_str(), gcs.value),
            ("SYSID_MYGCS", Some(ParamValue::Int(255)))
        );
        assert!(
            PreflightReport::names(Profile::ArduPilot, &[]).contains(&"SYSID_MYGCS".to_string())
        );
        // Requiring the failsafe by its old name is honoured when only the old name answers.
        let required = vec!["FS_GCS_ENABLE".to_string()];
        let off = values(&[("FS_GCS_ENABLE", ParamValue::Int(0))]);
        let report = PreflightReport::evaluate(Profile::ArduPilot, &required, &off);
        assert_eq!(
            report.refusals(),
            ["FS_GCS_ENABLE (GCS (data-link) failsafe) is off: 0"]
        );
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
