//! `MissionClient`: the mission protocol's client side (what a ground station or companion
//! does) for the mission, fence and rally plans, sans-IO in the manner of quinn-proto.
//!
//! The caller feeds inbound messages (`handle`) and time (`handle_timeout` at `poll_timeout`),
//! sends what `poll_transmit` gives, and drains `poll_event`. One transfer at a time; memory
//! held is bounded by the per-kind cap, the outbox and the coalesced events, whatever the
//! autopilot sends.

use super::context::Ctx;
use super::download::Download;
use super::error::MissionError;
use super::event::{Events, MissionEvent};
use super::item::MissionItem;
use super::kind::MissionKind;
use super::messages::Ends;
use super::outbox::Outbox;
use super::timing::MissionTiming;
use super::transfer::Transfer;
use super::upload::{Upload, numbered};
use super::watch::{MissionCurrent, PlanWatch};
use crate::command::Target;
use crate::dialect::{MavMessage, mav::MavFrame};
use crate::profile::Profile;

#[derive(Debug, Clone)]
pub struct MissionClient {
    ends: Ends,
    timing: MissionTiming,
    profile: Profile,
    transfer: Option<Transfer>,
    outbox: Outbox,
    events: Events,
    watch: PlanWatch,
}

impl MissionClient {
    /// A client for the plans of `autopilot` (a `profile` autopilot), speaking as `us`.
    pub fn new(profile: Profile, autopilot: Target, us: Target) -> Self {
        Self {
            ends: Ends { autopilot, us },
            timing: MissionTiming::default(),
            profile,
            transfer: None,
            outbox: Outbox::default(),
            events: Events::default(),
            watch: PlanWatch::default(),
        }
    }

    pub fn with_timing(mut self, timing: MissionTiming) -> Self {
        self.timing = timing;
        self
    }

    pub fn is_busy(&self) -> bool {
        self.transfer.is_some()
    }

    /// Reads the autopilot's `kind` plan; ends in `Downloaded` or `Failed`.
    pub fn start_download(&mut self, kind: MissionKind, now_us: u64) -> Result<(), MissionError> {
        self.refuse_if_busy()?;
        let d = Download::start(kind, now_us, self.ctx());
        self.transfer = Some(Transfer::Download(kind, d));
        Ok(())
    }

    /// Replaces the autopilot's `kind` plan with `items`, in order (their `seq` and
    /// `mission_type` are set here). On an ArduPilot mission, seq 0 is sent as a placeholder
    /// home, whose content ArduPilot ignores (APM:529-533), so `items` are the plan alone, as
    /// `Downloaded` gives them. Ends in `Uploaded` or `Failed`.
    pub fn start_upload(
        &mut self,
        kind: MissionKind,
        items: Vec<MissionItem>,
        now_us: u64,
    ) -> Result<(), MissionError> {
        self.refuse_if_busy()?;
        let home_slot = self.profile == Profile::ArduPilot && kind == MissionKind::Mission;
        let count = items.len() + usize::from(home_slot);
        if count > usize::from(kind.cap()) {
            return Err(MissionError::TooMany {
                kind,
                count,
                cap: kind.cap(),
            });
        }
        let home =
            home_slot.then(|| MissionItem::waypoint(kind, MavFrame::MAV_FRAME_GLOBAL, 0, 0, 0.0));
        let wire = numbered(kind, home.into_iter().chain(items));
        let u = Upload::start(kind, wire, now_us, self.ctx());
        self.transfer = Some(Transfer::Upload(kind, u));
        Ok(())
    }

    /// Clears the autopilot's `kind` plan; ends in `Cleared` or `Failed`.
    pub fn start_clear(&mut self, kind: MissionKind, now_us: u64) -> Result<(), MissionError> {
        self.refuse_if_busy()?;
        let c = super::clear::Clear::start(kind, now_us, self.ctx());
        self.transfer = Some(Transfer::Clear(kind, c));
        Ok(())
    }

    /// Takes one inbound message from the autopilot (the session has already dropped other
    /// senders' frames); anything unexpected is ignored.
    pub fn handle(&mut self, message: &MavMessage, now_us: u64) {
        match message {
            MavMessage::MISSION_CURRENT(c) => {
                let transferring = self.transfer.as_ref().map(Transfer::kind);
                self.watch.on_current(c, transferring, &mut self.events);
            }
            MavMessage::MISSION_ITEM_REACHED(r) => self.watch.on_reached(r.seq, &mut self.events),
            _ => self.drive(|t, ctx| t.handle(message, now_us, ctx)),
        }
    }

    /// The next frame to send to the autopilot.
    pub fn poll_transmit(&mut self) -> Option<MavMessage> {
        self.outbox.pop()
    }

    /// When `handle_timeout` next has work: the running transfer's deadline.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.transfer.as_ref().map(Transfer::deadline_us)
    }

    /// Re-sends after silence, or ends the transfer once the retries are spent.
    pub fn handle_timeout(&mut self, now_us: u64) {
        self.drive(|t, ctx| t.handle_timeout(now_us, ctx));
    }

    /// Hands the running transfer, if any, one step with the client's context, and finishes it
    /// when the step ends it.
    fn drive(&mut self, step: impl FnOnce(&mut Transfer, Ctx<'_>) -> Option<MissionEvent>) {
        let ctx = Ctx {
            ends: self.ends,
            timing: self.timing,
            profile: self.profile,
            out: &mut self.outbox,
        };
        if let Some(outcome) = self.transfer.as_mut().and_then(|t| step(t, ctx)) {
            self.finish(outcome);
        }
    }

    /// The next outcome or piece of news, oldest first.
    pub fn poll_event(&mut self) -> Option<MissionEvent> {
        self.events.pop()
    }

    /// The autopilot's last MISSION_CURRENT.
    pub fn current(&self) -> Option<&MissionCurrent> {
        self.watch.current()
    }

    /// The plan id last known for `kind` (PX4's CRC; 0 on ArduPilot and for an empty plan).
    pub fn plan_id(&self, kind: MissionKind) -> Option<u32> {
        self.watch.plan_id(kind)
    }

    /// Items held by the transfer in progress (at most the kind's cap).
    pub fn held_items(&self) -> usize {
        self.transfer.as_ref().map_or(0, Transfer::held_items)
    }

    /// Frames and events not yet drained (for bounds checks and metrics).
    pub fn queued(&self) -> (usize, usize) {
        (self.outbox.len(), self.events.len())
    }

    fn refuse_if_busy(&self) -> Result<(), MissionError> {
        match &self.transfer {
            Some(t) => Err(MissionError::Busy {
                operation: t.operation(),
                kind: t.kind(),
            }),
            None => Ok(()),
        }
    }

    fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            ends: self.ends,
            timing: self.timing,
            profile: self.profile,
            out: &mut self.outbox,
        }
    }

    /// Ends the transfer; a success also tells the plan watch the plan's new id, so our own
    /// change is not reported back as someone else's.
    fn finish(&mut self, outcome: MissionEvent) {
        self.transfer = None;
        match &outcome {
            MissionEvent::Downloaded {
                kind, opaque_id, ..
            }
            | MissionEvent::Uploaded { kind, opaque_id } => self.watch.learn(*kind, *opaque_id),
            MissionEvent::Cleared { kind } => self.watch.learn(*kind, 0),
            _ => {}
        }
        self.events.push(outcome);
    }
}
