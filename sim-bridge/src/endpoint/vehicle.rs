//! [`Px4Vehicle`]: the world behind PX4's state machine, sans-IO. It advances the world to the
//! time it is given, keeps what PX4 keeps on top of a flight controller — who it is
//! (`Identity`), time since boot (`Uptime`), the local frame and home, moved at every
//! arming (`Frames`), the parameters (`params`), and the sub-states of its behaviours from
//! `state`: the mode (main/sub, `modes`) and a return's phase, the armed state with its
//! timers, the offboard setpoint, what the failsafes remember, ArduCopter's own mode — and
//! queues the status texts PX4 would say. The behaviour over them (`mode_change`, `arming`,
//! `offboard`, `failsafe`, `commands`, `copter`, `mission_flight`) imports this file, never the
//! other way.
//!
//! Time is microseconds since the endpoint started ("boot"); the world's clock runs from where
//! it stood at that moment.

use super::codec::mav::MavSeverity;
use super::copter_mode;
use super::geofence::PlanFence;
use super::kinematics::Kinematics;
use super::modes::Px4Mode;
use super::options::{Autopilot, BootTiming, StartFaults};
use super::params::Params;
use super::state::{
    self, Arming, CopterState, FailsafeState, MissionRun, Navigation, Offboard, RtlPhase,
};
use crate::flight_controller::{LandPhase, Mode as FcMode};
use crate::world::World;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo, LocalFrame};
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
    /// The FENCE plan the mission protocol stored, as areas in the world frame.
    pub(super) plan_fence: PlanFence,
    /// The MISSION plan the mission server stored, and how far it is flown.
    pub(super) mission: MissionRun,
    /// Status texts waiting to be sent, oldest first.
    texts: Vec<(MavSeverity, String)>,
    /// The world's telemetry at the last step, with the battery PX4 shows.
    pub(super) snap: VehicleSnapshot,
    pub(super) kin: Kinematics,
}

/// The imitated autopilot and its MAVLink system id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    /// Which autopilot this imitates; ArduCopter's own behaviour is in `copter`.
    pub autopilot: Autopilot,
    pub system_id: u8,
}

/// Time since boot and the boot milestones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Uptime {
    /// When the imitated autopilot speaks, knows home, and may arm.
    pub boot: BootTiming,
    /// What a loaded machine does to the start (none unless a test asks).
    pub faults: StartFaults,
    /// When the vehicle was first armed, microseconds since boot.
    pub first_armed_us: Option<u64>,
    /// When it was first disarmed after that, microseconds since boot.
    pub first_disarmed_us: Option<u64>,
    /// The world's clock at boot, microseconds: the world runs on from where it stood then.
    pub world_start_us: u64,
    /// Microseconds since boot.
    pub now_us: u64,
}

/// The local frame and home.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frames {
    /// PX4's local frame: the EKF origin, here the scenario origin.
    pub local: LocalFrame,
    /// Home, in the world frame; known from `boot.home_ms`, moved at every arming.
    pub home: Option<Enu>,
    /// Home was set or moved since the links last heard (PX4 sends HOME_POSITION on change).
    pub home_changed: bool,
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
                faults: StartFaults::default(),
                first_armed_us: None,
                first_disarmed_us: None,
                world_start_us: world.time_us(),
                now_us: 0,
            },
            // ArduCopter boots in STABILIZE; one already flying is under the companion.
            copter: CopterState {
                mode: if airborne {
                    copter_mode::GUIDED
                } else {
                    copter_mode::STABILIZE
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
            plan_fence: PlanFence::default(),
            mission: MissionRun::default(),
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

    /// Whether the fix is lost now by [`StartFaults::fix_lost_after_disarm_ms`].
    pub(super) fn fix_lost(&self) -> bool {
        let faults = self.time.faults;
        self.time
            .first_disarmed_us
            .is_some_and(|at| self.time.now_us < at + faults.fix_lost_after_disarm_ms * 1000)
    }

    /// Whether the data streams (`heartbeat` false) or the heartbeat too (`true`) are held up
    /// now by [`StartFaults::stall_after_arm_ms`].
    pub(super) fn telemetry_stalled(&self, heartbeat: bool) -> bool {
        let stall_us = self.time.faults.stall_after_arm_ms * 1000;
        let stall_us = if heartbeat { stall_us / 2 } else { stall_us };
        self.time
            .first_armed_us
            .is_some_and(|at| self.time.now_us < at + stall_us)
    }

    pub(super) fn airborne(&self) -> bool {
        self.world.flight_controller().landed != LandedState::OnGround
    }

    pub(super) fn say(&mut self, severity: MavSeverity, text: impl Into<String>) {
        let text = text.into();
        let text = match self.identity.autopilot {
            Autopilot::Px4 => text,
            Autopilot::ArduCopter => match state::text_for(&text) {
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

    pub(super) fn set_home(&mut self) {
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
        self.fly_mission();
        match (self.time.first_armed_us, self.time.first_disarmed_us) {
            (None, _) if self.arming.armed => self.time.first_armed_us = Some(self.time.now_us),
            (Some(_), None) if !self.arming.armed => {
                self.time.first_disarmed_us = Some(self.time.now_us);
            }
            _ => {}
        }
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
}
