//! ArduCopter's mode numbers (HEARTBEAT `custom_mode`).

pub const STABILIZE: u32 = 0;
pub const ALT_HOLD: u32 = 2;
pub const AUTO: u32 = 3;
pub const GUIDED: u32 = 4;
pub const LOITER: u32 = 5;
pub const RTL: u32 = 6;
pub const LAND: u32 = 9;
pub const POSHOLD: u32 = 16;
pub const BRAKE: u32 = 17;
