//! ArduCopter's flight-mode numbers on the wire: HEARTBEAT `custom_mode` is the plain number.
//! One table for both ends of the link (the companion in `hil`, the ArduCopter-like endpoint in
//! `sim-bridge`), so they cannot drift apart.

pub const STABILIZE: u32 = 0;
pub const ALT_HOLD: u32 = 2;
pub const AUTO: u32 = 3;
pub const GUIDED: u32 = 4;
pub const LOITER: u32 = 5;
pub const RTL: u32 = 6;
pub const LAND: u32 = 9;
pub const POSHOLD: u32 = 16;
pub const BRAKE: u32 = 17;
pub const SMART_RTL: u32 = 21;
pub const AUTO_RTL: u32 = 27;
