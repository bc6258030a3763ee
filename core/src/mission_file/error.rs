//! What can be wrong with a plan file, and where. Every reader and writer returns these instead
//! of panicking: a file is untrusted input, and the engineer needs the line or field to fix it.

use std::fmt;

/// Where in a file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// The file as a whole.
    File,
    /// A path in a `.plan`'s JSON, as `mission.items[3].params[2]`.
    Json(String),
    /// A line of a `QGC WPL 110` file (1-based; the header is line 1) and, where one is to
    /// blame, its field by the column name of the format (`INDEX`, `FRAME`, `P1`, `X`, …).
    Line {
        line: usize,
        field: Option<&'static str>,
    },
    /// An entry of a list being written (0-based), as `mission item 4`.
    Entry { list: &'static str, index: usize },
}

impl At {
    /// `self` with `.key` appended, for a JSON path.
    pub(crate) fn key(&self, key: &str) -> At {
        match self {
            At::Json(path) if !path.is_empty() => At::Json(format!("{path}.{key}")),
            _ => At::Json(key.to_string()),
        }
    }

    /// `self` with `[index]` appended, for a JSON path.
    pub(crate) fn index(&self, index: usize) -> At {
        match self {
            At::Json(path) => At::Json(format!("{path}[{index}]")),
            _ => At::Json(format!("[{index}]")),
        }
    }

    /// The same line with its field named.
    pub(crate) fn field(&self, name: &'static str) -> At {
        match self {
            At::Line { line, .. } => At::Line {
                line: *line,
                field: Some(name),
            },
            other => other.clone(),
        }
    }
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::File => write!(f, "file"),
            At::Json(path) if path.is_empty() => write!(f, "(top level)"),
            At::Json(path) => write!(f, "{path}"),
            At::Line { line, field: None } => write!(f, "line {line}"),
            At::Line {
                line,
                field: Some(field),
            } => write!(f, "line {line}, field {field}"),
            At::Entry { list, index } => write!(f, "{list} {index}"),
        }
    }
}

/// A plan file that cannot be read, or a plan that cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MissionFileError {
    /// Refused before parsing (see [`super::limits`]).
    #[error("the file is {bytes} bytes, over the cap of {max} bytes")]
    TooLarge { bytes: usize, max: usize },
    /// A `.plan` with more JSON values than [`super::limits::MAX_PLAN_VALUES`]; refused
    /// before parsing.
    #[error("the file holds up to {values} JSON values, over the cap of {max}")]
    TooComplex { values: usize, max: usize },
    /// A list longer than [`super::limits::MAX_ITEMS`]; refused before it is built.
    #[error("{at}: more than {max} {list} items")]
    TooManyItems {
        at: At,
        list: &'static str,
        max: usize,
    },
    #[error("{at}: not UTF-8 text")]
    NotUtf8 { at: At },
    /// A `.plan` that is not JSON, or is cut short (serde's line and column).
    #[error("JSON syntax error at line {line}, column {column}: {message}")]
    JsonSyntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The first line of a WPL file is not `QGC WPL 110`.
    #[error("line 1: header {found:?}, expected \"QGC WPL 110\"")]
    Header { found: String },
    /// A WPL line without its 12 tab-separated fields.
    #[error("{at}: {found} tab-separated fields, a QGC WPL 110 line has 12")]
    FieldCount { at: At, found: usize },
    #[error("{at}: missing")]
    Missing { at: At },
    /// A value of the wrong type or out of range; `problem` says which.
    #[error("{at}: {problem}")]
    Invalid { at: At, problem: String },
    /// `fileType`/`version` of a `.plan` or one of its parts that this reader does not take.
    #[error("{at}: {found}, this reader takes {expected}")]
    Version {
        at: At,
        found: String,
        expected: String,
    },
    /// A QGroundControl complex item other than a survey: only QGC's own geometry code can turn
    /// it into items, so it is refused rather than flown wrong.
    #[error(
        "{at}: complex item type {kind:?} is not supported (only \"survey\", whose items QGroundControl saved in the file); convert it to simple items in QGroundControl"
    )]
    UnsupportedComplexItem { at: At, kind: String },
    /// A frame that is neither global (0, 3, 5, 6), terrain (10, 11) nor mission (2).
    #[error(
        "{at}: frame {frame} is not supported (global 0/3/5/6, terrain 10/11 with terrain heights, mission 2)"
    )]
    UnsupportedFrame { at: At, frame: u8 },
    /// An altitude above terrain, and the caller gave no terrain heights to turn it into AMSL.
    #[error(
        "{at}: frame {frame} gives the altitude above terrain and no terrain heights were given; pass terrain heights, or plan relative to home (frame 3) or AMSL (frame 0)"
    )]
    TerrainFrame { at: At, frame: u8 },
    /// Terrain heights were given but do not cover this point.
    #[error("{at}: no terrain height at lat {lat_deg}°, lon {lon_deg}°")]
    TerrainUnknown { at: At, lat_deg: f64, lon_deg: f64 },
}

impl MissionFileError {
    /// Where the problem is, when the error has a place (a syntax error has its own line and
    /// column; a size cap is about the whole file).
    pub fn at(&self) -> Option<&At> {
        match self {
            MissionFileError::TooManyItems { at, .. }
            | MissionFileError::NotUtf8 { at }
            | MissionFileError::FieldCount { at, .. }
            | MissionFileError::Missing { at }
            | MissionFileError::Invalid { at, .. }
            | MissionFileError::Version { at, .. }
            | MissionFileError::UnsupportedComplexItem { at, .. }
            | MissionFileError::UnsupportedFrame { at, .. }
            | MissionFileError::TerrainFrame { at, .. }
            | MissionFileError::TerrainUnknown { at, .. } => Some(at),
            MissionFileError::TooLarge { .. }
            | MissionFileError::TooComplex { .. }
            | MissionFileError::JsonSyntax { .. }
            | MissionFileError::Header { .. } => None,
        }
    }

    pub(crate) fn invalid(at: At, problem: impl Into<String>) -> Self {
        MissionFileError::Invalid {
            at,
            problem: problem.into(),
        }
    }
}
