//! Ring entry headers (`pendulum_layout::ring`) as the two 64-bit words the
//! driver loads and stores, field by field with the layout's offsets.
//!
//! Why not the layout's `EntryHeader::from_bytes` and `to_bytes`: they are
//! not inlined across crates, and going through a byte array stalls store
//! forwarding (two 8-byte stores, then a 16-byte load of them). Together
//! they tripled the driver's cost per 64-byte frame on RX and doubled it on
//! TX (the `driver` bench).

use pendulum_layout::notif::Field;
use pendulum_layout::ring::{EntryHeader, FLAGS, HASH, HEADER_BYTES, LEN, TIMESTAMP};

/// Whether field `f` lies inside one 64-bit word of the header.
const fn in_one_word(f: Field) -> bool {
    f.lsb % 64 + f.width <= 64 && f.lsb + f.width <= 8 * HEADER_BYTES
}

const _: () =
    assert!(in_one_word(LEN) && in_one_word(FLAGS) && in_one_word(HASH) && in_one_word(TIMESTAMP));

/// Field `f` of a header held in `words` (little-endian: word 0 is bytes
/// 0..8).
#[inline]
fn get(words: [u64; 2], f: Field) -> u64 {
    let v = words[f.lsb / 64] >> (f.lsb % 64);
    match f.width {
        64 => v,
        w => v & ((1u64 << w) - 1),
    }
}

/// The header held in `words`.
#[inline]
pub(crate) fn from_words(words: [u64; 2]) -> EntryHeader {
    EntryHeader {
        len: get(words, LEN) as u16,
        flags: get(words, FLAGS) as u16,
        hash: get(words, HASH) as u32,
        timestamp: get(words, TIMESTAMP),
    }
}

/// The bytes of the header software writes in front of a TX frame of `len`
/// bytes with FLAGS `flags` (0, or `pendulum_layout::ring::tx_flags`: the
/// card reads only the length and those); hash and timestamp 0.
#[inline]
pub(crate) fn tx_header_flags(len: u16, flags: u16) -> [u8; HEADER_BYTES] {
    let mut words = [0u64; 2];
    words[LEN.lsb / 64] |= u64::from(len) << (LEN.lsb % 64);
    words[FLAGS.lsb / 64] |= u64::from(flags) << (FLAGS.lsb % 64);
    let mut rec = [0u8; HEADER_BYTES];
    rec[..8].copy_from_slice(&words[0].to_le_bytes());
    rec[8..].copy_from_slice(&words[1].to_le_bytes());
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_agree_with_the_layouts_bytes() {
        let h = EntryHeader {
            len: 0x1234,
            flags: 0xA5C3,
            hash: 0xDEAD_BEEF,
            timestamp: 0x0123_4567_89AB_CDEF,
        };
        let rec = h.to_bytes();
        let word = |k: usize| u64::from_le_bytes(rec[8 * k..8 * k + 8].try_into().unwrap());
        assert_eq!(from_words([word(0), word(1)]), h);
        let tx = EntryHeader {
            len: 9728,
            ..EntryHeader::default()
        };
        assert_eq!(tx_header_flags(tx.len, 0), tx.to_bytes());
        let stamped = EntryHeader {
            len: 60,
            flags: pendulum_layout::ring::tx_flags::STAMP,
            ..EntryHeader::default()
        };
        assert_eq!(
            tx_header_flags(stamped.len, stamped.flags),
            stamped.to_bytes()
        );
    }
}
