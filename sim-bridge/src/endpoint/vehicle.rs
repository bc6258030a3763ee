//! [`Px4Vehicle`]: the world behind PX4's state machine, sans-IO. It advances the world to the
//! time it is given, keeps what PX4 keeps on top of a flight controller — the mode (main/sub),
//! the armed state with its timers, home (moved at every arming), the offboard setpoint and
//! its loss, the geofence, the parameters — and queues the status texts PX4 would say.
//!
//! Time is microseconds since the endpoint started ("boot"); the world's clock runs from where
//! it stood at that moment.

use super::codec::mav::MavSeverity;
use super::copter;
use super::failsafe::FailsafeState;
use super::modes::Px4Mode;
use super::options::{Autopilot, BootTiming};
use super::params::Params;
use crate::flight_controller::{LandPhase, Mode as FcMode};
use crate::world::World;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo, LocalFrame};
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};

/// Gravity for the attitude the accelerations imply, m/s².
const G: f64 = 9.81;
/// Smoothing of the acceleration estimate, seconds.
const ACCEL_TAU_S: f64 = 0.1;
/// PX4 takes a climb within this of the return altitude as done, metres.
const RTL_CLIMB_DONE_M: f64 = 1.0;

/// Where a return is in its sequence (PX4: climb to RTL_RETURN_ALT, fly home, land).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RtlPhase {
    Climb {
        altitude_z: f64,
    },
    /// Flying home at altitude (the world's land-at-site, in transit).
    Home,
    /// Descending at home.
    Land,
}

/// Attitude and acceleration estimated from the world's velocity (the world is a point mass).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Kinematics {
    pub roll_rad: f64,
    pub pitch_rad: f64,
    pub yaw_rad: f64,
    pub yaw_rate_rps: f64,
    /// Smoothed acceleration, ENU, m/s².
    pub accel: Enu,
    last_velocity: Option<(Enu, u64)>,
    last_yaw_deg: Option<f64>,
}

impl Kinematics {
    fn update(&mut self, now_us: u64, velocity: Enu, yaw_deg: f64) {
        if let Some((v0, t0)) = self.last_velocity
            && now_us > t0
        {
            let dt = (now_us - t0) as f64 / 1e6;
            let k = (dt / ACCEL_TAU_S).min(1.0);
            let a = |new: f64, old: f64, lp: f64| lp + k * ((new - old) / dt - lp);
            self.accel = Enu::new(
                a(velocity.x, v0.x, self.accel.x),
                a(velocity.y, v0.y, self.accel.y),
                a(velocity.z, v0.z, self.accel.z),
            );
            if let Some(y0) = self.last_yaw_deg {
                let d = (yaw_deg - y0 + 540.0).rem_euclid(360.0) - 180.0;
                self.yaw_rate_rps = d.to_radians() / dt;
            }
        }
        self.last_velocity = Some((velocity, now_us));
        self.last_yaw_deg = Some(yaw_deg);
        let psi = yaw_deg.to_radians();
        let (a_n, a_e) = (self.accel.y, self.accel.x);
        let forward = a_n * psi.cos() + a_e * psi.sin();
        let right = -a_n * psi.sin() + a_e * psi.cos();
        self.pitch_rad = -(forward / G).atan();
        self.roll_rad = (right / G).atan();
        self.yaw_rad =
            (psi + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    }
}

/// The world as a PX4 vehicle.
#[derive(Debug, Clone)]
pub struct Px4Vehicle {
    pub(super) world: World,
    /// Which autopilot this imitates; ArduCopter's own behaviour is in `copter`.
    pub(super) autopilot: Autopilot,
    /// ArduCopter's mode number (its HEARTBEAT custom_mode); `mode` then holds the PX4 mode
    /// that flies the world the same way.
    pub(super) copter_mode: u32,
    /// When ArduCopter next repeats its pre-arm failure on its own.
    pub(super) copter_prearm_text_us: u64,
    pub(super) system_id: u8,
    pub(super) boot: BootTiming,
    world_start_us: u64,
    pub(super) now_us: u64,
    /// PX4's local frame: the EKF origin, here the scenario origin.
    pub(super) frame: LocalFrame,
    pub(super) params: Params,
    pub(super) mode: Px4Mode,
    /// The mode PX4 returns to when it disarms: the last one the user chose that allows
    /// arming (not Return or Land; PX4's `_nav_state_after_disarming`).
    pub(super) mode_after_disarm: Px4Mode,
    /// PX4's armed state (the world disarms at touch-down; PX4 a little later).
    pub(super) armed: bool,
    /// Home, in the world frame; known from `boot.home_ms`, moved at every arming.
    pub(super) home: Option<Enu>,
    pub(super) rtl: Option<RtlPhase>,
    /// Newest offboard setpoint (world frame) and when any setpoint last came.
    pub(super) setpoint: Option<Enu>,
    pub(super) setpoint_at_us: Option<u64>,
    disarm_at_us: Option<u64>,
    /// Armed on the ground and not yet taken off (COM_DISARM_PRFLT).
    armed_idle_since_us: Option<u64>,
    was_airborne: bool,
    pub(super) fs: FailsafeState,
    /// Home was set or moved since the links last heard (PX4 sends HOME_POSITION on change).
    home_changed: bool,
    texts: Vec<(MavSeverity, String)>,
    pub(super) snap: VehicleSnapshot,
    pub(super) kin: Kinematics,
}

impl Px4Vehicle {
    pub fn new(world: World, system_id: u8, boot: BootTiming, autopilot: Autopilot) -> Self {
        let snap = world.snapshot();
        let airborne = world.flight_controller().landed != LandedState::OnGround;
        let params = match autopilot {
            Autopilot::Px4 => Params::px4_defaults(system_id),
            Autopilot::ArduCopter => Params::copter_defaults(),
        };
        Self {
            world_start_us: world.time_us(),
            frame: world.frame(),
            params,
            autopilot,
            // ArduCopter boots in STABILIZE; one already flying is under the companion.
            copter_mode: if airborne {
                copter::mode::GUIDED
            } else {
                copter::mode::STABILIZE
            },
            copter_prearm_text_us: boot.heartbeat_ms * 1000,
            mode: Px4Mode::HOLD,
            mode_after_disarm: Px4Mode::HOLD,
            armed: world.flight_controller().armed,
            home: None,
            rtl: None,
            setpoint: None,
            setpoint_at_us: None,
            disarm_at_us: None,
            armed_idle_since_us: None,
            was_airborne: airborne,
            fs: FailsafeState::default(),
            home_changed: false,
            texts: Vec::new(),
            kin: Kinematics::default(),
            snap,
            now_us: 0,
            system_id,
            boot,
            world,
        }
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    pub fn mode(&self) -> Px4Mode {
        self.mode
    }

    pub fn is_armed(&self) -> bool {
        self.armed
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Home in the world's frame (metres from the scenario origin), once known.
    pub fn home(&self) -> Option<Enu> {
        self.home
    }

    /// Home as PX4 reports it (WGS-84), once known.
    pub fn home_geo(&self) -> Option<Geo> {
        self.home.map(|h| self.frame.to_geo(h))
    }

    pub(super) fn booted(&self) -> bool {
        self.now_us >= self.boot.heartbeat_ms * 1000
    }

    pub(super) fn has_global_position(&self) -> bool {
        self.now_us >= self.boot.home_ms * 1000 && self.snap.gnss.fix.is_3d()
    }

    pub(super) fn airborne(&self) -> bool {
        self.world.flight_controller().landed != LandedState::OnGround
    }

    pub(super) fn say(&mut self, severity: MavSeverity, text: impl Into<String>) {
        let text = text.into();
        let text = match self.autopilot {
            Autopilot::Px4 => text,
            Autopilot::ArduCopter => match copter::text_for(&text) {
                Some(t) => t,
                None => return,
            },
        };
        self.texts.push((severity, text));
    }

    /// How many texts wait to be sent (a mark for [`Self::say_at`]).
    pub(super) fn texts_said(&self) -> usize {
        self.texts.len()
    }

    /// Says `text` before whatever was said since `mark`.
    pub(super) fn say_at(&mut self, mark: usize, severity: MavSeverity, text: impl Into<String>) {
        let at = mark.min(self.texts.len());
        self.texts.insert(at, (severity, text.into()));
    }

    fn set_home(&mut self) {
        let p = self.snap.position;
        // A world that starts in the air (a test's shortcut) still has its home on the ground.
        let z = if self.airborne() { 0.0 } else { p.z };
        self.home = Some(Enu::new(p.x, p.y, z));
        self.home_changed = true;
    }

    /// Whether home changed since the last call.
    pub fn take_home_changed(&mut self) -> bool {
        std::mem::take(&mut self.home_changed)
    }

    /// Status texts said since the last call (for links that heard a GCS heartbeat).
    pub fn take_texts(&mut self) -> Vec<(MavSeverity, String)> {
        std::mem::take(&mut self.texts)
    }

    /// Runs a command on the world; `Err` is the world's refusal.
    pub(super) fn fly(&mut self, command: Command) -> Result<(), String> {
        let r = self.world.execute_command(&command);
        if r.accepted {
            Ok(())
        } else {
            Err(r.message.unwrap_or_else(|| "refused".into()))
        }
    }

    /// Re-arms the world inside PX4's landing-disarm delay (PX4 is still armed then).
    pub(super) fn ensure_world_armed(&mut self) {
        if self.armed && !self.world.flight_controller().armed {
            let _ = self.fly(Command::Arm);
        }
    }

    /// Moves the world and PX4's state on to `now_us`.
    pub fn step(&mut self, now_us: u64) {
        self.now_us = self.now_us.max(now_us);
        let target_ms = (self.world_start_us + self.now_us) / 1000;
        if target_ms > self.world.now_ms() {
            self.world.advance_to_ms(target_ms);
        }
        self.snap = self.world.snapshot();
        self.snap.battery.remaining_pct = self.battery_pct_shown(self.snap.battery.remaining_pct);
        self.kin
            .update(self.now_us, self.snap.velocity, self.snap.yaw_deg);
        if self.home.is_none() && self.has_global_position() {
            self.set_home();
        }
        self.follow_world();
        if self.autopilot == Autopilot::ArduCopter {
            self.copter_watch_prearm();
        }
        self.watch_offboard();
        self.watch_failsafes();
        self.watch_disarm_timers();
    }

    /// Mode and armed-state changes that follow from what the world did.
    fn follow_world(&mut self) {
        let fc = self.world.flight_controller();
        let airborne = fc.landed != LandedState::OnGround;
        let fc_mode = fc.mode;
        let world_armed = fc.armed;
        if self.was_airborne && !airborne {
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Landing detected");
            let delay_s = self.disarm_delays_s().0.max(0.0);
            self.disarm_at_us = Some(self.now_us + (delay_s * 1e6) as u64);
            self.rtl = None;
        }
        if !self.was_airborne && airborne {
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Takeoff detected");
        }
        if airborne {
            self.armed_idle_since_us = None;
        }
        self.was_airborne = airborne;
        if world_armed && !self.armed {
            self.armed = true;
        }
        if self.mode == Px4Mode::TAKEOFF && matches!(fc_mode, FcMode::GoTo { .. }) {
            // PX4 says nothing here; the mode it holds in is also the one after disarming.
            self.mode = Px4Mode::HOLD;
            self.mode_after_disarm = Px4Mode::HOLD;
        }
        if let Some(RtlPhase::Climb { altitude_z }) = self.rtl
            && self.snap.position.z >= altitude_z - RTL_CLIMB_DONE_M
            && let Some(h) = self.home
        {
            self.rtl = Some(RtlPhase::Home);
            let _ = self.fly(Command::Land {
                site: Some([h.x, h.y]),
            });
        }
        if self.rtl == Some(RtlPhase::Home)
            && matches!(
                fc_mode,
                FcMode::Land {
                    phase: LandPhase::Descend,
                    ..
                }
            )
        {
            self.rtl = Some(RtlPhase::Land);
            self.say(MavSeverity::MAV_SEVERITY_INFO, "RTL: land at destination");
        }
    }

    /// OFFBOARD: track the setpoint; when setpoints stop for COM_OF_LOSS_T, COM_OBL_RC_ACT.
    fn watch_offboard(&mut self) {
        if self.mode != Px4Mode::OFFBOARD {
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
        let Some(sp) = self.setpoint else { return };
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
        } else if fc.landed == LandedState::OnGround && self.armed && fc.mode == FcMode::Idle {
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
        self.setpoint_at_us
            .is_some_and(|t| self.now_us <= t.saturating_add(loss_us))
    }

    fn watch_disarm_timers(&mut self) {
        if let Some(t) = self.disarm_at_us
            && self.now_us >= t
        {
            self.disarm_at_us = None;
            if !self.airborne() {
                self.disarm("Disarmed by landing");
            }
        }
        if let Some(since) = self.armed_idle_since_us {
            let limit_s = self.disarm_delays_s().1;
            if limit_s > 0.0
                && self.now_us >= since + (limit_s * 1e6) as u64
                && !self.airborne()
                && self.world.flight_controller().mode == FcMode::Idle
            {
                self.disarm("Disarmed by auto preflight disarming");
            }
        }
        if self.armed && !self.world.flight_controller().armed && self.disarm_at_us.is_none() {
            // The world disarmed without a landing delay pending (nothing else does that).
            self.disarmed();
        }
    }

    /// Seconds to auto-disarm after landing and after arming without taking off.
    fn disarm_delays_s(&self) -> (f64, f64) {
        match self.autopilot {
            Autopilot::Px4 => (
                self.params.number("COM_DISARM_LAND"),
                self.params.number("COM_DISARM_PRFLT"),
            ),
            Autopilot::ArduCopter => self.copter_disarm_delays_s(),
        }
    }

    /// The height above home a return climbs to: PX4's RTL_RETURN_ALT (m), ArduCopter's
    /// RTL_ALT (cm).
    fn return_altitude_m(&self) -> f64 {
        match self.autopilot {
            Autopilot::Px4 => self.params.number("RTL_RETURN_ALT"),
            Autopilot::ArduCopter => self.params.number("RTL_ALT") / 100.0,
        }
    }

    pub(super) fn disarm(&mut self, why: &str) {
        if self.world.flight_controller().armed {
            let _ = self.fly(Command::Disarm);
        }
        self.disarmed();
        self.say(MavSeverity::MAV_SEVERITY_INFO, why);
    }

    /// PX4 on disarming: timers and waiting failsafes dropped, and back to the last mode the
    /// user chose that allows arming (after a Return or a Land: Hold).
    fn disarmed(&mut self) {
        self.armed = false;
        self.disarm_at_us = None;
        self.armed_idle_since_us = None;
        self.rtl = None;
        self.cancel_delayed_failsafe();
        self.mode = self.mode_after_disarm;
    }

    pub(super) fn arm(&mut self) -> Result<(), String> {
        if !self.armed || !self.world.flight_controller().armed {
            self.fly(Command::Arm)?;
        }
        if !self.armed {
            let text = match self.autopilot {
                Autopilot::Px4 => "Armed by external command",
                Autopilot::ArduCopter => "Arming motors",
            };
            self.say(MavSeverity::MAV_SEVERITY_INFO, text);
            // PX4 sets home where it arms.
            self.set_home();
            if !self.airborne() {
                self.armed_idle_since_us = Some(self.now_us);
            }
        }
        self.armed = true;
        self.disarm_at_us = None;
        Ok(())
    }

    /// Enters `mode` with what it does to the world (used by commands and failsafes).
    /// `Err` is why it cannot.
    pub(super) fn enter(&mut self, mode: Px4Mode) -> Result<(), String> {
        let airborne = self.airborne();
        match mode {
            Px4Mode::HOLD => {
                if airborne {
                    self.fly(Command::Hold)?;
                }
            }
            Px4Mode::LAND => {
                if airborne {
                    self.fly(Command::Land { site: None })?;
                }
            }
            Px4Mode::RTL => {
                let home = self.home.ok_or("no home position")?;
                if airborne {
                    let above = self.return_altitude_m().max(0.0);
                    let altitude_z = (home.z + above).max(self.snap.position.z);
                    let p = self.snap.position;
                    self.fly(Command::GoTo {
                        target: Enu::new(p.x, p.y, altitude_z),
                        speed_mps: None,
                    })?;
                    self.rtl = Some(RtlPhase::Climb { altitude_z });
                    let return_amsl = self.frame.to_geo(Enu::new(p.x, p.y, altitude_z));
                    self.say(
                        MavSeverity::MAV_SEVERITY_INFO,
                        format!(
                            "RTL: start return at {} m ({} m above destination)",
                            return_amsl.alt_amsl_m.ceil(),
                            (altitude_z - home.z).ceil()
                        ),
                    );
                }
            }
            Px4Mode::TAKEOFF => {
                let above = self.params.number("MIS_TAKEOFF_ALT");
                return self.take_off(above);
            }
            Px4Mode::OFFBOARD => {
                if !self.setpoint_fresh() {
                    return Err("no offboard signal".into());
                }
            }
            other => return Err(format!("{} is not available", other.name())),
        }
        if mode != Px4Mode::RTL {
            self.rtl = None;
        }
        self.mode = mode;
        Ok(())
    }

    /// Take-off to `above_home_m` over home (PX4's AUTO.TAKEOFF).
    pub(super) fn take_off(&mut self, above_home_m: f64) -> Result<(), String> {
        if !self.armed {
            return Err("not armed".into());
        }
        let home = self.home.ok_or("no home position")?;
        self.ensure_world_armed();
        self.fly(Command::Takeoff {
            altitude_m: home.z + above_home_m,
        })?;
        self.rtl = None;
        self.armed_idle_since_us = None;
        self.mode = Px4Mode::TAKEOFF;
        Ok(())
    }
}
