//! Which telemetry a link streams and when: PX4's default stream sets per link mode, changed
//! by SET_MESSAGE_INTERVAL (per link, as in PX4).

use super::options::StreamSet;
use std::collections::BTreeMap;

pub use alpha3_wire::dialect::id;
use alpha3_wire::dialect::mav;
use mavlink::MessageData;

/// MISSION_CURRENT, part of ArduPilot's EXTENDED_STATUS group (filled by the mission server).
const MISSION_CURRENT: u32 = mav::MISSION_CURRENT_DATA::ID;

/// Frames due at one tick beyond this are skipped (a stalled loop does not burst).
const MAX_CATCH_UP: u32 = 4;

/// PX4's companion-link streams (PX4-FACTS.md), Hz: ~270 messages/s before requests.
const ONBOARD: &[(u32, f64)] = &[
    (id::HEARTBEAT, 1.0),
    (id::ATTITUDE, 100.0),
    (id::HIGHRES_IMU, 50.0),
    (id::GLOBAL_POSITION_INT, 50.0),
    (id::LOCAL_POSITION_NED, 30.0),
    (id::ODOMETRY, 30.0),
    (id::EXTENDED_SYS_STATE, 5.0),
    (id::SYS_STATUS, 1.0),
    (id::HOME_POSITION, 0.5),
    (id::BATTERY_STATUS, 0.5),
];

/// A link that streams nothing but its heartbeat until asked (ArduPilot's companion link).
const QUIET: &[(u32, f64)] = &[(id::HEARTBEAT, 1.0)];

/// ArduPilot's REQUEST_DATA_STREAM groups (`GCS_MAVLink_Parameters.cpp`), the messages of each
/// that the endpoint can send: (MAV_DATA_STREAM id, message ids).
pub const DATA_STREAMS: &[(u8, &[u32])] = &[
    // EXTENDED_STATUS
    (2, &[id::SYS_STATUS, id::GPS_RAW_INT, MISSION_CURRENT]),
    // POSITION
    (6, &[id::GLOBAL_POSITION_INT, id::LOCAL_POSITION_NED]),
    // EXTRA1
    (10, &[id::ATTITUDE]),
    // EXTRA2
    (11, &[id::VFR_HUD]),
    // EXTRA3
    (12, &[id::BATTERY_STATUS, id::EKF_STATUS_REPORT]),
];

/// The messages of MAV_DATA_STREAM `stream` (0 = all).
pub fn data_stream(stream: u8) -> Vec<u32> {
    DATA_STREAMS
        .iter()
        .filter(|(s, _)| stream == 0 || *s == stream)
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect()
}

/// PX4's ground-station link (`-m normal`), the part the endpoint models, Hz.
const NORMAL: &[(u32, f64)] = &[
    (id::HEARTBEAT, 1.0),
    (id::ATTITUDE, 15.0),
    (id::GLOBAL_POSITION_INT, 5.0),
    (id::LOCAL_POSITION_NED, 1.0),
    (id::VFR_HUD, 4.0),
    (id::GPS_RAW_INT, 1.0),
    (id::EXTENDED_SYS_STATE, 1.0),
    (id::SYS_STATUS, 1.0),
    (id::HOME_POSITION, 0.5),
    (id::BATTERY_STATUS, 0.5),
];

#[derive(Debug, Clone, Copy)]
struct Entry {
    period_us: u64,
    next_us: u64,
}

/// One link's stream timetable.
#[derive(Debug, Clone)]
pub struct Schedule {
    defaults: BTreeMap<u32, u64>,
    entries: BTreeMap<u32, Entry>,
}

impl Schedule {
    pub fn new(set: StreamSet, rate_scale: f64) -> Self {
        let table = match set {
            StreamSet::Onboard => ONBOARD,
            StreamSet::Normal => NORMAL,
            StreamSet::Quiet => QUIET,
        };
        let defaults: BTreeMap<u32, u64> = table
            .iter()
            // HEARTBEAT stays at 1 Hz whatever the data rate, as in PX4.
            .map(|(id, hz)| {
                let hz = if *id == id::HEARTBEAT {
                    *hz
                } else {
                    hz * rate_scale
                };
                (*id, (1e6 / hz).round().max(1.0) as u64)
            })
            .collect();
        let entries = defaults
            .iter()
            .map(|(id, period_us)| {
                (
                    *id,
                    Entry {
                        period_us: *period_us,
                        next_us: 0,
                    },
                )
            })
            .collect();
        Self { defaults, entries }
    }

    /// SET_MESSAGE_INTERVAL: `interval_us` −1 stops the stream, 0 restores the default, > 0
    /// sets the period. `false` when the request makes no sense.
    pub fn set_interval(&mut self, message: u32, interval_us: f32, now_us: u64) -> bool {
        if !interval_us.is_finite() {
            return false;
        }
        if interval_us < 0.0 {
            self.entries.remove(&message);
            return true;
        }
        let period_us = if interval_us == 0.0 {
            match self.defaults.get(&message) {
                Some(p) => *p,
                None => {
                    self.entries.remove(&message);
                    return true;
                }
            }
        } else {
            // PX4 caps streams at its loop rate; 1 kHz is plenty here.
            (interval_us as u64).max(1000)
        };
        self.entries.insert(
            message,
            Entry {
                period_us,
                next_us: now_us,
            },
        );
        true
    }

    /// Ids due at `now_us`, each as often as it fell due (at most a few per call).
    pub fn due(&mut self, now_us: u64, out: &mut Vec<u32>) {
        for (id, e) in self.entries.iter_mut() {
            let mut n = 0;
            while e.next_us <= now_us {
                if n < MAX_CATCH_UP {
                    out.push(*id);
                }
                n += 1;
                e.next_us += e.period_us;
            }
        }
    }

    /// The earliest time something falls due.
    pub fn next_due_us(&self) -> Option<u64> {
        self.entries.values().map(|e| e.next_us).min()
    }

    /// Messages per second this timetable sends.
    #[cfg(test)]
    pub fn rate_hz(&self) -> f64 {
        self.entries
            .values()
            .map(|e| 1e6 / e.period_us as f64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onboard_streams_at_px4_rates_and_requests_change_them() {
        let mut s = Schedule::new(StreamSet::Onboard, 1.0);
        assert!((s.rate_hz() - 268.0).abs() < 1.0, "{}", s.rate_hz());
        let mut out = Vec::new();
        for t in (0..1_000_000).step_by(2000) {
            s.due(t, &mut out);
        }
        let count = |id: u32| out.iter().filter(|i| **i == id).count();
        assert_eq!(count(id::ATTITUDE), 100);
        assert_eq!(count(id::GLOBAL_POSITION_INT), 50);
        assert_eq!(count(id::HEARTBEAT), 1);
        assert!(s.set_interval(id::GPS_RAW_INT, 500_000.0, 1_000_000));
        assert!(s.set_interval(id::ATTITUDE, -1.0, 1_000_000));
        out.clear();
        for t in (1_000_000..2_000_000).step_by(2000) {
            s.due(t, &mut out);
        }
        let count = |id: u32| out.iter().filter(|i| **i == id).count();
        assert_eq!(count(id::GPS_RAW_INT), 2);
        assert_eq!(count(id::ATTITUDE), 0);
        assert!(
            s.set_interval(id::ATTITUDE, 0.0, 2_000_000),
            "default again"
        );
        assert!(!s.set_interval(id::ATTITUDE, f32::NAN, 2_000_000));
        let scaled = Schedule::new(StreamSet::Onboard, 4.0);
        assert!((scaled.rate_hz() - 4.0 * 267.0 - 1.0).abs() < 4.0);
    }

    #[test]
    fn a_quiet_link_sends_its_heartbeat_until_asked() {
        let mut s = Schedule::new(StreamSet::Quiet, 1.0);
        let mut out = Vec::new();
        for t in (0..2_000_000).step_by(10_000) {
            s.due(t, &mut out);
        }
        assert_eq!(out, [id::HEARTBEAT, id::HEARTBEAT]);
        assert!(s.set_interval(id::EKF_STATUS_REPORT, 1_000_000.0, 2_000_000));
        out.clear();
        s.due(2_000_000, &mut out);
        assert!(out.contains(&id::EKF_STATUS_REPORT));
        assert_eq!(data_stream(12), [id::BATTERY_STATUS, id::EKF_STATUS_REPORT]);
        assert_eq!(data_stream(0).len(), 9);
    }

    #[test]
    fn a_stalled_loop_does_not_burst() {
        let mut s = Schedule::new(StreamSet::Onboard, 1.0);
        let mut out = Vec::new();
        s.due(0, &mut out);
        out.clear();
        s.due(1_000_000, &mut out);
        assert_eq!(out.iter().filter(|i| **i == id::ATTITUDE).count(), 4);
        out.clear();
        s.due(1_005_000, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}
