//! Stable finding ids. Records, scores and the agent's observations key on these strings, so a
//! rename is a breaking change: add a new id instead.
//!
//! Unless noted, `limit` and `measured` are metres; "clearance" is the distance the path keeps
//! from the thing it must avoid (0 when it touches or crosses it), and its limit is the margin
//! required (position uncertainty + stopping distance + timing error, see `plan`).

/// A command argument is not a finite number. limit 0, measured 0.
pub const STATE_INVALID_ARGUMENT: &str = "gate.state.invalid_argument";
/// Telemetry holds a non-finite value. limit 0, measured 0.
pub const STATE_SNAPSHOT_INVALID: &str = "gate.state.snapshot_invalid";
/// Telemetry is too old. limit/measured: age in ms.
pub const STATE_STALE_SNAPSHOT: &str = "gate.state.stale_snapshot";
/// A mission command before arming.
pub const STATE_NOT_ARMED: &str = "gate.state.not_armed";
/// A flight command while on the ground (take off first).
pub const STATE_ON_GROUND: &str = "gate.state.on_ground";
/// Take-off while airborne.
pub const STATE_TAKEOFF_AIRBORNE: &str = "gate.state.takeoff_airborne";
/// Disarm while airborne.
pub const STATE_DISARM_IN_AIR: &str = "gate.state.disarm_in_air";
/// No 3-D position fix. limit/measured: GPS fix type rank (3 = 3-D).
pub const STATE_NO_FIX: &str = "gate.state.no_fix";
/// Requested speed outside (0, max]. limit/measured: m/s.
pub const STATE_SPEED: &str = "gate.state.speed";
/// Arming with the battery at or below the reserve. limit/measured: percent.
pub const STATE_BATTERY_LOW: &str = "gate.state.battery_low";
/// The command needs the battery state and the autopilot has not reported it yet.
pub const STATE_BATTERY_UNREPORTED: &str = "gate.state.battery_unreported";
/// The command needs the position and the autopilot has not reported it yet.
pub const STATE_POSITION_UNREPORTED: &str = "gate.state.position_unreported";
/// The command needs home and the autopilot has not reported it yet.
pub const STATE_HOME_UNREPORTED: &str = "gate.state.home_unreported";
/// The command needs the GNSS fix and the autopilot has not reported it yet.
pub const STATE_FIX_UNREPORTED: &str = "gate.state.fix_unreported";
/// The command needs to know whether the vehicle is flying and the autopilot has not said.
pub const STATE_LANDED_UNREPORTED: &str = "gate.state.landed_unreported";
/// Too many commands. limit: commands/s allowed; measured: the rate this command would make.
pub const RATE_EXCEEDED: &str = "gate.rate.exceeded";
/// A target altitude was moved into the band (severity clamp). limit: the bound; measured: asked.
pub const ALTITUDE_CLAMPED: &str = "gate.altitude.clamped";
/// A target altitude outside the band, clamping off. limit: the bound; measured: asked.
pub const ALTITUDE_OUT_OF_BAND: &str = "gate.altitude.out_of_band";
/// The path (including the vertical stopping distance) leaves the band. limit: the bound;
/// measured: the extreme altitude.
pub const ALTITUDE_PATH_LEAVES_BAND: &str = "gate.altitude.path_leaves_band";
/// Take-off away from home and the authorised sites. limit: site radius; measured: distance
/// to the nearest.
pub const SITE_TAKEOFF_UNAUTHORISED: &str = "gate.site.takeoff_unauthorised";
/// Landing away from home and the authorised sites. limit: site radius; measured: distance.
pub const SITE_LANDING_UNAUTHORISED: &str = "gate.site.landing_unauthorised";
/// The target is outside every inclusion area (with margin). limit: margin; measured: signed
/// clearance of the target (negative outside).
pub const GEOFENCE_OUTSIDE: &str = "gate.geofence.outside";
/// The target is inside but the path leaves the fence on the way. limit: margin; measured:
/// clearance to the fence boundary.
pub const GEOFENCE_PATH_LEAVES: &str = "gate.geofence.path_leaves";
/// The target is inside a static no-fly zone (with margin). limit: margin; measured: clearance.
pub const NO_FLY_TARGET_INSIDE: &str = "gate.no_fly.target_inside";
/// The path crosses a static no-fly zone. limit: margin; measured: clearance.
pub const NO_FLY_PATH_CROSSES: &str = "gate.no_fly.path_crosses";
/// A moving zone meets the vehicle on its way or while it holds at the target. limit: margin;
/// measured: clearance relative to the moving zone.
pub const NO_FLY_MOVING_CONFLICT: &str = "gate.no_fly.moving_conflict";
/// Predicted closest approach to a traffic track below the separation. limit: required
/// separation; measured: closest approach.
pub const SEPARATION_TRAFFIC: &str = "gate.separation.traffic";
/// The same against a peer's shared plan.
pub const SEPARATION_PEER: &str = "gate.separation.peer";
/// A hold where another aircraft or a moving zone is about to pass became a move out of the
/// way (severity clamp). limit: the escape lead, s; measured: the predicted time to the breach
/// while holding, s.
pub const SEPARATION_HOLD_ESCAPE: &str = "gate.separation.hold_escape";
/// Battery after the target and the way home below the reserve. limit/measured: percent.
pub const ENERGY_RESERVE: &str = "gate.energy.reserve";
/// Battery at the end of a return or landing below the hard reserve. limit/measured: percent.
pub const ENERGY_HARD_RESERVE: &str = "gate.energy.hard_reserve";
/// A hold that would leave the battery short of the way home and the reserve within seconds
/// became the return (severity clamp). limit: the slack, s; measured: the time left, s.
pub const ENERGY_HOLD_RETURN: &str = "gate.energy.hold_return";
/// The wind leaves too little ground speed on a leg. limit: minimum ground speed; measured:
/// the best achievable (m/s).
pub const ENERGY_WIND: &str = "gate.energy.wind";
/// `evaluate_failsafe` was asked for something other than hold, return or land.
pub const FAILSAFE_NOT_FAILSAFE: &str = "gate.failsafe.not_failsafe";
/// Landing below the band: anything but continuing the landing is denied, a hold (or the
/// failsafe's hold or return) becomes the landing (severity clamp). limit: the band's floor;
/// measured: the altitude.
pub const LANDING_COMMITTED: &str = "gate.landing.committed";
/// Taking off below the band: anything but continuing the take-off (or landing) is denied, the
/// hold included. limit: the band's floor; measured: the altitude.
pub const TAKEOFF_COMMITTED: &str = "gate.takeoff.committed";

/// Every id, for schemas, documentation and tests.
pub const ALL: [&str; 36] = [
    STATE_INVALID_ARGUMENT,
    STATE_SNAPSHOT_INVALID,
    STATE_STALE_SNAPSHOT,
    STATE_NOT_ARMED,
    STATE_ON_GROUND,
    STATE_TAKEOFF_AIRBORNE,
    STATE_DISARM_IN_AIR,
    STATE_NO_FIX,
    STATE_SPEED,
    STATE_BATTERY_LOW,
    STATE_BATTERY_UNREPORTED,
    STATE_POSITION_UNREPORTED,
    STATE_HOME_UNREPORTED,
    STATE_FIX_UNREPORTED,
    STATE_LANDED_UNREPORTED,
    RATE_EXCEEDED,
    ALTITUDE_CLAMPED,
    ALTITUDE_OUT_OF_BAND,
    ALTITUDE_PATH_LEAVES_BAND,
    SITE_TAKEOFF_UNAUTHORISED,
    SITE_LANDING_UNAUTHORISED,
    GEOFENCE_OUTSIDE,
    GEOFENCE_PATH_LEAVES,
    NO_FLY_TARGET_INSIDE,
    NO_FLY_PATH_CROSSES,
    NO_FLY_MOVING_CONFLICT,
    SEPARATION_TRAFFIC,
    SEPARATION_PEER,
    SEPARATION_HOLD_ESCAPE,
    ENERGY_RESERVE,
    ENERGY_HARD_RESERVE,
    ENERGY_WIND,
    ENERGY_HOLD_RETURN,
    FAILSAFE_NOT_FAILSAFE,
    LANDING_COMMITTED,
    TAKEOFF_COMMITTED,
];

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique_dotted_and_prefixed() {
        for (i, id) in super::ALL.iter().enumerate() {
            assert!(
                id.starts_with("gate.") && id.split('.').count() == 3,
                "{id}"
            );
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '.' || c == '_'),
                "{id}"
            );
            assert!(!super::ALL[..i].contains(id), "duplicate {id}");
        }
    }
}
