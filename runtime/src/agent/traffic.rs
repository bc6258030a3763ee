//! The gate's copy of other aircraft's plans ([`crate::episode_setup::plans`]) during an
//! episode, and when it is fetched again.

use alpha3_core::gate::{GateContext, PeerPlan};

/// How long the gate's copy of the plans serves before it is fetched again even when nothing
/// changed: well inside the copy's horizon
/// ([`HORIZON_S`](crate::episode_setup::plans::HORIZON_S)), ms.
const PLANS_MAX_AGE_MS: u64 = 60_000;

/// The gate's copy of other aircraft's plans: which traffic revision it is of, and when it
/// was fetched. It goes stale when a plan changes (a swarm member stops to yield: the world's
/// traffic revision moves) and when it grows old.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PlansCopy {
    from: Option<(u64, u64)>,
}

impl PlansCopy {
    /// Gives `gate` the plans from `fetch` unless its copy is of `revision` and younger than
    /// [`PLANS_MAX_AGE_MS`] at `now_ms`. Returns whether it fetched.
    pub fn refresh(
        &mut self,
        gate: &mut GateContext,
        revision: u64,
        now_ms: u64,
        fetch: impl FnOnce() -> Vec<PeerPlan>,
    ) -> bool {
        let fresh = self
            .from
            .is_some_and(|(r, at)| r == revision && now_ms >= at && now_ms - at < PLANS_MAX_AGE_MS);
        if fresh {
            return false;
        }
        if let Err(e) = gate.set_peer_plans(fetch()) {
            tracing::warn!("traffic plans not usable by the gate: {e}");
        }
        self.from = Some((revision, now_ms));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode_setup::{EpisodeSettings, shipped_vehicle};
    use alpha3_core::frames::Enu;
    use alpha3_core::gate::PlanKnot;

    fn gate() -> GateContext {
        GateContext::new(EpisodeSettings::default().limits, shipped_vehicle()).unwrap()
    }

    fn one_plan(peer: &str) -> Vec<PeerPlan> {
        vec![PeerPlan {
            peer: peer.into(),
            knots: vec![PlanKnot {
                time_ms: 0,
                position: Enu::new(0.0, 0.0, 50.0),
            }],
            radius_m: 0.0,
        }]
    }

    #[test]
    fn the_gates_copy_is_fetched_again_when_a_plan_changed_or_it_grew_old() {
        let (mut g, mut copy) = (gate(), PlansCopy::default());
        assert!(copy.refresh(&mut g, 0, 1_000, || one_plan("swarm-1")));
        assert_eq!(g.peer_plans()[0].peer, "swarm-1");
        assert!(!copy.refresh(&mut g, 0, 30_000, || one_plan("stale")));
        assert_eq!(
            g.peer_plans()[0].peer,
            "swarm-1",
            "unchanged and young: kept"
        );
        assert!(copy.refresh(&mut g, 1, 30_000, || one_plan("yielded")));
        assert_eq!(g.peer_plans()[0].peer, "yielded", "a plan changed");
        assert!(copy.refresh(&mut g, 1, 90_000, || one_plan("later")));
        assert_eq!(g.peer_plans()[0].peer, "later", "60 s old");
    }
}
