//! What `alpha3 sitl` needs beyond one onboard episode: real PX4 SITL processes it starts
//! and stops ([`px4`]), and the twin-vs-real gap report ([`gap`]).

pub mod gap;
pub mod px4;
