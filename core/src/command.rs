//! The command vocabulary: what a policy may ask the vehicle to do.
//!
//! A [`Command`] is only a request. To reach a vehicle it must become an
//! [`ApprovedCommand`](crate::gate::ApprovedCommand), which only the gate can make.

use crate::frames::Enu;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A request to the vehicle, in the local ENU frame (metres, m/s, degrees).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    Arm,
    Disarm,
    /// Climb vertically from the current position to `altitude_m` above home.
    Takeoff {
        altitude_m: f64,
    },
    /// Fly straight to `target`; `speed_mps` of `None` keeps the current cruise speed.
    GoTo {
        target: Enu,
        speed_mps: Option<f64>,
    },
    /// Change altitude above home at the current horizontal position.
    SetAltitude {
        altitude_m: f64,
    },
    SetSpeed {
        speed_mps: f64,
    },
    SetYaw {
        yaw_deg: f64,
    },
    /// Hold the current position.
    Hold,
    /// Fly home (at the configured return altitude) and land there.
    ReturnToHome,
    /// Land at `site` (local x/y), or in place when `None`.
    Land {
        site: Option<[f64; 2]>,
    },
    /// Fly the mission handed over to the autopilot (PX4 Mission mode, ArduPilot AUTO) from
    /// its current item on. The gate judges what remains of the route it holds
    /// ([`GateContext::adopt_route`](crate::gate::GateContext::adopt_route)), leg by leg: the
    /// autopilot flies the legs without asking again. Not in the α3-Bench catalogue.
    FlyMission,
}

impl Command {
    /// A stable short name for records and findings.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Arm => "arm",
            Command::Disarm => "disarm",
            Command::Takeoff { .. } => "takeoff",
            Command::GoTo { .. } => "go_to",
            Command::SetAltitude { .. } => "set_altitude",
            Command::SetSpeed { .. } => "set_speed",
            Command::SetYaw { .. } => "set_yaw",
            Command::Hold => "hold",
            Command::ReturnToHome => "return_to_home",
            Command::Land { .. } => "land",
            Command::FlyMission => "fly_mission",
        }
    }

    /// Commands that move the vehicle somewhere (and so need the path checks).
    pub fn moves_vehicle(&self) -> bool {
        matches!(
            self,
            Command::Takeoff { .. }
                | Command::GoTo { .. }
                | Command::SetAltitude { .. }
                | Command::ReturnToHome
                | Command::Land { .. }
                | Command::FlyMission
        )
    }
}
