//! The autopilot's clock, as the link sees it: the `time_boot_ms` its telemetry carries.
//!
//! A SITL in lockstep runs at whatever speed its simulator goes (`PX4_SIM_SPEED_FACTOR`,
//! ArduPilot's `--speedup`, or slower than real time on a saturated machine), so an episode
//! timed by the wall clock would give the vehicle more or less flight per second than the
//! built-in world does. Timed by the autopilot's own clock, deadlines, the watchdog and the
//! scores mean the same at any speed. Sans-IO: local time is an argument.

/// Samples closer together than this (local time) do not refine the rate: too much jitter.
const RATE_MIN_SPAN_US: u64 = 200_000;
/// Weight of a new rate measurement in the running estimate.
const RATE_GAIN: f64 = 0.3;
/// A clock that goes back by more than this is a reboot, not reordering, ms.
const REBOOT_STEP_MS: u64 = 1_000;
/// The rate is kept within these bounds (a stalled or absurd sample must not stop or race
/// the episode).
const RATE_MIN: f64 = 0.01;
const RATE_MAX: f64 = 1_000.0;

/// The newest reading of the autopilot's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockReading {
    /// Local (link) time of the newest sample, µs.
    pub local_us: u64,
    /// The autopilot's time then, ms, monotonic across reboots.
    pub vehicle_ms: u64,
    /// Autopilot milliseconds per local millisecond (1.0 in real time).
    pub rate: f64,
}

impl ClockReading {
    /// The autopilot's time at local time `local_us`, extrapolated at the measured rate.
    pub fn vehicle_ms_at(&self, local_us: u64) -> u64 {
        let ahead_ms = local_us.saturating_sub(self.local_us) as f64 / 1000.0 * self.rate;
        self.vehicle_ms + ahead_ms as u64
    }

    /// Local milliseconds until the autopilot's clock shows `vehicle_ms`, from `local_us`.
    pub fn local_ms_until(&self, local_us: u64, vehicle_ms: u64) -> f64 {
        let now = self.vehicle_ms_at(local_us);
        vehicle_ms.saturating_sub(now) as f64 / self.rate
    }
}

/// Folds `time_boot_ms` samples into a monotonic clock with a measured rate.
#[derive(Debug, Clone, Default)]
pub struct VehicleClock {
    /// Newest sample: local µs, raw boot ms.
    last: Option<(u64, u64)>,
    /// Where the rate was last measured from: local µs, corrected vehicle ms.
    rate_from: Option<(u64, u64)>,
    /// Added to raw boot times after reboots.
    offset_ms: u64,
    rate: Option<f64>,
}

impl VehicleClock {
    pub fn new() -> Self {
        Self::default()
    }

    /// One sample: the autopilot said `boot_ms` at local time `local_us`.
    pub fn observe(&mut self, local_us: u64, boot_ms: u64) {
        if let Some((_, last_boot)) = self.last {
            if boot_ms + REBOOT_STEP_MS < last_boot {
                // A reboot: carry on from where the old clock stood.
                self.offset_ms += last_boot - boot_ms;
                self.rate_from = None;
            } else if boot_ms < last_boot {
                // Messages stamped by different tasks arrive slightly out of order.
                return;
            }
        }
        self.last = Some((local_us, boot_ms));
        let vehicle_ms = boot_ms + self.offset_ms;
        match self.rate_from {
            None => self.rate_from = Some((local_us, vehicle_ms)),
            Some((l0, v0)) if local_us >= l0 + RATE_MIN_SPAN_US => {
                let measured =
                    (vehicle_ms.saturating_sub(v0)) as f64 * 1000.0 / (local_us - l0) as f64;
                let measured = measured.clamp(RATE_MIN, RATE_MAX);
                self.rate = Some(match self.rate {
                    Some(r) => r + RATE_GAIN * (measured - r),
                    None => measured,
                });
                self.rate_from = Some((local_us, vehicle_ms));
            }
            Some(_) => {}
        }
    }

    /// The newest reading; `None` before the first sample.
    pub fn reading(&self) -> Option<ClockReading> {
        let (local_us, boot_ms) = self.last?;
        Some(ClockReading {
            local_us,
            vehicle_ms: boot_ms + self.offset_ms,
            rate: self.rate.unwrap_or(1.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(clock: &mut VehicleClock, from_ms: u64, to_ms: u64, speed: f64, boot0: u64) {
        for t in (from_ms..to_ms).step_by(10) {
            let boot = boot0 + ((t - from_ms) as f64 * speed) as u64;
            clock.observe(t * 1000, boot);
        }
    }

    #[test]
    fn a_sped_up_autopilot_gives_its_rate_and_extrapolates_at_it() {
        let mut c = VehicleClock::new();
        run(&mut c, 0, 3_000, 5.0, 1_000);
        let r = c.reading().unwrap();
        assert!((r.rate - 5.0).abs() < 0.05, "{}", r.rate);
        let later = r.vehicle_ms_at(r.local_us + 100_000);
        assert!((later as i64 - (r.vehicle_ms as i64 + 500)).abs() <= 3);
        assert!((r.local_ms_until(r.local_us, r.vehicle_ms + 1_000) - 200.0).abs() < 3.0);
    }

    #[test]
    fn a_reboot_does_not_turn_the_clock_back() {
        let mut c = VehicleClock::new();
        run(&mut c, 0, 2_000, 1.0, 50_000);
        let before = c.reading().unwrap().vehicle_ms;
        c.observe(2_010_000, 100);
        c.observe(2_020_000, 110);
        let after = c.reading().unwrap().vehicle_ms;
        assert!(after >= before, "{after} < {before}");
        assert_eq!(after - before, 10, "continues from where it stood");
    }

    #[test]
    fn slightly_older_stamps_are_ignored() {
        let mut c = VehicleClock::new();
        c.observe(0, 5_000);
        c.observe(1_000, 4_990);
        assert_eq!(c.reading().unwrap().vehicle_ms, 5_000);
    }

    #[test]
    fn no_sample_no_reading_and_real_time_until_measured() {
        let mut c = VehicleClock::new();
        assert!(c.reading().is_none());
        c.observe(0, 7);
        assert_eq!(c.reading().unwrap().rate, 1.0);
    }
}
