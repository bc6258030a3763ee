//! The session's MCP resources: the telemetry, the mission, the operator's messages and the
//! session's status, each a JSON document read from the shared [`SessionView`].

use super::caller::Caller;
use super::view::SessionView;
use rmcp::model::{Resource, ResourceContents};
use serde_json::{Value, json};

pub const TELEMETRY: &str = "alpha3://telemetry";
pub const MISSION: &str = "alpha3://mission";
pub const OPERATOR: &str = "alpha3://operator";
pub const SESSION: &str = "alpha3://session";

/// Every resource, for `resources/list`.
pub fn list() -> Vec<Resource> {
    [
        (
            TELEMETRY,
            "telemetry",
            "The vehicle as the episode loop saw it at its last decision or tool call.",
        ),
        (
            MISSION,
            "mission",
            "The mission: briefing, waypoints, airspace (fence, no-fly zones, landing sites), limits.",
        ),
        (
            OPERATOR,
            "operator",
            "Every operator message so far, with the decision it came before (0: the briefing).",
        ),
        (
            SESSION,
            "session",
            "The session: episode id, record path, calls run, who holds control of the vehicle, which session is reading, and why the episode ended.",
        ),
    ]
    .into_iter()
    .map(|(uri, name, description)| {
        let mut r = Resource::new(uri, name).with_description(description);
        r.mime_type = Some("application/json".into());
        r
    })
    .collect()
}

/// The document at `uri`, if there is one, as `reader` sees it.
pub fn read(view: &SessionView, uri: &str, reader: Option<&Caller>) -> Option<ResourceContents> {
    let doc: Value = match uri {
        TELEMETRY => view.telemetry(),
        MISSION => view.mission(),
        OPERATOR => json!({ "messages": view.operator() }),
        SESSION => {
            let mut doc = serde_json::to_value(view.status()).unwrap_or(Value::Null);
            if let (Some(map), Some(r)) = (doc.as_object_mut(), reader) {
                map.insert("this_session".into(), Value::from(r.to_string()));
            }
            doc
        }
        _ => return None,
    };
    Some(ResourceContents::text(doc.to_string(), uri).with_mime_type("application/json"))
}
