//! Says in the log that someone other than the bound autopilot is sending — rate-limited, so
//! a flood of foreign frames does not flood the log as well. The counts themselves are in the
//! link status, always current.

use crate::session::ForeignFrames;

/// At most one line this often.
const EVERY_US: u64 = 5_000_000;

#[derive(Debug, Default)]
pub(crate) struct ForeignLog {
    /// Foreign frames already told of.
    logged: u64,
    next_us: u64,
}

impl ForeignLog {
    /// Logs the frames that arrived since the last line, if a line is due.
    pub fn note(&mut self, now_us: u64, foreign: ForeignFrames) {
        if foreign.count == self.logged || now_us < self.next_us {
            return;
        }
        if let Some(s) = foreign.last {
            tracing::warn!(
                new = foreign.count - self.logged,
                total = foreign.count,
                from = ?s.from,
                system = s.system_id,
                component = s.component_id,
                message_id = s.message_id,
                "frames from someone other than the bound autopilot dropped"
            );
        }
        self.logged = foreign.count;
        self.next_us = now_us + EVERY_US;
    }
}
