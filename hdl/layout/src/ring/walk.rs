//! A pure model of a v2 ring in memory: writing entries and walking them.
//!
//! For tests and software models (the NIC writes RX entries, the driver
//! walks them; the driver writes TX entries, the NIC walks them). A ring is
//! a byte slice whose length is a power of two and at least one unit;
//! positions are unit numbers, taken modulo the ring's units.

use super::{entry_units, EntryHeader, HEADER_BYTES, UNIT_BYTES};
use crate::params::MAX_FRAME_BYTES;

/// The ring's units.
///
/// # Panics
/// If `ring.len()` is not a power-of-two multiple of [`UNIT_BYTES`].
fn units_of(ring: &[u8]) -> u32 {
    assert!(
        ring.len() >= UNIT_BYTES && ring.len().is_power_of_two(),
        "a ring of {} bytes is not a power-of-two multiple of {UNIT_BYTES}",
        ring.len()
    );
    (ring.len() / UNIT_BYTES) as u32
}

/// Copies `bytes` into the ring from byte `at` on, continuing at byte 0
/// past the end.
fn copy_in(ring: &mut [u8], at: usize, bytes: &[u8]) {
    let first = bytes.len().min(ring.len() - at);
    ring[at..at + first].copy_from_slice(&bytes[..first]);
    ring[..bytes.len() - first].copy_from_slice(&bytes[first..]);
}

/// `n` bytes of the ring from byte `at` on, continuing at byte 0 past the
/// end.
fn copy_out(ring: &[u8], at: usize, n: usize) -> Vec<u8> {
    let first = n.min(ring.len() - at);
    let mut v = ring[at..at + first].to_vec();
    v.extend_from_slice(&ring[..n - first]);
    v
}

/// Writes an entry (`header`, then `frame`) at unit `at_unit` (modulo the
/// ring's units), wrapping past the ring's end, and returns the unit after
/// the entry (modulo the ring's units). The padding after the frame is left
/// untouched, as the NIC leaves it.
///
/// # Panics
/// If `ring.len()` is not a power-of-two multiple of [`UNIT_BYTES`], if
/// `header.len` is not `frame.len()`, or if the entry is larger than the
/// ring.
pub fn write_entry(ring: &mut [u8], at_unit: u32, header: &EntryHeader, frame: &[u8]) -> u32 {
    let units = units_of(ring);
    assert_eq!(
        usize::from(header.len),
        frame.len(),
        "the header's length is not the frame's"
    );
    let n = entry_units(frame.len() as u32);
    assert!(n <= units, "an entry of {n} units in a ring of {units}");
    let at = at_unit % units;
    copy_in(ring, at as usize * UNIT_BYTES, &header.to_bytes());
    let body = (at + 1) % units;
    copy_in(ring, body as usize * UNIT_BYTES, frame);
    (at + n) % units
}

/// An entry read out of a ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The unit its header is at.
    pub unit: u32,
    pub header: EntryHeader,
    /// The frame's `header.len` bytes, copied out (joined across the ring's
    /// end when the entry wraps).
    pub frame: Vec<u8>,
}

/// Why a ring walk stopped before reaching its end unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingError {
    /// The header at `unit` states a length of 0 or above `MAX_FRAME_BYTES`:
    /// not an entry, so nothing after it can be found either.
    BadLength { unit: u32, len: u16 },
    /// The entry at `unit` takes `units` units, but only `left` remain
    /// before the walk's end unit: a tail that is not on an entry boundary.
    Overruns { unit: u32, units: u32, left: u32 },
}

impl std::fmt::Display for RingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadLength { unit, len } => write!(
                f,
                "entry at unit {unit} states {len} bytes (1 to {MAX_FRAME_BYTES} allowed)"
            ),
            Self::Overruns { unit, units, left } => write!(
                f,
                "entry at unit {unit} takes {units} units, {left} left before the end"
            ),
        }
    }
}

impl std::error::Error for RingError {}

/// The entries of `ring` from unit `from_unit` up to (not including) unit
/// `to_unit`, wrapping past the ring's end; both are taken modulo the
/// ring's units, and equal ones mean no entries (an empty ring). The
/// iterator yields each entry, or one error and then ends.
///
/// # Panics
/// If `ring.len()` is not a power-of-two multiple of [`UNIT_BYTES`].
pub fn entries(ring: &[u8], from_unit: u32, to_unit: u32) -> Entries<'_> {
    let units = units_of(ring);
    Entries {
        ring,
        units,
        unit: from_unit % units,
        to: to_unit % units,
        done: false,
    }
}

/// The iterator of [`entries`].
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    ring: &'a [u8],
    units: u32,
    /// The unit of the next header.
    unit: u32,
    to: u32,
    /// An error was yielded.
    done: bool,
}

impl Iterator for Entries<'_> {
    type Item = Result<Entry, RingError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.unit == self.to {
            return None;
        }
        let unit = self.unit;
        let at = unit as usize * UNIT_BYTES;
        let rec: &[u8; HEADER_BYTES] = self.ring[at..at + HEADER_BYTES].try_into().unwrap();
        let header = EntryHeader::from_bytes(rec);
        let left = (self.to + self.units - unit) % self.units;
        let units = entry_units(header.len.into());
        let err = if header.len == 0 || u32::from(header.len) > MAX_FRAME_BYTES {
            Some(RingError::BadLength {
                unit,
                len: header.len,
            })
        } else if units > left {
            Some(RingError::Overruns { unit, units, left })
        } else {
            None
        };
        if let Some(e) = err {
            self.done = true;
            return Some(Err(e));
        }
        let body = (unit + 1) % self.units;
        let frame = copy_out(self.ring, body as usize * UNIT_BYTES, header.len.into());
        self.unit = (unit + units) % self.units;
        Some(Ok(Entry {
            unit,
            header,
            frame,
        }))
    }
}

impl std::iter::FusedIterator for Entries<'_> {}

#[cfg(test)]
mod tests {
    use super::super::entry_bytes;
    use super::*;
    use proptest::prelude::*;

    fn frame(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|k| (k as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    fn header(len: usize, k: u64) -> EntryHeader {
        EntryHeader {
            len: len as u16,
            flags: k as u16,
            hash: 0xDEAD_0000 | k as u32,
            timestamp: 1000 + k,
        }
    }

    #[test]
    fn three_entries_wrap_around_a_4k_ring_and_walk_back() {
        let mut ring = vec![0xEEu8; 4096];
        let frames = [frame(100, 1), frame(1514, 2), frame(60, 3)];
        // From 20 units before the end (of 256): the second entry (96
        // units) wraps inside its frame, the third starts past unit 0.
        let start = 256 - 20;
        let mut at = start;
        let mut units = Vec::new();
        for (k, f) in frames.iter().enumerate() {
            units.push(at);
            at = write_entry(&mut ring, at, &header(f.len(), k as u64), f);
        }
        assert_eq!(units, [236, 244, 84]);
        assert_eq!(at, 89);
        // Padding untouched: the bytes after the first frame up to its end.
        let pad = 237 * 16 + 100;
        assert!(ring[pad..pad + 12].iter().all(|&b| b == 0xEE));
        let got: Vec<Entry> = entries(&ring, start, at).map(Result::unwrap).collect();
        assert_eq!(got.len(), 3);
        for (k, e) in got.iter().enumerate() {
            assert_eq!(e.unit, units[k]);
            assert_eq!(e.header, header(frames[k].len(), k as u64));
            assert_eq!(e.frame, frames[k]);
        }
        assert_eq!(entry_bytes(100), 8 * 16);
        assert_eq!(entries(&ring, at, at).count(), 0);
    }

    #[test]
    fn a_zero_length_and_an_overrun_are_typed_errors() {
        let mut ring = vec![0u8; 4096];
        let f = frame(64, 9);
        let next = write_entry(&mut ring, 10, &header(64, 0), &f);
        assert_eq!(next, 15);
        // Unit 15 holds zeros: a zero length, then the walk ends.
        let mut walk = entries(&ring, 10, 20);
        assert!(walk.next().unwrap().is_ok());
        assert_eq!(
            walk.next(),
            Some(Err(RingError::BadLength { unit: 15, len: 0 }))
        );
        assert_eq!(walk.next(), None);
        // Too long a length is the same error.
        let big = EntryHeader {
            len: MAX_FRAME_BYTES as u16 + 1,
            ..Default::default()
        };
        ring[15 * 16..16 * 16].copy_from_slice(&big.to_bytes());
        let err = entries(&ring, 15, 0).next().unwrap().unwrap_err();
        assert_eq!(
            err,
            RingError::BadLength {
                unit: 15,
                len: big.len
            }
        );
        // An end unit inside the entry: it overruns.
        let mut walk = entries(&ring, 10, 13);
        assert_eq!(
            walk.next(),
            Some(Err(RingError::Overruns {
                unit: 10,
                units: 5,
                left: 3
            }))
        );
        assert_eq!(walk.next(), None);
        assert!(!err.to_string().is_empty());
    }

    #[test]
    #[should_panic(expected = "power-of-two multiple")]
    fn a_ring_that_is_not_a_power_of_two_is_refused() {
        write_entry(&mut [0u8; 48], 0, &header(1, 0), &[1]);
    }

    proptest! {
        /// Random frames written back to back from a random unit read back
        /// identically, wherever they wrap.
        #[test]
        fn written_entries_walk_back(
            ring_log2 in 12u32..=16,
            start in any::<u32>(),
            lens in proptest::collection::vec(
                prop_oneof![1usize..=130, 1usize..=MAX_FRAME_BYTES as usize],
                0..16,
            ),
            seed in any::<u8>(),
        ) {
            let mut ring = vec![0u8; 1 << ring_log2];
            let units = (ring.len() / UNIT_BYTES) as u32;
            // Keep what fits: an entry the size of the whole ring would make
            // its end equal its start (an empty ring).
            let mut used = 0;
            let mut fits = Vec::new();
            for len in lens {
                let n = entry_units(len as u32);
                if used + n < units {
                    used += n;
                    fits.push(len);
                }
            }
            let mut at = start;
            let mut written = Vec::new();
            for (k, &len) in fits.iter().enumerate() {
                let f = frame(len, seed ^ k as u8);
                let h = header(len, k as u64);
                written.push((at % units, h, f.clone()));
                at = write_entry(&mut ring, at, &h, &f);
            }
            let got: Vec<Entry> = entries(&ring, start, at)
                .collect::<Result<_, _>>()
                .unwrap();
            prop_assert_eq!(got.len(), written.len());
            for (e, (unit, h, f)) in got.iter().zip(written) {
                prop_assert_eq!(e.unit, unit);
                prop_assert_eq!(e.header, h);
                prop_assert_eq!(&e.frame, &f);
            }
        }
    }
}
