//! Who is connected: the episode starts when the first MCP session has initialised and ends
//! when every session that joined has gone (or the process is told to stop).

use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Where the sessions stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// No session has initialised yet.
    Waiting,
    /// At least one session is connected.
    Present,
    /// Every session that joined has gone, or the process was told to stop.
    Left,
}

/// Counts the sessions that joined and are still connected.
#[derive(Debug, Clone)]
pub struct Attendance {
    live: Arc<Mutex<usize>>,
    state: Arc<watch::Sender<Presence>>,
}

impl Default for Attendance {
    fn default() -> Self {
        Self::new()
    }
}

impl Attendance {
    pub fn new() -> Self {
        let (tx, _) = watch::channel(Presence::Waiting);
        Self {
            live: Arc::new(Mutex::new(0)),
            state: Arc::new(tx),
        }
    }

    /// A session joined; it counts as present until the returned seat is dropped. A session
    /// that joins after everyone left does not bring the episode back.
    pub fn join(&self) -> Seat {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        *live += 1;
        self.state.send_if_modified(|p| {
            if *p == Presence::Waiting {
                *p = Presence::Present;
                true
            } else {
                false
            }
        });
        Seat {
            attendance: self.clone(),
        }
    }

    /// Everyone is taken to have left (SIGINT, SIGTERM, the transport closed).
    pub fn all_leave(&self) {
        self.state.send_replace(Presence::Left);
    }

    pub fn now(&self) -> Presence {
        *self.state.borrow()
    }

    /// Follows the presence as it changes.
    pub fn watch(&self) -> watch::Receiver<Presence> {
        self.state.subscribe()
    }

    fn leave(&self) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        *live = live.saturating_sub(1);
        if *live == 0 {
            self.state.send_replace(Presence::Left);
        }
    }
}

/// One joined session; dropping it is that session leaving.
#[derive(Debug)]
pub struct Seat {
    attendance: Attendance,
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.attendance.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_from_the_first_join_until_the_last_seat_is_gone() {
        let a = Attendance::new();
        assert_eq!(a.now(), Presence::Waiting);
        let one = a.join();
        let two = a.join();
        assert_eq!(a.now(), Presence::Present);
        drop(one);
        assert_eq!(a.now(), Presence::Present);
        drop(two);
        assert_eq!(a.now(), Presence::Left);
        let late = a.join();
        assert_eq!(a.now(), Presence::Left, "a late session does not reopen");
        drop(late);
    }

    #[test]
    fn a_stop_is_everyone_leaving() {
        let a = Attendance::new();
        let _seat = a.join();
        a.all_leave();
        assert_eq!(a.now(), Presence::Left);
    }
}
