//! The vehicle side of an episode: what the loop asks of "the aircraft and its surroundings".
//!
//! The loop itself is the same whether the vehicle is the built-in world's point mass or an
//! autopilot over MAVLink. What differs is where the snapshot, command execution and time come
//! from; everything that is not on a MAVLink wire — the 6G link model, traffic, peers (A2A),
//! payload sensors, the scripted operator and the mission's truth — always comes from a
//! [`World`]. So a side exposes its world, and the loop reaches those services through it.

use alpha3_core::gate::ApprovedCommand;
use alpha3_core::link::LinkSample;
use alpha3_core::protocol::AgentTurn;
use alpha3_core::record::Event;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::LinkError;
use alpha3_sim::World;
use alpha3_sim::operator::OperatorTurn;
use alpha3_sim::world::CommandReceipt;
use std::future::{Future, ready};

/// The vehicle an episode flies, with the world around it.
pub trait VehicleSide {
    /// The world that supplies network, traffic, peers, sensors, operator and mission truth.
    fn world(&self) -> &World;
    fn world_mut(&mut self) -> &mut World;

    /// Episode time now, milliseconds (the world's clock, or the link's since the start).
    fn now_ms(&self) -> u64;

    /// The vehicle as its flight controller reports it: what the gate and the agent see.
    fn snapshot(&self) -> VehicleSnapshot;

    /// Hands a gate-approved command to the flight controller.
    fn execute(&mut self, command: &ApprovedCommand) -> impl Future<Output = CommandReceipt>;

    /// Lets episode time run to `until_ms`. An error means the vehicle can no longer be
    /// reached at all (the link task ended); the episode then ends.
    fn advance_to(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>>;

    /// Whether the last command is done (target reached and still, landed, or holding).
    fn is_settled(&self) -> bool;

    /// Time runs on its own (a real or SITL autopilot): the loop keeps ticking while the
    /// policy thinks, so the watchdog can hold the vehicle. The world's time only moves when
    /// the loop advances it.
    fn realtime(&self) -> bool {
        false
    }

    /// The flight controller itself is out of reach (no heartbeat, no transport).
    fn vehicle_lost(&self) -> bool {
        false
    }

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
}

/// The built-in world is its own vehicle: every future is ready at once, and time passes only
/// when the loop advances it, so an episode replays bit for bit.
impl VehicleSide for World {
    fn world(&self) -> &World {
        self
    }

    fn world_mut(&mut self) -> &mut World {
        self
    }

    fn now_ms(&self) -> u64 {
        World::now_ms(self)
    }

    fn snapshot(&self) -> VehicleSnapshot {
        World::snapshot(self)
    }

    fn execute(&mut self, command: &ApprovedCommand) -> impl Future<Output = CommandReceipt> {
        ready(World::execute(self, command.command()))
    }

    fn advance_to(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>> {
        self.advance_to_ms(until_ms);
        ready(Ok(()))
    }

    fn is_settled(&self) -> bool {
        World::is_settled(self)
    }

    fn operator_turn(&mut self, agent: &AgentTurn) -> impl Future<Output = OperatorTurn> {
        ready(World::operator_turn(self, agent))
    }
}
