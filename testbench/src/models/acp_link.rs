//! The physical ACP link between two NICs, A and B: one 64-byte record slot
//! per cycle each way, a fixed one-way latency, and seeded faults (bit
//! corruption the check word catches, damage it cannot catch, lost records,
//! and cuts that drop the signal on both sides).
//!
//! Damage behind the check word is fitted by linearity ([`refit_check`]):
//! the new check word is the old one XOR the CRC-32C of the covered bytes
//! before and after the damage, so a record whose check word also mixes in
//! a key term still passes under that key.

use pendulum_layout::acp::{
    crc32c, BYTE_CHECK, BYTE_OPCODE, OP_OFFER, OP_OFFER_VERB, PAYLOAD_OFFSET, RECORD_BYTES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Bytes of the check word (record bytes `BYTE_CHECK..BYTE_CHECK + 4`,
/// little-endian).
pub const CHECK_BYTES: usize = 4;

/// One end of the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Side {
    A,
    B,
}

impl Side {
    /// Both ends, A first.
    pub const BOTH: [Side; 2] = [Side::A, Side::B];

    /// The other end.
    pub fn peer(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// 0 for A, 1 for B: the index of this side in per-side arrays.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
}

/// What the link does to records. Rates are per record.
#[derive(Clone, Debug)]
pub struct LinkFaults {
    /// One-way latency, cycles (at least 1).
    pub latency: u32,
    /// Flip 1..=3 random bits: the check word then fails.
    pub corrupt_rate: f64,
    /// Change payload bytes of an OFFER record and fit its check word by
    /// linearity: damage the check cannot see (it happened before the check
    /// was computed or after it was verified). Only the digest echo can
    /// catch it.
    pub undetected_rate: f64,
    /// The record never arrives (an empty slot).
    pub loss_rate: f64,
    /// Mean cycles between cuts (geometric), or no cuts.
    pub cut_every: Option<u64>,
    /// How long a cut lasts: no signal on either side, and everything sent
    /// meanwhile or in flight is lost.
    pub cut_cycles: u64,
    pub seed: u64,
}

impl Default for LinkFaults {
    fn default() -> Self {
        Self {
            latency: 100,
            corrupt_rate: 0.0,
            undetected_rate: 0.0,
            loss_rate: 0.0,
            cut_every: None,
            cut_cycles: 0,
            seed: 1,
        }
    }
}

/// What each side receives in one cycle.
#[derive(Clone, Debug)]
pub struct LinkOutput {
    pub a_rx: Option<[u8; RECORD_BYTES]>,
    pub b_rx: Option<[u8; RECORD_BYTES]>,
    /// Signal present (the physical layer's link-up), per side.
    pub a_up: bool,
    pub b_up: bool,
}

/// Counts of what the link did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LinkStats {
    pub records: u64,
    pub corrupted: u64,
    pub undetected: u64,
    pub lost: u64,
    pub cuts: u64,
    pub cut_cycles: u64,
}

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

/// The link model. Deterministic for a given seed and input sequence.
pub struct AcpLinkModel {
    faults: LinkFaults,
    rng: ChaCha8Rng,
    /// In flight A→B and B→A, one entry per cycle, oldest first.
    a_to_b: VecDeque<Option<[u8; RECORD_BYTES]>>,
    b_to_a: VecDeque<Option<[u8; RECORD_BYTES]>>,
    /// Cycles of cut left (0: the link is whole).
    cut_left: u64,
    stats: LinkStats,
}

impl AcpLinkModel {
    pub fn new(faults: LinkFaults) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(faults.seed);
        let mut m = Self {
            faults,
            rng,
            a_to_b: VecDeque::new(),
            b_to_a: VecDeque::new(),
            cut_left: 0,
            stats: LinkStats::default(),
        };
        m.fill();
        m
    }

    /// Keeps each delay line exactly `latency` long.
    fn fill(&mut self) {
        let lat = self.faults.latency.max(1) as usize;
        for q in [&mut self.a_to_b, &mut self.b_to_a] {
            q.truncate(lat);
            while q.len() < lat {
                q.push_front(None);
            }
        }
    }

    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// Changes the fault rates (and latency) from now on; the random stream
    /// continues, so a run stays reproducible.
    pub fn set_faults(&mut self, f: LinkFaults) {
        self.faults = LinkFaults {
            seed: self.faults.seed,
            ..f
        };
        self.fill();
    }

    /// Cuts the link now for `cycles` cycles.
    pub fn cut_now(&mut self, cycles: u64) {
        self.start_cut(cycles);
    }

    fn start_cut(&mut self, cycles: u64) {
        if cycles == 0 {
            return;
        }
        self.stats.cuts += 1;
        self.cut_left = cycles;
        for q in [&mut self.a_to_b, &mut self.b_to_a] {
            for r in q.iter_mut() {
                if r.take().is_some() {
                    self.stats.lost += 1;
                }
            }
        }
    }

    /// A record entering the wire: faults applied as it goes in.
    fn enter(&mut self, rec: Option<[u8; RECORD_BYTES]>) -> Option<[u8; RECORD_BYTES]> {
        let mut r = rec?;
        self.stats.records += 1;
        if self.cut_left > 0 || self.rng.gen_bool(self.faults.loss_rate.clamp(0.0, 1.0)) {
            self.stats.lost += 1;
            return None;
        }
        if (r[BYTE_OPCODE] == OP_OFFER || r[BYTE_OPCODE] == OP_OFFER_VERB)
            && self
                .rng
                .gen_bool(self.faults.undetected_rate.clamp(0.0, 1.0))
        {
            self.stats.undetected += 1;
            let before = r;
            let i = self.rng.gen_range(PAYLOAD_OFFSET..RECORD_BYTES);
            r[i] ^= self.rng.gen_range(1..=255u8);
            refit_check(&before, &mut r);
        }
        if self.rng.gen_bool(self.faults.corrupt_rate.clamp(0.0, 1.0)) {
            self.stats.corrupted += 1;
            // Distinct bits: a bit flipped twice would leave the record whole.
            let n = self.rng.gen_range(1..=3);
            let bits = rand::seq::index::sample(&mut self.rng, RECORD_BYTES * 8, n);
            for bit in bits.iter() {
                r[bit / 8] ^= 1 << (bit % 8);
            }
        }
        Some(r)
    }

    /// One cycle: what A and B put on the wire now; returns what each
    /// receives now and whether each has signal.
    pub fn step(
        &mut self,
        a_tx: Option<[u8; RECORD_BYTES]>,
        b_tx: Option<[u8; RECORD_BYTES]>,
    ) -> LinkOutput {
        if self.cut_left == 0 {
            if let Some(mean) = self.faults.cut_every {
                if self.rng.gen_bool((1.0 / mean.max(1) as f64).min(1.0)) {
                    self.start_cut(self.faults.cut_cycles);
                }
            }
        }
        let up = self.cut_left == 0;
        if !up {
            self.cut_left -= 1;
            self.stats.cut_cycles += 1;
        }
        let a_in = self.enter(a_tx);
        let b_in = self.enter(b_tx);
        self.a_to_b.push_back(a_in);
        self.b_to_a.push_back(b_in);
        let b_rx = self.a_to_b.pop_front().flatten();
        let a_rx = self.b_to_a.pop_front().flatten();
        LinkOutput {
            a_rx,
            b_rx,
            a_up: up,
            b_up: up,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::acp::{Body, Record, RecordError, BYTE_CHANNEL, BYTE_STATE};

    /// A key term a session might mix into every check word.
    const KEY: u32 = 0x5EED_CAFE;

    fn rec(n: u8) -> [u8; RECORD_BYTES] {
        Record::Channel {
            channel: 0,
            tx: 1,
            tx_bit: false,
            rx: 0,
            rx_bit: false,
            transition: 0,
            body: Body::Payload([n; 56]),
        }
        .to_bytes()
    }

    /// A record numbered `n` (in payload bytes 8..12), with opcode `op` and
    /// its check word bound to [`KEY`].
    fn keyed(op: u8, n: u32) -> [u8; RECORD_BYTES] {
        let mut r = [0u8; RECORD_BYTES];
        r[BYTE_OPCODE] = op;
        r[BYTE_CHANNEL] = 3;
        r[BYTE_STATE] = 0x11;
        r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4].copy_from_slice(&n.to_le_bytes());
        for (i, b) in r[PAYLOAD_OFFSET + 4..].iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37) ^ n as u8;
        }
        let check = covered_crc(&r) ^ KEY;
        set_check(&mut r, check);
        r
    }

    fn passes(r: &[u8; RECORD_BYTES], key: u32) -> bool {
        check_of(r) == covered_crc(r) ^ key
    }

    #[test]
    fn latency_is_exact_and_bytes_are_kept_without_faults() {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 7,
            ..Default::default()
        });
        let mut got = Vec::new();
        for c in 0..30u8 {
            let o = m.step(Some(rec(c)), None);
            assert!(o.a_up && o.b_up && o.a_rx.is_none());
            if let Some(r) = o.b_rx {
                got.push((c, r));
            }
        }
        assert_eq!(got.len(), 23);
        for (c, r) in got {
            assert_eq!(r, rec(c - 7));
        }
    }

    #[test]
    fn corruption_fails_the_check_and_undetected_damage_passes_it() {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 1,
            corrupt_rate: 1.0,
            ..Default::default()
        });
        m.step(Some(rec(1)), None);
        let r = m.step(None, None).b_rx.unwrap();
        assert_eq!(Record::from_bytes(&r, 4), Err(RecordError::BadCheck));
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 1,
            undetected_rate: 1.0,
            ..Default::default()
        });
        m.step(Some(rec(1)), None);
        let r = m.step(None, None).b_rx.unwrap();
        assert!(
            matches!(Record::from_bytes(&r, 4), Ok(Record::Channel { body: Body::Payload(p), .. }) if p != [1; 56])
        );
    }

    #[test]
    fn a_cut_drops_the_signal_for_its_length_and_loses_what_is_in_flight() {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 5,
            ..Default::default()
        });
        for _ in 0..5 {
            m.step(Some(rec(9)), Some(rec(9)));
        }
        m.cut_now(10);
        let mut down = 0;
        for _ in 0..20 {
            let o = m.step(Some(rec(9)), Some(rec(9)));
            if !o.a_up {
                down += 1;
                assert!(o.a_rx.is_none() && o.b_rx.is_none());
            }
        }
        assert_eq!(down, 10);
        assert_eq!(m.stats().cuts, 1);
    }

    #[test]
    fn the_same_seed_gives_the_same_faults() {
        let run = || {
            let mut m = AcpLinkModel::new(LinkFaults {
                latency: 3,
                corrupt_rate: 0.3,
                loss_rate: 0.2,
                seed: 42,
                ..Default::default()
            });
            (0..200u8)
                .map(|c| m.step(Some(rec(c)), Some(rec(c))).b_rx)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn the_covered_crc_is_the_layouts_check_word() {
        let r = rec(5);
        assert_eq!(covered_crc(&r), pendulum_layout::acp::check_word(&r));
        assert_eq!(check_of(&r), covered_crc(&r));
    }

    #[test]
    fn refit_check_keeps_an_arbitrary_key_term() {
        let old = keyed(OP_OFFER, 7);
        assert!(passes(&old, KEY) && !passes(&old, 0));
        let mut new = old;
        new[20] ^= 0x40;
        new[BYTE_CHANNEL] = 9;
        assert!(!passes(&new, KEY));
        refit_check(&old, &mut new);
        assert!(passes(&new, KEY), "the damaged record fails under the key");
        assert!(!passes(&new, 0));
        // A record that failed before still fails after.
        let mut bad = old;
        bad[30] ^= 1;
        let mut bad_new = bad;
        bad_new[40] ^= 2;
        refit_check(&bad, &mut bad_new);
        assert!(!passes(&bad_new, KEY));
    }

    #[test]
    fn random_undetected_damage_passes_under_the_key() {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 1,
            undetected_rate: 1.0,
            ..Default::default()
        });
        let sent = keyed(OP_OFFER, 1);
        m.step(Some(sent), None);
        let got = m.step(None, None).b_rx.unwrap();
        assert_ne!(got, sent);
        assert!(passes(&got, KEY));
        // Only the payload changed.
        assert_eq!(got[..BYTE_CHECK], sent[..BYTE_CHECK]);
        assert_eq!(m.stats().undetected, 1);
    }
}
