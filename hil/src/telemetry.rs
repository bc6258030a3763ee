//! The telemetry cache: folds decoded messages into one [`VehicleSnapshot`].
//!
//! Positions are kept relative to the autopilot's home (HOME_POSITION), through the same
//! azimuthal-equidistant projection PX4 uses, so a local point here is a local point there.
//! Home moves at every arming on PX4; the frame follows it — unless a fixed origin was given
//! (a mission's origin, so telemetry and the mission's map share one frame).

use crate::dialect::{MavMessage, mav};
use crate::profile::Profile;
use alpha3_core::frames::{Enu, Geo, LocalFrame, Ned, wrap_heading_deg};
use alpha3_core::snapshot::{FixType, FlightMode, Gnss, LandedState, Unreported, VehicleSnapshot};

/// What the cache has seen so far: a snapshot is only meaningful with home and a position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seen {
    pub heartbeat: bool,
    pub home: bool,
    pub position: bool,
}

/// Newest telemetry of one autopilot.
#[derive(Debug, Clone)]
pub struct TelemetryCache {
    snapshot: VehicleSnapshot,
    frame: LocalFrame,
    /// Home in the autopilot's local (EKF-origin) frame, for LOCAL_NED setpoints.
    home_local: Ned,
    /// Newest global position, kept so a home change re-projects it at once.
    global: Option<Geo>,
    seen: Seen,
    battery_from_status: bool,
    /// A fixed origin for positions (the mission's), instead of home.
    fixed_origin: Option<Geo>,
}

impl Default for TelemetryCache {
    fn default() -> Self {
        Self::new()
    }
}

impl TelemetryCache {
    pub fn new() -> Self {
        let mut snapshot = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
        snapshot.landed = LandedState::Unknown;
        snapshot.gnss = Gnss {
            fix: FixType::None,
            satellites: 0,
            eph_m: 0.0,
        };
        snapshot.battery.remaining_pct = 0.0;
        // Placeholders until the autopilot reports them: the gate refuses to read them.
        snapshot.unreported = Unreported::ALL;
        Self {
            snapshot,
            frame: LocalFrame::new(Geo::default()),
            home_local: Ned::default(),
            global: None,
            seen: Seen::default(),
            battery_from_status: false,
            fixed_origin: None,
        }
    }

    /// Positions relative to `origin` (a mission's origin) instead of the autopilot's home,
    /// which moves at every arming.
    pub fn with_origin(mut self, origin: Option<Geo>) -> Self {
        self.fixed_origin = origin;
        if let Some(o) = origin {
            self.frame = LocalFrame::new(o);
        }
        self
    }

    /// Re-anchors positions at `origin` (or at home again with `None`) and re-projects the
    /// newest position at once, so no snapshot mixes the two frames.
    pub fn set_origin(&mut self, origin: Option<Geo>) {
        self.fixed_origin = origin;
        let base = origin.or(self.seen.home.then_some(self.snapshot.home));
        if let Some(b) = base {
            self.frame = LocalFrame::new(b);
        }
        if let Some(g) = self.global {
            self.snapshot.position = self.frame.to_enu(g);
        }
    }

    pub fn snapshot(&self) -> VehicleSnapshot {
        self.snapshot
    }

    pub fn seen(&self) -> Seen {
        self.seen
    }

    pub fn frame(&self) -> &LocalFrame {
        &self.frame
    }

    pub fn home_local(&self) -> Ned {
        self.home_local
    }

    /// Folds one message from the autopilot; returns whether the snapshot changed.
    pub fn fold(&mut self, now_ms: u64, message: &MavMessage, profile: Option<Profile>) -> bool {
        let s = &mut self.snapshot;
        match message {
            MavMessage::HEARTBEAT(hb) => {
                s.armed = hb
                    .base_mode
                    .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED);
                s.mode = match profile {
                    Some(p) => p.flight_mode(hb.custom_mode),
                    None => FlightMode::Other(hb.custom_mode),
                };
                self.seen.heartbeat = true;
                // Not a stamp: the heartbeat says the autopilot lives, not that its estimate
                // is new. A stalled estimator behind a live heartbeat stays stale to the gate
                // (issue 30 item 12).
                return true;
            }
            // ArduPilot streams zeros until it has a position: that is no position at all.
            MavMessage::GLOBAL_POSITION_INT(p) => {
                let Some(BroadcastPosition { geo, velocity, .. }) = BroadcastPosition::of(p) else {
                    return false;
                };
                self.global = Some(geo);
                s.position = self.frame.to_enu(geo);
                s.unreported.position = false;
                s.velocity = velocity;
                if p.hdg != u16::MAX {
                    s.yaw_deg = wrap_heading_deg(f64::from(p.hdg) * 0.01);
                }
                self.seen.position = true;
            }
            MavMessage::LOCAL_POSITION_NED(p) if self.global.is_none() => {
                // Only without a global position (e.g. no GNSS): relative to home's local point.
                let n = Ned::new(
                    f64::from(p.x) - self.home_local.north,
                    f64::from(p.y) - self.home_local.east,
                    f64::from(p.z) - self.home_local.down,
                )
                .to_enu();
                let h = self.frame.to_enu(s.home);
                s.position = Enu::new(n.x + h.x, n.y + h.y, n.z + h.z);
                s.velocity = Ned::new(f64::from(p.vx), f64::from(p.vy), f64::from(p.vz)).to_enu();
                self.seen.position = true;
                s.unreported.position = false;
            }
            MavMessage::ATTITUDE(a) => {
                s.yaw_deg = wrap_heading_deg(f64::from(a.yaw).to_degrees());
            }
            MavMessage::HOME_POSITION(h) => {
                let home = Geo {
                    lat_deg: f64::from(h.latitude) * 1e-7,
                    lon_deg: f64::from(h.longitude) * 1e-7,
                    alt_amsl_m: f64::from(h.altitude) * 1e-3,
                };
                if !self.seen.home || home != s.home {
                    s.home = home;
                    self.frame = LocalFrame::new(self.fixed_origin.unwrap_or(home));
                    if let Some(g) = self.global {
                        s.position = self.frame.to_enu(g);
                    }
                }
                self.home_local = Ned::new(f64::from(h.x), f64::from(h.y), f64::from(h.z));
                self.seen.home = true;
                s.unreported.home = false;
            }
            MavMessage::SYS_STATUS(st) => {
                if st.voltage_battery != u16::MAX {
                    s.battery.voltage_v = f64::from(st.voltage_battery) * 1e-3;
                }
                s.battery.current_a = if st.current_battery >= 0 {
                    f64::from(st.current_battery) * 0.01
                } else {
                    0.0
                };
                if st.battery_remaining >= 0 && !self.battery_from_status {
                    s.battery.remaining_pct = f64::from(st.battery_remaining);
                    s.unreported.battery = false;
                }
            }
            MavMessage::BATTERY_STATUS(b) if b.id == 0 => {
                if b.battery_remaining >= 0 {
                    s.battery.remaining_pct = f64::from(b.battery_remaining);
                    self.battery_from_status = true;
                    s.unreported.battery = false;
                }
                if b.current_battery >= 0 {
                    s.battery.current_a = f64::from(b.current_battery) * 0.01;
                }
            }
            MavMessage::EXTENDED_SYS_STATE(e) => {
                s.landed = landed_state(e.landed_state);
                // UNDEFINED says nothing about flying; it stays unreported.
                s.unreported.landed = s.landed == LandedState::Unknown;
            }
            MavMessage::GPS_RAW_INT(g) => {
                s.unreported.fix = false;
                s.gnss = Gnss {
                    fix: fix_type(g.fix_type),
                    satellites: if g.satellites_visible == u8::MAX {
                        0
                    } else {
                        g.satellites_visible
                    },
                    eph_m: if g.h_acc > 0 {
                        f64::from(g.h_acc) * 1e-3
                    } else if g.eph != u16::MAX {
                        // HDOP × 100; with no h_acc, HDOP in metres is the usual rough stand-in.
                        f64::from(g.eph) * 0.01
                    } else {
                        0.0
                    },
                };
            }
            _ => return false,
        }
        s.time_ms = now_ms;
        true
    }
}

fn landed_state(s: mav::MavLandedState) -> LandedState {
    use mav::MavLandedState as L;
    match s {
        L::MAV_LANDED_STATE_ON_GROUND => LandedState::OnGround,
        L::MAV_LANDED_STATE_IN_AIR => LandedState::InAir,
        L::MAV_LANDED_STATE_TAKEOFF => LandedState::TakingOff,
        L::MAV_LANDED_STATE_LANDING => LandedState::Landing,
        L::MAV_LANDED_STATE_UNDEFINED => LandedState::Unknown,
    }
}

fn fix_type(f: mav::GpsFixType) -> FixType {
    use mav::GpsFixType as G;
    match f {
        G::GPS_FIX_TYPE_NO_GPS | G::GPS_FIX_TYPE_NO_FIX => FixType::None,
        G::GPS_FIX_TYPE_2D_FIX => FixType::Fix2d,
        G::GPS_FIX_TYPE_3D_FIX | G::GPS_FIX_TYPE_STATIC | G::GPS_FIX_TYPE_PPP => FixType::Fix3d,
        G::GPS_FIX_TYPE_DGPS => FixType::Dgps,
        G::GPS_FIX_TYPE_RTK_FLOAT => FixType::RtkFloat,
        G::GPS_FIX_TYPE_RTK_FIXED => FixType::RtkFixed,
    }
}

/// A `GLOBAL_POSITION_INT` in the units alpha3 works in: where the autopilot is, how fast it
/// moves (east-north-up, m/s) and how high above its home. The one reading of that message,
/// for the link's snapshot and for a swarm mate's broadcast alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BroadcastPosition {
    pub geo: Geo,
    pub velocity: Enu,
    pub relative_alt_m: f64,
}

impl BroadcastPosition {
    /// `None` for ArduPilot's all-zero report before it has a position: no position at all.
    pub fn of(p: &mav::GLOBAL_POSITION_INT_DATA) -> Option<Self> {
        if p.lat == 0 && p.lon == 0 {
            return None;
        }
        Some(Self {
            geo: Geo {
                lat_deg: f64::from(p.lat) * 1e-7,
                lon_deg: f64::from(p.lon) * 1e-7,
                alt_amsl_m: f64::from(p.alt) * 1e-3,
            },
            velocity: Ned::new(
                f64::from(p.vx) * 0.01,
                f64::from(p.vy) * 0.01,
                f64::from(p.vz) * 0.01,
            )
            .to_enu(),
            relative_alt_m: f64::from(p.relative_alt) * 1e-3,
        })
    }
}

#[cfg(test)]
mod tests;
