//! MAVLink ingest: arbitrary bytes and well-formed autopilot frames with fuzzed payloads, fed to
//! the sans-IO [`Session`] as received, between timeouts and commands, as the shell drives it.
//!
//! Input: a first byte choosing the setup (signing, autopilot kind, go-to method), then a
//! program of operations until the input runs out:
//! - raw bytes, as read from the transport (garbage, torn and replayed frames);
//! - one CRC-valid MAVLink 2 frame from the autopilot (system 1, component 1, or a fuzzed
//!   source), its message id picked from those the session reads, its payload fuzzed (the
//!   fuzzer cannot forge a CRC or a signature, so this is how it reaches the message handlers);
//! - time passing, then [`Session::handle_timeout`];
//! - a command started ([`Session::start_command`], which translates it), or a parameter read.
//!
//! After every operation the outbox and the events are drained and the snapshot and link
//! measurement taken. Invariant: no panic, over a session of up to a month.

use crate::bytes::Bytes;
use alpha3_core::command::Command;
use alpha3_core::config::AutopilotKind;
use alpha3_core::frames::Enu;
use alpha3_hil::dialect::{MavMessage, MavlinkVersion, Message, id};
use alpha3_hil::session::{Session, SessionConfig};
use alpha3_hil::translate::GotoMethod;
use alpha3_hil::wire::{Encoder, SigningKey};

/// Message ids the session reads (and a few it should ignore), for the framed operation.
const IDS: [u32; 22] = [
    id::HEARTBEAT,
    id::SYS_STATUS,
    id::GPS_RAW_INT,
    id::ATTITUDE,
    id::LOCAL_POSITION_NED,
    id::GLOBAL_POSITION_INT,
    id::AUTOPILOT_VERSION,
    id::BATTERY_STATUS,
    id::EXTENDED_SYS_STATE,
    id::HOME_POSITION,
    77,  // COMMAND_ACK
    253, // STATUSTEXT
    22,  // PARAM_VALUE
    111, // TIMESYNC
    2,   // SYSTEM_TIME
    74,  // VFR_HUD
    31,  // ATTITUDE_QUATERNION
    36,  // SERVO_OUTPUT_RAW
    42,  // MISSION_CURRENT
    230, // ESTIMATOR_STATUS
    4,   // PING
    0xFFFF,
];

/// A 32-byte key of the setup that signs (the fuzzer cannot sign with it; frames it makes are
/// unsigned and must be refused when signing is required).
const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// The longest session a program runs: a month on the shell's monotonic clock. (Past ~292 years
/// the TIMESYNC nanosecond stamps no longer fit an `i64`; no session lives that long.)
const MAX_SESSION_US: u64 = 30 * 24 * 3600 * 1_000_000;

fn config(setup: u8) -> SessionConfig {
    let mut cfg = SessionConfig {
        autopilot: match setup % 3 {
            0 => AutopilotKind::Auto,
            1 => AutopilotKind::Px4,
            _ => AutopilotKind::Ardupilot,
        },
        goto: if setup & 0x08 == 0 {
            GotoMethod::Reposition
        } else {
            GotoMethod::Offboard
        },
        ..SessionConfig::default()
    };
    if setup & 0x10 != 0 {
        cfg.signing_key = SigningKey::from_hex(KEY).ok();
        cfg.require_signing = setup & 0x20 != 0;
    }
    cfg
}

pub(crate) fn command(b: &mut Bytes<'_>) -> Command {
    match b.u8() % 10 {
        0 => Command::Arm,
        1 => Command::Disarm,
        2 => Command::Takeoff {
            altitude_m: b.coordinate(),
        },
        3 => Command::GoTo {
            target: Enu::new(b.coordinate(), b.coordinate(), b.coordinate()),
            speed_mps: (b.u8() & 1 == 1).then(|| b.coordinate()),
        },
        4 => Command::SetAltitude {
            altitude_m: b.coordinate(),
        },
        5 => Command::SetSpeed {
            speed_mps: b.coordinate(),
        },
        6 => Command::SetYaw {
            yaw_deg: b.coordinate(),
        },
        7 => Command::Hold,
        8 => Command::ReturnToHome,
        _ => Command::Land {
            site: (b.u8() & 1 == 1).then(|| [b.coordinate(), b.coordinate()]),
        },
    }
}

/// A CRC-valid frame of a fuzzed message from `system`/`component`, or `None` when the
/// payload does not parse as that message.
fn frame(b: &mut Bytes<'_>, encoders: &mut [Encoder; 2]) -> Option<Vec<u8>> {
    let pick = b.u8();
    let msg_id = IDS[usize::from(pick) % IDS.len()];
    let payload = b.slice(255);
    let message = MavMessage::parse(MavlinkVersion::V2, msg_id, payload).ok()?;
    let (encoder, component) = if pick & 0x80 == 0 {
        (&mut encoders[0], 1)
    } else {
        (&mut encoders[1], b.u8())
    };
    let mut out = Vec::new();
    encoder.encode(component, &message, 0, &mut out);
    Some(out)
}

pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let Ok(mut session) = Session::new(config(b.u8()), u64::from(b.u32())) else {
        return;
    };
    let mut encoders = [Encoder::new(1, None), Encoder::new(b.u8(), None)];
    let mut now_us: u64 = 0;
    let mut out = Vec::new();
    while !b.is_empty() && now_us < MAX_SESSION_US {
        match b.u8() % 8 {
            0 => {
                let raw = b.slice(280);
                session.handle_bytes(now_us, raw);
            }
            1..=3 => {
                if let Some(f) = frame(&mut b, &mut encoders) {
                    session.handle_bytes(now_us, &f);
                }
            }
            4 => {
                // Up to ~65 s per step; a zero step re-polls at the same instant.
                now_us += u64::from(b.u16()) * 1000;
                session.handle_timeout(now_us);
            }
            5 => {
                let c = command(&mut b);
                let _ = session.start_command(now_us, &c);
            }
            6 => {
                let names = ["COM_RC_IN_MODE", "FS_GCS_ENABLE", "NAV_DLL_ACT"];
                let n = usize::from(b.u8()) % (names.len() + 1);
                let list: Vec<String> = names[..n].iter().map(|s| s.to_string()).collect();
                session.read_params(now_us, &list);
            }
            _ => {
                // Hours of silence (the link lost, the autopilot rebooting).
                now_us = now_us.saturating_add(u64::from(b.u16()) * 1_000_000);
                session.handle_timeout(now_us);
            }
        }
        while session.poll_transmit(now_us, &mut out).is_some() {
            out.clear();
        }
        while session.poll_event().is_some() {}
        let _ = session.poll_timeout();
        let _ = session.snapshot();
        let _ = session.measure(now_us);
        let _ = session.params_done();
    }
}
