//! The one transfer in progress, whichever it is.

use super::clear::Clear;
use super::context::Ctx;
use super::download::Download;
use super::error::Operation;
use super::event::MissionEvent;
use super::kind::MissionKind;
use super::upload::Upload;
use crate::dialect::MavMessage;

#[derive(Debug, Clone)]
pub(super) enum Transfer {
    Download(MissionKind, Download),
    Upload(MissionKind, Upload),
    Clear(MissionKind, Clear),
}

impl Transfer {
    pub(super) fn kind(&self) -> MissionKind {
        match self {
            Transfer::Download(k, _) | Transfer::Upload(k, _) | Transfer::Clear(k, _) => *k,
        }
    }

    pub(super) fn operation(&self) -> Operation {
        match self {
            Transfer::Download(..) => Operation::Download,
            Transfer::Upload(..) => Operation::Upload,
            Transfer::Clear(..) => Operation::Clear,
        }
    }

    pub(super) fn deadline_us(&self) -> u64 {
        match self {
            Transfer::Download(_, d) => d.deadline_us(),
            Transfer::Upload(_, u) => u.deadline_us(),
            Transfer::Clear(_, c) => c.deadline_us(),
        }
    }

    pub(super) fn held_items(&self) -> usize {
        match self {
            Transfer::Download(_, d) => d.held_items(),
            Transfer::Upload(_, u) => u.held_items(),
            Transfer::Clear(..) => 0,
        }
    }

    /// The outcome, when `message` ends the transfer.
    pub(super) fn handle(
        &mut self,
        message: &MavMessage,
        now_us: u64,
        ctx: Ctx<'_>,
    ) -> Option<MissionEvent> {
        match self {
            Transfer::Download(_, d) => d.handle(message, now_us, ctx),
            Transfer::Upload(_, u) => u.handle(message, now_us, ctx),
            Transfer::Clear(_, c) => c.handle(message, ctx),
        }
    }

    /// The outcome, when the retries are spent.
    pub(super) fn handle_timeout(&mut self, now_us: u64, ctx: Ctx<'_>) -> Option<MissionEvent> {
        match self {
            Transfer::Download(_, d) => d.handle_timeout(now_us, ctx),
            Transfer::Upload(_, u) => u.handle_timeout(now_us, ctx),
            Transfer::Clear(_, c) => c.handle_timeout(now_us, ctx),
        }
    }
}
