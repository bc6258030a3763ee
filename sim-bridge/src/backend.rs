//! The in-process vehicle backend: core's [`VehicleLink`] over a [`World`], so the agent loop
//! runs against the world without sockets. Every future is ready at once; time passes only
//! through `advance`.

use crate::world::World;
use alpha3_core::gate::ApprovedCommand;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::{LinkError, SendReceipt, VehicleLink};
use std::future::{Future, ready};

/// The world as a vehicle.
#[derive(Debug, Clone)]
pub struct SimVehicle {
    world: World,
}

impl SimVehicle {
    pub fn new(world: World) -> Self {
        Self { world }
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, for the tools that are not vehicle commands (sensors, network, peers).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    pub fn into_world(self) -> World {
        self.world
    }
}

impl VehicleLink for SimVehicle {
    fn snapshot(&self) -> VehicleSnapshot {
        self.world.snapshot()
    }

    fn send(
        &mut self,
        command: ApprovedCommand,
    ) -> impl Future<Output = Result<SendReceipt, LinkError>> {
        let r = self.world.execute(command.command());
        ready(Ok(SendReceipt {
            accepted: r.accepted,
            message: r.message,
            at_ms: r.at_ms,
        }))
    }

    fn advance(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>> {
        self.world.advance_to_ms(until_ms);
        ready(Ok(()))
    }

    fn now_ms(&self) -> u64 {
        self.world.now_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::suite_scenario;
    use crate::world::WorldOptions;
    use alpha3_core::command::Command;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Polls once: the backend's futures must be ready immediately.
    fn now<F: Future>(f: F) -> F::Output {
        let mut cx = Context::from_waker(Waker::noop());
        match pin!(f).poll(&mut cx) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("a sim future was pending"),
        }
    }

    #[test]
    fn advance_completes_at_once_and_moves_time() {
        let mut v = SimVehicle::new(World::new(suite_scenario(0), WorldOptions::seeded(1)));
        assert_eq!(v.now_ms(), 0);
        now(v.advance(1_500)).unwrap();
        assert_eq!(v.now_ms(), 1_500);
        assert_eq!(v.snapshot().time_ms, 1_500);
        assert!(v.snapshot().is_airborne());
    }

    #[test]
    fn send_forwards_what_the_gate_approved() {
        let mut v = SimVehicle::new(World::new(suite_scenario(0), WorldOptions::seeded(1)));
        now(v.advance(1_000)).unwrap();
        let snap = v.snapshot();
        let verdict = alpha3_core::gate::evaluate_failsafe(&snap, &Command::ReturnToHome, 1_000);
        let approved = verdict.approved().cloned().unwrap();
        let receipt = now(v.send(approved)).unwrap();
        assert!(receipt.accepted && receipt.at_ms == 1_000);
        assert_eq!(v.snapshot().mode, alpha3_core::snapshot::FlightMode::Return);
    }
}
