//! [`Scorer`]: one scorer for both sources of episodes. It holds what is built once per run —
//! the catalogue and its compiled validators — and turns an episode (published) or a flight
//! record (closed loop) into an [`EpisodeEval`] under its [`MetricVersion`]: every pillar
//! except, under `alpha3-v1`, IQ's length term, which needs the run's T* and is applied by
//! [`super::aggregate`].

use super::cc::{communication_cost, communication_cost_v2, tokens_of, tool_actions};
use super::claim::{self, ClaimCheck};
use super::evidence::{ClosedLoop, SafetyCounts};
use super::from_record::episode_from_record;
use super::iq::{
    alternation, answered, grounding, interaction_quality, length_term, turn_budget_term,
};
use super::metric::MetricVersion;
use super::nr::{network_robustness, network_robustness_v3};
use super::pillars::Pillars;
use super::sp::{
    SafetyLimits, Violations, closed_loop_violations, published_violations, safety_policy,
};
use super::tc::{SchemaError, Schemas, Vocabulary, tool_consistency};
use super::to::task_outcome;
use crate::episode::{Episode, Speaker, structure_problems};
use crate::link::HardThresholds;
use crate::protocol::{ToolSpec, catalogue};
use crate::record::{Event, ParsedRecord};
use serde::Serialize;

/// Most attempts an episode may take and still be valid (ALPHA3.md §1).
pub const MAX_ATTEMPTS: u32 = 3;

/// Settings of a scoring run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScoreOptions {
    /// When a link sample is hard (NR).
    pub hard: HardThresholds,
    /// Battery reserve and landing-site radius (SP).
    pub safety: SafetyLimits,
    /// Apply the catalogue's schemas to published actions whose names are in the catalogue
    /// (off by default: see [`super::tc`]).
    pub published_catalogue_schemas: bool,
    /// Which definitions of CC and IQ apply.
    pub metric: MetricVersion,
}

/// Where an episode came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Published,
    ClosedLoop,
}

/// Whether an episode is in V, the valid set the means run over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum Validity {
    Valid,
    /// No usable episode was generated: a failure stub, an unreadable or truncated file.
    GenerationFailed(String),
    /// Generated, but not structurally sound (alternation, speakers, attempts).
    Unsound(String),
}

/// One episode, scored as far as it can be without the rest of its run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodeEval {
    /// The file or record it came from (set by the caller).
    pub id: String,
    /// The scenario, for pass^k (published: from the file name, set by the caller).
    pub scenario: Option<String>,
    /// The model (or policy) the episode names: `_meta.model`, or the record header's.
    pub model: Option<String>,
    pub source: Source,
    /// The definitions the pillars were computed with.
    pub metric: MetricVersion,
    pub validity: Validity,
    /// TO = 1.
    pub success: bool,
    /// T, the number of turns.
    pub turns: usize,
    pub to: f64,
    pub sp: f64,
    pub tc: f64,
    pub nr: f64,
    pub cc: f64,
    /// IQ's A and G terms (`alpha3-v1`'s L needs the run's T*).
    pub alternation: f64,
    pub grounding: f64,
    /// IQ's R term (`alpha3-v2`): the share of actions answered by an observation.
    pub answered: f64,
    pub violations: Violations,
    /// a_s: generation attempts (policy calls); a failure stub counts as 1.
    pub attempts: u32,
    /// Decisions obtained: 1 per published episode, agent turns in closed loop.
    pub decisions: u32,
    pub gen_time_s: Option<f64>,
    pub tokens: Option<u64>,
    pub tool_actions: usize,
    pub safety: SafetyCounts,
    /// The agent's own final word on the outcome against the truth ([`super::claim`]).
    pub claim: ClaimCheck,
    /// Flown by a floor baseline (the record's policy backend is `hover` or `random`).
    pub baseline: bool,
}

impl EpisodeEval {
    /// A file that could not be read or parsed: a generation failure of its run, with one attempt.
    pub fn unreadable(id: impl Into<String>, source: Source, reason: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            scenario: None,
            model: None,
            source,
            metric: MetricVersion::default(),
            validity: Validity::GenerationFailed(reason.into()),
            success: false,
            turns: 0,
            to: 0.0,
            sp: 0.0,
            tc: 0.0,
            nr: 0.0,
            cc: 0.0,
            alternation: 0.0,
            grounding: 0.0,
            answered: 0.0,
            violations: Violations::default(),
            attempts: 1,
            decisions: 1,
            gen_time_s: None,
            tokens: None,
            tool_actions: 0,
            safety: SafetyCounts::default(),
            claim: ClaimCheck::Silent,
            baseline: false,
        }
    }

    pub fn is_valid(&self) -> bool {
        self.validity == Validity::Valid
    }

    /// All six pillars; under `alpha3-v1` IQ's length term is taken against `t_star`.
    pub fn pillars(&self, t_star: f64) -> Pillars {
        let iq = match self.metric {
            MetricVersion::V1 => interaction_quality(
                length_term(self.turns, t_star),
                self.alternation,
                self.grounding,
            ),
            MetricVersion::V2 | MetricVersion::V3 => interaction_quality(
                turn_budget_term(self.turns),
                self.alternation,
                self.answered,
            ),
        };
        Pillars {
            to: self.to,
            sp: self.sp,
            tc: self.tc,
            iq,
            nr: self.nr,
            cc: self.cc,
        }
    }
}

/// The α3 scorer. Build one per run: it compiles the catalogue's schemas once.
#[derive(Debug)]
pub struct Scorer {
    catalogue: Vec<ToolSpec>,
    schemas: Schemas,
    options: ScoreOptions,
}

impl Scorer {
    pub fn new(options: ScoreOptions) -> Result<Self, SchemaError> {
        let catalogue = catalogue();
        let schemas = Schemas::compile(&catalogue)?;
        Ok(Self {
            catalogue,
            schemas,
            options,
        })
    }

    pub fn options(&self) -> &ScoreOptions {
        &self.options
    }

    /// Scores a published (AlphaBench) episode.
    pub fn evaluate(&self, episode: &Episode) -> EpisodeEval {
        let mut eval = self.pillars_of(episode, None);
        let attempts = episode.meta.attempts_used.unwrap_or(1).max(1);
        eval.attempts = attempts;
        eval.decisions = 1;
        eval.safety.proposed = agent_actions(episode);
        eval.validity = if episode.is_failure_stub() {
            let why = episode.meta.error.as_deref().unwrap_or("generation failed");
            Validity::GenerationFailed(why.to_string())
        } else if attempts > MAX_ATTEMPTS {
            Validity::Unsound(format!(
                "{attempts} attempts used, at most {MAX_ATTEMPTS} allowed"
            ))
        } else {
            soundness(episode)
        };
        eval
    }

    /// Scores a closed-loop flight record.
    pub fn evaluate_record(&self, record: &ParsedRecord) -> EpisodeEval {
        let built = episode_from_record(record);
        let ev = &built.evidence;
        let mut eval = self.pillars_of(&built.episode, Some(ev));
        eval.scenario = built.scenario;
        eval.model = built.run;
        eval.decisions = ev.decisions;
        eval.baseline = is_baseline(record);
        eval.attempts = ev.generations.max(ev.decisions);
        eval.safety = ev.safety.clone();
        eval.validity = if let Some(why) = &ev.failure {
            // A failure stub counts as one attempt (ALPHA3.md §3), like a published one.
            eval.attempts = eval.attempts.max(1);
            eval.decisions = eval.decisions.max(1);
            Validity::GenerationFailed(why.clone())
        } else if !ev.terminated {
            Validity::GenerationFailed("truncated: the record has no termination event".into())
        } else if ev.decisions == 0 {
            Validity::GenerationFailed("no agent turn was generated".into())
        } else {
            soundness(&built.episode)
        };
        eval
    }

    fn pillars_of(&self, e: &Episode, ev: Option<&ClosedLoop>) -> EpisodeEval {
        let vocabulary = match (ev, self.options.published_catalogue_schemas) {
            (Some(_), _) => Vocabulary::Catalogue,
            (None, false) => Vocabulary::Published,
            (None, true) => Vocabulary::PublishedWithCatalogue,
        };
        let violations = match ev {
            Some(ev) => closed_loop_violations(ev, &self.options.safety),
            None => published_violations(e, &self.options.safety),
        };
        let tokens = tokens_of(&e.meta);
        let actions = tool_actions(e);
        let to = task_outcome(e, ev);
        EpisodeEval {
            id: String::new(),
            scenario: None,
            model: e.meta.model.clone(),
            source: if ev.is_some() {
                Source::ClosedLoop
            } else {
                Source::Published
            },
            metric: self.options.metric,
            validity: Validity::Valid,
            success: to == 1.0,
            turns: e.dialogue.len(),
            to,
            sp: safety_policy(violations),
            tc: tool_consistency(e, ev, &self.schemas, vocabulary),
            nr: match self.options.metric {
                MetricVersion::V1 | MetricVersion::V2 => {
                    network_robustness(e, ev, &self.catalogue, &self.options.hard)
                }
                MetricVersion::V3 => {
                    network_robustness_v3(e, ev, &self.catalogue, &self.options.hard)
                }
            },
            cc: match self.options.metric {
                MetricVersion::V1 => communication_cost(tokens.unwrap_or(0), actions),
                MetricVersion::V2 | MetricVersion::V3 => {
                    communication_cost_v2(tokens.unwrap_or(0), actions)
                }
            },
            alternation: alternation(&e.dialogue),
            grounding: grounding(e, &self.catalogue),
            answered: answered(&e.dialogue),
            violations,
            attempts: 1,
            decisions: 1,
            gen_time_s: e.meta.gen_time_s,
            tokens,
            tool_actions: actions,
            safety: SafetyCounts::default(),
            claim: claim::check(claim::final_claim(e), to == 1.0),
            baseline: false,
        }
    }
}

/// Whether the record's header (its first line) names a floor baseline as its policy backend.
fn is_baseline(record: &ParsedRecord) -> bool {
    record.lines.first().is_some_and(|l| match &l.event {
        Event::Header { config, .. } => config
            .pointer("/policy/backend")
            .and_then(|b| b.as_str())
            .is_some_and(|b| BASELINE_BACKENDS.contains(&b)),
        _ => false,
    })
}

/// The policy backends that are floor baselines, as the config names them.
pub const BASELINE_BACKENDS: [&str; 2] = ["hover", "random"];

fn soundness(e: &Episode) -> Validity {
    let problems = structure_problems(e);
    if problems.is_empty() {
        Validity::Valid
    } else {
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Validity::Unsound(text.join("; "))
    }
}

fn agent_actions(e: &Episode) -> u64 {
    e.dialogue
        .iter()
        .filter(|t| t.speaker == Speaker::Agent)
        .map(|t| t.actions.len() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;

    fn scorer() -> Scorer {
        Scorer::new(ScoreOptions {
            metric: MetricVersion::V1,
            ..ScoreOptions::default()
        })
        .unwrap()
    }

    #[test]
    fn v2_alpha3_of_8_and_12_turn_episodes_by_hand() {
        // 2,000 tokens and T/2 actions are within the allowances: CC = 1. IQ: B = 1 for T = 8,
        // 10/12 for T = 12; A = R = 1.
        let v2 = Scorer::new(ScoreOptions::default()).unwrap();
        for (t, iq) in [(8usize, 1.0), (12, (10.0 / 12.0 + 2.0) / 3.0)] {
            let eval = v2.evaluate(&episode(alternating(t)));
            assert_eq!(eval.metric, MetricVersion::V2);
            let p = eval.pillars(f64::NAN);
            assert_eq!((p.cc, p.nr), (1.0, 1.0), "T = {t}");
            assert!((p.iq - iq).abs() < 1e-12, "T = {t}: IQ {}", p.iq);
        }
    }

    #[test]
    fn alpha3_of_8_and_12_turn_episodes_by_hand() {
        // Every pillar 1 except CC (2,000 tokens, T/2 actions) and IQ (L = 0.8 against T* = 10).
        for (t, cc) in [(8usize, 0.82), (12, 0.78)] {
            let eval = scorer().evaluate(&episode(alternating(t)));
            assert!(eval.is_valid());
            let p = eval.pillars(10.0);
            assert_eq!((p.to, p.sp, p.tc, p.nr), (1.0, 1.0, 1.0, 1.0), "T = {t}");
            assert!((p.cc - cc).abs() < 1e-12, "T = {t}: CC {}", p.cc);
            assert!((p.iq - 2.8 / 3.0).abs() < 1e-12, "T = {t}: IQ {}", p.iq);
            let alpha = 0.30 + 0.20 + 0.20 + 0.15 * 2.8 / 3.0 + 0.10 + 0.05 * cc;
            assert!((p.alpha3() - alpha).abs() < 1e-12, "T = {t}");
        }
    }

    #[test]
    fn a_broken_alternation_is_unsound() {
        let e = episode(vec![agent(vec![]), agent(vec![]), user(vec![])]);
        let eval = scorer().evaluate(&e);
        assert!(matches!(eval.validity, Validity::Unsound(ref r) if r.contains("alternation")));
        assert_eq!(eval.alternation, 0.5);
    }

    #[test]
    fn a_failure_stub_is_a_generation_failure_with_one_attempt() {
        let eval = scorer().evaluate(&stub());
        assert!(matches!(eval.validity, Validity::GenerationFailed(_)));
        assert_eq!((eval.attempts, eval.decisions, eval.to), (1, 1, 0.0));
        assert_eq!(eval.tokens, None);
    }

    #[test]
    fn more_than_three_attempts_is_unsound() {
        let mut e = episode(alternating(2));
        e.meta.attempts_used = Some(4);
        assert!(matches!(
            scorer().evaluate(&e).validity,
            Validity::Unsound(_)
        ));
    }

    #[test]
    fn agent_actions_are_the_proposed_commands() {
        let eval = scorer().evaluate(&episode(alternating(12)));
        assert_eq!(eval.safety.proposed, 6);
        assert_eq!(eval.tool_actions, 6);
    }
}
