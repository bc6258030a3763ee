//! Invariants over random episodes and runs: every pillar and α3 in [0, 1], α3 macro ≤ mean.

use super::testkit::{a2a, agent, episode, mcp, stub, user};
use super::*;
use crate::episode::{Episode, Observation, Turn};
use crate::link::{LinkSample, Slice};
use proptest::prelude::*;
use serde_json::json;

const NAMES_POOL: [&str; 10] = [
    "read_telemetry",
    "set_waypoint",
    "capture",
    "activate_payload",
    "start_data_stream",
    "navigate_to",
    "get_status",
    "stop_payload_stream",
    "set_altitude",
    "land",
];

fn arb_net() -> impl Strategy<Value = Option<LinkSample>> {
    proptest::option::of(
        (
            0usize..3,
            0.0f64..120.0,
            0.0f64..4.0,
            0.0f64..80.0,
            0.0f64..1.2,
        )
            .prop_map(|(s, lat, loss, tput, load)| LinkSample {
                slice: Slice::ALL[s],
                lat_ms: lat,
                jitter_ms: 1.0,
                loss_pct: loss,
                throughput_mbps: tput,
                edge_load: load,
            }),
    )
}

fn arb_turn() -> impl Strategy<Value = Turn> {
    (
        any::<bool>(),
        proptest::collection::vec((0usize..10, -50i32..700, any::<bool>(), 0u8..4), 0..5),
        arb_net(),
    )
        .prop_map(|(is_agent, actions, net)| {
            let items = actions
                .into_iter()
                .map(|(n, v, is_a2a, obs_kind)| {
                    let name = NAMES_POOL[n];
                    let (action, mut obs) = if is_a2a {
                        a2a(
                            name,
                            json!({"x": v}),
                            json!({"pose": {"x": v, "y": v, "z": v}}),
                        )
                    } else {
                        mcp(name, json!({"altitude_m": v}), json!({"battery_pct": v}))
                    };
                    match obs_kind {
                        0 => obs = Observation::default(),
                        1 => obs.result = Some(json!("not an object")),
                        _ => {}
                    }
                    (action, obs)
                })
                .collect();
            let mut t = if is_agent { agent(items) } else { user(items) };
            t.net = net;
            t
        })
}

fn arb_episode() -> impl Strategy<Value = Episode> {
    (
        proptest::collection::vec(arb_turn(), 0..16),
        any::<bool>(),
        0u64..30_000,
        0u32..5,
        any::<bool>(),
    )
        .prop_map(|(turns, success, tokens, attempts, failed)| {
            if failed {
                return stub();
            }
            let mut e = episode(turns);
            e.success = success;
            e.meta.attempts_used = Some(attempts);
            if let Some(u) = e.meta.usage.as_mut() {
                u.prompt_tokens = tokens / 3;
                u.completion_tokens = tokens - tokens / 3;
            }
            e
        })
}

fn in_unit(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

proptest! {
    #[test]
    fn every_pillar_and_alpha3_is_in_the_unit_interval(e in arb_episode(), t_star in 1.0f64..20.0) {
        let scorer = Scorer::new(ScoreOptions::default()).unwrap();
        let strict = Scorer::new(ScoreOptions { published_catalogue_schemas: true, ..ScoreOptions::default() }).unwrap();
        for s in [&scorer, &strict] {
            let eval = s.evaluate(&e);
            let p = eval.pillars(t_star);
            for (name, v) in NAMES.iter().zip(p.values()) {
                prop_assert!(in_unit(v), "{name} = {v}");
            }
            prop_assert!(in_unit(p.alpha3()));
            prop_assert!(in_unit(eval.alternation) && in_unit(eval.grounding));
        }
    }

    #[test]
    fn alpha3_macro_never_exceeds_the_mean(episodes in proptest::collection::vec(arb_episode(), 0..12)) {
        let scorer = Scorer::new(ScoreOptions::default()).unwrap();
        let evals: Vec<EpisodeEval> = episodes.iter().map(|e| scorer.evaluate(e)).collect();
        let (run, scored) = aggregate(&evals);
        prop_assert!(run.alpha3_macro <= run.mean + 1e-12, "{} > {}", run.alpha3_macro, run.mean);
        prop_assert!(in_unit(run.mean) && in_unit(run.alpha3_macro));
        prop_assert!(in_unit(run.reliability) && in_unit(run.coverage) && in_unit(run.call_efficiency));
        for v in run.pillars.values() {
            prop_assert!(in_unit(v));
        }
        for k in run.pass_k.values() {
            prop_assert!(in_unit(*k));
        }
        prop_assert_eq!(scored.len(), evals.len());
        prop_assert_eq!(run.requested, evals.len());
    }
}
