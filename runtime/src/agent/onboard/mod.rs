//! An onboard episode: a flight controller reached over MAVLink, brought to the scenario's
//! start, and flown by a policy or by MCP clients with the world as its twin — one path for
//! `fly`, `mcp --connect` and `sitl`.
//!
//! - [`connect`]: the real-vehicle and unsigned-link checks, the link, readiness, the
//!   parameter writes and the anchor ([`connect_vehicle`]), with a typed [`Refusal`];
//! - [`mission_source`]: a scenario, or a QGroundControl plan made into one in the autopilot's
//!   own airspace and checked whole before take-off ([`MissionSource`]);
//! - [`kit`]: what the episode is flown with besides the vehicle ([`EpisodeKit`]);
//! - [`start`]: readiness, a vehicle left in the air, the anchor, the spawn point;
//! - [`note`]: the record header's `vehicle_link` ([`VehicleLinkNote`]);
//! - [`replan`]: a plan's airspace made again when the autopilot's own fence or rally points
//!   change during the episode ([`AirspaceWatch`]);
//! - [`run`]: the episode itself ([`run_onboard`]).

pub mod connect;
pub mod connection;
pub mod kit;
pub mod mission_source;
pub mod note;
pub mod replan;
pub mod run;
pub mod start;

pub use connect::{
    Connected, LeftInAir, Refusal, VehicleRequest, check_address, connect_vehicle,
    connect_vehicle_for, free_tlog_path,
};
pub use connection::{Connection, foreign_note};
pub use kit::{EpisodeKit, OnboardError, episode_kit, episode_parts};
pub use mission_source::{MissionSource, PlanNote};
pub use note::{BatterySource, VehicleLinkNote};
pub use replan::{AirspaceNews, AirspaceWatch, Replan};
pub use run::{OnboardEnd, OnboardKit, OnboardVehicle, run_onboard};
pub use start::{anchor_mission, bring_to_start, settle_on_ground, wait_ready_to_fly};
