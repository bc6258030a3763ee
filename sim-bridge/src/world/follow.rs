//! The world as the twin of a vehicle it does not fly (`alpha3 sitl`, `alpha3 fly`): telemetry
//! puts the twin's vehicle where the real one is, so the mission is judged on the real flight.

use super::World;
use crate::vec3::{self, V3};
use alpha3_core::snapshot::LandedState;

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
        let wind = vec3::sub(self.body.ground_velocity, self.body.air_velocity);
        let error = vec3::sub(self.estimate, self.body.position);
        self.body.position = position;
        self.body.ground_velocity = ground_velocity;
        self.body.air_velocity = vec3::sub(ground_velocity, wind);
        self.estimate = vec3::add(position, error);
        true
    }
}
