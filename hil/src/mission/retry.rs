//! The retry timer one request waits on: a deadline and the sends so far.

/// Each new request starts a fresh budget; only silence spends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RetryTimer {
    /// Sends of the current request, the first included.
    pub(super) sends: u32,
    deadline_us: u64,
    timeout_us: u64,
}

impl RetryTimer {
    /// The request was just sent for the first time.
    pub(super) fn sent(now_us: u64, timeout_ms: u64) -> Self {
        let timeout_us = timeout_ms.saturating_mul(1000);
        Self {
            sends: 1,
            deadline_us: now_us.saturating_add(timeout_us),
            timeout_us,
        }
    }

    pub(super) fn deadline_us(&self) -> u64 {
        self.deadline_us
    }

    pub(super) fn expired(&self, now_us: u64) -> bool {
        now_us >= self.deadline_us
    }

    /// After a timeout: `true` (and the timer re-armed) when the request may be sent again,
    /// `false` once `retries` re-sends are spent.
    pub(super) fn retry(&mut self, now_us: u64, retries: u32) -> bool {
        if self.sends > retries {
            return false;
        }
        self.sends += 1;
        self.deadline_us = now_us.saturating_add(self.timeout_us);
        true
    }
}
