//! Altitudes above terrain. Neither PX4 (it refuses frames 10/11, MISSION-FACTS §2) nor our
//! gate can fly one, so a reader turns it into AMSL with heights the caller supplies, or refuses
//! it by name. `core` holds no terrain data: the heights come in as a function.

use std::fmt;

use super::error::{At, MissionFileError};
use super::frame::{AltitudeRef, FrameKind, amsl_for_terrain};
use super::item::{MissionItem, e7_to_deg};

/// Terrain height in metres AMSL at (latitude°, longitude°), `None` where unknown.
pub type TerrainHeights<'a> = &'a dyn Fn(f64, f64) -> Option<f64>;

/// What a reader may use besides the file.
#[derive(Clone, Copy, Default)]
pub struct ReadOptions<'a> {
    /// Without heights, an item in a terrain frame is [`MissionFileError::TerrainFrame`]; with
    /// them, it becomes an AMSL item (frame 10 → 0, 11 → 5) at terrain + `z`.
    pub terrain: Option<TerrainHeights<'a>>,
}

impl fmt::Debug for ReadOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOptions")
            .field("terrain", &self.terrain.map(|_| "fn(lat, lon)"))
            .finish()
    }
}

impl<'a> ReadOptions<'a> {
    /// Options that turn terrain altitudes into AMSL with `heights`.
    pub fn with_terrain(heights: TerrainHeights<'a>) -> Self {
        ReadOptions {
            terrain: Some(heights),
        }
    }

    /// The AMSL altitude of `alt_m` given in `frame` at the point, unchanged unless `frame` is
    /// a terrain frame.
    pub(crate) fn amsl_of_terrain(
        &self,
        frame: u8,
        lat_deg: f64,
        lon_deg: f64,
        alt_m: f64,
        at: &At,
    ) -> Result<f64, MissionFileError> {
        if FrameKind::of(frame) != Some(FrameKind::Global(AltitudeRef::AboveTerrain)) {
            return Ok(alt_m);
        }
        let heights = self.terrain.ok_or_else(|| MissionFileError::TerrainFrame {
            at: at.clone(),
            frame,
        })?;
        let ground = heights(lat_deg, lon_deg)
            .filter(|height| height.is_finite())
            .ok_or_else(|| MissionFileError::TerrainUnknown {
                at: at.clone(),
                lat_deg,
                lon_deg,
            })?;
        Ok(ground + alt_m)
    }

    /// A terrain-frame item turned into its AMSL frame; any other item unchanged.
    pub(crate) fn resolve(
        &self,
        mut item: MissionItem,
        at: &At,
    ) -> Result<MissionItem, MissionFileError> {
        if FrameKind::of(item.frame) != Some(FrameKind::Global(AltitudeRef::AboveTerrain)) {
            return Ok(item);
        }
        let amsl = self.amsl_of_terrain(
            item.frame,
            e7_to_deg(item.x),
            e7_to_deg(item.y),
            f64::from(item.z),
            at,
        )?;
        // NaN stays NaN ("unset"); a height that overflows f32 is no altitude.
        let z = amsl as f32;
        if z.is_infinite() {
            return Err(MissionFileError::invalid(
                at.clone(),
                "terrain height + z overflows",
            ));
        }
        item.z = z;
        item.frame = amsl_for_terrain(item.frame);
        Ok(item)
    }
}
