//! What both ends of alpha3's wire share — the companion link (`alpha3-hil`) and the world's
//! PX4-like endpoint (`alpha3-sim`): the MAVLink dialect with the component and message ids they
//! name ([`dialect`]), and the sans-IO framing ([`frames`]): a transport pushes bytes as they
//! arrive, in any chunking, and takes out CRC-valid raw frames.

pub mod dialect;
pub mod frames;

pub use dialect::{MavMessage, mav};
pub use frames::{RawFrame, RawFrames};
