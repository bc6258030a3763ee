//! Is the autopilot a simulator? Asked of the autopilot itself, never guessed from the
//! address: a real flight controller behind a forwarder on 127.0.0.1 (mavlink-router, the
//! usual companion set-up) talks from a loopback address too.
//!
//! The evidence is a parameter that only a software-in-the-loop build of the firmware has,
//! read by name over the PARAM protocol (both firmwares answer any compiled-in name):
//! - PX4: `SIM_BAT_DRAIN`, of the `battery_simulator` module. Only `COMMON_SIMULATION` selects
//!   it, and that depends on `PLATFORM_POSIX`, so only the POSIX SITL targets have it
//!   (`px4_sitl_default`, whatever the simulator: SIH, Gazebo, jMAVSim). SIH on a board
//!   (`SYS_HITL` = 2) and HITL (1) bring `SIH_*` and `SIM_GPS_USED`-style parameters onto real
//!   hardware, so those prove nothing and neither does `SYS_AUTOSTART` (airframe numbers are
//!   reused between POSIX and NuttX). `SYS_HITL`, in every build, is read as a control.
//! - ArduPilot: `SIM_SPEEDUP`, in the `SIM_` group that exists only when ArduPilot runs its own
//!   physics (`AP_SIM_ENABLED`: the SITL board, or a "sim on hardware" bench build, which flies
//!   nothing). `FORMAT_VERSION`, in every vehicle, is the control.
//!
//! The control tells "this is a flight build" (control answered, evidence missing) from "the
//! autopilot answers no parameters" in the verdict's words. A simulator also has to talk from
//! this machine (a loopback peer): one elsewhere is not ours to fly. The check runs at connect
//! and again whenever the autopilot comes back (transport reopened, heartbeat regained): a
//! reboot may bring another firmware.

use crate::param::ParamValue;
use crate::profile::Profile;
use std::collections::BTreeMap;
use std::net::SocketAddr;

/// What the link should do about the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimulatorPolicy {
    /// Do not ask.
    #[default]
    Ignore,
    /// Ask at connect and on every reconnect, and report the answer in the link status.
    Check,
    /// As `Check`, and refuse every command (and parameter write) while the autopilot is not
    /// proven a simulator on this machine — during a re-check too.
    Require,
}

/// The answer, as the link status shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SimulatorCheck {
    #[default]
    NotAsked,
    /// The evidence was asked for and has not all arrived (or timed out) yet.
    Checking,
    Simulated(String),
    NotProven(String),
}

impl SimulatorCheck {
    pub fn is_simulated(&self) -> bool {
        matches!(self, SimulatorCheck::Simulated(_))
    }

    /// The verdict in words.
    pub fn reason(&self) -> &str {
        match self {
            SimulatorCheck::NotAsked => "not asked",
            SimulatorCheck::Checking => "checking what the autopilot is",
            SimulatorCheck::Simulated(r) | SimulatorCheck::NotProven(r) => r,
        }
    }
}

/// The SITL-only parameter of a profile, and a parameter every build of it has.
struct Evidence {
    sitl_only: &'static str,
    what: &'static str,
    control: &'static str,
}

fn evidence(profile: Profile) -> Evidence {
    match profile {
        Profile::Px4 => Evidence {
            sitl_only: "SIM_BAT_DRAIN",
            what: "the battery simulator of PX4's POSIX SITL builds",
            control: "SYS_HITL",
        },
        Profile::ArduPilot => Evidence {
            sitl_only: "SIM_SPEEDUP",
            what: "ArduPilot's built-in physics (SITL)",
            control: "FORMAT_VERSION",
        },
    }
}

/// The parameters to read for the check.
pub fn evidence_names(profile: Profile) -> Vec<String> {
    let e = evidence(profile);
    vec![e.sitl_only.to_string(), e.control.to_string()]
}

/// The verdict from the parameters the autopilot answered (`values`; unanswered names are
/// missing) and where it talks from (`None`: a serial port).
pub fn judge(
    profile: Profile,
    values: &BTreeMap<String, ParamValue>,
    peer: Option<SocketAddr>,
) -> SimulatorCheck {
    let e = evidence(profile);
    let name = profile.name();
    let Some(sitl) = values.get(e.sitl_only) else {
        let control = match values.get(e.control) {
            Some(v) => format!("it answers {} = {v}: a flight build", e.control),
            None => format!("it answered neither that nor {}", e.control),
        };
        return SimulatorCheck::NotProven(format!(
            "the {name} autopilot has no {} parameter ({}); {control}",
            e.sitl_only, e.what
        ));
    };
    let said = format!(
        "the {name} autopilot reports {} = {sitl} ({})",
        e.sitl_only, e.what
    );
    match peer {
        Some(p) if p.ip().is_loopback() => {
            SimulatorCheck::Simulated(format!("{said}, talking from {p} on this machine"))
        }
        Some(p) => SimulatorCheck::NotProven(format!(
            "{said}, but talks from {p}, which is not this machine"
        )),
        None => SimulatorCheck::NotProven(format!(
            "{said}, but over a link with no network address (a serial port)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        pairs.iter().map(|(n, v)| ((*n).to_string(), *v)).collect()
    }

    fn local() -> Option<SocketAddr> {
        Some("127.0.0.1:14580".parse().unwrap())
    }

    #[test]
    fn a_sitl_parameter_on_this_machine_proves_a_simulator() {
        let px4 = values(&[
            ("SIM_BAT_DRAIN", ParamValue::Real(60.0)),
            ("SYS_HITL", ParamValue::Int(0)),
        ]);
        let v = judge(Profile::Px4, &px4, local());
        assert!(v.is_simulated(), "{v:?}");
        assert!(v.reason().contains("SIM_BAT_DRAIN = 60"), "{v:?}");
        let ap = values(&[("SIM_SPEEDUP", ParamValue::Real(1.0))]);
        assert!(judge(Profile::ArduPilot, &ap, local()).is_simulated());
        let v6: Option<SocketAddr> = Some("[::1]:5760".parse().unwrap());
        assert!(judge(Profile::ArduPilot, &ap, v6).is_simulated());
    }

    #[test]
    fn a_flight_build_behind_a_loopback_forwarder_is_not_a_simulator() {
        let board = values(&[("SYS_HITL", ParamValue::Int(0))]);
        let v = judge(Profile::Px4, &board, local());
        assert!(!v.is_simulated());
        assert!(v.reason().contains("a flight build"), "{v:?}");
        let silent = judge(Profile::ArduPilot, &BTreeMap::new(), local());
        assert!(silent.reason().contains("neither"), "{silent:?}");
        // The evidence of the other firmware proves nothing.
        let wrong = values(&[("SIM_SPEEDUP", ParamValue::Real(1.0))]);
        assert!(!judge(Profile::Px4, &wrong, local()).is_simulated());
    }

    #[test]
    fn a_simulator_elsewhere_or_on_a_serial_port_is_not_ours() {
        let sitl = values(&[("SIM_BAT_DRAIN", ParamValue::Real(60.0))]);
        let lan = Some("192.168.1.20:14580".parse().unwrap());
        assert!(!judge(Profile::Px4, &sitl, lan).is_simulated());
        assert!(!judge(Profile::Px4, &sitl, None).is_simulated());
    }

    #[test]
    fn the_check_asks_for_the_evidence_and_the_control() {
        assert_eq!(evidence_names(Profile::Px4), ["SIM_BAT_DRAIN", "SYS_HITL"]);
        assert_eq!(
            evidence_names(Profile::ArduPilot),
            ["SIM_SPEEDUP", "FORMAT_VERSION"]
        );
    }
}
