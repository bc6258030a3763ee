//! The gate watching the handed-over mission. The autopilot flies its legs without asking, so
//! once a second while it flies the mission the gate judges `fly_mission` again from where the
//! vehicle is, on the route it holds: the airspace may have changed (a fence uploaded by the
//! ground station), the battery may drain faster than the model said, traffic may come. When
//! what is left no longer passes — or the autopilot's mission is no longer the one uploaded —
//! the gate pauses it (its hold), records why (`mission_paused`), tells the ground station,
//! and the agent decides what happens next at its next turn.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use alpha3_core::command::Command;
use alpha3_core::gate::{GateState, Verdict, evaluate};
use alpha3_core::record::{Event, FindingRecord};
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use alpha3_core::vehicle::VehicleLink;

/// How often the gate judges what is left of a mission in flight, ms.
const WATCH_EVERY_MS: u64 = 1000;

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Follows the autopilot along the route and pauses the mission when what is left of it
    /// no longer passes the gate.
    pub(super) async fn watch_mission(
        &mut self,
        snapshot: &VehicleSnapshot,
        now: u64,
    ) -> Result<(), Interruption> {
        if self.gate.route().is_none() {
            return Ok(());
        }
        let news = self.side.mission_news();
        if let Some(next) = news.next_point {
            self.gate.set_route_next(next);
        }
        let flying = snapshot.mode == FlightMode::Mission && snapshot.armed;
        let (findings, detail) = if news.changed {
            // Someone else uploaded a mission: the gate judged a route the autopilot no
            // longer flies.
            self.gate.adopt_route(None);
            (
                Vec::new(),
                "the autopilot's mission changed since the upload".to_string(),
            )
        } else {
            // Below the band the mission's take-off (or its landing) is under way: the gate's
            // commitment rules own that part, and the route is judged from the band up.
            let below_band = snapshot.position.z < self.gate.limits().min_altitude_m;
            if !flying || below_band || now < self.mission_watch_at_ms {
                return Ok(());
            }
            self.mission_watch_at_ms = now + WATCH_EVERY_MS;
            // The fence a ground station uploads now counts now, not at the next decision.
            let limits = self.limits.clone();
            self.refresh_airspace(&limits).await?;
            // The autopilot follows the route's lines: the leg under way is judged as the line
            // it is, from here, not as a turn taken now at this speed (the gate's model of a
            // new command), which would see a corner cut that the autopilot does not fly.
            let mut on_the_line = *snapshot;
            on_the_line.velocity = alpha3_core::frames::Enu::default();
            let verdict = evaluate(
                self.gate,
                &on_the_line,
                &Command::FlyMission,
                now,
                &mut GateState::default(),
            );
            let Verdict::Denied(found) = verdict else {
                return Ok(());
            };
            let detail = found
                .first()
                .map_or_else(String::new, |f| format!("{} ({})", f.reason, f.id));
            (found.iter().map(FindingRecord::from).collect(), detail)
        };
        if !flying {
            return Ok(());
        }
        let next_point = self.gate.route_next();
        let item = self
            .gate
            .route()
            .and_then(|r| r.points.get(next_point))
            .and_then(|p| p.item);
        tracing::warn!(next_point, %detail, "the gate pauses the mission");
        self.recorder.append(
            now,
            Event::MissionPaused {
                next_point,
                item,
                findings,
                detail: detail.clone(),
            },
        )?;
        self.side
            .tell_ground_station(&format!("alpha3: mission paused: {detail}"));
        self.paused_for = Some(detail);
        let hold = evaluate(
            self.gate,
            snapshot,
            &Command::Hold,
            now,
            &mut self.gate_state,
        );
        if let Some(a) = hold.approved() {
            let receipt = self.send_approved(a).await;
            if !receipt.accepted {
                tracing::error!(message = ?receipt.message, "the mission's pause was refused");
            }
        }
        Ok(())
    }
}
