//! Stable finding ids. Records, scores and the agent's observations key on these strings, so a
//! rename is a breaking change: add a new id instead.
//!
//! Unless noted, `limit` and `measured` are metres; "clearance" is the distance the path keeps
//! from the thing it must avoid (0 when it touches or crosses it), and its limit is the margin
//! required (position uncertainty + stopping distance + timing error, see `plan`).
//!
//! Each id has a [`FindingKind`] in one table with it ([`kind`]): the [`Obstacle`] in the leg's
//! way, if any (a detour helps with a static one, waiting with a moving one), and whether the
//! denial passes by itself.

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
/// `fly_mission` with no route handed over to the gate (nothing uploaded, or the autopilot's
/// mission changed since). limit, measured: 0.
pub const MISSION_NONE: &str = "gate.mission.none";
/// A leg of the handed-over route that the gate would only pass changed (clamped): the
/// autopilot flies its items as uploaded, so the route is refused. limit: the leg (1 = the
/// first leg left); measured: the number of legs left.
pub const MISSION_LEG_CHANGED: &str = "gate.mission.leg_changed";

/// What a finding is about when something stands in the leg's way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obstacle {
    /// The altitude band.
    Band,
    /// The geofence.
    Fence,
    /// A static no-fly zone.
    StaticZone,
    /// A moving no-fly zone.
    MovingZone,
    /// Traffic or a peer's shared plan.
    Traffic,
}

impl Obstacle {
    /// Whether it stays where it is, so that the leg's path or target must change (a detour
    /// helps): the band, the fence, a static zone.
    pub fn is_static(self) -> bool {
        matches!(
            self,
            Obstacle::Band | Obstacle::Fence | Obstacle::StaticZone
        )
    }

    /// Whether it moves, so that the leg's timing counts (waiting helps): traffic, a peer, a
    /// moving zone.
    pub fn moves(self) -> bool {
        matches!(self, Obstacle::MovingZone | Obstacle::Traffic)
    }
}

/// What a finding id says about the denial besides its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FindingKind {
    /// What stands in the leg's way; `None` when the finding is about something else (the
    /// command, the vehicle or its telemetry, the rate, a site, the energy) or is one of the
    /// gate's own substitutions.
    pub obstacle: Option<Obstacle>,
    /// Whether the denial passes by itself, with no other command: traffic moves on, the rate
    /// limit refills, the next telemetry is fresh.
    pub transient: bool,
}

impl FindingKind {
    /// About where the leg goes (a detour helps): its obstacle [`is_static`](Obstacle::is_static).
    pub fn detour_helps(self) -> bool {
        self.obstacle.is_some_and(Obstacle::is_static)
    }

    /// About timing against traffic and moving zones (waiting helps): its obstacle
    /// [`moves`](Obstacle::moves).
    pub fn waiting_helps(self) -> bool {
        self.obstacle.is_some_and(Obstacle::moves)
    }
}

const OTHER: FindingKind = FindingKind {
    obstacle: None,
    transient: false,
};
const PASSES: FindingKind = FindingKind {
    obstacle: None,
    transient: true,
};
const TRAFFIC: FindingKind = FindingKind {
    obstacle: Some(Obstacle::Traffic),
    transient: true,
};

const fn in_the_way(obstacle: Obstacle) -> FindingKind {
    FindingKind {
        obstacle: Some(obstacle),
        transient: false,
    }
}

/// Every id with its kind.
const TABLE: [(&str, FindingKind); 38] = [
    (STATE_INVALID_ARGUMENT, OTHER),
    (STATE_SNAPSHOT_INVALID, OTHER),
    (STATE_STALE_SNAPSHOT, PASSES),
    (STATE_NOT_ARMED, OTHER),
    (STATE_ON_GROUND, OTHER),
    (STATE_TAKEOFF_AIRBORNE, OTHER),
    (STATE_DISARM_IN_AIR, OTHER),
    (STATE_NO_FIX, OTHER),
    (STATE_SPEED, OTHER),
    (STATE_BATTERY_LOW, OTHER),
    (STATE_BATTERY_UNREPORTED, OTHER),
    (STATE_POSITION_UNREPORTED, OTHER),
    (STATE_HOME_UNREPORTED, OTHER),
    (STATE_FIX_UNREPORTED, OTHER),
    (STATE_LANDED_UNREPORTED, OTHER),
    (RATE_EXCEEDED, PASSES),
    (ALTITUDE_CLAMPED, OTHER),
    (ALTITUDE_OUT_OF_BAND, in_the_way(Obstacle::Band)),
    (ALTITUDE_PATH_LEAVES_BAND, in_the_way(Obstacle::Band)),
    (SITE_TAKEOFF_UNAUTHORISED, OTHER),
    (SITE_LANDING_UNAUTHORISED, OTHER),
    (GEOFENCE_OUTSIDE, in_the_way(Obstacle::Fence)),
    (GEOFENCE_PATH_LEAVES, in_the_way(Obstacle::Fence)),
    (NO_FLY_TARGET_INSIDE, in_the_way(Obstacle::StaticZone)),
    (NO_FLY_PATH_CROSSES, in_the_way(Obstacle::StaticZone)),
    (NO_FLY_MOVING_CONFLICT, in_the_way(Obstacle::MovingZone)),
    (SEPARATION_TRAFFIC, TRAFFIC),
    (SEPARATION_PEER, TRAFFIC),
    (SEPARATION_HOLD_ESCAPE, OTHER),
    (ENERGY_RESERVE, OTHER),
    (ENERGY_HARD_RESERVE, OTHER),
    (ENERGY_WIND, OTHER),
    (ENERGY_HOLD_RETURN, OTHER),
    (FAILSAFE_NOT_FAILSAFE, OTHER),
    (LANDING_COMMITTED, OTHER),
    (TAKEOFF_COMMITTED, OTHER),
    (MISSION_NONE, OTHER),
    (MISSION_LEG_CHANGED, OTHER),
];

/// Every id, for schemas, documentation and tests.
pub const ALL: [&str; TABLE.len()] = {
    let mut ids = [""; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        ids[i] = TABLE[i].0;
        i += 1;
    }
    ids
};

/// The kind of finding `id` reports; an id the gate does not report has the default kind (no
/// obstacle, not transient).
pub fn kind(id: &str) -> FindingKind {
    TABLE
        .iter()
        .find(|(known, _)| *known == id)
        .map_or(FindingKind::default(), |(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The ids whose kind satisfies `p`.
    fn ids_where(p: impl Fn(FindingKind) -> bool) -> BTreeSet<&'static str> {
        ALL.iter().copied().filter(|id| p(kind(id))).collect()
    }

    fn set<const N: usize>(ids: [&'static str; N]) -> BTreeSet<&'static str> {
        ids.into_iter().collect()
    }

    #[test]
    fn transient_denials_are_traffic_peers_the_rate_and_stale_telemetry() {
        assert_eq!(
            ids_where(|k| k.transient),
            set([
                SEPARATION_TRAFFIC,
                SEPARATION_PEER,
                RATE_EXCEEDED,
                STATE_STALE_SNAPSHOT,
            ])
        );
    }

    #[test]
    fn traffic_in_the_way_is_traffic_and_peers() {
        assert_eq!(
            ids_where(|k| k.obstacle == Some(Obstacle::Traffic)),
            set([SEPARATION_TRAFFIC, SEPARATION_PEER])
        );
    }

    #[test]
    fn a_detour_helps_with_static_zones_the_fence_and_the_band() {
        assert_eq!(
            ids_where(FindingKind::detour_helps),
            set([
                NO_FLY_PATH_CROSSES,
                NO_FLY_TARGET_INSIDE,
                GEOFENCE_OUTSIDE,
                GEOFENCE_PATH_LEAVES,
                ALTITUDE_OUT_OF_BAND,
                ALTITUDE_PATH_LEAVES_BAND,
            ])
        );
    }

    #[test]
    fn waiting_helps_with_traffic_peers_and_moving_zones() {
        assert_eq!(
            ids_where(FindingKind::waiting_helps),
            set([SEPARATION_TRAFFIC, SEPARATION_PEER, NO_FLY_MOVING_CONFLICT])
        );
    }

    #[test]
    fn the_static_zone_findings_are_the_target_inside_and_the_path_crossing() {
        assert_eq!(
            ids_where(|k| k.obstacle == Some(Obstacle::StaticZone)),
            set([NO_FLY_PATH_CROSSES, NO_FLY_TARGET_INSIDE])
        );
    }

    #[test]
    fn an_unknown_id_has_the_default_kind() {
        assert_eq!(kind("gate.nothing.such"), FindingKind::default());
        assert_eq!(kind(SEPARATION_TRAFFIC).obstacle, Some(Obstacle::Traffic));
    }
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
