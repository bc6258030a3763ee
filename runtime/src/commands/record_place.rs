//! Where a single-mission command (`fly`, `mcp`) keeps its record: `--out` (else the config's
//! `record.dir`, else `out/<command>`), and the episode id (`--episode-id`, else
//! `<command>__<scenario file stem>__s<seed>`).

use alpha3_core::config::Config;
use std::path::{Path, PathBuf};

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
        episode_id: Option<&str>,
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
        let episode_id = episode_id
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{command}__{key}__s{seed}"));
        let record = out.join("records").join(format!("{episode_id}.jsonl"));
        Self {
            out,
            episode_id,
            record,
        }
    }
}
