//! The vehicle's telemetry as PX4 fills it, from the world's flight-controller view (estimated
//! position and velocity, battery, GNSS) plus the attitude its accelerations imply. Positions
//! are WGS-84 through the scenario origin (PX4's EKF origin), times since boot.

use super::codec::{MavMessage, mav};
use super::options::Autopilot;
use super::streams::id;
use super::vehicle::Px4Vehicle;
use alpha3_core::snapshot::{FixType, LandedState};
use mav::MavState;

/// PX4 v1.16 development build, as AUTOPILOT_VERSION reports it (major.minor.patch.type).
const FLIGHT_SW_VERSION: u32 = (1 << 24) | (16 << 16);
/// ArduCopter 4.7.0-dev (FIRMWARE_VERSION_TYPE_DEV is 0).
const COPTER_SW_VERSION: u32 = (4 << 24) | (7 << 16);
/// No estimate: what MAVLink uses for unknown 16-bit values.
const UNKNOWN_U16: u16 = u16::MAX;

impl Px4Vehicle {
    fn boot_ms(&self) -> u32 {
        (self.time.now_us / 1000) as u32
    }

    /// The message `message_id` now, or `None` when PX4 would not send it (yet).
    pub fn message(&self, message_id: u32) -> Option<MavMessage> {
        Some(match message_id {
            id::HEARTBEAT => self.heartbeat(),
            id::SYS_STATUS => self.sys_status(),
            id::GPS_RAW_INT => self.gps_raw_int(),
            id::ATTITUDE => MavMessage::ATTITUDE(mav::ATTITUDE_DATA {
                time_boot_ms: self.boot_ms(),
                roll: self.kin.roll_rad as f32,
                pitch: self.kin.pitch_rad as f32,
                yaw: self.kin.yaw_rad as f32,
                rollspeed: 0.0,
                pitchspeed: 0.0,
                yawspeed: self.kin.yaw_rate_rps as f32,
            }),
            id::LOCAL_POSITION_NED => {
                let p = self.snap.position.to_ned();
                let v = self.snap.velocity.to_ned();
                MavMessage::LOCAL_POSITION_NED(mav::LOCAL_POSITION_NED_DATA {
                    time_boot_ms: self.boot_ms(),
                    x: p.north as f32,
                    y: p.east as f32,
                    z: p.down as f32,
                    vx: v.north as f32,
                    vy: v.east as f32,
                    vz: v.down as f32,
                })
            }
            id::GLOBAL_POSITION_INT => self.global_position_int()?,
            id::VFR_HUD => {
                let v = self.snap.velocity;
                let ground = v.x.hypot(v.y);
                MavMessage::VFR_HUD(mav::VFR_HUD_DATA {
                    airspeed: ground as f32,
                    groundspeed: ground as f32,
                    alt: self.frames.local.to_geo(self.snap.position).alt_amsl_m as f32,
                    climb: v.z as f32,
                    heading: self.snap.yaw_deg.round() as i16 % 360,
                    throttle: if self.airborne() { 50 } else { 0 },
                })
            }
            id::HIGHRES_IMU => {
                let (ax, ay) = self.body_accel();
                MavMessage::HIGHRES_IMU(mav::HIGHRES_IMU_DATA {
                    time_usec: self.time.now_us,
                    xacc: ax as f32,
                    yacc: ay as f32,
                    zacc: (-9.81 - self.kin.accel.z) as f32,
                    zgyro: self.kin.yaw_rate_rps as f32,
                    abs_pressure: 1013.25,
                    pressure_alt: self.frames.local.to_geo(self.snap.position).alt_amsl_m as f32,
                    temperature: 20.0,
                    fields_updated: mav::HighresImuUpdatedFlags::from_bits_truncate(0x1fff),
                    ..Default::default()
                })
            }
            id::BATTERY_STATUS => self.battery_status(),
            id::AUTOPILOT_VERSION => self.autopilot_version(),
            id::HOME_POSITION => self.home_position()?,
            id::EXTENDED_SYS_STATE => {
                use mav::MavLandedState as L;
                MavMessage::EXTENDED_SYS_STATE(mav::EXTENDED_SYS_STATE_DATA {
                    vtol_state: mav::MavVtolState::MAV_VTOL_STATE_UNDEFINED,
                    landed_state: match self.world.flight_controller().landed {
                        LandedState::OnGround => L::MAV_LANDED_STATE_ON_GROUND,
                        LandedState::TakingOff => L::MAV_LANDED_STATE_TAKEOFF,
                        LandedState::InAir => L::MAV_LANDED_STATE_IN_AIR,
                        LandedState::Landing => L::MAV_LANDED_STATE_LANDING,
                        LandedState::Unknown => L::MAV_LANDED_STATE_UNDEFINED,
                    },
                })
            }
            id::ODOMETRY => self.odometry(),
            id::EKF_STATUS_REPORT if self.identity.autopilot == Autopilot::ArduCopter => {
                MavMessage::EKF_STATUS_REPORT(mav::EKF_STATUS_REPORT_DATA {
                    flags: self.copter_ekf_flags(),
                    velocity_variance: 0.02,
                    pos_horiz_variance: 0.01,
                    pos_vert_variance: 0.01,
                    compass_variance: 0.02,
                    terrain_alt_variance: 0.0,
                    airspeed_variance: 0.0,
                })
            }
            _ => return None,
        })
    }

    pub fn heartbeat(&self) -> MavMessage {
        let failsafe =
            self.world.flight_controller().mode == crate::flight_controller::Mode::Uncontrolled;
        let (custom_mode, autopilot, base_mode) = match self.identity.autopilot {
            Autopilot::Px4 => (
                self.nav.mode.custom_mode(),
                mav::MavAutopilot::MAV_AUTOPILOT_PX4,
                self.nav.mode.base_mode(self.arming.armed),
            ),
            Autopilot::ArduCopter => (
                self.copter.mode,
                mav::MavAutopilot::MAV_AUTOPILOT_ARDUPILOTMEGA,
                self.copter_base_mode(),
            ),
        };
        MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
            custom_mode,
            mavtype: mav::MavType::MAV_TYPE_QUADROTOR,
            autopilot,
            base_mode,
            system_status: if failsafe {
                MavState::MAV_STATE_CRITICAL
            } else if self.arming.armed {
                MavState::MAV_STATE_ACTIVE
            } else {
                MavState::MAV_STATE_STANDBY
            },
            mavlink_version: 3,
        })
    }

    /// Acceleration in the body's forward/right axes.
    fn body_accel(&self) -> (f64, f64) {
        let psi = self.snap.yaw_deg.to_radians();
        let (a_n, a_e) = (self.kin.accel.y, self.kin.accel.x);
        (
            a_n * psi.cos() + a_e * psi.sin(),
            -a_n * psi.sin() + a_e * psi.cos(),
        )
    }

    fn sys_status(&self) -> MavMessage {
        use mav::MavSysStatusSensor as S;
        let sensors = S::MAV_SYS_STATUS_SENSOR_3D_GYRO
            | S::MAV_SYS_STATUS_SENSOR_3D_ACCEL
            | S::MAV_SYS_STATUS_SENSOR_3D_MAG
            | S::MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE
            | S::MAV_SYS_STATUS_SENSOR_GPS
            | S::MAV_SYS_STATUS_SENSOR_ANGULAR_RATE_CONTROL
            | S::MAV_SYS_STATUS_SENSOR_ATTITUDE_STABILIZATION
            | S::MAV_SYS_STATUS_SENSOR_Z_ALTITUDE_CONTROL
            | S::MAV_SYS_STATUS_SENSOR_XY_POSITION_CONTROL
            | S::MAV_SYS_STATUS_SENSOR_MOTOR_OUTPUTS;
        let mut sensors = sensors;
        if self.identity.autopilot == Autopilot::ArduCopter {
            // ArduPilot reports its pre-arm checks as a sensor: healthy once they pass.
            sensors |= S::MAV_SYS_STATUS_AHRS | S::MAV_SYS_STATUS_PREARM_CHECK;
        }
        let mut health = sensors;
        if !self.snap.gnss.fix.is_3d() || !self.has_global_position() {
            health.remove(S::MAV_SYS_STATUS_SENSOR_GPS);
        }
        if self.identity.autopilot == Autopilot::ArduCopter
            && !self.arming.armed
            && !self.copter_ready()
        {
            health.remove(S::MAV_SYS_STATUS_PREARM_CHECK | S::MAV_SYS_STATUS_AHRS);
        }
        let b = self.snap.battery;
        MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
            onboard_control_sensors_present: sensors,
            onboard_control_sensors_enabled: sensors,
            onboard_control_sensors_health: health,
            load: 250,
            voltage_battery: (b.voltage_v * 1000.0).round().clamp(0.0, 65_534.0) as u16,
            current_battery: (b.current_a * 100.0).round().clamp(-1.0, 32_767.0) as i16,
            battery_remaining: b.remaining_pct.round().clamp(0.0, 100.0) as i8,
            drop_rate_comm: 0,
            errors_comm: 0,
            errors_count1: 0,
            errors_count2: 0,
            errors_count3: 0,
            errors_count4: 0,
            onboard_control_sensors_present_extended: mav::MavSysStatusSensorExtended::empty(),
            onboard_control_sensors_enabled_extended: mav::MavSysStatusSensorExtended::empty(),
            onboard_control_sensors_health_extended: mav::MavSysStatusSensorExtended::empty(),
        })
    }

    fn battery_status(&self) -> MavMessage {
        let b = self.snap.battery;
        let mut voltages = [u16::MAX; 10];
        voltages[0] = (b.voltage_v * 1000.0).round().clamp(0.0, 65_534.0) as u16;
        let charge_state = match b.remaining_pct {
            p if p < 7.0 => mav::MavBatteryChargeState::MAV_BATTERY_CHARGE_STATE_EMERGENCY,
            p if p < 10.0 => mav::MavBatteryChargeState::MAV_BATTERY_CHARGE_STATE_CRITICAL,
            p if p < 15.0 => mav::MavBatteryChargeState::MAV_BATTERY_CHARGE_STATE_LOW,
            _ => mav::MavBatteryChargeState::MAV_BATTERY_CHARGE_STATE_OK,
        };
        MavMessage::BATTERY_STATUS(mav::BATTERY_STATUS_DATA {
            current_consumed: -1,
            energy_consumed: -1,
            temperature: i16::MAX,
            voltages,
            current_battery: (b.current_a * 100.0).round().clamp(-1.0, 32_767.0) as i16,
            id: 0,
            battery_function: mav::MavBatteryFunction::MAV_BATTERY_FUNCTION_ALL,
            mavtype: mav::MavBatteryType::MAV_BATTERY_TYPE_LIPO,
            battery_remaining: b.remaining_pct.round().clamp(0.0, 100.0) as i8,
            time_remaining: 0,
            charge_state,
            voltages_ext: [0; 4],
            mode: mav::MavBatteryMode::MAV_BATTERY_MODE_UNKNOWN,
            fault_bitmask: mav::MavBatteryFault::empty(),
        })
    }

    fn gps_raw_int(&self) -> MavMessage {
        use mav::GpsFixType as G;
        let g = self.snap.gnss;
        let fix = if self.time.now_us < self.time.boot.home_ms * 1000 || self.fix_lost() {
            G::GPS_FIX_TYPE_NO_FIX
        } else {
            match g.fix {
                FixType::None => G::GPS_FIX_TYPE_NO_FIX,
                FixType::Fix2d => G::GPS_FIX_TYPE_2D_FIX,
                FixType::Fix3d => G::GPS_FIX_TYPE_3D_FIX,
                FixType::Dgps => G::GPS_FIX_TYPE_DGPS,
                FixType::RtkFloat => G::GPS_FIX_TYPE_RTK_FLOAT,
                FixType::RtkFixed => G::GPS_FIX_TYPE_RTK_FIXED,
            }
        };
        let geo = self.frames.local.to_geo(self.snap.position);
        let v = self.snap.velocity;
        let ground = v.x.hypot(v.y);
        let cog = if ground > 0.2 {
            (v.x.atan2(v.y).to_degrees().rem_euclid(360.0) * 100.0) as u16
        } else {
            UNKNOWN_U16
        };
        MavMessage::GPS_RAW_INT(mav::GPS_RAW_INT_DATA {
            time_usec: self.time.now_us,
            lat: (geo.lat_deg * 1e7).round() as i32,
            lon: (geo.lon_deg * 1e7).round() as i32,
            alt: (geo.alt_amsl_m * 1e3).round() as i32,
            eph: (g.eph_m * 100.0).round().clamp(0.0, 65_534.0) as u16,
            epv: (g.eph_m * 150.0).round().clamp(0.0, 65_534.0) as u16,
            vel: (ground * 100.0).round().clamp(0.0, 65_534.0) as u16,
            cog,
            fix_type: fix,
            satellites_visible: g.satellites,
            alt_ellipsoid: (geo.alt_amsl_m * 1e3).round() as i32,
            h_acc: (g.eph_m * 1000.0).round().max(0.0) as u32,
            v_acc: (g.eph_m * 1500.0).round().max(0.0) as u32,
            vel_acc: 100,
            hdg_acc: 0,
            yaw: 0,
        })
    }

    fn global_position_int(&self) -> Option<MavMessage> {
        if !self.has_global_position() {
            return None;
        }
        let p = self.snap.position;
        // Without a fix the estimator dead-reckons, and drifts.
        let drift = if self.fix_lost() {
            f64::from(self.time.faults.drift_m) * std::f64::consts::FRAC_1_SQRT_2
        } else {
            0.0
        };
        let g =
            self.frames
                .local
                .to_geo(alpha3_core::frames::Enu::new(p.x + drift, p.y + drift, p.z));
        let v = self.snap.velocity.to_ned();
        let home_z = self.frames.home.map_or(0.0, |h| h.z);
        Some(MavMessage::GLOBAL_POSITION_INT(
            mav::GLOBAL_POSITION_INT_DATA {
                time_boot_ms: self.boot_ms(),
                lat: (g.lat_deg * 1e7).round() as i32,
                lon: (g.lon_deg * 1e7).round() as i32,
                alt: (g.alt_amsl_m * 1e3).round() as i32,
                relative_alt: ((p.z - home_z) * 1e3).round() as i32,
                vx: (v.north * 100.0).round() as i16,
                vy: (v.east * 100.0).round() as i16,
                vz: (v.down * 100.0).round() as i16,
                hdg: ((self.snap.yaw_deg.rem_euclid(360.0) * 100.0).round() as u16) % 36_000,
            },
        ))
    }

    pub fn home_position(&self) -> Option<MavMessage> {
        let h = self.frames.home?;
        let g = self.frames.local.to_geo(h);
        let l = h.to_ned();
        Some(MavMessage::HOME_POSITION(mav::HOME_POSITION_DATA {
            latitude: (g.lat_deg * 1e7).round() as i32,
            longitude: (g.lon_deg * 1e7).round() as i32,
            altitude: (g.alt_amsl_m * 1e3).round() as i32,
            x: l.north as f32,
            y: l.east as f32,
            z: l.down as f32,
            q: [1.0, 0.0, 0.0, 0.0],
            approach_x: 0.0,
            approach_y: 0.0,
            approach_z: 0.0,
            time_usec: self.time.now_us,
        }))
    }

    fn odometry(&self) -> MavMessage {
        let p = self.snap.position.to_ned();
        let psi = self.snap.yaw_deg.to_radians();
        let v = self.snap.velocity;
        // Body FRD velocity: rotate the horizontal velocity by the heading.
        let (v_n, v_e) = (v.y, v.x);
        let forward = v_n * psi.cos() + v_e * psi.sin();
        let right = -v_n * psi.sin() + v_e * psi.cos();
        MavMessage::ODOMETRY(mav::ODOMETRY_DATA {
            time_usec: self.time.now_us,
            x: p.north as f32,
            y: p.east as f32,
            z: p.down as f32,
            q: quaternion(self.kin.roll_rad, self.kin.pitch_rad, self.kin.yaw_rad),
            vx: forward as f32,
            vy: right as f32,
            vz: -v.z as f32,
            rollspeed: 0.0,
            pitchspeed: 0.0,
            yawspeed: self.kin.yaw_rate_rps as f32,
            pose_covariance: nan_covariance(),
            velocity_covariance: nan_covariance(),
            frame_id: mav::MavFrame::MAV_FRAME_LOCAL_NED,
            child_frame_id: mav::MavFrame::MAV_FRAME_BODY_FRD,
            reset_counter: 0,
            estimator_type: mav::MavEstimatorType::MAV_ESTIMATOR_TYPE_AUTOPILOT,
            quality: 100,
        })
    }

    fn autopilot_version(&self) -> MavMessage {
        use mav::MavProtocolCapability as C;
        let (encoding, version) = match self.identity.autopilot {
            Autopilot::Px4 => (
                C::MAV_PROTOCOL_CAPABILITY_PARAM_ENCODE_BYTEWISE,
                FLIGHT_SW_VERSION,
            ),
            Autopilot::ArduCopter => (
                C::MAV_PROTOCOL_CAPABILITY_PARAM_ENCODE_C_CAST,
                COPTER_SW_VERSION,
            ),
        };
        MavMessage::AUTOPILOT_VERSION(mav::AUTOPILOT_VERSION_DATA {
            capabilities: C::MAV_PROTOCOL_CAPABILITY_MISSION_FLOAT
                | C::MAV_PROTOCOL_CAPABILITY_MISSION_INT
                | C::MAV_PROTOCOL_CAPABILITY_COMMAND_INT
                | encoding
                | C::MAV_PROTOCOL_CAPABILITY_SET_ATTITUDE_TARGET
                | C::MAV_PROTOCOL_CAPABILITY_SET_POSITION_TARGET_LOCAL_NED
                | C::MAV_PROTOCOL_CAPABILITY_SET_POSITION_TARGET_GLOBAL_INT
                | C::MAV_PROTOCOL_CAPABILITY_MAVLINK2,
            uid: u64::from(self.identity.system_id),
            flight_sw_version: version,
            middleware_sw_version: version,
            os_sw_version: 0,
            board_version: 0,
            vendor_id: 0,
            product_id: 0,
            flight_custom_version: *b"alpha3\0\0",
            middleware_custom_version: [0; 8],
            os_custom_version: [0; 8],
            uid2: [0; 18],
        })
    }
}

/// Roll, pitch, yaw (radians, ZYX) as a quaternion w, x, y, z.
fn quaternion(roll: f64, pitch: f64, yaw: f64) -> [f32; 4] {
    let (sr, cr) = (roll / 2.0).sin_cos();
    let (sp, cp) = (pitch / 2.0).sin_cos();
    let (sy, cy) = (yaw / 2.0).sin_cos();
    [
        (cr * cp * cy + sr * sp * sy) as f32,
        (sr * cp * cy - cr * sp * sy) as f32,
        (cr * sp * cy + sr * cp * sy) as f32,
        (cr * cp * sy - sr * sp * cy) as f32,
    ]
}

/// "Covariance unknown": NaN in the first element (MAVLink's convention).
fn nan_covariance() -> [f32; 21] {
    let mut c = [0.0; 21];
    c[0] = f32::NAN;
    c
}
