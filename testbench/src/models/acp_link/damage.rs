//! Damage behind the check word: fitting the check word by linearity, and
//! the selectors and mutators tests aim damage with.

use super::CHECK_BYTES;
use pendulum_layout::acp::{crc32c, BYTE_CHECK, BYTE_OPCODE, RECORD_BYTES};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::ops::Range;

/// The check word stored in a record (bytes `BYTE_CHECK..+4`, little-endian).
pub fn check_of(rec: &[u8; RECORD_BYTES]) -> u32 {
    let mut w = [0u8; CHECK_BYTES];
    w.copy_from_slice(&rec[BYTE_CHECK..BYTE_CHECK + CHECK_BYTES]);
    u32::from_le_bytes(w)
}

/// Stores `check` as the record's check word.
pub fn set_check(rec: &mut [u8; RECORD_BYTES], check: u32) {
    rec[BYTE_CHECK..BYTE_CHECK + CHECK_BYTES].copy_from_slice(&check.to_le_bytes());
}

/// CRC-32C of the bytes the check word covers: every byte but the check
/// word's own (bytes 0..4 and 8..64).
pub fn covered_crc(rec: &[u8; RECORD_BYTES]) -> u32 {
    let mut covered = [0u8; RECORD_BYTES - CHECK_BYTES];
    covered[..BYTE_CHECK].copy_from_slice(&rec[..BYTE_CHECK]);
    covered[BYTE_CHECK..].copy_from_slice(&rec[BYTE_CHECK + CHECK_BYTES..]);
    crc32c(&covered)
}

/// Fits `new`'s check word to its damage by linearity: `new` gets `old`'s
/// check word XOR the CRC-32C of the covered bytes of `old` and of `new`.
/// If `old`'s check word was that CRC XOR any key term, `new`'s is its own
/// CRC XOR the same key term, so `new` passes exactly when `old` did, under
/// any key. Whatever `new` held in its check bytes is overwritten.
pub fn refit_check(old: &[u8; RECORD_BYTES], new: &mut [u8; RECORD_BYTES]) {
    set_check(new, check_of(old) ^ covered_crc(old) ^ covered_crc(new));
}

/// Picks records for [`AcpLinkModel::damage_next`](super::AcpLinkModel::damage_next).
pub type Selector = Box<dyn FnMut(&[u8; RECORD_BYTES]) -> bool>;
/// Changes a picked record for [`AcpLinkModel::damage_next`](super::AcpLinkModel::damage_next), drawing any
/// randomness from the model's seeded stream.
pub type Mutator = Box<dyn FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng)>;

/// Selects every record.
pub fn select_all() -> impl FnMut(&[u8; RECORD_BYTES]) -> bool + 'static {
    |_| true
}

/// Selects records whose opcode byte ([`BYTE_OPCODE`]) is `opcode`.
pub fn select_opcode(opcode: u8) -> impl FnMut(&[u8; RECORD_BYTES]) -> bool + 'static {
    move |r| r[BYTE_OPCODE] == opcode
}

/// Panics unless `range` lies inside a record and outside its check word
/// (which [`refit_check`] overwrites after every mutation).
fn assert_damageable(range: &Range<usize>) {
    let check = BYTE_CHECK..BYTE_CHECK + CHECK_BYTES;
    assert!(
        range.start < range.end && range.end <= RECORD_BYTES,
        "byte range {range:?} is empty or outside a {RECORD_BYTES}-byte record"
    );
    assert!(
        range.end <= check.start || range.start >= check.end,
        "byte range {range:?} overlaps the check word {check:?}, which is refitted after damage"
    );
}

/// Replaces bytes `range` with `value` (as long as the range).
pub fn set_bytes(
    range: Range<usize>,
    value: &[u8],
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    assert_damageable(&range);
    assert_eq!(
        range.len(),
        value.len(),
        "value must fill the range {range:?}"
    );
    let value = value.to_vec();
    move |r, _| r[range.clone()].copy_from_slice(&value)
}

/// XORs bytes `range` with `mask` (as long as the range).
pub fn xor_bytes(
    range: Range<usize>,
    mask: &[u8],
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    assert_damageable(&range);
    assert_eq!(
        range.len(),
        mask.len(),
        "mask must fill the range {range:?}"
    );
    let mask = mask.to_vec();
    move |r, _| {
        for (b, m) in r[range.clone()].iter_mut().zip(&mask) {
            *b ^= m;
        }
    }
}

/// XORs bytes `range` with a random mask that is not all zero, so the field
/// always changes.
pub fn xor_bytes_random(
    range: Range<usize>,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    assert_damageable(&range);
    move |r, rng| {
        let mut mask = vec![0u8; range.len()];
        while mask.iter().all(|&m| m == 0) {
            rng.fill(&mut mask[..]);
        }
        for (b, m) in r[range.clone()].iter_mut().zip(&mask) {
            *b ^= m;
        }
    }
}

/// XORs bytes `range` (at least 5) with a random CRC-32C codeword: random
/// bytes, then the linear CRC-32C of them, little-endian. The record's
/// check word (CRC-32C) cannot see such an error, with or without
/// [`refit_check`], as a real undetected error on the wire: it leaves the
/// CRC-32C of the covered bytes unchanged (asserted).
pub fn xor_crc32c_codeword(
    range: Range<usize>,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    assert_damageable(&range);
    assert!(
        range.len() > 4,
        "a codeword needs more than its 4 CRC bytes"
    );
    move |r, rng| {
        let n = range.len();
        let zeros = vec![0u8; n];
        let linear = |b: &[u8]| crc32c(b) ^ crc32c(&zeros[..b.len()]);
        let mut e = vec![0u8; n];
        while e[..n - 4].iter().all(|&m| m == 0) {
            rng.fill(&mut e[..n - 4]);
        }
        let c = linear(&e[..n - 4]);
        e[n - 4..].copy_from_slice(&c.to_le_bytes());
        let before = covered_crc(r);
        for (b, m) in r[range.clone()].iter_mut().zip(&e) {
            *b ^= m;
        }
        assert_eq!(covered_crc(r), before, "a CRC-32C codeword");
    }
}

/// Sets byte `pos` (for example [`BYTE_OPCODE`], [`BYTE_CHANNEL`](pendulum_layout::acp::BYTE_CHANNEL),
/// [`BYTE_STATE`](pendulum_layout::acp::BYTE_STATE)) to `value`.
pub fn set_byte(
    pos: usize,
    value: u8,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    set_bytes(pos..pos + 1, &[value])
}

/// XORs byte `pos` with `mask` (for example one bit of [`BYTE_STATE`](pendulum_layout::acp::BYTE_STATE)).
pub fn xor_byte(
    pos: usize,
    mask: u8,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    xor_bytes(pos..pos + 1, &[mask])
}

/// XORs byte `pos` with a random non-zero value.
pub fn xor_byte_random(
    pos: usize,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    xor_bytes_random(pos..pos + 1)
}
