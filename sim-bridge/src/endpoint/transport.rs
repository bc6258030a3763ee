//! The endpoint's byte transports on tokio: UDP (bound like PX4's `mavlink -u`, replying to
//! whoever talked last) and serial ports (tokio-serial). A reader task per link feeds one
//! channel; writes happen on the endpoint task.

use super::EndpointError;
use super::options::EndpointTransport;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, WriteHalf};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_serial::{SerialPortBuilderExt, SerialStream};

/// Bytes that came in on a link.
#[derive(Debug)]
pub(super) struct Inbound {
    pub link: usize,
    pub bytes: Vec<u8>,
    /// The UDP sender.
    pub from: Option<SocketAddr>,
}

/// The writing side of one link.
#[derive(Debug)]
pub(super) enum Port {
    Udp {
        socket: Arc<UdpSocket>,
        remote: Option<SocketAddr>,
    },
    Serial(WriteHalf<SerialStream>),
}

/// An opened link: where to write, its local address, its reader.
#[derive(Debug)]
pub(super) struct Opened {
    pub port: Port,
    pub local: Option<SocketAddr>,
    pub reader: JoinHandle<()>,
}

/// Opens link `link` on `transport`; what it reads goes to `tx`.
pub(super) async fn open(
    link: usize,
    transport: &EndpointTransport,
    tx: mpsc::Sender<Inbound>,
) -> Result<Opened, EndpointError> {
    match transport {
        EndpointTransport::Udp { bind, remote } => {
            let socket = UdpSocket::bind(bind)
                .await
                .map_err(|source| EndpointError::Open {
                    what: format!("UDP {bind}"),
                    source,
                })?;
            let local = socket.local_addr().ok();
            let socket = Arc::new(socket);
            let reader = tokio::spawn(read_udp(link, socket.clone(), tx));
            Ok(Opened {
                port: Port::Udp {
                    socket,
                    remote: *remote,
                },
                local,
                reader,
            })
        }
        EndpointTransport::Serial { path, baud } => {
            let stream = tokio_serial::new(path.as_str(), *baud)
                .open_native_async()
                .map_err(|e| EndpointError::Open {
                    what: format!("serial {path}"),
                    source: io::Error::other(e),
                })?;
            let (read, write) = tokio::io::split(stream);
            let reader = tokio::spawn(read_serial(link, read, tx));
            Ok(Opened {
                port: Port::Serial(write),
                local: None,
                reader,
            })
        }
    }
}

async fn read_udp(link: usize, socket: Arc<UdpSocket>, tx: mpsc::Sender<Inbound>) {
    let mut buf = vec![0u8; 65_536];
    loop {
        match socket.recv_from(&mut buf).await {
            Ok((n, from)) => {
                let msg = Inbound {
                    link,
                    bytes: buf[..n].to_vec(),
                    from: Some(from),
                };
                if tx.send(msg).await.is_err() {
                    return;
                }
            }
            // Linux reports an earlier send to a closed port (ICMP) on the next receive: the
            // peer is not up yet. Keep listening, as PX4 does.
            Err(e) => {
                tracing::debug!(link, error = %e, "UDP receive");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
}

async fn read_serial(
    link: usize,
    mut read: tokio::io::ReadHalf<SerialStream>,
    tx: mpsc::Sender<Inbound>,
) {
    let mut buf = vec![0u8; 4096];
    loop {
        match read.read(&mut buf).await {
            Ok(0) => {
                tracing::warn!(link, "serial port closed");
                return;
            }
            Ok(n) => {
                let msg = Inbound {
                    link,
                    bytes: buf[..n].to_vec(),
                    from: None,
                };
                if tx.send(msg).await.is_err() {
                    return;
                }
            }
            Err(e) => {
                tracing::warn!(link, error = %e, "serial read failed; link down");
                return;
            }
        }
    }
}

impl Port {
    /// Replies go to whoever talked last (PX4's UDP links do the same).
    pub fn follow(&mut self, from: SocketAddr) {
        if let Port::Udp { remote, .. } = self {
            *remote = Some(from);
        }
    }

    /// Sends one frame; with no peer yet it is dropped, as on a real link.
    pub async fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Port::Udp {
                socket,
                remote: Some(r),
            } => socket.send_to(bytes, *r).await.map(|_| ()),
            Port::Udp { remote: None, .. } => Ok(()),
            Port::Serial(w) => w.write_all(bytes).await,
        }
    }
}
