//! Which α3 definitions a score uses. `alpha3-v1` is ALPHA3.md's reading of the paper;
//! `alpha3-v2` replaces CC and IQ with the definitions that reproduce the published
//! leaderboard (docs/METRIC-V2.md); `alpha3-v3` keeps v2 and changes NR's adaptation and slice
//! terms to what three published runs support (docs/METRIC-V3.md). TO, SP, TC, the weights and
//! the aggregation are the same in all three.

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
    /// v2, with NR's adaptation judged from a published agent's declared intent (its behaviour
    /// in a flight record) and its slice awareness over the agent's own actions.
    #[serde(rename = "alpha3-v3")]
    V3,
}

/// A metric name that is not a known version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric version {0:?} (known: alpha3-v1, alpha3-v2, alpha3-v3)")]
pub struct UnknownMetric(pub String);

impl MetricVersion {
    /// Every version, oldest first.
    pub const ALL: [MetricVersion; 3] = [MetricVersion::V1, MetricVersion::V2, MetricVersion::V3];

    /// The version string reports and records carry.
    pub const fn as_str(self) -> &'static str {
        match self {
            MetricVersion::V1 => "alpha3-v1",
            MetricVersion::V2 => "alpha3-v2",
            MetricVersion::V3 => "alpha3-v3",
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
        assert!("alpha3-v4".parse::<MetricVersion>().is_err());
    }

    #[test]
    fn the_default_is_the_crate_metric_version() {
        assert_eq!(MetricVersion::default().as_str(), crate::METRIC_VERSION);
    }
}
