//! PX4's failsafe reactions, as a real PX4 SITL plays them on the wire (`docs/PX4-CONFORMANCE.md`):
//! the geofence (GF_ACTION after a breach of GF_MAX_* or the FENCE plan), the ground-station link (NAV_DLL_ACT), an injected
//! battery failure (COM_LOW_BAT_ACT at PX4's warning levels), and the commander's failsafe
//! framework between a cause and its action: a Return or Land first holds for COM_FAIL_ACT_T
//! ("Failsafe activated: entering Hold for 5 seconds"), so the user may take over, and a worse
//! action in the meantime replaces the waiting one. The reactions they choose from and what
//! they remember between steps are in `state`.

use super::codec::mav::MavSeverity;
use super::modes::Px4Mode;
use super::options::Autopilot;
use super::state::{BatteryLevel, Reaction};
use super::vehicle::Px4Vehicle;

/// When the estimate of a battery that PX4 SITL forced empty crosses PX4's low, critical and
/// emergency thresholds, after the injection (observed on PX4 SITL a70a558: 1.6 s, 2.4 s and
/// 2.7 s), µs.
const BATTERY_LOW_AFTER_US: u64 = 1_500_000;
const BATTERY_CRITICAL_AFTER_US: u64 = 2_500_000;
const BATTERY_EMERGENCY_AFTER_US: u64 = 3_000_000;
/// The charge PX4 reports while its estimate of a battery forced empty falls: (µs after the
/// injection, percent) at its low (15 %), critical (7 %) and emergency (5 %) thresholds, then
/// the 1 % it settles at.
const BATTERY_FALL: [(u64, f64); 4] = [
    (BATTERY_LOW_AFTER_US, 15.0),
    (BATTERY_CRITICAL_AFTER_US, 7.0),
    (BATTERY_EMERGENCY_AFTER_US, 5.0),
    (BATTERY_EMERGENCY_AFTER_US + 1_500_000, 1.0),
];

impl Px4Vehicle {
    /// Runs the failsafes for this step.
    pub(super) fn watch_failsafes(&mut self) {
        self.watch_geofence();
        self.watch_datalink();
        self.watch_battery();
        if let Some((reaction, at)) = self.fs.delayed
            && self.time.now_us >= at
        {
            self.fs.delayed = None;
            self.say(MavSeverity::MAV_SEVERITY_CRITICAL, "Failsafe activated");
            self.failsafe(reaction.mode());
        }
    }

    /// A reaction through PX4's failsafe framework.
    pub(super) fn react(&mut self, reaction: Reaction) {
        if !self.arming.armed {
            return;
        }
        match reaction {
            Reaction::Warn => {}
            Reaction::Return | Reaction::Land => {
                if let Some((waiting, _)) = &mut self.fs.delayed {
                    *waiting = (*waiting).max(reaction);
                    return;
                }
                let delay_s = self.params.number("COM_FAIL_ACT_T");
                if delay_s > 0.1 && self.airborne() {
                    self.say(
                        MavSeverity::MAV_SEVERITY_CRITICAL,
                        format!(
                            "Failsafe activated: entering Hold for {} seconds",
                            delay_s.round()
                        ),
                    );
                    self.failsafe(Px4Mode::HOLD);
                    self.fs.delayed = Some((reaction, self.time.now_us + (delay_s * 1e6) as u64));
                } else {
                    self.say(MavSeverity::MAV_SEVERITY_CRITICAL, "Failsafe activated");
                    self.failsafe(reaction.mode());
                }
            }
            Reaction::Hold | Reaction::Terminate => {
                if reaction == Reaction::Terminate {
                    self.fs.delayed = None;
                }
                self.say(MavSeverity::MAV_SEVERITY_CRITICAL, "Failsafe activated");
                self.failsafe(reaction.mode());
            }
        }
    }

    /// The user chose a mode (or disarmed): a failsafe action still waiting is dropped.
    pub(super) fn cancel_delayed_failsafe(&mut self) {
        self.fs.delayed = None;
    }

    /// A failsafe's mode change; a return without home falls back to landing (as PX4 does).
    pub(super) fn failsafe(&mut self, mode: Px4Mode) {
        if self.enter(mode).is_err() && self.enter(Px4Mode::LAND).is_err() {
            self.nav.mode = Px4Mode::LAND;
        }
    }

    /// A ground station's heartbeat arrived (on any link).
    pub fn note_gcs_heartbeat(&mut self) {
        self.fs.gcs_heartbeat_us = Some(self.time.now_us);
        if self.fs.datalink_lost {
            self.fs.datalink_lost = false;
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Data link regained");
        }
    }

    /// NAV_DLL_ACT after COM_DL_LOSS_T without a ground-station heartbeat — only once one was
    /// heard, and only while armed (PX4).
    fn watch_datalink(&mut self) {
        let Some(last) = self.fs.gcs_heartbeat_us else {
            return;
        };
        // ArduCopter's GCS failsafe (FS_GCS_ENABLE) is off by default and not simulated.
        if self.identity.autopilot == Autopilot::ArduCopter {
            return;
        }
        let timeout_us = (self.params.number("COM_DL_LOSS_T").max(0.0) * 1e6) as u64;
        if self.fs.datalink_lost || self.time.now_us <= last + timeout_us {
            return;
        }
        self.fs.datalink_lost = true;
        self.say(
            MavSeverity::MAV_SEVERITY_CRITICAL,
            "Connection to ground station lost",
        );
        if let Some(r) = Reaction::datalink(self.params.number("NAV_DLL_ACT") as i64) {
            self.react(r);
        }
    }

    /// PX4 acts after a breach (GF_PREDICT is off): GF_ACTION once per breach, of
    /// GF_MAX_HOR_DIST, GF_MAX_VER_DIST or the FENCE plan (`geofence`). ArduCopter's fence is
    /// off by default and its breach actions are not simulated.
    fn watch_geofence(&mut self) {
        if self.identity.autopilot == Autopilot::ArduCopter || !self.airborne() {
            self.fs.fence_breached = false;
            return;
        }
        let breaches = self.fence_breaches(self.snap.position);
        let outside = breaches != (false, false, false);
        let reaction = Reaction::geofence(self.params.number("GF_ACTION") as i64);
        if outside
            && !self.fs.fence_breached
            && let Some(reaction) = reaction
        {
            self.say_breaches(breaches);
            self.react(reaction);
        }
        self.fs.fence_breached = outside;
    }

    /// MAV_CMD_INJECT_FAILURE(battery, off): PX4 SITL forces its battery empty, and the
    /// commander reacts at each warning level as COM_LOW_BAT_ACT says.
    pub(super) fn inject_battery_failure(&mut self) {
        if self.fs.battery.is_none() {
            self.fs.battery = Some((self.time.now_us, BatteryLevel::Ok));
        }
    }

    /// MAV_CMD_INJECT_FAILURE(battery, ok): the battery is back.
    pub(super) fn clear_battery_failure(&mut self) {
        self.fs.battery = None;
    }

    /// The charge to report: the world's, or after an injected failure PX4's falling estimate
    /// (the world's own battery is not drained by the injection).
    pub(super) fn battery_pct_shown(&self, world_pct: f64) -> f64 {
        let Some((since, _)) = self.fs.battery else {
            return world_pct;
        };
        let t = self.time.now_us.saturating_sub(since);
        let (mut t0, mut p0) = (0, world_pct);
        for (t1, p1) in BATTERY_FALL {
            let p1 = p1.min(world_pct);
            if t < t1 {
                let k = (t - t0) as f64 / (t1 - t0) as f64;
                return p0 + k * (p1 - p0);
            }
            (t0, p0) = (t1, p1);
        }
        p0
    }

    fn watch_battery(&mut self) {
        let Some((since, announced)) = self.fs.battery else {
            return;
        };
        let elapsed = self.time.now_us.saturating_sub(since);
        let level = match elapsed {
            e if e >= BATTERY_EMERGENCY_AFTER_US => BatteryLevel::Emergency,
            e if e >= BATTERY_CRITICAL_AFTER_US => BatteryLevel::Critical,
            e if e >= BATTERY_LOW_AFTER_US => BatteryLevel::Low,
            _ => BatteryLevel::Ok,
        };
        if level <= announced {
            return;
        }
        self.fs.battery = Some((since, level));
        let action = self.params.number("COM_LOW_BAT_ACT") as i64;
        for step in [
            BatteryLevel::Low,
            BatteryLevel::Critical,
            BatteryLevel::Emergency,
        ] {
            if step <= announced || step > level {
                continue;
            }
            match step {
                BatteryLevel::Low => {
                    self.say(MavSeverity::MAV_SEVERITY_CRITICAL, "Low battery");
                }
                BatteryLevel::Emergency => {
                    // The commander's power-off at the emergency level, which SITL cannot do.
                    self.say(
                        MavSeverity::MAV_SEVERITY_CRITICAL,
                        "System does not support shutdown",
                    );
                    self.say(
                        MavSeverity::MAV_SEVERITY_EMERGENCY,
                        "Emergency battery level",
                    );
                }
                _ => {}
            }
            self.react(Reaction::battery(action, step));
        }
    }
}
