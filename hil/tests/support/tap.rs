//! A UDP relay between the fake autopilot and the companion that records what the autopilot
//! sent and can drop every n-th datagram (each one frame), for capture and loss tests.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::UdpSocket;
use tokio::task::JoinHandle;

#[derive(Debug)]
pub struct Tap {
    /// Where the autopilot should send.
    pub addr: SocketAddr,
    pub recorded: Arc<Mutex<Vec<u8>>>,
    pub recording: Arc<AtomicBool>,
    /// Drop every n-th autopilot datagram (0: none).
    pub drop_every: Arc<AtomicU32>,
    task: JoinHandle<()>,
}

impl Tap {
    pub async fn start(companion: SocketAddr) -> Self {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = socket.local_addr().unwrap();
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let recording = Arc::new(AtomicBool::new(false));
        let drop_every = Arc::new(AtomicU32::new(0));
        let (rec, on, every) = (recorded.clone(), recording.clone(), drop_every.clone());
        let task = tokio::spawn(async move {
            let mut buf = vec![0u8; 65536];
            let mut autopilot: Option<SocketAddr> = None;
            let mut count = 0u32;
            loop {
                let Ok((n, from)) = socket.recv_from(&mut buf).await else {
                    continue;
                };
                if from == companion {
                    if let Some(a) = autopilot {
                        let _ = socket.send_to(&buf[..n], a).await;
                    }
                    continue;
                }
                autopilot = Some(from);
                count += 1;
                let e = every.load(Ordering::Relaxed);
                if e > 0 && count.is_multiple_of(e) {
                    continue;
                }
                if on.load(Ordering::Relaxed) {
                    rec.lock().unwrap().extend_from_slice(&buf[..n]);
                }
                let _ = socket.send_to(&buf[..n], companion).await;
            }
        });
        Self {
            addr,
            recorded,
            recording,
            drop_every,
            task,
        }
    }

    pub fn stop(self) {
        self.task.abort();
    }
}
