//! The path model: how a command becomes legs in space and pieces in time.
//!
//! **Space.** A command is flown as up to three straight legs (e.g. return: climb, cruise,
//! descend). The first leg starts with the current velocity, so the vehicle may first coast to
//! its stopping point `S = P0 + v·|v|/2a` (per axis: horizontal and vertical) before it turns;
//! every point it can reach on that leg lies in the triangle `P0, S, T`, which lies within a
//! radius `(1 − t)·|S − P0|` of the chord point `P0 + t·(T − P0)`. So the first leg is checked
//! with a margin that tapers from `u + |S − P0|` at the start to `u` at the target, where `u`
//! is the position uncertainty (`limits.position_uncertainty_m`, or twice the GNSS EPH when
//! larger). Later legs start at rest and keep `u`.
//!
//! **Time.** A leg flown with a trapezoid speed profile (accelerate at `a`, cruise at `v`,
//! brake at `a`) is modelled as: wait `t_d`, fly straight at `v`, wait `v/2a`. `t_d` is chosen
//! so that the model and the trapezoid coincide at cruise, starting from the current
//! along-track speed; they then never differ by more than `ε` along the track (`v²/8a` from
//! rest). Time-dependent checks (moving zones, traffic, peers) use these pieces with a margin of
//! `u + ε` (plus `|S − P0|` on the first leg), and the vehicle is assumed to hold at the target
//! for the hover horizon afterwards (`horizon::hover_horizon_s`: the tuning's hold horizon, at
//! least the time a move out of the way takes plus the watchdog's reaction).
//!
//! Ground speed is the commanded (or cruise) speed, reduced when the wind would need more
//! airspeed than the airframe has.

use super::autopilot;
use super::context::GateContext;
use super::geometry::Seg;
use super::horizon;
use super::ids;
use super::profile::{headway, start_profile};
use super::verdict::Finding;
use crate::command::Command;
use crate::snapshot::{FlightMode, LandedState, VehicleSnapshot};
use nalgebra::Vector3;

pub(crate) type V3 = Vector3<f64>;

/// Return: climb, cruise, descend, descend slowly.
pub(crate) const MAX_LEGS: usize = 4;
pub(crate) const MAX_PIECES: usize = 3 * MAX_LEGS + 1;

/// Whether the altitude band applies to a leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Band {
    Checked,
    /// Take-off and landing: below the band is allowed, above is not.
    ExemptBelow,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Leg {
    pub from: V3,
    pub to: V3,
    /// Extra margin at the leg's start that shrinks to 0 at its end (stopping distance).
    pub taper_h: f64,
    pub taper_v: f64,
    pub band: Band,
    /// Cruise velocity on the leg.
    pub velocity: V3,
    /// Velocity when the leg begins (the current one on the first leg, else rest).
    pub entry_velocity: V3,
    pub duration_s: f64,
}

impl Leg {
    pub fn seg(&self) -> Seg {
        Seg::new(self.from.xy(), self.to.xy())
    }
}

/// A stretch of the timeline with straight motion from `from` (at `t0`) to `to` (at `t1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Piece {
    pub t0: f64,
    pub t1: f64,
    pub from: V3,
    pub to: V3,
    pub margin_h: f64,
    pub margin_v: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    pub start: V3,
    /// The stopping point from the current velocity.
    pub stop: V3,
    pub uncertainty_m: f64,
    pub legs: heapless::Vec<Leg, MAX_LEGS>,
    pub pieces: heapless::Vec<Piece, MAX_PIECES>,
    /// The plan ends on the ground (no hold afterwards, no way home needed).
    pub ends_landed: bool,
    pub now_ms: u64,
    /// Scenario time at `now_ms`, seconds.
    pub scenario_s: f64,
}

impl Plan {
    /// The path of `command` from the vehicle's state. Commands that do not move the vehicle
    /// give an empty plan.
    pub fn for_command(
        ctx: &GateContext,
        snap: &VehicleSnapshot,
        command: &Command,
        cruise_mps: f64,
        now_ms: u64,
    ) -> Result<Plan, Finding> {
        let p0 = snap.position.to_vector();
        let mut b = Builder::new(
            ctx,
            p0,
            snap.velocity.to_vector(),
            uncertainty_m(ctx, snap),
            now_ms,
        );
        let here = |z: f64| V3::new(p0.x, p0.y, z);
        match *command {
            Command::Takeoff { altitude_m } => {
                b.leg(here(altitude_m), Band::ExemptBelow, cruise_mps)?
            }
            Command::GoTo { target, speed_mps } => b.leg(
                target.to_vector(),
                Band::Checked,
                speed_mps.unwrap_or(cruise_mps),
            )?,
            Command::SetAltitude { altitude_m } => {
                b.leg(here(altitude_m), Band::Checked, cruise_mps)?
            }
            Command::ReturnToHome => b.return_home()?,
            Command::Land { site } => {
                if let Some([x, y]) = site {
                    b.leg(V3::new(x, y, p0.z), Band::Checked, cruise_mps)?;
                }
                b.land(0.0)?;
            }
            _ => {}
        }
        Ok(b.finish())
    }

    /// The way home from `from`, starting at rest (for the energy reserve).
    pub fn home_from(
        ctx: &GateContext,
        from: V3,
        uncertainty_m: f64,
        now_ms: u64,
    ) -> Result<Plan, Finding> {
        let mut b = Builder::new(ctx, from, V3::zeros(), uncertainty_m, now_ms);
        b.return_home()?;
        Ok(b.finish())
    }

    /// Straight on at the current velocity for the breach horizon, margin `u` only. A vehicle
    /// that is landing (land mode, or the landing state) may go below the band, as a landing
    /// leg may: its descent is the landing, not a breach.
    pub fn coast(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Plan {
        let p0 = snap.position.to_vector();
        let v0 = snap.velocity.to_vector();
        let horizon = ctx.tuning.breach_horizon_s;
        let u = uncertainty_m(ctx, snap);
        let b = Builder::new(ctx, p0, v0, u, now_ms);
        let mut plan = b.plan;
        plan.stop = p0;
        let end = p0 + v0 * horizon;
        let leg = Leg {
            from: p0,
            to: end,
            taper_h: 0.0,
            taper_v: 0.0,
            band: if snap.mode == FlightMode::Land || snap.landed == LandedState::Landing {
                Band::ExemptBelow
            } else {
                Band::Checked
            },
            velocity: v0,
            entry_velocity: v0,
            duration_s: horizon,
        };
        let piece = Piece {
            t0: 0.0,
            t1: horizon,
            from: p0,
            to: end,
            margin_h: u,
            margin_v: 0.0,
        };
        let _ = plan.legs.push(leg);
        let _ = plan.pieces.push(piece);
        plan.ends_landed = true;
        plan
    }

    /// Where the plan ends.
    pub fn end(&self) -> V3 {
        self.legs.last().map_or(self.start, |l| l.to)
    }

    /// Whether the plan moves the vehicle at all.
    pub fn is_empty(&self) -> bool {
        self.legs.is_empty()
    }
}

/// The position uncertainty `u` for this snapshot.
pub(crate) fn uncertainty_m(ctx: &GateContext, snap: &VehicleSnapshot) -> f64 {
    ctx.limits.position_uncertainty_m.max(2.0 * snap.gnss.eph_m)
}

struct Builder<'a> {
    ctx: &'a GateContext,
    plan: Plan,
    clock_s: f64,
    at: V3,
    entry: V3,
    last_eps: f64,
}

impl<'a> Builder<'a> {
    fn new(ctx: &'a GateContext, p0: V3, v0: V3, u: f64, now_ms: u64) -> Self {
        let a = ctx.vehicle.max_accel_mps2;
        let stop = V3::new(
            p0.x + v0.x * v0.xy().norm() / (2.0 * a),
            p0.y + v0.y * v0.xy().norm() / (2.0 * a),
            p0.z + v0.z * v0.z.abs() / (2.0 * a),
        );
        let plan = Plan {
            start: p0,
            stop,
            uncertainty_m: u,
            legs: heapless::Vec::new(),
            pieces: heapless::Vec::new(),
            ends_landed: false,
            now_ms,
            scenario_s: ctx.scenario_s(now_ms),
        };
        Self {
            ctx,
            plan,
            clock_s: 0.0,
            at: p0,
            entry: v0,
            last_eps: 0.0,
        }
    }

    fn leg(&mut self, to: V3, band: Band, speed_mps: f64) -> Result<(), Finding> {
        self.leg_descending_at_most(to, band, speed_mps, self.ctx.vehicle.max_descent_mps)
    }

    /// A leg whose descent rate is at most `descent_mps` (a landing's slow final part).
    fn leg_descending_at_most(
        &mut self,
        to: V3,
        band: Band,
        speed_mps: f64,
        descent_mps: f64,
    ) -> Result<(), Finding> {
        let v = &self.ctx.vehicle;
        let a = v.max_accel_mps2;
        let from = self.at;
        let d = to - from;
        let (l3, lh, dz) = (d.norm(), d.xy().norm(), d.z);
        let ground = self.ground_speed(from, to, speed_mps)?;
        let t_h = if lh > 0.0 { lh / ground } else { 0.0 };
        let rate = if dz > 0.0 {
            v.max_climb_mps
        } else {
            descent_mps.min(v.max_descent_mps)
        };
        let t_cruise = t_h.max(dz.abs() / rate);
        let v_e = if l3 > 0.0 && t_cruise > 0.0 {
            (l3 / t_cruise).min((a * l3).sqrt())
        } else {
            0.0
        };
        let dir = if l3 > 0.0 { d / l3 } else { V3::zeros() };
        let (t_wait, eps_start) = start_profile(self.entry.dot(&dir), v_e, a);
        let t_move = if v_e > 0.0 { l3 / v_e } else { 0.0 };
        let t_brake = v_e / (2.0 * a);
        let eps = eps_start.max(v_e * v_e / (8.0 * a));
        let first = self.plan.legs.is_empty();
        let (taper_h, taper_v) = if first {
            let s = self.plan.stop - self.plan.start;
            (s.xy().norm(), s.z.abs())
        } else {
            (0.0, 0.0)
        };
        let (margin_h, margin_v) = (self.plan.uncertainty_m + taper_h + eps, taper_v + eps);
        let t0 = self.clock_s;
        for (start, dur, p, q) in [
            (t0, t_wait, from, from),
            (t0 + t_wait, t_move, from, to),
            (t0 + t_wait + t_move, t_brake, to, to),
        ] {
            if dur > 0.0 {
                let piece = Piece {
                    t0: start,
                    t1: start + dur,
                    from: p,
                    to: q,
                    margin_h,
                    margin_v,
                };
                let _ = self.plan.pieces.push(piece);
            }
        }
        let leg = Leg {
            from,
            to,
            taper_h,
            taper_v,
            band,
            velocity: dir * v_e,
            entry_velocity: self.entry,
            duration_s: t_wait + t_move + t_brake,
        };
        // Capacity: no command expands to more than MAX_LEGS legs.
        debug_assert!(!self.plan.legs.is_full());
        let _ = self.plan.legs.push(leg);
        self.clock_s = t0 + leg.duration_s;
        self.at = to;
        self.entry = V3::zeros();
        self.last_eps = eps;
        Ok(())
    }

    /// The ground speed along `from → to`: the asked speed, or less when the wind needs more
    /// airspeed than the airframe has.
    fn ground_speed(&self, from: V3, to: V3, asked_mps: f64) -> Result<f64, Finding> {
        let air_max = self.ctx.vehicle.max_speed_mps - self.ctx.wind.gust_mps();
        let dir = (to - from).xy();
        let n = dir.norm();
        let best = self
            .ctx
            .wind
            .extremes(from.z, to.z)
            .map(|z| {
                let w = self.ctx.wind.at(z);
                if n > 0.0 {
                    headway(dir / n, w, air_max)
                } else if w.norm() < air_max {
                    f64::INFINITY
                } else {
                    0.0
                }
            })
            .fold(f64::INFINITY, f64::min);
        let min = self.ctx.tuning.min_ground_speed_mps;
        if best < min {
            return Err(Finding::deny(
                ids::ENERGY_WIND,
                "the wind leaves too little ground speed",
                min,
                best,
            ));
        }
        Ok(asked_mps.min(best))
    }

    /// The autopilot's return ([`autopilot`]): straight up to the return altitude when below
    /// it, straight home, land.
    fn return_home(&mut self) -> Result<(), Finding> {
        let home = self.ctx.home;
        let cruise = self.ctx.vehicle.cruise_speed_mps;
        let z = autopilot::return_cruise_altitude_m(self.at.z, self.ctx.limits.return_altitude_m);
        if z != self.at.z {
            self.leg(V3::new(self.at.x, self.at.y, z), Band::Checked, cruise)?;
        }
        self.leg(V3::new(home.x, home.y, z), Band::Checked, cruise)?;
        self.land(home.z)
    }

    /// The autopilot's landing ([`autopilot`]): at the maximum descent rate down to
    /// `LAND_SLOW_BELOW_M` above the ground, then at the landing speed.
    fn land(&mut self, ground_z: f64) -> Result<(), Finding> {
        let cruise = self.ctx.vehicle.cruise_speed_mps;
        let slow_from = ground_z + autopilot::LAND_SLOW_BELOW_M;
        if self.at.z > slow_from {
            self.leg(
                V3::new(self.at.x, self.at.y, slow_from),
                Band::ExemptBelow,
                cruise,
            )?;
        }
        let slow = autopilot::land_speed_mps(self.ctx.vehicle.max_descent_mps);
        self.leg_descending_at_most(
            V3::new(self.at.x, self.at.y, ground_z),
            Band::ExemptBelow,
            cruise,
            slow,
        )?;
        self.plan.ends_landed = true;
        Ok(())
    }

    fn finish(mut self) -> Plan {
        if !self.plan.ends_landed && !self.plan.legs.is_empty() {
            // A single leg may end before the braking from the current velocity does.
            let (taper_h, taper_v) = match self.plan.legs.as_slice() {
                [only] => (only.taper_h, only.taper_v),
                _ => (0.0, 0.0),
            };
            let piece = Piece {
                t0: self.clock_s,
                t1: self.clock_s + horizon::hover_horizon_s(self.ctx),
                from: self.at,
                to: self.at,
                margin_h: self.plan.uncertainty_m + self.last_eps + taper_h,
                margin_v: self.last_eps + taper_v,
            };
            let _ = self.plan.pieces.push(piece);
        }
        self.plan
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::frames::Enu;

    fn plan(snap: &VehicleSnapshot, c: Command) -> Plan {
        Plan::for_command(&open_field(), snap, &c, 10.0, NOW).unwrap()
    }

    #[test]
    fn a_go_to_from_rest_waits_flies_brakes_and_holds() {
        // 100 m at 10 m/s with a = 2.5: wait 2 s, fly 10 s, brake 2 s, then hold 13 s (a move
        // out of the way, 2·20/10 + 10/2.5 = 8 s, plus the watchdog's 5 s, over the tuning's
        // 10 s); the
        // time margin is u + v²/8a = 2 + 5 m.
        let p = plan(&hovering(0.0, 0.0, 30.0), go(100.0, 0.0, 30.0));
        let spans: Vec<_> = p
            .pieces
            .iter()
            .map(|q| (q.t0, q.t1, q.margin_h, q.margin_v))
            .collect();
        assert_eq!(
            spans,
            [
                (0.0, 2.0, 7.0, 5.0),
                (2.0, 12.0, 7.0, 5.0),
                (12.0, 14.0, 7.0, 5.0),
                (14.0, 27.0, 7.0, 5.0)
            ]
        );
        assert_eq!(p.legs[0].velocity, V3::new(10.0, 0.0, 0.0));
        assert!(!p.ends_landed);
    }

    #[test]
    fn the_stopping_point_is_per_axis() {
        let mut snap = hovering(0.0, 0.0, 30.0);
        snap.velocity = Enu::new(10.0, 0.0, -2.0);
        let p = plan(&snap, go(0.0, 100.0, 30.0));
        // 10²/(2·2.5) = 20 m east, 2²/5 = 0.8 m down.
        assert!(
            (p.stop - V3::new(20.0, 0.0, 29.2)).norm() < 1e-12,
            "{:?}",
            p.stop
        );
        assert!((p.legs[0].taper_h - 20.0).abs() < 1e-12);
    }

    #[test]
    fn return_climbs_to_the_return_altitude_flies_home_and_lands() {
        let p = plan(&hovering(100.0, 0.0, 30.0), Command::ReturnToHome);
        let ends: Vec<_> = p.legs.iter().map(|l| (l.to, l.band)).collect();
        assert_eq!(
            ends,
            [
                (V3::new(100.0, 0.0, 50.0), Band::Checked),
                (V3::new(0.0, 0.0, 50.0), Band::Checked),
                (V3::new(0.0, 0.0, 10.0), Band::ExemptBelow),
                (V3::new(0.0, 0.0, 0.0), Band::ExemptBelow)
            ]
        );
        // The last 10 m at the landing speed, as the autopilot flies it.
        let slow = p.legs[3];
        assert_eq!(slow.velocity, V3::new(0.0, 0.0, -autopilot::LAND_SPEED_MPS));
        // Above the return altitude it goes home at its own.
        let high = plan(&hovering(100.0, 0.0, 80.0), Command::ReturnToHome);
        assert_eq!(high.legs[0].to, V3::new(0.0, 0.0, 80.0));
        assert!(p.ends_landed);
        assert_eq!(
            p.pieces.last().map(|q| q.to),
            Some(V3::zeros()),
            "no hold after landing"
        );
    }
}
