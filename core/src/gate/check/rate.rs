//! Rate limit: a token bucket of `max_commands_per_s` tokens per second holding at most
//! `max(1, max_commands_per_s)`. Only commands that pass take a token (a burst of denials must
//! not lock the vehicle out), and `hold` never needs one.

use super::input::Input;
use crate::gate::context::GateContext;
use crate::gate::ids;
use crate::gate::memory::RateState;
use crate::gate::verdict::{Finding, Findings, push_finding};

fn capacity(ctx: &GateContext) -> f64 {
    ctx.limits.max_commands_per_s.max(1.0)
}

/// Tokens available at `now_ms` (time going backwards refills nothing).
fn available(state: &RateState, ctx: &GateContext, now_ms: u64) -> f64 {
    match state.last_ms {
        None => capacity(ctx),
        Some(last) => {
            let elapsed_s = now_ms.saturating_sub(last) as f64 / 1000.0;
            (state.tokens + elapsed_s * ctx.limits.max_commands_per_s).min(capacity(ctx))
        }
    }
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let state = &input.state.rate;
    if available(state, input.ctx, input.now_ms) >= 1.0 {
        return;
    }
    // The rate this command would make against the previous one.
    let gap_s = state.last_ms.map_or(1.0, |l| {
        input.now_ms.saturating_sub(l).max(1) as f64 / 1000.0
    });
    push_finding(
        out,
        Finding::deny(
            ids::RATE_EXCEEDED,
            "too many commands: wait before the next",
            input.ctx.limits.max_commands_per_s,
            1.0 / gap_s,
        ),
    );
}

/// Takes a token for an approved command.
pub(crate) fn consume(state: &mut RateState, ctx: &GateContext, now_ms: u64) {
    let tokens = (available(state, ctx, now_ms) - 1.0).max(0.0);
    *state = RateState {
        last_ms: Some(now_ms.max(state.last_ms.unwrap_or(0))),
        tokens,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Command;
    use crate::gate::testkit::*;
    use crate::gate::{GateState, Verdict, evaluate};
    use crate::snapshot::VehicleSnapshot;

    #[test]
    fn a_burst_beyond_the_bucket_is_refused_until_it_refills() {
        // 5 commands/s: five pass at once, the sixth waits 200 ms.
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let mut state = GateState::default();
        let yaw = Command::SetYaw { yaw_deg: 90.0 };
        for _ in 0..5 {
            assert!(
                evaluate(&ctx, &snap, &yaw, NOW, &mut state)
                    .approved()
                    .is_some()
            );
        }
        let v = evaluate(&ctx, &snap, &yaw, NOW + 100, &mut state);
        let f = v.findings()[0];
        assert_eq!((f.id, f.limit, f.measured), (ids::RATE_EXCEEDED, 5.0, 10.0));
        let before = state;
        assert!(
            evaluate(&ctx, &snap, &Command::Hold, NOW + 100, &mut state)
                .approved()
                .is_some()
        );
        assert_eq!(state, before, "hold takes no token");
        assert!(
            evaluate(&ctx, &snap, &yaw, NOW + 200, &mut state)
                .approved()
                .is_some()
        );
    }

    #[test]
    fn denied_commands_take_no_token() {
        let ctx = GateContext::new(
            crate::config::Limits {
                max_commands_per_s: 0.5,
                ..limits()
            },
            vehicle(),
        )
        .unwrap();
        let snap = hovering(0.0, 0.0, 30.0);
        let mut state = GateState::default();
        let bad = Command::SetSpeed { speed_mps: 99.0 };
        assert!(matches!(
            evaluate(&ctx, &snap, &bad, NOW, &mut state),
            Verdict::Denied(_)
        ));
        let ok = Command::SetSpeed { speed_mps: 5.0 };
        assert!(
            evaluate(&ctx, &snap, &ok, NOW, &mut state)
                .approved()
                .is_some()
        );
        assert_eq!(state.cruise_speed_mps, Some(5.0));
        // Half a token per second: the next one needs 2 s.
        let at = |t: u64| VehicleSnapshot { time_ms: t, ..snap };
        let late = NOW + 1_999;
        assert!(
            evaluate(&ctx, &at(late), &ok, late, &mut state)
                .approved()
                .is_none()
        );
        let later = NOW + 2_000;
        assert!(
            evaluate(&ctx, &at(later), &ok, later, &mut state)
                .approved()
                .is_some()
        );
    }
}
