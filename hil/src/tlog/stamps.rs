//! Which timestamps of a log to believe. A `.tlog` stamps every frame with the wall clock, so
//! one damaged stamp (a flipped byte: years ahead, or minutes back) would otherwise move its
//! frame anywhere on the timeline and stall everything drawn after it. A stamp is judged by its
//! neighbours: when the frames before and after it agree with each other and it does not lie
//! between them, it is the odd one out and its frame is dropped; when they disagree, the clock
//! itself stepped (an NTP step, a long silence), and the frames are kept, the step counted.

use super::TlogEntry;

/// The longest silence between two frames of one live link, µs: more is a step of the clock
/// (or damage), not the link pausing.
pub const MAX_STAMP_GAP_US: u64 = 600_000_000;
/// How far a stamp may go back and still be in order, µs: both directions of the link are
/// stamped as they are read and written, and the wall clock may be slewed.
pub const STAMP_JITTER_US: u64 = 1_000_000;

/// Whether a frame stamped `b` may follow one stamped `a` on one clock.
pub fn stamps_in_line(a: u64, b: u64) -> bool {
    b.saturating_add(STAMP_JITTER_US) >= a && b <= a.saturating_add(MAX_STAMP_GAP_US)
}

/// What [`believable`] dropped and kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct StampCounts {
    /// Frames dropped: their stamp was out of line with neighbours that agreed.
    pub dropped: u64,
    /// Kept frames whose stamp was out of line with the frame before: the clock stepped.
    pub steps: u64,
}

/// The entries whose stamps can be believed, in order.
pub(super) fn believable(entries: Vec<TlogEntry>) -> (Vec<TlogEntry>, StampCounts) {
    let stamps: Vec<u64> = entries.iter().map(|e| e.unix_us).collect();
    let mut counts = StampCounts::default();
    let mut last: Option<u64> = None;
    let mut kept = Vec::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let s = stamps[i];
        let next = stamps.get(i + 1).copied();
        let keep = match (last, next) {
            (None, None) => true,
            // The first frame: the odd one out when the two after it agree but not with it.
            (None, Some(n)) => {
                stamps_in_line(s, n) || !stamps.get(i + 2).is_some_and(|&m| stamps_in_line(n, m))
            }
            // The last frame: nothing after it can show that the clock stepped.
            (Some(l), None) => stamps_in_line(l, s),
            (Some(l), Some(n)) => {
                (stamps_in_line(l, s) && stamps_in_line(s, n)) || !stamps_in_line(l, n)
            }
        };
        if !keep {
            counts.dropped += 1;
            continue;
        }
        if last.is_some_and(|l| !stamps_in_line(l, s)) {
            counts.steps += 1;
        }
        last = Some(s);
        kept.push(entry);
    }
    (kept, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_700_000_000_000_000;

    fn entries(stamps: &[u64]) -> Vec<TlogEntry> {
        stamps
            .iter()
            .enumerate()
            .map(|(i, &unix_us)| TlogEntry {
                unix_us,
                frame: vec![u8::try_from(i).unwrap_or(0)],
            })
            .collect()
    }

    fn kept(stamps: &[u64]) -> (Vec<u64>, StampCounts) {
        let (k, c) = believable(entries(stamps));
        (k.iter().map(|e| e.unix_us).collect(), c)
    }

    #[test]
    fn an_odd_stamp_is_dropped_wherever_it_is() {
        let ms = |n: u64| T0 + n * 1000;
        let years = T0 + (1u64 << 56);
        // In the middle, ahead or behind; first; last.
        for (input, good) in [
            (
                vec![ms(0), ms(10), years, ms(30), ms(40)],
                vec![ms(0), ms(10), ms(30), ms(40)],
            ),
            (
                vec![ms(0), ms(10), ms(20) + 30_000_000, ms(30)],
                vec![ms(0), ms(10), ms(30)],
            ),
            (
                vec![ms(0), ms(10), 5, ms(30), ms(40)],
                vec![ms(0), ms(10), ms(30), ms(40)],
            ),
            (
                vec![years, ms(10), ms(20), ms(30)],
                vec![ms(10), ms(20), ms(30)],
            ),
            (vec![ms(0), ms(10), ms(20), 7], vec![ms(0), ms(10), ms(20)]),
        ] {
            let (k, c) = kept(&input);
            assert_eq!(k, good, "{input:?}");
            assert_eq!(
                c,
                StampCounts {
                    dropped: 1,
                    steps: 0
                },
                "{input:?}"
            );
        }
    }

    #[test]
    fn a_clock_step_keeps_every_frame_and_is_counted() {
        let back = T0 - 3_600_000_000;
        let input = [T0, T0 + 1000, back, back + 1000, back + 2000];
        let (k, c) = kept(&input);
        assert_eq!(k, input.to_vec());
        assert_eq!(
            c,
            StampCounts {
                dropped: 0,
                steps: 1
            }
        );
        // Frames of one read share a stamp, and a little reordering is not a step.
        let input = [T0, T0, T0 - 200, T0 + 5, T0 + 5];
        assert_eq!(kept(&input), (input.to_vec(), StampCounts::default()));
    }
}
