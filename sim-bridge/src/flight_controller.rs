//! The world's flight controller: it obeys whatever command reaches it (the gate is upstream),
//! turning modes — take-off, go-to, hold, return, land — into a velocity demand along the
//! straight line from where the command found the vehicle to the target, with a braking profile
//! √(2·a·d) so it stops on the point, and a correction back onto the line (see [`follow`]).
//! Return and land follow PX4's defaults as `alpha3_core::gate::autopilot` states them, the
//! same model the gate plans with. It refuses only what a real autopilot refuses (take-off while
//! disarmed, disarm in the air, anything after losing control).

use crate::dynamics::{FlightLimits, LAND_SLOW_BELOW_M};
use crate::vec3::{self, V3};
use alpha3_core::command::Command;
use alpha3_core::gate::autopilot;
use alpha3_core::snapshot::{FlightMode, LandedState};

/// Position gain near the target, 1/s: below ~1 m the demand is proportional, which keeps the
/// discrete loop from chattering.
const POSITION_GAIN: f64 = 3.0;
/// Gain of the correction back onto the line, 1/s: the position gain near a target. (PX4's
/// position P gain is ~1; this point-mass model's velocity loop learns gusts only with a lag
/// (`dynamics::Body::wind_estimate`), and 3 keeps a 4 m/s gust's offset within the gate's 2 m
/// margin.)
const CROSS_TRACK_GAIN: f64 = 3.0;
/// A target counts as reached within this distance and below `SETTLED_SPEED_MPS`.
pub const ARRIVAL_M: f64 = 1.0;
const SETTLED_SPEED_MPS: f64 = 0.5;
/// Vertical speed above which a ground contact is a crash, m/s.
pub const CRASH_SINK_MPS: f64 = 2.0;

/// Where a landing is in its sequence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LandPhase {
    /// Flying to the site at the current or return altitude.
    Transit,
    Descend,
}

/// Where a return is in its sequence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReturnPhase {
    Climb,
    Cruise,
}

/// What the controller is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// On the ground (armed or not).
    Idle,
    Takeoff {
        target: V3,
    },
    /// Flying to and then holding at `target` (go-to, set-altitude).
    GoTo {
        target: V3,
    },
    Hold {
        at: V3,
    },
    /// Return: climb to `target.z`, fly to it, then land.
    Return {
        target: V3,
        phase: ReturnPhase,
    },
    Land {
        site: [f64; 2],
        phase: LandPhase,
    },
    /// Lost control (a total motor failure): sinks with the wind.
    Uncontrolled,
}

/// The controller's state.
#[derive(Debug, Clone)]
pub struct FlightController {
    pub mode: Mode,
    pub armed: bool,
    pub landed: LandedState,
    pub cruise_mps: f64,
    /// A commanded heading; the direction of travel when `None`.
    pub yaw_target: Option<f64>,
    /// Where return-to-home goes (the launch point, on the ground).
    pub home: V3,
    /// The altitude band, for the return altitude.
    pub band: (f64, f64),
    /// The return altitude (PX4's `RTL_RETURN_ALT`).
    pub return_altitude_m: f64,
    /// Where the current straight leg began (the estimate when the command or phase began).
    pub leg_start: V3,
}

impl FlightController {
    pub fn new(home: V3, airborne: bool, cruise_mps: f64, band: (f64, f64)) -> Self {
        Self {
            mode: Mode::Idle,
            armed: airborne,
            landed: if airborne {
                LandedState::InAir
            } else {
                LandedState::OnGround
            },
            cruise_mps,
            yaw_target: None,
            home,
            band,
            return_altitude_m: autopilot::return_altitude_in_band(
                autopilot::RETURN_ALTITUDE_M,
                band.0,
                band.1,
            ),
            leg_start: home,
        }
    }

    /// The MAVLink-style flight mode.
    pub fn flight_mode(&self) -> FlightMode {
        match self.mode {
            Mode::Idle | Mode::Hold { .. } => FlightMode::Hold,
            Mode::Takeoff { .. } => FlightMode::Takeoff,
            Mode::GoTo { .. } => FlightMode::Offboard,
            Mode::Return { .. } => FlightMode::Return,
            Mode::Land { .. } => FlightMode::Land,
            Mode::Uncontrolled => FlightMode::Manual,
        }
    }

    /// Takes `command` with the vehicle estimated at `est`; `Err` is the autopilot's refusal.
    /// Reached only through the world, which holds the crate's one controller.
    pub(crate) fn execute(
        &mut self,
        command: &Command,
        est: V3,
        limits: &FlightLimits,
    ) -> Result<(), String> {
        if self.mode == Mode::Uncontrolled {
            return Err("vehicle out of control".into());
        }
        let on_ground = self.landed == LandedState::OnGround;
        match *command {
            Command::Arm => self.armed = true,
            Command::Disarm if !on_ground => return Err("cannot disarm in the air".into()),
            Command::Disarm => self.armed = false,
            Command::Takeoff { .. } if !self.armed => return Err("disarmed: arm first".into()),
            Command::Takeoff { altitude_m } if on_ground => {
                self.leg_start = est;
                self.landed = LandedState::TakingOff;
                self.mode = Mode::Takeoff {
                    target: [est[0], est[1], altitude_m],
                };
            }
            Command::Takeoff { altitude_m } => {
                self.leg_start = est;
                self.mode = Mode::GoTo {
                    target: [est[0], est[1], altitude_m],
                }
            }
            Command::SetSpeed { speed_mps } => {
                self.cruise_mps = speed_mps.clamp(0.5, limits.max_speed_mps)
            }
            Command::SetYaw { yaw_deg } => self.yaw_target = Some(yaw_deg.rem_euclid(360.0)),
            // Missions are flown above this controller, item by item (sim-vehicle's mission
            // flight); the built-in world holds none.
            Command::FlyMission => return Err("no mission is uploaded to this vehicle".into()),
            _ if on_ground => {
                return Err(format!(
                    "on the ground: {} needs a take-off first",
                    command.name()
                ));
            }
            Command::GoTo { target, speed_mps } => {
                if let Some(s) = speed_mps {
                    self.cruise_mps = s.clamp(0.5, limits.max_speed_mps);
                }
                self.leg_start = est;
                self.mode = Mode::GoTo {
                    target: [target.x, target.y, target.z.max(0.0)],
                };
            }
            Command::SetAltitude { altitude_m } => {
                self.leg_start = est;
                self.mode = Mode::GoTo {
                    target: [est[0], est[1], altitude_m.max(0.0)],
                }
            }
            Command::Hold => self.mode = Mode::Hold { at: est },
            Command::ReturnToHome => {
                let z = autopilot::return_cruise_altitude_m(est[2], self.return_altitude_m);
                self.leg_start = est;
                self.mode = Mode::Return {
                    target: [self.home[0], self.home[1], z],
                    phase: ReturnPhase::Climb,
                };
            }
            Command::Land { site } => {
                let (site, phase) = match site {
                    Some(s) => (s, LandPhase::Transit),
                    None => ([est[0], est[1]], LandPhase::Descend),
                };
                self.leg_start = est;
                self.mode = Mode::Land { site, phase };
            }
        }
        Ok(())
    }

    /// The ground velocity the controller wants, from the estimate `est`; advances phases.
    pub fn demand(&mut self, est: V3, limits: &FlightLimits) -> V3 {
        let cruise = self.cruise_mps.min(limits.max_speed_mps);
        // Holding a point (a hold, a landing's descent) is the position controller's work, not
        // the trajectory's: its corrections are capped by the airframe's top speed (PX4's
        // MPC_XY_VEL_MAX), not by a commanded cruise speed. A vehicle told to cruise at 0.5 m/s
        // still holds its landing spot in a gust.
        let hold = limits.max_speed_mps;
        match self.mode {
            Mode::Idle => [0.0; 3],
            Mode::Uncontrolled => [0.0, 0.0, -limits.max_descent_mps.max(3.0)],
            Mode::Takeoff { target } => {
                if (est[2] - target[2]).abs() < 0.5 {
                    self.landed = LandedState::InAir;
                    self.mode = Mode::GoTo { target };
                }
                follow(self.leg_start, target, est, cruise, limits)
            }
            Mode::GoTo { target } => follow(self.leg_start, target, est, cruise, limits),
            Mode::Hold { at } => track(est, at, hold, limits),
            Mode::Return { target, phase } => {
                // Straight up over where the return began, then straight home.
                let top = [self.leg_start[0], self.leg_start[1], target[2]];
                if phase == ReturnPhase::Climb && est[2] < target[2] - ARRIVAL_M {
                    return follow(self.leg_start, top, est, cruise, limits);
                }
                if vec3::hypot(est[0] - target[0], est[1] - target[1]) > ARRIVAL_M {
                    if phase == ReturnPhase::Climb {
                        self.leg_start = if est[2] < top[2] + ARRIVAL_M {
                            top
                        } else {
                            est
                        };
                        self.mode = Mode::Return {
                            target,
                            phase: ReturnPhase::Cruise,
                        };
                    }
                    return follow(self.leg_start, target, est, cruise, limits);
                }
                self.mode = Mode::Land {
                    site: [target[0], target[1]],
                    phase: LandPhase::Descend,
                };
                self.demand(est, limits)
            }
            Mode::Land { site, phase } => {
                if phase == LandPhase::Transit
                    && vec3::hypot(est[0] - site[0], est[1] - site[1]) > ARRIVAL_M
                {
                    let over_from_start = [site[0], site[1], self.leg_start[2]];
                    return follow(self.leg_start, over_from_start, est, cruise, limits);
                }
                self.mode = Mode::Land {
                    site,
                    phase: LandPhase::Descend,
                };
                self.landed = LandedState::Landing;
                let sink = if est[2] > LAND_SLOW_BELOW_M {
                    limits.max_descent_mps
                } else {
                    limits.land_speed_mps
                };
                let mut v = track(est, [site[0], site[1], est[2]], hold, limits);
                v[2] = -sink;
                v
            }
        }
    }

    /// The vehicle touched the ground gently: landed, disarmed.
    pub fn touch_down(&mut self) {
        self.mode = Mode::Idle;
        self.landed = LandedState::OnGround;
        self.armed = false;
    }

    pub fn lose_control(&mut self) {
        self.mode = Mode::Uncontrolled;
    }

    /// Whether the current command is done: target reached and still, landed, or holding.
    pub fn is_settled(&self, est: V3, speed_mps: f64) -> bool {
        match self.mode {
            Mode::Idle | Mode::Uncontrolled => true,
            Mode::Hold { .. } => speed_mps < SETTLED_SPEED_MPS,
            Mode::GoTo { target } | Mode::Takeoff { target } => {
                vec3::distance(est, target) < ARRIVAL_M && speed_mps < SETTLED_SPEED_MPS
            }
            Mode::Return { .. } | Mode::Land { .. } => self.landed == LandedState::OnGround,
        }
    }
}

/// The velocity demand of a vehicle at `est` flying the straight leg `from → to`: [`track`]'s
/// profile along the line from the point of it nearest the vehicle, plus `CROSS_TRACK_GAIN`
/// times the offset back onto the line — PX4's position controller adds its P term to the
/// trajectory's feed-forward velocity the same way. Pursuing only the target (the older model)
/// let a gust or an updraft push the vehicle far off a long or mostly vertical leg (17 m on a
/// 106 m descent, 12 m up on a return), off the straight path the gate had checked.
pub fn follow(from: V3, to: V3, est: V3, cruise_mps: f64, limits: &FlightLimits) -> V3 {
    let line = vec3::sub(to, from);
    let len = vec3::norm(line);
    if len < 1e-9 {
        return track(est, to, cruise_mps, limits);
    }
    let u = vec3::scale(line, 1.0 / len);
    let along = vec3::dot(vec3::sub(est, from), u).clamp(0.0, len);
    let foot = vec3::add(from, vec3::scale(u, along));
    let offset = vec3::sub(foot, est);
    let off = vec3::norm(offset);
    let back = if off > 1e-9 {
        vec3::scale(offset, (CROSS_TRACK_GAIN * off).min(cruise_mps) / off)
    } else {
        [0.0; 3]
    };
    vec3::add(track(foot, to, cruise_mps, limits), back)
}

/// A ground-velocity demand along the straight line from `from` to `to`, within the speed and
/// acceleration limits of each axis, braking to stop on `to`.
pub fn track(from: V3, to: V3, cruise_mps: f64, limits: &FlightLimits) -> V3 {
    let d = vec3::sub(to, from);
    let dist = vec3::norm(d);
    if dist < 1e-9 {
        return [0.0; 3];
    }
    let u = vec3::scale(d, 1.0 / dist);
    let uh = vec3::norm_xy(u);
    let uz = u[2].abs();
    let mut speed = f64::INFINITY;
    let mut accel = f64::INFINITY;
    if uh > 1e-12 {
        speed = speed.min(cruise_mps / uh);
        accel = accel.min(limits.max_accel_h_mps2 / uh);
    }
    if uz > 1e-12 {
        let vz = if u[2] > 0.0 {
            limits.max_climb_mps
        } else {
            limits.max_descent_mps
        };
        speed = speed.min(vz / uz);
        accel = accel.min(limits.max_accel_v_mps2 / uz);
    }
    let speed = speed
        .min((2.0 * accel * dist).sqrt())
        .min(POSITION_GAIN * dist);
    vec3::scale(u, speed)
}
