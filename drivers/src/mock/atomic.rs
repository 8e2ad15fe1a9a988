//! The fake card's atomic unit ([`FakeCard::with_atomics`]): it runs the
//! entries of a TX pipe bound to it (`engine.rs` reads them) with the
//! layout's reference semantics (`pendulum_layout::atomic`), and writes
//! each result as one entry of ATOMIC_RX_PIPE's ring.
//!
//! An entry of 64 bytes whose byte 0 is KIND_VERB is a verb (or a one-slot
//! COMMIT_WORDS), one of 192 bytes with KIND_VERB and COMMIT a multi-word
//! commit (its three slots); anything else is refused, so dropped and
//! counted. A result is one entry of 64 bytes, a commit's of 128 (its two
//! slots); flags and hash 0, stamped like any entry.

use super::FakeCard;
use pendulum_layout::atomic::{
    execute_request, op, Commit, CommitWords, Request, Verb, VerbResult, WordOp, KIND_RESULT,
    KIND_VERB, LINE_WORDS, SLOT_BYTES, WORD_OPS, WORD_OP_COMPARE, WORD_OP_WRITE,
};
use pendulum_layout::global;
use pendulum_layout::ring::EntryHeader;

impl FakeCard {
    /// The atomic unit takes one TX entry: runs it and writes its result,
    /// or refuses it (false) when it is not a request.
    pub(super) fn atomic_request(&mut self, entry: &[u8]) -> bool {
        let Some(q) = request(entry) else {
            return false;
        };
        let Some(mem) = self.atomic_mem.as_mut() else {
            return false;
        };
        let r = execute_request(mem, &q);
        let body = result_entry(&r);
        let rx = (self.last_write(global::ATOMIC_RX_PIPE.offset) & global::RX_PIPE_MASK) as usize;
        let header = EntryHeader {
            len: body.len() as u16,
            ..EntryHeader::default()
        };
        // A result that finds no room is dropped and counted, as a frame.
        self.rx_entry(rx, header, &body);
        true
    }
}

/// The request a TX entry holds, if it is one.
fn request(entry: &[u8]) -> Option<Request> {
    if entry.first() != Some(&KIND_VERB) {
        return None;
    }
    match (entry.len(), entry[1]) {
        (SLOT_BYTES, op::COMMIT_WORDS) => Some(Request::Words(commit_words(entry))),
        (SLOT_BYTES, _) => Verb::from_slot(entry).map(Request::Verb),
        (n, op::COMMIT) if n == 3 * SLOT_BYTES => Some(Request::Commit(commit(entry))),
        _ => None,
    }
}

fn word(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"))
}

fn line(s: &[u8]) -> [u64; LINE_WORDS] {
    std::array::from_fn(|i| word(s, 8 * i))
}

/// A commit's three slots (`Commit::to_slots`, read back).
fn commit(s: &[u8]) -> Commit {
    Commit {
        tag: u16::from_le_bytes([s[2], s[3]]),
        addr: u32::from_le_bytes(s[4..8].try_into().expect("4 bytes")),
        compare_mask: s[8],
        write_mask: s[9],
        compare: line(&s[SLOT_BYTES..]),
        write: line(&s[2 * SLOT_BYTES..]),
        reserved_set: s[10..SLOT_BYTES].iter().any(|&b| b != 0),
    }
}

/// A one-slot commit (`CommitWords::to_slot`, read back).
fn commit_words(s: &[u8]) -> CommitWords {
    let ops: [WordOp; WORD_OPS] = std::array::from_fn(|j| WordOp {
        compare: s[8 + j] & WORD_OP_COMPARE != 0,
        write: s[8 + j] & WORD_OP_WRITE != 0,
        word: s[8 + j] & 0x3F,
        value: word(s, 16 + 8 * j),
    });
    let reserved = s[8 + WORD_OPS..16].iter().chain(&s[16 + 8 * WORD_OPS..]);
    CommitWords {
        tag: u16::from_le_bytes([s[2], s[3]]),
        addr: u32::from_le_bytes(s[4..8].try_into().expect("4 bytes")),
        ops,
        reserved_set: reserved.copied().any(|b| b != 0),
    }
}

/// The result entry's bytes (`VerbResult::from_slots` reads them back).
fn result_entry(r: &VerbResult) -> Vec<u8> {
    let slots = if r.op == op::COMMIT { 2 } else { 1 };
    let mut s = vec![0u8; slots * SLOT_BYTES];
    s[0] = KIND_RESULT;
    s[1] = r.op;
    s[2..4].copy_from_slice(&r.tag.to_le_bytes());
    s[4] = r.status;
    let put = |s: &mut [u8], at: usize, w: u64| s[at..at + 8].copy_from_slice(&w.to_le_bytes());
    match r.op {
        op::COMMIT => {
            s[5] = r.differ;
            for (i, &w) in r.line.iter().enumerate() {
                put(&mut s, SLOT_BYTES + 8 * i, w);
            }
        }
        op::COMMIT_WORDS => {
            s[5] = r.differ;
            for (j, &w) in r.word_olds.iter().enumerate() {
                put(&mut s, 8 + 8 * j, w);
            }
        }
        _ => put(&mut s, 8, r.old),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::atomic::{execute_commit, execute_words, status};

    #[test]
    fn requests_and_results_read_back_as_the_layout_writes_them() {
        let c = Commit {
            tag: 7,
            addr: 0x40,
            compare_mask: 0b101,
            write_mask: 0b110,
            compare: [1, 2, 3, 4, 5, 6, 7, 8],
            write: [9; LINE_WORDS],
            reserved_set: false,
        };
        assert_eq!(request(&c.to_slots()), Some(Request::Commit(c)));
        let w = CommitWords {
            tag: 8,
            addr: 0x80,
            ops: [WordOp {
                compare: true,
                write: true,
                word: 3,
                value: 42,
            }; WORD_OPS],
            reserved_set: false,
        };
        assert_eq!(request(&w.to_slot()), Some(Request::Words(w)));
        // Not a request: another kind, a commit cut to two slots.
        assert_eq!(request(&[0u8; SLOT_BYTES]), None);
        assert_eq!(request(&c.to_slots()[..2 * SLOT_BYTES]), None);
        let mut mem = vec![5u64; 64];
        for r in [execute_commit(&mut mem, &c), execute_words(&mut mem, &w)] {
            let bytes = result_entry(&r);
            let (back, slots) = VerbResult::from_slots(&bytes).unwrap();
            assert_eq!((back, slots * SLOT_BYTES), (r, bytes.len()));
        }
        assert_eq!(execute_commit(&mut mem, &c).status, status::COMPARE_FAILED);
    }
}
