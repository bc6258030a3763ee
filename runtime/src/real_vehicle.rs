//! The real-vehicle gate of `alpha3 fly`: unless `--allow-real-vehicle` is given, alpha3 only
//! flies an autopilot that says it is a simulator and talks from this machine
//! ([`alpha3_hil::simulator`]: a parameter only a SITL build has). The link asks at connect
//! and again whenever the autopilot comes back (transport reopened, heartbeat regained), and
//! refuses every command until the answer is in.
//!
//! The address alone can rule a link out before anything is opened — a serial port is a
//! physical flight controller, a fixed far end off this machine is not ours — but never rules
//! one in: a real autopilot behind a forwarder on 127.0.0.1 talks from a loopback address too.

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
/// off this machine, cannot be a simulator on this machine. `None` when only the autopilot,
/// once heard, can tell.
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

/// The verdict once the autopilot was heard and asked ([`LinkStatus::simulator`]).
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
    let check = &status.simulator;
    if check.is_simulated() {
        Verdict::Simulated(format!("{who}: {}", check.reason()))
    } else {
        Verdict::NotProven(format!("{who}: {}", check.reason()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_hil::simulator::SimulatorCheck;

    fn addr(s: &str) -> Address {
        Address::parse(s).unwrap()
    }

    fn status(peer: &str, simulator: SimulatorCheck) -> LinkStatus {
        LinkStatus {
            peer: Some(peer.parse().unwrap()),
            simulator,
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
    fn only_the_autopilots_own_word_proves_a_simulator() {
        let a = addr("udpin:0.0.0.0:14540");
        let sitl = SimulatorCheck::Simulated("SIM_BAT_DRAIN = 60".into());
        assert!(after_connect(&a, &status("127.0.0.1:14580", sitl.clone())).is_simulated());
        // A loopback peer is not enough: a forwarder on 127.0.0.1 looks the same.
        let board = SimulatorCheck::NotProven("no SIM_BAT_DRAIN parameter".into());
        let v = after_connect(&a, &status("127.0.0.1:14580", board));
        assert!(!v.is_simulated());
        assert!(v.reason().contains("no SIM_BAT_DRAIN"), "{v:?}");
        assert!(
            !after_connect(&a, &status("127.0.0.1:1", SimulatorCheck::Checking)).is_simulated()
        );
        assert!(!after_connect(&a, &LinkStatus::default()).is_simulated());
        let serial = addr("serial:/dev/ttyUSB0:57600");
        assert!(!after_connect(&serial, &status("127.0.0.1:1", sitl)).is_simulated());
    }
}
