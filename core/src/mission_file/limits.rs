//! The caps every reader checks before it builds anything, so a file from anywhere costs bounded
//! memory and time. Each is far above a real plan and checked before the data it bounds is
//! allocated (a WPL line is parsed only while the count is under the cap; a `.plan` is parsed
//! only when its length is under the byte cap).

/// Items in one list: mission items (a `.plan`'s survey expanded), fence items (every polygon
/// vertex, circle and return point counted) or rally points. 10,000 is PX4 SITL's mission
/// capacity (`CONFIG_NUM_MISSION_ITMES_SUPPORTED=10000`, PX4's spelling, in
/// `boards/px4/sitl/default.px4board` at a70a558; the dataman Kconfig default is 500, ArduCopter
/// SITL holds about 650): no autopilot we fly beside takes a longer list. The vehicles' smaller
/// fence (PX4: 64) and rally (PX4: 32) capacities, `dataman.h`, are for the upload to report,
/// not for the file reader to guess.
pub const MAX_ITEMS: usize = 10_000;

/// Largest `.plan` file, bytes. QGroundControl writes about 600 bytes per pretty-printed item,
/// so [`MAX_ITEMS`] items fit in 6 MB.
pub const MAX_PLAN_BYTES: usize = 16 << 20;

/// Most JSON values (numbers, strings, arrays, objects, …) a `.plan` may hold, counted by a
/// scan of the text before it is parsed. A QGC item is about 18 values, so [`MAX_ITEMS`] items
/// take 180,000. The parsed tree costs at most about 110 bytes a value (72 for serde_json's
/// `Value`, the rest an object's key and index), so the parser holds under 60 MB besides the
/// text, whatever the file.
pub const MAX_PLAN_VALUES: usize = 500_000;

/// Largest `QGC WPL 110` file, bytes: [`MAX_ITEMS`] lines plus the home line at about 100 bytes
/// each, with room for comments and wide numbers.
pub const MAX_WPL_BYTES: usize = 4 << 20;
