//! What surrounds the aircraft in an episode: everything the loop asks for that is not on a
//! MAVLink wire — the 6G link model, traffic, peers (A2A), payload sensors, the operator and
//! the mission's truth. It always comes from a [`World`], so a side exposes its world and the
//! loop reaches those services through it. The aircraft itself — snapshot, commands, time —
//! is the [`VehicleLink`](alpha3_core::vehicle::VehicleLink) the same value implements: the
//! built-in world's point mass, or an autopilot over MAVLink with the world as its twin
//! ([`super::LinkedVehicle`]).

use super::mission_mode::HandedRoute;
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

    /// Other aircraft's plans when something other than the world knows them: a swarm
    /// member's mates, as its swarm network told it (`None`: the world's traffic).
    fn swarm_plans(&mut self, _now_ms: u64) -> Option<Vec<alpha3_core::gate::PeerPlan>> {
        None
    }

    /// A swarm member that has heard none of its mates for a while has lost the swarm: it must
    /// hold and land where it is. Never for a vehicle alone.
    fn swarm_lost(&mut self, _now_ms: u64) -> bool {
        false
    }

    /// The agent asks for `command` (before the gate judges it): a swarm member tells its mates
    /// where it wants to go even while its gate makes it wait.
    fn wants(&mut self, _command: &alpha3_core::command::Command) {}

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

    /// The plan's route this episode may hand over to the autopilot, if any: only a plan
    /// flown on an autopilot has one (the built-in world flies leg by leg).
    fn handed_route(&self) -> Option<&HandedRoute> {
        None
    }

    /// Uploads the route as the autopilot's mission, flown at `cruise_mps`; the number of
    /// items.
    fn upload_route(&mut self, _cruise_mps: f64) -> impl Future<Output = Result<usize, String>> {
        ready(Err(
            "this vehicle takes no mission: only an autopilot flying a plan does".to_string(),
        ))
    }

    /// Whether the autopilot still holds the mission uploaded (downloaded and compared).
    fn verify_mission(&mut self) -> impl Future<Output = Result<(), String>> {
        ready(Err("no mission was uploaded".to_string()))
    }

    /// Where the autopilot is in the uploaded mission.
    fn mission_news(&self) -> MissionNews {
        MissionNews::default()
    }
}

/// Where the autopilot is in the mission uploaded for the route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MissionNews {
    /// The autopilot's current item, as it numbers it.
    pub current_item: Option<u16>,
    /// The route point it flies to now.
    pub next_point: Option<usize>,
    /// Someone else changed the autopilot's mission since the upload (PX4's mission id).
    pub changed: bool,
    /// Items uploaded (0: none).
    pub items: usize,
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
