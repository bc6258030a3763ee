//! A way to cut the failsafe hand-over short from outside the episode: when the process is
//! being stopped (an MCP client's SDK sends SIGTERM two seconds after it leaves, and SIGKILL
//! two seconds later), the vehicle already has its failsafe command, and the record must get
//! its last line before the kill rather than wait for the landing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared between the episode (which looks) and whoever may cut (which sets).
#[derive(Debug, Clone, Default)]
pub struct HandoverCut(Arc<AtomicBool>);

impl HandoverCut {
    /// From now on the hand-over stops at its next step.
    pub fn cut(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cut(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Settings compare equal whatever their cut flag (it is a channel, not a setting).
impl PartialEq for HandoverCut {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
