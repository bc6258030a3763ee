//! Which autopilot parameters alpha3 may write. The autopilot's own geofence, failsafes,
//! arming checks and identity are the last line of defence behind the gate; a companion that
//! rewrote them (by mistake, or steered by a prompt) could switch that line off. So they are
//! never written unless the configuration names each one explicitly, and every write that is
//! allowed is logged.

use crate::error::HilError;
use std::collections::BTreeSet;

/// The kinds of parameters that are protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtectedClass {
    Fence,
    Failsafe,
    Arming,
    SystemId,
}

impl ProtectedClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ProtectedClass::Fence => "fence",
            ProtectedClass::Failsafe => "failsafe",
            ProtectedClass::Arming => "arming",
            ProtectedClass::SystemId => "system id",
        }
    }
}

/// (prefix, class) for PX4 and ArduPilot names; a name matches when it starts with the prefix.
const PROTECTED: &[(&str, ProtectedClass)] = &[
    // Geofence: PX4 GF_*, ArduPilot FENCE_*.
    ("GF_", ProtectedClass::Fence),
    ("FENCE_", ProtectedClass::Fence),
    // Failsafes: data link, RC, offboard, battery, position loss, return behaviour.
    ("NAV_DLL_", ProtectedClass::Failsafe),
    ("NAV_RCL_", ProtectedClass::Failsafe),
    ("COM_DL_", ProtectedClass::Failsafe),
    ("COM_RC_LOSS", ProtectedClass::Failsafe),
    ("COM_OF_LOSS", ProtectedClass::Failsafe),
    ("COM_OBL_", ProtectedClass::Failsafe),
    ("COM_LOW_BAT", ProtectedClass::Failsafe),
    ("COM_POSCTL_NAVL", ProtectedClass::Failsafe),
    ("COM_POS_FS", ProtectedClass::Failsafe),
    ("COM_FAIL_ACT", ProtectedClass::Failsafe),
    ("BAT_LOW_THR", ProtectedClass::Failsafe),
    ("BAT_CRIT_THR", ProtectedClass::Failsafe),
    ("BAT_EMERGEN_THR", ProtectedClass::Failsafe),
    ("RTL_", ProtectedClass::Failsafe),
    ("FS_", ProtectedClass::Failsafe),
    ("BATT_FS_", ProtectedClass::Failsafe),
    ("BATT_LOW_", ProtectedClass::Failsafe),
    ("BATT_CRT_", ProtectedClass::Failsafe),
    ("THR_FS", ProtectedClass::Failsafe),
    // Arming checks and circuit breakers.
    ("COM_ARM_", ProtectedClass::Arming),
    ("COM_PREARM", ProtectedClass::Arming),
    ("COM_DISARM", ProtectedClass::Arming),
    ("CBRK_", ProtectedClass::Arming),
    ("ARMING_", ProtectedClass::Arming),
    // Identity on the MAVLink network.
    ("MAV_SYS_ID", ProtectedClass::SystemId),
    ("MAV_COMP_ID", ProtectedClass::SystemId),
    ("SYSID_", ProtectedClass::SystemId),
    // ArduPilot 4.7's names for SYSID_THISMAV and SYSID_MYGCS.
    ("MAV_SYSID", ProtectedClass::SystemId),
    ("MAV_GCS_SYSID", ProtectedClass::SystemId),
    // ArduCopter: the auto-disarm delay after arming or landing.
    ("DISARM_DELAY", ProtectedClass::Arming),
];

/// The protected class of parameter `name`, if it has one.
pub fn protected_class(name: &str) -> Option<ProtectedClass> {
    let upper = name.trim().to_ascii_uppercase();
    PROTECTED
        .iter()
        .find(|(prefix, _)| upper.starts_with(prefix))
        .map(|(_, class)| *class)
}

/// The protected parameters a configuration named for writing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamWritePolicy {
    named: BTreeSet<String>,
}

impl ParamWritePolicy {
    /// Allows writing exactly these names (upper-cased, as autopilots spell them).
    pub fn naming<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self {
            named: names
                .into_iter()
                .map(|n| n.as_ref().trim().to_ascii_uppercase())
                .collect(),
        }
    }

    /// Whether `name` may be written: unprotected names always, protected ones only when
    /// named.
    pub fn check(&self, name: &str) -> Result<(), HilError> {
        match protected_class(name) {
            Some(class) if !self.named.contains(&name.trim().to_ascii_uppercase()) => {
                Err(HilError::ParamWriteRefused {
                    name: name.to_string(),
                    class: class.as_str(),
                })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_failsafe_arming_and_identity_parameters_are_protected() {
        for (name, class) in [
            ("GF_ACTION", ProtectedClass::Fence),
            ("GF_MAX_HOR_DIST", ProtectedClass::Fence),
            ("FENCE_ENABLE", ProtectedClass::Fence),
            ("NAV_DLL_ACT", ProtectedClass::Failsafe),
            ("NAV_RCL_ACT", ProtectedClass::Failsafe),
            ("COM_OBL_RC_ACT", ProtectedClass::Failsafe),
            ("COM_LOW_BAT_ACT", ProtectedClass::Failsafe),
            ("RTL_RETURN_ALT", ProtectedClass::Failsafe),
            ("FS_THR_ENABLE", ProtectedClass::Failsafe),
            ("BATT_FS_LOW_ACT", ProtectedClass::Failsafe),
            ("COM_ARM_WO_GPS", ProtectedClass::Arming),
            ("CBRK_SUPPLY_CHK", ProtectedClass::Arming),
            ("ARMING_CHECK", ProtectedClass::Arming),
            ("MAV_SYS_ID", ProtectedClass::SystemId),
            ("SYSID_THISMAV", ProtectedClass::SystemId),
            ("MAV_SYSID", ProtectedClass::SystemId),
            ("MAV_GCS_SYSID", ProtectedClass::SystemId),
            ("FS_GCS_TIMEOUT", ProtectedClass::Failsafe),
            ("BATT_FS_CRT_ACT", ProtectedClass::Failsafe),
            ("FENCE_ALT_MAX", ProtectedClass::Fence),
            ("RTL_ALT", ProtectedClass::Failsafe),
            ("gf_action", ProtectedClass::Fence),
        ] {
            assert_eq!(protected_class(name), Some(class), "{name}");
        }
        for name in [
            "MPC_XY_CRUISE",
            "SR0_POSITION",
            "MIS_TAKEOFF_ALT",
            "MAV_0_RATE",
            "MAV2_POSITION",
            "WPNAV_SPEED",
        ] {
            assert_eq!(protected_class(name), None, "{name}");
        }
    }

    #[test]
    fn a_protected_write_needs_its_own_name_in_the_config() {
        let none = ParamWritePolicy::default();
        assert!(matches!(
            none.check("GF_ACTION"),
            Err(HilError::ParamWriteRefused { class: "fence", .. })
        ));
        assert!(none.check("MPC_XY_CRUISE").is_ok());
        let some = ParamWritePolicy::naming(["gf_action", "NAV_DLL_ACT"]);
        assert!(some.check("GF_ACTION").is_ok());
        assert!(some.check("NAV_DLL_ACT").is_ok());
        // Naming one fence parameter does not open the others.
        assert!(some.check("GF_MAX_HOR_DIST").is_err());
        assert!(some.check("MAV_SYS_ID").is_err());
    }
}
