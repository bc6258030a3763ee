//! What the MCP resources show, shared between the episode loop (which writes it) and every
//! session (which reads it): the mission, the telemetry as of the last decision, the operator's
//! messages, and the session's status. New operator messages are also broadcast, so each
//! session can pass them on as notifications.

use serde::Serialize;
use serde_json::Value;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

/// How many operator messages a slow session may fall behind before it misses some (they stay
/// in the resource).
const NOTE_BACKLOG: usize = 64;

/// One message of the operator (the briefing is the first).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorNote {
    /// The agent decision it came before (0: the briefing).
    pub decision: usize,
    pub text: String,
}

/// The session as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Status {
    pub episode_id: String,
    /// The flight record's path.
    pub record: String,
    /// The episode started (a client initialised).
    pub started: bool,
    /// The first client's name and version, as it introduced itself (cut to a bound).
    pub client: Option<String>,
    /// The session that holds control of the vehicle, if one does.
    pub control: Option<String>,
    /// Tool calls the loop ran as agent actions.
    pub calls_run: u32,
    /// Why the episode ended, once it has.
    pub ended: Option<String>,
    pub success: Option<bool>,
}

#[derive(Debug, Default)]
struct State {
    mission: Value,
    telemetry: Value,
    operator: Vec<OperatorNote>,
    status: Status,
}

/// The shared view; cheap to clone.
#[derive(Debug, Clone)]
pub struct SessionView {
    state: Arc<Mutex<State>>,
    notes: broadcast::Sender<OperatorNote>,
}

impl SessionView {
    pub fn new(mission: Value, status: Status) -> Self {
        let (notes, _) = broadcast::channel(NOTE_BACKLOG);
        Self {
            state: Arc::new(Mutex::new(State {
                mission,
                status,
                ..State::default()
            })),
            notes,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn mission(&self) -> Value {
        self.lock().mission.clone()
    }

    pub fn telemetry(&self) -> Value {
        self.lock().telemetry.clone()
    }

    pub fn operator(&self) -> Vec<OperatorNote> {
        self.lock().operator.clone()
    }

    pub fn status(&self) -> Status {
        self.lock().status.clone()
    }

    pub fn set_telemetry(&self, telemetry: Value) {
        self.lock().telemetry = telemetry;
    }

    /// Adds what the operator said before `decision` (nothing for silence) and broadcasts it.
    pub fn heard_operator(&self, decision: usize, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let note = OperatorNote {
            decision,
            text: text.to_string(),
        };
        self.lock().operator.push(note.clone());
        // Nobody listening is fine: the message stays in the resource.
        let _ = self.notes.send(note);
    }

    /// Operator messages from now on.
    pub fn subscribe_operator(&self) -> broadcast::Receiver<OperatorNote> {
        self.notes.subscribe()
    }

    pub fn update_status(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.lock().status);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operator_messages_are_kept_and_broadcast_and_silence_is_not_a_message() {
        let view = SessionView::new(json!({}), Status::default());
        let mut rx = view.subscribe_operator();
        view.heard_operator(0, "briefing");
        view.heard_operator(1, "  ");
        view.heard_operator(2, "hold there");
        assert_eq!(view.operator().len(), 2);
        assert_eq!(rx.try_recv().unwrap().text, "briefing");
        assert_eq!(rx.try_recv().unwrap().decision, 2);
    }
}
