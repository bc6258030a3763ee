//! ArduCopter's mode numbers (HEARTBEAT `custom_mode`), the table both ends of the link share.

pub use alpha3_core::copter_modes::*;
