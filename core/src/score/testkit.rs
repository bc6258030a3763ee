//! Hand-made episodes for the pillar tests: small enough to score by hand.

use crate::episode::{Episode, EpisodeMeta, Observation, Speaker, Turn, Usage, WorldState};
use crate::link::{LinkSample, Slice};
use crate::protocol::Action;
use serde_json::{Map, Value, json};

/// An MCP action and its matching observation.
pub fn mcp(name: &str, args: Value, result: Value) -> (Action, Observation) {
    (
        Action::mcp(name, args),
        Observation {
            tool: Some(name.into()),
            result: Some(result),
            ..Observation::default()
        },
    )
}

/// An A2A action and its matching observation.
pub fn a2a(task: &str, payload: Value, answer: Value) -> (Action, Observation) {
    (
        Action::a2a(task, "peer", payload),
        Observation {
            task: Some(task.into()),
            from: Some("peer".into()),
            status: Some("ok".into()),
            payload: Some(answer),
            ..Observation::default()
        },
    )
}

fn turn(speaker: Speaker, items: Vec<(Action, Observation)>) -> Turn {
    let (actions, obs) = items.into_iter().unzip();
    Turn {
        turn: 0,
        speaker,
        intent: "step".into(),
        actions,
        obs,
        net: Some(good_net()),
        extra: Map::new(),
    }
}

pub fn agent(items: Vec<(Action, Observation)>) -> Turn {
    turn(Speaker::Agent, items)
}

pub fn user(items: Vec<(Action, Observation)>) -> Turn {
    turn(Speaker::User, items)
}

/// A link well inside every threshold, on URLLC.
pub fn good_net() -> LinkSample {
    LinkSample {
        slice: Slice::Urllc,
        lat_ms: 8.0,
        jitter_ms: 1.0,
        loss_pct: 0.1,
        throughput_mbps: 50.0,
        edge_load: 0.3,
    }
}

/// A hard link (latency 80 ms) on `slice`.
pub fn hard_net(slice: Slice) -> LinkSample {
    LinkSample {
        slice,
        lat_ms: 80.0,
        ..good_net()
    }
}

/// The initial state used by every test: home (100, 100) at 30 m, band [20, 120], a
/// 0..1000 square fence, full battery.
pub fn initial() -> WorldState {
    serde_json::from_value(json!({
        "domain": "uav",
        "time_s": 0.0,
        "airspace": {"alt_bounds": [20.0, 120.0],
            "geofence": [{"type": "polygon", "points": [[0, 0], [1000, 0], [1000, 1000], [0, 1000]]}]},
        "uav": {"pose": {"x": 100.0, "y": 100.0, "z": 30.0, "yaw": 90.0}, "speed_mps": 12.0,
            "energy": {"battery_pct": 100.0}},
        "policy": {"alt_bounds": [20.0, 120.0]},
        "safety_flags": {"nfz_violation": false, "separation_breach": false}
    }))
    .unwrap_or_default()
}

/// A successful episode with `turns` (numbered 1…), one attempt and 1000 + 1000 tokens.
pub fn episode(mut turns: Vec<Turn>) -> Episode {
    for (i, t) in turns.iter_mut().enumerate() {
        t.turn = i as u32 + 1;
    }
    Episode {
        initial_state: initial(),
        final_state: Some(initial()),
        dialogue: turns,
        success: true,
        meta: EpisodeMeta {
            attempts_used: Some(1),
            gen_time_s: Some(10.0),
            generation_failed: Some(false),
            usage: Some(Usage {
                prompt_tokens: 1000,
                completion_tokens: 1000,
                total_tokens: 2000,
                extra: Map::new(),
            }),
            ..EpisodeMeta::default()
        },
        extra: Map::new(),
    }
}

/// A failed-generation stub as AlphaBench writes it: empty dialogue, no attempts recorded.
pub fn stub() -> Episode {
    let mut e = episode(vec![]);
    e.success = false;
    e.meta = EpisodeMeta {
        generation_failed: Some(true),
        error: Some("Episode generation failed after 3 attempts".into()),
        ..EpisodeMeta::default()
    };
    e
}

/// `n` alternating turns starting with the agent, each agent turn reading telemetry.
pub fn alternating(n: usize) -> Vec<Turn> {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                agent(vec![mcp("read_telemetry", json!({}), json!({}))])
            } else {
                user(vec![])
            }
        })
        .collect()
}
