//! A PX4-like autopilot for tests, sans-IO, following `PX4-FACTS.md`: HEARTBEAT autopilot 12 /
//! type 2, arming denied until the autopilot is "ready", take-off to an AMSL param7,
//! DO_REPOSITION with AMSL z (ACKed yet ignored outside the fence, with only a STATUSTEXT),
//! offboard setpoints with loss detection, hold/return/land, auto-disarm after landing, INT32
//! parameters byte-wise, TIMESYNC, STATUSTEXT only once a GCS heartbeat was heard, and
//! telemetry at the companion-link rates (~300 messages/s).
//!
//! Kinematics only: it moves toward targets at fixed speeds. Positions are kept in a world
//! frame relative to the first home; PX4's local frame is offset from it (`home_local`) so
//! tests notice when local setpoints forget the EKF origin.

mod commands;
mod telemetry;

use alpha3_core::frames::{Enu, Geo, LocalFrame, Ned};
use alpha3_hil::dialect::{MavHeader, MavMessage, mav};
use alpha3_hil::param::ParamValue;
use alpha3_hil::profile::px4::{
    MAIN_AUTO, MAIN_OFFBOARD, SUB_LAND, SUB_LOITER, SUB_RTL, SUB_TAKEOFF,
};
use std::collections::{BTreeMap, VecDeque};

/// The vehicle's knobs; the defaults are PX4 SITL's behaviour, time-scaled for tests.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    pub system_id: u8,
    pub home: Geo,
    /// Home's position in PX4's local (EKF-origin) frame.
    pub home_local: Ned,
    /// First heartbeat after start.
    pub boot_ms: u64,
    /// HOME_POSITION and a 3D fix after start.
    pub home_ms: u64,
    /// Arming is denied before this.
    pub arm_ready_ms: u64,
    pub climb_mps: f64,
    pub speed_mps: f64,
    pub descend_mps: f64,
    /// GF_MAX_HOR_DIST; repositions beyond it are ACKed and ignored.
    pub fence_radius_m: Option<f64>,
    pub params: Vec<(String, ParamValue)>,
    /// Ignore every command (no ACK): a link that delivers nothing back.
    pub silent_commands: bool,
    /// Offboard is left when setpoints stop for this long (COM_OF_LOSS_T).
    pub offboard_loss_ms: u64,
}

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            system_id: 1,
            home: Geo {
                lat_deg: 47.397742,
                lon_deg: 8.545594,
                alt_amsl_m: 488.0,
            },
            home_local: Ned::new(3.0, -4.0, 0.5),
            boot_ms: 200,
            home_ms: 500,
            arm_ready_ms: 1500,
            climb_mps: 5.0,
            speed_mps: 10.0,
            descend_mps: 4.0,
            fence_radius_m: None,
            params: vec![
                ("NAV_DLL_ACT".into(), ParamValue::Int(0)),
                ("NAV_RCL_ACT".into(), ParamValue::Int(2)),
                ("COM_LOW_BAT_ACT".into(), ParamValue::Int(2)),
                ("COM_OBL_RC_ACT".into(), ParamValue::Int(0)),
                ("GF_ACTION".into(), ParamValue::Int(2)),
                ("GF_MAX_HOR_DIST".into(), ParamValue::Real(0.0)),
                ("GF_MAX_VER_DIST".into(), ParamValue::Real(0.0)),
                ("RTL_RETURN_ALT".into(), ParamValue::Real(60.0)),
            ],
            silent_commands: false,
            offboard_loss_ms: 1000,
        }
    }
}

/// The simulated autopilot.
#[derive(Debug)]
pub struct FakePx4 {
    pub cfg: FakeConfig,
    frame: LocalFrame,
    pub armed: bool,
    pub main: u8,
    pub sub: u8,
    /// World frame: metres from the first home.
    pub pos: Enu,
    vel: Enu,
    yaw_deg: f64,
    /// Home in the world frame (PX4 moves home to where it arms).
    home_world: Enu,
    target: Option<Enu>,
    takeoff_z: f64,
    pub landed: mav::MavLandedState,
    disarm_at_us: Option<u64>,
    setpoint: Option<(Enu, u64)>,
    speed: f64,
    battery_pct: f64,
    pub gcs_seen: bool,
    /// Message id → (period µs, next due µs).
    intervals: BTreeMap<u32, (u64, u64)>,
    outbox: VecDeque<MavMessage>,
    /// Every message received, for assertions.
    pub received: Vec<(MavHeader, MavMessage)>,
    /// Every PARAM_SET applied, in order.
    pub param_writes: Vec<(String, ParamValue)>,
    last_us: u64,
}

impl FakePx4 {
    pub fn new(cfg: FakeConfig) -> Self {
        Self {
            frame: LocalFrame::new(cfg.home),
            armed: false,
            main: MAIN_AUTO,
            sub: SUB_LOITER,
            pos: Enu::default(),
            vel: Enu::default(),
            yaw_deg: 0.0,
            home_world: Enu::default(),
            target: None,
            takeoff_z: 0.0,
            landed: mav::MavLandedState::MAV_LANDED_STATE_ON_GROUND,
            disarm_at_us: None,
            setpoint: None,
            speed: cfg.speed_mps,
            battery_pct: 100.0,
            gcs_seen: false,
            intervals: telemetry::px4_rates(),
            outbox: VecDeque::new(),
            received: Vec::new(),
            param_writes: Vec::new(),
            last_us: 0,
            cfg,
        }
    }

    /// The next message to send.
    pub fn poll(&mut self) -> Option<MavMessage> {
        self.outbox.pop_front()
    }

    fn booted(&self, now_us: u64) -> bool {
        now_us >= self.cfg.boot_ms * 1000
    }

    /// Position relative to the current home (what a companion should see).
    pub fn position_from_home(&self) -> Enu {
        let p = self.pos;
        let h = self.home_world;
        Enu::new(p.x - h.x, p.y - h.y, p.z - h.z)
    }

    pub fn geo(&self, p: Enu) -> Geo {
        self.frame.to_geo(p)
    }

    fn local(&self, p: Enu) -> Ned {
        let n = p.to_ned();
        let o = self.cfg.home_local;
        Ned::new(o.north + n.north, o.east + n.east, o.down + n.down)
    }

    fn world_of_local(&self, n: Ned) -> Enu {
        let o = self.cfg.home_local;
        Ned::new(n.north - o.north, n.east - o.east, n.down - o.down).to_enu()
    }

    fn text(&mut self, severity: mav::MavSeverity, text: &str) {
        // PX4 sends STATUSTEXT only to links that have heard a GCS heartbeat.
        if self.gcs_seen {
            self.outbox
                .push_back(MavMessage::STATUSTEXT(mav::STATUSTEXT_DATA {
                    severity,
                    text: text.into(),
                    id: 0,
                    chunk_seq: 0,
                }));
        }
    }

    fn set_mode(&mut self, main: u8, sub: u8) {
        self.main = main;
        self.sub = sub;
        if (main, sub) == (MAIN_AUTO, SUB_LOITER) {
            self.target = Some(self.pos);
        }
    }

    fn airborne(&self) -> bool {
        self.armed && self.landed != mav::MavLandedState::MAV_LANDED_STATE_ON_GROUND
    }

    /// Moves the vehicle on to `now_us` and queues the telemetry due.
    pub fn step(&mut self, now_us: u64) {
        let dt = now_us.saturating_sub(self.last_us) as f64 / 1e6;
        self.last_us = now_us;
        self.physics(now_us, dt);
        if self.booted(now_us) {
            self.emit_due(now_us);
        }
    }

    fn physics(&mut self, now_us: u64, dt: f64) {
        use mav::MavLandedState as L;
        if let Some(t) = self.disarm_at_us
            && now_us >= t
        {
            self.armed = false;
            self.disarm_at_us = None;
        }
        if self.armed {
            self.battery_pct = (self.battery_pct - 0.5 * dt).max(50.0);
        }
        let before = self.pos;
        match (self.main, self.sub) {
            (MAIN_AUTO, SUB_TAKEOFF) if self.armed => {
                let goal = Enu::new(self.pos.x, self.pos.y, self.takeoff_z);
                self.move_toward(goal, self.cfg.climb_mps, dt);
                self.landed = if self.pos.z - self.home_world.z < 1.0 {
                    L::MAV_LANDED_STATE_TAKEOFF
                } else {
                    L::MAV_LANDED_STATE_IN_AIR
                };
                if (self.pos.z - self.takeoff_z).abs() < 0.05 {
                    self.landed = L::MAV_LANDED_STATE_IN_AIR;
                    self.set_mode(MAIN_AUTO, SUB_LOITER);
                }
            }
            (MAIN_AUTO, SUB_LOITER) if self.airborne() => {
                if let Some(t) = self.target {
                    self.move_toward(t, self.speed, dt);
                }
            }
            (MAIN_OFFBOARD, _) if self.airborne() => match self.setpoint {
                Some((sp, at)) if now_us < at + self.cfg.offboard_loss_ms * 1000 => {
                    self.move_toward(sp, self.speed, dt);
                }
                _ => {
                    self.text(
                        mav::MavSeverity::MAV_SEVERITY_CRITICAL,
                        "Offboard lost, holding",
                    );
                    self.set_mode(MAIN_AUTO, SUB_LOITER);
                }
            },
            (MAIN_AUTO, SUB_RTL) if self.airborne() => {
                let over_home = Enu::new(self.home_world.x, self.home_world.y, self.pos.z);
                self.move_toward(over_home, self.speed, dt);
                if self.pos.horizontal_distance(over_home) < 0.5 {
                    self.set_mode(MAIN_AUTO, SUB_LAND);
                }
            }
            (MAIN_AUTO, SUB_LAND) if self.airborne() => {
                let ground = Enu::new(self.pos.x, self.pos.y, self.home_world.z);
                self.move_toward(ground, self.cfg.descend_mps, dt);
                self.landed = L::MAV_LANDED_STATE_LANDING;
                if self.pos.z <= self.home_world.z + 0.01 {
                    self.landed = L::MAV_LANDED_STATE_ON_GROUND;
                    self.disarm_at_us = Some(now_us + 2_000_000);
                }
            }
            _ => {}
        }
        if dt > 0.0 {
            self.vel = Enu::new(
                (self.pos.x - before.x) / dt,
                (self.pos.y - before.y) / dt,
                (self.pos.z - before.z) / dt,
            );
            if self.vel.x.hypot(self.vel.y) > 0.5 {
                self.yaw_deg = self.vel.x.atan2(self.vel.y).to_degrees().rem_euclid(360.0);
            }
        }
    }

    fn move_toward(&mut self, goal: Enu, speed: f64, dt: f64) {
        let d = goal.distance(self.pos);
        let step = speed * dt;
        if d <= step || d < 1e-9 {
            self.pos = goal;
        } else {
            let k = step / d;
            self.pos = Enu::new(
                self.pos.x + (goal.x - self.pos.x) * k,
                self.pos.y + (goal.y - self.pos.y) * k,
                self.pos.z + (goal.z - self.pos.z) * k,
            );
        }
    }
}
