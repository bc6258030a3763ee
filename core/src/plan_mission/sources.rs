//! Where each limit of a plan's airspace came from, for the record's header and the check's
//! report: an engineer reading a refusal must be able to tell the plan's fence from the
//! autopilot's, and a parameter from a config value.

use serde::Serialize;

/// The origin of every part of the airspace a plan is flown in.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct AirspaceSources {
    /// The areas intersected into the one inclusion area.
    pub fence: Vec<String>,
    /// Each no-fly zone, in the scenario's order.
    pub no_fly: Vec<String>,
    /// Each emergency landing site, in the scenario's order.
    pub landing_sites: Vec<String>,
    pub max_altitude: String,
    pub min_altitude: String,
    /// The plan item (its `seq`) each waypoint comes from, in the scenario's order.
    pub waypoint_items: Vec<u16>,
    /// Every item of the plan with what is done with it: `item 3: MAV_CMD_DO_SET_SERVO: kept`.
    pub items: Vec<String>,
}
