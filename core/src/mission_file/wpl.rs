//! `QGC WPL 110`: a header line, then one tab-separated line of 12 fields per item: INDEX,
//! CURRENT, FRAME, COMMAND, P1–P4, X (lat°), Y (lon°), Z, AUTOCONTINUE (MISSION-FACTS §6).
//! A mission's line 0 is home (ArduPilot's convention); ArduPilot's tools write fence and rally
//! lists in the same format without a home line, so a file whose first item is a fence or
//! rally command is read as that list.

use std::fmt::Write as _;

use super::check::check_item;
use super::error::{At, MissionFileError};
use super::fence::{Fence, GeoPoint};
use super::frame::FrameKind;
use super::item::{MissionItem, MissionType, deg_to_e7};
use super::limits::{MAX_ITEMS, MAX_WPL_BYTES};
use super::mav_cmd;
use super::rally::{rally_from_items_at, rally_to_items};
use super::terrain::ReadOptions;

const HEADER: &str = "QGC WPL 110";
/// The column names of the format, for error messages.
const FIELDS: [&str; 12] = [
    "INDEX",
    "CURRENT",
    "FRAME",
    "COMMAND",
    "P1",
    "P2",
    "P3",
    "P4",
    "X",
    "Y",
    "Z",
    "AUTOCONTINUE",
];

/// A mission in WPL form: the home line and the items after it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WplMission {
    /// Line 0; `None` only for a file without items. A reader does not fly to it: ArduPilot
    /// replaces it with the vehicle's own home on upload.
    pub home: Option<MissionItem>,
    /// Lines 1…, `seq` from 0 (line `seq + 1`).
    pub items: Vec<MissionItem>,
}

/// What a WPL file holds. A file with no item lines reads as an empty mission: the format
/// cannot tell an empty fence or rally list from it.
#[derive(Debug, Clone, PartialEq)]
pub enum WplFile {
    Mission(WplMission),
    Fence(Fence),
    Rally(Vec<GeoPoint>),
}

/// Reads a `QGC WPL 110` file (at most [`MAX_WPL_BYTES`], [`MAX_ITEMS`] items besides home).
/// Blank lines and `#` comments are skipped, as MAVSDK and pymavlink do.
pub fn read_wpl(bytes: &[u8], options: &ReadOptions) -> Result<WplFile, MissionFileError> {
    if bytes.len() > MAX_WPL_BYTES {
        return Err(MissionFileError::TooLarge {
            bytes: bytes.len(),
            max: MAX_WPL_BYTES,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = bytes.split(|&byte| byte == b'\n').enumerate();
    let header = match lines.next() {
        Some((_, line)) => text(line, 1)?.trim(),
        None => "",
    };
    if header != HEADER {
        return Err(MissionFileError::Header {
            found: header.chars().take(40).collect(),
        });
    }
    let mut raw: Vec<(MissionItem, usize)> = Vec::new();
    for (index, line) in lines {
        let number = index + 1;
        let line = text(line, number)?.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        // Home plus MAX_ITEMS items.
        if raw.len() > MAX_ITEMS {
            return Err(MissionFileError::TooManyItems {
                at: At::Line {
                    line: number,
                    field: None,
                },
                list: "WPL",
                max: MAX_ITEMS,
            });
        }
        let at = At::Line {
            line: number,
            field: None,
        };
        let (position, item) = parse_line(line, &at)?;
        // The list starts at 0 in all three kinds; a gap or a repeat is a lost or stray line.
        if usize::from(position) != raw.len() {
            return Err(MissionFileError::invalid(
                at.field("INDEX"),
                format!("index {position} where {} was expected", raw.len()),
            ));
        }
        raw.push((item, number));
    }
    let line_of = |index: usize| At::Line {
        line: raw.get(index).map_or(0, |&(_, line)| line),
        field: None,
    };
    let items: Vec<MissionItem> = raw.iter().map(|&(item, _)| item).collect();
    match items.first().map(|item| item.command) {
        Some(command) if mav_cmd::is_fence(command) => {
            let fence = items.iter().map(|&item| MissionItem {
                mission_type: MissionType::Fence,
                ..item
            });
            Ok(WplFile::Fence(Fence::from_items_at(
                &fence.collect::<Vec<_>>(),
                options,
                line_of,
            )?))
        }
        Some(mav_cmd::NAV_RALLY_POINT) => {
            let rally: Vec<MissionItem> = items
                .iter()
                .map(|&item| MissionItem {
                    mission_type: MissionType::Rally,
                    ..item
                })
                .collect();
            Ok(WplFile::Rally(rally_from_items_at(
                &rally, options, line_of,
            )?))
        }
        _ => {
            let mut resolved = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let at = line_of(index);
                check_item(item, &at)?;
                let mut item = options.resolve(*item, &at)?;
                item.seq = u16::try_from(index.saturating_sub(1)).unwrap_or(u16::MAX);
                resolved.push(item);
            }
            let mut resolved = resolved.into_iter();
            let home = resolved.next();
            Ok(WplFile::Mission(WplMission {
                home,
                items: resolved.collect(),
            }))
        }
    }
}

/// A line as text, or where it is not UTF-8.
fn text(line: &[u8], number: usize) -> Result<&str, MissionFileError> {
    std::str::from_utf8(line).map_err(|_| MissionFileError::NotUtf8 {
        at: At::Line {
            line: number,
            field: None,
        },
    })
}

/// One item line: its INDEX and the item (frame not yet resolved for terrain).
fn parse_line(line: &str, at: &At) -> Result<(u16, MissionItem), MissionFileError> {
    let count = line.split('\t').count();
    if count != FIELDS.len() {
        return Err(MissionFileError::FieldCount {
            at: at.clone(),
            found: count,
        });
    }
    let mut fields = [""; 12];
    for (slot, field) in fields.iter_mut().zip(line.split('\t')) {
        *slot = field.trim();
    }
    let [
        index,
        current,
        frame,
        command,
        p1,
        p2,
        p3,
        p4,
        x,
        y,
        z,
        autocontinue,
    ] = fields;
    let frame: u8 = integer(frame, &at.field("FRAME"))?;
    let kind = FrameKind::of(frame).ok_or_else(|| MissionFileError::UnsupportedFrame {
        at: at.field("FRAME"),
        frame,
    })?;
    let item = MissionItem {
        seq: 0,
        frame,
        command: integer(command, &at.field("COMMAND"))?,
        current: flag(current, &at.field("CURRENT"))?,
        autocontinue: flag(autocontinue, &at.field("AUTOCONTINUE"))?,
        param1: float(p1, &at.field("P1"))?,
        param2: float(p2, &at.field("P2"))?,
        param3: float(p3, &at.field("P3"))?,
        param4: float(p4, &at.field("P4"))?,
        x: coordinate(x, kind, &at.field("X"))?,
        y: coordinate(y, kind, &at.field("Y"))?,
        z: float(z, &at.field("Z"))?,
        mission_type: MissionType::Mission,
    };
    Ok((integer(index, &at.field("INDEX"))?, item))
}

/// A decimal integer that fits `T`.
fn integer<T: std::str::FromStr>(field: &str, at: &At) -> Result<T, MissionFileError> {
    field.parse().map_err(|_| {
        MissionFileError::invalid(
            at.clone(),
            format!("{:?} is not an integer in range", cut(field)),
        )
    })
}

/// `0` or `1`.
fn flag(field: &str, at: &At) -> Result<bool, MissionFileError> {
    match field {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(MissionFileError::invalid(
            at.clone(),
            format!("{:?} is neither 0 nor 1", cut(field)),
        )),
    }
}

/// An `f32` read directly (no rounding through `f64`); `NaN` allowed, infinity refused.
fn float(field: &str, at: &At) -> Result<f32, MissionFileError> {
    match field.parse::<f32>() {
        Ok(value) if !value.is_infinite() => Ok(value),
        _ => Err(MissionFileError::invalid(
            at.clone(),
            format!("{:?} is not a finite number or NaN", cut(field)),
        )),
    }
}

/// X or Y: degrees ×1e7 in a global frame (terrain frames too: their X/Y are degrees as well),
/// a rounded integer in frame 2.
fn coordinate(field: &str, kind: FrameKind, at: &At) -> Result<i32, MissionFileError> {
    let value: f64 = field.parse().unwrap_or(f64::NAN);
    let converted = if kind.is_global() {
        deg_to_e7(value)
    } else {
        let rounded = value.round();
        (rounded.is_finite() && rounded >= f64::from(i32::MIN) && rounded <= f64::from(i32::MAX))
            .then_some(rounded as i32)
    };
    converted.ok_or_else(|| {
        MissionFileError::invalid(at.clone(), format!("{:?} is not a coordinate", cut(field)))
    })
}

/// At most 40 characters of a field, for a message.
fn cut(field: &str) -> String {
    field.chars().take(40).collect()
}

/// The file as WPL text. A mission needs its home line when it has items; its home must not
/// be a fence or rally command (it would read back as that list).
pub fn write_wpl(file: &WplFile) -> Result<String, MissionFileError> {
    let mut out = format!("{HEADER}\n");
    match file {
        WplFile::Mission(mission) => {
            let lines = mission.home.iter().chain(&mission.items);
            if mission.home.is_none() && !mission.items.is_empty() {
                return Err(MissionFileError::Missing {
                    at: At::Entry {
                        list: "WPL home line",
                        index: 0,
                    },
                });
            }
            if let Some(home) = &mission.home
                && (mav_cmd::is_fence(home.command) || home.command == mav_cmd::NAV_RALLY_POINT)
            {
                return Err(MissionFileError::invalid(
                    At::Entry {
                        list: "WPL home line",
                        index: 0,
                    },
                    "home is a fence or rally command",
                ));
            }
            if mission.items.len() > MAX_ITEMS {
                return Err(MissionFileError::TooManyItems {
                    at: At::File,
                    list: "mission",
                    max: MAX_ITEMS,
                });
            }
            for (index, item) in lines.enumerate() {
                write_line(
                    &mut out,
                    index,
                    item,
                    &At::Entry {
                        list: "WPL line",
                        index,
                    },
                )?;
            }
        }
        WplFile::Fence(fence) => {
            for (index, item) in fence.to_items()?.iter().enumerate() {
                write_line(
                    &mut out,
                    index,
                    item,
                    &At::Entry {
                        list: "fence item",
                        index,
                    },
                )?;
            }
        }
        WplFile::Rally(points) => {
            for (index, item) in rally_to_items(points)?.iter().enumerate() {
                write_line(
                    &mut out,
                    index,
                    item,
                    &At::Entry {
                        list: "rally item",
                        index,
                    },
                )?;
            }
        }
    }
    Ok(out)
}

/// One line: f32 fields in Rust's shortest round-trip form (`NaN` as `NaN`), lat/lon exactly
/// as the ×1e7 integer says.
fn write_line(
    out: &mut String,
    index: usize,
    item: &MissionItem,
    at: &At,
) -> Result<(), MissionFileError> {
    let kind = check_item(item, at)?;
    let coordinate = |value: i32| {
        if kind.is_global() {
            e7_decimal(value)
        } else {
            value.to_string()
        }
    };
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "{index}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        u8::from(item.current),
        item.frame,
        item.command,
        item.param1,
        item.param2,
        item.param3,
        item.param4,
        coordinate(item.x),
        coordinate(item.y),
        item.z,
        u8::from(item.autocontinue),
    );
    Ok(())
}

/// `value / 1e7` as an exact decimal with seven places (`473977507` → `47.3977507`).
fn e7_decimal(value: i32) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    format!(
        "{sign}{}.{:07}",
        magnitude / 10_000_000,
        magnitude % 10_000_000
    )
}
