//! The fake autopilot's telemetry, at PX4's companion-link rates.

use super::FakePx4;
use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::profile::px4::px4_custom_mode;
use std::collections::BTreeMap;

/// PX4's onboard-link streams (PX4-FACTS.md): message id → period µs, about 300 messages/s.
pub(super) fn px4_rates() -> BTreeMap<u32, (u64, u64)> {
    [
        (0, 1_000_000),   // HEARTBEAT 1 Hz
        (30, 10_000),     // ATTITUDE 100 Hz
        (105, 20_000),    // HIGHRES_IMU 50 Hz
        (33, 20_000),     // GLOBAL_POSITION_INT 50 Hz
        (32, 33_333),     // LOCAL_POSITION_NED 30 Hz
        (331, 33_333),    // ODOMETRY 30 Hz
        (245, 200_000),   // EXTENDED_SYS_STATE 5 Hz
        (1, 1_000_000),   // SYS_STATUS 1 Hz
        (242, 2_000_000), // HOME_POSITION 0.5 Hz
        (147, 2_000_000), // BATTERY_STATUS 0.5 Hz
    ]
    .into_iter()
    .map(|(id, period)| (id, (period, 0)))
    .collect()
}

impl FakePx4 {
    pub(super) fn emit_due(&mut self, now_us: u64) {
        let due: Vec<u32> = self
            .intervals
            .iter_mut()
            .filter(|(_, (_, next))| *next <= now_us)
            .map(|(id, (period, next))| {
                // Keep the rate; after a stall, start again from now.
                *next = (*next + *period).max(now_us + *period / 2);
                *id
            })
            .collect();
        for id in due {
            if let Some(m) = self.message(id, now_us) {
                self.outbox.push_back(m);
            }
        }
    }

    fn message(&self, id: u32, now_us: u64) -> Option<MavMessage> {
        let boot_ms = (now_us / 1000) as u32;
        let has_home = now_us >= self.cfg.home_ms * 1000;
        let ned = self.local(self.pos);
        let v = self.vel.to_ned();
        Some(match id {
            0 => self.heartbeat(),
            30 => MavMessage::ATTITUDE(mav::ATTITUDE_DATA {
                time_boot_ms: boot_ms,
                yaw: wrap_pi(self.yaw_deg.to_radians()) as f32,
                ..Default::default()
            }),
            105 => MavMessage::HIGHRES_IMU(mav::HIGHRES_IMU_DATA {
                time_usec: now_us,
                zacc: -9.81,
                ..Default::default()
            }),
            33 => {
                let g = self.geo(self.pos);
                MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
                    time_boot_ms: boot_ms,
                    lat: (g.lat_deg * 1e7).round() as i32,
                    lon: (g.lon_deg * 1e7).round() as i32,
                    alt: (g.alt_amsl_m * 1e3).round() as i32,
                    relative_alt: ((self.pos.z - self.home_world.z) * 1e3).round() as i32,
                    vx: (v.north * 100.0) as i16,
                    vy: (v.east * 100.0) as i16,
                    vz: (v.down * 100.0) as i16,
                    hdg: (self.yaw_deg * 100.0) as u16,
                })
            }
            32 => MavMessage::LOCAL_POSITION_NED(mav::LOCAL_POSITION_NED_DATA {
                time_boot_ms: boot_ms,
                x: ned.north as f32,
                y: ned.east as f32,
                z: ned.down as f32,
                vx: v.north as f32,
                vy: v.east as f32,
                vz: v.down as f32,
            }),
            331 => MavMessage::ODOMETRY(mav::ODOMETRY_DATA {
                time_usec: now_us,
                x: ned.north as f32,
                y: ned.east as f32,
                z: ned.down as f32,
                q: [1.0, 0.0, 0.0, 0.0],
                frame_id: mav::MavFrame::MAV_FRAME_LOCAL_NED,
                child_frame_id: mav::MavFrame::MAV_FRAME_BODY_FRD,
                ..Default::default()
            }),
            245 => MavMessage::EXTENDED_SYS_STATE(mav::EXTENDED_SYS_STATE_DATA {
                landed_state: self.landed,
                ..Default::default()
            }),
            1 => MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
                voltage_battery: 16_000,
                current_battery: if self.armed { 1500 } else { 50 },
                battery_remaining: self.battery_pct as i8,
                ..Default::default()
            }),
            242 if has_home => self.home_position(),
            147 => {
                let mut voltages = [u16::MAX; 10];
                voltages[0] = 16_000;
                MavMessage::BATTERY_STATUS(mav::BATTERY_STATUS_DATA {
                    voltages,
                    current_battery: if self.armed { 1500 } else { 50 },
                    battery_remaining: self.battery_pct as i8,
                    ..Default::default()
                })
            }
            24 => MavMessage::GPS_RAW_INT(mav::GPS_RAW_INT_DATA {
                time_usec: now_us,
                fix_type: if has_home {
                    mav::GpsFixType::GPS_FIX_TYPE_3D_FIX
                } else {
                    mav::GpsFixType::GPS_FIX_TYPE_NO_FIX
                },
                satellites_visible: 14,
                eph: 70,
                epv: 100,
                h_acc: 500,
                ..Default::default()
            }),
            _ => return None,
        })
    }

    fn heartbeat(&self) -> MavMessage {
        use mav::MavModeFlag as F;
        let mut base_mode = F::MAV_MODE_FLAG_CUSTOM_MODE_ENABLED
            | F::MAV_MODE_FLAG_STABILIZE_ENABLED
            | F::MAV_MODE_FLAG_GUIDED_ENABLED
            | F::MAV_MODE_FLAG_AUTO_ENABLED;
        if self.armed {
            base_mode |= F::MAV_MODE_FLAG_SAFETY_ARMED;
        }
        MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
            custom_mode: px4_custom_mode(self.main, self.sub),
            mavtype: mav::MavType::MAV_TYPE_QUADROTOR,
            autopilot: mav::MavAutopilot::MAV_AUTOPILOT_PX4,
            base_mode,
            system_status: if self.armed {
                mav::MavState::MAV_STATE_ACTIVE
            } else {
                mav::MavState::MAV_STATE_STANDBY
            },
            mavlink_version: 3,
        })
    }

    pub(super) fn home_position(&self) -> MavMessage {
        let g = self.geo(self.home_world);
        let l = self.local(self.home_world);
        MavMessage::HOME_POSITION(mav::HOME_POSITION_DATA {
            latitude: (g.lat_deg * 1e7).round() as i32,
            longitude: (g.lon_deg * 1e7).round() as i32,
            altitude: (g.alt_amsl_m * 1e3).round() as i32,
            x: l.north as f32,
            y: l.east as f32,
            z: l.down as f32,
            q: [1.0, 0.0, 0.0, 0.0],
            ..Default::default()
        })
    }
}

fn wrap_pi(a: f64) -> f64 {
    let two_pi = std::f64::consts::TAU;
    (a + std::f64::consts::PI).rem_euclid(two_pi) - std::f64::consts::PI
}
