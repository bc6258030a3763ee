//! Where a bench run flies its episodes: the built-in world (`alpha3 bench`), or autopilots
//! over MAVLink (`alpha3 sitl`: PX4 instances it starts, or autopilots already running). Resume,
//! shards, reports and review pages are the same for both.

use crate::sitl::px4::{Px4Install, Px4Options};
use std::path::PathBuf;

/// Where the episodes are flown.
#[derive(Debug, Clone, Default)]
pub enum Target {
    /// The built-in world, in process.
    #[default]
    BuiltIn,
    /// Autopilots, one episode at a time on each ([`super::autopilot`]).
    Autopilots(Autopilots),
}

impl Target {
    /// The name `inputs.json` keeps for the run's kind (`bench` or `sitl`).
    pub fn kind(&self) -> &'static str {
        match self {
            Target::BuiltIn => "bench",
            Target::Autopilots(_) => "sitl",
        }
    }

    /// How many episodes can fly at once: one per autopilot.
    pub fn vehicles(&self) -> Option<usize> {
        match self {
            Target::BuiltIn => None,
            Target::Autopilots(a) => Some(a.vehicles.len()),
        }
    }
}

/// Autopilots and how episodes are flown on them.
#[derive(Debug, Clone)]
pub struct Autopilots {
    /// One worker per vehicle: worker `k` flies on `vehicles[k]`.
    pub vehicles: Vec<Autopilot>,
    /// How long to wait for each autopilot to be ready to fly, seconds.
    pub ready_timeout_s: u64,
    /// How long bringing a vehicle to a scenario's start may take, seconds.
    pub start_timeout_s: u64,
    /// Also fly each episode in the built-in world (`builtin/records/`), for the gap.
    pub builtin_twins: bool,
    /// The run's folder (`tlogs/`, `builtin/`, `px4/` go there).
    pub out: PathBuf,
}

/// One autopilot: where it talks MAVLink, and how to start it when we do.
#[derive(Debug, Clone)]
pub struct Autopilot {
    pub connect: String,
    /// A fresh PX4 SITL per episode, from this build with these options.
    pub px4: Option<(Px4Install, Px4Options)>,
}
