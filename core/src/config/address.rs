//! Flight-controller addresses in the `mavlink` crate's syntax: `serial:/dev/ttyAMA0:921600`,
//! `udpin:0.0.0.0:14540`, `udpout:127.0.0.1:14550`, `udpbcast:…`, `tcpin:…`, `tcpout:…`.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Address {
    Serial { path: String, baud: u32 },
    UdpIn { host: String, port: u16 },
    UdpOut { host: String, port: u16 },
    UdpBroadcast { host: String, port: u16 },
    TcpIn { host: String, port: u16 },
    TcpOut { host: String, port: u16 },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad address `{address}`: {reason}")]
pub struct AddressError {
    pub address: String,
    pub reason: String,
}

impl Address {
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        let err = |reason: &str| AddressError {
            address: s.to_string(),
            reason: reason.to_string(),
        };
        let (scheme, rest) = s
            .split_once(':')
            .ok_or_else(|| err("expected SCHEME:…, e.g. udpin:0.0.0.0:14540"))?;
        let (head, tail) = rest
            .rsplit_once(':')
            .ok_or_else(|| err("expected a trailing :PORT or :BAUD"))?;
        if head.is_empty() {
            return Err(err("missing host or device path"));
        }
        let number = |what: &str| -> Result<u32, AddressError> {
            tail.parse::<u32>()
                .map_err(|_| err(&format!("{what} `{tail}` is not a number")))
        };
        let port = || -> Result<u16, AddressError> {
            let p = number("port")?;
            u16::try_from(p)
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| err("port must be 1..65535"))
        };
        let host = head.to_string();
        Ok(match scheme {
            "serial" => {
                let baud = number("baud rate")?;
                if baud == 0 {
                    return Err(err("baud rate must be positive"));
                }
                Address::Serial { path: host, baud }
            }
            "udpin" => Address::UdpIn {
                host,
                port: port()?,
            },
            "udpout" => Address::UdpOut {
                host,
                port: port()?,
            },
            "udpbcast" => Address::UdpBroadcast {
                host,
                port: port()?,
            },
            "tcpin" => Address::TcpIn {
                host,
                port: port()?,
            },
            "tcpout" => Address::TcpOut {
                host,
                port: port()?,
            },
            other => {
                return Err(err(&format!(
                    "unknown scheme `{other}` (serial, udpin, udpout, udpbcast, tcpin, tcpout)"
                )));
            }
        })
    }

    /// Whether the peer is on this machine (a loopback SITL link), as far as the address tells.
    pub fn is_loopback(&self) -> bool {
        match self {
            Address::Serial { .. } => false,
            Address::UdpIn { host, .. }
            | Address::UdpOut { host, .. }
            | Address::UdpBroadcast { host, .. }
            | Address::TcpIn { host, .. }
            | Address::TcpOut { host, .. } => {
                host == "localhost" || host.starts_with("127.") || host == "::1" || host == "[::1]"
            }
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Serial { path, baud } => write!(f, "serial:{path}:{baud}"),
            Address::UdpIn { host, port } => write!(f, "udpin:{host}:{port}"),
            Address::UdpOut { host, port } => write!(f, "udpout:{host}:{port}"),
            Address::UdpBroadcast { host, port } => write!(f, "udpbcast:{host}:{port}"),
            Address::TcpIn { host, port } => write!(f, "tcpin:{host}:{port}"),
            Address::TcpOut { host, port } => write!(f, "tcpout:{host}:{port}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_scheme_and_prints_it_back() {
        for s in [
            "serial:/dev/ttyAMA0:921600",
            "udpin:0.0.0.0:14540",
            "udpout:127.0.0.1:14550",
            "udpbcast:192.168.1.255:14550",
            "tcpin:0.0.0.0:5760",
            "tcpout:127.0.0.1:5760",
        ] {
            assert_eq!(Address::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            Address::parse("serial:/dev/ttyUSB0:57600").unwrap(),
            Address::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: 57600
            }
        );
    }

    #[test]
    fn rejects_bad_addresses_with_a_reason() {
        for (s, why) in [
            ("udp:1.2.3.4:5", "unknown scheme"),
            ("udpin:0.0.0.0", "PORT"),
            ("udpin:0.0.0.0:70000", "1..65535"),
            ("serial:/dev/ttyS0:fast", "not a number"),
            ("14540", "SCHEME"),
            ("udpin::14540", "missing host"),
        ] {
            let e = Address::parse(s).unwrap_err();
            assert!(e.to_string().contains(why), "{s}: {e}");
        }
    }

    #[test]
    fn loopback_is_recognised() {
        assert!(
            Address::parse("udpout:127.0.0.1:14540")
                .unwrap()
                .is_loopback()
        );
        assert!(!Address::parse("udpin:0.0.0.0:14540").unwrap().is_loopback());
        assert!(
            !Address::parse("serial:/dev/ttyAMA0:921600")
                .unwrap()
                .is_loopback()
        );
    }
}
