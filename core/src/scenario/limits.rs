//! The sizes and ranges a scenario must keep to be flown. `validate` and every loader of the
//! runtime (`bench`, `sitl`, `fly`, `sim-vehicle`) refuse a scenario outside them, so nothing
//! the runtime flies can make it allocate without bound, step the world in microseconds or plan
//! for minutes. Each range is far beyond any real small-UAS mission (the shipped suite's largest
//! values are given for scale) and tight enough that the arithmetic stays well conditioned.
//!
//! The caps also bound the work of flying: the scripted planner checks a leg against the static
//! zones near it only, and other aircraft's plans span the time budget. Measured with the
//! release binary, one scripted episode at [`MAX_NO_FLY_ZONES`] scattered zones takes about
//! 0.5 s of CPU, and 10 s with every cap reached at once (1,000 zones, 256 waypoints, 32 traffic
//! tracks, 32 moving obstacles, a swarm of 16, 3,600 s), most of it the separation check against
//! the ~80 other aircraft's plans.

/// Largest scenario file, bytes, checked before it is parsed (the suite's largest is 9 KB;
/// 1,000 cylinder zones take about 150 KB).
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// Inclusion areas (`airspace.geofence`); at least one is required (suite: 1).
pub const MAX_FENCE_AREAS: usize = 16;
/// No-fly zones, static and moving together (suite: at most 6).
pub const MAX_NO_FLY_ZONES: usize = 1_000;
/// Vertices of one polygon (suite: at most 5).
pub const MAX_POLYGON_VERTICES: usize = 256;
/// Mission waypoints; at least one is required (suite: at most 8).
pub const MAX_WAYPOINTS: usize = 256;
/// Traffic tracks (suite: at most 3).
pub const MAX_TRAFFIC: usize = 32;
/// Moving obstacles (`moving_obstacles`; suite: at most 2).
pub const MAX_MOVING_OBSTACLES: usize = 32;
/// Swarm members, the vehicle included (`swarm.size`; suite: at most 3).
pub const MAX_SWARM_SIZE: u64 = 16;
/// Faults, comms loss windows, emergency landing sites, wind layers, payloads: each list.
pub const MAX_LIST: usize = 64;

/// Largest horizontal distance of anything from the local origin, metres (suite: 1.5 km).
pub const MAX_EXTENT_M: f64 = 50_000.0;
/// Highest altitude of anything above ground, metres (suite: 150 m).
pub const MAX_ALTITUDE_M: f64 = 10_000.0;
/// Longest time budget, and latest fault or outage time, seconds (suite: 1,020 s). Other
/// aircraft's plans are sampled over the whole budget, so it bounds their size.
pub const MAX_TIME_S: f64 = 3_600.0;
/// The physics step, seconds (suite: 0.02): below the minimum a minute of flight would take
/// millions of steps.
pub const DT_RANGE_S: (f64, f64) = (0.001, 1.0);
/// Fastest airframe, m/s (suite: 18).
pub const MAX_AIRFRAME_SPEED_MPS: f64 = 100.0;
/// Fastest traffic, moving zone or obstacle, m/s (suite: 35).
pub const MAX_OBJECT_SPEED_MPS: f64 = 350.0;
/// Strongest wind or gust, m/s (suite: 11).
pub const MAX_WIND_MPS: f64 = 100.0;
/// Heaviest airframe, kg (suite: 10).
pub const MAX_MASS_KG: f64 = 1_000.0;
/// Largest battery, Wh (suite: 1,200).
pub const MAX_BATTERY_WH: f64 = 100_000.0;
/// Largest power term of the battery model (hover W, drag W/(m/s)³, manoeuvre W/(m/s²)).
pub const MAX_POWER_W: f64 = 1_000_000.0;
/// Largest separation or radius that is not a whole airspace, metres (DAA, swarm spacing).
pub const MAX_SEPARATION_M: f64 = 10_000.0;
/// Largest detect-and-avoid time to collision, seconds.
pub const MAX_TTC_S: f64 = 3_600.0;
/// Angles (headings, wind directions), degrees either way.
pub const MAX_ANGLE_DEG: f64 = 360.0;
/// Policy decisions per second of the original benchmark.
pub const MAX_POLICY_HZ: f64 = 1_000.0;
