//! Command translation: any command (numbers of flight size, or any bit pattern) in any
//! vehicle situation, for both autopilot profiles, and every message of the resulting procedure
//! encoded as a frame.
//!
//! Invariants: no panic (a non-finite number is a typed error); a procedure is for the command asked
//! and every message it sends encodes.

use crate::bytes::Bytes;
use crate::mavlink_session::command;
use alpha3_core::frames::{Enu, Geo, LocalFrame, Ned};
use alpha3_core::snapshot::{FlightMode, LandedState, VehicleSnapshot};
use alpha3_hil::command::Target;
use alpha3_hil::profile::Profile;
use alpha3_hil::translate::{Context, GotoMethod, Step, translate};
use alpha3_hil::wire::Encoder;

fn snapshot(b: &mut Bytes<'_>, home: Geo) -> VehicleSnapshot {
    let mut s = VehicleSnapshot::on_ground_at_home(home, u64::from(b.u32()));
    let flags = b.u8();
    s.armed = flags & 1 != 0;
    s.landed = match (flags >> 1) % 5 {
        0 => LandedState::OnGround,
        1 => LandedState::InAir,
        2 => LandedState::TakingOff,
        3 => LandedState::Landing,
        _ => LandedState::Unknown,
    };
    s.mode = match (flags >> 4) % 6 {
        0 => FlightMode::Hold,
        1 => FlightMode::Offboard,
        2 => FlightMode::Takeoff,
        3 => FlightMode::Land,
        4 => FlightMode::Return,
        _ => FlightMode::Other(b.u32()),
    };
    s.position = Enu::new(b.coordinate(), b.coordinate(), b.coordinate());
    s.velocity = Enu::new(b.coordinate(), b.coordinate(), b.coordinate());
    s.yaw_deg = b.coordinate();
    s.battery.remaining_pct = b.coordinate();
    s
}

pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let c = command(&mut b);
    let home = Geo {
        lat_deg: b.coordinate() / 30.0,
        lon_deg: b.coordinate() / 15.0,
        alt_amsl_m: b.coordinate(),
    };
    let ctx = Context {
        target: Target {
            system: b.u8(),
            component: b.u8(),
        },
        snapshot: snapshot(&mut b, home),
        frame: LocalFrame::new(home),
        home_local: Ned {
            north: b.coordinate(),
            east: b.coordinate(),
            down: b.coordinate(),
        },
        goto: if b.u8() & 1 == 0 {
            GotoMethod::Reposition
        } else {
            GotoMethod::Offboard
        },
        streaming: b.u8() & 1 == 1,
        arm_ready_ms: u64::from(b.u16()),
        arm_interval_ms: u64::from(b.u16()),
        arrive_timeout_ms: u64::from(b.u32()),
        cruise_speed_mps: None,
    };
    let mut encoder = Encoder::new(1, None);
    let mut out = Vec::new();
    for profile in [Profile::Px4, Profile::ArduPilot] {
        let Ok(procedure) = translate(&c, profile, &ctx) else {
            continue;
        };
        assert_eq!(procedure.command, c.name(), "a plan for another command");
        for step in &procedure.steps {
            let message = match step {
                Step::Send(m) | Step::Stream { setpoint: m, .. } => Some(m.clone()),
                Step::Command(spec) => Some(spec.to_message(ctx.target, 1)),
                Step::StopStream | Step::Await { .. } => None,
            };
            if let Some(m) = message {
                out.clear();
                encoder.encode(191, &m, 0, &mut out);
            }
        }
    }
}
