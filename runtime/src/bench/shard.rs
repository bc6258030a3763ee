//! `--shard i/n`: which part of a suite this machine runs.

use super::BenchError;
use std::fmt;

/// Shard `index` of `count` (0-based); `0/1` is the whole suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `i/n` with `0 ≤ i < n`.
    pub fn parse(text: &str) -> Result<Self, BenchError> {
        let bad =
            |why: &str| BenchError::Shard(format!("{text:?}: {why} (expected i/n, e.g. 0/4)"));
        let (i, n) = text.trim().split_once('/').ok_or_else(|| bad("no '/'"))?;
        let index: u32 = i.trim().parse().map_err(|_| bad("i is not a number"))?;
        let count: u32 = n.trim().parse().map_err(|_| bad("n is not a number"))?;
        if count == 0 {
            return Err(bad("n must be at least 1"));
        }
        if index >= count {
            return Err(bad("i must be below n"));
        }
        Ok(Self { index, count })
    }

    /// Whether item `k` of a round-robin split belongs to this shard.
    pub fn contains(&self, k: usize) -> bool {
        k % self.count as usize == self.index as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_partitions() {
        let s = Shard::parse("1/3").unwrap();
        assert_eq!((s.index, s.count), (1, 3));
        let all: Vec<usize> = (0..10).collect();
        let mut seen = Vec::new();
        for i in 0..3 {
            let sh = Shard { index: i, count: 3 };
            seen.extend(all.iter().copied().filter(|&k| sh.contains(k)));
        }
        seen.sort_unstable();
        assert_eq!(seen, all, "every item in exactly one shard");
        for bad in ["", "1", "3/3", "a/2", "0/0", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
