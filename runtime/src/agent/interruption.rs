//! Why the loop stops before the episode's own end: the record could not be written, or the
//! vehicle is gone.

use crate::recorder::RecorderError;
use alpha3_core::vehicle::LinkError;

/// Why the loop stopped early.
#[derive(Debug)]
pub(super) enum Interruption {
    Record(RecorderError),
    Vehicle(LinkError),
}

impl From<RecorderError> for Interruption {
    fn from(e: RecorderError) -> Self {
        Interruption::Record(e)
    }
}

impl From<LinkError> for Interruption {
    fn from(e: LinkError) -> Self {
        Interruption::Vehicle(e)
    }
}
