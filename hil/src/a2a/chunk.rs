//! One A2A message as `TUNNEL` payloads: a 5-byte header (format, message id, chunk index,
//! chunk count) and up to 123 bytes of the message each. A lost chunk loses its message, never
//! makes a wrong one: chunks join only by (sender, message id, count), and a message is handed
//! on only when every chunk is there.

use super::tunnel::TUNNEL_PAYLOAD_MAX;

/// The chunk format this code writes and reads (byte 0 of every chunk).
pub const CHUNK_FORMAT: u8 = 1;
/// Header bytes in front of every chunk's data.
pub const CHUNK_HEADER_LEN: usize = 5;
/// Message bytes one chunk carries.
pub const CHUNK_DATA_MAX: usize = TUNNEL_PAYLOAD_MAX - CHUNK_HEADER_LEN;
/// Chunks one message may take: a message is at most 16 × 123 = 1,968 bytes, so a receiver's
/// buffer for one sender's open message is bounded.
pub const MAX_CHUNKS: usize = 16;
/// The longest message, in bytes.
pub const MESSAGE_MAX: usize = MAX_CHUNKS * CHUNK_DATA_MAX;

/// A chunk's header and data, borrowed from the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub message_id: u16,
    pub index: u8,
    pub count: u8,
    pub data: &'a [u8],
}

/// Why a payload is not a chunk this code can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    #[error("shorter than the chunk header")]
    Short,
    #[error("chunk format {0} is not {CHUNK_FORMAT}")]
    Format(u8),
    #[error("chunk count {0} outside 1..={MAX_CHUNKS}")]
    Count(u8),
    #[error("chunk index {index} not below its count {count}")]
    Index { index: u8, count: u8 },
    #[error("a chunk with no data")]
    Empty,
    #[error("the message is {0} bytes, more than the {MESSAGE_MAX} a message may be")]
    TooLong(usize),
}

impl<'a> Chunk<'a> {
    /// Reads a chunk from one `TUNNEL` payload.
    pub fn parse(payload: &'a [u8]) -> Result<Self, ChunkError> {
        if payload.len() < CHUNK_HEADER_LEN {
            return Err(ChunkError::Short);
        }
        if payload[0] != CHUNK_FORMAT {
            return Err(ChunkError::Format(payload[0]));
        }
        let (index, count) = (payload[3], payload[4]);
        if count == 0 || usize::from(count) > MAX_CHUNKS {
            return Err(ChunkError::Count(count));
        }
        if index >= count {
            return Err(ChunkError::Index { index, count });
        }
        let data = &payload[CHUNK_HEADER_LEN..];
        if data.is_empty() {
            return Err(ChunkError::Empty);
        }
        Ok(Self {
            message_id: u16::from_le_bytes([payload[1], payload[2]]),
            index,
            count,
            data,
        })
    }
}

/// `message` as chunk payloads (each at most 128 bytes), in order.
pub fn split(message_id: u16, message: &[u8]) -> Result<Vec<Vec<u8>>, ChunkError> {
    if message.is_empty() {
        return Err(ChunkError::Empty);
    }
    if message.len() > MESSAGE_MAX {
        return Err(ChunkError::TooLong(message.len()));
    }
    let parts: Vec<&[u8]> = message.chunks(CHUNK_DATA_MAX).collect();
    // At most MAX_CHUNKS (16) parts, checked above.
    let count = u8::try_from(parts.len()).map_err(|_| ChunkError::TooLong(message.len()))?;
    let id = message_id.to_le_bytes();
    Ok(parts
        .iter()
        .zip(0u8..)
        .map(|(data, index)| {
            let mut payload = Vec::with_capacity(CHUNK_HEADER_LEN + data.len());
            payload.extend_from_slice(&[CHUNK_FORMAT, id[0], id[1], index, count]);
            payload.extend_from_slice(data);
            payload
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_splits_into_chunks_that_parse_back() {
        let message: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let chunks = split(513, &message).unwrap();
        assert_eq!(chunks.len(), 3);
        assert!(chunks.iter().all(|c| c.len() <= TUNNEL_PAYLOAD_MAX));
        let mut joined = Vec::new();
        for (i, payload) in chunks.iter().enumerate() {
            let c = Chunk::parse(payload).unwrap();
            assert_eq!((c.message_id, usize::from(c.index), c.count), (513, i, 3));
            joined.extend_from_slice(c.data);
        }
        assert_eq!(joined, message);
    }

    #[test]
    fn limits_are_enforced_both_ways() {
        assert_eq!(split(1, &[]), Err(ChunkError::Empty));
        assert_eq!(
            split(1, &vec![1; MESSAGE_MAX + 1]),
            Err(ChunkError::TooLong(MESSAGE_MAX + 1))
        );
        assert_eq!(split(1, &vec![1; MESSAGE_MAX]).unwrap().len(), MAX_CHUNKS);
        assert_eq!(Chunk::parse(&[1, 0, 0, 0]), Err(ChunkError::Short));
        assert_eq!(
            Chunk::parse(&[2, 0, 0, 0, 1, 9]),
            Err(ChunkError::Format(2))
        );
        assert_eq!(Chunk::parse(&[1, 0, 0, 0, 0, 9]), Err(ChunkError::Count(0)));
        assert_eq!(
            Chunk::parse(&[1, 0, 0, 0, 17, 9]),
            Err(ChunkError::Count(17))
        );
        assert_eq!(
            Chunk::parse(&[1, 0, 0, 2, 2, 9]),
            Err(ChunkError::Index { index: 2, count: 2 })
        );
        assert_eq!(Chunk::parse(&[1, 0, 0, 0, 1]), Err(ChunkError::Empty));
    }
}
