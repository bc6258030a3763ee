//! Why the loop stops before the episode's own end: the record could not be written, or the
//! vehicle is gone.

use crate::recorder::RecorderError;
use alpha3_core::vehicle::LinkError;

/// Why the loop stopped early.
#[derive(Debug)]
pub(super) enum Halt {
    Record(RecorderError),
    Vehicle(LinkError),
}

impl From<RecorderError> for Halt {
    fn from(e: RecorderError) -> Self {
        Halt::Record(e)
    }
}

impl From<LinkError> for Halt {
    fn from(e: LinkError) -> Self {
        Halt::Vehicle(e)
    }
}
