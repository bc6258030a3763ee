//! Bytes and timeouts in.

use super::binding::{Admission, Arrival};
use super::{Event, Session};
use crate::command::{AckMatch, Target};
use crate::dialect::{MavHeader, MavMessage, Message};
use crate::heartbeat::{Presence, is_flight_controller};
use crate::profile::Profile;
use crate::timesync::Sync;
use crate::wire::Inbound;
use std::net::SocketAddr;

impl Session {
    /// The signing clock at session time `now_us`.
    pub(super) fn signing_now(&self, now_us: u64) -> u64 {
        self.signing_base + now_us / 10
    }

    /// Feeds bytes as read from a stream transport (serial, TCP), in any chunking.
    pub fn handle_bytes(&mut self, now_us: u64, bytes: &[u8]) {
        self.take(now_us, None, bytes);
    }

    /// Feeds one datagram from `from`. Autopilots and routers send whole frames per datagram,
    /// so framing starts afresh: bytes from one sender never complete another's frame.
    pub fn handle_datagram(&mut self, now_us: u64, from: SocketAddr, bytes: &[u8]) {
        self.decoder.restart_framing();
        self.take(now_us, Some(from), bytes);
    }

    fn take(&mut self, now_us: u64, from: Option<SocketAddr>, bytes: &[u8]) {
        self.decoder.push(bytes);
        let ts = self.signing_now(now_us);
        while let Some(frame) = self.decoder.next(ts) {
            match frame {
                Ok(inbound) => self.handle_frame(now_us, from, &inbound),
                Err(rejected) => {
                    // Reported whoever sent it (a refused signature is news), but only the
                    // autopilot's frames count towards its link's statistics.
                    let h = rejected.header;
                    if self.admit(now_us, from, &h, rejected.message_id, false) {
                        self.stats.on_rx(
                            now_us,
                            h.system_id,
                            h.component_id,
                            h.sequence,
                            rejected.wire_len,
                        );
                    }
                    self.stats.on_rejected();
                    self.events.push_back(Event::Rejected(rejected));
                }
            }
        }
    }

    /// Whether a frame is the bound autopilot's (or may bind it); a foreign one is counted.
    fn admit(
        &mut self,
        now_us: u64,
        from: Option<SocketAddr>,
        header: &MavHeader,
        message_id: u32,
        autopilot_heartbeat: bool,
    ) -> bool {
        let arrival = Arrival {
            from,
            header,
            message_id,
            autopilot_heartbeat,
        };
        let lost = self.heartbeats.is_lost();
        match self
            .binding
            .admit(arrival, self.heartbeats.autopilot(), lost)
        {
            Admission::Handle => true,
            Admission::Rejoin => {
                self.returned(now_us);
                self.stats.forget_sequences();
                if let Some(p) = self.profile {
                    self.requests.reset(now_us, p.stream_requests());
                }
                self.events.push_back(Event::AutopilotRejoined { from });
                true
            }
            Admission::Foreign => false,
        }
    }

    /// The autopilot came back: what was meant for it before is withdrawn, if so configured.
    fn returned(&mut self, now_us: u64) {
        if self.withdraw_on_return {
            self.withdraw_commands(
                now_us,
                "the autopilot came back and must prove itself again",
            );
        }
    }

    /// Takes one decoded frame from a stream transport (the shell normally uses
    /// [`handle_bytes`](Self::handle_bytes) or [`handle_datagram`](Self::handle_datagram)).
    pub fn handle_inbound(&mut self, now_us: u64, frame: &Inbound) {
        self.handle_frame(now_us, None, frame);
    }

    fn handle_frame(&mut self, now_us: u64, from: Option<SocketAddr>, frame: &Inbound) {
        self.accepted_frames += 1;
        let h = &frame.header;
        let autopilot_heartbeat =
            matches!(&frame.message, MavMessage::HEARTBEAT(hb) if is_flight_controller(hb));
        if !self.admit(
            now_us,
            from,
            h,
            frame.message.message_id(),
            autopilot_heartbeat,
        ) {
            return;
        }
        // After a silence long enough to call the autopilot lost, its sequence numbers say
        // nothing: a reboot restarts them, so the first frame back (heartbeat or not) starts
        // the count afresh instead of being measured against the old one.
        if self.heartbeats.is_lost() {
            self.stats.forget_sequences();
        }
        self.stats.on_rx(
            now_us,
            h.system_id,
            h.component_id,
            h.sequence,
            frame.wire_len,
        );
        if let MavMessage::HEARTBEAT(hb) = &frame.message {
            match self.heartbeats.on_heartbeat(now_us, h, hb) {
                Some(Presence::Found(info)) => {
                    self.binding.found(from);
                    match Profile::resolve(self.cfg.autopilot, hb.autopilot) {
                        Ok(profile) => {
                            self.profile = Some(profile);
                            let autopilot = Target {
                                system: info.system_id,
                                component: info.component_id,
                            };
                            self.target = Some(autopilot);
                            self.missions = Some(crate::mission::MissionClient::new(
                                profile,
                                autopilot,
                                Target {
                                    system: self.cfg.system_id,
                                    component: self.cfg.component_id,
                                },
                            ));
                            self.requests.reset(now_us, profile.stream_requests());
                            if self.cfg.tame_streams {
                                self.requests.slow(profile.slowed_streams());
                                self.requests.silence(profile.silenced_streams());
                            }
                            self.events
                                .push_back(Event::AutopilotFound { info, profile });
                        }
                        Err(e) => self
                            .events
                            .push_back(Event::AutopilotRefused(e.to_string())),
                    }
                }
                Some(Presence::Back) => {
                    // Its sequence count was restarted above (it was lost until this frame).
                    self.returned(now_us);
                    if let Some(p) = self.profile {
                        self.requests.reset(now_us, p.stream_requests());
                        if self.cfg.tame_streams {
                            self.requests.slow(p.slowed_streams());
                            self.requests.silence(p.silenced_streams());
                        }
                    }
                    self.events.push_back(Event::AutopilotBack);
                }
                Some(Presence::Lost) | None => {}
            }
        }
        let Some(target) = self.target else {
            return;
        };
        if h.system_id != u32::from(target.system) {
            return;
        }
        let us = Target {
            system: self.cfg.system_id,
            component: self.cfg.component_id,
        };
        match &frame.message {
            MavMessage::COMMAND_ACK(ack) => {
                match self.commands.on_ack(now_us, h.system_id, ack, us) {
                    AckMatch::Outcome(outcome) => {
                        if let Some(p) = self.procedure.as_mut() {
                            p.command_done(outcome);
                        }
                    }
                    AckMatch::Late { command, result } => {
                        self.events.push_back(Event::LateAck { command, result });
                    }
                    AckMatch::Pending | AckMatch::Unrelated => {}
                }
            }
            MavMessage::TIMESYNC(t) => match self.timesync.on_timesync(now_us, h, t) {
                Sync::RoundTrip(rtt) => self.stats.on_rtt(now_us, rtt),
                Sync::Answer(m) => self.outbox.push_back(MavMessage::TIMESYNC(m)),
                Sync::Ignored => {}
            },
            // Only the autopilot's own parameters: a camera or gimbal on the same system
            // has its own, and one of them must never answer for the autopilot.
            MavMessage::PARAM_VALUE(v) if h.component_id == target.component => {
                if let Some(p) = self.profile {
                    self.params.on_value(v, p.param_encoding());
                }
            }
            MavMessage::STATUSTEXT(t) => {
                if let Some(text) = self.texts.on_statustext(now_us / 1000, t) {
                    self.readiness.note_text(now_us / 1000, &text.text);
                    self.events.push_back(Event::Text(text));
                }
            }
            MavMessage::HOME_POSITION(_) => self.requests.home_seen(),
            _ => {}
        }
        if h.component_id == target.component
            && let Some(m) = self.missions.as_mut()
        {
            m.handle(&frame.message, now_us);
            self.drain_missions();
        }
        if h.component_id == target.component {
            self.readiness.fold(&frame.message);
            self.requests.seen(frame.message.message_id());
        }
        if h.component_id == target.component
            && let Some(boot_ms) = boot_time_ms(&frame.message)
        {
            self.clock.observe(now_us, boot_ms);
        }
        if h.component_id == target.component
            && self
                .telemetry
                .fold(now_us / 1000, &frame.message, self.profile)
        {
            self.advance_procedure(now_us);
        }
    }

    /// Lets time pass: retries, timeouts, lost heartbeats, procedure deadlines.
    pub fn handle_timeout(&mut self, now_us: u64) {
        if self.heartbeats.handle_timeout(now_us) == Some(Presence::Lost) {
            self.events.push_back(Event::AutopilotLost);
        }
        if let Some(outcome) = self.commands.handle_timeout(now_us)
            && let Some(p) = self.procedure.as_mut()
        {
            p.command_done(outcome);
        }
        if let Some(m) = self.missions.as_mut()
            && m.poll_timeout().is_some_and(|t| t <= now_us)
        {
            m.handle_timeout(now_us);
            self.drain_missions();
        }
        self.advance_procedure(now_us);
    }
}

/// The autopilot's time since boot a message carries, for the [`VehicleClock`](crate::vehicle_clock::VehicleClock).
fn boot_time_ms(message: &MavMessage) -> Option<u64> {
    let ms = match message {
        MavMessage::ATTITUDE(m) => m.time_boot_ms,
        MavMessage::GLOBAL_POSITION_INT(m) => m.time_boot_ms,
        MavMessage::LOCAL_POSITION_NED(m) => m.time_boot_ms,
        MavMessage::SYSTEM_TIME(m) => m.time_boot_ms,
        _ => return None,
    };
    Some(u64::from(ms))
}
