//! How the safety path kept up in one episode (issue 31): the telemetry's age each time the
//! gate judged (every agent command and every watchdog tick), the gate's own time for it, and
//! how late each watchdog tick ran after its due time on the vehicle's clock — split by
//! whether the policy was deciding then (a local model decoding on the same cores) or not.
//! The wall-clock part would make a record differ between two runs of one seed, so this goes
//! to the episode's outcome and `fly`'s report, not into the record.

use serde::Serialize;

/// Samples kept per kind and phase; later ones are counted, not kept (an hour at 10 Hz is
/// 36,000).
const KEEP: usize = 200_000;

/// The samples of one phase, in the order taken.
#[derive(Debug, Clone, Default, Serialize)]
struct Samples {
    age_ms: Vec<f64>,
    gate_us: Vec<f64>,
    late_ms: Vec<f64>,
    dropped: u64,
}

/// Equal when what happened on the vehicle's clock is (the telemetry's ages, the ticks'
/// lateness): the gate's wall time is the machine's, not the episode's, so a replay of a
/// record compares equal to its run.
impl PartialEq for Samples {
    fn eq(&self, other: &Self) -> bool {
        self.age_ms == other.age_ms
            && self.late_ms == other.late_ms
            && self.gate_us.len() == other.gate_us.len()
    }
}

impl Samples {
    fn push(v: &mut Vec<f64>, dropped: &mut u64, x: f64) {
        if v.len() < KEEP {
            v.push(x);
        } else {
            *dropped += 1;
        }
    }
}

/// What the safety path measured in one episode; serialised with every sample, so runs can
/// be pooled (`scripts/safety-under-load.sh`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SafetyTiming {
    calm: Samples,
    deciding: Samples,
    /// The policy is deciding now: samples go to that phase.
    #[serde(skip)]
    pub(super) in_decision: bool,
}

impl SafetyTiming {
    fn phase(&mut self) -> &mut Samples {
        if self.in_decision {
            &mut self.deciding
        } else {
            &mut self.calm
        }
    }

    /// The gate judged on telemetry `age_ms` old, taking `gate_us` of wall time.
    pub fn judged(&mut self, age_ms: u64, gate_us: f64) {
        let p = self.phase();
        Samples::push(&mut p.age_ms, &mut p.dropped, age_ms as f64);
        Samples::push(&mut p.gate_us, &mut p.dropped, gate_us);
    }

    /// A watchdog tick ran `late_ms` after its due time (vehicle clock).
    pub fn ticked(&mut self, late_ms: u64) {
        let p = self.phase();
        Samples::push(&mut p.late_ms, &mut p.dropped, late_ms as f64);
    }

    /// Writes `DIR/<episode_id>.json`: the summary and every sample. A file that cannot be
    /// written is a warning: the record is what matters.
    pub fn write(&self, dir: &std::path::Path, episode_id: &str) {
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            let json = serde_json::to_vec(&serde_json::json!({
                "episode_id": episode_id,
                "summary": self.summary(),
                "samples": self,
            }))
            .map_err(std::io::Error::other)?;
            std::fs::write(dir.join(format!("{episode_id}.json")), json)
        });
        if let Err(e) = written {
            tracing::warn!("cannot write the safety timing into {}: {e}", dir.display());
        }
    }

    /// Quantiles of everything measured.
    pub fn summary(&self) -> SafetySummary {
        SafetySummary {
            calm: self.calm.spreads(),
            deciding: self.deciding.spreads(),
        }
    }
}

impl Samples {
    fn spreads(&self) -> PhaseSummary {
        PhaseSummary {
            telemetry_age_ms: Spread::of(&self.age_ms),
            gate_us: Spread::of(&self.gate_us),
            tick_late_ms: Spread::of(&self.late_ms),
            dropped: self.dropped,
        }
    }
}

/// [`SafetyTiming`] as quantiles, per phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SafetySummary {
    /// While no decision was pending.
    pub calm: PhaseSummary,
    /// While the policy was deciding.
    pub deciding: PhaseSummary,
}

/// One phase's quantiles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PhaseSummary {
    pub telemetry_age_ms: Spread,
    pub gate_us: Spread,
    pub tick_late_ms: Spread,
    /// Samples past the bound kept per kind, counted only.
    pub dropped: u64,
}

/// Count, median, 99th percentile (nearest rank) and maximum of a sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(samples: &[f64]) -> Self {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        Self {
            n: s.len(),
            p50: crate::perf::stats::quantile(&s, 0.5),
            p99: crate::perf::stats::quantile(&s, 0.99),
            max: s.last().copied().unwrap_or(0.0),
        }
    }

    /// `p50/p99/max` with `digits` decimals, or `-` without samples.
    pub fn short(&self, digits: usize) -> String {
        if self.n == 0 {
            return "-".into();
        }
        format!(
            "{:.d$}/{:.d$}/{:.d$}",
            self.p50,
            self.p99,
            self.max,
            d = digits
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_go_to_the_phase_they_were_taken_in() {
        let mut t = SafetyTiming::default();
        for age in [10, 20, 30] {
            t.judged(age, 5.0);
        }
        t.ticked(0);
        t.in_decision = true;
        t.judged(400, 9.0);
        t.ticked(250);
        t.in_decision = false;
        let s = t.summary();
        assert_eq!(s.calm.telemetry_age_ms.n, 3);
        assert_eq!(s.calm.telemetry_age_ms.p50, 20.0);
        assert_eq!(s.calm.telemetry_age_ms.max, 30.0);
        assert_eq!(s.deciding.telemetry_age_ms.max, 400.0);
        assert_eq!(s.deciding.tick_late_ms.max, 250.0);
        assert_eq!(s.calm.tick_late_ms.max, 0.0);
        assert_eq!(s.deciding.gate_us.n, 1);
    }

    #[test]
    fn runs_that_differ_only_in_the_gates_wall_time_are_equal() {
        let (mut a, mut b) = (SafetyTiming::default(), SafetyTiming::default());
        a.judged(20, 5.0);
        b.judged(20, 50.0);
        assert_eq!(a, b);
        b.judged(30, 5.0);
        a.judged(31, 5.0);
        assert_ne!(a, b, "another telemetry age is another episode");
    }

    #[test]
    fn an_empty_spread_prints_a_dash() {
        assert_eq!(Spread::of(&[]).short(1), "-");
        assert_eq!(Spread::of(&[1.0, 3.0, 2.0]).short(0), "2/3/3");
    }
}
