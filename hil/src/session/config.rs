//! Session settings: the link config's numbers plus the knobs it does not expose.

use crate::command::CommandTiming;
use crate::dialect::{COMP_GCS, COMP_ONBOARD};
use crate::error::HilError;
use crate::param_guard::ParamWritePolicy;
use crate::translate::GotoMethod;
use crate::wire::SigningKey;
use alpha3_core::config::{AutopilotKind, LinkConfig};

/// Everything a [`Session`](super::Session) needs to know up front.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub system_id: u8,
    pub component_id: u8,
    /// Also send a GCS-type heartbeat from this component (PX4 only sends STATUSTEXT to GCSs).
    pub gcs_component_id: Option<u8>,
    pub autopilot: AutopilotKind,
    pub heartbeat_interval_ms: u64,
    /// The autopilot counts as lost after this long without its heartbeat.
    pub heartbeat_lost_ms: u64,
    pub timing: CommandTiming,
    /// How long telemetry has to confirm a command after its last step.
    pub confirm_timeout_ms: u64,
    /// How long arming may be refused while the autopilot boots (PX4 SITL: ~4 s).
    pub arm_ready_ms: u64,
    pub arm_interval_ms: u64,
    /// Slack on arrival waits (land at a site), on top of the flight time at 2 m/s.
    pub arrive_timeout_ms: u64,
    pub goto: GotoMethod,
    pub setpoint_rate_hz: f64,
    pub timesync_interval_ms: u64,
    pub measure_window_ms: u64,
    pub param_timeout_ms: u64,
    pub param_sends: u32,
    pub signing_key: Option<SigningKey>,
    pub signing_link_id: u8,
    pub require_signing: bool,
    /// Cancel a lost move (timed out or unconfirmed) with a hold while airborne.
    pub hold_after_lost_command: bool,
    /// The protected parameters (fence, failsafe, arming, system id) the config named for
    /// writing; no others of those are ever written.
    pub param_writes_allowed: ParamWritePolicy,
    /// Express positions (telemetry and commands) relative to this point instead of the
    /// autopilot's home: a mission's origin, so they match its map.
    pub frame_origin: Option<alpha3_core::frames::Geo>,
    /// Slow the autopilot's unasked high-rate streams to what the snapshot uses and switch off
    /// the ones nothing reads (PX4's onboard link: ~300 → ~60 messages/s). Off only where the
    /// traffic itself is wanted (link measurements over many frames).
    pub tame_streams: bool,
    /// The cruise speed the gate plans moves with (the vehicle profile's), told to autopilots
    /// whose own default differs (ArduPilot's WPNAV_SPEED); `None` leaves theirs.
    pub cruise_speed_mps: Option<f64>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            system_id: 1,
            component_id: COMP_ONBOARD,
            gcs_component_id: Some(COMP_GCS),
            autopilot: AutopilotKind::Auto,
            heartbeat_interval_ms: 1000,
            heartbeat_lost_ms: 3000,
            timing: CommandTiming {
                ack_timeout_ms: 1500,
                retries: 3,
                in_progress_timeout_ms: 10_000,
            },
            confirm_timeout_ms: 3000,
            arm_ready_ms: 15_000,
            arm_interval_ms: 1000,
            arrive_timeout_ms: 10_000,
            goto: GotoMethod::Reposition,
            setpoint_rate_hz: 20.0,
            timesync_interval_ms: 250,
            measure_window_ms: 5000,
            param_timeout_ms: 500,
            param_sends: 5,
            signing_key: None,
            signing_link_id: 0,
            require_signing: false,
            hold_after_lost_command: true,
            param_writes_allowed: ParamWritePolicy::default(),
            frame_origin: None,
            tame_streams: true,
            cruise_speed_mps: None,
        }
    }
}

impl SessionConfig {
    /// From the `[link]` config section; the signing key comes from `signing_key_env`.
    pub fn from_link_config(link: &LinkConfig) -> Result<Self, HilError> {
        let signing_key = match &link.signing_key_env {
            Some(var) => Some(SigningKey::from_env(var)?),
            None => None,
        };
        let cfg = Self {
            system_id: link.system_id,
            component_id: link.component_id,
            gcs_component_id: link.gcs_heartbeat.then_some(COMP_GCS),
            autopilot: link.autopilot,
            heartbeat_interval_ms: link.heartbeat_interval_ms,
            heartbeat_lost_ms: (3 * link.heartbeat_interval_ms).max(2000),
            timing: CommandTiming {
                ack_timeout_ms: link.command_timeout_ms,
                retries: link.command_retries,
                in_progress_timeout_ms: 10 * link.command_timeout_ms,
            },
            signing_key,
            require_signing: link.require_signing,
            param_writes_allowed: ParamWritePolicy::naming(link.param_writes.keys()),
            ..Self::default()
        };
        cfg.check()?;
        Ok(cfg)
    }

    pub fn check(&self) -> Result<(), HilError> {
        if self.require_signing && self.signing_key.is_none() {
            return Err(HilError::Config(
                "require_signing needs a key (signing_key_env)".into(),
            ));
        }
        if self.gcs_component_id == Some(self.component_id) {
            return Err(HilError::Config(
                "the GCS heartbeat needs its own component id".into(),
            ));
        }
        if self.timing.ack_timeout_ms == 0 || self.heartbeat_interval_ms == 0 {
            return Err(HilError::Config(
                "timeouts and intervals must be positive".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> LinkConfig {
        LinkConfig::companion_defaults("udpin:0.0.0.0:14540")
    }

    #[test]
    fn the_link_section_maps_onto_the_session() {
        let c = SessionConfig::from_link_config(&link()).unwrap();
        assert_eq!(c.gcs_component_id, Some(COMP_GCS));
        assert_eq!(c.timing.ack_timeout_ms, 1500);
        assert_eq!(c.timing.retries, 3);
        assert_eq!(c.heartbeat_lost_ms, 3000);
        let quiet = LinkConfig {
            gcs_heartbeat: false,
            ..link()
        };
        assert_eq!(
            SessionConfig::from_link_config(&quiet)
                .unwrap()
                .gcs_component_id,
            None
        );
    }

    #[test]
    fn signing_settings_must_make_sense() {
        let required = LinkConfig {
            require_signing: true,
            ..link()
        };
        assert!(matches!(
            SessionConfig::from_link_config(&required),
            Err(HilError::Config(_))
        ));
        let missing = LinkConfig {
            signing_key_env: Some("ALPHA3_TEST_NO_SUCH_VARIABLE".into()),
            ..link()
        };
        assert!(matches!(
            SessionConfig::from_link_config(&missing),
            Err(HilError::SigningKey(_))
        ));
        let clash = LinkConfig {
            component_id: COMP_GCS,
            ..link()
        };
        assert!(SessionConfig::from_link_config(&clash).is_err());
    }
}
