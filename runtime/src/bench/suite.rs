//! A bench suite file, loaded: its scenarios (files and directories relative to the suite file,
//! in name order, at most `max_scenarios`), its seeds, and each policy file laid over the
//! suite's `base_config` into the effective configuration that policy's episodes run with;
//! then, where the suite says `baselines = true` (every shipped built-in-world suite does), the
//! floor baselines `hover` and `random` over the same base config.

use super::BenchError;
use alpha3_core::config::{BenchSuite, Config, PolicyBackend, PolicyConfig};
use alpha3_core::scenario::Scenario;
use std::path::{Path, PathBuf};

/// One scenario of the suite.
#[derive(Debug, Clone)]
pub struct SuiteScenario {
    /// The file stem (`sc-0007`): unique within the suite, used in episode ids and records.
    pub key: String,
    pub path: PathBuf,
    pub scenario: Scenario,
}

/// One policy of the suite.
#[derive(Debug, Clone)]
pub struct SuitePolicy {
    /// `policy.name`: the leaderboard row.
    pub name: String,
    /// Base config with this policy's file laid over it.
    pub config: Config,
    /// The policy file's directory (relative model and replay paths resolve against it).
    pub base_dir: PathBuf,
}

/// A loaded suite.
#[derive(Debug, Clone)]
pub struct Suite {
    pub bench: BenchSuite,
    pub scenarios: Vec<SuiteScenario>,
    pub policies: Vec<SuitePolicy>,
}

impl Suite {
    /// Loads `path`. Every problem is an error naming the file it is about.
    pub fn load(path: &Path) -> Result<Self, BenchError> {
        let config = read_config(path)?;
        let bench = config.bench.ok_or_else(|| BenchError::Suite {
            path: path.to_path_buf(),
            message: "no [bench] section".into(),
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let base = match &bench.base_config {
            Some(b) => read_config(&dir.join(b))?,
            None => Config::default(),
        };
        let mut scenarios = Vec::new();
        for entry in &bench.scenarios {
            collect_scenarios(&dir.join(entry), &mut scenarios)?;
        }
        scenarios.sort_by(|a, b| a.key.cmp(&b.key).then_with(|| a.path.cmp(&b.path)));
        if let Some(dup) = scenarios.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(BenchError::Suite {
                path: path.to_path_buf(),
                message: format!(
                    "two scenario files share the name {}: {} and {}",
                    dup[0].key,
                    dup[0].path.display(),
                    dup[1].path.display()
                ),
            });
        }
        if let Some(max) = bench.max_scenarios {
            scenarios.truncate(max as usize);
        }
        if scenarios.is_empty() {
            return Err(BenchError::Suite {
                path: path.to_path_buf(),
                message: "no scenario files found".into(),
            });
        }
        let mut policies: Vec<SuitePolicy> = Vec::new();
        for p in &bench.policies {
            let file = dir.join(p);
            let overlay = read_config(&file)?;
            let config = base.clone().overlay(overlay);
            let Some(policy) = &config.policy else {
                return Err(BenchError::Suite {
                    path: file,
                    message: "no [policy] section".into(),
                });
            };
            if policies.iter().any(|q| q.name == policy.name) {
                return Err(BenchError::Suite {
                    path: file,
                    message: format!("a second policy named {}", policy.name),
                });
            }
            policies.push(SuitePolicy {
                name: policy.name.clone(),
                base_dir: file.parent().unwrap_or(Path::new(".")).to_path_buf(),
                config,
            });
        }
        if bench.baselines == Some(true) && !policies.is_empty() {
            for (name, backend) in [
                ("hover", PolicyBackend::Hover),
                ("random", PolicyBackend::Random),
            ] {
                if policies.iter().any(|q| q.name == name) {
                    return Err(BenchError::Suite {
                        path: path.to_path_buf(),
                        message: format!(
                            "a policy is named {name}, as a baseline is: rename it, or leave \
                             `baselines` out"
                        ),
                    });
                }
                policies.push(baseline(&base, dir, name, backend));
            }
        }
        if policies.is_empty() || bench.seeds.is_empty() {
            return Err(BenchError::Suite {
                path: path.to_path_buf(),
                message: "a suite needs at least one policy and one seed".into(),
            });
        }
        Ok(Self {
            bench,
            scenarios,
            policies,
        })
    }
}

/// The floor baseline `name` over the suite's base config.
fn baseline(base: &Config, dir: &Path, name: &str, backend: PolicyBackend) -> SuitePolicy {
    let mut config = base.clone();
    config.policy = Some(PolicyConfig {
        name: name.to_string(),
        backend,
        deadline_ms: BASELINE_DEADLINE_MS,
        max_attempts: 1,
        llama: None,
        openai: None,
        replay: None,
        steering: None,
    });
    SuitePolicy {
        name: name.to_string(),
        config,
        base_dir: dir.to_path_buf(),
    }
}

/// A baseline decides at once; its deadline is the scripted agent's.
const BASELINE_DEADLINE_MS: u64 = 1000;

fn read_config(path: &Path) -> Result<Config, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::Suite {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Config::from_toml(&text).map_err(|e| BenchError::Suite {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn collect_scenarios(path: &Path, out: &mut Vec<SuiteScenario>) -> Result<(), BenchError> {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|e| BenchError::Suite {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            out.push(load_scenario(&f)?);
        }
        Ok(())
    } else {
        out.push(load_scenario(path)?);
        Ok(())
    }
}

fn load_scenario(path: &Path) -> Result<SuiteScenario, BenchError> {
    let scenario = alpha3_sim::scenario::read_scenario(path).map_err(|e| BenchError::Suite {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let key = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario")
        .to_string();
    Ok(SuiteScenario {
        key,
        path: path.to_path_buf(),
        scenario,
    })
}
