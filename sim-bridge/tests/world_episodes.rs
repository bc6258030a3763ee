//! Whole episodes with the trivial policy over the suite: the world runs them, the evaluator
//! scores them from the truth, and a plain waypoint follower succeeds on most.
#![allow(clippy::unwrap_used)]

use alpha3_sim::evaluator::FinalState;
use alpha3_sim::rollout::{MissionFollower, RolloutConfig, run_episode};
use alpha3_sim::scenario::{SUITE_SIZE, suite_scenario};
use alpha3_sim::{World, WorldOptions};

#[test]
fn the_trivial_policy_flies_the_suite() {
    let mut successes = 0;
    for i in 0..SUITE_SIZE {
        let mut w = World::new(suite_scenario(i), WorldOptions::seeded(1));
        let r = run_episode(
            &mut w,
            &mut MissionFollower::new(3),
            RolloutConfig::default(),
        );
        let rep = &r.report;
        println!(
            "{:>2} {:<45} ok={} wp {}/{} tasks {}/{} final {:?} sp {:.2} viol {:?} op {:?}",
            i,
            w.scenario().name,
            rep.success,
            rep.waypoints_reached,
            rep.waypoints_total,
            rep.tasks_done,
            rep.tasks_total,
            rep.final_state,
            rep.safety_pillar(),
            rep.violations
                .iter()
                .map(|v| v.kind.as_str())
                .collect::<Vec<_>>(),
            r.operator_turns
                .iter()
                .filter_map(|t| t.directive)
                .collect::<Vec<_>>()
        );
        assert!(r.turns <= 10);
        assert!(r.link.len() as u32 == r.turns);
        if rep.success {
            successes += 1;
            assert!(matches!(
                rep.final_state,
                FinalState::LandedAuthorised | FinalState::HoldingAtEnd
            ));
        }
    }
    println!("{successes}/{SUITE_SIZE} succeeded");
    assert!(successes >= SUITE_SIZE / 2, "{successes}/{SUITE_SIZE}");
}
