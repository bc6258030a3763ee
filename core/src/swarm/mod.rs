//! A swarm seen from one vehicle: the A2A intent its runtime sends and receives
//! ([`intent`]) and the pace it times its legs at ([`pace`]), and its swarm-mates as the gate's peer plans ([`peers`]); and seen from
//! outside, separation in truth between the vehicles ([`separation`]) and their tracks on one
//! clock ([`track`]); the swarm file as written ([`file`](mod@file)). The frames that carry
//! the intent are `alpha3_hil::a2a`'s; this module is pure.

pub mod file;
pub mod intent;
pub mod pace;
pub mod peers;
pub mod separation;
pub mod track;

pub use file::{SwarmFileToml, SwarmVehicleToml};
pub use intent::{INTENT_FORMAT, Intent, IntentError, IntentPoint, IntentState};
pub use pace::Pace;
pub use peers::{Flag, IntentTaken, PeerBook, PeerBookSettings, PeerView};
pub use separation::{PairSeparation, SeparationMonitor};
pub use track::{Closest, SwarmTrack, VehicleTrack};
