//! Byte transports by address: UDP (in, out, broadcast), TCP (in, out) and serial ports
//! (tokio-serial). They move bytes and report every error; framing is the session's job.

use alpha3_core::config::Address;
use std::io;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio_serial::{SerialPortBuilderExt, SerialStream};

/// An open link to the autopilot.
#[derive(Debug)]
pub enum Transport {
    Udp {
        socket: UdpSocket,
        /// Where to send: fixed for udpout; for udpin and udpbcast, the address the session
        /// bound the autopilot to ([`Transport::aim`]) — udpbcast broadcasts until then.
        peer: Option<SocketAddr>,
        /// udpout: `peer` never changes.
        fixed: bool,
        /// Who sent the last datagram.
        last_from: Option<SocketAddr>,
    },
    Tcp(TcpStream),
    Serial(SerialStream),
}

/// Opens `address`. For `udpin` nothing can be sent until the autopilot has sent something.
pub async fn open(address: &Address) -> io::Result<Transport> {
    Ok(match address {
        Address::UdpIn { host, port } => Transport::Udp {
            socket: UdpSocket::bind((host.as_str(), *port)).await?,
            peer: None,
            fixed: false,
            last_from: None,
        },
        Address::UdpOut { host, port } | Address::UdpBroadcast { host, port } => {
            let peer = resolve(host, *port).await?;
            let local: SocketAddr = if peer.is_ipv4() {
                ([0, 0, 0, 0], 0).into()
            } else {
                ([0u16; 8], 0).into()
            };
            let socket = UdpSocket::bind(local).await?;
            if matches!(address, Address::UdpBroadcast { .. }) {
                socket.set_broadcast(true)?;
            }
            Transport::Udp {
                socket,
                peer: Some(peer),
                fixed: matches!(address, Address::UdpOut { .. }),
                last_from: None,
            }
        }
        Address::TcpOut { host, port } => {
            let stream = TcpStream::connect(resolve(host, *port).await?).await?;
            stream.set_nodelay(true)?;
            Transport::Tcp(stream)
        }
        Address::TcpIn { host, port } => {
            let listener = TcpListener::bind((host.as_str(), *port)).await?;
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            Transport::Tcp(stream)
        }
        Address::Serial { path, baud } => Transport::Serial(
            tokio_serial::new(path.as_str(), *baud)
                .open_native_async()
                .map_err(io::Error::other)?,
        ),
    })
}

async fn resolve(host: &str, port: u16) -> io::Result<SocketAddr> {
    tokio::net::lookup_host((host, port))
        .await?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{host} has no address")))
}

impl Transport {
    /// Reads what is there (cancel-safe). A closed stream is an error, never `Ok(0)`.
    pub async fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self {
            Transport::Udp {
                socket, last_from, ..
            } => {
                let (n, from) = socket.recv_from(buf).await?;
                *last_from = Some(from);
                return Ok(n);
            }
            Transport::Tcp(s) => s.read(buf).await?,
            Transport::Serial(s) => s.read(buf).await?,
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the other end closed the link",
            ));
        }
        Ok(n)
    }

    /// Who sent the last datagram; `None` on a stream (serial, TCP).
    pub fn last_sender(&self) -> Option<SocketAddr> {
        match self {
            Transport::Udp { last_from, .. } => *last_from,
            _ => None,
        }
    }

    /// The one address a udpout transport talks to: frames from anywhere else are not its.
    pub fn fixed_peer(&self) -> Option<SocketAddr> {
        match self {
            Transport::Udp {
                peer, fixed: true, ..
            } => *peer,
            _ => None,
        }
    }

    /// Sends to `to` from now on (udpin, udpbcast): the address the session bound the
    /// autopilot to — never the sender of just any datagram, since anyone can send one.
    pub fn aim(&mut self, to: SocketAddr) {
        if let Transport::Udp {
            peer, fixed: false, ..
        } = self
        {
            *peer = Some(to);
        }
    }

    /// Writes one frame. Returns `false` when there is no one to send to yet (udpin).
    pub async fn send(&mut self, bytes: &[u8]) -> io::Result<bool> {
        match self {
            Transport::Udp { socket, peer, .. } => match peer {
                Some(p) => {
                    socket.send_to(bytes, *p).await?;
                    Ok(true)
                }
                None => Ok(false),
            },
            Transport::Tcp(s) => s.write_all(bytes).await.map(|_| true),
            Transport::Serial(s) => s.write_all(bytes).await.map(|_| true),
        }
    }

    /// Who is on the other end: the UDP peer we send to, or the TCP peer. `None` for a serial
    /// port, and for udpin before the autopilot was heard.
    pub fn peer(&self) -> Option<SocketAddr> {
        match self {
            Transport::Udp { peer, .. } => *peer,
            Transport::Tcp(s) => s.peer_addr().ok(),
            Transport::Serial(_) => None,
        }
    }

    /// The local UDP address (tests use it to find an ephemeral port).
    pub fn local_udp_addr(&self) -> Option<SocketAddr> {
        match self {
            Transport::Udp { socket, .. } => socket.local_addr().ok(),
            _ => None,
        }
    }
}
