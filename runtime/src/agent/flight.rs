//! What every part of an episode that lets time run shares: the vehicle with its surroundings,
//! the gate's context, the record, and the loop's own memory (watchdog, link monitor, the
//! gate's state, the return under way, the copy of other aircraft's plans).

use super::surroundings::Surroundings;
use super::traffic::PlansCopy;
use crate::recorder::Recorder;
use alpha3_core::command::Command;
use alpha3_core::failsafe::Watchdog;
use alpha3_core::gate::{GateContext, GateState};
use alpha3_core::link::LinkMonitor;
use alpha3_core::protocol::ToolSpec;
use alpha3_core::vehicle::VehicleLink;

/// One episode in flight.
pub(super) struct Flight<'a, V: VehicleLink + Surroundings> {
    pub(super) side: &'a mut V,
    pub(super) gate: &'a mut GateContext,
    pub(super) recorder: &'a mut Recorder,
    /// What the gate remembers between the agent's commands (rate, cruise speed).
    pub(super) gate_state: GateState,
    pub(super) catalogue: Vec<ToolSpec>,
    pub(super) watchdog: Watchdog,
    pub(super) monitor: LinkMonitor,
    /// Truth and link sampling interval, milliseconds.
    pub(super) interval_ms: u64,
    /// Violations of the world already written to the record.
    pub(super) reported: usize,
    /// The return the watchdog's ladder flies (home, or a landing at a site), while it does.
    pub(super) return_to: Option<Command>,
    /// When the gate's copy of other aircraft's plans was fetched.
    pub(super) plans: PlansCopy,
    /// When the gate next judges what is left of the handed-over mission.
    pub(super) mission_watch_at_ms: u64,
    /// Why the gate paused the handed-over mission last.
    pub(super) paused_for: Option<String>,
    /// The limits a plan's airspace is made again with when the autopilot's changes.
    pub(super) limits: alpha3_core::config::Limits,
    /// Set when the process is stopping with every client gone: episode time stops running
    /// so the record gets its last line before the kill.
    pub(super) cut: crate::episode_setup::HandoverCut,
    /// How the safety path kept up: telemetry age, the gate's time, late ticks.
    pub(super) timing: super::safety_timing::SafetyTiming,
    /// A swarm member lost its swarm and was held (the episode then ends with its landing).
    pub(super) swarm_held: bool,
    /// The last command the vehicle accepted from this episode (see [`Flight::send_approved`]).
    pub(super) last_sent: Option<Command>,
    /// That command was the watchdog's (its hold, or the gate's move out of the way instead).
    pub(super) last_sent_by_watchdog: bool,
}

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Sends an approved command to the vehicle, remembering it when accepted.
    pub(super) async fn send_approved(
        &mut self,
        approved: &alpha3_core::gate::ApprovedCommand,
    ) -> alpha3_core::vehicle::SendReceipt {
        let receipt = self.side.execute(approved).await;
        if receipt.accepted {
            self.last_sent = Some(*approved.command());
            self.last_sent_by_watchdog = false;
        }
        receipt
    }

    /// Gives the gate other aircraft's intent as of now, whenever its copy went stale (see
    /// [`PlansCopy`]): a copy kept for a whole turn would let the gate approve a leg next to a
    /// swarm member that has since stopped on it.
    /// A swarm member's mates change with every report and grow while silent: the gate gets
    /// them anew at every sample.
    pub(super) fn refresh_plans(&mut self) {
        let now = self.side.now_ms();
        if let Some(plans) = self.side.swarm_plans(now) {
            if let Err(e) = self.gate.set_peer_plans(plans) {
                tracing::warn!("swarm plans not usable by the gate: {e}");
            }
            return;
        }
        let world = self.side.world();
        self.plans
            .refresh(self.gate, world.traffic_revision(), now, || {
                crate::episode_setup::known_plans(world)
            });
    }
}
