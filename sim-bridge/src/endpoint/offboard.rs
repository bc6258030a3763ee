//! The offboard setpoint stream and OFFBOARD as PX4 flies it: SET_POSITION_TARGET_* messages
//! feed the newest setpoint, the world follows it, and when setpoints stop for COM_OF_LOSS_T
//! the vehicle takes COM_OBL_RC_ACT. The setpoint itself is in `state`.

use super::codec::mav::{self, MavFrame, MavSeverity};
use super::modes::Px4Mode;
use super::options::Autopilot;
use super::vehicle::Px4Vehicle;
use crate::flight_controller::Mode as FcMode;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo, Ned};
use alpha3_core::snapshot::LandedState;

/// Type-mask bits meaning "ignore x, y, z" (POSITION_TARGET_TYPEMASK).
const IGNORE_POSITION: u16 = 0b111;

impl Px4Vehicle {
    /// OFFBOARD: track the setpoint; when setpoints stop for COM_OF_LOSS_T, COM_OBL_RC_ACT.
    pub(super) fn watch_offboard(&mut self) {
        if self.nav.mode != Px4Mode::OFFBOARD {
            return;
        }
        if !self.setpoint_fresh() {
            let action = self.params.number("COM_OBL_RC_ACT") as i64;
            let next = match action {
                3 => Px4Mode::RTL,
                4 | 6 | 7 => Px4Mode::LAND,
                // Position, Altitude and Manual need RC, which SITL does not have: Hold.
                _ => Px4Mode::HOLD,
            };
            self.say(
                MavSeverity::MAV_SEVERITY_WARNING,
                format!(
                    "Failsafe: offboard control lost, switching to {}",
                    next.name()
                ),
            );
            self.failsafe(next);
            return;
        }
        let Some(sp) = self.offboard.setpoint else {
            return;
        };
        let fc = self.world.flight_controller();
        if fc.landed == LandedState::InAir {
            let on_it =
                matches!(fc.mode, FcMode::GoTo { target } if target == [sp.x, sp.y, sp.z.max(0.0)]);
            if !on_it {
                let _ = self.fly(Command::GoTo {
                    target: sp,
                    speed_mps: None,
                });
            }
        } else if fc.landed == LandedState::OnGround && self.arming.armed && fc.mode == FcMode::Idle
        {
            let ground = self.snap.position.z;
            if sp.z > ground + 0.5 {
                self.ensure_world_armed();
                let _ = self.fly(Command::Takeoff { altitude_m: sp.z });
            }
        }
    }

    /// Whether the offboard signal is alive (a setpoint within COM_OF_LOSS_T).
    pub(super) fn setpoint_fresh(&self) -> bool {
        let loss_us = (self.params.number("COM_OF_LOSS_T").max(0.0) * 1e6) as u64;
        self.offboard
            .at_us
            .is_some_and(|t| self.time.now_us <= t.saturating_add(loss_us))
    }

    /// SET_POSITION_TARGET_LOCAL_NED: any setpoint feeds the offboard signal; a position
    /// (in PX4's local frame, the EKF origin) becomes the target.
    pub fn setpoint_local(&mut self, sp: &mav::SET_POSITION_TARGET_LOCAL_NED_DATA) {
        if self.identity.autopilot == Autopilot::ArduCopter {
            // Local targets are not used by alpha3 on ArduPilot; not simulated.
            return;
        }
        self.offboard.at_us = Some(self.time.now_us);
        let has_position = sp.type_mask.bits() & IGNORE_POSITION == 0;
        let local = matches!(
            sp.coordinate_frame,
            MavFrame::MAV_FRAME_LOCAL_NED | MavFrame::MAV_FRAME_LOCAL_OFFSET_NED
        );
        if has_position && local && [sp.x, sp.y, sp.z].iter().all(|v| v.is_finite()) {
            let n = Ned::new(f64::from(sp.x), f64::from(sp.y), f64::from(sp.z));
            let mut target = n.to_enu();
            if sp.coordinate_frame == MavFrame::MAV_FRAME_LOCAL_OFFSET_NED {
                let p = self.snap.position;
                target = Enu::new(p.x + target.x, p.y + target.y, p.z + target.z);
            }
            self.offboard.setpoint = Some(target);
        }
    }

    /// SET_POSITION_TARGET_GLOBAL_INT: lat/lon × 1e7 and an altitude in the frame's sense.
    // The *_INT frames are deprecated synonyms that senders still use.
    #[allow(deprecated)]
    pub fn setpoint_global(&mut self, sp: &mav::SET_POSITION_TARGET_GLOBAL_INT_DATA) {
        if self.identity.autopilot == Autopilot::ArduCopter {
            return self.copter_target_global(sp);
        }
        self.offboard.at_us = Some(self.time.now_us);
        if sp.type_mask.bits() & IGNORE_POSITION != 0 || !sp.alt.is_finite() {
            return;
        }
        let alt = f64::from(sp.alt);
        let alt_amsl = match sp.coordinate_frame {
            MavFrame::MAV_FRAME_GLOBAL_INT | MavFrame::MAV_FRAME_GLOBAL => alt,
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
            | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT => match self.home_geo() {
                Some(h) => h.alt_amsl_m + alt,
                None => return,
            },
            _ => return,
        };
        self.offboard.setpoint = Some(self.frames.local.to_enu(Geo {
            lat_deg: f64::from(sp.lat_int) * 1e-7,
            lon_deg: f64::from(sp.lon_int) * 1e-7,
            alt_amsl_m: alt_amsl,
        }));
    }
}
