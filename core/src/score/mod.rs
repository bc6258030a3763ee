//! The α3 scorer (the metric's definition is `ALPHA3.md` in the shared folder next to the
//! project; the version in [`MetricVersion`], default [`crate::METRIC_VERSION`]): six
//! per-episode pillars, α3(e), and the reliability-adjusted run aggregation.
//!
//! One scorer, two inputs. A published AlphaBench episode is scored from what its file says; a
//! closed-loop flight record is first turned into the same [`Episode`](crate::episode::Episode)
//! shape ([`episode_from_record`]) plus [`ClosedLoop`] evidence — executed observations, the
//! measured link, the truth's violations, real token counts — which takes precedence over
//! anything the model wrote.
//!
//! - [`Scorer`] compiles the catalogue's JSON Schemas once per run and yields an
//!   [`EpisodeEval`] per episode; [`aggregate()`] turns a run's evals into a [`RunSummary`].
//! - One file per pillar: [`to`], [`sp`], [`tc`], [`iq`], [`nr`], [`cc`]; [`classify`] holds
//!   the tool classes for the published free-form vocabulary; [`claim`] checks the agent's
//!   final word on the outcome against the truth.
//!
//! Pure: no I/O, no clock. Reading files and writing reports is `alpha3 score`'s job.

pub mod aggregate;
pub mod cc;
pub mod claim;
pub mod classify;
mod evidence;
mod from_record;
pub mod iq;
mod metric;
pub mod nr;
mod pillars;
mod scorer;
pub mod sp;
pub mod tc;
pub mod to;

#[cfg(test)]
mod props;
#[cfg(test)]
mod testkit;

pub use aggregate::{RunSummary, ScoredEpisode, aggregate};
pub use claim::{Claim, ClaimCheck, ClaimTally};
pub use evidence::{ClosedLoop, SafetyCounts};
pub use from_record::{RecordEpisode, episode_from_record};
pub use metric::{MetricVersion, UnknownMetric};
pub use pillars::{NAMES, Pillars, WEIGHTS};
pub use scorer::{EpisodeEval, MAX_ATTEMPTS, ScoreOptions, Scorer, Source, Validity};
pub use sp::{SafetyLimits, Violations};
pub use tc::{SchemaError, Vocabulary};
