//! The gate's airspace kept true mid-episode: when the autopilot's own fence or rally points
//! changed (a ground station uploaded others), the plan made again in them replaces the gate's
//! fence, no-fly zones, landing sites and band before the next decision, and the record and the
//! ground station say so (see [`super::onboard::replan`]).

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use alpha3_core::config::Limits;
use alpha3_core::record::Event;
use alpha3_core::vehicle::VehicleLink;
use serde_json::Value;

/// How many of the re-made plan's denials the ground station is told.
const TOLD: usize = 3;

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Takes the autopilot's new airspace if it changed; `limits` are the episode's own, which
    /// the plan's band narrows again.
    pub(super) async fn refresh_airspace(&mut self, limits: &Limits) -> Result<(), Interruption> {
        let Some(news) = self.side.airspace_news().await else {
            return Ok(());
        };
        let what = news.changed.join(" and ");
        let (adopted, detail, sources) = match news.result {
            Ok(made) => match self.gate.adopt_airspace(&made.planned.scenario, limits) {
                Ok(()) => {
                    let denials: Vec<String> = made
                        .check
                        .findings
                        .iter()
                        .filter(|f| f.severity == "deny")
                        .map(|f| {
                            let at = f
                                .item
                                .map_or_else(|| f.leg.clone(), |s| format!("item {s}"));
                            format!("{at}: {}", f.reason)
                        })
                        .collect();
                    let detail = if denials.is_empty() {
                        "the gate decides on it now; the whole plan passes the check in it".into()
                    } else {
                        format!(
                            "the gate decides on it now; the whole plan fails the check in it \
                             ({} denial(s); {})",
                            denials.len(),
                            denials.join("; ")
                        )
                    };
                    self.side
                        .tell_ground_station(&format!("alpha3: autopilot {what} changed: adopted"));
                    for d in denials.iter().take(TOLD) {
                        self.side
                            .tell_ground_station(&format!("alpha3: in the new {what}: {d}"));
                    }
                    let sources =
                        serde_json::to_value(&made.planned.sources).unwrap_or(Value::Null);
                    (true, detail, sources)
                }
                Err(e) => (false, format!("the gate cannot use it: {e}"), Value::Null),
            },
            Err(e) => (false, e, Value::Null),
        };
        if adopted {
            tracing::info!(changed = %what, "the autopilot's airspace changed; the gate adopted it");
        } else {
            tracing::warn!(changed = %what, %detail, "the autopilot's airspace changed; not adopted");
            self.side.tell_ground_station(&format!(
                "alpha3: autopilot {what} changed, not read: {detail}"
            ));
        }
        let now = self.side.now_ms();
        self.recorder.append(
            now,
            Event::Airspace {
                changed: news.changed,
                adopted,
                detail,
                sources,
            },
        )?;
        Ok(())
    }
}
