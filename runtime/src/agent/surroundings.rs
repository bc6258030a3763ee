//! What surrounds the aircraft in an episode: everything the loop asks for that is not on a
//! MAVLink wire — the 6G link model, traffic, peers (A2A), payload sensors, the operator and
//! the mission's truth. It always comes from a [`World`], so a side exposes its world and the
//! loop reaches those services through it. The aircraft itself — snapshot, commands, time —
//! is the [`VehicleLink`](alpha3_core::vehicle::VehicleLink) the same value implements: the
//! built-in world's point mass, or an autopilot over MAVLink with the world as its twin
//! ([`super::LinkedVehicle`]).

use super::onboard::AirspaceNews;
use alpha3_core::link::LinkSample;
use alpha3_core::protocol::AgentTurn;
use alpha3_core::record::Event;
use alpha3_sim::World;
use alpha3_sim::operator::OperatorTurn;
use std::future::{Future, ready};

/// The world around the vehicle an episode flies.
pub trait Surroundings {
    /// The world that supplies network, traffic, peers, sensors, operator and mission truth.
    fn world(&self) -> &World;
    fn world_mut(&mut self) -> &mut World;

    /// One measurement of the agent's communication link.
    fn link_sample(&mut self) -> LinkSample {
        self.world_mut().link_sample()
    }

    /// A truth sample for the record.
    fn truth_event(&self) -> Event {
        self.world().truth_event()
    }

    /// The operator's briefing, before the first agent turn.
    fn briefing(&self) -> String {
        self.world().briefing()
    }

    /// The operator answers the agent's turn.
    fn operator_turn(&mut self, agent: &AgentTurn) -> impl Future<Output = OperatorTurn>;

    /// Tells the vehicle's ground station why alpha3 refused something (STATUSTEXT on a real
    /// link, where the pilot looks); the built-in world has none.
    fn tell_ground_station(&self, _text: &str) {}

    /// The autopilot's own fence or rally points changed since the gate's airspace was made:
    /// the plan made again in what it holds now (see [`super::onboard::replan`]). Only a plan
    /// flown on an autopilot has any.
    fn airspace_news(&mut self) -> impl Future<Output = Option<AirspaceNews>> {
        ready(None)
    }
}

/// The built-in world surrounds itself: its operator answers at once.
impl Surroundings for World {
    fn world(&self) -> &World {
        self
    }

    fn world_mut(&mut self) -> &mut World {
        self
    }

    fn operator_turn(&mut self, agent: &AgentTurn) -> impl Future<Output = OperatorTurn> {
        ready(World::operator_turn(self, agent))
    }
}
