//! The episode plan: every scenario × seed × policy of a suite, in a fixed order, each with a
//! stable id that names its record file — so a rerun, a shard and a merge all agree on which
//! episode is which.

use super::shard::Shard;
use super::suite::Suite;

/// One planned episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEpisode {
    /// `<policy>__<scenario>__s<seed>`, file-name safe; the record is `records/<id>.jsonl`.
    pub id: String,
    /// Index into [`Suite::scenarios`].
    pub scenario: usize,
    pub seed: u64,
    /// Index into [`Suite::policies`].
    pub policy: usize,
}

/// The episodes of `suite` that belong to `shard`, ordered scenario, seed, policy (so the
/// policies of one scenario run side by side and a partial run compares like with like).
/// Shards split by (scenario, seed) pair, round robin: every policy of a pair lands in the
/// same shard and the shards differ in size by at most one pair.
pub fn plan(suite: &Suite, shard: Shard) -> Vec<PlannedEpisode> {
    let mut out = Vec::new();
    let mut pair = 0usize;
    for (si, s) in suite.scenarios.iter().enumerate() {
        for &seed in &suite.bench.seeds {
            if shard.contains(pair) {
                for (pi, p) in suite.policies.iter().enumerate() {
                    out.push(PlannedEpisode {
                        id: episode_id(&p.name, &s.key, seed),
                        scenario: si,
                        seed,
                        policy: pi,
                    });
                }
            }
            pair += 1;
        }
    }
    out
}

/// The stable id of one episode.
pub fn episode_id(policy: &str, scenario: &str, seed: u64) -> String {
    format!("{}__{}__s{seed}", file_safe(policy), file_safe(scenario))
}

/// `name` with everything but ASCII letters, digits, `.`, `-` and `_` replaced by `_`.
pub(crate) fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_file_safe_and_stable() {
        assert_eq!(
            episode_id("scripted", "sc-0001", 3),
            "scripted__sc-0001__s3"
        );
        assert_eq!(
            episode_id("openai/gpt 4", "sc-0001", 1),
            "openai_gpt_4__sc-0001__s1"
        );
    }
}
