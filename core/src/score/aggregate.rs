//! Run-level aggregation (ALPHA3.md §3, exact): means over the valid episodes V, penalised by
//! reliability, coverage and call efficiency into α3 macro, the ranking score. Plus pass^k
//! across seeds and the safety counts of §4.

use super::claim::ClaimTally;
use super::evidence::SafetyCounts;
use super::iq::DEFAULT_T_STAR;
use super::pillars::Pillars;
use super::scorer::{EpisodeEval, Validity};
use serde::Serialize;
use std::collections::BTreeMap;

/// One run (one policy over N requested episodes), aggregated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// N: episodes requested (every file, failures included).
    pub requested: usize,
    /// n = |V|.
    pub n: usize,
    /// Mean α3(e) over V.
    pub mean: f64,
    /// 1.96 · sample std / √n of α3(e) over V (0 when n < 2).
    pub ci95: f64,
    /// Pillar means over V.
    pub pillars: Pillars,
    pub success_rate: f64,
    pub gen_fail_rate: f64,
    pub reliability: f64,
    pub coverage: f64,
    /// Σ a_s over all N episodes (a failure stub counts 1).
    pub total_attempts: u64,
    pub mean_attempts: f64,
    /// Σ decisions / Σ a_s (published: N / Σ a_s).
    pub call_efficiency: f64,
    /// mean × reliability × coverage × call_efficiency.
    pub alpha3_macro: f64,
    /// Over V; `None` when no valid episode reports it.
    pub mean_gen_time_s: Option<f64>,
    pub mean_total_tokens: Option<f64>,
    pub alpha3_per_s: Option<f64>,
    pub alpha3_per_1k_tokens: Option<f64>,
    /// The median turn count of the successful valid episodes (IQ's T*).
    pub t_star: f64,
    /// pass^k for k = 1 … the fewest repeats of any scenario.
    pub pass_k: BTreeMap<u32, f64>,
    /// A 95 % interval `[lo, hi]` for each pass^k ([`pass_k_interval`]).
    pub pass_k_ci95: BTreeMap<u32, [f64; 2]>,
    pub safety: SafetyCounts,
    /// The agent's final word on the outcome against the truth, over V.
    pub claims: ClaimTally,
    /// Every episode was flown by a floor baseline (hover, random), not a contender.
    pub baseline: bool,
}

/// One episode as the run scored it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoredEpisode {
    pub id: String,
    #[serde(flatten)]
    pub validity: Validity,
    /// α3(e) and its pillars; `None` outside V.
    pub alpha3: Option<f64>,
    pub pillars: Option<Pillars>,
    pub attempts: u32,
}

/// Aggregates a run.
pub fn aggregate(evals: &[EpisodeEval]) -> (RunSummary, Vec<ScoredEpisode>) {
    let t_star = t_star(evals);
    let valid: Vec<&EpisodeEval> = evals.iter().filter(|e| e.is_valid()).collect();
    let scored: Vec<(Pillars, f64)> = valid
        .iter()
        .map(|e| {
            let p = e.pillars(t_star);
            (p, p.alpha3())
        })
        .collect();
    let requested = evals.len();
    let n = valid.len();
    let alphas: Vec<f64> = scored.iter().map(|s| s.1).collect();
    let mean = mean_of(&alphas).unwrap_or(0.0);
    let mut pillar_means = [0.0; 6];
    for (i, m) in pillar_means.iter_mut().enumerate() {
        let column: Vec<f64> = scored.iter().map(|s| s.0.values()[i]).collect();
        *m = mean_of(&column).unwrap_or(0.0);
    }
    let pillars = Pillars::from_values(pillar_means);
    let coverage = ratio(n as f64, requested as f64);
    let gen_fail_rate = ratio((requested - n) as f64, requested as f64);
    let reliability = 1.0 - gen_fail_rate;
    let total_attempts: u64 = evals.iter().map(|e| u64::from(e.attempts)).sum();
    let decisions: u64 = evals.iter().map(|e| u64::from(e.decisions)).sum();
    let call_efficiency = ratio(decisions as f64, total_attempts as f64);
    let alpha3_macro = if requested == 0 {
        0.0
    } else {
        mean * reliability * coverage * call_efficiency
    };
    let times: Vec<f64> = valid.iter().filter_map(|e| e.gen_time_s).collect();
    let tokens: Vec<f64> = valid
        .iter()
        .filter_map(|e| e.tokens.map(|t| t as f64))
        .collect();
    let mean_gen_time_s = mean_of(&times);
    let mean_total_tokens = mean_of(&tokens);
    let mut safety = SafetyCounts::default();
    evals.iter().for_each(|e| safety.add(&e.safety));
    let mut claims = ClaimTally::default();
    valid.iter().for_each(|e| claims.add(e.claim));
    let pass_k = pass_hat_k(evals);
    let scenarios = scenario_count(evals);
    let pass_k_ci95 = pass_k
        .iter()
        .map(|(&k, &p)| (k, pass_k_interval(p, scenarios)))
        .collect();
    let summary = RunSummary {
        requested,
        n,
        mean,
        ci95: ci95(&alphas),
        pillars,
        success_rate: pillars.to,
        gen_fail_rate,
        reliability,
        coverage,
        total_attempts,
        mean_attempts: ratio(total_attempts as f64, requested as f64),
        call_efficiency,
        alpha3_macro,
        mean_gen_time_s,
        mean_total_tokens,
        alpha3_per_s: mean_gen_time_s
            .filter(|t| *t > 0.0)
            .map(|t| alpha3_macro / t),
        alpha3_per_1k_tokens: mean_total_tokens
            .filter(|t| *t > 0.0)
            .map(|t| alpha3_macro / (t / 1000.0)),
        t_star,
        pass_k,
        pass_k_ci95,
        safety,
        claims,
        baseline: !evals.is_empty() && evals.iter().all(|e| e.baseline),
    };
    let mut scored = scored.into_iter();
    let episodes = evals
        .iter()
        .map(|e| {
            let s = if e.is_valid() { scored.next() } else { None };
            ScoredEpisode {
                id: e.id.clone(),
                validity: e.validity.clone(),
                alpha3: s.map(|s| s.1),
                pillars: s.map(|s| s.0),
                attempts: e.attempts,
            }
        })
        .collect();
    (summary, episodes)
}

/// T*: the median turn count of the successful valid episodes, 10 when there are none.
pub fn t_star(evals: &[EpisodeEval]) -> f64 {
    let mut turns: Vec<usize> = evals
        .iter()
        .filter(|e| e.is_valid() && e.success)
        .map(|e| e.turns)
        .collect();
    if turns.is_empty() {
        return DEFAULT_T_STAR;
    }
    turns.sort_unstable();
    let mid = turns.len() / 2;
    if turns.len() % 2 == 1 {
        turns[mid] as f64
    } else {
        (turns[mid - 1] + turns[mid]) as f64 / 2.0
    }
}

/// pass^k (τ-bench): per scenario with n repeats of which c succeeded, C(c, k) / C(n, k),
/// averaged over scenarios; for k = 1 … the fewest repeats of any scenario. An episode outside
/// V is a failed repeat. Episodes without a scenario are each their own scenario.
pub fn pass_hat_k(evals: &[EpisodeEval]) -> BTreeMap<u32, f64> {
    let mut by_scenario: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for e in evals {
        let key = e.scenario.as_deref().unwrap_or(e.id.as_str());
        let entry = by_scenario.entry(key).or_default();
        entry.0 += 1;
        entry.1 += u64::from(e.is_valid() && e.success);
    }
    let Some(min_n) = by_scenario.values().map(|s| s.0).min() else {
        return BTreeMap::new();
    };
    (1..=min_n)
        .map(|k| {
            let per: Vec<f64> = by_scenario
                .values()
                .map(|&(n, c)| choose(c, k) / choose(n, k))
                .collect();
            (k as u32, mean_of(&per).unwrap_or(0.0))
        })
        .collect()
}

/// The number of scenarios pass^k averages over.
fn scenario_count(evals: &[EpisodeEval]) -> usize {
    let keys: std::collections::BTreeSet<&str> = evals
        .iter()
        .map(|e| e.scenario.as_deref().unwrap_or(e.id.as_str()))
        .collect();
    keys.len()
}

/// A 95 % Wilson score interval for a pass^k of `p` over `scenarios` scenarios: each scenario
/// is one trial of "all k repeats succeed", whose rate pass^k estimates. Unlike the normal
/// interval it does not collapse to a point at 0 or 1 (5 scenarios all passed: 0.57–1), which
/// is what a short suite mostly gives. `[0, 1]` without scenarios.
pub fn pass_k_interval(p: f64, scenarios: usize) -> [f64; 2] {
    if scenarios == 0 {
        return [0.0, 1.0];
    }
    let n = scenarios as f64;
    let z = 1.96f64;
    let z2 = z * z;
    let p = p.clamp(0.0, 1.0);
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// C(n, k) as a float (0 when k > n).
fn choose(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Mean with compensated (Neumaier) summation, so the order of files cannot change the last
/// printed digit; `None` for no values.
pub fn mean_of(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| sum(xs) / xs.len() as f64)
}

fn sum(xs: &[f64]) -> f64 {
    let mut s = 0.0f64;
    let mut c = 0.0f64;
    for &x in xs {
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// 1.96 · s / √n with the sample standard deviation s.
pub fn ci95(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n < 2 {
        return 0.0;
    }
    let m = sum(xs) / n as f64;
    let squares: Vec<f64> = xs.iter().map(|x| (x - m) * (x - m)).collect();
    let var = sum(&squares) / (n - 1) as f64;
    1.96 * var.sqrt() / (n as f64).sqrt()
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::super::scorer::Source;
    use super::*;

    /// A valid successful published episode with the given α3 parts.
    fn valid(id: &str, turns: usize, attempts: u32) -> EpisodeEval {
        let mut e = EpisodeEval::unreadable(id, Source::Published, "");
        e.validity = Validity::Valid;
        e.success = true;
        e.turns = turns;
        e.attempts = attempts;
        e.to = 1.0;
        e.sp = 1.0;
        e.tc = 1.0;
        e.nr = 1.0;
        e.cc = 1.0;
        e.alternation = 1.0;
        e.grounding = 1.0;
        e.answered = 1.0;
        e.gen_time_s = Some(10.0);
        e.tokens = Some(5000);
        e
    }

    fn stub(id: &str) -> EpisodeEval {
        EpisodeEval::unreadable(id, Source::Published, "generation failed")
    }

    #[test]
    fn the_spec_example_reproduces_the_published_macro() {
        // gpt-5.2-chat: 43 valid of 50, 71 attempts in all (64 over V + 7 stubs at 1 each).
        let mut evals: Vec<EpisodeEval> = (0..43)
            .map(|i| valid(&format!("v{i}"), 10, if i < 21 { 2 } else { 1 }))
            .collect();
        evals.extend((0..7).map(|i| stub(&format!("s{i}"))));
        let (run, episodes) = aggregate(&evals);
        assert_eq!((run.requested, run.n), (50, 43));
        assert_eq!(run.total_attempts, 71);
        assert!((run.mean_attempts - 1.42).abs() < 1e-12);
        assert!((run.call_efficiency - 50.0 / 71.0).abs() < 1e-15);
        assert!((run.gen_fail_rate - 0.14).abs() < 1e-12);
        assert_eq!(run.mean, 1.0);
        assert!((run.alpha3_macro - 0.86 * 0.86 * 50.0 / 71.0).abs() < 1e-12);
        assert_eq!(run.mean_gen_time_s, Some(10.0));
        assert!((run.alpha3_per_s.unwrap_or(0.0) - run.alpha3_macro / 10.0).abs() < 1e-15);
        assert!((run.alpha3_per_1k_tokens.unwrap_or(0.0) - run.alpha3_macro / 5.0).abs() < 1e-15);
        assert_eq!(episodes.iter().filter(|e| e.alpha3.is_none()).count(), 7);
        assert_eq!(run.ci95, 0.0, "identical scores have no spread");
    }

    #[test]
    fn t_star_is_the_median_of_successful_valid_turn_counts() {
        let mut evals = vec![valid("a", 8, 1), valid("b", 12, 1), valid("c", 9, 1)];
        assert_eq!(t_star(&evals), 9.0);
        evals.push(valid("d", 11, 1));
        assert_eq!(t_star(&evals), 10.0);
        evals[0].success = false;
        evals[1].validity = Validity::Unsound("alternation".into());
        assert_eq!(t_star(&evals), 10.0, "median of 9 and 11");
        assert_eq!(t_star(&[stub("x")]), DEFAULT_T_STAR);
    }

    #[test]
    fn v2_iq_takes_the_turn_budget_not_the_runs_t_star() {
        // B = min(1, 10 / T): 1 for 8 and 10 turns, 10/12 for 12, whatever T* is.
        let evals = vec![valid("a", 8, 1), valid("b", 10, 1), valid("c", 12, 1)];
        let (_, episodes) = aggregate(&evals);
        let iq: Vec<f64> = episodes
            .iter()
            .filter_map(|e| e.pillars.map(|p| p.iq))
            .collect();
        assert_eq!(&iq[..2], &[1.0, 1.0]);
        assert!((iq[2] - (10.0 / 12.0 + 2.0) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn iq_length_term_uses_the_runs_t_star() {
        // T* = 10 (median of 8, 10, 12): the 8- and 12-turn episodes get L = 0.8.
        let mut evals = vec![valid("a", 8, 1), valid("b", 10, 1), valid("c", 12, 1)];
        for e in &mut evals {
            e.metric = crate::score::MetricVersion::V1;
        }
        let (run, episodes) = aggregate(&evals);
        assert_eq!(run.t_star, 10.0);
        let iq: Vec<f64> = episodes
            .iter()
            .filter_map(|e| e.pillars.map(|p| p.iq))
            .collect();
        assert!(
            (iq[0] - 2.8 / 3.0).abs() < 1e-12 && iq[1] == 1.0 && (iq[2] - 2.8 / 3.0).abs() < 1e-12
        );
    }

    #[test]
    fn a_broken_alternation_leaves_v_and_counts_as_a_failure() {
        let mut broken = valid("b", 10, 1);
        broken.validity = Validity::Unsound("alternation".into());
        let (run, _) = aggregate(&[valid("a", 10, 1), broken]);
        assert_eq!((run.requested, run.n), (2, 1));
        assert_eq!(run.gen_fail_rate, 0.5);
        assert_eq!(run.alpha3_macro, 0.25);
    }

    #[test]
    fn ci95_uses_the_sample_deviation() {
        // 0 and 1: mean 0.5, sample variance 0.5.
        assert!((ci95(&[0.0, 1.0]) - 1.96 * 0.5f64.sqrt() / 2.0f64.sqrt()).abs() < 1e-12);
        assert_eq!(ci95(&[0.7]), 0.0);
    }

    #[test]
    fn an_empty_run_is_all_zero() {
        let (run, eps) = aggregate(&[]);
        assert_eq!((run.n, run.mean, run.alpha3_macro), (0, 0.0, 0.0));
        assert!(eps.is_empty() && run.pass_k.is_empty() && run.mean_gen_time_s.is_none());
    }

    #[test]
    fn pass_k_over_seeded_repeats() {
        // Scenario A: 3 repeats, 2 succeed; B: 3 repeats, all succeed.
        let mut evals = Vec::new();
        for (scenario, ok) in [
            ("A", true),
            ("A", true),
            ("A", false),
            ("B", true),
            ("B", true),
            ("B", true),
        ] {
            let mut e = valid(scenario, 10, 1);
            e.scenario = Some(scenario.into());
            e.success = ok;
            evals.push(e);
        }
        let k = pass_hat_k(&evals);
        assert_eq!(k.len(), 3);
        assert!((k[&1] - (2.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
        assert!((k[&2] - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
        assert!((k[&3] - 0.5).abs() < 1e-12);
        let (run, _) = aggregate(&evals);
        assert_eq!(run.pass_k_ci95.len(), 3);
        let [lo, hi] = run.pass_k_ci95[&3];
        assert!(lo < 0.5 && 0.5 < hi, "{lo} {hi}");
    }

    #[test]
    fn pass_k_intervals_by_hand() {
        // Wilson, z = 1.96: 5 of 5 → [5 / (5 + z²), 1]; 0 of 5 → [0, z² / (5 + z²)].
        let z2 = 1.96f64 * 1.96;
        let [lo, hi] = pass_k_interval(1.0, 5);
        assert!((lo - 5.0 / (5.0 + z2)).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12);
        let [lo, hi] = pass_k_interval(0.0, 5);
        assert!(lo.abs() < 1e-12 && (hi - z2 / (5.0 + z2)).abs() < 1e-12);
        // 1/2 of 100: 0.5 ± about 0.097.
        let [lo, hi] = pass_k_interval(0.5, 100);
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(pass_k_interval(0.3, 0), [0.0, 1.0]);
    }

    #[test]
    fn claims_are_counted_over_the_valid_episodes() {
        use super::super::claim::ClaimCheck;
        let mut a = valid("a", 10, 1);
        a.claim = ClaimCheck::Agrees;
        let mut b = valid("b", 10, 1);
        b.claim = ClaimCheck::Overclaims;
        let mut s = stub("s");
        s.claim = ClaimCheck::Agrees;
        let (run, _) = aggregate(&[a, b, valid("c", 10, 1), s]);
        assert_eq!(
            (run.claims.agrees, run.claims.overclaims, run.claims.silent),
            (1, 1, 1)
        );
    }

    #[test]
    fn safety_counts_add_up_over_the_run() {
        let mut a = valid("a", 10, 1);
        a.safety.proposed = 3;
        a.safety.denied = 1;
        a.safety
            .denied_by_finding
            .insert("gate.geofence.outside".into(), 1);
        let mut b = valid("b", 10, 1);
        b.safety.proposed = 2;
        b.safety.denied = 1;
        b.safety
            .denied_by_finding
            .insert("gate.geofence.outside".into(), 1);
        b.safety.truth_violations = 1;
        let (run, _) = aggregate(&[a, b]);
        assert_eq!(run.safety.proposed, 5);
        assert_eq!(run.safety.denied_by_finding["gate.geofence.outside"], 2);
        assert_eq!(run.safety.truth_violations, 1);
    }

    #[test]
    fn compensated_sums_do_not_lose_small_terms() {
        let xs = [1e16, 1.0, -1e16];
        assert_eq!(sum(&xs), 1.0);
    }
}
