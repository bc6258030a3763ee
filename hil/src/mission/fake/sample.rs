//! Plausible plans to transfer in tests: waypoints, an inclusion polygon, rally points.

use crate::dialect::mav::{MavCmd, MavFrame};
use crate::mission::{MissionItem, MissionKind};

/// Zurich, where the simulated vehicles start: lat, lon (deg × 1e7), altitude m AMSL.
pub const ZURICH_HOME: (i32, i32, f32) = (473_977_420, 85_455_940, 488.0);

/// `n` items of `kind` around [`ZURICH_HOME`], numbered from `first`; frames as both
/// autopilots accept them (MISSION-FACTS §2: 3 for positions, 0 for fence vertices).
pub fn sample_plan(kind: MissionKind, n: u16, first: u16) -> Vec<MissionItem> {
    let (lat, lon, _) = ZURICH_HOME;
    (0..n)
        .map(|i| {
            let frame = match kind {
                MissionKind::Fence => MavFrame::MAV_FRAME_GLOBAL,
                _ => MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            };
            let off = i32::from(i) * 1_000;
            let mut it =
                MissionItem::waypoint(kind, frame, lat + off, lon - off, 20.0 + f32::from(i));
            match kind {
                MissionKind::Mission => {}
                MissionKind::Fence => {
                    it.command = MavCmd::MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION;
                    it.param1 = f32::from(n);
                    it.z = 0.0;
                }
                MissionKind::Rally => it.command = MavCmd::MAV_CMD_NAV_RALLY_POINT,
            }
            it.seq = first.saturating_add(i);
            it
        })
        .collect()
}
