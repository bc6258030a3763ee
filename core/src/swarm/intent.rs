//! What a vehicle tells its swarm-mates over A2A: where it means to be over the next minutes.
//! Compact JSON (one message of a few `TUNNEL` chunks), geodetic so that every receiver maps it
//! into its own local frame, and times relative to sending so no shared clock is needed.

use crate::frames::Geo;
use serde::{Deserialize, Serialize};

/// The format this code writes and reads (`"v"`).
pub const INTENT_FORMAT: u8 = 1;
/// Points one intent may carry.
pub const INTENT_POINTS_MAX: usize = 32;
/// Characters of a vehicle's name.
const NAME_MAX: usize = 32;
/// How far ahead an intent may reach, ms (an hour: anything further is a mistake).
const AHEAD_MAX_MS: u32 = 3_600_000;

/// What the sender is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentState {
    Ground,
    Flying,
    Holding,
    /// Holding where it is, wanting to fly the path (its gate refused it for now): a mate that
    /// gives way to it should clear that path.
    Waiting,
    Landing,
}

/// One point of the intended path: `[in_ms, lat_e7, lon_e7, alt_amsl_dm]` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntentPoint(pub u32, pub i32, pub i32, pub i32);

impl IntentPoint {
    /// `geo` reached `in_ms` after the message was sent (positions to 1 cm, altitude to 1 dm).
    pub fn new(in_ms: u32, geo: Geo) -> Self {
        Self(
            in_ms,
            (geo.lat_deg * 1e7).round() as i32,
            (geo.lon_deg * 1e7).round() as i32,
            (geo.alt_amsl_m * 10.0).round() as i32,
        )
    }

    pub fn in_ms(&self) -> u32 {
        self.0
    }

    pub fn geo(&self) -> Geo {
        Geo {
            lat_deg: f64::from(self.1) / 1e7,
            lon_deg: f64::from(self.2) / 1e7,
            alt_amsl_m: f64::from(self.3) / 10.0,
        }
    }
}

/// One A2A intent message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intent {
    pub v: u8,
    /// The sender's vehicle name (the record's and the summary's).
    pub from: String,
    /// Counts up with every intent the sender sends: an older one arriving late is ignored.
    pub seq: u32,
    pub state: IntentState,
    /// Where it will be, in increasing `in_ms`; the first point is where it is when sending.
    pub path: Vec<IntentPoint>,
}

/// Why received bytes are not an intent this code can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntentError {
    #[error("not an intent: {0}")]
    Json(String),
    #[error("intent format {0} is not {INTENT_FORMAT}")]
    Format(u8),
    #[error("intent: {0}")]
    Invalid(&'static str),
}

impl Intent {
    pub fn to_bytes(&self) -> Vec<u8> {
        // A struct of strings, integers and a unit enum always serialises.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads and checks an intent from untrusted bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, IntentError> {
        let intent: Self =
            serde_json::from_slice(bytes).map_err(|e| IntentError::Json(e.to_string()))?;
        if intent.v != INTENT_FORMAT {
            return Err(IntentError::Format(intent.v));
        }
        if intent.from.is_empty() || intent.from.chars().count() > NAME_MAX {
            return Err(IntentError::Invalid(
                "the sender's name must be 1 to 32 characters",
            ));
        }
        if intent.path.is_empty() || intent.path.len() > INTENT_POINTS_MAX {
            return Err(IntentError::Invalid("the path must have 1 to 32 points"));
        }
        if intent.path.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(IntentError::Invalid("path times must increase strictly"));
        }
        if intent.path.iter().any(|p| {
            p.0 > AHEAD_MAX_MS
                || !(-900_000_000..=900_000_000).contains(&p.1)
                || !(-1_800_000_000..=1_800_000_000).contains(&p.2)
                || !(-5_000..=100_000).contains(&p.3)
        }) {
            return Err(IntentError::Invalid(
                "a point is out of range (an hour ahead, ±90°, ±180°, −500 to 10,000 m)",
            ));
        }
        Ok(intent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent() -> Intent {
        Intent {
            v: INTENT_FORMAT,
            from: "uav-2".into(),
            seq: 4,
            state: IntentState::Flying,
            path: vec![
                IntentPoint::new(
                    0,
                    Geo {
                        lat_deg: 47.397_742,
                        lon_deg: 8.545_594,
                        alt_amsl_m: 518.3,
                    },
                ),
                IntentPoint::new(
                    20_000,
                    Geo {
                        lat_deg: 47.398_5,
                        lon_deg: 8.546,
                        alt_amsl_m: 528.0,
                    },
                ),
            ],
        }
    }

    #[test]
    fn an_intent_round_trips_compactly() {
        let i = intent();
        let bytes = i.to_bytes();
        assert_eq!(Intent::parse(&bytes).unwrap(), i);
        assert!(bytes.len() < 140, "{}", String::from_utf8_lossy(&bytes));
        let g = i.path[0].geo();
        assert!((g.lat_deg - 47.397_742).abs() < 1e-7 && (g.alt_amsl_m - 518.3).abs() < 0.05);
    }

    #[test]
    fn bad_intents_are_refused_with_a_reason() {
        assert!(matches!(Intent::parse(b"{"), Err(IntentError::Json(_))));
        let mut i = intent();
        i.v = 2;
        assert_eq!(Intent::parse(&i.to_bytes()), Err(IntentError::Format(2)));
        let mut i = intent();
        i.path.reverse();
        assert!(Intent::parse(&i.to_bytes()).is_err());
        let mut i = intent();
        i.path.clear();
        assert!(Intent::parse(&i.to_bytes()).is_err());
        let mut i = intent();
        i.path[1].1 = 950_000_000;
        assert!(Intent::parse(&i.to_bytes()).is_err());
        let mut i = intent();
        i.from = "x".repeat(33);
        assert!(Intent::parse(&i.to_bytes()).is_err());
        let extra = br#"{"v":1,"from":"a","seq":1,"state":"flying","path":[[0,1,1,1]],"x":1}"#;
        assert!(Intent::parse(extra).is_err());
    }
}
