//! A flight controller over a [`VehicleLink`] (PX4 SITL, our PX4-like endpoint, or a real
//! autopilot through `alpha3-hil`) as the vehicle an episode flies, with the world around it.
//!
//! The wire carries the vehicle — its snapshot, its answers to commands and real time — and
//! nothing else; the built-in world supplies the rest. The world runs as the vehicle's twin:
//! it gets every command the vehicle accepted, follows the link's clock, and is put where the
//! telemetry says the vehicle is (in the air, on a 3D fix: `World::follow`), so its network
//! model, traffic, peers, payload sensors, operator and evaluator — mission progress and
//! violations included — see the real flight. In `sitl` the record's truth trace is the
//! twin's; in `fly` it is the telemetry, and the operator is a person.

use super::mission_mode::{HandedRoute, last_item, next_point, route_items, same_mission};
use super::onboard::{AirspaceNews, AirspaceWatch};
use super::surroundings::{MissionNews, Surroundings};
use crate::operator_channel::{OperatorChannel, Unheard};
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::gate::ApprovedCommand;
use alpha3_core::link::LinkSample;
use alpha3_core::plan_mission::AutopilotAirspace;
use alpha3_core::protocol::{Action, AgentTurn};
use alpha3_core::record::Event;
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use alpha3_core::vehicle::{LinkError, SendReceipt, VehicleLink, reported_settled};
use alpha3_hil::Profile;
use alpha3_hil::mission::{MissionItem, MissionKind};
use alpha3_sim::World;
use alpha3_sim::operator::OperatorTurn;
use std::time::Duration;

/// What a link can say about itself beyond [`VehicleLink`].
pub trait LinkHealth {
    /// The link as measured (round trip, jitter, loss), when a round trip has been measured.
    fn measured(&self) -> Option<LinkSample>;
    /// Why the link will no longer fly its vehicle (an autopilot that came back not proven
    /// a simulator, under `fly`'s real-vehicle gate); the episode then ends.
    fn refusal(&self) -> Option<String> {
        None
    }
    /// Tells the vehicle's ground station `text` (a real link: STATUSTEXT the pilot sees in
    /// QGroundControl); nothing elsewhere.
    fn tell_ground_station(&self, _text: &str) {}
    /// How often the autopilot said its plans changed, per kind (mission, fence, rally).
    fn plan_changes(&self) -> [u32; 3] {
        [0; 3]
    }
    /// The autopilot's fence, rally points and fence parameters, downloaded now.
    fn autopilot_airspace(&self) -> impl Future<Output = Result<AutopilotAirspace, String>> {
        std::future::ready(Err("this link reaches no autopilot's plans".to_string()))
    }
    /// Which autopilot it is, once heard.
    fn profile(&self) -> Option<Profile> {
        None
    }
    /// The autopilot's current mission item and the last it said it reached.
    fn mission_position(&self) -> Option<(u16, Option<u16>)> {
        None
    }
    /// Replaces the autopilot's mission with `items`.
    fn upload_mission(&self, _items: Vec<MissionItem>) -> impl Future<Output = Result<(), String>> {
        std::future::ready(Err("this link reaches no autopilot's mission".to_string()))
    }
    /// The autopilot's mission, downloaded now.
    fn download_mission(&self) -> impl Future<Output = Result<Vec<MissionItem>, String>> {
        std::future::ready(Err("this link reaches no autopilot's mission".to_string()))
    }
}

impl LinkHealth for alpha3_hil::HilLink {
    fn measured(&self) -> Option<LinkSample> {
        self.measurement()
            .to_sample(alpha3_core::link::Slice::Urllc, 0.0, 3_000)
    }

    fn refusal(&self) -> Option<String> {
        alpha3_hil::HilLink::refusal(self)
    }

    fn tell_ground_station(&self, text: &str) {
        alpha3_hil::HilLink::tell_ground_station(self, text);
    }

    fn plan_changes(&self) -> [u32; 3] {
        self.status().plan_changes
    }

    async fn autopilot_airspace(&self) -> Result<AutopilotAirspace, String> {
        crate::mission_plan::read_autopilot_airspace(self)
            .await
            .map_err(|e| e.to_string())
    }

    fn profile(&self) -> Option<Profile> {
        self.status().profile
    }

    fn mission_position(&self) -> Option<(u16, Option<u16>)> {
        let s = self.status();
        s.mission_current.map(|c| (c.seq, s.mission_reached))
    }

    async fn upload_mission(&self, items: Vec<MissionItem>) -> Result<(), String> {
        self.upload_plan(MissionKind::Mission, items)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    async fn download_mission(&self) -> Result<Vec<MissionItem>, String> {
        self.download_plan(MissionKind::Mission)
            .await
            .map(|p| p.items)
            .map_err(|e| e.to_string())
    }
}

/// Where the operator's words come from.
#[derive(Debug)]
pub enum OperatorSource {
    /// The world's scripted, seeded operator (`sitl`).
    World,
    /// A person on stdin or a local socket (`fly`); no answer within `wait` counts as silence.
    Channel {
        channel: OperatorChannel,
        wait: Duration,
    },
}

/// Where truth samples and link samples come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sources {
    /// `sitl`: the twin's truth, the world's network model.
    Simulated,
    /// `fly`: the telemetry as truth, the measured MAVLink link (throughput from the world's
    /// model: a telemetry link carries too little to measure capacity).
    Onboard,
}

/// A vehicle over a link, with the world as its twin.
#[derive(Debug)]
pub struct LinkedVehicle<L> {
    link: L,
    world: World,
    /// Link time at the episode's start: episode time is link time since then.
    t0_ms: u64,
    operator: OperatorSource,
    sources: Sources,
    /// Where the last accepted move is going, for "settled".
    target: Option<Enu>,
    /// The twin was put where the telemetry says at the last step (in the air, on a fix).
    following: bool,
    /// A plan's airspace, followed when the autopilot's own plans change.
    airspace: Option<AirspaceWatch>,
    /// A plan's route, which may be handed over to the autopilot as its mission.
    handed: Option<HandedRoute>,
    /// The items uploaded for it, and the link's count of mission changes just after.
    uploaded: Option<(Vec<MissionItem>, u32)>,
    /// The last command accepted was `fly_mission`: the autopilot flies the mission.
    flying_mission: bool,
    /// This vehicle's end of a swarm: its mates come from the swarm network, not the world.
    swarm: Option<crate::swarm::SwarmMember>,
    /// Where the agent last asked to go, approved or not (told to the swarm while waiting).
    wanted: Option<Enu>,
}

impl<L: VehicleLink + LinkHealth> LinkedVehicle<L> {
    /// Starts the episode clock now. `world` is the scenario's world at time 0.
    pub fn new(link: L, world: World, operator: OperatorSource, sources: Sources) -> Self {
        let t0_ms = link.now_ms();
        Self {
            link,
            world,
            t0_ms,
            operator,
            sources,
            target: None,
            following: false,
            airspace: None,
            handed: None,
            uploaded: None,
            flying_mission: false,
            swarm: None,
            wanted: None,
        }
    }

    /// Flies as a member of a swarm: the gate's other aircraft are `member`'s mates.
    pub fn join_swarm(&mut self, member: Option<crate::swarm::SwarmMember>) {
        self.swarm = member;
    }

    /// What the swarm member heard and said, when this vehicle flies in a swarm.
    pub fn swarm_report(&self) -> Option<crate::swarm::SwarmReport> {
        let now = self.episode_ms();
        self.swarm.as_ref().map(|m| m.report(now))
    }

    /// Offers `route` to be handed over to the autopilot (`upload_mission`).
    pub fn hand_over_route(&mut self, route: Option<HandedRoute>) {
        self.handed = route;
    }

    /// Follows the autopilot's own fence and rally points for `watch`'s plan.
    pub fn watch_airspace(&mut self, watch: Option<AirspaceWatch>) {
        self.airspace = watch;
    }

    pub fn link(&self) -> &L {
        &self.link
    }

    pub fn link_mut(&mut self) -> &mut L {
        &mut self.link
    }

    /// Closes the operator channel, if there is one: the lines the agent never heard, for the
    /// record.
    pub async fn close_operator(&mut self) -> Unheard {
        match &mut self.operator {
            OperatorSource::Channel { channel, .. } => channel.close().await,
            OperatorSource::World => Unheard::default(),
        }
    }

    pub fn into_parts(self) -> (L, World) {
        (self.link, self.world)
    }

    /// The episode clock: link time since the start.
    fn episode_ms(&self) -> u64 {
        self.link.now_ms().saturating_sub(self.t0_ms)
    }

    fn remember_target(&mut self, command: &Command, snap: &VehicleSnapshot) {
        self.target = match *command {
            Command::GoTo { target, .. } => Some(target),
            Command::Takeoff { altitude_m } | Command::SetAltitude { altitude_m } => {
                Some(Enu::new(snap.position.x, snap.position.y, altitude_m))
            }
            Command::SetSpeed { .. } | Command::SetYaw { .. } | Command::Arm => self.target,
            _ => None,
        };
    }

    /// The telemetry says the last command is done; for the handed-over mission: the
    /// autopilot left its mission mode (other than for the mission's own return or landing),
    /// landed and disarmed, or stopped at the last item.
    fn vehicle_settled(&self) -> bool {
        let s = self.link.snapshot();
        if !self.flying_mission {
            return reported_settled(&s, self.target);
        }
        let at_end = match (
            &self.uploaded,
            self.link.profile(),
            self.link.mission_position(),
        ) {
            (Some((items, _)), Some(p), Some((_, Some(reached)))) => {
                reached >= last_item(p, items.len()) && s.ground_speed_mps() < 0.5
            }
            _ => false,
        };
        // The mission's own return or landing is part of it: done once down.
        let own_end = matches!(s.mode, FlightMode::Return | FlightMode::Land);
        let left = !matches!(s.mode, FlightMode::Mission) && !own_end;
        left || (!s.armed && !s.is_airborne()) || at_end
    }
}

impl<L: VehicleLink + LinkHealth> VehicleLink for LinkedVehicle<L> {
    fn now_ms(&self) -> u64 {
        self.episode_ms()
    }

    /// The telemetry, on the episode clock. In `sitl` ([`Sources::Simulated`]) the battery is
    /// the twin's — the scenario's pack flown along the autopilot's path, the one the truth
    /// reads — so the gate, the agent and the score judge one battery: a SITL's own is a timer
    /// (PX4 SIH) or a stock pack that is not recharged between episodes (ArduCopter).
    fn snapshot(&self) -> VehicleSnapshot {
        let mut s = self.link.snapshot();
        // The telemetry's own stamp on the episode clock: the gate refuses telemetry too old
        // to decide on, so it must see the real age (stamped "now", a link starved while a
        // model decodes would look fresh).
        s.time_ms = s.time_ms.saturating_sub(self.t0_ms).min(self.episode_ms());
        if self.sources == Sources::Simulated {
            s.battery = self.world.reported_battery();
            s.unreported.battery = false;
        }
        s
    }

    /// The vehicle's answer, on the episode clock; the twin flies what the vehicle accepted.
    async fn send(&mut self, command: ApprovedCommand) -> Result<SendReceipt, LinkError> {
        let before = self.link.snapshot();
        let r = self.link.send(command.clone()).await?;
        let at_ms = self.episode_ms();
        if r.accepted {
            self.remember_target(command.command(), &before);
            self.flying_mission = *command.command() == Command::FlyMission;
            // The twin follows what the vehicle does (a mission: where the telemetry says).
            self.world.advance_to_ms(at_ms);
            if self.flying_mission {
                return Ok(SendReceipt {
                    accepted: r.accepted,
                    message: r.message,
                    at_ms,
                });
            }
            let twin = self.world.execute(&command);
            if !twin.accepted {
                tracing::warn!(
                    "the twin refused {} that the vehicle accepted: {:?}",
                    command.command().name(),
                    twin.message
                );
            }
        }
        Ok(SendReceipt {
            accepted: r.accepted,
            message: r.message,
            at_ms,
        })
    }

    async fn advance_to(&mut self, until_ms: u64) -> Result<(), LinkError> {
        self.link.advance_to(self.t0_ms + until_ms).await?;
        if let Some(reason) = self.link.refusal() {
            return Err(LinkError::Refused {
                what: "commands".into(),
                reason: format!("not proven a simulator: {reason}"),
            });
        }
        let now = self.episode_ms();
        self.world.advance_to_ms(now);
        // The twin is put where the vehicle reports itself, so objectives and violations are
        // the real flight's. Only on a 3D fix: without one the position is the autopilot's
        // dead reckoning, and the twin's own model (its faults included) knows as much.
        let s = self.link.snapshot();
        let (p, v) = (
            alpha3_sim::vec3::from_enu(s.position),
            alpha3_sim::vec3::from_enu(s.velocity),
        );
        self.following = if self.flying_mission {
            // The autopilot flies by itself: its take-off and landing reach the twin only
            // through the telemetry.
            s.gnss.fix.is_3d() && self.world.follow_autonomous(p, v, s.is_airborne())
        } else {
            s.is_airborne() && s.gnss.fix.is_3d() && self.world.follow(p, v)
        };
        Ok(())
    }

    /// The vehicle is done. While the twin follows the telemetry it is where the vehicle is,
    /// so the vehicle's word is enough (the twin's own arrival test — within 1 m, below
    /// 0.5 m/s — is for its ideal dynamics, and a real hover wanders outside it for seconds);
    /// when it flies by itself (no fix) it keeps the mission's progress and must be done too.
    fn is_settled(&self) -> bool {
        self.vehicle_settled() && (self.following || self.world.is_settled())
    }

    fn realtime(&self) -> bool {
        self.link.realtime()
    }

    fn vehicle_lost(&self) -> bool {
        self.link.vehicle_lost()
    }
}

impl<L: VehicleLink + LinkHealth> Surroundings for LinkedVehicle<L> {
    fn world(&self) -> &World {
        &self.world
    }

    fn swarm_plans(&mut self, now_ms: u64) -> Option<Vec<alpha3_core::gate::PeerPlan>> {
        let snapshot = self.snapshot();
        let (target, wanted) = (self.target, self.wanted);
        let member = self.swarm.as_mut()?;
        Some(member.exchange(now_ms, &snapshot, target, wanted))
    }

    fn swarm_lost(&mut self, now_ms: u64) -> bool {
        self.swarm.as_mut().is_some_and(|m| m.lost(now_ms))
    }

    fn wants(&mut self, command: &Command) {
        self.wanted = match *command {
            Command::GoTo { target, .. } => Some(target),
            Command::SetSpeed { .. } | Command::SetYaw { .. } | Command::Arm => self.wanted,
            _ => None,
        };
    }

    fn tell_ground_station(&self, text: &str) {
        self.link.tell_ground_station(text);
    }

    async fn airspace_news(&mut self) -> Option<AirspaceNews> {
        let clock_ms = self.episode_ms();
        let watch = self.airspace.as_mut()?;
        let now = self.link.plan_changes();
        let (changed, airspace) = match watch.changed(now) {
            Some(changed) => (changed, self.link.autopilot_airspace().await),
            // ArduPilot says nothing when a ground station uploads a fence: read it again
            // now and then and compare.
            None if self.link.profile() == Some(Profile::ArduPilot) && watch.poll_due(clock_ms) => {
                let read = self.link.autopilot_airspace().await;
                (watch.polled(clock_ms, &read)?, read)
            }
            None => return None,
        };
        let battery = self.link.snapshot().battery.remaining_pct;
        let result = watch.remake(now, airspace, battery);
        Some(AirspaceNews { changed, result })
    }

    fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    fn handed_route(&self) -> Option<&HandedRoute> {
        self.handed.as_ref()
    }

    async fn upload_route(&mut self, cruise_mps: f64) -> Result<usize, String> {
        let handed = self
            .handed
            .as_ref()
            .ok_or("no plan route to hand over on this episode")?;
        let s = self.link.snapshot();
        let items = route_items(handed, s.position, s.home.alt_amsl_m, cruise_mps);
        let n = items.len();
        self.uploaded = None;
        self.link.upload_mission(items.clone()).await?;
        // Our own upload is not a change by someone else: count from after it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        self.uploaded = Some((items, self.link.plan_changes()[0]));
        Ok(n)
    }

    async fn verify_mission(&mut self) -> Result<(), String> {
        let Some((items, _)) = &self.uploaded else {
            return Err("no mission was uploaded".into());
        };
        let held = self.link.download_mission().await?;
        if same_mission(items, &held) {
            Ok(())
        } else {
            Err(format!(
                "the autopilot's mission is not the one uploaded ({} items held, {} uploaded)",
                held.len(),
                items.len()
            ))
        }
    }

    fn mission_news(&self) -> MissionNews {
        let (Some(handed), Some((items, changes))) = (&self.handed, &self.uploaded) else {
            return MissionNews::default();
        };
        let position = self.link.mission_position();
        let profile = self.link.profile();
        MissionNews {
            current_item: position.map(|p| p.0),
            next_point: position
                .zip(profile)
                .map(|((seq, _), p)| next_point(p, seq, handed.route.points.len())),
            changed: self.link.plan_changes()[0] != *changes,
            items: items.len(),
        }
    }

    fn link_sample(&mut self) -> LinkSample {
        let modelled = self.world.link_sample();
        match self.sources {
            Sources::Simulated => modelled,
            Sources::Onboard => match self.link.measured() {
                Some(m) => LinkSample {
                    throughput_mbps: modelled.throughput_mbps,
                    edge_load: modelled.edge_load,
                    ..m
                },
                None => modelled,
            },
        }
    }

    fn truth_event(&self) -> Event {
        match self.sources {
            Sources::Simulated => self.world.truth_event(),
            Sources::Onboard => {
                let s = self.link.snapshot();
                Event::Truth {
                    position: s.position,
                    velocity: s.velocity,
                    battery_pct: s.battery.remaining_pct,
                    armed: s.armed,
                    airborne: s.is_airborne(),
                }
            }
        }
    }

    async fn operator_turn(&mut self, agent: &AgentTurn) -> OperatorTurn {
        match &mut self.operator {
            OperatorSource::World => self.world.operator_turn(agent),
            OperatorSource::Channel { channel, wait } => {
                channel.say(&describe(agent));
                match channel.next_message(*wait).await {
                    Some(text) => OperatorTurn {
                        intent: "operator_message".into(),
                        text,
                        directive: None,
                    },
                    None => OperatorTurn {
                        intent: "no_reply".into(),
                        text: "(no message from the operator; continue the mission)".into(),
                        directive: None,
                    },
                }
            }
        }
    }
}

/// The agent's turn in a line a person can read.
fn describe(agent: &AgentTurn) -> String {
    let actions: Vec<String> = agent
        .actions
        .iter()
        .map(|a| match a {
            Action::A2a { task, .. } => format!("a2a:{task}"),
            other => other.name().to_string(),
        })
        .collect();
    format!("agent: {} [{}]", agent.intent, actions.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::gate::evaluate_failsafe;
    use alpha3_core::snapshot::FlightMode;
    use alpha3_sim::WorldOptions;
    use alpha3_sim::scenario::suite_scenario;

    impl LinkHealth for World {
        fn measured(&self) -> Option<LinkSample> {
            None
        }
    }

    fn linked() -> LinkedVehicle<World> {
        let world = || World::new(suite_scenario(0), WorldOptions::seeded(1));
        LinkedVehicle::new(world(), world(), OperatorSource::World, Sources::Simulated)
    }

    #[tokio::test]
    async fn the_twin_follows_the_vehicles_clock_and_accepted_commands() {
        let mut v = linked();
        v.advance_to(2_000).await.unwrap();
        assert_eq!(v.now_ms(), 2_000);
        assert_eq!(v.world().now_ms(), 2_000);
        let snap = v.snapshot();
        let verdict = evaluate_failsafe(&snap, &Command::ReturnToHome, 2_000);
        let receipt = v.execute(verdict.approved().unwrap()).await;
        assert!(receipt.accepted);
        assert_eq!(v.snapshot().mode, FlightMode::Return);
        assert_eq!(
            v.world().snapshot().mode,
            FlightMode::Return,
            "the twin too"
        );
        assert!(!v.is_settled(), "returning is not settled");
    }

    #[tokio::test]
    async fn the_twin_is_where_the_vehicle_reports_itself() {
        // A vehicle in other gusts than its twin's (another seed): after a 30 s leg the two
        // would be metres apart; the twin is put where the telemetry says.
        let mut v = LinkedVehicle::new(
            World::new(suite_scenario(0), WorldOptions::seeded(7)),
            World::new(suite_scenario(0), WorldOptions::seeded(1)),
            OperatorSource::World,
            Sources::Simulated,
        );
        v.advance_to(2_000).await.unwrap();
        let snap = v.snapshot();
        let target = alpha3_core::frames::Enu::new(
            snap.position.x + 150.0,
            snap.position.y,
            snap.position.z,
        );
        let go = Command::GoTo {
            target,
            speed_mps: None,
        };
        let ctx = alpha3_core::gate::GateContext::new(
            crate::episode_setup::EpisodeSettings::default().limits,
            crate::episode_setup::shipped_vehicle(),
        )
        .unwrap();
        let verdict = alpha3_core::gate::evaluate(
            &ctx,
            &snap,
            &go,
            2_000,
            &mut alpha3_core::gate::GateState::default(),
        );
        assert!(v.execute(verdict.approved().unwrap()).await.accepted);
        for t in (2_100..=32_000).step_by(100) {
            v.advance_to(t).await.unwrap();
            let reported = alpha3_sim::vec3::from_enu(v.snapshot().position);
            let twin = v.world().truth().position;
            assert_eq!(twin, reported, "at {t} ms");
        }
    }

    /// The built-in world behind a link whose telemetry arrives `lag_ms` late.
    struct Lagging {
        world: World,
        lag_ms: u64,
    }

    impl LinkHealth for Lagging {
        fn measured(&self) -> Option<LinkSample> {
            None
        }
    }

    impl VehicleLink for Lagging {
        fn snapshot(&self) -> VehicleSnapshot {
            let mut s = self.world.snapshot();
            s.time_ms = s.time_ms.saturating_sub(self.lag_ms);
            s
        }
        async fn send(&mut self, command: ApprovedCommand) -> Result<SendReceipt, LinkError> {
            self.world.send(command).await
        }
        async fn advance_to(&mut self, until_ms: u64) -> Result<(), LinkError> {
            self.world.advance_to(until_ms).await
        }
        fn now_ms(&self) -> u64 {
            self.world.now_ms()
        }
    }

    #[tokio::test]
    async fn the_gate_sees_the_telemetrys_own_age_and_refuses_it_stale() {
        // Issue 31: every snapshot used to be stamped "now", so a link starved while the
        // model decoded looked fresh and the gate's stale-telemetry check could never fire.
        let world = || World::new(suite_scenario(0), WorldOptions::seeded(1));
        let ctx = alpha3_core::gate::GateContext::new(
            crate::episode_setup::EpisodeSettings::default().limits,
            crate::episode_setup::shipped_vehicle(),
        )
        .unwrap();
        for (lag_ms, stale) in [(40, false), (3_000, true)] {
            let link = Lagging {
                world: world(),
                lag_ms,
            };
            let mut v = LinkedVehicle::new(link, world(), OperatorSource::World, Sources::Onboard);
            v.advance_to(10_000).await.unwrap();
            let snap = v.snapshot();
            assert_eq!(v.now_ms() - snap.time_ms, lag_ms);
            let verdict = alpha3_core::gate::evaluate(
                &ctx,
                &snap,
                &Command::Arm,
                v.now_ms(),
                &mut alpha3_core::gate::GateState::default(),
            );
            let refused_stale = verdict
                .findings()
                .iter()
                .any(|f| f.id == alpha3_core::gate::ids::STATE_STALE_SNAPSHOT);
            assert_eq!(refused_stale, stale, "lag {lag_ms} ms: {verdict:?}");
        }
    }

    #[tokio::test]
    async fn onboard_truth_is_the_telemetry() {
        let world = World::new(suite_scenario(0), WorldOptions::seeded(1));
        let mut v = LinkedVehicle::new(
            world.clone(),
            world,
            OperatorSource::World,
            Sources::Onboard,
        );
        v.advance_to(500).await.unwrap();
        let Event::Truth { position, .. } = v.truth_event() else {
            panic!("not a truth event")
        };
        assert_eq!(position, v.link().snapshot().position);
    }
}
