//! How an endpoint is set up: its identity, its links (transport, stream set, impairment) and
//! the boot timing of the autopilot it imitates. The defaults are PX4 SITL's (`PX4-FACTS.md`).

use super::EndpointError;
use super::impairment::Impairment;
use alpha3_core::config::Address;
use std::net::{SocketAddr, ToSocketAddrs};

/// Which autopilot the endpoint imitates on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Autopilot {
    /// PX4 SITL (`PX4-FACTS.md`).
    #[default]
    Px4,
    /// ArduCopter 4.7 SITL (`ardupilot/README.md`): system id 1, nothing streamed until asked,
    /// GUIDED, relative take-off, DO_REPOSITION only as COMMAND_INT, ~40 s to get ready.
    ArduCopter,
}

/// ArduCopter SITL's companion link: SITL sends to 127.0.0.1:14660 (`udpclient`, SERIAL1);
/// instance N here uses 14660 + N.
pub const ARDUPILOT_REMOTE_BASE: u16 = 14660;

/// PX4 SITL's companion (onboard) link: the companion listens on 14540 + N ...
pub const ONBOARD_REMOTE_BASE: u16 = 14540;
/// ... and PX4 sends from 14580 + N.
pub const ONBOARD_LOCAL_BASE: u16 = 14580;
/// The ground station listens on 14550 (every instance sends there) ...
pub const GCS_REMOTE_PORT: u16 = 14550;
/// ... and PX4 sends from 18570 + N.
pub const GCS_LOCAL_BASE: u16 = 18570;

/// Where one link's bytes go, seen from the vehicle's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointTransport {
    /// UDP bound to `bind`; sends to `remote` until someone else talks to it, then to the
    /// last sender (as PX4 does). With no remote it stays quiet until it is talked to.
    Udp {
        bind: SocketAddr,
        remote: Option<SocketAddr>,
    },
    /// A serial port (or one end of a pty pair).
    Serial { path: String, baud: u32 },
}

impl EndpointTransport {
    /// From the `mavlink` address syntax, read from the vehicle's side: `udpout:HOST:PORT`
    /// sends to a listening companion from an ephemeral port, `udpin:HOST:PORT` listens,
    /// `serial:PATH:BAUD` opens a port. TCP is not offered (PX4 SITL's links are UDP).
    pub fn from_address(address: &Address) -> Result<Self, EndpointError> {
        let resolve = |host: &str, port: u16| -> Result<SocketAddr, EndpointError> {
            (host, port)
                .to_socket_addrs()
                .map_err(|e| EndpointError::Config(format!("{host}:{port}: {e}")))?
                .next()
                .ok_or_else(|| EndpointError::Config(format!("{host} has no address")))
        };
        Ok(match address {
            Address::UdpOut { host, port } | Address::UdpBroadcast { host, port } => {
                let remote = resolve(host, *port)?;
                let bind = if remote.is_ipv4() {
                    SocketAddr::from(([0, 0, 0, 0], 0))
                } else {
                    SocketAddr::from(([0u16; 8], 0))
                };
                EndpointTransport::Udp {
                    bind,
                    remote: Some(remote),
                }
            }
            Address::UdpIn { host, port } => EndpointTransport::Udp {
                bind: resolve(host, *port)?,
                remote: None,
            },
            Address::Serial { path, baud } => EndpointTransport::Serial {
                path: path.clone(),
                baud: *baud,
            },
            Address::TcpIn { .. } | Address::TcpOut { .. } => {
                return Err(EndpointError::Config(format!(
                    "{address}: the endpoint speaks UDP or serial, as PX4 SITL does"
                )));
            }
        })
    }
}

/// Which telemetry a link streams unasked (PX4's `mavlink start -m MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamSet {
    /// The companion link (`-m onboard`): ~300 messages/s.
    Onboard,
    /// The ground-station link (`-m normal`): a few dozen messages/s.
    Normal,
    /// Only the heartbeat until asked (ArduPilot: its `MAV<n>_*` stream rates are 0).
    Quiet,
}

/// One MAVLink link of the vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkOptions {
    pub transport: EndpointTransport,
    pub streams: StreamSet,
    /// Multiplies every stream rate (PX4's `-r` data rate); 1.0 is PX4's default.
    pub rate_scale: f64,
    /// Applied to this link's frames in both directions.
    pub impairment: Impairment,
}

impl LinkOptions {
    /// A companion link on `transport` at PX4's rates, unimpaired.
    pub fn onboard(transport: EndpointTransport) -> Self {
        Self {
            transport,
            streams: StreamSet::Onboard,
            rate_scale: 1.0,
            impairment: Impairment::None,
        }
    }

    /// A ground-station link on `transport`, unimpaired.
    pub fn gcs(transport: EndpointTransport) -> Self {
        Self {
            streams: StreamSet::Normal,
            ..Self::onboard(transport)
        }
    }
}

/// When the imitated autopilot becomes ready, counted from the endpoint's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootTiming {
    /// First HEARTBEAT; before it the vehicle neither speaks nor listens.
    pub heartbeat_ms: u64,
    /// HOME_POSITION, a 3D fix and a global position.
    pub home_ms: u64,
    /// Arming is denied ("Resolve system health failures first") before this.
    pub arm_ready_ms: u64,
}

impl Default for BootTiming {
    /// PX4 SITL as observed: heartbeat ~1.5 s, home ~2.5 s, arming from ~4 s.
    fn default() -> Self {
        Self {
            heartbeat_ms: 1500,
            home_ms: 2500,
            arm_ready_ms: 4000,
        }
    }
}

impl BootTiming {
    /// ArduCopter SITL as observed: heartbeat within ~1 s, home ~18 s, its EKF using GPS (and
    /// arming possible) from ~38 s.
    pub const ARDUCOPTER: Self = Self {
        heartbeat_ms: 1000,
        home_ms: 18_000,
        arm_ready_ms: 38_000,
    };
}

/// What a loaded machine does to an autopilot around a mission's start, to test that a companion
/// survives it (issue 30 item 12: PX4 SITL at 10x with ten instances on 16 cores reported a
/// position 25 km away with no fix, and held its telemetry up for 3 s). All zero: none of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StartFaults {
    /// From the first disarm after an arming (a vehicle landed between two missions), the GNSS
    /// fix is lost this long (GPS_RAW_INT says no fix) while the estimator's global position
    /// drifts [`Self::drift_m`] away, ms.
    pub fix_lost_after_disarm_ms: u64,
    /// How far the global position drifts while the fix is lost, m (north-east of the truth).
    pub drift_m: u32,
    /// From the first arming, no data streams for this long, and for its first half no
    /// heartbeat either (commands are still acknowledged): a stalled autopilot's heartbeat
    /// comes back before its estimator's output, ms.
    pub stall_after_arm_ms: u64,
}

/// Everything [`Endpoint::spawn`](super::Endpoint::spawn) needs besides the world.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointOptions {
    /// SITL instance N: system id N + 1, ports 14540 + N / 14580 + N / 18570 + N (PX4).
    pub instance: u8,
    pub autopilot: Autopilot,
    pub links: Vec<LinkOptions>,
    pub boot: BootTiming,
    /// What a loaded machine does to the start; none by default.
    pub faults: StartFaults,
    /// Seeds the impairment's random drops and delays.
    pub seed: u64,
    /// How many times faster than the wall clock the vehicle's time runs (a lockstep SITL
    /// sped up, like `PX4_SIM_SPEED_FACTOR`); 1 is real time.
    pub speed_factor: f64,
}

impl EndpointOptions {
    /// PX4 SITL instance `instance` on loopback: the companion link from 14580 + N to
    /// 127.0.0.1:14540 + N and the ground-station link from 18570 + N to 127.0.0.1:14550.
    pub fn px4_sitl(instance: u8) -> Self {
        let n = u16::from(instance);
        let udp = |local: u16, remote: u16| EndpointTransport::Udp {
            bind: SocketAddr::from(([0, 0, 0, 0], local)),
            remote: Some(SocketAddr::from(([127, 0, 0, 1], remote))),
        };
        Self {
            instance,
            autopilot: Autopilot::Px4,
            links: vec![
                LinkOptions::onboard(udp(ONBOARD_LOCAL_BASE + n, ONBOARD_REMOTE_BASE + n)),
                LinkOptions::gcs(udp(GCS_LOCAL_BASE + n, GCS_REMOTE_PORT)),
            ],
            boot: BootTiming::default(),
            faults: StartFaults::default(),
            seed: u64::from(instance),
            speed_factor: 1.0,
        }
    }

    /// ArduCopter SITL instance `instance` on loopback: one companion link from an ephemeral
    /// port to 127.0.0.1:14660 + N, streaming nothing until asked, system id 1.
    pub fn ardupilot_sitl(instance: u8) -> Self {
        let remote = ARDUPILOT_REMOTE_BASE.saturating_add(u16::from(instance));
        let link = LinkOptions {
            streams: StreamSet::Quiet,
            ..LinkOptions::onboard(EndpointTransport::Udp {
                bind: SocketAddr::from(([127, 0, 0, 1], 0)),
                remote: Some(SocketAddr::from(([127, 0, 0, 1], remote))),
            })
        };
        Self {
            autopilot: Autopilot::ArduCopter,
            boot: BootTiming::ARDUCOPTER,
            ..Self::single(instance, link)
        }
    }

    /// One companion link on `transport` (tests, or a companion on a serial line).
    pub fn single(instance: u8, link: LinkOptions) -> Self {
        Self {
            instance,
            autopilot: Autopilot::Px4,
            links: vec![link],
            boot: BootTiming::default(),
            faults: StartFaults::default(),
            seed: u64::from(instance),
            speed_factor: 1.0,
        }
    }

    /// The autopilot's system id: PX4's MAV_SYS_ID is N + 1 for instance N; ArduCopter SITL
    /// keeps MAV_SYSID 1 whatever its instance.
    pub fn system_id(&self) -> u8 {
        match self.autopilot {
            Autopilot::Px4 => self.instance.saturating_add(1),
            Autopilot::ArduCopter => 1,
        }
    }

    pub fn check(&self) -> Result<(), EndpointError> {
        if self.instance == u8::MAX {
            return Err(EndpointError::Config(
                "instance 255 would need system id 256".into(),
            ));
        }
        if self.links.is_empty() {
            return Err(EndpointError::Config("an endpoint needs a link".into()));
        }
        if !(self.speed_factor.is_finite() && (0.1..=100.0).contains(&self.speed_factor)) {
            return Err(EndpointError::Config(format!(
                "speed factor {} is not in [0.1, 100]",
                self.speed_factor
            )));
        }
        for l in &self.links {
            if !(l.rate_scale.is_finite() && l.rate_scale > 0.0 && l.rate_scale <= 100.0) {
                return Err(EndpointError::Config(format!(
                    "rate_scale {} is not in (0, 100]",
                    l.rate_scale
                )));
            }
            l.impairment.check()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_n_uses_px4_sitl_ports_and_system_id() {
        let o = EndpointOptions::px4_sitl(2);
        assert_eq!(o.system_id(), 3);
        assert_eq!(
            o.links[0].transport,
            EndpointTransport::Udp {
                bind: "0.0.0.0:14582".parse().unwrap(),
                remote: Some("127.0.0.1:14542".parse().unwrap()),
            }
        );
        assert_eq!(o.links[0].streams, StreamSet::Onboard);
        assert_eq!(
            o.links[1].transport,
            EndpointTransport::Udp {
                bind: "0.0.0.0:18572".parse().unwrap(),
                remote: Some("127.0.0.1:14550".parse().unwrap()),
            }
        );
        assert!(o.check().is_ok());
        assert!(EndpointOptions::px4_sitl(255).check().is_err());
        let ap = EndpointOptions::ardupilot_sitl(3);
        assert_eq!(ap.system_id(), 1);
        assert_eq!(ap.links.len(), 1);
        assert_eq!(ap.links[0].streams, StreamSet::Quiet);
        assert!(matches!(
            ap.links[0].transport,
            EndpointTransport::Udp { remote: Some(r), .. } if r.port() == 14663
        ));
    }

    #[test]
    fn addresses_read_from_the_vehicle_side() {
        let out = Address::parse("udpout:127.0.0.1:14540").unwrap();
        assert!(matches!(
            EndpointTransport::from_address(&out).unwrap(),
            EndpointTransport::Udp { remote: Some(r), .. } if r.port() == 14540
        ));
        let tcp = Address::parse("tcpout:127.0.0.1:5760").unwrap();
        assert!(EndpointTransport::from_address(&tcp).is_err());
        let serial = Address::parse("serial:/dev/ttyUSB0:57600").unwrap();
        assert_eq!(
            EndpointTransport::from_address(&serial).unwrap(),
            EndpointTransport::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: 57600
            }
        );
    }
}
