//! OFFBOARD as PX4 flies it: the world follows the newest setpoint, and when setpoints stop
//! for COM_OF_LOSS_T the vehicle takes COM_OBL_RC_ACT.

use super::codec::mav::MavSeverity;
use super::modes::Px4Mode;
use super::vehicle::Px4Vehicle;
use crate::flight_controller::Mode as FcMode;
use alpha3_core::command::Command;
use alpha3_core::snapshot::LandedState;

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
}
