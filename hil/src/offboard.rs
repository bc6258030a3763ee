//! The offboard setpoint stream: PX4 leaves OFFBOARD (and applies COM_OBL_RC_ACT) when
//! setpoints stop for COM_OF_LOSS_T, so the companion repeats the current one at a steady rate
//! (≥ 10 Hz) for as long as the stream is on, whatever the LLM is doing.

use crate::dialect::MavMessage;

/// A repeating setpoint.
#[derive(Debug, Clone)]
pub struct SetpointStream {
    period_us: u64,
    setpoint: Option<MavMessage>,
    next_us: u64,
    started_us: u64,
}

impl SetpointStream {
    pub fn new(rate_hz: f64) -> Self {
        let rate = if rate_hz.is_finite() {
            rate_hz.clamp(10.0, 100.0)
        } else {
            20.0
        };
        Self {
            period_us: (1e6 / rate) as u64,
            setpoint: None,
            next_us: 0,
            started_us: 0,
        }
    }

    pub fn is_streaming(&self) -> bool {
        self.setpoint.is_some()
    }

    /// Starts the stream, or changes its target without a gap.
    pub fn set(&mut self, now_us: u64, setpoint: MavMessage) {
        if self.setpoint.is_none() {
            self.started_us = now_us;
            self.next_us = now_us;
        }
        self.setpoint = Some(setpoint);
    }

    pub fn stop(&mut self) {
        self.setpoint = None;
    }

    /// How long the stream has been running.
    pub fn streamed_us(&self, now_us: u64) -> u64 {
        if self.setpoint.is_some() {
            now_us.saturating_sub(self.started_us)
        } else {
            0
        }
    }

    /// The setpoint, due now, stamped with the autopilot-style boot time.
    pub fn poll_transmit(&mut self, now_us: u64) -> Option<MavMessage> {
        let mut m = self.setpoint.clone()?;
        if now_us < self.next_us {
            return None;
        }
        // Keep the cadence; after a stall, restart it from now instead of bursting.
        self.next_us = (self.next_us + self.period_us).max(now_us + self.period_us / 2);
        let ms = (now_us / 1000) as u32;
        match &mut m {
            MavMessage::SET_POSITION_TARGET_LOCAL_NED(s) => s.time_boot_ms = ms,
            MavMessage::SET_POSITION_TARGET_GLOBAL_INT(s) => s.time_boot_ms = ms,
            _ => {}
        }
        Some(m)
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        self.setpoint.as_ref().map(|_| self.next_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::mav;

    #[test]
    fn streams_at_the_rate_and_never_below_ten_hertz() {
        let sp = MavMessage::SET_POSITION_TARGET_LOCAL_NED(Default::default());
        let mut s = SetpointStream::new(2.0);
        s.set(0, sp);
        let mut sent = 0;
        for t in (0..1_000_000).step_by(1000) {
            if s.poll_transmit(t).is_some() {
                sent += 1;
            }
        }
        assert_eq!(sent, 10, "2 Hz is raised to PX4's 10 Hz minimum");
        assert_eq!(s.streamed_us(1_000_000), 1_000_000);
        s.stop();
        assert!(s.poll_transmit(2_000_000).is_none());
    }

    #[test]
    fn retargeting_keeps_the_cadence_and_stamps_time() {
        let mut s = SetpointStream::new(20.0);
        s.set(
            0,
            MavMessage::SET_POSITION_TARGET_LOCAL_NED(Default::default()),
        );
        assert!(s.poll_transmit(0).is_some());
        let target = mav::SET_POSITION_TARGET_LOCAL_NED_DATA {
            x: 5.0,
            ..Default::default()
        };
        s.set(10_000, MavMessage::SET_POSITION_TARGET_LOCAL_NED(target));
        assert!(s.poll_transmit(10_000).is_none());
        let Some(MavMessage::SET_POSITION_TARGET_LOCAL_NED(m)) = s.poll_transmit(50_000) else {
            panic!()
        };
        assert_eq!((m.x, m.time_boot_ms), (5.0, 50));
    }
}
