//! Finding and reading the inputs of `alpha3 score`: episode files, `<vendor>/<model>/uav/`
//! trees of them, and flight records. A file that cannot be read or parsed is never a crash and
//! never dropped: it becomes a generation failure of its run, with its reason.

use alpha3_core::episode::Episode;
use alpha3_core::record::{RecordLine, parse_record};
use alpha3_core::score::{EpisodeEval, Scorer, Source};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Folders never searched: Jupyter's autosave copies would count episodes twice.
const SKIPPED_DIRS: [&str; 1] = [".ipynb_checkpoints"];

/// A run: one model (or policy) in one domain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunKey {
    pub model: String,
    pub domain: String,
}

/// The episodes of one run, in file order.
#[derive(Debug, Default)]
pub struct RunInput {
    pub evals: Vec<EpisodeEval>,
}

/// Expands `paths` into files: directories recursively (`.json` and `.jsonl`, skipping
/// `.ipynb_checkpoints` and anything under `exclude`), files as given. Paths that do not exist
/// are returned separately.
pub fn discover(paths: &[PathBuf], exclude: Option<&Path>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut missing = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, exclude, &mut found);
            found.sort();
            files.extend(found);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            missing.push(p.clone());
        }
    }
    (files, missing)
}

fn walk(dir: &Path, exclude: Option<&Path>, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if exclude.is_some_and(|x| same_place(&p, x)) {
            continue;
        }
        if p.is_dir() {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !SKIPPED_DIRS.contains(&name) {
                walk(&p, exclude, out);
            }
        } else if matches!(extension(&p), "json" | "jsonl") {
            out.push(p);
        }
    }
}

fn same_place(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn extension(p: &Path) -> &str {
    p.extension().and_then(|x| x.to_str()).unwrap_or("")
}

/// Scores every file and groups the results into runs.
pub fn score_files(scorer: &Scorer, files: &[PathBuf]) -> BTreeMap<RunKey, RunInput> {
    let mut runs: BTreeMap<RunKey, RunInput> = BTreeMap::new();
    for f in files {
        let (key, eval) = score_file(scorer, f);
        runs.entry(key).or_default().evals.push(eval);
    }
    runs
}

/// Scores one file: an episode (`.json` or anything else) or a flight record (`.jsonl`).
pub fn score_file(scorer: &Scorer, path: &Path) -> (RunKey, EpisodeEval) {
    let id = path.display().to_string();
    let record = extension(path) == "jsonl";
    let source = if record {
        Source::ClosedLoop
    } else {
        Source::Published
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            let eval = EpisodeEval::unreadable(id, source, format!("cannot read: {e}"));
            return (key_from_path(path, None), eval);
        }
    };
    let mut eval = if record {
        score_record(scorer, &id, &bytes)
    } else {
        score_episode(scorer, &id, &bytes)
    };
    eval.id = id;
    if !record {
        eval.scenario = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(|s| s.split("-ep-").next().unwrap_or(s).to_string());
    }
    let key = if record {
        match &eval.model {
            Some(m) => RunKey {
                model: m.clone(),
                domain: "uav".into(),
            },
            None => key_from_path(path, None),
        }
    } else {
        key_from_path(path, eval.model.as_deref())
    };
    (key, eval)
}

fn score_episode(scorer: &Scorer, id: &str, bytes: &[u8]) -> EpisodeEval {
    match serde_json::from_slice::<Episode>(bytes) {
        Ok(e) => scorer.evaluate(&e),
        Err(e) => EpisodeEval::unreadable(id, Source::Published, format!("not an episode: {e}")),
    }
}

fn score_record(scorer: &Scorer, id: &str, bytes: &[u8]) -> EpisodeEval {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return EpisodeEval::unreadable(id, Source::ClosedLoop, format!("not UTF-8: {e}"));
        }
    };
    match parse_record(text) {
        Ok(record) => scorer.evaluate_record(&record),
        Err(e) => {
            let mut eval =
                EpisodeEval::unreadable(id, Source::ClosedLoop, format!("bad record: {e}"));
            // Keep it in its run: the header line is usually still readable.
            eval.model = text
                .lines()
                .next()
                .and_then(|l| serde_json::from_str::<RecordLine>(l).ok())
                .and_then(|l| match l.event {
                    alpha3_core::record::Event::Header { model, policy, .. } => {
                        Some(model.unwrap_or(policy))
                    }
                    _ => None,
                });
            eval
        }
    }
}

/// The run of an episode file: `<vendor>/<model>/<domain>/<file>` when the file sits in a
/// domain folder (`uav`), else the model the episode names, else its folder.
fn key_from_path(path: &Path, model: Option<&str>) -> RunKey {
    let names: Vec<&str> = path
        .ancestors()
        .skip(1)
        .take(3)
        .filter_map(|a| a.file_name().and_then(|n| n.to_str()))
        .collect();
    if let [domain, model_dir, vendor] = names[..]
        && domain == "uav"
    {
        return RunKey {
            model: format!("{vendor}/{model_dir}"),
            domain: domain.to_string(),
        };
    }
    let model = model
        .map(str::to_string)
        .or_else(|| names.first().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown".into());
    RunKey {
        model,
        domain: "uav".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_layout_names_the_run() {
        let k = key_from_path(
            Path::new("/d/eval_runs/openai/gpt-4.1-mini/uav/sc-0000-ep-00.json"),
            None,
        );
        assert_eq!(k.model, "openai/gpt-4.1-mini");
        assert_eq!(k.domain, "uav");
        let k = key_from_path(Path::new("/tmp/x/ep.json"), Some("acme/m1"));
        assert_eq!(k.model, "acme/m1");
        let k = key_from_path(Path::new("/tmp/x/ep.json"), None);
        assert_eq!(k.model, "x");
    }
}
