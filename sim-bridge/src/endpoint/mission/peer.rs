//! Who is at the other end of a transfer: a MAVLink system and component.

/// A system and component id pair, the partner of a transfer or the target of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Peer {
    pub system: u8,
    pub component: u8,
}

impl Peer {
    pub fn new(system: u8, component: u8) -> Self {
        Self { system, component }
    }

    /// The sender of a frame (MAVLink 2 system ids are one byte; a wider one names no one).
    pub fn from_header(header: &mavlink::MavHeader) -> Self {
        Self::new(
            u8::try_from(header.system_id).unwrap_or(0),
            header.component_id,
        )
    }
}
