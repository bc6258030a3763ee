//! Worked examples for the system header when the state block is on: a situation in the
//! block's format and the answer that moves the mission on. Hand-written on made-up
//! coordinates (no scenario's), in the pattern the scripted agent flies: fly to the next
//! waypoint, activate and capture where a capture is owed, capture before leaving.

/// Appended to the system header.
pub const STEERED_EXAMPLES: &str = "\n\
example:\n\
phase=en_route pos=(100,60,30) battery=90% reserve=20% link=URLLC ok\n\
next waypoints 1: (180,140,45), 2: (260,150,40), 3: (300,220,50); 4 of 5 left\n\
answer: {\"intent\":\"fly_waypoints_1_to_3\",\"actions\":[{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":180,\"y\":140,\"z\":45}}},{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":260,\"y\":150,\"z\":40}}},{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":300,\"y\":220,\"z\":50}}}]}\n\
example:\n\
phase=en_route pos=(260,150,40) battery=80% reserve=20% link=URLLC ok\n\
next waypoints 3: (300,220,50), 4: (350,300,40); 2 of 5 left; capture image at waypoint 3\n\
answer: {\"intent\":\"capture_at_waypoint_3\",\"actions\":[{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":300,\"y\":220,\"z\":50}}},{\"type\":\"mcp\",\"name\":\"activate_sensor\",\"args\":{\"sensor\":\"camera_rgb\"}},{\"type\":\"mcp\",\"name\":\"capture\",\"args\":{\"sensor\":\"camera_rgb\",\"kind\":\"image\"}},{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":350,\"y\":300,\"z\":40}}}]}\n\
example:\n\
phase=waypoints_done pos=(420,310,40) battery=70% reserve=20% link=URLLC ok\n\
capture image owed here (waypoint 5); all waypoints reached\n\
answer: {\"intent\":\"capture_at_waypoint_5\",\"actions\":[{\"type\":\"mcp\",\"name\":\"capture\",\"args\":{\"sensor\":\"camera_rgb\",\"kind\":\"image\"}}]}";

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::protocol::{agent_turn_schema, catalogue};

    #[test]
    fn the_example_answers_are_valid_turns() {
        let v = jsonschema::validator_for(&agent_turn_schema(&catalogue())).unwrap();
        let answers: Vec<&str> = STEERED_EXAMPLES
            .lines()
            .filter_map(|l| l.strip_prefix("answer: "))
            .collect();
        assert_eq!(answers.len(), 3);
        for a in answers {
            let value: serde_json::Value = serde_json::from_str(a).unwrap();
            assert!(v.is_valid(&value), "{a}");
        }
    }
}
