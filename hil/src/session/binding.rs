//! Which frames belong to the autopilot this link is bound to.
//!
//! Anyone who can reach a listening UDP port can send it a valid frame. So the first flight
//! controller's HEARTBEAT binds the link — to its system/component and, on a datagram
//! transport, to the address it came from — for the whole session. From then on a frame from
//! another address or another system is foreign: counted, never handled (no telemetry, no
//! answer, and our frames never go to its sender). The binding moves only by the bound
//! autopilot's own heartbeat (same system and component), and only after the transport was
//! reopened or while the autopilot is lost: a rebooted autopilot may come back from a new port.
//! Without signing, a stranger who copies the system id can still win that race; with
//! `require_signing` its frames never pass the decoder.

use crate::dialect::MavHeader;
use crate::heartbeat::AutopilotInfo;
use std::net::SocketAddr;

/// The last foreign frame, for the log and the link status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stranger {
    /// Where its datagram came from (none on a stream transport).
    pub from: Option<SocketAddr>,
    pub system_id: u32,
    pub component_id: u8,
    pub message_id: u32,
}

/// Frames from anyone but the bound autopilot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ForeignFrames {
    pub count: u64,
    pub last: Option<Stranger>,
}

/// What to do with one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    Handle,
    /// The bound autopilot's first heartbeat after a reopen, or from a new address while it
    /// was lost: handle it, and the link now talks to `from`.
    Rejoin,
    /// Counted, then dropped.
    Foreign,
}

/// One frame as the binding sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival<'a> {
    pub from: Option<SocketAddr>,
    pub header: &'a MavHeader,
    pub message_id: u32,
    /// A flight controller's HEARTBEAT (`heartbeat::is_flight_controller`).
    pub autopilot_heartbeat: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Binding {
    /// Where the autopilot's datagrams come from; none before it was heard, and on streams.
    address: Option<SocketAddr>,
    /// Set by the transport (udpout): it never moves.
    fixed: bool,
    /// The transport was reopened and the autopilot not heard since.
    reopened: bool,
    foreign: ForeignFrames,
}

impl Binding {
    pub fn address(&self) -> Option<SocketAddr> {
        self.address
    }

    pub fn foreign(&self) -> ForeignFrames {
        self.foreign
    }

    /// The transport talks to one fixed address (udpout): frames from any other are foreign.
    pub fn fix(&mut self, address: SocketAddr) {
        self.address = Some(address);
        self.fixed = true;
    }

    /// The transport was reopened: the autopilot's next heartbeat may come from a new address.
    pub fn reopened(&mut self) {
        self.reopened = true;
    }

    /// The first heartbeat of a flight controller bound the session to it: bind its address.
    pub fn found(&mut self, from: Option<SocketAddr>) {
        if !self.fixed && from.is_some() {
            self.address = from;
        }
        self.reopened = false;
    }

    /// Decides on one frame; `autopilot` is the bound one (none before the first heartbeat).
    pub fn admit(
        &mut self,
        frame: Arrival<'_>,
        autopilot: Option<AutopilotInfo>,
        autopilot_lost: bool,
    ) -> Admission {
        let from_bound = match (self.address, frame.from) {
            (Some(bound), Some(from)) => bound == from,
            _ => true,
        };
        let Some(ap) = autopilot else {
            return if from_bound {
                Admission::Handle
            } else {
                self.count(frame)
            };
        };
        let same_system = frame.header.system_id == u32::from(ap.system_id);
        let its_heartbeat = frame.autopilot_heartbeat
            && same_system
            && frame.header.component_id == ap.component_id;
        if same_system && from_bound {
            if its_heartbeat && self.reopened {
                self.reopened = false;
                return Admission::Rejoin;
            }
            return Admission::Handle;
        }
        if its_heartbeat && !self.fixed && (self.reopened || autopilot_lost) {
            self.address = frame.from;
            self.reopened = false;
            return Admission::Rejoin;
        }
        self.count(frame)
    }

    fn count(&mut self, frame: Arrival<'_>) -> Admission {
        self.foreign.count += 1;
        self.foreign.last = Some(Stranger {
            from: frame.from,
            system_id: frame.header.system_id,
            component_id: frame.header.component_id,
            message_id: frame.message_id,
        });
        Admission::Foreign
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::mav::{MavAutopilot, MavType};

    fn header(system_id: u32, component_id: u8) -> MavHeader {
        MavHeader {
            system_id,
            component_id,
            sequence: 0,
        }
    }

    fn at(port: u16) -> Option<SocketAddr> {
        Some(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    const PX4: AutopilotInfo = AutopilotInfo {
        system_id: 1,
        component_id: 1,
        autopilot: MavAutopilot::MAV_AUTOPILOT_PX4,
        vehicle_type: MavType::MAV_TYPE_QUADROTOR,
    };

    fn arrival(from: Option<SocketAddr>, h: &MavHeader, heartbeat: bool) -> Arrival<'_> {
        Arrival {
            from,
            header: h,
            message_id: if heartbeat { 0 } else { 30 },
            autopilot_heartbeat: heartbeat,
        }
    }

    #[test]
    fn once_bound_other_addresses_and_systems_are_foreign() {
        let mut b = Binding::default();
        let px4 = header(1, 1);
        assert_eq!(
            b.admit(arrival(at(14580), &px4, true), None, false),
            Admission::Handle
        );
        b.found(at(14580));
        let ap = Some(PX4);
        assert_eq!(
            b.admit(arrival(at(14580), &px4, false), ap, false),
            Admission::Handle
        );
        // The same identity from another port, and another system from the bound port.
        assert_eq!(
            b.admit(arrival(at(40000), &px4, true), ap, false),
            Admission::Foreign
        );
        let gcs = header(255, 190);
        assert_eq!(
            b.admit(arrival(at(14580), &gcs, false), ap, false),
            Admission::Foreign
        );
        let f = b.foreign();
        assert_eq!(f.count, 2);
        assert_eq!(f.last.unwrap().system_id, 255);
        assert_eq!(b.address(), at(14580), "never adopted");
    }

    #[test]
    fn only_the_same_autopilot_rejoins_after_a_reopen_or_a_loss() {
        let mut b = Binding::default();
        b.found(at(14580));
        let ap = Some(PX4);
        let other = header(2, 1);
        b.reopened();
        assert_eq!(
            b.admit(arrival(at(40000), &other, true), ap, false),
            Admission::Foreign,
            "another system never rebinds"
        );
        assert_eq!(
            b.admit(arrival(at(40001), &header(1, 1), true), ap, false),
            Admission::Rejoin
        );
        assert_eq!(b.address(), at(40001));
        assert_eq!(
            b.admit(arrival(at(40002), &header(1, 1), true), ap, false),
            Admission::Foreign,
            "one rejoin per reopen"
        );
        assert_eq!(
            b.admit(arrival(at(40002), &header(1, 1), true), ap, true),
            Admission::Rejoin,
            "a lost autopilot may come back from a new port"
        );
        assert_eq!(
            b.admit(arrival(at(40003), &header(1, 1), false), ap, true),
            Admission::Foreign,
            "by its heartbeat only"
        );
    }

    #[test]
    fn a_fixed_address_never_moves() {
        let mut b = Binding::default();
        b.fix(at(14580).unwrap());
        assert_eq!(
            b.admit(arrival(at(40000), &header(1, 1), true), None, false),
            Admission::Foreign
        );
        b.found(at(14580));
        b.reopened();
        assert_eq!(
            b.admit(arrival(at(40000), &header(1, 1), true), Some(PX4), true),
            Admission::Foreign
        );
        assert_eq!(
            b.admit(arrival(at(14580), &header(1, 1), true), Some(PX4), true),
            Admission::Rejoin
        );
    }

    #[test]
    fn streams_have_no_address_to_check() {
        let mut b = Binding::default();
        b.found(None);
        assert_eq!(
            b.admit(arrival(None, &header(1, 1), false), Some(PX4), false),
            Admission::Handle
        );
        assert_eq!(
            b.admit(arrival(None, &header(7, 1), false), Some(PX4), false),
            Admission::Foreign
        );
    }
}
