//! Take-off and landing only at home or an authorised landing site. The one exception is a
//! forced landing: landing in place is allowed when neither home nor any site can be reached
//! with the hard battery reserve left.

use super::energy;
use super::input::Input;
use crate::command::Command;
use crate::gate::context::GateContext;
use crate::gate::geometry::V2;
use crate::gate::ids;
use crate::gate::plan::Plan;
use crate::gate::verdict::{Finding, Findings, push_finding};

/// Home and the sites, as horizontal points.
fn sites(ctx: &GateContext) -> impl Iterator<Item = V2> + '_ {
    std::iter::once(V2::new(ctx.home.x, ctx.home.y)).chain(ctx.landing_sites.iter().copied())
}

/// Distance from `p` to the nearest authorised site.
fn nearest_site_m(ctx: &GateContext, p: V2) -> f64 {
    sites(ctx)
        .map(|s| (s - p).norm())
        .fold(f64::INFINITY, f64::min)
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let ctx = input.ctx;
    let here = input.snap.position;
    let here = V2::new(here.x, here.y);
    let radius = ctx.tuning.site_radius_m;
    let (id, spot, reason) = match *input.command {
        Command::Takeoff { .. } => (
            ids::SITE_TAKEOFF_UNAUTHORISED,
            here,
            "take off only at home or an authorised site",
        ),
        Command::Land { site: Some([x, y]) } => (
            ids::SITE_LANDING_UNAUTHORISED,
            V2::new(x, y),
            "land only at home or an authorised site",
        ),
        Command::Land { site: None } => (
            ids::SITE_LANDING_UNAUTHORISED,
            here,
            "land only at home or an authorised site (none is out of reach)",
        ),
        _ => return,
    };
    let distance = nearest_site_m(ctx, spot);
    if distance <= radius {
        return;
    }
    if matches!(input.command, Command::Land { site: None }) && forced_landing(input) {
        return;
    }
    push_finding(out, Finding::deny(id, reason, radius, distance));
}

/// True when no site can be reached with the hard reserve left.
fn forced_landing(input: &Input<'_>) -> bool {
    let ctx = input.ctx;
    let hard = ctx.limits.hard_reserve_battery_pct;
    let reachable = sites(ctx).any(|s| {
        let land_there = Command::Land {
            site: Some([s.x, s.y]),
        };
        let cruise = ctx.vehicle.cruise_speed_mps;
        Plan::for_command(ctx, input.snap, &land_there, cruise, input.now_ms)
            .is_ok_and(|plan| energy::remaining_pct(ctx, input.snap, &plan, 0.0) >= hard)
    });
    !reachable
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::Enu;
    use crate::gate::testkit::*;

    #[test]
    fn take_off_and_land_at_home_or_a_site_only() {
        let ctx = open_field().with_landing_site(Enu::new(300.0, 0.0, 0.0));
        assert!(
            deny_ids(
                &ctx,
                &on_ground(3.0, 4.0),
                Command::Takeoff { altitude_m: 30.0 }
            )
            .is_empty()
        );
        let f = only_finding(
            &ctx,
            &on_ground(30.0, 40.0),
            Command::Takeoff { altitude_m: 30.0 },
        );
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::SITE_TAKEOFF_UNAUTHORISED, 5.0, 50.0)
        );
        let snap = hovering(100.0, 0.0, 30.0);
        assert!(
            deny_ids(
                &ctx,
                &snap,
                Command::Land {
                    site: Some([298.0, 0.0])
                }
            )
            .is_empty()
        );
        let f = only_finding(
            &ctx,
            &snap,
            Command::Land {
                site: Some([200.0, 0.0]),
            },
        );
        assert_eq!((f.id, f.measured), (ids::SITE_LANDING_UNAUTHORISED, 100.0));
        let f = only_finding(&ctx, &snap, Command::Land { site: None });
        assert_eq!((f.id, f.measured), (ids::SITE_LANDING_UNAUTHORISED, 100.0));
    }

    #[test]
    fn a_forced_landing_in_place_is_allowed_when_no_site_is_in_reach() {
        // 100 m from home at 30 m: the way home takes about 10 s cruise + 15 s descent + waits,
        // ~1.7 Wh at 200 W. With 11 % of 100 Wh and a 10 % hard reserve that is out of reach.
        let ctx = open_field();
        let mut snap = hovering(100.0, 0.0, 30.0);
        snap.battery.remaining_pct = 11.0;
        assert!(deny_ids(&ctx, &snap, Command::Land { site: None }).is_empty());
        snap.battery.remaining_pct = 50.0;
        assert_eq!(
            deny_ids(&ctx, &snap, Command::Land { site: None }),
            [ids::SITE_LANDING_UNAUTHORISED]
        );
    }
}
