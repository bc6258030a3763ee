//! Which α3 definitions a score uses. `alpha3-v1` is ALPHA3.md's reading of the paper;
//! `alpha3-v2` replaces CC and IQ with the definitions that reproduce the published
//! leaderboard (docs/METRIC-V2.md). TO, SP, TC, NR, the weights and the aggregation are the same
//! in both.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An α3 metric version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum MetricVersion {
    /// CC against 10,000 tokens and 25 actions; IQ = (L against T*, A, grounding G) / 3.
    #[serde(rename = "alpha3-v1")]
    V1,
    /// CC = ½·min(1, 3,000 / tokens) + ½·min(1, 10 / actions); IQ = (min(1, 10 / T), A,
    /// answered actions) / 3.
    #[default]
    #[serde(rename = "alpha3-v2")]
    V2,
}

/// A metric name that is not a known version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric version {0:?} (known: alpha3-v1, alpha3-v2)")]
pub struct UnknownMetric(pub String);

impl MetricVersion {
    /// Every version, oldest first.
    pub const ALL: [MetricVersion; 2] = [MetricVersion::V1, MetricVersion::V2];

    /// The version string reports and records carry.
    pub const fn as_str(self) -> &'static str {
        match self {
            MetricVersion::V1 => "alpha3-v1",
            MetricVersion::V2 => "alpha3-v2",
        }
    }
}

impl fmt::Display for MetricVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MetricVersion {
    type Err = UnknownMetric;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MetricVersion::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMetric(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in MetricVersion::ALL {
            assert_eq!(m.as_str().parse::<MetricVersion>(), Ok(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.as_str()));
        }
        assert!("alpha3-v3".parse::<MetricVersion>().is_err());
    }

    #[test]
    fn the_default_is_the_crate_metric_version() {
        assert_eq!(MetricVersion::default().as_str(), crate::METRIC_VERSION);
    }
}
