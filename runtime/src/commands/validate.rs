//! `alpha3 validate FILE…`: configs, scenarios, episode files and flight records, each checked
//! against its schema and rules; every problem names the file, the JSON path and the rule.

use crate::exit::{self, Stop};
use alpha3_core::document::{DocumentKind, Problem, check_text, detect_kind, size_problem};
use alpha3_core::scenario::limits::MAX_SCENARIO_BYTES;
use clap::{Args, ValueEnum};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files or directories (searched recursively for .toml, .json and .jsonl files).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Treat every file as this kind instead of guessing from its name and content.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Print only problems, not a line per valid file.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Config,
    Scenario,
    Episode,
    AgentTurn,
    Record,
    Schema,
    ToolsList,
    Swarm,
}

impl From<KindArg> for DocumentKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Config => DocumentKind::Config,
            KindArg::Scenario => DocumentKind::Scenario,
            KindArg::Episode => DocumentKind::Episode,
            KindArg::AgentTurn => DocumentKind::AgentTurn,
            KindArg::Record => DocumentKind::FlightRecord,
            KindArg::Schema => DocumentKind::JsonSchema,
            KindArg::ToolsList => DocumentKind::ToolsList,
            KindArg::Swarm => DocumentKind::Swarm,
        }
    }
}

/// The outcome for one file.
#[derive(Debug)]
pub struct FileReport {
    pub path: PathBuf,
    pub kind: Option<DocumentKind>,
    pub problems: Vec<Problem>,
    /// Set when the file could not be read or its kind not told.
    pub error: Option<String>,
}

impl FileReport {
    pub fn is_valid(&self) -> bool {
        self.error.is_none() && self.problems.is_empty()
    }
}

/// Checks one file.
pub fn check_file(path: &Path, kind: Option<DocumentKind>) -> FileReport {
    let mut report = FileReport {
        path: path.to_path_buf(),
        kind,
        problems: Vec::new(),
        error: None,
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // A file over a scenario's size cap is told from its start before it is read whole: a
    // scenario that large is refused unread (parsing it could take gigabytes).
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() > MAX_SCENARIO_BYTES
    {
        let told = kind.or_else(|| detect_kind(name, &head(path)));
        if let Some(p) = told.and_then(|k| size_problem(k, meta.len())) {
            report.kind = told;
            report.problems = vec![p];
            return report;
        }
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                report.error = Some(format!("not UTF-8 text: {e}"));
                return report;
            }
        },
        Err(e) => {
            report.error = Some(format!("cannot read: {e}"));
            return report;
        }
    };
    let Some(kind) = kind.or_else(|| detect_kind(name, &text)) else {
        report.error = Some(
            "cannot tell what this file is (config .toml, scenario, episode, agent turn, record .jsonl); use --kind".into(),
        );
        return report;
    };
    report.kind = Some(kind);
    report.problems = check_text(kind, &text);
    report
}

/// The first 64 KiB of `path` as text (lossy), enough to tell what it holds.
fn head(path: &Path) -> String {
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(64 << 10).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Expands directories into the files they hold, in a stable order.
pub fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found);
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| matches!(x, "toml" | "json" | "jsonl"))
        {
            out.push(p);
        }
    }
}

pub fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    Ok(Stop::end("alpha3 validate", run_checked(args)))
}

fn run_checked(args: &ValidateArgs) -> Result<ExitCode, Stop> {
    let files = expand(&args.paths);
    if files.is_empty() {
        return Err(Stop::invalid("no .toml, .json or .jsonl files found"));
    }
    let mut bad = 0usize;
    for f in &files {
        let r = check_file(f, args.kind.map(Into::into));
        let shown = f.display();
        if let Some(e) = &r.error {
            bad += 1;
            println!("{shown}: error: {e}");
        } else if r.problems.is_empty() {
            if !args.quiet {
                println!("{shown}: ok ({})", r.kind.map_or("?", DocumentKind::name));
            }
        } else {
            bad += 1;
            for p in &r.problems {
                println!("{shown}: {p}");
            }
        }
    }
    println!(
        "{} file(s) checked, {} valid, {} invalid",
        files.len(),
        files.len() - bad,
        bad
    );
    // Every problem is on stdout above: the exit code is the verdict.
    Ok(exit::code(if bad == 0 { exit::OK } else { exit::INVALID }))
}
