//! `alpha3 fly`'s rule for unsigned links: a MAVLink link that anything off this machine can
//! reach — a serial radio, a network socket not bound to loopback — must be signed
//! (`[link] signing_key_env` and `require_signing = true`), or whoever speaks first on it can
//! pose as the autopilot (the link binds to the first heartbeat it hears) and feed the agent
//! its telemetry. `--allow-unsigned` flies such a link anyway. A loopback SITL needs no key.

use alpha3_core::config::{Address, LinkConfig};

/// Why flying `address` unsigned would be exposed; `None` when it is signed or loopback-only.
pub fn exposure(address: &Address, link: &LinkConfig) -> Option<String> {
    if address.is_loopback() {
        return None;
    }
    let unsigned = match (&link.signing_key_env, link.require_signing) {
        (Some(_), true) => return None,
        (Some(_), false) => "require_signing = false lets unsigned frames in",
        (None, _) => "no [link] signing_key_env",
    };
    Some(format!(
        "{address} can be reached from other machines and the link is not signed ({unsigned})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(key: Option<&str>, required: bool) -> LinkConfig {
        LinkConfig {
            connect: "udpin:0.0.0.0:14540".into(),
            system_id: 1,
            component_id: 191,
            autopilot: alpha3_core::config::AutopilotKind::Auto,
            heartbeat_interval_ms: 1000,
            gcs_heartbeat: true,
            signing_key_env: key.map(str::to_string),
            require_signing: required,
            command_timeout_ms: 1500,
            command_retries: 3,
            required_failsafes: vec![],
            param_writes: Default::default(),
        }
    }

    #[test]
    fn only_loopback_or_signed_links_fly_without_the_flag() {
        let a = |s: &str| Address::parse(s).unwrap();
        let unsigned = link(None, false);
        assert_eq!(exposure(&a("udpin:127.0.0.1:14540"), &unsigned), None);
        assert_eq!(exposure(&a("tcpout:localhost:5760"), &unsigned), None);
        for exposed in [
            "udpin:0.0.0.0:14540",
            "serial:/dev/ttyAMA0:921600",
            "udpout:192.168.1.10:14550",
        ] {
            let why = exposure(&a(exposed), &unsigned).unwrap();
            assert!(why.contains("signing_key_env"), "{why}");
        }
        let optional = link(Some("KEY"), false);
        let why = exposure(&a("udpin:0.0.0.0:14540"), &optional).unwrap();
        assert!(why.contains("require_signing"), "{why}");
        assert_eq!(
            exposure(&a("udpin:0.0.0.0:14540"), &link(Some("KEY"), true)),
            None
        );
    }
}
