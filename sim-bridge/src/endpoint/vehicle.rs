//! [`Px4Vehicle`]: the world behind PX4's state machine, sans-IO. It advances the world to the
//! time it is given, keeps what PX4 keeps on top of a flight controller — who it is
//! (`identity`), time since boot (`uptime`), the mode (main/sub) and a return's phase
//! (`navigation`), the armed state with its timers (`arming`), the local frame and home, moved
//! at every arming (`frames`), the offboard setpoint and its loss (`offboard`), the failsafes
//! (`failsafe`), the parameters (`params`), ArduCopter's own mode (`copter_state`) — and
//! queues the status texts PX4 would say.
//!
//! Time is microseconds since the endpoint started ("boot"); the world's clock runs from where
//! it stood at that moment.

use super::arming::Arming;
use super::codec::mav::MavSeverity;
use super::copter;
use super::copter_state::CopterState;
use super::failsafe::FailsafeState;
use super::frames::Frames;
use super::identity::Identity;
use super::kinematics::Kinematics;
use super::modes::Px4Mode;
use super::navigation::{Navigation, RtlPhase};
use super::offboard::Offboard;
use super::options::{Autopilot, BootTiming};
use super::params::Params;
use super::uptime::Uptime;
use crate::flight_controller::{LandPhase, Mode as FcMode};
use crate::world::World;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};

/// PX4 takes a climb within this of the return altitude as done, metres.
const RTL_CLIMB_DONE_M: f64 = 1.0;

/// The world as a PX4 vehicle.
#[derive(Debug, Clone)]
pub struct Px4Vehicle {
    pub(super) world: World,
    pub(super) identity: Identity,
    pub(super) time: Uptime,
    pub(super) copter: CopterState,
    pub(super) frames: Frames,
    pub(super) params: Params,
    pub(super) nav: Navigation,
    pub(super) arming: Arming,
    pub(super) offboard: Offboard,
    pub(super) fs: FailsafeState,
    /// Status texts waiting to be sent, oldest first.
    texts: Vec<(MavSeverity, String)>,
    /// The world's telemetry at the last step, with the battery PX4 shows.
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
            identity: Identity {
                autopilot,
                system_id,
            },
            time: Uptime {
                boot,
                world_start_us: world.time_us(),
                now_us: 0,
            },
            // ArduCopter boots in STABILIZE; one already flying is under the companion.
            copter: CopterState {
                mode: if airborne {
                    copter::mode::GUIDED
                } else {
                    copter::mode::STABILIZE
                },
                prearm_text_us: boot.heartbeat_ms * 1000,
            },
            frames: Frames {
                local: world.frame(),
                home: None,
                home_changed: false,
            },
            params,
            nav: Navigation {
                mode: Px4Mode::HOLD,
                mode_after_disarm: Px4Mode::HOLD,
                rtl: None,
            },
            arming: Arming {
                armed: world.flight_controller().armed,
                disarm_at_us: None,
                idle_since_us: None,
                was_airborne: airborne,
            },
            offboard: Offboard::default(),
            fs: FailsafeState::default(),
            texts: Vec::new(),
            kin: Kinematics::default(),
            snap,
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
        self.nav.mode
    }

    pub fn is_armed(&self) -> bool {
        self.arming.armed
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Home in the world's frame (metres from the scenario origin), once known.
    pub fn home(&self) -> Option<Enu> {
        self.frames.home
    }

    /// Home as PX4 reports it (WGS-84), once known.
    pub fn home_geo(&self) -> Option<Geo> {
        self.frames.home.map(|h| self.frames.local.to_geo(h))
    }

    pub(super) fn booted(&self) -> bool {
        self.time.now_us >= self.time.boot.heartbeat_ms * 1000
    }

    pub(super) fn has_global_position(&self) -> bool {
        self.time.now_us >= self.time.boot.home_ms * 1000 && self.snap.gnss.fix.is_3d()
    }

    pub(super) fn airborne(&self) -> bool {
        self.world.flight_controller().landed != LandedState::OnGround
    }

    pub(super) fn say(&mut self, severity: MavSeverity, text: impl Into<String>) {
        let text = text.into();
        let text = match self.identity.autopilot {
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
        self.frames.home = Some(Enu::new(p.x, p.y, z));
        self.frames.home_changed = true;
    }

    /// Whether home changed since the last call.
    pub fn take_home_changed(&mut self) -> bool {
        std::mem::take(&mut self.frames.home_changed)
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
        if self.arming.armed && !self.world.flight_controller().armed {
            let _ = self.fly(Command::Arm);
        }
    }

    /// Moves the world and PX4's state on to `now_us`.
    pub fn step(&mut self, now_us: u64) {
        self.time.now_us = self.time.now_us.max(now_us);
        let target_ms = (self.time.world_start_us + self.time.now_us) / 1000;
        if target_ms > self.world.now_ms() {
            self.world.advance_to_ms(target_ms);
        }
        self.snap = self.world.snapshot();
        self.snap.battery.remaining_pct = self.battery_pct_shown(self.snap.battery.remaining_pct);
        self.kin
            .update(self.time.now_us, self.snap.velocity, self.snap.yaw_deg);
        if self.frames.home.is_none() && self.has_global_position() {
            self.set_home();
        }
        self.follow_world();
        if self.identity.autopilot == Autopilot::ArduCopter {
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
        if self.arming.was_airborne && !airborne {
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Landing detected");
            let delay_s = self.disarm_delays_s().0.max(0.0);
            self.arming.disarm_at_us = Some(self.time.now_us + (delay_s * 1e6) as u64);
            self.nav.rtl = None;
        }
        if !self.arming.was_airborne && airborne {
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Takeoff detected");
        }
        if airborne {
            self.arming.idle_since_us = None;
        }
        self.arming.was_airborne = airborne;
        if world_armed && !self.arming.armed {
            self.arming.armed = true;
        }
        if self.nav.mode == Px4Mode::TAKEOFF && matches!(fc_mode, FcMode::GoTo { .. }) {
            // PX4 says nothing here; the mode it holds in is also the one after disarming.
            self.nav.mode = Px4Mode::HOLD;
            self.nav.mode_after_disarm = Px4Mode::HOLD;
        }
        if let Some(RtlPhase::Climb { altitude_z }) = self.nav.rtl
            && self.snap.position.z >= altitude_z - RTL_CLIMB_DONE_M
            && let Some(h) = self.frames.home
        {
            self.nav.rtl = Some(RtlPhase::Home);
            let _ = self.fly(Command::Land {
                site: Some([h.x, h.y]),
            });
        }
        if self.nav.rtl == Some(RtlPhase::Home)
            && matches!(
                fc_mode,
                FcMode::Land {
                    phase: LandPhase::Descend,
                    ..
                }
            )
        {
            self.nav.rtl = Some(RtlPhase::Land);
            self.say(MavSeverity::MAV_SEVERITY_INFO, "RTL: land at destination");
        }
    }

    /// OFFBOARD: track the setpoint; when setpoints stop for COM_OF_LOSS_T, COM_OBL_RC_ACT.
    fn watch_offboard(&mut self) {
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

    fn watch_disarm_timers(&mut self) {
        if let Some(t) = self.arming.disarm_at_us
            && self.time.now_us >= t
        {
            self.arming.disarm_at_us = None;
            if !self.airborne() {
                self.disarm("Disarmed by landing");
            }
        }
        if let Some(since) = self.arming.idle_since_us {
            let limit_s = self.disarm_delays_s().1;
            if limit_s > 0.0
                && self.time.now_us >= since + (limit_s * 1e6) as u64
                && !self.airborne()
                && self.world.flight_controller().mode == FcMode::Idle
            {
                self.disarm("Disarmed by auto preflight disarming");
            }
        }
        if self.arming.armed
            && !self.world.flight_controller().armed
            && self.arming.disarm_at_us.is_none()
        {
            // The world disarmed without a landing delay pending (nothing else does that).
            self.disarmed();
        }
    }

    /// Seconds to auto-disarm after landing and after arming without taking off.
    fn disarm_delays_s(&self) -> (f64, f64) {
        match self.identity.autopilot {
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
        match self.identity.autopilot {
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
        self.arming.armed = false;
        self.arming.disarm_at_us = None;
        self.arming.idle_since_us = None;
        self.nav.rtl = None;
        self.cancel_delayed_failsafe();
        self.nav.mode = self.nav.mode_after_disarm;
    }

    pub(super) fn arm(&mut self) -> Result<(), String> {
        if !self.arming.armed || !self.world.flight_controller().armed {
            self.fly(Command::Arm)?;
        }
        if !self.arming.armed {
            let text = match self.identity.autopilot {
                Autopilot::Px4 => "Armed by external command",
                Autopilot::ArduCopter => "Arming motors",
            };
            self.say(MavSeverity::MAV_SEVERITY_INFO, text);
            // PX4 sets home where it arms.
            self.set_home();
            if !self.airborne() {
                self.arming.idle_since_us = Some(self.time.now_us);
            }
        }
        self.arming.armed = true;
        self.arming.disarm_at_us = None;
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
                let home = self.frames.home.ok_or("no home position")?;
                if airborne {
                    let above = self.return_altitude_m().max(0.0);
                    let altitude_z = (home.z + above).max(self.snap.position.z);
                    let p = self.snap.position;
                    self.fly(Command::GoTo {
                        target: Enu::new(p.x, p.y, altitude_z),
                        speed_mps: None,
                    })?;
                    self.nav.rtl = Some(RtlPhase::Climb { altitude_z });
                    let return_amsl = self.frames.local.to_geo(Enu::new(p.x, p.y, altitude_z));
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
            self.nav.rtl = None;
        }
        self.nav.mode = mode;
        Ok(())
    }

    /// Take-off to `above_home_m` over home (PX4's AUTO.TAKEOFF).
    pub(super) fn take_off(&mut self, above_home_m: f64) -> Result<(), String> {
        if !self.arming.armed {
            return Err("not armed".into());
        }
        let home = self.frames.home.ok_or("no home position")?;
        self.ensure_world_armed();
        self.fly(Command::Takeoff {
            altitude_m: home.z + above_home_m,
        })?;
        self.nav.rtl = None;
        self.arming.idle_since_us = None;
        self.nav.mode = Px4Mode::TAKEOFF;
        Ok(())
    }
}
