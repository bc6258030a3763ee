//! PX4's plan id: a CRC32 over every item, as `MavlinkMissionManager::crc32_for_mission_item`
//! computes it (MISSION-FACTS §1, MM:1896-1915). Each item adds the 32 bytes of PX4's packed
//! `CrcMissionItem_t` (frame u8, command u16, autocontinue u8, then param1-4, x, y, z as four
//! bytes each, little-endian) to the running value with `crc32part` (`lib_crc32.c`): the
//! reflected 0xEDB88320 polynomial, started at 0 and never inverted — so not the zlib CRC-32.
//! PX4 decodes MISSION_ITEM_INT as the float MISSION_ITEM, so x and y enter as the raw bytes
//! of whatever the wire carried.

/// The reflected CRC-32 polynomial of PX4's table.
const POLYNOMIAL: u32 = 0xEDB8_8320;

/// `crc32part`: `bytes` added to `crc`.
pub fn extend(mut crc: u32, bytes: &[u8]) -> u32 {
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLYNOMIAL
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// The fields of one item that PX4's CRC covers, `x`/`y` as the wire's raw 4 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrcFields {
    pub frame: u8,
    pub command: u16,
    pub autocontinue: u8,
    pub params: [f32; 4],
    pub x: [u8; 4],
    pub y: [u8; 4],
    pub z: f32,
}

/// `prev` extended by one item.
pub fn item(prev: u32, f: &CrcFields) -> u32 {
    let mut raw = [0u8; 32];
    raw[0] = f.frame;
    raw[1..3].copy_from_slice(&f.command.to_le_bytes());
    raw[3] = f.autocontinue;
    for (i, p) in f.params.iter().enumerate() {
        raw[4 + 4 * i..8 + 4 * i].copy_from_slice(&p.to_le_bytes());
    }
    raw[20..24].copy_from_slice(&f.x);
    raw[24..28].copy_from_slice(&f.y);
    raw[28..32].copy_from_slice(&f.z.to_le_bytes());
    extend(prev, &raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_the_raw_reflected_crc_without_inversion() {
        // zlib's CRC-32 of "123456789" is 0xCBF43926 with its pre- and post-inversion; PX4's
        // crc32part from 0 without them gives this (Python: ~zlib.crc32(b, 0xFFFFFFFF)).
        assert_eq!(extend(0, b"123456789"), 0x2DFD_2D88);
        assert_eq!(extend(0, b""), 0);
        // Running over two parts is running over the whole.
        assert_eq!(
            extend(extend(0, b"1234"), b"56789"),
            extend(0, b"123456789")
        );
    }

    #[test]
    fn an_item_is_packed_as_px4_packs_it() {
        // A take-off at Zurich, frame 3, as MISSION_ITEM_INT carries it; the value is PX4's
        // layout computed independently in Python: `struct.pack("<BHB4fiif", ...)` through
        // `~zlib.crc32(raw, 0xFFFFFFFF)`.
        let f = CrcFields {
            frame: 3,
            command: 22,
            autocontinue: 1,
            params: [0.0, 0.0, 0.0, f32::NAN],
            x: 473_977_420i32.to_le_bytes(),
            y: 85_455_940i32.to_le_bytes(),
            z: 30.0,
        };
        assert_eq!(item(0, &f), 0x023F_48AB);
    }
}
