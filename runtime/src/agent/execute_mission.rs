//! The handed-over mission's tools, run like the catalogue's: `upload_mission` judges the
//! plan's whole route through the gate (as `fly_mission` from here would be judged) and only
//! then uploads it, and hands the gate the route; `start_mission` arms when needed and sends
//! `fly_mission`, `resume_mission` sends it again, each through the gate after checking that
//! the autopilot still holds the mission uploaded; `pause_mission` is the gate's hold;
//! `mission_status` reads where the autopilot is.

use super::execute::{ActionOutcome, Executor, RouteChange};
use super::surroundings::Surroundings;
use alpha3_core::command::Command;
use alpha3_core::gate::{GateState, Verdict, evaluate};
use alpha3_core::protocol::mission_tools::{
    MISSION_STATUS, MissionStatusResult, MissionUploadResult, PAUSE_MISSION, RESUME_MISSION,
    START_MISSION, UPLOAD_MISSION,
};
use alpha3_core::protocol::tools::{CommandResult, CommandStatus, FindingObservation};
use alpha3_core::record::{Event, FindingRecord};
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_core::vehicle::VehicleLink;
use serde_json::Value;

/// Whether `name` is one of the handed-over mission's tools.
pub(super) fn is_mission_tool(name: &str) -> bool {
    [
        UPLOAD_MISSION,
        START_MISSION,
        PAUSE_MISSION,
        RESUME_MISSION,
        MISSION_STATUS,
    ]
    .contains(&name)
}

impl<V: VehicleLink + Surroundings> Executor<'_, V> {
    pub(super) async fn mission(
        &mut self,
        turn: u32,
        index: u32,
        name: &str,
        out: &mut ActionOutcome,
    ) -> Result<Value, String> {
        let result = match name {
            UPLOAD_MISSION => return self.upload(turn, index, out).await,
            MISSION_STATUS => {
                out.executed = true;
                return serde_json::to_value(self.status()).map_err(|e| e.to_string());
            }
            PAUSE_MISSION => self.command(turn, index, &Command::Hold, out).await,
            START_MISSION | RESUME_MISSION => {
                if self.gate.route().is_none() {
                    return Err("no mission is uploaded: call upload_mission first".into());
                }
                if let Err(why) = self.side.verify_mission().await {
                    out.route = Some(RouteChange::Drop);
                    return Err(format!("{why}: upload it again"));
                }
                let mut last = CommandResult {
                    status: CommandStatus::Accepted,
                    message: None,
                    findings: Vec::new(),
                };
                if name == START_MISSION && !self.side.snapshot().armed {
                    last = self.command(turn, index, &Command::Arm, out).await;
                }
                if last.status == CommandStatus::Accepted {
                    last = self.command(turn, index, &Command::FlyMission, out).await;
                }
                last
            }
            other => return Err(format!("tool `{other}` has no executor")),
        };
        serde_json::to_value(result).map_err(|e| e.to_string())
    }

    /// Judges the plan's route from here, as `fly_mission` would be (on the ground, as if
    /// armed: arming is `start_mission`'s), and uploads it only when the gate passes it.
    async fn upload(
        &mut self,
        turn: u32,
        index: u32,
        out: &mut ActionOutcome,
    ) -> Result<Value, String> {
        let handed = self
            .side
            .handed_route()
            .cloned()
            .ok_or("no plan route to hand over: upload_mission needs --plan on an autopilot")?;
        let points = handed
            .route
            .points
            .iter()
            .map(|p| [p.at.x, p.at.y, p.at.z])
            .collect();
        let mut ctx = self.gate.clone();
        ctx.adopt_route(Some(handed.route.clone()));
        let mut snap = self.side.snapshot();
        if !snap.is_airborne() {
            snap.armed = true;
            snap.landed = LandedState::OnGround;
        }
        let verdict = evaluate(
            &ctx,
            &snap,
            &Command::FlyMission,
            self.side.now_ms(),
            &mut GateState::default(),
        );
        out.verdicts.push(verdict.outcome());
        out.events.push(Event::Verdict {
            turn,
            action: index,
            outcome: verdict.outcome(),
            findings: verdict.findings().iter().map(FindingRecord::from).collect(),
        });
        let findings: Vec<FindingObservation> = verdict
            .findings()
            .iter()
            .map(|f| FindingObservation {
                id: f.id.to_string(),
                reason: f.reason.to_string(),
                limit: Some(f.limit),
                measured: Some(f.measured),
            })
            .collect();
        let result = if let Verdict::Denied(found) = &verdict {
            if let Some(f) = found.first() {
                self.side.tell_ground_station(&format!(
                    "alpha3: denied the mission: {} ({})",
                    f.reason, f.id
                ));
            }
            MissionUploadResult {
                status: CommandStatus::Denied,
                message: Some("the route denied by the safety gate: nothing uploaded".into()),
                items: 0,
                points,
                findings,
            }
        } else {
            // The speed the route was judged at (the walk's default state).
            let cruise = self.gate.vehicle().cruise_speed_mps;
            let items = self.side.upload_route(cruise).await?;
            out.executed = true;
            out.route = Some(RouteChange::Adopt(handed.route));
            MissionUploadResult {
                status: CommandStatus::Completed,
                message: None,
                items,
                points,
                findings,
            }
        };
        serde_json::to_value(result).map_err(|e| e.to_string())
    }

    fn status(&self) -> MissionStatusResult {
        let news = self.side.mission_news();
        let snap = self.side.snapshot();
        let points = self.gate.route().map_or(0, |r| r.points.len());
        MissionStatusResult {
            uploaded: self.gate.route().is_some(),
            points,
            next_point: news.next_point.unwrap_or(self.gate.route_next()),
            current_item: news.current_item,
            // PX4 flies a mission's last RTL or landing in its Return or Land mode: still the
            // mission, past its last point.
            flying: self.gate.route().is_some()
                && snap.armed
                && (snap.mode == FlightMode::Mission
                    || (matches!(snap.mode, FlightMode::Return | FlightMode::Land)
                        && news.next_point == Some(points)
                        && self.paused_for.is_none())),
            mode: format!("{:?}", snap.mode).to_lowercase(),
            paused_for: self.paused_for.clone(),
        }
    }
}
