//! What the gate knows of other aircraft: each one's intent over the next minutes as a plan
//! (cooperative peers share theirs over A2A; other traffic's is known from its broadcast track
//! and filed route, as Remote ID/ADS-B give it), and moving obstacles as plans with their
//! radius (separation counts from their surface, as the truth measures it).

use alpha3_core::frames::Enu;
use alpha3_core::gate::{PeerPlan, PlanKnot};
use alpha3_core::scenario::Scenario;
use alpha3_sim::World;
use alpha3_sim::scenario::moving_obstacles;
use alpha3_sim::traffic::Traffic;

/// How far ahead plans are known, and how densely they are sampled.
pub const HORIZON_S: f64 = 240.0;
const STEP_S: f64 = 2.0;

/// Plans of every aircraft and moving obstacle in `world`, from now on.
pub fn known_plans(world: &World) -> Vec<PeerPlan> {
    let t0 = world.now_s();
    plans_over(
        world.traffic(),
        world.scenario(),
        t0,
        t0 + HORIZON_S,
        STEP_S,
    )
}

/// Plans of every aircraft in `traffic` and moving obstacle in `scenario`, sampled every
/// `step_s` from scenario time `t0_s` to `t1_s`. Obstacle ids are `obstacle-<i>`.
pub fn plans_over(
    traffic: &Traffic,
    scenario: &Scenario,
    t0_s: f64,
    t1_s: f64,
    step_s: f64,
) -> Vec<PeerPlan> {
    let step_s = step_s.max(0.1);
    let times: Vec<f64> = (0..=(((t1_s - t0_s).max(0.0) / step_s) as usize))
        .map(|i| t0_s + i as f64 * step_s)
        .collect();
    let knots = |times: &[f64], at: &dyn Fn(f64) -> Enu| -> Vec<PlanKnot> {
        let mut knots: Vec<PlanKnot> = times
            .iter()
            .map(|&t| PlanKnot {
                time_ms: (t * 1000.0).round() as u64,
                position: at(t),
            })
            .collect();
        knots.dedup_by_key(|k| k.time_ms);
        knots
    };
    // An aircraft's plan also carries its own turns and stops (wall bounces, waypoints, a
    // swarm member's hold), so the shared plan is its path exactly, not a chord across a turn.
    let mut plans: Vec<PeerPlan> = traffic
        .aircraft
        .iter()
        .map(|a| {
            let mut at_times = times.clone();
            at_times.extend(a.plan.breakpoints(t0_s, t1_s));
            at_times.sort_by(f64::total_cmp);
            PeerPlan {
                peer: a.id.clone(),
                knots: knots(&at_times, &|t| {
                    let p = a.plan.position_at(t);
                    Enu::new(p[0], p[1], p[2])
                }),
                radius_m: 0.0,
            }
        })
        .collect();
    for (i, o) in moving_obstacles(scenario).iter().enumerate() {
        plans.push(PeerPlan {
            peer: format!("obstacle-{i}"),
            knots: knots(&times, &|t| o.center_at(t)),
            radius_m: if o.radius_m.is_finite() {
                o.radius_m.max(0.0)
            } else {
                0.0
            },
        });
    }
    plans
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_sim::traffic::{Aircraft, FlightPlan};

    #[test]
    fn a_shared_plan_carries_the_turns_between_its_samples() {
        // Bouncing off the wall at x = 105 at t = 1.25 s, between the 2 s samples: a plan
        // sampled only every 2 s would cut the corner by 10 m.
        let traffic = Traffic {
            aircraft: vec![Aircraft {
                id: "uav-1".into(),
                kind: "uav".into(),
                plan: FlightPlan::Bounce {
                    start: [95.0, 0.0, 50.0],
                    velocity: [8.0, 0.0, 0.0],
                    bounds: [-200.0, -200.0, 105.0, 200.0],
                },
                cooperative: true,
            }],
        };
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/scenarios/sc-0000.json"
        );
        let scenario = alpha3_sim::scenario::read_scenario(std::path::Path::new(path)).unwrap();
        let plans = plans_over(&traffic, &scenario, 0.0, 10.0, 2.0);
        let knots = &plans[0].knots;
        assert!(knots.windows(2).all(|w| w[0].time_ms < w[1].time_ms));
        assert!(knots.iter().any(|k| k.time_ms == 1_250));
        for i in 0..=100 {
            let t = f64::from(i) * 0.1;
            let j = knots
                .partition_point(|k| k.time_ms as f64 / 1000.0 <= t)
                .clamp(1, knots.len() - 1);
            let (a, b) = (&knots[j - 1], &knots[j]);
            let (ta, tb) = (a.time_ms as f64 / 1000.0, b.time_ms as f64 / 1000.0);
            let f = ((t - ta) / (tb - ta)).clamp(0.0, 1.0);
            let x = a.position.x + (b.position.x - a.position.x) * f;
            let truth = traffic.aircraft[0].plan.position_at(t)[0];
            assert!((x - truth).abs() < 1e-6, "t {t}: shared {x}, flown {truth}");
        }
    }
}
