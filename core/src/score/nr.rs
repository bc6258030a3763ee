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
    robustness(episode, closed_loop, catalogue, hard, Reading::V1)
}

/// Which definition's `a` and `s` terms: v1's, or v3's ([`network_robustness_v3`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    V1,
    V3,
}

/// `0.5·((1 − x) + x·a) + 0.5·s` with the `a` and `s` of `reading`.
fn robustness(
    episode: &Episode,
    closed_loop: Option<&ClosedLoop>,
    catalogue: &[ToolSpec],
    hard: &HardThresholds,
    reading: Reading,
) -> f64 {
    let turns = episode.dialogue.len();
    let mut hard_turns = 0usize;
    let mut hard_agent = 0usize;
    let mut adapted = 0usize;
    let mut issued = 0usize;
    let mut fitting = 0usize;
    for (t, turn) in episode.dialogue.iter().enumerate() {
        let Some(net) = turn.net else { continue };
        let agent = turn.speaker == Speaker::Agent;
        let classes: Vec<ToolClass> = turn
            .actions
            .iter()
            .map(|a| class_of(catalogue, a.name()))
            .collect();
        // v3 counts the agent's own choice of slice only.
        if agent || reading == Reading::V1 {
            issued += classes.len();
            fitting += classes.iter().filter(|c| c.fits_slice(net.slice)).count();
        }
        if !net.is_hard(hard) {
            continue;
        }
        hard_turns += 1;
        if agent {
            hard_agent += 1;
            let ok = match (reading, closed_loop) {
                (Reading::V3, None) => declares_adaptation(&turn.intent),
                _ => communication_safe(turn, &classes, t, closed_loop),
            };
            adapted += usize::from(ok);
        }
    }
    let x = ratio(hard_turns, turns, 0.0);
    let a = ratio(adapted, hard_agent, 1.0);
    let s = ratio(fitting, issued, 1.0);
    (0.5 * ((1.0 - x) + x * a) + 0.5 * s).clamp(0.0, 1.0)
}

/// The words by which a hard agent turn's intent declares that it adapts to the network
/// (`alpha3-v3`, published episodes): the paper's "switch to URLLC, buffer or defer non-critical
/// actions, no new bulk sensing or streaming" and what the published agents wrote when they did
/// so (`adapt_to_degraded_link`, `reduce_bitrate`, `hold_position_until_link_recovers`). Matched as
/// substrings of the lower-cased intent.
pub const ADAPTATION_WORDS: [&str; 21] = [
    "adapt",
    "reduce",
    "lower",
    "compress",
    "bitrate",
    "degrad",
    "fallback",
    "buffer",
    "minimal",
    "low_rate",
    "limited",
    "hold",
    "loiter",
    "return",
    "rtb",
    "land",
    "slice",
    "urllc",
    "conserv",
    "caution",
    "bandwidth",
];

/// Whether `intent` declares an adaptation to the network ([`ADAPTATION_WORDS`]).
pub fn declares_adaptation(intent: &str) -> bool {
    let lower = intent.to_lowercase();
    ADAPTATION_WORDS.iter().any(|w| lower.contains(w))
}

/// NR of one episode under `alpha3-v3`: the same `0.5·((1 − x) + x·a) + 0.5·s` and hard turns as
/// [`network_robustness`], with two changes that the published runs support (docs/METRIC-V3.md):
/// - `a`, behavioural adaptation: in a published episode, a hard agent turn adapted when its
///   intent declares it ([`declares_adaptation`]) — the published agents lower a stream's
///   bitrate or adapt a payload under a hard link, which v1's action classes count as new bulk
///   sensing; in a flight record, where the behaviour itself is known, when it was
///   communication-safe as v1 judges it (what the agent says is not trusted where what it did
///   can be read);
/// - `s`, slice awareness: over the agent's actions only (the operator's are not the agent's
///   choice of slice).
pub fn network_robustness_v3(
    episode: &Episode,
    closed_loop: Option<&ClosedLoop>,
    catalogue: &[ToolSpec],
    hard: &HardThresholds,
) -> f64 {
    robustness(episode, closed_loop, catalogue, hard, Reading::V3)
}

/// v1's judgement of a hard agent turn: no new bulk sensing (winding sensing down, or the slice
/// policy buffering or deferring it, is not new traffic).
fn communication_safe(
    turn: &crate::episode::Turn,
    classes: &[ToolClass],
    t: usize,
    closed_loop: Option<&ClosedLoop>,
) -> bool {
    turn.actions
        .iter()
        .zip(classes)
        .enumerate()
        .all(|(i, (a, c))| {
            let held = closed_loop
                .and_then(|ev| ev.slice_decision(t, i))
                .is_some_and(|d| matches!(d, SliceDecision::Buffer | SliceDecision::Defer));
            *c != ToolClass::Sensing || winds_down(a.name()) || held
        })
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
    use crate::link::{LinkSample, Slice};
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
    fn v3_takes_a_published_agents_declared_adaptation_and_its_own_actions_slices() {
        let cat = catalogue();
        let hard = HardThresholds::default();
        // A hard agent turn that lowers a stream's bitrate: v1 counts the stream as new bulk
        // sensing; v3 reads the intent. The operator's control action on eMBB does not fit,
        // but it is not the agent's.
        let mut a1 = agent(vec![mcp("adjust_stream", json!({}), json!({}))]);
        a1.intent = "adapt_to_degraded_link_reduce_bitrate".into();
        a1.net = Some(hard_net(Slice::Urllc));
        let mut u2 = user(vec![mcp("set_waypoint", json!({}), json!({}))]);
        u2.net = Some(LinkSample {
            slice: Slice::Embb,
            ..good_net()
        });
        let e = episode(vec![a1.clone(), u2.clone()]);
        // x = 1/2. v1: a = 0, s = 1/2 → 0.5·0.5 + 0.25 = 0.5. v3: a = 1, s = 1/1 → 1.
        assert_eq!(network_robustness(&e, None, &cat, &hard), 0.5);
        assert_eq!(network_robustness_v3(&e, None, &cat, &hard), 1.0);
        // The same turn without the declaration: not adapted.
        let mut quiet = a1.clone();
        quiet.intent = "continue_survey".into();
        let e = episode(vec![quiet, u2.clone()]);
        assert_eq!(network_robustness_v3(&e, None, &cat, &hard), 0.75);
        // In a flight record the behaviour counts, not the words: a new stream is not safe
        // whatever the intent says.
        let e = episode(vec![a1, u2]);
        let ev = ClosedLoop::default();
        assert_eq!(network_robustness_v3(&e, Some(&ev), &cat, &hard), 0.75);
    }

    #[test]
    fn adaptation_is_declared_by_the_papers_words() {
        for (intent, yes) in [
            ("adapt_to_degraded_network", true),
            ("switch_to_urllc_slice", true),
            ("hold_position_until_link_recovers", true),
            ("reduce_stream_bitrate", true),
            ("continue_to_waypoint_3", false),
            ("capture_thermal_images", false),
        ] {
            assert_eq!(declares_adaptation(intent), yes, "{intent}");
        }
    }

    #[test]
    fn an_empty_hard_agent_turn_defers_everything() {
        let mut a1 = agent(vec![]);
        a1.net = Some(hard_net(Slice::Mmtc));
        assert_eq!(nr(&episode(vec![a1])), 1.0);
    }
}
