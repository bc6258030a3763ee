//! Chunks back into messages, with bounded memory whatever arrives: at most
//! [`MAX_OPEN`] partial messages (the oldest is dropped for a new one), each dropped
//! [`EXPIRY_MS`] after its first chunk, and each at most [`MESSAGE_MAX`](super::chunk::MESSAGE_MAX)
//! bytes. Time is an argument.

use super::chunk::{Chunk, MAX_CHUNKS};
use std::collections::VecDeque;

/// Partial messages held at once, over every sender.
pub const MAX_OPEN: usize = 32;
/// How long a partial message waits for its other chunks, ms.
pub const EXPIRY_MS: u64 = 5_000;
/// Completed messages remembered, so a chunk repeated after its message completed (a router
/// or radio that duplicates) does not open a partial that can only expire.
const RECENT: usize = 64;

/// Who sent a chunk: the MAVLink system and component of its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sender {
    pub system: u8,
    pub component: u8,
}

/// What one chunk did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkOutcome {
    /// Its message is whole: the bytes, in order.
    Complete(Vec<u8>),
    /// Its message waits for more chunks.
    Pending,
    /// Already held (or its message already completed): ignored.
    Duplicate,
    /// Same sender and message id as an open message but another chunk count, or the same
    /// chunk with other bytes: the open message is dropped, as neither can be trusted.
    Conflict,
}

/// What the reassembly has dropped, for the record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReassemblyCounts {
    pub completed: u64,
    pub duplicates: u64,
    pub conflicts: u64,
    /// Partial messages whose other chunks did not come within [`EXPIRY_MS`].
    pub expired: u64,
    /// Partial messages dropped to make room under [`MAX_OPEN`].
    pub evicted: u64,
}

#[derive(Debug, Clone)]
struct Open {
    sender: Sender,
    message_id: u16,
    first_ms: u64,
    parts: Vec<Option<Vec<u8>>>,
}

/// The receiving side's partial messages.
#[derive(Debug, Clone, Default)]
pub struct Reassembly {
    open: Vec<Open>,
    recent: VecDeque<(Sender, u16)>,
    counts: ReassemblyCounts,
}

impl Reassembly {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn counts(&self) -> ReassemblyCounts {
        self.counts
    }

    /// Partial messages held now.
    pub fn open_len(&self) -> usize {
        self.open.len()
    }

    /// Takes one chunk from `sender` at `now_ms`.
    pub fn push(&mut self, sender: Sender, chunk: Chunk<'_>, now_ms: u64) -> ChunkOutcome {
        self.expire(now_ms);
        let key = (sender, chunk.message_id);
        if self.recent.contains(&key) {
            self.counts.duplicates += 1;
            return ChunkOutcome::Duplicate;
        }
        let count = usize::from(chunk.count).min(MAX_CHUNKS);
        let index = usize::from(chunk.index);
        let slot = match self
            .open
            .iter()
            .position(|o| o.sender == sender && o.message_id == chunk.message_id)
        {
            Some(i) if self.open[i].parts.len() != count => {
                self.open.swap_remove(i);
                self.counts.conflicts += 1;
                return ChunkOutcome::Conflict;
            }
            Some(i) => i,
            None => {
                if self.open.len() >= MAX_OPEN {
                    self.evict_oldest();
                }
                self.open.push(Open {
                    sender,
                    message_id: chunk.message_id,
                    first_ms: now_ms,
                    parts: vec![None; count],
                });
                self.open.len() - 1
            }
        };
        let Some(part) = self.open[slot].parts.get_mut(index) else {
            // Chunk::parse keeps index < count; a chunk built otherwise is a conflict.
            self.open.swap_remove(slot);
            self.counts.conflicts += 1;
            return ChunkOutcome::Conflict;
        };
        match part {
            Some(held) if held.as_slice() == chunk.data => {
                self.counts.duplicates += 1;
                return ChunkOutcome::Duplicate;
            }
            Some(_) => {
                self.open.swap_remove(slot);
                self.counts.conflicts += 1;
                return ChunkOutcome::Conflict;
            }
            None => *part = Some(chunk.data.to_vec()),
        }
        if self.open[slot].parts.iter().any(Option::is_none) {
            return ChunkOutcome::Pending;
        }
        let done = self.open.swap_remove(slot);
        if self.recent.len() >= RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(key);
        self.counts.completed += 1;
        ChunkOutcome::Complete(done.parts.into_iter().flatten().flatten().collect())
    }

    /// Drops partial messages older than [`EXPIRY_MS`] at `now_ms`.
    pub fn expire(&mut self, now_ms: u64) {
        let before = self.open.len();
        self.open
            .retain(|o| now_ms.saturating_sub(o.first_ms) < EXPIRY_MS);
        self.counts.expired += (before - self.open.len()) as u64;
    }

    fn evict_oldest(&mut self) {
        if let Some(i) = self
            .open
            .iter()
            .enumerate()
            .min_by_key(|(_, o)| o.first_ms)
            .map(|(i, _)| i)
        {
            self.open.swap_remove(i);
            self.counts.evicted += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::split;
    use super::*;

    const A: Sender = Sender {
        system: 2,
        component: 191,
    };
    const B: Sender = Sender {
        system: 3,
        component: 191,
    };

    fn message(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn chunks_in_any_order_and_interleaved_senders_complete() {
        let (ma, mb) = (message(300, 1), message(200, 2));
        let (ca, cb) = (split(7, &ma).unwrap(), split(7, &mb).unwrap());
        let mut r = Reassembly::new();
        assert_eq!(
            r.push(A, Chunk::parse(&ca[2]).unwrap(), 0),
            ChunkOutcome::Pending
        );
        assert_eq!(
            r.push(B, Chunk::parse(&cb[1]).unwrap(), 1),
            ChunkOutcome::Pending
        );
        assert_eq!(
            r.push(A, Chunk::parse(&ca[0]).unwrap(), 2),
            ChunkOutcome::Pending
        );
        assert_eq!(
            r.push(A, Chunk::parse(&ca[0]).unwrap(), 2),
            ChunkOutcome::Duplicate
        );
        assert_eq!(
            r.push(B, Chunk::parse(&cb[0]).unwrap(), 3),
            ChunkOutcome::Complete(mb)
        );
        assert_eq!(
            r.push(A, Chunk::parse(&ca[1]).unwrap(), 4),
            ChunkOutcome::Complete(ma)
        );
        // A chunk repeated after its message completed opens nothing.
        assert_eq!(
            r.push(A, Chunk::parse(&ca[1]).unwrap(), 5),
            ChunkOutcome::Duplicate
        );
        assert_eq!(r.open_len(), 0);
        assert_eq!(r.counts().completed, 2);
    }

    #[test]
    fn a_lost_chunk_loses_its_message_and_nothing_else() {
        let m = message(250, 3);
        let c = split(9, &m).unwrap();
        let mut r = Reassembly::new();
        r.push(A, Chunk::parse(&c[0]).unwrap(), 0);
        r.push(A, Chunk::parse(&c[2]).unwrap(), 10);
        // The middle chunk never comes; the partial expires.
        r.expire(EXPIRY_MS);
        assert_eq!(r.open_len(), 0);
        assert_eq!(r.counts().expired, 1);
        // The same id from the same sender later is a new message.
        let m2 = message(100, 4);
        let c2 = split(9, &m2).unwrap();
        assert_eq!(
            r.push(A, Chunk::parse(&c2[0]).unwrap(), EXPIRY_MS + 1),
            ChunkOutcome::Complete(m2)
        );
    }

    #[test]
    fn conflicting_chunks_drop_the_message() {
        let c3 = split(5, &message(300, 1)).unwrap();
        let c2 = split(5, &message(200, 1)).unwrap();
        let mut r = Reassembly::new();
        r.push(A, Chunk::parse(&c3[0]).unwrap(), 0);
        assert_eq!(
            r.push(A, Chunk::parse(&c2[1]).unwrap(), 1),
            ChunkOutcome::Conflict
        );
        assert_eq!(r.open_len(), 0);
        r.push(A, Chunk::parse(&c3[0]).unwrap(), 2);
        let mut other = c3[0].clone();
        other[10] ^= 0xFF;
        assert_eq!(
            r.push(A, Chunk::parse(&other).unwrap(), 3),
            ChunkOutcome::Conflict
        );
        assert_eq!(r.counts().conflicts, 2);
    }

    #[test]
    fn a_flood_of_first_chunks_stays_within_the_bound() {
        let mut r = Reassembly::new();
        for id in 0..1_000u16 {
            let c = split(id, &message(200, 0)).unwrap();
            r.push(A, Chunk::parse(&c[0]).unwrap(), u64::from(id));
            assert!(r.open_len() <= MAX_OPEN);
        }
        assert_eq!(r.counts().evicted, 1_000 - MAX_OPEN as u64);
    }
}
