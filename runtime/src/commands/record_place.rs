//! Where a single-mission command (`fly`, `mcp`) keeps its record: `--out` (else the config's
//! `record.dir`, else `out/<command>`), and the episode id (`--episode-id`, else
//! `<command>__<scenario file stem>__s<seed>`).
//!
//! The id names the record (`records/<id>.jsonl`) and the telemetry log (`tlogs/<id>.tlog`), so
//! it must be a plain file name: an id such as `../../x` or `/tmp/x` would put them outside
//! `--out`. [`EpisodeId`] admits only ASCII letters, digits, `.`, `_` and `-`, not starting
//! with `.`, at most [`MAX_EPISODE_ID`] long; anything else is refused on the command line,
//! before anything is opened or written.

use alpha3_core::config::Config;
use std::path::{Path, PathBuf};

/// Longest episode id, characters (a file name stays well under any file system's limit).
pub const MAX_EPISODE_ID: usize = 128;

/// Why a text is not an episode id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EpisodeIdError {
    #[error("is empty")]
    Empty,
    #[error("has {0} characters, at most {MAX_EPISODE_ID} are allowed")]
    TooLong(usize),
    #[error("starts with '.' (it would be a hidden file, or `.`/`..`)")]
    LeadingDot,
    #[error(
        "holds {0:?}: only ASCII letters, digits, '.', '_' and '-' are allowed (an id is a file \
         name inside --out, never a path)"
    )]
    Character(char),
}

/// An episode id that is a plain file name (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpisodeId(String);

impl EpisodeId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for EpisodeId {
    type Err = EpisodeIdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let count = text.chars().count();
        if count == 0 {
            return Err(EpisodeIdError::Empty);
        }
        if count > MAX_EPISODE_ID {
            return Err(EpisodeIdError::TooLong(count));
        }
        if let Some(c) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return Err(EpisodeIdError::Character(c));
        }
        if text.starts_with('.') {
            return Err(EpisodeIdError::LeadingDot);
        }
        Ok(Self(text.to_owned()))
    }
}

/// The output folder, the episode id and the record's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecordPlace {
    pub out: PathBuf,
    pub episode_id: String,
    pub record: PathBuf,
}

impl RecordPlace {
    pub(crate) fn new(
        command: &str,
        config: &Config,
        out: Option<&Path>,
        scenario: &Path,
        seed: u64,
        episode_id: Option<&EpisodeId>,
    ) -> Self {
        let out = out.map(Path::to_path_buf).unwrap_or_else(|| {
            config.record.as_ref().map_or_else(
                || PathBuf::from(format!("out/{command}")),
                |r| PathBuf::from(&r.dir),
            )
        });
        let key = scenario
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("mission");
        let episode_id = episode_id.map_or_else(
            || format!("{command}__{key}__s{seed}"),
            |id| id.as_str().to_owned(),
        );
        let record = out.join("records").join(format!("{episode_id}.jsonl"));
        Self {
            out,
            episode_id,
            record,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_episode_id_is_a_plain_file_name() {
        for ok in [
            "ep",
            "fly__sc-0000__s0",
            "a.b-c_D9",
            &"x".repeat(MAX_EPISODE_ID),
        ] {
            assert_eq!(ok.parse::<EpisodeId>().map(|i| i.0), Ok(ok.to_string()));
        }
        let refused = [
            ("", EpisodeIdError::Empty),
            ("../../x", EpisodeIdError::Character('/')),
            ("/tmp/abs", EpisodeIdError::Character('/')),
            ("a/b", EpisodeIdError::Character('/')),
            ("a\\b", EpisodeIdError::Character('\\')),
            ("a\0b", EpisodeIdError::Character('\0')),
            ("..", EpisodeIdError::LeadingDot),
            (".hidden", EpisodeIdError::LeadingDot),
            ("ép", EpisodeIdError::Character('é')),
            ("a b", EpisodeIdError::Character(' ')),
        ];
        for (text, why) in refused {
            assert_eq!(text.parse::<EpisodeId>(), Err(why), "{text:?}");
        }
        let long = "x".repeat(MAX_EPISODE_ID + 1);
        assert_eq!(
            long.parse::<EpisodeId>(),
            Err(EpisodeIdError::TooLong(MAX_EPISODE_ID + 1))
        );
    }
}
