//! Plans in and out: QGroundControl `.plan` files and `QGC WPL 110` text files, read into the
//! items MAVLink's mission protocol carries and written back.
//!
//! - [`item`]: [`MissionItem`], field for field a `MISSION_ITEM_INT`; [`frame`] and
//!   [`mav_cmd`] name the numbers.
//! - [`plan_read`] / [`plan_write`]: `.plan` ↔ [`PlanFile`] (mission, [`Fence`], rally points).
//! - [`wpl`]: `QGC WPL 110` ↔ [`WplFile`], missions and the fence and rally lists ArduPilot's
//!   tools write in that format.
//! - [`terrain`]: altitudes above terrain become AMSL with heights the caller gives, or are
//!   refused ([`MissionFileError::TerrainFrame`]).
//! - [`report`](mod@report): what we do with each item, by name: flown, kept or refused.
//! - [`export`]: a flown episode (its path and airspace) as a `.plan`.
//! - [`limits`]: the caps on file size and item count; [`error`]: every failure with its line or
//!   JSON path.
//!
//! Pure like the rest of `core`: readers take bytes the caller read, writers return text.
//! What we read we write back equal: item for item after re-reading, and byte for byte for a
//! `.plan` we wrote ourselves.

mod check;
pub mod error;
pub mod export;
pub mod fence;
pub mod frame;
pub mod item;
mod json;
pub mod limits;
pub mod mav_cmd;
pub mod plan;
pub mod plan_read;
pub mod plan_write;
pub mod rally;
pub mod report;
pub mod terrain;
pub mod wpl;

pub use error::{At, MissionFileError};
pub use export::{FlownAirspace, flown_plan};
pub use fence::{Fence, FenceCircle, FencePolygon, GeoPoint, LatLon};
pub use frame::{AltitudeRef, FrameKind};
pub use item::{Altitude, MissionItem, MissionType};
pub use plan::{PlanFile, PlanItem, PlanMission};
pub use plan_read::read_plan;
pub use plan_write::write_plan;
pub use rally::{rally_from_items, rally_to_items};
pub use report::{Flight, Handling, ItemReport, Refusal, report};
pub use terrain::{ReadOptions, TerrainHeights};
pub use wpl::{WplFile, WplMission, read_wpl, write_wpl};
