//! In-NIC atomic verbs: the verb and result slots, the opcodes and the
//! reference semantics (`execute`), defined once for the HDL, the driver and
//! the tests.
//!
//! A verb is one 64-byte slot posted on a TX pipe bound to the atomic unit
//! (TX_CTRL bit 2); its result is one 64-byte slot in ATOMIC_RX_PIPE. Words
//! are 8 bytes, little-endian, naturally aligned.
//!
//! | bytes | verb | result |
//! |---|---|---|
//! | 0 | [`KIND_VERB`] | [`KIND_RESULT`] |
//! | 1 | opcode ([`op`]) | opcode |
//! | 2..4 | tag (software's, returned) | tag |
//! | 4..8 | byte address in atomic memory | status ([`status`]) in byte 4 |
//! | 8..16 | operand 0 | the old value (0 unless status is OK or COMPARE_FAILED) |
//! | 16..24 | operand 1 | |
//! | 24..32 | operand 2 | |
//! | 32..40 | operand 3 | |
//! | 40..64 | reserved, zero (else BAD_OPCODE) | |

/// Byte 0 of a verb slot; a slot without it is dropped and counted.
pub const KIND_VERB: u8 = 0xA7;
/// Byte 0 of a result slot.
pub const KIND_RESULT: u8 = 0xA8;
/// Bytes of a verb or result slot.
pub const SLOT_BYTES: usize = 64;

/// Opcodes and their operands.
pub mod op {
    /// Compare-and-swap: if old == op0, write op1.
    pub const CAS: u8 = 1;
    /// Fetch-and-add: write old + op0 (wrapping).
    pub const FETCH_ADD: u8 = 2;
    /// Swap: write op0.
    pub const SWAP: u8 = 3;
    /// Masked compare-and-swap: if (old & op2) == (op0 & op2), write
    /// (old & !op3) | (op1 & op3). op2 = compare mask, op3 = swap mask.
    pub const MASKED_CAS: u8 = 4;
    /// Masked fetch-and-add: add op0 to old in independent fields; op1 has
    /// a bit set at the most significant bit of each field (no carry leaves
    /// a field; 0 = one 64-bit field).
    pub const MASKED_FETCH_ADD: u8 = 5;
    pub const NAMES: [&str; 6] = ["?", "CAS", "FETCH_ADD", "SWAP", "MASKED_CAS", "MASKED_FETCH_ADD"];
}

/// Result status (byte 4 of a result).
pub mod status {
    /// Executed; for CAS the swap happened.
    pub const OK: u8 = 0;
    /// CAS / masked CAS compared unequal: nothing written; the old value is returned.
    pub const COMPARE_FAILED: u8 = 1;
    /// The address is not a multiple of 8: nothing done.
    pub const MISALIGNED: u8 = 2;
    /// The address is beyond the atomic memory: nothing done.
    pub const OUT_OF_RANGE: u8 = 3;
    /// Unknown opcode, not a verb slot, or reserved bytes set: nothing done.
    pub const BAD_OPCODE: u8 = 4;
}

/// One verb. `reserved_set` models a slot whose reserved bytes are not
/// zero (only tests set it: the card must refuse such a verb).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verb {
    pub reserved_set: bool,
    pub op: u8,
    pub tag: u16,
    pub addr: u32,
    pub operands: [u64; 4],
}

/// One result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerbResult {
    pub op: u8,
    pub tag: u16,
    pub status: u8,
    pub old: u64,
}

impl Verb {
    pub fn to_slot(&self) -> [u8; SLOT_BYTES] {
        let mut s = [0u8; SLOT_BYTES];
        s[0] = KIND_VERB;
        s[1] = self.op;
        s[2..4].copy_from_slice(&self.tag.to_le_bytes());
        s[4..8].copy_from_slice(&self.addr.to_le_bytes());
        for (i, w) in self.operands.iter().enumerate() {
            s[8 + 8 * i..16 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        if self.reserved_set {
            s[SLOT_BYTES - 1] = 1;
        }
        s
    }
}

impl VerbResult {
    /// Decodes a result slot; `None` if it is not one.
    pub fn from_slot(s: &[u8]) -> Option<VerbResult> {
        if s.len() < SLOT_BYTES || s[0] != KIND_RESULT {
            return None;
        }
        Some(VerbResult {
            op: s[1],
            tag: u16::from_le_bytes([s[2], s[3]]),
            status: s[4],
            old: u64::from_le_bytes(s[8..16].try_into().unwrap()),
        })
    }
}

/// Adds in independent fields: `boundary` has a bit set at each field's most
/// significant bit. Clearing those bits first keeps every carry inside its
/// field; the field's top bit is then fixed up by xor.
pub fn masked_add(old: u64, add: u64, boundary: u64) -> u64 {
    ((old & !boundary).wrapping_add(add & !boundary)) ^ ((old ^ add) & boundary)
}

/// The reference semantics: executes `v` on `mem` (64-bit words).
pub fn execute(mem: &mut [u64], v: &Verb) -> VerbResult {
    let r = |status, old| VerbResult { op: v.op, tag: v.tag, status, old };
    if !(op::CAS..=op::MASKED_FETCH_ADD).contains(&v.op) || v.reserved_set {
        return r(status::BAD_OPCODE, 0);
    }
    if v.addr % 8 != 0 {
        return r(status::MISALIGNED, 0);
    }
    let Some(word) = mem.get_mut(v.addr as usize / 8) else {
        return r(status::OUT_OF_RANGE, 0);
    };
    let old = *word;
    let [o0, o1, o2, o3] = v.operands;
    let (new, st) = match v.op {
        op::CAS if old == o0 => (o1, status::OK),
        op::CAS => (old, status::COMPARE_FAILED),
        op::FETCH_ADD => (old.wrapping_add(o0), status::OK),
        op::SWAP => (o0, status::OK),
        op::MASKED_CAS if old & o2 == o0 & o2 => ((old & !o3) | (o1 & o3), status::OK),
        op::MASKED_CAS => (old, status::COMPARE_FAILED),
        _ => (masked_add(old, o0, o1), status::OK),
    };
    *word = new;
    r(st, old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_add_keeps_carries_inside_fields() {
        // Two 32-bit fields: the low one overflows without touching the high one.
        let b = 1 << 63 | 1 << 31;
        assert_eq!(masked_add(0x0000_0001_FFFF_FFFF, 1, b), 0x0000_0001_0000_0000);
        assert_eq!(masked_add(5, 7, 0), 12);
        // Eight byte fields.
        let b = 0x8080_8080_8080_8080;
        assert_eq!(masked_add(0x01FF_0000_0000_00FF, 0x0101_0000_0000_0001, b), 0x0200_0000_0000_0000);
    }

    #[test]
    fn verbs_follow_their_semantics() {
        let mut m = vec![0u64; 4];
        let v = |op, addr, operands| Verb { op, tag: 7, addr, operands, reserved_set: false };
        assert_eq!(execute(&mut m, &v(op::CAS, 8, [0, 9, 0, 0])).status, status::OK);
        assert_eq!(execute(&mut m, &v(op::CAS, 8, [0, 5, 0, 0])), VerbResult { op: op::CAS, tag: 7, status: status::COMPARE_FAILED, old: 9 });
        assert_eq!(execute(&mut m, &v(op::FETCH_ADD, 8, [3, 0, 0, 0])).old, 9);
        assert_eq!(execute(&mut m, &v(op::SWAP, 8, [1, 0, 0, 0])).old, 12);
        assert_eq!(execute(&mut m, &v(op::MASKED_CAS, 8, [0xF1, 0xAB00, 0x0F, 0xFF00])).status, status::OK);
        assert_eq!(m[1], 0xAB01);
        assert_eq!(execute(&mut m, &v(op::SWAP, 12, [1, 0, 0, 0])).status, status::MISALIGNED);
        assert_eq!(execute(&mut m, &v(op::SWAP, 32, [1, 0, 0, 0])).status, status::OUT_OF_RANGE);
        assert_eq!(execute(&mut m, &v(9, 8, [1, 0, 0, 0])).status, status::BAD_OPCODE);
        assert_eq!(m, vec![0, 0xAB01, 0, 0]);
    }

    #[test]
    fn slots_round_trip() {
        let v = Verb { op: op::MASKED_CAS, tag: 0xBEEF, addr: 0x1238, operands: [1, 2, 3, 4], reserved_set: false };
        let s = v.to_slot();
        assert_eq!(s[0], KIND_VERB);
        let mut r = [0u8; 64];
        r[0] = KIND_RESULT;
        r[1] = op::CAS;
        r[2..4].copy_from_slice(&5u16.to_le_bytes());
        r[4] = status::COMPARE_FAILED;
        r[8..16].copy_from_slice(&77u64.to_le_bytes());
        assert_eq!(VerbResult::from_slot(&r), Some(VerbResult { op: op::CAS, tag: 5, status: status::COMPARE_FAILED, old: 77 }));
        assert_eq!(VerbResult::from_slot(&s), None);
    }
}
