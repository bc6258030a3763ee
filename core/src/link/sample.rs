//! One measurement of the link, in the shape α3-Bench episodes record (`net`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A 6G network slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Slice {
    /// Ultra-reliable low-latency: control traffic.
    #[serde(rename = "URLLC")]
    Urllc,
    /// Enhanced mobile broadband: bulk sensing, video.
    #[serde(rename = "eMBB")]
    Embb,
    /// Massive machine-type: low-rate monitoring.
    #[serde(rename = "mMTC")]
    Mmtc,
}

impl Slice {
    pub const ALL: [Slice; 3] = [Slice::Urllc, Slice::Embb, Slice::Mmtc];

    pub fn as_str(self) -> &'static str {
        match self {
            Slice::Urllc => "URLLC",
            Slice::Embb => "eMBB",
            Slice::Mmtc => "mMTC",
        }
    }
}

impl fmt::Display for Slice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Link state as measured (closed loop) or as written by a model (published episodes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LinkSample {
    pub slice: Slice,
    pub lat_ms: f64,
    pub jitter_ms: f64,
    pub loss_pct: f64,
    pub throughput_mbps: f64,
    /// Edge-server load, 0..1.
    pub edge_load: f64,
}

/// The limits beyond which a link is "hard" (ALPHA3.md §2, NR).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HardThresholds {
    /// Hard when latency exceeds this.
    pub max_latency_ms: f64,
    /// Hard when loss is at least this.
    pub max_loss_pct: f64,
    /// Hard when throughput is below this.
    pub min_throughput_mbps: f64,
    /// Hard when edge load exceeds this.
    pub max_edge_load: f64,
}

impl Default for HardThresholds {
    fn default() -> Self {
        Self {
            max_latency_ms: 40.0,
            max_loss_pct: 1.0,
            min_throughput_mbps: 5.0,
            max_edge_load: 0.8,
        }
    }
}

impl LinkSample {
    /// Whether this sample is in the hard state under `t`.
    pub fn is_hard(&self, t: &HardThresholds) -> bool {
        self.lat_ms > t.max_latency_ms
            || self.loss_pct >= t.max_loss_pct
            || self.throughput_mbps < t.min_throughput_mbps
            || self.edge_load > t.max_edge_load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> LinkSample {
        LinkSample {
            slice: Slice::Urllc,
            lat_ms: 7.0,
            jitter_ms: 1.1,
            loss_pct: 0.1,
            throughput_mbps: 50.0,
            edge_load: 0.3,
        }
    }

    #[test]
    fn each_threshold_alone_makes_a_link_hard() {
        let t = HardThresholds::default();
        assert!(!good().is_hard(&t));
        assert!(
            LinkSample {
                lat_ms: 40.1,
                ..good()
            }
            .is_hard(&t)
        );
        assert!(
            !LinkSample {
                lat_ms: 40.0,
                ..good()
            }
            .is_hard(&t)
        );
        assert!(
            LinkSample {
                loss_pct: 1.0,
                ..good()
            }
            .is_hard(&t)
        );
        assert!(
            LinkSample {
                throughput_mbps: 4.9,
                ..good()
            }
            .is_hard(&t)
        );
        assert!(
            LinkSample {
                edge_load: 0.81,
                ..good()
            }
            .is_hard(&t)
        );
    }

    #[test]
    fn slice_names_match_the_published_spelling() {
        assert_eq!(serde_json::to_string(&Slice::Embb).unwrap(), "\"eMBB\"");
        let s: Slice = serde_json::from_str("\"mMTC\"").unwrap();
        assert_eq!(s, Slice::Mmtc);
    }
}
