//! The heartbeat micro-service: we announce ourselves as an onboard controller (and, when
//! configured, as a GCS, because PX4 only sends STATUSTEXT to links that heard a GCS), and we
//! recognise the flight controller from its own HEARTBEAT and notice when it goes quiet.

use crate::dialect::{MavHeader, MavMessage, mav};
use mav::{MavAutopilot, MavModeFlag, MavState, MavType};

/// The flight controller as its HEARTBEAT describes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutopilotInfo {
    pub system_id: u8,
    pub component_id: u8,
    pub autopilot: MavAutopilot,
    pub vehicle_type: MavType,
}

/// A change in the autopilot's presence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Presence {
    /// First heartbeat of the autopilot this link talks to.
    Found(AutopilotInfo),
    /// Heartbeats stopped (reboot, cable pull, radio out of range).
    Lost,
    /// Heartbeats resumed after [`Presence::Lost`].
    Back,
}

/// Our heartbeats out, the autopilot's in.
#[derive(Debug, Clone)]
pub struct Heartbeats {
    interval_us: u64,
    component: u8,
    gcs_component: Option<u8>,
    next_us: u64,
    gcs_due: bool,
    autopilot: Option<AutopilotInfo>,
    last_seen_us: Option<u64>,
    lost_after_us: u64,
    lost: bool,
}

impl Heartbeats {
    pub fn new(
        interval_ms: u64,
        component: u8,
        gcs_component: Option<u8>,
        lost_after_ms: u64,
    ) -> Self {
        Self {
            interval_us: interval_ms.max(1) * 1000,
            component,
            gcs_component,
            next_us: 0,
            gcs_due: false,
            autopilot: None,
            last_seen_us: None,
            lost_after_us: lost_after_ms * 1000,
            lost: false,
        }
    }

    pub fn autopilot(&self) -> Option<AutopilotInfo> {
        self.autopilot
    }

    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// Time since the autopilot's last heartbeat.
    pub fn age_us(&self, now_us: u64) -> Option<u64> {
        self.last_seen_us.map(|t| now_us.saturating_sub(t))
    }

    /// Our next heartbeat, as (sending component, message).
    pub fn poll_transmit(&mut self, now_us: u64) -> Option<(u8, MavMessage)> {
        if self.gcs_due {
            self.gcs_due = false;
            if let Some(c) = self.gcs_component {
                return Some((c, heartbeat(MavType::MAV_TYPE_GCS)));
            }
        }
        if now_us < self.next_us {
            return None;
        }
        self.next_us = now_us + self.interval_us;
        self.gcs_due = self.gcs_component.is_some();
        Some((
            self.component,
            heartbeat(MavType::MAV_TYPE_ONBOARD_CONTROLLER),
        ))
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        let lost_at = self
            .last_seen_us
            .filter(|_| !self.lost)
            .map(|t| t + self.lost_after_us);
        Some(lost_at.map_or(self.next_us, |l| l.min(self.next_us)))
    }

    /// Takes any HEARTBEAT; only the flight controller's count.
    pub fn on_heartbeat(
        &mut self,
        now_us: u64,
        header: &MavHeader,
        hb: &mav::HEARTBEAT_DATA,
    ) -> Option<Presence> {
        if !is_flight_controller(hb) {
            return None;
        }
        let info = AutopilotInfo {
            system_id: u8::try_from(header.system_id).ok()?,
            component_id: header.component_id,
            autopilot: hb.autopilot,
            vehicle_type: hb.mavtype,
        };
        match self.autopilot {
            None => {
                self.autopilot = Some(info);
                self.last_seen_us = Some(now_us);
                Some(Presence::Found(info))
            }
            Some(known)
                if known.system_id == info.system_id && known.component_id == info.component_id =>
            {
                self.last_seen_us = Some(now_us);
                if self.lost {
                    self.lost = false;
                    return Some(Presence::Back);
                }
                None
            }
            Some(_) => None,
        }
    }

    /// Reports the autopilot lost once its heartbeats stop.
    pub fn handle_timeout(&mut self, now_us: u64) -> Option<Presence> {
        let last = self.last_seen_us?;
        if !self.lost && now_us >= last + self.lost_after_us {
            self.lost = true;
            return Some(Presence::Lost);
        }
        None
    }
}

/// A flight controller, not a GCS, companion, camera or the like.
pub fn is_flight_controller(hb: &mav::HEARTBEAT_DATA) -> bool {
    use MavType as T;
    hb.autopilot != MavAutopilot::MAV_AUTOPILOT_INVALID
        && !matches!(
            hb.mavtype,
            T::MAV_TYPE_GCS
                | T::MAV_TYPE_ONBOARD_CONTROLLER
                | T::MAV_TYPE_GIMBAL
                | T::MAV_TYPE_CAMERA
                | T::MAV_TYPE_ADSB
                | T::MAV_TYPE_ANTENNA_TRACKER
                | T::MAV_TYPE_ODID
        )
}

/// A heartbeat of a non-flying component: autopilot INVALID, never the armed flag.
pub fn heartbeat(mavtype: MavType) -> MavMessage {
    MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
        custom_mode: 0,
        mavtype,
        autopilot: MavAutopilot::MAV_AUTOPILOT_INVALID,
        // Not Default: the generated default of MavModeFlag is SAFETY_ARMED.
        base_mode: MavModeFlag::empty(),
        system_status: MavState::MAV_STATE_ACTIVE,
        mavlink_version: 3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn px4(seq: u8) -> (MavHeader, mav::HEARTBEAT_DATA) {
        (
            MavHeader {
                system_id: 1,
                component_id: 1,
                sequence: seq,
            },
            mav::HEARTBEAT_DATA {
                custom_mode: 0,
                mavtype: MavType::MAV_TYPE_QUADROTOR,
                autopilot: MavAutopilot::MAV_AUTOPILOT_PX4,
                base_mode: MavModeFlag::empty(),
                system_status: MavState::MAV_STATE_STANDBY,
                mavlink_version: 3,
            },
        )
    }

    #[test]
    fn sends_onboard_then_gcs_heartbeats_every_interval() {
        let mut h = Heartbeats::new(1000, 191, Some(190), 3000);
        let (c, m) = h.poll_transmit(0).unwrap();
        assert_eq!(c, 191);
        let MavMessage::HEARTBEAT(hb) = m else {
            panic!()
        };
        assert_eq!(hb.mavtype, MavType::MAV_TYPE_ONBOARD_CONTROLLER);
        assert!(hb.base_mode.is_empty());
        let (c, m) = h.poll_transmit(0).unwrap();
        assert_eq!(c, 190);
        assert!(matches!(m, MavMessage::HEARTBEAT(hb) if hb.mavtype == MavType::MAV_TYPE_GCS));
        assert!(h.poll_transmit(999_999).is_none());
        assert!(h.poll_transmit(1_000_000).is_some());
    }

    #[test]
    fn finds_loses_and_regains_the_autopilot() {
        let mut h = Heartbeats::new(1000, 191, None, 3000);
        let (hdr, hb) = px4(0);
        let mut gcs = hb.clone();
        gcs.mavtype = MavType::MAV_TYPE_GCS;
        gcs.autopilot = MavAutopilot::MAV_AUTOPILOT_INVALID;
        assert_eq!(
            h.on_heartbeat(0, &hdr, &gcs),
            None,
            "a GCS is not an autopilot"
        );
        assert!(
            matches!(h.on_heartbeat(0, &hdr, &hb), Some(Presence::Found(i)) if i.system_id == 1)
        );
        assert_eq!(h.on_heartbeat(1_000_000, &hdr, &hb), None);
        assert_eq!(h.handle_timeout(3_999_999), None);
        assert_eq!(h.handle_timeout(4_000_000), Some(Presence::Lost));
        assert_eq!(h.handle_timeout(5_000_000), None, "reported once");
        assert_eq!(h.on_heartbeat(6_000_000, &hdr, &hb), Some(Presence::Back));
        assert_eq!(h.age_us(6_500_000), Some(500_000));
    }
}
