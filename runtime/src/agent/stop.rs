//! Why the loop stops before the episode's own end: the record could not be written, or the
//! vehicle is gone.

use crate::recorder::RecorderError;
use alpha3_core::vehicle::LinkError;

/// Why the loop stopped early.
#[derive(Debug)]
pub(super) enum Stop {
    Record(RecorderError),
    Vehicle(LinkError),
}

impl From<RecorderError> for Stop {
    fn from(e: RecorderError) -> Self {
        Stop::Record(e)
    }
}

impl From<LinkError> for Stop {
    fn from(e: LinkError) -> Self {
        Stop::Vehicle(e)
    }
}
