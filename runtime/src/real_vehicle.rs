//! The real-vehicle gate of `alpha3 fly`: unless `--allow-real-vehicle` is given, alpha3 only
//! flies an autopilot it can prove is simulated. On the wire a PX4 SITL looks exactly like a
//! flight controller (same HEARTBEAT, same messages; `PX4-FACTS.md`), so the proof is where it
//! runs: a SITL talks over a network socket on this machine. A serial port is always a real
//! board; a link whose far end is not a loopback address may be one.

use alpha3_core::config::Address;
use alpha3_hil::LinkStatus;
use std::net::IpAddr;

/// Why a link is (or is not) provably simulated, in words for the log and the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Simulated(String),
    NotProven(String),
}

impl Verdict {
    pub fn is_simulated(&self) -> bool {
        matches!(self, Verdict::Simulated(_))
    }

    pub fn reason(&self) -> &str {
        match self {
            Verdict::Simulated(r) | Verdict::NotProven(r) => r,
        }
    }
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// What the address alone says, before anything is opened: a serial port, or a fixed far end
/// off this machine, cannot be a loopback SITL. `None` when only the far end, once heard, can
/// tell (udpin/tcpin, or a loopback udpout/tcpout).
pub fn before_connect(address: &Address) -> Option<Verdict> {
    match address {
        Address::Serial { path, .. } => Some(Verdict::NotProven(format!(
            "{path} is a serial port: a physical flight controller"
        ))),
        Address::UdpOut { host, .. }
        | Address::UdpBroadcast { host, .. }
        | Address::TcpOut { host, .. }
            if !is_loopback_host(host) =>
        {
            Some(Verdict::NotProven(format!(
                "{address} reaches {host}, which is not this machine"
            )))
        }
        _ => None,
    }
}

/// The verdict once the autopilot was heard: its far end must be a loopback address.
pub fn after_connect(address: &Address, status: &LinkStatus) -> Verdict {
    if let Some(v) = before_connect(address) {
        return v;
    }
    let who = status.autopilot.map_or_else(
        || "an autopilot".to_string(),
        |a| {
            format!(
                "{:?} {:?} (system {})",
                a.autopilot, a.vehicle_type, a.system_id
            )
        },
    );
    match status.peer {
        Some(peer) if peer.ip().is_loopback() => Verdict::Simulated(format!(
            "{who} talks from {peer}, a loopback address: a simulator on this machine"
        )),
        Some(peer) => Verdict::NotProven(format!(
            "{who} talks from {peer}, which is not a loopback address"
        )),
        None => Verdict::NotProven(format!("{who}: the far end's address is unknown")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> Address {
        Address::parse(s).unwrap()
    }

    fn status(peer: &str) -> LinkStatus {
        LinkStatus {
            peer: Some(peer.parse().unwrap()),
            ..LinkStatus::default()
        }
    }

    #[test]
    fn serial_and_remote_addresses_are_refused_before_opening() {
        for a in [
            "serial:/dev/ttyAMA0:921600",
            "udpout:192.168.1.10:14550",
            "tcpout:10.0.0.2:5760",
        ] {
            assert!(
                matches!(before_connect(&addr(a)), Some(Verdict::NotProven(_))),
                "{a}"
            );
        }
        for a in [
            "udpin:0.0.0.0:14540",
            "udpout:127.0.0.1:14580",
            "tcpout:localhost:5760",
        ] {
            assert_eq!(before_connect(&addr(a)), None, "{a}");
        }
    }

    #[test]
    fn only_a_loopback_far_end_proves_a_simulator() {
        let a = addr("udpin:0.0.0.0:14540");
        assert!(after_connect(&a, &status("127.0.0.1:14580")).is_simulated());
        assert!(after_connect(&a, &status("[::1]:14580")).is_simulated());
        assert!(!after_connect(&a, &status("192.168.1.20:14580")).is_simulated());
        assert!(!after_connect(&a, &LinkStatus::default()).is_simulated());
        let serial = addr("serial:/dev/ttyUSB0:57600");
        assert!(!after_connect(&serial, &status("127.0.0.1:1")).is_simulated());
    }
}
