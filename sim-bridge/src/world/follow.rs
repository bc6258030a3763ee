//! The world as the twin of a vehicle it does not fly (`alpha3 sitl`, `alpha3 fly`): telemetry
//! puts the twin's vehicle where the real one is, so the mission is judged on the real flight.

use super::World;
use super::step::SITE_RADIUS_M;
use crate::vec3::{self, V3};
use alpha3_core::snapshot::LandedState;

/// A real vehicle sinking faster than this near the site of the landing it was sent to has
/// begun that landing, m/s (a level transit's altitude hold wanders by a few dm/s).
const LANDING_SINK_MPS: f64 = 0.5;

impl World {
    /// Puts the vehicle where a real one reports itself: `position` and `ground_velocity`, ENU.
    /// The objectives, the safety evaluator and every model that depends on where the vehicle
    /// is (network, payload sensors, peers) then see the real flight, not where the twin's own
    /// dynamics took it: a real autopilot's wind, tuning and failsafes differ from the twin's.
    /// Only in the air: on the ground the twin's landed state rules, and take-off and landing
    /// reach the twin as the commands the vehicle accepted. The air velocity keeps the twin's
    /// wind, and the flight controller's estimate keeps its error (GNSS jamming). Returns
    /// whether it moved the vehicle.
    pub fn follow(&mut self, position: V3, ground_velocity: V3) -> bool {
        if self.fc.landed == LandedState::OnGround || self.crashed {
            return false;
        }
        if !(position.iter().chain(ground_velocity.iter())).all(|v| v.is_finite()) {
            return false;
        }
        self.landing_began(position, ground_velocity);
        let wind = vec3::sub(self.body.ground_velocity, self.body.air_velocity);
        let error = vec3::sub(self.estimate, self.body.position);
        self.body.position = position;
        self.body.ground_velocity = ground_velocity;
        self.body.air_velocity = vec3::sub(ground_velocity, wind);
        self.estimate = vec3::add(position, error);
        true
    }

    /// A landing at a site begins when the real vehicle starts down near it: its autopilot,
    /// not the twin's 1 m arrival test, decides. Real PX4 began a site's NAV_LAND 0.7 m from
    /// the site while still braking at 2.5 m/s, the twin's samples never came within 1 m, and
    /// its descent below the band's floor 4.4 m from the site was judged an altitude
    /// violation, as if the vehicle were not landing there.
    fn landing_began(&mut self, position: V3, ground_velocity: V3) {
        use crate::flight_controller::{LandPhase, Mode};
        let Mode::Land {
            site,
            phase: LandPhase::Transit,
        } = self.fc.mode
        else {
            return;
        };
        let near = vec3::hypot(position[0] - site[0], position[1] - site[1]) <= SITE_RADIUS_M;
        if near && ground_velocity[2] < -LANDING_SINK_MPS {
            self.fc.mode = Mode::Land {
                site,
                phase: LandPhase::Descend,
            };
            self.fc.landed = LandedState::Landing;
        }
    }

    /// The twin of a vehicle its autopilot flies by itself (a mission handed over): no
    /// command reaches the twin, so its take-off and landing come from the telemetry too.
    /// Airborne, the twin is put in the air, holding where the vehicle is, and follows it;
    /// landed (`airborne` false, armed or not), the twin touches down where it is reported.
    /// Returns whether it moved the vehicle.
    pub fn follow_autonomous(&mut self, position: V3, ground_velocity: V3, airborne: bool) -> bool {
        if self.crashed || !(position.iter().chain(ground_velocity.iter())).all(|v| v.is_finite()) {
            return false;
        }
        if airborne {
            if self.fc.landed == LandedState::OnGround {
                self.fc.armed = true;
                self.fc.landed = LandedState::InAir;
            }
            // Between samples the twin's controller holds where the vehicle was seen; below
            // the band's floor it takes off or lands there, as the vertical speed says (the
            // band does not bind a take-off or landing at an authorised site).
            use crate::flight_controller::{LandPhase, Mode};
            self.fc.leg_start = position;
            // Within a metre of the floor a climb or descent is still the take-off or landing:
            // the twin's own dynamics between samples would carry it across the floor.
            let vz = ground_velocity[2];
            let near_floor = position[2] < self.fc.band.0 + 1.0 && vz.abs() > 0.2;
            let (mode, landed) = if position[2] >= self.fc.band.0 && !near_floor {
                (Mode::Hold { at: position }, LandedState::InAir)
            } else if vz >= 0.0 {
                // Two metres into the band: the take-off ends 0.5 m short of its target.
                let target = [position[0], position[1], self.fc.band.0 + 2.0];
                (Mode::Takeoff { target }, LandedState::TakingOff)
            } else {
                let site = [position[0], position[1]];
                let phase = LandPhase::Descend;
                (Mode::Land { site, phase }, LandedState::Landing)
            };
            self.fc.mode = mode;
            self.fc.landed = landed;
            return self.follow(position, ground_velocity);
        }
        if self.fc.landed != LandedState::OnGround {
            self.body.position = position;
            self.body.ground_velocity = [0.0; 3];
            self.body.air_velocity = [0.0; 3];
            self.fc.touch_down();
            return true;
        }
        false
    }
}
