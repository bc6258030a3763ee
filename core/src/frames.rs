//! Frames and units, in one place.
//!
//! - [`Enu`]: local metres from home, x east, y north, z up (height above home), as UAVBench
//!   scenarios and the agent's tools use.
//! - [`Ned`]: local metres from home, north, east, down, as MAVLink `LOCAL_POSITION_NED` and
//!   `SET_POSITION_TARGET_LOCAL_NED` use.
//! - [`Geo`]: WGS-84 latitude/longitude in degrees and altitude above mean sea level in metres,
//!   as `GLOBAL_POSITION_INT`, `HOME_POSITION` and `DO_REPOSITION` use.
//!
//! The horizontal mapping between local and global is the azimuthal equidistant projection on a
//! sphere of radius [`EARTH_RADIUS_M`] around home — the same projection PX4 uses for its local
//! position — so a local point we compute agrees with what PX4 reports. Altitude maps linearly:
//! `alt_amsl = home.alt_amsl + z`. The trigonometry is `libm`'s, so a replay maps the same
//! points to the same numbers on every CPU.

use nalgebra::Vector3;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Mean Earth radius used by PX4's local projection (metres).
pub const EARTH_RADIUS_M: f64 = 6_371_000.0;

/// A point or vector in the local east-north-up frame, metres (or m/s for velocities).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Enu {
    /// East of home, metres.
    pub x: f64,
    /// North of home, metres.
    pub y: f64,
    /// Up from home, metres.
    pub z: f64,
}

/// A point or vector in the local north-east-down frame, metres (or m/s).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Ned {
    pub north: f64,
    pub east: f64,
    pub down: f64,
}

/// A WGS-84 position: degrees and metres above mean sea level.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Geo {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_amsl_m: f64,
}

impl Enu {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }

    pub fn to_ned(self) -> Ned {
        Ned {
            north: self.y,
            east: self.x,
            down: -self.z,
        }
    }

    pub fn to_vector(self) -> Vector3<f64> {
        Vector3::new(self.x, self.y, self.z)
    }

    pub fn from_vector(v: &Vector3<f64>) -> Self {
        Self::new(v.x, v.y, v.z)
    }

    /// Horizontal distance to `other`, metres.
    pub fn horizontal_distance(self, other: Enu) -> f64 {
        libm::hypot(self.x - other.x, self.y - other.y)
    }

    /// Straight-line distance to `other`, metres.
    pub fn distance(self, other: Enu) -> f64 {
        (self.to_vector() - other.to_vector()).norm()
    }
}

impl Ned {
    pub const fn new(north: f64, east: f64, down: f64) -> Self {
        Self { north, east, down }
    }

    pub fn to_enu(self) -> Enu {
        Enu {
            x: self.east,
            y: self.north,
            z: -self.down,
        }
    }
}

/// The local frame anchored at home: converts between [`Enu`]/[`Ned`] and [`Geo`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalFrame {
    home: Geo,
    lat0: f64,
    lon0: f64,
    sin_lat0: f64,
    cos_lat0: f64,
}

impl LocalFrame {
    pub fn new(home: Geo) -> Self {
        let lat0 = home.lat_deg.to_radians();
        let lon0 = home.lon_deg.to_radians();
        Self {
            home,
            lat0,
            lon0,
            sin_lat0: libm::sin(lat0),
            cos_lat0: libm::cos(lat0),
        }
    }

    pub fn home(&self) -> Geo {
        self.home
    }

    /// Global position of a local point.
    pub fn to_geo(&self, p: Enu) -> Geo {
        let x_rad = p.y / EARTH_RADIUS_M; // north
        let y_rad = p.x / EARTH_RADIUS_M; // east
        let c = libm::hypot(x_rad, y_rad);
        let (lat, lon) = if c > 0.0 {
            let (sin_c, cos_c) = libm::sincos(c);
            let lat = libm::asin(cos_c * self.sin_lat0 + x_rad * sin_c * self.cos_lat0 / c);
            let lon = self.lon0
                + libm::atan2(
                    y_rad * sin_c,
                    c * self.cos_lat0 * cos_c - x_rad * self.sin_lat0 * sin_c,
                );
            (lat, lon)
        } else {
            (self.lat0, self.lon0)
        };
        Geo {
            lat_deg: lat.to_degrees(),
            lon_deg: wrap_deg(lon.to_degrees()),
            alt_amsl_m: self.home.alt_amsl_m + p.z,
        }
    }

    /// Local position of a global point.
    pub fn to_enu(&self, g: Geo) -> Enu {
        let lat = g.lat_deg.to_radians();
        let lon = g.lon_deg.to_radians();
        let (sin_lat, cos_lat) = libm::sincos(lat);
        let d_lon = lon - self.lon0;
        let cos_d_lon = libm::cos(d_lon);
        let arg = (self.sin_lat0 * sin_lat + self.cos_lat0 * cos_lat * cos_d_lon).clamp(-1.0, 1.0);
        let c = libm::acos(arg);
        let k = if c.abs() > 0.0 { c / libm::sin(c) } else { 1.0 };
        let north =
            k * (self.cos_lat0 * sin_lat - self.sin_lat0 * cos_lat * cos_d_lon) * EARTH_RADIUS_M;
        let east = k * cos_lat * libm::sin(d_lon) * EARTH_RADIUS_M;
        Enu {
            x: east,
            y: north,
            z: g.alt_amsl_m - self.home.alt_amsl_m,
        }
    }

    pub fn ned_to_geo(&self, p: Ned) -> Geo {
        self.to_geo(p.to_enu())
    }

    pub fn geo_to_ned(&self, g: Geo) -> Ned {
        self.to_enu(g).to_ned()
    }
}

/// Wraps a longitude into (-180, 180].
fn wrap_deg(lon: f64) -> f64 {
    if lon > -180.0 && lon <= 180.0 {
        return lon;
    }
    let mut l = (lon + 180.0).rem_euclid(360.0) - 180.0;
    if l == -180.0 {
        l = 180.0;
    }
    l
}

/// Wraps an angle in degrees into [0, 360).
pub fn wrap_heading_deg(deg: f64) -> f64 {
    deg.rem_euclid(360.0)
}

/// Converts a compass heading (0 = north, clockwise) to the ENU math angle (0 = east, CCW), radians.
pub fn heading_to_enu_angle_rad(heading_deg: f64) -> f64 {
    (90.0 - heading_deg).to_radians()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ZURICH: Geo = Geo {
        lat_deg: 47.397742,
        lon_deg: 8.545594,
        alt_amsl_m: 488.0,
    };

    #[test]
    fn home_maps_to_origin() {
        let f = LocalFrame::new(ZURICH);
        let p = f.to_enu(ZURICH);
        assert!(p.x.abs() < 1e-9 && p.y.abs() < 1e-9 && p.z.abs() < 1e-9);
        assert_eq!(f.to_geo(Enu::default()), ZURICH);
    }

    #[test]
    fn one_kilometre_north_is_the_expected_latitude() {
        // 1000 m along a meridian on a 6371 km sphere is 1000/6371000 rad = 0.0089932 deg.
        let f = LocalFrame::new(ZURICH);
        let g = f.to_geo(Enu::new(0.0, 1000.0, 50.0));
        assert!(
            (g.lat_deg - ZURICH.lat_deg - 0.008_993_216).abs() < 1e-8,
            "{g:?}"
        );
        assert!((g.lon_deg - ZURICH.lon_deg).abs() < 1e-12);
        assert!((g.alt_amsl_m - 538.0).abs() < 1e-9);
    }

    #[test]
    fn east_moves_longitude_by_the_cosine_of_latitude() {
        let f = LocalFrame::new(ZURICH);
        let g = f.to_geo(Enu::new(100.0, 0.0, 0.0));
        let expected = (100.0 / (EARTH_RADIUS_M * ZURICH.lat_deg.to_radians().cos())).to_degrees();
        assert!((g.lon_deg - ZURICH.lon_deg - expected).abs() < 1e-9);
    }

    #[test]
    fn enu_ned_swap_axes_and_flip_z() {
        let p = Enu::new(1.0, 2.0, 3.0);
        assert_eq!(p.to_ned(), Ned::new(2.0, 1.0, -3.0));
        assert_eq!(p.to_ned().to_enu(), p);
    }

    #[test]
    fn longitude_wraps_across_the_antimeridian() {
        let f = LocalFrame::new(Geo {
            lat_deg: 0.0,
            lon_deg: 179.9999,
            alt_amsl_m: 0.0,
        });
        let g = f.to_geo(Enu::new(100.0, 0.0, 0.0));
        assert!(g.lon_deg < -179.0, "{g:?}");
        let back = f.to_enu(g);
        assert!((back.x - 100.0).abs() < 1e-6, "{back:?}");
    }

    proptest! {
        #[test]
        fn enu_geo_enu_round_trips(
            lat in -80.0f64..80.0, lon in -180.0f64..180.0, alt in -100.0f64..4000.0,
            x in -20_000.0f64..20_000.0, y in -20_000.0f64..20_000.0, z in -500.0f64..2_000.0,
        ) {
            let f = LocalFrame::new(Geo { lat_deg: lat, lon_deg: lon, alt_amsl_m: alt });
            let p = Enu::new(x, y, z);
            let back = f.to_enu(f.to_geo(p));
            prop_assert!(back.distance(p) < 1e-4, "{p:?} -> {back:?}");
        }

        #[test]
        fn geo_ned_geo_round_trips(
            lat in -80.0f64..80.0, lon in -179.0f64..179.0,
            dlat in -0.1f64..0.1, dlon in -0.1f64..0.1, alt in 0.0f64..3000.0,
        ) {
            let f = LocalFrame::new(Geo { lat_deg: lat, lon_deg: lon, alt_amsl_m: 100.0 });
            let g = Geo { lat_deg: lat + dlat, lon_deg: lon + dlon, alt_amsl_m: alt };
            let back = f.ned_to_geo(f.geo_to_ned(g));
            prop_assert!((back.lat_deg - g.lat_deg).abs() < 1e-9);
            prop_assert!((back.lon_deg - g.lon_deg).abs() < 1e-9);
            prop_assert!((back.alt_amsl_m - g.alt_amsl_m).abs() < 1e-9);
        }

        #[test]
        fn local_distance_is_preserved_from_home(x in -5_000.0f64..5_000.0, y in -5_000.0f64..5_000.0) {
            // Azimuthal equidistant: the great-circle distance from home equals the local norm.
            let f = LocalFrame::new(ZURICH);
            let g = f.to_geo(Enu::new(x, y, 0.0));
            let (la0, lo0) = (ZURICH.lat_deg.to_radians(), ZURICH.lon_deg.to_radians());
            let (la, lo) = (g.lat_deg.to_radians(), g.lon_deg.to_radians());
            let hav = ((la - la0) / 2.0).sin().powi(2) + la0.cos() * la.cos() * ((lo - lo0) / 2.0).sin().powi(2);
            let d = 2.0 * EARTH_RADIUS_M * hav.sqrt().asin();
            prop_assert!((d - x.hypot(y)).abs() < 1e-4);
        }
    }
}
