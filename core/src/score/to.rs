//! TO — Task Outcome: 1 when the mission was completed, else 0.
//!
//! Published episodes: the file's `success` flag (the published TO mean equals the success rate
//! for every model). Closed loop: the world's mission evaluator, never the model's claim — every
//! objective met and no terminating violation.

use super::evidence::ClosedLoop;
use crate::episode::Episode;

/// TO of one episode.
pub fn task_outcome(episode: &Episode, closed_loop: Option<&ClosedLoop>) -> f64 {
    let done = match closed_loop {
        Some(ev) => ev.mission_complete && !ev.terminated_by_violation,
        None => episode.success,
    };
    if done { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;

    #[test]
    fn published_outcome_is_the_success_flag() {
        let mut e = episode(vec![agent(vec![]), user(vec![])]);
        assert_eq!(task_outcome(&e, None), 1.0);
        e.success = false;
        assert_eq!(task_outcome(&e, None), 0.0);
    }

    #[test]
    fn closed_loop_outcome_comes_from_the_world_not_the_claim() {
        // The episode claims success; the world's evaluator says otherwise.
        let e = episode(vec![agent(vec![])]);
        let ev = ClosedLoop {
            mission_complete: false,
            ..ClosedLoop::default()
        };
        assert_eq!(task_outcome(&e, Some(&ev)), 0.0);
        let ev = ClosedLoop {
            mission_complete: true,
            terminated_by_violation: true,
            ..ClosedLoop::default()
        };
        assert_eq!(task_outcome(&e, Some(&ev)), 0.0);
        let ev = ClosedLoop {
            mission_complete: true,
            ..ClosedLoop::default()
        };
        assert_eq!(task_outcome(&e, Some(&ev)), 1.0);
    }

    #[test]
    fn a_failure_stub_has_no_outcome() {
        assert_eq!(task_outcome(&stub(), None), 0.0);
    }
}
