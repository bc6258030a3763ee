//! Runs a [`FakePx4`] over a real transport (UDP like PX4 SITL, or a serial pty), reopening
//! it when it fails, with optional MAVLink 2 signing (then unsigned input is refused).

use super::fake_px4::{FakeConfig, FakePx4};
use alpha3_core::config::Address;
use alpha3_hil::dialect::COMP_AUTOPILOT;
use alpha3_hil::shell::{Transport, open};
use alpha3_hil::wire::{Decoder, Encoder, Signer, SigningKey, Verifier, signing_timestamp};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// The fake's model and codec, shared with the test.
#[derive(Debug)]
pub struct FakeState {
    pub model: FakePx4,
    pub epoch: Instant,
    encoder: Encoder,
    decoder: Decoder,
    /// Rebooting: say and hear nothing until then.
    pub silent_until: Option<Instant>,
    key: Option<SigningKey>,
    /// Frames refused by the codec (bad or missing signatures).
    pub rejected: usize,
}

impl FakeState {
    fn new(cfg: FakeConfig, key: Option<SigningKey>) -> Self {
        let (decoder, signer) = match &key {
            Some(k) => (
                Decoder::with_signing(Verifier::new(k.clone()), true),
                Some(Signer::new(k.clone(), 0)),
            ),
            None => (Decoder::new(), None),
        };
        Self {
            encoder: Encoder::new(cfg.system_id, signer),
            model: FakePx4::new(cfg),
            epoch: Instant::now(),
            decoder,
            silent_until: None,
            key,
            rejected: 0,
        }
    }

    fn now_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    fn silent(&mut self) -> bool {
        match self.silent_until {
            Some(t) if Instant::now() < t => true,
            Some(_) => {
                // Back from the reboot: a fresh autopilot, sequence numbers from zero.
                let cfg = self.model.cfg.clone();
                *self = FakeState::new(cfg, self.key.clone());
                false
            }
            None => false,
        }
    }
}

fn wall_ts() -> u64 {
    let us = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0);
    signing_timestamp(us)
}

/// A running fake autopilot.
#[derive(Debug)]
pub struct Fake {
    pub state: Arc<Mutex<FakeState>>,
    task: JoinHandle<()>,
}

impl Fake {
    /// Starts the fake on `address` (from its own side: `udpout:` toward the companion,
    /// `serial:` on its end of the pty).
    pub async fn start(address: Address, cfg: FakeConfig, key: Option<SigningKey>) -> Self {
        let state = Arc::new(Mutex::new(FakeState::new(cfg, key)));
        let task = tokio::spawn(run(address, state.clone()));
        Self { state, task }
    }

    pub fn lock(&self) -> MutexGuard<'_, FakeState> {
        self.state.lock().unwrap()
    }

    /// Reads or changes the model.
    pub fn with<R>(&self, f: impl FnOnce(&mut FakePx4) -> R) -> R {
        f(&mut self.lock().model)
    }

    /// Goes silent for `off`, then starts over as a freshly booted autopilot.
    pub fn reboot(&self, off: Duration) {
        self.lock().silent_until = Some(Instant::now() + off);
    }

    pub fn stop(self) {
        self.task.abort();
    }
}

async fn run(address: Address, state: Arc<Mutex<FakeState>>) {
    let mut transport = open(&address).await.ok();
    let mut buf = vec![0u8; 65536];
    let mut tick = tokio::time::interval(Duration::from_millis(2));
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            r = recv(&mut transport, &mut buf) => match r {
                Ok(n) => ingest(&state, &buf[..n]),
                Err(_) => transport = None,
            },
            _ = tick.tick() => {
                if transport.is_none() {
                    transport = tokio::time::timeout(Duration::from_millis(200), open(&address))
                        .await
                        .ok()
                        .and_then(Result::ok);
                }
                let frames = outgoing(&state);
                for f in frames {
                    let Some(t) = transport.as_mut() else { break };
                    if t.send(&f).await.is_err() {
                        transport = None;
                    }
                }
            }
        }
    }
}

fn ingest(state: &Mutex<FakeState>, bytes: &[u8]) {
    let mut s = state.lock().unwrap();
    if s.silent() {
        return;
    }
    s.decoder.push(bytes);
    let (now, ts) = (s.now_us(), wall_ts());
    while let Some(frame) = s.decoder.next(ts) {
        match frame {
            Ok(f) => s.model.handle(now, f.header, f.message),
            Err(_) => s.rejected += 1,
        }
    }
}

fn outgoing(state: &Mutex<FakeState>) -> Vec<Vec<u8>> {
    let mut s = state.lock().unwrap();
    if s.silent() {
        return Vec::new();
    }
    let now = s.now_us();
    s.model.step(now);
    let mut frames = Vec::new();
    while let Some(m) = s.model.poll() {
        let mut f = Vec::with_capacity(64);
        s.encoder.encode(COMP_AUTOPILOT, &m, wall_ts(), &mut f);
        frames.push(f);
    }
    frames
}

async fn recv(t: &mut Option<Transport>, buf: &mut [u8]) -> std::io::Result<usize> {
    match t {
        Some(t) => t.recv(buf).await,
        None => std::future::pending().await,
    }
}
