//! NR — Network Robustness: `0.5·((1 − x) + x·a) + 0.5·s`.
//!
//! - A turn is hard when its `net` sample crosses a [`HardThresholds`] limit (published: the
//!   snapshot the model wrote; closed loop: the measured link). A turn without a sample is not
//!   hard. `x` = hard turns / all turns.
//! - `a` = the share of hard agent turns that are communication-safe: no new bulk sensing.
//!   A sensing action is not new bulk traffic when it winds sensing down (`stop_…`,
//!   `deactivate_…`, `reduce_…`) or, closed loop, when the slice policy buffered or deferred it.
//!   A turn with only monitoring or control-critical actions (a slice switch, a hold) or with no
//!   action at all counts as safe. `a` = 1 when no agent turn is hard.
//! - `s` = the share of actions issued on a slice that fits their class
//!   ([`ToolClass::fits_slice`]), over actions whose turn has a sample; 1 when there are none.

use super::classify::{class_of, winds_down};
use super::evidence::ClosedLoop;
use crate::episode::{Episode, Speaker};
use crate::link::{HardThresholds, SliceDecision};
use crate::protocol::{ToolClass, ToolSpec};

/// NR of one episode.
pub fn network_robustness(
    episode: &Episode,
    closed_loop: Option<&ClosedLoop>,
    catalogue: &[ToolSpec],
    hard: &HardThresholds,
) -> f64 {
    let turns = episode.dialogue.len();
    let mut hard_turns = 0usize;
    let mut hard_agent = 0usize;
    let mut safe_agent = 0usize;
    let mut issued = 0usize;
    let mut fitting = 0usize;
    for (t, turn) in episode.dialogue.iter().enumerate() {
        let Some(net) = turn.net else { continue };
        let classes: Vec<ToolClass> = turn
            .actions
            .iter()
            .map(|a| class_of(catalogue, a.name()))
            .collect();
        issued += classes.len();
        fitting += classes.iter().filter(|c| c.fits_slice(net.slice)).count();
        if !net.is_hard(hard) {
            continue;
        }
        hard_turns += 1;
        if turn.speaker == Speaker::Agent {
            hard_agent += 1;
            let safe = turn
                .actions
                .iter()
                .zip(&classes)
                .enumerate()
                .all(|(i, (a, c))| {
                    let held = closed_loop
                        .and_then(|ev| ev.slice_decision(t, i))
                        .is_some_and(|d| matches!(d, SliceDecision::Buffer | SliceDecision::Defer));
                    *c != ToolClass::Sensing || winds_down(a.name()) || held
                });
            safe_agent += usize::from(safe);
        }
    }
    let x = ratio(hard_turns, turns, 0.0);
    let a = ratio(safe_agent, hard_agent, 1.0);
    let s = ratio(fitting, issued, 1.0);
    (0.5 * ((1.0 - x) + x * a) + 0.5 * s).clamp(0.0, 1.0)
}

fn ratio(part: usize, whole: usize, empty: f64) -> f64 {
    if whole == 0 {
        empty
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::link::Slice;
    use crate::protocol::catalogue;
    use serde_json::json;

    fn nr(e: &Episode) -> f64 {
        network_robustness(e, None, &catalogue(), &HardThresholds::default())
    }

    #[test]
    fn no_actions_and_no_hard_turns_is_one() {
        assert_eq!(nr(&episode(vec![agent(vec![]), user(vec![])])), 1.0);
        assert_eq!(nr(&stub()), 1.0);
    }

    #[test]
    fn calm_dialogues_of_8_and_12_turns_score_one() {
        // read_telemetry (monitoring) fits URLLC; nothing is hard.
        assert_eq!(nr(&episode(alternating(8))), 1.0);
        assert_eq!(nr(&episode(alternating(12))), 1.0);
    }

    #[test]
    fn slice_fit_by_hand() {
        // On eMBB: set_waypoint (control) does not fit, capture (sensing) and read (monitoring) do.
        let mut t = agent(vec![
            mcp("set_waypoint", json!({}), json!({})),
            mcp("capture", json!({}), json!({})),
            mcp("read_telemetry", json!({}), json!({})),
        ]);
        t.net = Some(crate::link::LinkSample {
            slice: Slice::Embb,
            ..good_net()
        });
        // x = 0, s = 2/3: NR = 0.5 + 0.5·2/3.
        let v = nr(&episode(vec![t]));
        assert!((v - (0.5 + 1.0 / 3.0)).abs() < 1e-12, "{v}");
    }

    #[test]
    fn hard_turns_by_hand() {
        // T = 4: turns 1 (agent) and 2 (user) hard, on URLLC.
        let mut a1 = agent(vec![mcp("start_payload_stream", json!({}), json!({}))]);
        a1.net = Some(hard_net(Slice::Urllc));
        let mut u2 = user(vec![]);
        u2.net = Some(hard_net(Slice::Urllc));
        let a3 = agent(vec![mcp("hold", json!({}), json!({}))]);
        let e = episode(vec![a1, u2, a3, user(vec![])]);
        // x = 2/4; hard agent turns: 1, unsafe (new stream) → a = 0; s = 2/2 (sensing and control
        // both fit URLLC). NR = 0.5·(0.5 + 0) + 0.5·1 = 0.75.
        assert_eq!(nr(&e), 0.75);
    }

    #[test]
    fn winding_down_or_holding_back_is_safe_under_a_hard_link() {
        let mut a1 = agent(vec![mcp("stop_payload_stream", json!({}), json!({}))]);
        a1.net = Some(hard_net(Slice::Urllc));
        let e = episode(vec![a1.clone(), user(vec![])]);
        // x = 1/2, a = 1, s = 1.
        assert_eq!(nr(&e), 1.0);
        // A new capture, but the slice policy deferred it (closed loop).
        let mut a2 = agent(vec![mcp("capture", json!({}), json!({}))]);
        a2.net = Some(hard_net(Slice::Urllc));
        let e = episode(vec![a2, user(vec![])]);
        let ev = ClosedLoop {
            slice_decisions: vec![vec![Some(SliceDecision::Defer)], vec![]],
            ..ClosedLoop::default()
        };
        let cat = catalogue();
        let hard = HardThresholds::default();
        assert_eq!(network_robustness(&e, Some(&ev), &cat, &hard), 1.0);
        assert_eq!(network_robustness(&e, None, &cat, &hard), 0.75);
    }

    #[test]
    fn an_empty_hard_agent_turn_defers_everything() {
        let mut a1 = agent(vec![]);
        a1.net = Some(hard_net(Slice::Mmtc));
        assert_eq!(nr(&episode(vec![a1])), 1.0);
    }
}
