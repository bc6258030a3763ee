//! Network slices and link measurements (the inputs of the slice policy).

mod sample;

pub use sample::{HardThresholds, LinkSample, Slice};
