//! Situations for the steering's unit tests.

use alpha3_core::frames::Geo;
use alpha3_core::link::{LinkSample, Slice};
use alpha3_core::protocol::Situation;
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};

/// At home on a good `slice` link: on the ground, or armed in the air at `altitude_m`;
/// nothing observed, nothing said.
pub fn situation(slice: Slice, altitude_m: Option<f64>) -> Situation {
    let mut snapshot = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
    if let Some(z) = altitude_m {
        snapshot.armed = true;
        snapshot.position.z = z;
        snapshot.landed = LandedState::InAir;
    }
    Situation {
        snapshot,
        link: LinkSample {
            slice,
            lat_ms: 7.0,
            jitter_ms: 1.0,
            loss_pct: 0.1,
            throughput_mbps: 50.0,
            edge_load: 0.3,
        },
        observations: vec![],
        operator: None,
    }
}
