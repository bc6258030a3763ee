//! What the fake autopilot does with what it receives.

use super::FakePx4;
use alpha3_core::frames::{Enu, Geo, Ned};
use alpha3_hil::dialect::{MavHeader, MavMessage, mav, param_name};
use alpha3_hil::param::{ParamEncoding, ParamValue, encode_param};
use alpha3_hil::profile::px4::{
    MAIN_AUTO, MAIN_OFFBOARD, SUB_LAND, SUB_LOITER, SUB_RTL, SUB_TAKEOFF,
};
use mav::{MavCmd, MavResult, MavSeverity};

/// A command with its parameters, whichever message carried it.
struct Cmd {
    command: MavCmd,
    p: [f32; 7],
    /// COMMAND_INT position: lat/lon ×1e7 and z.
    int: Option<(i32, i32, f32)>,
}

impl FakePx4 {
    /// Takes one message from the companion.
    pub fn handle(&mut self, now_us: u64, header: MavHeader, message: MavMessage) {
        self.received.push((header, message.clone()));
        if !self.booted(now_us) {
            return;
        }
        match message {
            MavMessage::HEARTBEAT(hb) if hb.mavtype == mav::MavType::MAV_TYPE_GCS => {
                self.gcs_seen = true;
            }
            MavMessage::COMMAND_LONG(c) if c.target_system == self.cfg.system_id => {
                let p = [
                    c.param1, c.param2, c.param3, c.param4, c.param5, c.param6, c.param7,
                ];
                self.command(
                    now_us,
                    &header,
                    Cmd {
                        command: c.command,
                        p,
                        int: None,
                    },
                );
            }
            MavMessage::COMMAND_INT(c) if c.target_system == self.cfg.system_id => {
                let p = [c.param1, c.param2, c.param3, c.param4, 0.0, 0.0, c.z];
                let int = Some((c.x, c.y, c.z));
                self.command(
                    now_us,
                    &header,
                    Cmd {
                        command: c.command,
                        p,
                        int,
                    },
                );
            }
            MavMessage::SET_POSITION_TARGET_LOCAL_NED(sp) => {
                let world = self.world_of_local(Ned::new(
                    f64::from(sp.x),
                    f64::from(sp.y),
                    f64::from(sp.z),
                ));
                self.setpoint = Some((world, now_us));
            }
            MavMessage::PARAM_REQUEST_READ(r) => self.param(&r),
            MavMessage::PARAM_SET(p) if p.target_system == self.cfg.system_id => self.set_param(&p),
            MavMessage::TIMESYNC(t) if t.tc1 == 0 => {
                self.outbox
                    .push_back(MavMessage::TIMESYNC(mav::TIMESYNC_DATA {
                        tc1: now_us as i64 * 1000,
                        ts1: t.ts1,
                        target_system: header.system_id as u8,
                        target_component: header.component_id,
                    }));
            }
            _ => {}
        }
    }

    fn command(&mut self, now_us: u64, header: &MavHeader, c: Cmd) {
        if self.cfg.silent_commands {
            return;
        }
        let result = self.run(now_us, &c);
        self.outbox
            .push_back(MavMessage::COMMAND_ACK(mav::COMMAND_ACK_DATA {
                command: c.command,
                result,
                progress: 0,
                result_param2: 0,
                target_system: header.system_id as u8,
                target_component: header.component_id,
            }));
    }

    fn run(&mut self, now_us: u64, c: &Cmd) -> MavResult {
        use MavResult::*;
        match c.command {
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM if c.p[0] == 1.0 => {
                if now_us < self.cfg.arm_ready_ms * 1000 {
                    self.text(
                        MavSeverity::MAV_SEVERITY_CRITICAL,
                        "Arming denied: Resolve system health failures first",
                    );
                    return MAV_RESULT_DENIED;
                }
                if !self.armed {
                    self.armed = true;
                    // PX4 sets home where it arms.
                    self.home_world = self.pos;
                    self.set_mode(MAIN_AUTO, SUB_LOITER);
                }
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM => {
                if self.airborne() {
                    return MAV_RESULT_DENIED;
                }
                self.armed = false;
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_NAV_TAKEOFF => {
                if !self.armed {
                    return MAV_RESULT_DENIED;
                }
                // param7 is AMSL.
                self.takeoff_z = f64::from(c.p[6]) - self.cfg.home.alt_amsl_m;
                self.main = MAIN_AUTO;
                self.sub = SUB_TAKEOFF;
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_DO_REPOSITION => {
                let Some((lat, lon, z)) = c.int else {
                    return MAV_RESULT_UNSUPPORTED;
                };
                if !self.airborne() {
                    return MAV_RESULT_DENIED;
                }
                let goal = if (lat, lon) == (i32::MAX, i32::MAX) {
                    // No position, as PX4's pause: stop here (at the altitude given, if any).
                    let here = self.pos;
                    let z = if z.is_finite() {
                        self.frame
                            .to_enu(Geo {
                                alt_amsl_m: f64::from(z),
                                ..self.cfg.home
                            })
                            .z
                    } else {
                        here.z
                    };
                    Enu::new(here.x, here.y, z)
                } else {
                    let geo = Geo {
                        lat_deg: f64::from(lat) * 1e-7,
                        lon_deg: f64::from(lon) * 1e-7,
                        // z is AMSL whatever the frame says.
                        alt_amsl_m: f64::from(z),
                    };
                    self.frame.to_enu(geo)
                };
                if let Some(r) = self.cfg.fence_radius_m
                    && goal.horizontal_distance(self.home_world) > r
                {
                    // ACKed, then ignored: only the text says so.
                    self.text(
                        MavSeverity::MAV_SEVERITY_CRITICAL,
                        "Reposition is outside geofence",
                    );
                    return MAV_RESULT_ACCEPTED;
                }
                if c.p[0] > 0.0 {
                    self.speed = f64::from(c.p[0]);
                }
                self.set_mode(MAIN_AUTO, SUB_LOITER);
                self.target = Some(goal);
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_DO_SET_MODE => {
                let (main, sub) = (c.p[1] as u8, c.p[2] as u8);
                if main == MAIN_OFFBOARD {
                    let fresh = self.setpoint.is_some_and(|(_, at)| now_us < at + 500_000);
                    if !fresh {
                        return MAV_RESULT_DENIED;
                    }
                } else if main != MAIN_AUTO || ![SUB_LOITER, SUB_RTL, SUB_LAND].contains(&sub) {
                    return MAV_RESULT_UNSUPPORTED;
                }
                self.set_mode(main, sub);
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_NAV_LAND => {
                self.set_mode(MAIN_AUTO, SUB_LAND);
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH => {
                self.set_mode(MAIN_AUTO, SUB_RTL);
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_DO_CHANGE_SPEED => {
                if c.p[1] > 0.0 {
                    self.speed = f64::from(c.p[1]);
                }
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL => {
                let id = c.p[0] as u32;
                if c.p[1] < 0.0 {
                    self.intervals.remove(&id);
                } else if c.p[1] > 0.0 {
                    self.intervals.insert(id, (c.p[1] as u64, now_us));
                }
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_REQUEST_MESSAGE => match c.p[0] as u32 {
                242 if now_us >= self.cfg.home_ms * 1000 => {
                    let m = self.home_position();
                    self.outbox.push_back(m);
                    MAV_RESULT_ACCEPTED
                }
                242 => MAV_RESULT_TEMPORARILY_REJECTED,
                _ => MAV_RESULT_UNSUPPORTED,
            },
            _ => MAV_RESULT_UNSUPPORTED,
        }
    }

    /// PARAM_SET: stores the value (decoded byte-wise, as PX4 does) and echoes PARAM_VALUE.
    fn set_param(&mut self, p: &mav::PARAM_SET_DATA) {
        let name = param_name(&p.param_id[..]);
        let value =
            alpha3_hil::param::decode_param(p.param_value, p.param_type, ParamEncoding::Bytewise);
        let Some(slot) = self.cfg.params.iter_mut().find(|(n, _)| *n == name) else {
            return;
        };
        slot.1 = value;
        self.param_writes.push((name.clone(), value));
        self.param(&mav::PARAM_REQUEST_READ_DATA {
            param_index: -1,
            target_system: p.target_system,
            target_component: p.target_component,
            param_id: name.as_str().into(),
        });
    }

    fn param(&mut self, r: &mav::PARAM_REQUEST_READ_DATA) {
        let name = param_name(&r.param_id[..]);
        let index = if r.param_index >= 0 {
            Some(r.param_index as usize)
        } else {
            self.cfg.params.iter().position(|(n, _)| *n == name)
        };
        let Some((i, (name, value))) = index.and_then(|i| self.cfg.params.get(i).map(|p| (i, p)))
        else {
            return;
        };
        let param_type = match value {
            ParamValue::Int(_) => mav::MavParamType::MAV_PARAM_TYPE_INT32,
            ParamValue::Real(_) => mav::MavParamType::MAV_PARAM_TYPE_REAL32,
        };
        let m = MavMessage::PARAM_VALUE(mav::PARAM_VALUE_DATA {
            // INT32 travels byte-wise, as PX4 does it.
            param_value: encode_param(*value, ParamEncoding::Bytewise),
            param_count: self.cfg.params.len() as u16,
            param_index: i as u16,
            param_id: name.as_str().into(),
            param_type,
        });
        self.outbox.push_back(m);
    }
}
