//! The six pillars of one episode and α3(e), their weighted sum (weights exact, ALPHA3.md §2).

use serde::{Deserialize, Serialize};

/// Weights of TO, SP, TC, IQ, NR, CC in α3(e).
pub const WEIGHTS: [f64; 6] = [0.30, 0.20, 0.20, 0.15, 0.10, 0.05];

/// Pillar names, in the order of [`WEIGHTS`] and of the published `pillars` column.
pub const NAMES: [&str; 6] = ["TO", "SP", "TC", "IQ", "NR", "CC"];

/// The pillars of one episode (or their means over a run), each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pillars {
    #[serde(rename = "TO")]
    pub to: f64,
    #[serde(rename = "SP")]
    pub sp: f64,
    #[serde(rename = "TC")]
    pub tc: f64,
    #[serde(rename = "IQ")]
    pub iq: f64,
    #[serde(rename = "NR")]
    pub nr: f64,
    #[serde(rename = "CC")]
    pub cc: f64,
}

impl Pillars {
    /// The values in the order of [`NAMES`].
    pub fn values(&self) -> [f64; 6] {
        [self.to, self.sp, self.tc, self.iq, self.nr, self.cc]
    }

    pub fn from_values(v: [f64; 6]) -> Self {
        Self {
            to: v[0],
            sp: v[1],
            tc: v[2],
            iq: v[3],
            nr: v[4],
            cc: v[5],
        }
    }

    /// α3(e) = 0.30·TO + 0.20·SP + 0.20·TC + 0.15·IQ + 0.10·NR + 0.05·CC.
    pub fn alpha3(&self) -> f64 {
        self.values()
            .iter()
            .zip(WEIGHTS)
            .map(|(v, w)| v * w)
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one() {
        assert!((WEIGHTS.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn alpha3_of_the_published_gpt_4_1_mini_means_is_its_mean() {
        // Linear, so α3 of the pillar means is the mean α3: the published row's own figures.
        let p = Pillars::from_values([
            1.0,
            0.99,
            1.0,
            0.9952525252525253,
            0.8945996332371332,
            0.7602918709288936,
        ]);
        assert!((p.alpha3() - 0.9747624356580368).abs() < 1e-12);
    }

    #[test]
    fn serialises_with_the_published_names() {
        let text = serde_json::to_string(&Pillars::from_values([1.0; 6])).unwrap_or_default();
        assert_eq!(
            text,
            r#"{"TO":1.0,"SP":1.0,"TC":1.0,"IQ":1.0,"NR":1.0,"CC":1.0}"#
        );
    }
}
