//! Faults from the scenario, switched on and off at their times: motor failure, GNSS jamming,
//! battery sag, sensor offline. Unknown kinds are kept (reported) but change nothing.

use alpha3_core::scenario::Fault;
use serde_json::Value;

/// What a fault does.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// Less thrust margin: lower speed, climb and acceleration limits, more power; at severity
    /// 1 the vehicle can no longer hold altitude.
    MotorFailure,
    /// No GNSS fix: the flight controller dead-reckons and drifts with the wind.
    GnssJamming,
    /// A share of the charge is lost at once and the pack draws more power.
    BatterySag,
    /// The named sensor (a payload id or on-board sensor) stops working.
    SensorOffline(String),
    /// A kind this world does not model.
    Other(String),
}

impl FaultKind {
    /// Reads a scenario fault's kind, accepting common aliases.
    pub fn of(fault: &Fault) -> Self {
        match fault.kind.as_str() {
            "motor_failure" | "motor_out" | "propulsion_failure" => FaultKind::MotorFailure,
            "gnss_jamming" | "gps_jamming" | "gnss_loss" | "gps_loss" | "gnss_outage" => {
                FaultKind::GnssJamming
            }
            "battery_sag" | "battery_degradation" | "battery_drop" | "battery_failure" => {
                FaultKind::BatterySag
            }
            "sensor_offline" | "sensor_failure" | "camera_failure" => {
                let sensor = ["sensor", "target", "payload"]
                    .iter()
                    .find_map(|k| fault.extra.get(*k).and_then(Value::as_str))
                    .unwrap_or("camera_rgb");
                FaultKind::SensorOffline(sensor.to_string())
            }
            other => FaultKind::Other(other.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            FaultKind::MotorFailure => "motor_failure",
            FaultKind::GnssJamming => "gnss_jamming",
            FaultKind::BatterySag => "battery_sag",
            FaultKind::SensorOffline(_) => "sensor_offline",
            FaultKind::Other(name) => name,
        }
    }
}

/// One fault with its window.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledFault {
    pub kind: FaultKind,
    pub start_s: f64,
    /// `f64::INFINITY` when the scenario's duration is 0 (until the end).
    pub end_s: f64,
    pub severity: f64,
}

/// A fault starting or ending.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultTransition {
    pub fault: ScheduledFault,
    pub started: bool,
}

/// The combined effect of the active faults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultEffects {
    /// Highest active motor-failure severity, 0..1.
    pub motor_severity: f64,
    pub gnss_jammed: bool,
    pub offline_sensors: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct FaultSchedule {
    faults: Vec<ScheduledFault>,
    active: Vec<bool>,
    next_change_s: f64,
    effects: FaultEffects,
}

impl FaultSchedule {
    pub fn new(faults: &[Fault]) -> Self {
        let faults: Vec<ScheduledFault> = faults
            .iter()
            .map(|f| ScheduledFault {
                kind: FaultKind::of(f),
                start_s: f.t_s,
                end_s: if f.duration_s > 0.0 {
                    f.t_s + f.duration_s
                } else {
                    f64::INFINITY
                },
                severity: f.severity.clamp(0.0, 1.0),
            })
            .collect();
        let mut s = Self {
            active: vec![false; faults.len()],
            faults,
            next_change_s: f64::NEG_INFINITY,
            effects: FaultEffects::default(),
        };
        s.next_change_s = s.next_change_after(f64::NEG_INFINITY);
        s
    }

    fn next_change_after(&self, t_s: f64) -> f64 {
        self.faults
            .iter()
            .flat_map(|f| [f.start_s, f.end_s])
            .filter(|&x| x > t_s)
            .fold(f64::INFINITY, f64::min)
    }

    /// Brings the schedule to time `t_s`; returns the faults that started or ended.
    pub fn update(&mut self, t_s: f64) -> Vec<FaultTransition> {
        if t_s < self.next_change_s {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (f, active) in self.faults.iter().zip(self.active.iter_mut()) {
            let now = t_s >= f.start_s && t_s < f.end_s;
            if now != *active {
                *active = now;
                out.push(FaultTransition {
                    fault: f.clone(),
                    started: now,
                });
            }
        }
        let mut e = FaultEffects::default();
        for (f, _) in self.faults.iter().zip(&self.active).filter(|(_, a)| **a) {
            match &f.kind {
                FaultKind::MotorFailure => e.motor_severity = e.motor_severity.max(f.severity),
                FaultKind::GnssJamming => e.gnss_jammed = true,
                FaultKind::SensorOffline(name) => e.offline_sensors.push(name.clone()),
                FaultKind::BatterySag | FaultKind::Other(_) => {}
            }
        }
        self.effects = e;
        self.next_change_s = self.next_change_after(t_s);
        out
    }

    pub fn effects(&self) -> &FaultEffects {
        &self.effects
    }

    pub fn faults(&self) -> &[ScheduledFault] {
        &self.faults
    }

    pub fn is_active(&self, index: usize) -> bool {
        self.active.get(index).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn fault(t_s: f64, kind: &str, duration_s: f64) -> Fault {
        Fault {
            t_s,
            kind: kind.into(),
            duration_s,
            severity: 0.8,
            extra: Map::new(),
        }
    }

    #[test]
    fn faults_start_and_end_at_their_times() {
        let mut s = FaultSchedule::new(&[
            fault(10.0, "gps_jamming", 5.0),
            fault(12.0, "motor_failure", 0.0),
        ]);
        assert!(s.update(9.99).is_empty());
        let started = s.update(10.0);
        assert_eq!(started.len(), 1);
        assert_eq!(started[0].fault.kind, FaultKind::GnssJamming);
        assert!(s.effects().gnss_jammed);
        s.update(12.0);
        assert_eq!(s.effects().motor_severity, 0.8);
        let ended = s.update(15.0);
        assert!(!ended[0].started);
        assert!(!s.effects().gnss_jammed);
        assert_eq!(
            s.effects().motor_severity,
            0.8,
            "duration 0 lasts to the end"
        );
    }

    #[test]
    fn unknown_kinds_are_kept_without_effect() {
        let mut s = FaultSchedule::new(&[fault(1.0, "volcano", 0.0)]);
        let t = s.update(2.0);
        assert_eq!(t[0].fault.kind, FaultKind::Other("volcano".into()));
        assert_eq!(*s.effects(), FaultEffects::default());
    }
}
