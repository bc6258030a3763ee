//! The autopilot's own airspace: the fence and rally plans it holds (downloaded over the
//! mission protocol) and the limits its parameters set. The gate must never approve what the
//! autopilot's fence forbids, so all of it narrows the airspace a plan is flown in.

use crate::mission_file::{Fence, GeoPoint};
use std::collections::BTreeMap;

/// Which autopilot's parameters are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Firmware {
    Px4,
    ArduPilot,
}

/// A limit the autopilot enforces, and the parameter it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamLimit {
    pub value: f64,
    /// `GF_MAX_VER_DIST = 100 (GF_ACTION 2)`, for the record.
    pub source: String,
}

/// What the autopilot holds and enforces, as read at connect.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AutopilotAirspace {
    /// Its FENCE plan.
    pub fence: Fence,
    /// Its RALLY plan.
    pub rally: Vec<GeoPoint>,
    /// Highest altitude above home it allows.
    pub max_altitude: Option<ParamLimit>,
    /// Lowest altitude above home it allows while flying.
    pub min_altitude: Option<ParamLimit>,
    /// ArduPilot's circle fence around home (`FENCE_RADIUS`), when enforced.
    pub home_circle: Option<ParamLimit>,
}

/// The parameters [`AutopilotAirspace::limits_from_params`] reads, per autopilot.
pub fn fence_params(firmware: Firmware) -> &'static [&'static str] {
    match firmware {
        Firmware::Px4 => &["GF_ACTION", "GF_MAX_VER_DIST", "GF_MAX_HOR_DIST"],
        Firmware::ArduPilot => &[
            "FENCE_ENABLE",
            "FENCE_TYPE",
            "FENCE_ALT_MAX",
            "FENCE_ALT_MIN",
            "FENCE_RADIUS",
        ],
    }
}

impl AutopilotAirspace {
    /// The limits its parameters set, counted only where the autopilot enforces them
    /// (MISSION-FACTS §3): PX4's `GF_MAX_VER_DIST` (and `GF_MAX_HOR_DIST`, a circle around
    /// home) when `GF_ACTION` ≠ 0 and the distance > 0; ArduPilot's `FENCE_ALT_MAX` (type bit
    /// 1), `FENCE_RADIUS` (bit 2) and `FENCE_ALT_MIN` (bit 8) when `FENCE_ENABLE` = 1. A
    /// parameter not read leaves its limit out.
    pub fn limits_from_params(&mut self, firmware: Firmware, params: &BTreeMap<String, f64>) {
        let get = |name: &str| params.get(name).copied().filter(|v| v.is_finite());
        match firmware {
            Firmware::Px4 => {
                let Some(action) = get("GF_ACTION").filter(|a| *a != 0.0) else {
                    return;
                };
                let limit = |name: &str| {
                    get(name).filter(|v| *v > 0.0).map(|value| ParamLimit {
                        value,
                        source: format!("PX4 {name} = {value} (GF_ACTION {action})"),
                    })
                };
                self.max_altitude = limit("GF_MAX_VER_DIST");
                self.home_circle = limit("GF_MAX_HOR_DIST");
            }
            Firmware::ArduPilot => {
                if get("FENCE_ENABLE") != Some(1.0) {
                    return;
                }
                let kinds = get("FENCE_TYPE").map_or(0, |t| t as i64);
                let limit = |bit: i64, name: &str| {
                    (kinds & bit != 0)
                        .then(|| get(name))
                        .flatten()
                        .map(|value| ParamLimit {
                            value,
                            source: format!(
                                "ArduPilot {name} = {value} (FENCE_ENABLE 1, FENCE_TYPE {kinds})"
                            ),
                        })
                };
                self.max_altitude = limit(1, "FENCE_ALT_MAX");
                self.home_circle = limit(2, "FENCE_RADIUS").filter(|l| l.value > 0.0);
                self.min_altitude = limit(8, "FENCE_ALT_MIN").filter(|l| l.value > 0.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn px4_limits_count_only_with_a_geofence_action() {
        let mut a = AutopilotAirspace::default();
        a.limits_from_params(
            Firmware::Px4,
            &params(&[("GF_ACTION", 0.0), ("GF_MAX_VER_DIST", 80.0)]),
        );
        assert_eq!(a.max_altitude, None);
        a.limits_from_params(
            Firmware::Px4,
            &params(&[
                ("GF_ACTION", 2.0),
                ("GF_MAX_VER_DIST", 80.0),
                ("GF_MAX_HOR_DIST", 0.0),
            ]),
        );
        assert_eq!(a.max_altitude.as_ref().map(|l| l.value), Some(80.0));
        assert_eq!(a.home_circle, None);
    }

    #[test]
    fn ardupilot_limits_follow_fence_enable_and_type_bits() {
        let p = |enable: f64, kinds: f64| {
            let mut a = AutopilotAirspace::default();
            a.limits_from_params(
                Firmware::ArduPilot,
                &params(&[
                    ("FENCE_ENABLE", enable),
                    ("FENCE_TYPE", kinds),
                    ("FENCE_ALT_MAX", 100.0),
                    ("FENCE_ALT_MIN", 5.0),
                    ("FENCE_RADIUS", 150.0),
                ]),
            );
            a
        };
        assert_eq!(p(0.0, 15.0), AutopilotAirspace::default());
        let a = p(1.0, 7.0);
        assert_eq!(a.max_altitude.map(|l| l.value), Some(100.0));
        assert_eq!(a.home_circle.map(|l| l.value), Some(150.0));
        assert_eq!(a.min_altitude, None);
        assert_eq!(p(1.0, 8.0).min_altitude.map(|l| l.value), Some(5.0));
    }
}
