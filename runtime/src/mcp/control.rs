//! One vehicle, one pilot: the first session whose acting call is flown holds control until it
//! ends (closed, deleted or expired); then the next session to act takes it. Any session may
//! read (the catalogue's monitoring tools: telemetry, network, geofence); an acting call from
//! a session that does not hold control is refused, naming the holder. Without this, every
//! connected client flew the one vehicle at once.

use super::caller::Caller;
use super::view::SessionView;
use alpha3_core::protocol::{ToolClass, ToolKind, ToolSpec};
use std::sync::{Arc, Mutex, MutexGuard};

/// Who holds control; shared by every session and the episode loop.
#[derive(Debug, Clone)]
pub struct Control {
    holder: Arc<Mutex<Option<Caller>>>,
    /// Where clients see the holder (`alpha3://session`).
    view: SessionView,
}

impl Control {
    pub fn new(view: SessionView) -> Self {
        Self {
            holder: Arc::new(Mutex::new(None)),
            view,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Caller>> {
        self.holder.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn holder(&self) -> Option<Caller> {
        self.lock().clone()
    }

    /// Whether `caller` may act now: it holds control, or nobody does.
    pub fn may_act(&self, caller: &Caller) -> Result<(), Caller> {
        match &*self.lock() {
            Some(h) if h.session != caller.session => Err(h.clone()),
            _ => Ok(()),
        }
    }

    /// `caller` acted: it holds control from now on (if nobody else does).
    pub fn take(&self, caller: &Caller) -> Result<(), Caller> {
        let mut holder = self.lock();
        match &*holder {
            Some(h) if h.session != caller.session => Err(h.clone()),
            Some(_) => Ok(()),
            None => {
                *holder = Some(caller.clone());
                drop(holder);
                let named = caller.to_string();
                self.view.update_status(|s| s.control = Some(named));
                Ok(())
            }
        }
    }

    /// The session `session` ended: if it held control, nobody does now.
    pub fn release(&self, session: &str) {
        let mut holder = self.lock();
        if holder.as_ref().is_some_and(|h| h.session == session) {
            *holder = None;
            drop(holder);
            self.view.update_status(|s| s.control = None);
        }
    }
}

/// The MCP tools any session may call: those that only read (the monitoring class).
pub fn read_only_tools(catalogue: &[ToolSpec]) -> Vec<&'static str> {
    catalogue
        .iter()
        .filter(|t| t.kind == ToolKind::Mcp && t.class == ToolClass::Monitoring)
        .map(|t| t.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::view::Status;
    use alpha3_core::protocol::catalogue;
    use serde_json::json;

    #[test]
    fn the_first_to_act_holds_control_until_its_session_ends() {
        let view = SessionView::new(json!({}), Status::default());
        let control = Control::new(view.clone());
        let (a, b) = (Caller::new("a", "one", "1"), Caller::new("b", "two", "1"));
        assert_eq!(control.may_act(&b), Ok(()), "nobody holds it yet");
        control.take(&a).unwrap();
        assert_eq!(control.may_act(&a), Ok(()));
        assert_eq!(control.may_act(&b), Err(a.clone()));
        assert_eq!(control.take(&b), Err(a.clone()));
        assert_eq!(
            view.status().control.as_deref(),
            Some("session a (client one 1)")
        );
        control.release("b");
        assert_eq!(
            control.holder(),
            Some(a),
            "only the holder's end releases it"
        );
        control.release("a");
        assert_eq!(control.holder(), None);
        assert_eq!(view.status().control, None);
        control.take(&b).unwrap();
        assert_eq!(control.holder(), Some(b));
    }

    #[test]
    fn the_read_only_tools_are_the_monitoring_ones() {
        assert_eq!(
            read_only_tools(&catalogue()),
            ["read_telemetry", "read_network", "check_geofence"]
        );
    }
}
