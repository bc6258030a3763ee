//! The built-in world as a flight controller: core's [`VehicleLink`] over a [`World`], so the
//! agent loop flies it without sockets. Every future is ready at once; time passes only through
//! `advance_to`, so an episode replays bit for bit.

use crate::world::World;
use alpha3_core::gate::ApprovedCommand;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::{LinkError, SendReceipt, VehicleLink};
use std::future::{Future, ready};

impl VehicleLink for World {
    fn snapshot(&self) -> VehicleSnapshot {
        World::snapshot(self)
    }

    fn send(
        &mut self,
        command: ApprovedCommand,
    ) -> impl Future<Output = Result<SendReceipt, LinkError>> {
        ready(Ok(World::execute(self, &command)))
    }

    fn execute(&mut self, command: &ApprovedCommand) -> impl Future<Output = SendReceipt> {
        ready(World::execute(self, command))
    }

    fn advance_to(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>> {
        self.advance_to_ms(until_ms);
        ready(Ok(()))
    }

    fn now_ms(&self) -> u64 {
        World::now_ms(self)
    }

    /// The flight controller's own arrival test (within 1 m and below 0.5 m/s of its target,
    /// landed, or holding).
    fn is_settled(&self) -> bool {
        World::is_settled(self)
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
        let mut v = World::new(suite_scenario(0), WorldOptions::seeded(1));
        assert_eq!(VehicleLink::now_ms(&v), 0);
        now(v.advance_to(1_500)).unwrap();
        assert_eq!(VehicleLink::now_ms(&v), 1_500);
        assert_eq!(VehicleLink::snapshot(&v).time_ms, 1_500);
        assert!(v.snapshot().is_airborne());
    }

    #[test]
    fn send_forwards_what_the_gate_approved() {
        let mut v = World::new(suite_scenario(0), WorldOptions::seeded(1));
        now(v.advance_to(1_000)).unwrap();
        let snap = v.snapshot();
        let verdict = alpha3_core::gate::evaluate_failsafe(&snap, &Command::ReturnToHome, 1_000);
        let approved = verdict.approved().cloned().unwrap();
        let receipt = now(v.send(approved.clone())).unwrap();
        assert!(receipt.accepted && receipt.at_ms == 1_000);
        assert_eq!(v.snapshot().mode, alpha3_core::snapshot::FlightMode::Return);
        let again = now(VehicleLink::execute(&mut v, &approved));
        assert!(again.accepted && again.at_ms == 1_000);
    }
}
