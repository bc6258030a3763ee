//! What the runtime knows about the vehicle at one instant, whatever backend produced it
//! (MAVLink telemetry from PX4/ArduPilot, or the built-in world).

use crate::frames::{Enu, Geo};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Flight mode, mapped from the autopilot's own encoding by the backend's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlightMode {
    Manual,
    Stabilized,
    AltitudeHold,
    PositionHold,
    Takeoff,
    /// Hold / loiter at the current position.
    Hold,
    Mission,
    /// PX4 offboard or ArduPilot guided: the companion streams setpoints.
    Offboard,
    Return,
    Land,
    /// A mode the profile does not map, with the autopilot's raw custom mode.
    Other(u32),
}

/// Whether the vehicle is on the ground or flying (MAVLink `MAV_LANDED_STATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LandedState {
    Unknown,
    OnGround,
    InAir,
    TakingOff,
    Landing,
}

impl LandedState {
    /// True unless the vehicle is known to be on the ground.
    pub fn is_airborne(self) -> bool {
        !matches!(self, LandedState::OnGround)
    }
}

/// GNSS fix quality (MAVLink `GPS_FIX_TYPE`, collapsed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FixType {
    None,
    Fix2d,
    Fix3d,
    Dgps,
    RtkFloat,
    RtkFixed,
}

impl FixType {
    /// A fix good enough for position control.
    pub fn is_3d(self) -> bool {
        !matches!(self, FixType::None | FixType::Fix2d)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Battery {
    /// Remaining charge, percent of capacity.
    pub remaining_pct: f64,
    /// Pack voltage, volts (NaN-free: 0 when unknown).
    pub voltage_v: f64,
    /// Current draw, amperes (0 when unknown).
    pub current_a: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gnss {
    pub fix: FixType,
    pub satellites: u8,
    /// Horizontal position uncertainty, metres (1-sigma as reported).
    pub eph_m: f64,
}

/// Inputs of the gate that the backend has not reported yet. A real autopilot reports each in
/// its own time (ArduPilot streams nothing until asked), and a value never reported must not
/// pass for a real one: an unknown battery is not an empty one, an unknown position is not
/// home. The built-in world knows everything from the start (all `false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Unreported {
    /// No battery state yet (SYS_STATUS / BATTERY_STATUS with a remaining charge).
    #[serde(default, skip_serializing_if = "is_false")]
    pub battery: bool,
    /// No position estimate yet.
    #[serde(default, skip_serializing_if = "is_false")]
    pub position: bool,
    /// No home position yet.
    #[serde(default, skip_serializing_if = "is_false")]
    pub home: bool,
    /// No GNSS report yet (fix type unknown, not "no fix").
    #[serde(default, skip_serializing_if = "is_false")]
    pub fix: bool,
    /// No landed state yet (on the ground or flying is unknown).
    #[serde(default, skip_serializing_if = "is_false")]
    pub landed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Unreported {
    /// Nothing is reported yet: a freshly connected autopilot.
    pub const ALL: Self = Self {
        battery: true,
        position: true,
        home: true,
        fix: true,
        landed: true,
    };

    /// Everything has been reported.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// What is still missing, as "battery, position" (empty when nothing is).
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.battery, "battery"),
            (self.position, "position"),
            (self.home, "home"),
            (self.fix, "GNSS fix"),
            (self.landed, "landed state"),
        ]
        .into_iter()
        .filter_map(|(missing, name)| missing.then_some(name))
        .collect()
    }
}

/// The vehicle's state as one value: the gate and the policy see only this.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VehicleSnapshot {
    /// Time of the newest telemetry in this snapshot, milliseconds on the runtime's clock.
    pub time_ms: u64,
    pub armed: bool,
    pub mode: FlightMode,
    pub landed: LandedState,
    /// Position in the local frame around `home`.
    pub position: Enu,
    /// Velocity in the local frame, m/s.
    pub velocity: Enu,
    /// Heading, degrees clockwise from north, [0, 360).
    pub yaw_deg: f64,
    pub battery: Battery,
    /// The local frame's origin.
    pub home: Geo,
    pub gnss: Gnss,
    /// Which of the above the backend has not reported yet (their values are placeholders).
    #[serde(default, skip_serializing_if = "Unreported::is_empty")]
    pub unreported: Unreported,
}

impl VehicleSnapshot {
    /// A disarmed vehicle on the ground at home with a full battery and a good fix.
    pub fn on_ground_at_home(home: Geo, time_ms: u64) -> Self {
        Self {
            time_ms,
            armed: false,
            mode: FlightMode::Hold,
            landed: LandedState::OnGround,
            position: Enu::default(),
            velocity: Enu::default(),
            yaw_deg: 0.0,
            battery: Battery {
                remaining_pct: 100.0,
                voltage_v: 0.0,
                current_a: 0.0,
            },
            home,
            gnss: Gnss {
                fix: FixType::Fix3d,
                satellites: 12,
                eph_m: 0.5,
            },
            unreported: Unreported::default(),
        }
    }

    /// Ground speed, m/s.
    pub fn ground_speed_mps(&self) -> f64 {
        libm::hypot(self.velocity.x, self.velocity.y)
    }

    pub fn is_airborne(&self) -> bool {
        self.armed && self.landed.is_airborne()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_round_trips_through_json() {
        let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), 42);
        s.mode = FlightMode::Other(0x0304_0000);
        s.velocity = Enu::new(3.0, 4.0, 0.0);
        let text = serde_json::to_string(&s).unwrap();
        let back: VehicleSnapshot = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.ground_speed_mps(), 5.0);
        assert!(!back.is_airborne());
        assert!(
            !text.contains("unreported"),
            "a fully reported snapshot serialises as before: {text}"
        );
        s.unreported.battery = true;
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains(r#""unreported":{"battery":true}"#), "{text}");
        assert_eq!(serde_json::from_str::<VehicleSnapshot>(&text).unwrap(), s);
        assert_eq!(Unreported::ALL.names().len(), 5);
        assert_eq!(s.unreported.names(), ["battery"]);
    }
}
