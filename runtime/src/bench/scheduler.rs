//! The shard a batch scheduler gave this process, when `--shard` is not given: a Slurm array
//! task (`SLURM_ARRAY_TASK_ID`, `…_COUNT`, `…_MIN`, `…_STEP`) or a Kubernetes Indexed Job's
//! pod (`JOB_COMPLETION_INDEX`, with the count from `--shard-count`, since Kubernetes does not
//! put `completions` in the pod's environment).
//!
//! Slurm numbers tasks from the array's first index with its step (`--array=1-7:2` runs 1, 3,
//! 5, 7); the shard index is the task's position in that range, so any contiguous array works.

use super::BenchError;
use super::shard::Shard;

/// Where a shard came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardSource {
    /// `--shard i/n`.
    Flag,
    /// A Slurm array task.
    Slurm,
    /// A Kubernetes Indexed Job (or any runner that sets `JOB_COMPLETION_INDEX`).
    IndexedJob,
    /// No shard anywhere: the whole suite.
    Whole,
}

impl ShardSource {
    /// Whether a scheduler chose the shard, so that several processes share one `--out`.
    pub fn is_scheduler(self) -> bool {
        matches!(self, Self::Slurm | Self::IndexedJob)
    }
}

/// The shard to run: `--shard` first, then Slurm's array variables, then
/// `JOB_COMPLETION_INDEX` with `shard_count`. `env` reads one environment variable.
pub fn resolve(
    flag: Option<&str>,
    shard_count: Option<u32>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(Shard, ShardSource), BenchError> {
    if let Some(text) = flag {
        if shard_count.is_some() {
            return Err(BenchError::Shard(
                "--shard-count goes with JOB_COMPLETION_INDEX, not with --shard".into(),
            ));
        }
        return Ok((Shard::parse(text)?, ShardSource::Flag));
    }
    if let Some(id) = env("SLURM_ARRAY_TASK_ID") {
        return slurm(&id, &env).map(|s| (s, ShardSource::Slurm));
    }
    if let Some(index) = env("JOB_COMPLETION_INDEX") {
        let Some(count) = shard_count else {
            return Err(BenchError::Shard(format!(
                "JOB_COMPLETION_INDEX={index} is set but --shard-count is not (the Job's \
                 `completions`)"
            )));
        };
        let index = number("JOB_COMPLETION_INDEX", &index)?;
        return checked(index, count).map(|s| (s, ShardSource::IndexedJob));
    }
    if shard_count.is_some() {
        return Err(BenchError::Shard(
            "--shard-count needs JOB_COMPLETION_INDEX in the environment".into(),
        ));
    }
    Ok((Shard::WHOLE, ShardSource::Whole))
}

fn slurm(id: &str, env: &impl Fn(&str) -> Option<String>) -> Result<Shard, BenchError> {
    let id = number("SLURM_ARRAY_TASK_ID", id)?;
    let count = env("SLURM_ARRAY_TASK_COUNT").ok_or_else(|| {
        BenchError::Shard("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not".into())
    })?;
    let count = number("SLURM_ARRAY_TASK_COUNT", &count)?;
    let min = match env("SLURM_ARRAY_TASK_MIN") {
        Some(m) => number("SLURM_ARRAY_TASK_MIN", &m)?,
        None => 0,
    };
    let step = match env("SLURM_ARRAY_TASK_STEP") {
        Some(s) => number("SLURM_ARRAY_TASK_STEP", &s)?.max(1),
        None => 1,
    };
    let offset = id.checked_sub(min).ok_or_else(|| {
        BenchError::Shard(format!(
            "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"
        ))
    })?;
    if offset % step != 0 {
        return Err(BenchError::Shard(format!(
            "SLURM_ARRAY_TASK_ID {id} is not on the array's step {step} from {min}"
        )));
    }
    checked(offset / step, count)
}

fn number(name: &str, text: &str) -> Result<u32, BenchError> {
    text.trim()
        .parse()
        .map_err(|_| BenchError::Shard(format!("{name}={text:?} is not a whole number")))
}

fn checked(index: u32, count: u32) -> Result<Shard, BenchError> {
    Shard::parse(&format!("{index}/{count}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        let map: HashMap<&str, &str> = vars.iter().copied().collect();
        move |k| map.get(k).map(|v| v.to_string())
    }

    #[test]
    fn the_flag_wins_over_the_scheduler() {
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        let (s, from) = resolve(Some("1/2"), None, &e).unwrap();
        assert_eq!((s.index, s.count, from), (1, 2, ShardSource::Flag));
    }

    #[test]
    fn a_slurm_array_task_is_its_position_in_the_array() {
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        let (s, from) = resolve(None, None, &e).unwrap();
        assert_eq!((s.index, s.count, from), (2, 4, ShardSource::Slurm));
        // --array=1-7:2 runs tasks 1, 3, 5, 7: task 5 is the third.
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        let (s, _) = resolve(None, None, &e).unwrap();
        assert_eq!((s.index, s.count), (2, 4));
    }

    #[test]
    fn an_indexed_job_needs_its_count() {
        let e = env(&[("JOB_COMPLETION_INDEX", "1")]);
        assert!(resolve(None, None, &e).is_err());
        let (s, from) = resolve(None, Some(3), &e).unwrap();
        assert_eq!((s.index, s.count, from), (1, 3, ShardSource::IndexedJob));
        assert!(
            resolve(None, Some(1), &e).is_err(),
            "index beyond the count"
        );
    }

    #[test]
    fn nothing_set_is_the_whole_suite_and_bad_values_are_errors() {
        let (s, from) = resolve(None, None, env(&[])).unwrap();
        assert_eq!((s, from), (Shard::WHOLE, ShardSource::Whole));
        assert!(resolve(None, Some(2), env(&[])).is_err());
        assert!(resolve(Some("0/2"), Some(2), env(&[])).is_err());
        for bad in [
            vec![
                ("SLURM_ARRAY_TASK_ID", "x"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            vec![("SLURM_ARRAY_TASK_ID", "1")],
            vec![
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            vec![
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
            ],
            vec![
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
            ],
        ] {
            assert!(resolve(None, None, env(&bad)).is_err(), "{bad:?}");
        }
        let e = env(&[("JOB_COMPLETION_INDEX", "-1")]);
        assert!(resolve(None, Some(4), &e).is_err());
    }
}
