//! The mission protocol client ([`MissionClient`]) against a hostile autopilot: a first byte
//! choosing the autopilot (PX4 or ArduPilot), then a program of operations — a transfer
//! started (download, upload of fuzzed items, clear, of a fuzzed kind), a mission message from
//! the autopilot with a fuzzed payload, time passing — until the input runs out.
//!
//! Invariants: no panic; the items held stay within the kind's cap; the outbox stays within
//! [`MAX_OUTBOX`].

use crate::bytes::Bytes;
use alpha3_hil::command::Target;
use alpha3_hil::dialect::{MavMessage, MavlinkVersion, Message};
use alpha3_hil::mission::{MAX_OUTBOX, MissionClient, MissionItem, MissionKind};
use alpha3_hil::profile::Profile;

/// The mission protocol's messages: REQUEST, COUNT, ACK, ITEM_INT, REQUEST_INT, CURRENT,
/// ITEM_REACHED, CLEAR_ALL, REQUEST_LIST.
const IDS: [u32; 9] = [40, 44, 47, 73, 51, 42, 46, 45, 43];

fn kind(b: &mut Bytes<'_>) -> MissionKind {
    match b.u8() % 3 {
        0 => MissionKind::Mission,
        1 => MissionKind::Fence,
        _ => MissionKind::Rally,
    }
}

/// Up to 255 items, each from a fuzzed MISSION_ITEM_INT payload (whatever kind it says).
fn items(b: &mut Bytes<'_>) -> Vec<MissionItem> {
    let n = usize::from(b.u8());
    let mut out = Vec::new();
    for _ in 0..n {
        let payload = b.slice(64);
        if let Ok(MavMessage::MISSION_ITEM_INT(d)) =
            MavMessage::parse(MavlinkVersion::V2, 73, payload)
            && let Some(item) = MissionItem::from_wire(&d)
        {
            out.push(item);
        }
    }
    out
}

pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let profile = if b.u8() & 1 == 0 {
        Profile::Px4
    } else {
        Profile::ArduPilot
    };
    let autopilot = Target {
        system: 1,
        component: 1,
    };
    let us = Target {
        system: 255,
        component: 190,
    };
    let mut client = MissionClient::new(profile, autopilot, us);
    let mut now_us: u64 = 0;
    while !b.is_empty() {
        match b.u8() % 6 {
            0 => {
                let k = kind(&mut b);
                let _ = client.start_download(k, now_us);
            }
            1 => {
                let k = kind(&mut b);
                let list = items(&mut b);
                let _ = client.start_upload(k, list, now_us);
            }
            2 => {
                let k = kind(&mut b);
                let _ = client.start_clear(k, now_us);
            }
            3 | 4 => {
                let id = IDS[usize::from(b.u8()) % IDS.len()];
                let payload = b.slice(255);
                if let Ok(message) = MavMessage::parse(MavlinkVersion::V2, id, payload) {
                    client.handle(&message, now_us);
                }
            }
            _ => {
                now_us = now_us.saturating_add(u64::from(b.u16()) * 1000);
                client.handle_timeout(now_us);
            }
        }
        let mut sent = 0;
        while client.poll_transmit().is_some() {
            sent += 1;
        }
        assert!(
            sent <= MAX_OUTBOX,
            "{sent} frames queued, more than the outbox holds"
        );
        while client.poll_event().is_some() {}
        let _ = client.poll_timeout();
        assert!(
            client.held_items() <= usize::from(MissionKind::Mission.cap()),
            "{} items held",
            client.held_items()
        );
    }
}
