//! A fresh serial pty pair per test (`alpha3_hil::testing`).

pub use alpha3_hil::testing::PtyPair;
