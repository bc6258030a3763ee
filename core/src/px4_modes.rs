//! PX4's flight-mode numbers on the wire: HEARTBEAT `custom_mode = main << 16 | sub << 24`.
//! One table for both ends of the link (the companion in `hil`, the PX4-like endpoint in
//! `sim-bridge`), so they cannot drift apart.

pub const MAIN_MANUAL: u8 = 1;
pub const MAIN_ALTCTL: u8 = 2;
pub const MAIN_POSCTL: u8 = 3;
pub const MAIN_AUTO: u8 = 4;
pub const MAIN_ACRO: u8 = 5;
pub const MAIN_OFFBOARD: u8 = 6;
pub const MAIN_STABILIZED: u8 = 7;

pub const SUB_READY: u8 = 1;
pub const SUB_TAKEOFF: u8 = 2;
pub const SUB_LOITER: u8 = 3;
pub const SUB_MISSION: u8 = 4;
pub const SUB_RTL: u8 = 5;
pub const SUB_LAND: u8 = 6;
pub const SUB_PRECLAND: u8 = 9;
