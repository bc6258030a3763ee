//! `MAV_FRAME` numbers a plan file may carry, and what each says about `x`, `y` and `z`
//! (common.xml; MISSION-FACTS §2). Numbers, not an enum, because a file may hold any `u8`: the
//! readers sort them with [`FrameKind::of`].

/// Lat/lon, altitude AMSL.
pub const GLOBAL: u8 = 0;
/// No position: `x`/`y` are plain integers, `z` has no altitude meaning (DO_*, RTL, delays).
pub const MISSION: u8 = 2;
/// Lat/lon, altitude above home.
pub const GLOBAL_RELATIVE_ALT: u8 = 3;
/// Deprecated synonym of [`GLOBAL`] (2024-03), still written by PX4 on download.
pub const GLOBAL_INT: u8 = 5;
/// Deprecated synonym of [`GLOBAL_RELATIVE_ALT`].
pub const GLOBAL_RELATIVE_ALT_INT: u8 = 6;
/// Lat/lon, altitude above terrain.
pub const GLOBAL_TERRAIN_ALT: u8 = 10;
/// Deprecated synonym of [`GLOBAL_TERRAIN_ALT`].
pub const GLOBAL_TERRAIN_ALT_INT: u8 = 11;

/// What a reference an altitude is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AltitudeRef {
    /// Metres above the home position (frames 3, 6).
    AboveHome,
    /// Metres above mean sea level (frames 0, 5).
    Amsl,
    /// Metres above the ground under the point (frames 10, 11): only an autopilot with a
    /// terrain database can fly it, so the readers turn it into AMSL or refuse it.
    AboveTerrain,
}

/// The frames we read, sorted by what `x`, `y` and `z` mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// `x`/`y` are lat/lon degrees ×1e7; `z` is metres from the reference.
    Global(AltitudeRef),
    /// [`MISSION`]: `x`/`y` are unscaled integers, `z` a plain number.
    Mission,
}

impl FrameKind {
    /// `None` for the local and body frames: a mission file positions in those would mean
    /// nothing the two autopilots agree on (PX4 refuses them, MISSION-FACTS §2).
    pub fn of(frame: u8) -> Option<FrameKind> {
        match frame {
            GLOBAL | GLOBAL_INT => Some(FrameKind::Global(AltitudeRef::Amsl)),
            GLOBAL_RELATIVE_ALT | GLOBAL_RELATIVE_ALT_INT => {
                Some(FrameKind::Global(AltitudeRef::AboveHome))
            }
            GLOBAL_TERRAIN_ALT | GLOBAL_TERRAIN_ALT_INT => {
                Some(FrameKind::Global(AltitudeRef::AboveTerrain))
            }
            MISSION => Some(FrameKind::Mission),
            _ => None,
        }
    }

    /// Whether `x`/`y` are scaled lat/lon.
    pub fn is_global(self) -> bool {
        matches!(self, FrameKind::Global(_))
    }
}

/// The AMSL frame a terrain frame becomes once its heights are added: the `_INT` synonym stays
/// an `_INT` synonym, so only the altitude reference changes.
pub(crate) fn amsl_for_terrain(frame: u8) -> u8 {
    if frame == GLOBAL_TERRAIN_ALT_INT {
        GLOBAL_INT
    } else {
        GLOBAL
    }
}
