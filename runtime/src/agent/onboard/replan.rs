//! A plan's airspace kept true during its episode: the autopilot's own fence and rally points
//! are part of it (`mission_source`), and a ground station may upload others while alpha3
//! flies. PX4 says so in MISSION_CURRENT's plan ids (MISSION-FACTS §7); the link counts those
//! changes, and the next turn downloads the autopilot's airspace again, makes the plan again in
//! it and hands the gate the new airspace ([`GateContext::adopt_airspace`]). ArduPilot carries
//! no ids (its MISSION_ACK goes only to the uploading link), so there the airspace is read
//! again every [`POLL_MS`] and compared with the one the gate's was made from.
//!
//! [`GateContext::adopt_airspace`]: alpha3_core::gate::GateContext::adopt_airspace

use crate::mission_plan::{CheckedPlan, PlanInput, check_plan};
use alpha3_core::config::Config;
use alpha3_core::plan_mission::{AutopilotAirspace, Placement};

/// What re-making a plan's mission needs: the plan, the config, and where it was placed at
/// connect (the same placement keeps the mission's frame).
#[derive(Debug, Clone)]
pub struct Replan {
    pub input: PlanInput,
    pub config: Config,
    pub at: Placement,
}

/// Which plan kinds an airspace follows: the fence and the rally points (the mission is ours).
const WATCHED: [(usize, &str); 2] = [(1, "fence"), (2, "rally")];

/// How often an autopilot that sends no plan ids (ArduPilot) is read again, ms of the
/// episode clock: a fence and a rally download and five parameters, a few hundred bytes.
pub const POLL_MS: u64 = 2_000;

/// The plan of an episode and the autopilot's change counts it was last made with.
#[derive(Debug, Clone)]
pub struct AirspaceWatch {
    replan: Replan,
    /// The link's change counts the gate's airspace is up to date with.
    seen: [u32; 3],
    /// The counts whose failed re-download was already reported.
    reported: Option<[u32; 3]>,
    /// The autopilot's airspace the gate's was last made from: what a poll compares with.
    held: AutopilotAirspace,
    /// A polled airspace the plan could not be made in: reported once, not again.
    refused: Option<AutopilotAirspace>,
    /// When the autopilot was last polled (episode clock, ms).
    polled_at_ms: Option<u64>,
}

/// A change the autopilot reported, and the plan made again in its new airspace (or why not).
#[derive(Debug)]
pub struct AirspaceNews {
    /// The kinds that changed: `fence`, `rally`.
    pub changed: Vec<String>,
    pub result: Result<CheckedPlan, String>,
}

impl AirspaceWatch {
    /// Watching from the link's change counts `now`; `held` is the autopilot's airspace read
    /// after them, the one the plan was made in.
    pub fn new(replan: Replan, now: [u32; 3], held: AutopilotAirspace) -> Self {
        Self {
            replan,
            seen: now,
            reported: None,
            held,
            refused: None,
            polled_at_ms: None,
        }
    }

    /// Whether an autopilot without plan ids is due to be read again at `now_ms`.
    pub fn poll_due(&self, now_ms: u64) -> bool {
        self.polled_at_ms
            .is_none_or(|at| now_ms.saturating_sub(at) >= POLL_MS)
    }

    /// Takes the airspace polled at `now_ms`: the kinds in which it differs from the one the
    /// gate's was made from (`fence` also for the fence parameters), or `None` when it is the
    /// same, was already refused, or could not be read (asked again at the next poll).
    pub fn polled(
        &mut self,
        now_ms: u64,
        read: &Result<AutopilotAirspace, String>,
    ) -> Option<Vec<String>> {
        self.polled_at_ms = Some(now_ms);
        let read = match read {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!(error = %e, "polling the autopilot's airspace");
                return None;
            }
        };
        if *read == self.held || self.refused.as_ref() == Some(read) {
            return None;
        }
        let h = &self.held;
        let mut changed = Vec::new();
        if read.fence != h.fence
            || read.max_altitude != h.max_altitude
            || read.min_altitude != h.min_altitude
            || read.home_circle != h.home_circle
        {
            changed.push("fence".to_string());
        }
        if read.rally != h.rally {
            changed.push("rally".to_string());
        }
        Some(changed)
    }

    /// The kinds changed since the gate's airspace was made, given the link's counts `now`;
    /// `None` when nothing changed or a failure for these counts was already reported.
    pub fn changed(&self, now: [u32; 3]) -> Option<Vec<String>> {
        let changed: Vec<String> = WATCHED
            .iter()
            .filter(|(i, _)| now[*i] != self.seen[*i])
            .map(|(_, name)| (*name).to_string())
            .collect();
        (!changed.is_empty() && self.reported != Some(now)).then_some(changed)
    }

    /// The plan made again in `airspace` (downloaded after counts `now`), the vehicle's
    /// battery at `battery_pct`. Success moves the watch to `now`; a failure is reported once
    /// per counts, and asked again at every turn.
    pub fn remake(
        &mut self,
        now: [u32; 3],
        airspace: Result<AutopilotAirspace, String>,
        battery_pct: f64,
    ) -> Result<CheckedPlan, String> {
        let made = airspace.and_then(|a| {
            match check_plan(
                &self.replan.input,
                &a,
                self.replan.at,
                battery_pct,
                &self.replan.config,
            ) {
                Ok(made) => Ok((made, a)),
                Err(e) => {
                    self.refused = Some(a);
                    Err(e.to_string())
                }
            }
        });
        match made {
            Ok((made, a)) => {
                self.seen = now;
                self.reported = None;
                self.held = a;
                self.refused = None;
                Ok(made)
            }
            Err(e) => {
                self.reported = Some(now);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mission_plan::read_plan_files;
    use alpha3_core::frames::{Enu, Geo};

    fn watch() -> AirspaceWatch {
        let root = alpha3_test_support::root();
        let input =
            read_plan_files(&root.join("configs/plans/zurich-detour.plan"), None, None).unwrap();
        let text = std::fs::read_to_string(root.join("configs/alpha3.toml")).unwrap();
        let config = alpha3_core::config::Config::from_toml(&text).unwrap();
        let at = Placement {
            home: Geo {
                lat_deg: 47.397742,
                lon_deg: 8.545594,
                alt_amsl_m: 488.0,
            },
            vehicle: Enu::default(),
        };
        AirspaceWatch::new(
            Replan { input, config, at },
            [0, 1, 0],
            AutopilotAirspace::default(),
        )
    }

    #[test]
    fn only_a_fence_or_rally_change_counts() {
        let w = watch();
        assert_eq!(w.changed([0, 1, 0]), None);
        // Our own mission is not the airspace.
        assert_eq!(w.changed([3, 1, 0]), None);
        assert_eq!(w.changed([0, 2, 0]), Some(vec!["fence".to_string()]));
        assert_eq!(
            w.changed([0, 2, 1]),
            Some(vec!["fence".to_string(), "rally".to_string()])
        );
    }

    #[test]
    fn a_failed_download_is_reported_once_and_asked_again_after_the_next_change() {
        let mut w = watch();
        let failed = w.remake([0, 2, 0], Err("timed out".into()), 90.0);
        assert_eq!(failed.err().as_deref(), Some("timed out"));
        assert_eq!(w.changed([0, 2, 0]), None, "reported once");
        assert!(w.changed([0, 3, 0]).is_some(), "a newer change is news");
        // The autopilot's airspace, read: the plan is made again and the watch moves on.
        let made = w.remake([0, 3, 0], Ok(AutopilotAirspace::default()), 90.0);
        assert!(made.is_ok(), "{made:?}");
        assert_eq!(w.changed([0, 3, 0]), None);
    }

    #[test]
    fn a_polled_airspace_is_news_only_when_it_differs_from_the_one_held() {
        let mut w = watch();
        assert!(w.poll_due(0));
        let same = Ok(AutopilotAirspace::default());
        assert_eq!(w.polled(0, &same), None);
        assert!(!w.poll_due(POLL_MS - 1));
        assert!(w.poll_due(POLL_MS));
        assert_eq!(w.polled(POLL_MS, &Err("timed out".into())), None);
        let mut rally = AutopilotAirspace::default();
        rally.rally.push(alpha3_core::mission_file::GeoPoint {
            lat_deg: 47.3978,
            lon_deg: 8.5456,
            alt_m: 0.0,
            reference: alpha3_core::mission_file::AltitudeRef::AboveHome,
        });
        let rally = Ok(rally);
        assert_eq!(
            w.polled(2 * POLL_MS, &rally),
            Some(vec!["rally".to_string()])
        );
        // Made in it: the same airspace polled again is no news.
        assert!(w.remake([0, 1, 0], rally.clone(), 90.0).is_ok());
        assert_eq!(w.polled(3 * POLL_MS, &rally), None);
        let mut lower = rally.clone().unwrap();
        lower.max_altitude = Some(alpha3_core::plan_mission::ParamLimit {
            value: 50.0,
            source: "FENCE_ALT_MAX = 50".into(),
        });
        assert_eq!(
            w.polled(4 * POLL_MS, &Ok(lower)),
            Some(vec!["fence".to_string()])
        );
    }
}
