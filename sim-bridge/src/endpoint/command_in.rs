//! A command as the vehicle takes it, whether COMMAND_LONG or COMMAND_INT carried it.

use super::codec::mav::{self, MavCmd, MavFrame};

/// A command, whichever message carried it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandIn {
    pub command: MavCmd,
    /// param1..param7; for COMMAND_INT, param5/param6 are unused and param7 is z.
    pub p: [f32; 7],
    /// COMMAND_INT's frame and x, y (degrees × 1e7 in global frames).
    pub int: Option<(MavFrame, i32, i32)>,
}

impl CommandIn {
    pub fn long(c: &mav::COMMAND_LONG_DATA) -> Self {
        Self {
            command: c.command,
            p: [
                c.param1, c.param2, c.param3, c.param4, c.param5, c.param6, c.param7,
            ],
            int: None,
        }
    }

    pub fn int(c: &mav::COMMAND_INT_DATA) -> Self {
        Self {
            command: c.command,
            p: [c.param1, c.param2, c.param3, c.param4, 0.0, 0.0, c.z],
            int: Some((c.frame, c.x, c.y)),
        }
    }
}
