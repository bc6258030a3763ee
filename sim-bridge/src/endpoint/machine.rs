//! [`Px4Machine`]: the vehicle and the MAVLink protocol state of each of its links, sans-IO.
//! Per link, as PX4 keeps it: the stream timetable (SET_MESSAGE_INTERVAL is per link), whether
//! a ground station's heartbeat was heard (STATUSTEXT only goes to such links), and the
//! replies owed to that link (COMMAND_ACK, PARAM_VALUE, TIMESYNC, requested messages). The
//! mission protocol is the [`MissionServer`]'s: its replies go out here, its texts through the
//! vehicle, a new FENCE plan becomes the vehicle's geofence and a new MISSION plan the one it
//! flies, whose progress goes back to the server.

use super::codec::mav::{self, MavCmd, MavResult, MavSeverity, MavType};
use super::codec::{COMP_AUTOPILOT, MavMessage};
use super::commands::CommandIn;
use super::copter_mode;
use super::mission::{MissionServer, Output, PlanKind, Situation};
use super::modes::Px4Mode;
use super::options::{Autopilot, StreamSet};
use super::state::MissionEvent;
use super::streams::{Schedule, data_stream, id};
use super::vehicle::Px4Vehicle;
use mavlink::{MavHeader, MessageData};
use std::collections::VecDeque;

/// MISSION_CURRENT's id: the mission server fills it, not the vehicle's telemetry.
const MISSION_CURRENT: u32 = mav::MISSION_CURRENT_DATA::ID;

/// One link's protocol state.
#[derive(Debug, Clone)]
struct LinkProtocol {
    schedule: Schedule,
    gcs_seen: bool,
    outbox: VecDeque<MavMessage>,
}

/// The vehicle with its links.
#[derive(Debug, Clone)]
pub struct Px4Machine {
    vehicle: Px4Vehicle,
    links: Vec<LinkProtocol>,
    missions: MissionServer,
    due: Vec<u32>,
    /// Id of the last chunked STATUSTEXT.
    text_id: u16,
}

impl Px4Machine {
    /// `links`: each link's stream set and rate scale.
    pub fn new(vehicle: Px4Vehicle, links: &[(StreamSet, f64)]) -> Self {
        let missions = MissionServer::new(
            vehicle.identity.autopilot,
            vehicle.identity.system_id,
            links.len(),
        );
        Self {
            missions,
            vehicle,
            links: links
                .iter()
                .map(|(set, scale)| LinkProtocol {
                    schedule: Schedule::new(*set, *scale),
                    gcs_seen: false,
                    outbox: VecDeque::new(),
                })
                .collect(),
            due: Vec::new(),
            text_id: 0,
        }
    }

    pub fn vehicle(&self) -> &Px4Vehicle {
        &self.vehicle
    }

    pub fn vehicle_mut(&mut self) -> &mut Px4Vehicle {
        &mut self.vehicle
    }

    /// The mission, fence and rally plans and their protocol.
    pub fn missions(&self) -> &MissionServer {
        &self.missions
    }

    /// Whether link `link` has heard a ground station's heartbeat.
    pub fn gcs_seen(&self, link: usize) -> bool {
        self.links.get(link).is_some_and(|l| l.gcs_seen)
    }

    fn for_us(&self, target_system: u8, target_component: u8) -> bool {
        (target_system == 0 || target_system == self.vehicle.identity.system_id)
            && (target_component == 0 || target_component == COMP_AUTOPILOT)
    }

    fn reply(&mut self, link: usize, message: MavMessage) {
        if let Some(l) = self.links.get_mut(link) {
            l.outbox.push_back(message);
        }
    }

    /// Takes one message that came in on `link`.
    pub fn handle(&mut self, link: usize, header: &MavHeader, message: &MavMessage) {
        if !self.vehicle.booted() || link >= self.links.len() {
            return;
        }
        match message {
            MavMessage::HEARTBEAT(hb) if hb.mavtype == MavType::MAV_TYPE_GCS => {
                self.links[link].gcs_seen = true;
                self.vehicle.note_gcs_heartbeat();
            }
            MavMessage::TIMESYNC(t) if t.tc1 == 0 => {
                let answer = MavMessage::TIMESYNC(mav::TIMESYNC_DATA {
                    tc1: (self.vehicle.time.now_us as i64).saturating_mul(1000),
                    ts1: t.ts1,
                    target_system: u8::try_from(header.system_id).unwrap_or(0),
                    target_component: header.component_id,
                });
                self.reply(link, answer);
            }
            MavMessage::COMMAND_LONG(c) if self.for_us(c.target_system, c.target_component) => {
                self.command(link, header, &CommandIn::long(c));
            }
            MavMessage::COMMAND_INT(c) if self.for_us(c.target_system, c.target_component) => {
                self.command(link, header, &CommandIn::int(c));
            }
            MavMessage::SET_POSITION_TARGET_LOCAL_NED(sp)
                if self.for_us(sp.target_system, sp.target_component) =>
            {
                self.vehicle.setpoint_local(sp);
            }
            MavMessage::SET_POSITION_TARGET_GLOBAL_INT(sp)
                if self.for_us(sp.target_system, sp.target_component) =>
            {
                self.vehicle.setpoint_global(sp);
            }
            // ArduPilot's older way of asking for telemetry, a group at a time; no answer.
            #[allow(deprecated)] // superseded by SET_MESSAGE_INTERVAL, still what GCSs send
            MavMessage::REQUEST_DATA_STREAM(r)
                if self.vehicle.identity.autopilot == Autopilot::ArduCopter
                    && self.for_us(r.target_system, r.target_component) =>
            {
                self.request_data_stream(link, r);
            }
            MavMessage::PARAM_REQUEST_READ(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                if let Some(v) = self.vehicle.params().read(r) {
                    self.reply(link, v);
                }
            }
            MavMessage::PARAM_REQUEST_LIST(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                for v in self.vehicle.params().list() {
                    self.reply(link, v);
                }
            }
            MavMessage::PARAM_SET(s) if self.for_us(s.target_system, s.target_component) => {
                // PX4 announces a changed value on every link.
                if let Some(v) = self.vehicle.params_mut().write(s) {
                    for l in &mut self.links {
                        l.outbox.push_back(v.clone());
                    }
                }
            }
            m if MissionServer::takes(m) => {
                let situation = self.situation();
                let now = self.vehicle.time.now_us;
                self.missions.handle(link, header, m, &situation, now);
                self.apply_mission_outputs();
                self.sync_mission();
            }
            _ => {}
        }
        self.broadcast_texts();
    }

    /// What the mission server needs to know of the vehicle.
    fn situation(&self) -> Situation {
        let mission_mode = match self.vehicle.identity.autopilot {
            Autopilot::Px4 => matches!(
                self.vehicle.mode(),
                Px4Mode::MISSION | Px4Mode::TAKEOFF | Px4Mode::LAND
            ),
            Autopilot::ArduCopter => self.vehicle.copter.mode == copter_mode::AUTO,
        };
        Situation {
            home: self.vehicle.home_geo(),
            mission_mode,
            progress: self.vehicle.mission_progress(),
        }
    }

    /// The mission flown and the mission server kept in step: the vehicle's current item and
    /// items reached go to the server (MISSION_CURRENT, MISSION_ITEM_REACHED to every link),
    /// a current item a peer set goes to the vehicle.
    fn sync_mission(&mut self) {
        for event in self.vehicle.take_mission_events() {
            match event {
                MissionEvent::Current(seq) => self.missions.set_current(seq),
                MissionEvent::Reached(seq) => self.missions.reached(seq),
            }
        }
        let seq = self.missions.current_seq();
        if seq != self.vehicle.mission_seq() {
            self.vehicle.mission_current_from_peer(seq);
        }
        self.apply_mission_outputs();
    }

    /// Sends, says and enforces what the mission server returned.
    fn apply_mission_outputs(&mut self) {
        while let Some(output) = self.missions.poll() {
            match output {
                Output::Send { link, message } => self.reply(link, message),
                Output::Broadcast(message) => {
                    for l in &mut self.links {
                        l.outbox.push_back(message.clone());
                    }
                }
                Output::Say { severity, text } => self.vehicle.say(severity, text),
                Output::Changed(PlanKind::Fence) => {
                    let items = self.missions.file_items(PlanKind::Fence);
                    self.vehicle.set_plan_fence(&items);
                }
                Output::Changed(PlanKind::Mission) => {
                    let items = self.missions.items(PlanKind::Mission).to_vec();
                    self.vehicle.set_plan_mission(items);
                }
                Output::Changed(PlanKind::Rally) => {}
            }
        }
    }

    /// Message `id` as telemetry: the vehicle's, or the mission server's MISSION_CURRENT.
    fn telemetry(&self, id: u32) -> Option<MavMessage> {
        if id == MISSION_CURRENT {
            return Some(self.missions.mission_current(&self.situation()));
        }
        self.vehicle.message(id)
    }

    /// REQUEST_DATA_STREAM: every message of the group at `req_message_rate` Hz, or stopped.
    #[allow(deprecated)] // superseded by SET_MESSAGE_INTERVAL, still what GCSs send
    fn request_data_stream(&mut self, link: usize, r: &mav::REQUEST_DATA_STREAM_DATA) {
        let now = self.vehicle.time.now_us;
        let interval = if r.start_stop == 0 || r.req_message_rate == 0 {
            -1.0
        } else {
            1e6 / f32::from(r.req_message_rate)
        };
        for m in data_stream(r.req_stream_id as u8) {
            self.links[link].schedule.set_interval(m, interval, now);
        }
    }

    fn command(&mut self, link: usize, header: &MavHeader, c: &CommandIn) {
        let now = self.vehicle.time.now_us;
        let mut extra = None;
        let result = match c.command {
            MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL => {
                let ok = c.p[0].is_finite()
                    && c.p[0] >= 0.0
                    && self.links[link]
                        .schedule
                        .set_interval(c.p[0] as u32, c.p[1], now);
                if ok {
                    MavResult::MAV_RESULT_ACCEPTED
                } else {
                    MavResult::MAV_RESULT_DENIED
                }
            }
            MavCmd::MAV_CMD_REQUEST_MESSAGE => {
                let wanted = if c.p[0].is_finite() && c.p[0] >= 0.0 {
                    c.p[0] as u32
                } else {
                    u32::MAX
                };
                self.request(wanted, &mut extra)
            }
            // Deprecated, but older ground stations still ask this way.
            #[allow(deprecated)]
            MavCmd::MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES => {
                self.request(id::AUTOPILOT_VERSION, &mut extra)
            }
            _ => {
                let result = self.vehicle.command(c);
                self.sync_mission();
                result
            }
        };
        let ack = |result| {
            MavMessage::COMMAND_ACK(mav::COMMAND_ACK_DATA {
                command: c.command,
                result,
                progress: 0,
                result_param2: 0,
                target_system: u8::try_from(header.system_id).unwrap_or(0),
                target_component: header.component_id,
            })
        };
        if c.command == MavCmd::MAV_CMD_DO_SET_MODE {
            // PX4's MAVLink receiver ACKs a DO_SET_MODE as ACCEPTED when it passes it on, and
            // the commander then answers with the result: two ACKs, the first no proof.
            self.reply(link, ack(MavResult::MAV_RESULT_ACCEPTED));
        }
        self.reply(link, ack(result));
        if let Some(m) = extra {
            self.reply(link, m);
        }
    }

    /// REQUEST_MESSAGE: the message, or why not.
    fn request(&self, message_id: u32, out: &mut Option<MavMessage>) -> MavResult {
        *out = self.telemetry(message_id);
        match (out.is_some(), message_id) {
            (true, _) => MavResult::MAV_RESULT_ACCEPTED,
            // ArduPilot accepts a request for home before it has one, and sends nothing.
            (false, id::HOME_POSITION)
                if self.vehicle.identity.autopilot == Autopilot::ArduCopter =>
            {
                MavResult::MAV_RESULT_ACCEPTED
            }
            // Home comes once the estimator has a global position.
            (false, id::HOME_POSITION) | (false, id::GLOBAL_POSITION_INT) => {
                MavResult::MAV_RESULT_TEMPORARILY_REJECTED
            }
            (false, _) => MavResult::MAV_RESULT_DENIED,
        }
    }

    fn broadcast_texts(&mut self) {
        for (severity, text) in self.vehicle.take_texts() {
            tracing::info!(?severity, %text, "vehicle");
            if text.len() > TEXT_CHUNK {
                self.text_id = self.text_id.wrapping_add(1).max(1);
            }
            let chunks = statustext(severity, &text, self.text_id);
            // ArduPilot sends its texts to every link; PX4 only to ground stations.
            let everyone = self.vehicle.identity.autopilot == Autopilot::ArduCopter;
            for l in self.links.iter_mut().filter(|l| everyone || l.gcs_seen) {
                l.outbox.extend(chunks.iter().cloned());
            }
        }
    }

    /// Moves the vehicle on to `now_us` and queues the telemetry due on every link.
    pub fn step(&mut self, now_us: u64) {
        self.vehicle.step(now_us);
        self.sync_mission();
        if self.vehicle.booted() {
            let situation = self.situation();
            self.missions.step(&situation, now_us);
            self.apply_mission_outputs();
        }
        self.broadcast_texts();
        if !self.vehicle.booted() {
            return;
        }
        // A stalled autopilot (a loaded machine) sends nothing that was due meanwhile.
        let stalled = self.vehicle.telemetry_stalled(false);
        let silent = self.vehicle.telemetry_stalled(true);
        if !stalled
            && self.vehicle.take_home_changed()
            && let Some(home) = self.vehicle.home_position()
        {
            for l in &mut self.links {
                l.outbox.push_back(home.clone());
            }
        }
        for i in 0..self.links.len() {
            self.due.clear();
            self.links[i].schedule.due(now_us, &mut self.due);
            for k in 0..self.due.len() {
                let held = if self.due[k] == id::HEARTBEAT {
                    silent
                } else {
                    stalled
                };
                if held {
                    continue;
                }
                if let Some(m) = self.telemetry(self.due[k]) {
                    self.links[i].outbox.push_back(m);
                }
            }
        }
    }

    /// The next message owed to `link`.
    pub fn poll(&mut self, link: usize) -> Option<MavMessage> {
        self.links.get_mut(link)?.outbox.pop_front()
    }

    /// The earliest time a stream or the mission protocol falls due.
    pub fn next_due_us(&self) -> Option<u64> {
        self.links
            .iter()
            .filter_map(|l| l.schedule.next_due_us())
            .chain(self.missions.next_deadline_us())
            .min()
    }
}

/// Bytes of text one STATUSTEXT carries.
const TEXT_CHUNK: usize = 50;

/// STATUSTEXT for `text`: one message, or MAVLink 2 chunks sharing `id` when it is longer
/// than one message holds (PX4 does the same).
fn statustext(severity: MavSeverity, text: &str, id: u16) -> Vec<MavMessage> {
    let bytes = text.as_bytes();
    if bytes.len() <= TEXT_CHUNK {
        return vec![MavMessage::STATUSTEXT(mav::STATUSTEXT_DATA {
            severity,
            text: text.into(),
            id: 0,
            chunk_seq: 0,
        })];
    }
    bytes
        .chunks(TEXT_CHUNK)
        .enumerate()
        .map(|(i, chunk)| {
            let mut data = [0u8; TEXT_CHUNK];
            data[..chunk.len()].copy_from_slice(chunk);
            MavMessage::STATUSTEXT(mav::STATUSTEXT_DATA {
                severity,
                text: mavlink::types::CharArray::new(data),
                id,
                chunk_seq: i as u8,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_go_out_in_chunks_sharing_an_id() {
        let text = "Arming denied: Resolve system health failures first";
        let chunks = statustext(MavSeverity::MAV_SEVERITY_CRITICAL, text, 7);
        assert_eq!(chunks.len(), 2);
        let mut joined = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            let MavMessage::STATUSTEXT(t) = c else {
                panic!()
            };
            assert_eq!((t.id, t.chunk_seq), (7, i as u8));
            joined.extend(t.text.iter().copied().take_while(|b| *b != 0));
        }
        assert_eq!(joined, text.as_bytes());
        assert_eq!(
            statustext(MavSeverity::MAV_SEVERITY_INFO, "short", 7).len(),
            1
        );
    }
}
