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
//!
//! A **multi-word commit** ([`op::COMMIT`], [`Commit`]) is three slots posted
//! together: a header like the table above with the line's address (64-byte
//! aligned) and two masks, then the compare line, then the write line. The
//! continuation slots are plain 64-byte lines with no kind byte; the NIC knows
//! them by their place after the header. Its result is two slots, kept
//! together in the ring: the header as above, then the line as it was before
//! (on a failed compare: the current values).
//!
//! | bytes | commit header | commit result, slot 0 | slot 1 |
//! |---|---|---|---|
//! | 0 | [`KIND_VERB`] | [`KIND_RESULT`] | word 0 of the old line |
//! | 1 | [`op::COMMIT`] | [`op::COMMIT`] | |
//! | 2..4 | tag | tag | |
//! | 4..8 | byte address of the line | status in byte 4; byte 5: words that compared unequal | |
//! | 8 | compare mask: bit i compares word i | | |
//! | 9 | write mask: bit i writes word i (only if every compare held) | | |
//! | 10..64 | reserved, zero (else BAD_OPCODE) | zero | words 1..7 |

/// Byte 0 of a verb slot; a slot without it is dropped and counted.
pub const KIND_VERB: u8 = 0xA7;
/// Byte 0 of a result slot.
pub const KIND_RESULT: u8 = 0xA8;
/// Bytes of a verb or result slot.
pub const SLOT_BYTES: usize = 64;
/// Words in one line of atomic memory, the unit of a multi-word commit.
pub const LINE_WORDS: usize = 8;
/// Word operations in one [`CommitWords`] slot.
pub const WORD_OPS: usize = 5;
/// Bits of a [`CommitWords`] descriptor byte: compare, write, and the word.
pub const WORD_OP_COMPARE: u8 = 0x80;
pub const WORD_OP_WRITE: u8 = 0x40;
pub const WORD_OP_WORD: u8 = 0x07;
/// Slots of a commit verb (header, compare line, write line) and of its result.
pub const COMMIT_SLOTS: usize = 3;
pub const COMMIT_RESULT_SLOTS: usize = 2;

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
    /// Multi-word commit on one 64-byte line (three slots, [`super::Commit`]):
    /// if every word under the compare mask equals the compare line, write
    /// the words under the write mask; all or nothing.
    pub const COMMIT: u8 = 6;
    /// Multi-word commit in one slot ([`super::CommitWords`]): up to
    /// [`super::WORD_OPS`] compares and writes on words of one line, all or
    /// nothing. Fits a link payload, so it also runs remotely.
    pub const COMMIT_WORDS: u8 = 7;
    pub const NAMES: [&str; 8] = [
        "?",
        "CAS",
        "FETCH_ADD",
        "SWAP",
        "MASKED_CAS",
        "MASKED_FETCH_ADD",
        "COMMIT",
        "COMMIT_WORDS",
    ];
}

/// Result status (byte 4 of a result).
pub mod status {
    /// Executed; for CAS the swap happened.
    pub const OK: u8 = 0;
    /// CAS / masked CAS compared unequal: nothing written; the old value is returned.
    pub const COMPARE_FAILED: u8 = 1;
    /// The address is not a multiple of 8 (of 64 for a commit): nothing done.
    pub const MISALIGNED: u8 = 2;
    /// The address is beyond the atomic memory: nothing done.
    pub const OUT_OF_RANGE: u8 = 3;
    /// Unknown opcode, not a verb slot, or reserved bytes set: nothing done.
    pub const BAD_OPCODE: u8 = 4;
    /// Every status by name, for code outside Rust.
    pub const ALL: &[(&str, u8)] = &[
        ("OK", OK),
        ("COMPARE_FAILED", COMPARE_FAILED),
        ("MISALIGNED", MISALIGNED),
        ("OUT_OF_RANGE", OUT_OF_RANGE),
        ("BAD_OPCODE", BAD_OPCODE),
    ];
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

/// One multi-word commit on the line at byte address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commit {
    pub tag: u16,
    pub addr: u32,
    /// Bit i: word i of the line must equal `compare[i]`.
    pub compare_mask: u8,
    /// Bit i: word i of the line becomes `write[i]` when every compare holds.
    pub write_mask: u8,
    pub compare: [u64; LINE_WORDS],
    pub write: [u64; LINE_WORDS],
    /// Tests only: a header whose reserved bytes are not zero.
    pub reserved_set: bool,
}

/// One word operation of a [`CommitWords`]: compare the word with `value`,
/// write `value` to it (only if every compare of the commit held), or both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordOp {
    pub compare: bool,
    pub write: bool,
    /// Word of the line, 0..8.
    pub word: u8,
    pub value: u64,
}

/// A multi-word commit in one slot, on the line at byte address `addr`:
/// every compare must hold, then every write is done; all or nothing.
/// Unused operations have neither `compare` nor `write`; a word written
/// twice takes the later value.
///
/// | bytes | slot | result |
/// |---|---|---|
/// | 0..8 | kind, [`op::COMMIT_WORDS`], tag, line address | kind, op, tag, status (4), words that compared unequal (5) |
/// | 8..13 | one descriptor per operation: [`WORD_OP_COMPARE`], [`WORD_OP_WRITE`], word in bits 2..0; bits 5..3 zero | 8..48: the old value of each operation's word |
/// | 13..16 | reserved, zero | |
/// | 16..56 | the operations' values | |
/// | 56..64 | reserved, zero | |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitWords {
    pub tag: u16,
    pub addr: u32,
    pub ops: [WordOp; WORD_OPS],
    /// Tests only: reserved bytes set.
    pub reserved_set: bool,
}

impl CommitWords {
    pub fn to_slot(&self) -> [u8; SLOT_BYTES] {
        let mut s = [0u8; SLOT_BYTES];
        s[0] = KIND_VERB;
        s[1] = op::COMMIT_WORDS;
        s[2..4].copy_from_slice(&self.tag.to_le_bytes());
        s[4..8].copy_from_slice(&self.addr.to_le_bytes());
        for (j, o) in self.ops.iter().enumerate() {
            s[8 + j] = (o.compare as u8) << 7 | (o.write as u8) << 6 | (o.word & 0x3F);
            s[16 + 8 * j..24 + 8 * j].copy_from_slice(&o.value.to_le_bytes());
        }
        if self.reserved_set {
            s[13] = 1;
        }
        s
    }
}

/// One result. For a commit, `old` is 0 and `line` holds the line as it was
/// before (on a failed compare, its current values) and `differ` the words
/// that compared unequal; for single-word verbs both are zero. For a
/// [`CommitWords`], `word_olds` holds the old value of each operation's word
/// (`old` repeats the first) and `differ` the words that compared unequal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerbResult {
    pub op: u8,
    pub tag: u16,
    pub status: u8,
    pub old: u64,
    pub line: [u64; LINE_WORDS],
    pub differ: u8,
    pub word_olds: [u64; WORD_OPS],
}

/// What a host posts to the atomic unit: a single-word verb or a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    Verb(Verb),
    Commit(Commit),
    Words(CommitWords),
}

impl From<CommitWords> for Request {
    fn from(c: CommitWords) -> Self {
        Request::Words(c)
    }
}

impl From<Verb> for Request {
    fn from(v: Verb) -> Self {
        Request::Verb(v)
    }
}

impl From<Commit> for Request {
    fn from(c: Commit) -> Self {
        Request::Commit(c)
    }
}

impl Request {
    pub fn tag(&self) -> u16 {
        match self {
            Request::Verb(v) => v.tag,
            Request::Commit(c) => c.tag,
            Request::Words(c) => c.tag,
        }
    }

    /// The request's slots as posted on the verb ring.
    pub fn to_slots(&self) -> Vec<u8> {
        match self {
            Request::Verb(v) => v.to_slot().to_vec(),
            Request::Commit(c) => c.to_slots().to_vec(),
            Request::Words(c) => c.to_slot().to_vec(),
        }
    }
}

fn put_line(out: &mut [u8], line: &[u64; LINE_WORDS]) {
    for (i, w) in line.iter().enumerate() {
        out[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }
}

fn get_line(s: &[u8]) -> [u64; LINE_WORDS] {
    std::array::from_fn(|i| u64::from_le_bytes(s[8 * i..8 * i + 8].try_into().unwrap()))
}

impl Commit {
    pub fn to_slots(&self) -> [u8; COMMIT_SLOTS * SLOT_BYTES] {
        let mut s = [0u8; COMMIT_SLOTS * SLOT_BYTES];
        s[0] = KIND_VERB;
        s[1] = op::COMMIT;
        s[2..4].copy_from_slice(&self.tag.to_le_bytes());
        s[4..8].copy_from_slice(&self.addr.to_le_bytes());
        s[8] = self.compare_mask;
        s[9] = self.write_mask;
        if self.reserved_set {
            s[SLOT_BYTES - 1] = 1;
        }
        put_line(&mut s[SLOT_BYTES..], &self.compare);
        put_line(&mut s[2 * SLOT_BYTES..], &self.write);
        s
    }
}

impl Verb {
    /// Decodes a verb slot (at least its first 40 bytes, where the fields
    /// are); `None` if byte 0 is not [`KIND_VERB`].
    pub fn from_slot(s: &[u8]) -> Option<Verb> {
        if s.len() < 40 || s[0] != KIND_VERB {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(s[8 + 8 * i..16 + 8 * i].try_into().unwrap());
        Some(Verb {
            reserved_set: s[40..].iter().any(|&b| b != 0),
            op: s[1],
            tag: u16::from_le_bytes([s[2], s[3]]),
            addr: u32::from_le_bytes(s[4..8].try_into().unwrap()),
            operands: [word(0), word(1), word(2), word(3)],
        })
    }

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
    /// Decodes the result at the start of `s` (one slot, or two for a
    /// commit) and says how many slots it took; `None` if `s` does not start
    /// with a whole result.
    pub fn from_slots(s: &[u8]) -> Option<(VerbResult, usize)> {
        if s.len() < SLOT_BYTES || s[0] != KIND_RESULT {
            return None;
        }
        let mut r = VerbResult {
            op: s[1],
            tag: u16::from_le_bytes([s[2], s[3]]),
            status: s[4],
            old: u64::from_le_bytes(s[8..16].try_into().unwrap()),
            ..VerbResult::default()
        };
        if r.op == op::COMMIT_WORDS {
            r.differ = s[5];
            r.word_olds = std::array::from_fn(|j| {
                u64::from_le_bytes(s[8 + 8 * j..16 + 8 * j].try_into().unwrap())
            });
        }
        if r.op != op::COMMIT {
            return Some((r, 1));
        }
        if s.len() < COMMIT_RESULT_SLOTS * SLOT_BYTES {
            return None;
        }
        r.differ = s[5];
        r.line = get_line(&s[SLOT_BYTES..]);
        Some((r, COMMIT_RESULT_SLOTS))
    }

    /// Decodes a one-slot result; `None` if it is not one.
    pub fn from_slot(s: &[u8]) -> Option<VerbResult> {
        VerbResult::from_slots(s)
            .filter(|&(_, n)| n == 1)
            .map(|(r, _)| r)
    }
}

/// Adds in independent fields: `boundary` has a bit set at each field's most
/// significant bit. Clearing those bits first keeps every carry inside its
/// field; the field's top bit is then fixed up by xor.
pub fn masked_add(old: u64, add: u64, boundary: u64) -> u64 {
    ((old & !boundary).wrapping_add(add & !boundary)) ^ ((old ^ add) & boundary)
}

/// The line a commit at `addr` works on, or the status that refuses it
/// (checked in the order the unit checks: reserved bytes, alignment, range).
fn commit_line(mem: &mut [u64], addr: u32, bad: bool) -> Result<&mut [u64], u8> {
    if bad {
        return Err(status::BAD_OPCODE);
    }
    if addr % SLOT_BYTES as u32 != 0 {
        return Err(status::MISALIGNED);
    }
    let first = addr as usize / 8;
    mem.get_mut(first..first + LINE_WORDS)
        .ok_or(status::OUT_OF_RANGE)
}

/// The reference semantics of a commit on `mem` (64-bit words).
pub fn execute_commit(mem: &mut [u64], c: &Commit) -> VerbResult {
    let r = |status| VerbResult {
        op: op::COMMIT,
        tag: c.tag,
        status,
        ..VerbResult::default()
    };
    let words = match commit_line(mem, c.addr, c.reserved_set) {
        Ok(w) => w,
        Err(st) => return r(st),
    };
    let old: [u64; LINE_WORDS] = words.try_into().unwrap();
    let differ = (0..LINE_WORDS)
        .filter(|&i| c.compare_mask >> i & 1 == 1 && old[i] != c.compare[i])
        .fold(0u8, |m, i| m | 1 << i);
    if differ == 0 {
        for (i, w) in words.iter_mut().enumerate() {
            if c.write_mask >> i & 1 == 1 {
                *w = c.write[i];
            }
        }
    }
    VerbResult {
        line: old,
        differ,
        ..r(if differ == 0 {
            status::OK
        } else {
            status::COMPARE_FAILED
        })
    }
}

/// The reference semantics of a one-slot commit on `mem` (64-bit words).
pub fn execute_words(mem: &mut [u64], c: &CommitWords) -> VerbResult {
    let r = |status| VerbResult {
        op: op::COMMIT_WORDS,
        tag: c.tag,
        status,
        ..VerbResult::default()
    };
    let bad = c.reserved_set || c.ops.iter().any(|o| o.word & !WORD_OP_WORD != 0);
    let words = match commit_line(mem, c.addr, bad) {
        Ok(w) => w,
        Err(st) => return r(st),
    };
    let old: [u64; LINE_WORDS] = words.try_into().unwrap();
    let differ = c
        .ops
        .iter()
        .filter(|o| o.compare && old[o.word as usize] != o.value)
        .fold(0u8, |m, o| m | 1 << o.word);
    if differ == 0 {
        for o in c.ops.iter().filter(|o| o.write) {
            words[o.word as usize] = o.value;
        }
    }
    let word_olds: [u64; WORD_OPS] = std::array::from_fn(|j| {
        if c.ops[j].compare || c.ops[j].write {
            old[c.ops[j].word as usize]
        } else {
            0
        }
    });
    VerbResult {
        differ,
        word_olds,
        old: word_olds[0],
        ..r(if differ == 0 {
            status::OK
        } else {
            status::COMPARE_FAILED
        })
    }
}

/// The reference semantics of any request.
pub fn execute_request(mem: &mut [u64], q: &Request) -> VerbResult {
    match q {
        Request::Verb(v) => execute(mem, v),
        Request::Commit(c) => execute_commit(mem, c),
        Request::Words(c) => execute_words(mem, c),
    }
}

/// The reference semantics: executes `v` on `mem` (64-bit words). A verb
/// slot that names COMMIT is refused here: a commit is three slots.
pub fn execute(mem: &mut [u64], v: &Verb) -> VerbResult {
    let r = |status, old| VerbResult {
        op: v.op,
        tag: v.tag,
        status,
        old,
        ..VerbResult::default()
    };
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
        assert_eq!(
            masked_add(0x0000_0001_FFFF_FFFF, 1, b),
            0x0000_0001_0000_0000
        );
        assert_eq!(masked_add(5, 7, 0), 12);
        // Eight byte fields.
        let b = 0x8080_8080_8080_8080;
        assert_eq!(
            masked_add(0x01FF_0000_0000_00FF, 0x0101_0000_0000_0001, b),
            0x0200_0000_0000_0000
        );
    }

    #[test]
    fn verbs_follow_their_semantics() {
        let mut m = vec![0u64; 4];
        let v = |op, addr, operands| Verb {
            op,
            tag: 7,
            addr,
            operands,
            reserved_set: false,
        };
        assert_eq!(
            execute(&mut m, &v(op::CAS, 8, [0, 9, 0, 0])).status,
            status::OK
        );
        assert_eq!(
            execute(&mut m, &v(op::CAS, 8, [0, 5, 0, 0])),
            VerbResult {
                op: op::CAS,
                tag: 7,
                status: status::COMPARE_FAILED,
                old: 9,
                ..VerbResult::default()
            }
        );
        assert_eq!(execute(&mut m, &v(op::FETCH_ADD, 8, [3, 0, 0, 0])).old, 9);
        assert_eq!(execute(&mut m, &v(op::SWAP, 8, [1, 0, 0, 0])).old, 12);
        assert_eq!(
            execute(&mut m, &v(op::MASKED_CAS, 8, [0xF1, 0xAB00, 0x0F, 0xFF00])).status,
            status::OK
        );
        assert_eq!(m[1], 0xAB01);
        assert_eq!(
            execute(&mut m, &v(op::SWAP, 12, [1, 0, 0, 0])).status,
            status::MISALIGNED
        );
        assert_eq!(
            execute(&mut m, &v(op::SWAP, 32, [1, 0, 0, 0])).status,
            status::OUT_OF_RANGE
        );
        assert_eq!(
            execute(&mut m, &v(9, 8, [1, 0, 0, 0])).status,
            status::BAD_OPCODE
        );
        assert_eq!(m, vec![0, 0xAB01, 0, 0]);
    }

    #[test]
    fn slots_round_trip() {
        let v = Verb {
            op: op::MASKED_CAS,
            tag: 0xBEEF,
            addr: 0x1238,
            operands: [1, 2, 3, 4],
            reserved_set: false,
        };
        let s = v.to_slot();
        assert_eq!(s[0], KIND_VERB);
        let mut r = [0u8; 64];
        r[0] = KIND_RESULT;
        r[1] = op::CAS;
        r[2..4].copy_from_slice(&5u16.to_le_bytes());
        r[4] = status::COMPARE_FAILED;
        r[8..16].copy_from_slice(&77u64.to_le_bytes());
        assert_eq!(
            VerbResult::from_slot(&r),
            Some(VerbResult {
                op: op::CAS,
                tag: 5,
                status: status::COMPARE_FAILED,
                old: 77,
                ..VerbResult::default()
            })
        );
        assert_eq!(VerbResult::from_slot(&s), None);
    }

    #[test]
    fn commit_is_all_or_nothing() {
        let mut m: Vec<u64> = (0..16).collect();
        let mut c = Commit {
            tag: 3,
            addr: 64,
            compare_mask: 0b101,
            write_mask: 0b1100_0001,
            compare: [8, 0, 10, 0, 0, 0, 0, 0],
            write: [100, 101, 102, 103, 104, 105, 106, 107],
            reserved_set: false,
        };
        let r = execute_commit(&mut m, &c);
        assert_eq!(
            (r.status, r.differ, r.line),
            (status::OK, 0, [8, 9, 10, 11, 12, 13, 14, 15])
        );
        assert_eq!(&m[8..], &[100, 9, 10, 11, 12, 13, 106, 107]);
        // Word 2 still compares, word 0 no longer: nothing is written.
        c.write_mask = 0xFF;
        let r = execute_commit(&mut m, &c);
        assert_eq!((r.status, r.differ), (status::COMPARE_FAILED, 0b001));
        assert_eq!(r.line, [100, 9, 10, 11, 12, 13, 106, 107]);
        assert_eq!(&m[8..], &[100, 9, 10, 11, 12, 13, 106, 107]);
        assert_eq!(
            execute_commit(&mut m, &Commit { addr: 72, ..c }).status,
            status::MISALIGNED
        );
        assert_eq!(
            execute_commit(&mut m, &Commit { addr: 128, ..c }).status,
            status::OUT_OF_RANGE
        );
        assert_eq!(
            execute_commit(
                &mut m,
                &Commit {
                    reserved_set: true,
                    ..c
                }
            )
            .status,
            status::BAD_OPCODE
        );
        // A bare COMMIT opcode in a one-slot verb is refused.
        let v = Verb {
            op: op::COMMIT,
            tag: 0,
            addr: 0,
            operands: [0; 4],
            reserved_set: false,
        };
        assert_eq!(execute(&mut m, &v).status, status::BAD_OPCODE);
    }

    #[test]
    fn one_slot_commits_compare_then_write() {
        let mut m: Vec<u64> = (0..16).collect();
        let op = |compare, write, word, value| WordOp {
            compare,
            write,
            word,
            value,
        };
        let mut c = CommitWords {
            tag: 4,
            addr: 64,
            ops: [
                op(true, false, 1, 9),
                op(false, true, 1, 100),
                op(false, true, 7, 107),
                op(false, true, 7, 108),
                WordOp::default(),
            ],
            reserved_set: false,
        };
        let r = execute_words(&mut m, &c);
        assert_eq!(
            (r.status, r.differ, r.word_olds, r.old),
            (status::OK, 0, [9, 9, 15, 15, 0], 9)
        );
        assert_eq!(
            (m[9], m[15]),
            (100, 108),
            "a word written twice takes the later value"
        );
        let r = execute_words(&mut m, &c);
        assert_eq!((r.status, r.differ), (status::COMPARE_FAILED, 0b10));
        assert_eq!((m[9], m[15]), (100, 108));
        c.ops[4] = op(false, false, 9, 0);
        assert_eq!(
            execute_words(&mut m, &c).status,
            status::BAD_OPCODE,
            "bits 5..3 of a descriptor set"
        );
        let s = CommitWords {
            ops: [op(true, true, 3, 5); 5],
            ..c
        }
        .to_slot();
        assert_eq!((s[1], s[8], s[16]), (op::COMMIT_WORDS, 0xC3, 5));
        let mut r = [0u8; 64];
        r[0] = KIND_RESULT;
        r[1] = op::COMMIT_WORDS;
        r[5] = 3;
        r[16..24].copy_from_slice(&7u64.to_le_bytes());
        let (got, n) = VerbResult::from_slots(&r).unwrap();
        assert_eq!((n, got.differ, got.word_olds[1]), (1, 3, 7));
    }

    #[test]
    fn commit_slots_round_trip() {
        let c = Commit {
            tag: 9,
            addr: 0x40,
            compare_mask: 0x0F,
            write_mask: 0xF0,
            compare: [1, 2, 3, 4, 5, 6, 7, 8],
            write: [9; 8],
            reserved_set: false,
        };
        let s = c.to_slots();
        assert_eq!(
            (s[0], s[1], s[8], s[9]),
            (KIND_VERB, op::COMMIT, 0x0F, 0xF0)
        );
        assert_eq!(get_line(&s[64..]), c.compare);
        assert_eq!(get_line(&s[128..]), c.write);
        let mut r = [0u8; 128];
        r[0] = KIND_RESULT;
        r[1] = op::COMMIT;
        r[4] = status::COMPARE_FAILED;
        r[5] = 0x12;
        put_line(&mut r[64..], &[7; 8]);
        let (got, n) = VerbResult::from_slots(&r).unwrap();
        assert_eq!(
            (n, got.differ, got.line, got.status),
            (2, 0x12, [7; 8], status::COMPARE_FAILED)
        );
        assert_eq!(
            VerbResult::from_slots(&r[..64]),
            None,
            "half a commit result is not a result"
        );
    }
}
