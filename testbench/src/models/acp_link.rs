//! The physical ACP link between two NICs, A and B: one 64-byte record slot
//! per cycle each way, a fixed one-way latency, and seeded faults: bit
//! corruption the check word catches, damage it cannot catch (random, or
//! aimed at one record kind and field), lost records, cuts that drop the
//! signal on both sides, one-sided loss of signal, silent one-way loss,
//! duplicated records, and replay of records from before a cut.
//!
//! Every fault is deterministic for a given seed and input sequence. The
//! model counts in cycles: one call of [`AcpLinkModel::step`] is one cycle.
//!
//! Damage behind the check word is fitted by linearity ([`refit_check`]):
//! the new check word is the old one XOR the CRC-32C of the covered bytes
//! before and after the damage, so a record whose check word also mixes in
//! a key term still passes under that key.

use pendulum_layout::acp::{
    crc32c, BYTE_CHANNEL, BYTE_CHECK, BYTE_OPCODE, BYTE_STATE, OP_OFFER, OP_OFFER_VERB,
    PAYLOAD_OFFSET, RECORD_BYTES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;

/// A record as it travels on the wire.
type Rec = [u8; RECORD_BYTES];

/// Bytes of the check word (record bytes `BYTE_CHECK..BYTE_CHECK + 4`,
/// little-endian).
pub const CHECK_BYTES: usize = 4;

/// Records the model remembers per direction for replay: the last this many
/// that entered the wire before the most recent cut or loss of signal.
pub const REPLAY_DEPTH: usize = 512;

/// Payload bytes of a record the wire log prints.
const LOG_PAYLOAD_BYTES: usize = 8;

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

/// Replay of remembered records after every cut ([`LinkFaults::replay_after_cut`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayAfterCut {
    /// Cycles after the cut ends (the first cycle with signal is 0) at which
    /// the replayed records start to enter the wire.
    pub delay_cycles: u64,
    /// Remembered records replayed towards each side (the most recent ones,
    /// oldest first; at most [`REPLAY_DEPTH`]).
    pub records: usize,
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
    /// How long a cut lasts, cycles: no signal on either side, and
    /// everything sent meanwhile or in flight is lost.
    pub cut_cycles: u64,
    /// A record that goes on the wire is duplicated: the next slot in the
    /// same direction carries an exact copy of it instead of what that slot
    /// would have carried (which is lost). A copy is never duplicated again.
    pub duplicate_rate: f64,
    /// After each cut, replay remembered records towards both sides (see
    /// [`AcpLinkModel::replay_now`]), or never.
    pub replay_after_cut: Option<ReplayAfterCut>,
    /// Seed of the fault stream.
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
            duplicate_rate: 0.0,
            replay_after_cut: None,
            seed: 1,
        }
    }
}

/// What each side receives in one cycle.
#[derive(Clone, Debug)]
pub struct LinkOutput {
    /// The record arriving at A this cycle, if any.
    pub a_rx: Option<[u8; RECORD_BYTES]>,
    /// The record arriving at B this cycle, if any.
    pub b_rx: Option<[u8; RECORD_BYTES]>,
    /// Signal present at A (its physical layer's link-up).
    pub a_up: bool,
    /// Signal present at B.
    pub b_up: bool,
}

/// Counts of what the link did, in records unless the name says otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LinkStats {
    /// Records the sides put on the wire.
    pub records: u64,
    /// Records whose bits were flipped (they fail the check).
    pub corrupted: u64,
    /// Records damaged at random behind the check (`undetected_rate`).
    pub undetected: u64,
    /// Records that never arrived, whatever the reason (the fields below
    /// marked "in `lost`" say why for some of them).
    pub lost: u64,
    /// Cuts started.
    pub cuts: u64,
    /// Cycles cut.
    pub cut_cycles: u64,
    /// One-sided losses of signal started ([`AcpLinkModel::los_now`]).
    pub los: u64,
    /// Cycles without signal at one side only, summed over both sides.
    pub los_cycles: u64,
    /// Records lost because their receiver had no signal: in flight towards
    /// it when the loss of signal started, or arriving meanwhile (in `lost`).
    pub los_lost: u64,
    /// Records lost silently to [`AcpLinkModel::drop_now`] (in `lost`).
    pub dropped: u64,
    /// Copies of records put on the wire (`duplicate_rate`).
    pub duplicated: u64,
    /// Remembered records put on the wire again (replay).
    pub replayed: u64,
    /// Records whose slot a copy or a replayed record took (in `lost`).
    pub displaced: u64,
    /// Records changed behind the check by [`AcpLinkModel::damage_next`].
    pub targeted: u64,
}

/// Why a slot carries a record its sender did not send in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Injected {
    /// A copy of the record in the slot before.
    Duplicate,
    /// A record remembered from before a cut or loss of signal.
    Replay,
}

/// One slot of the wire log: what a side sent and what the wire carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireEntry {
    /// The model's cycle (steps before this one) when the slot entered the wire.
    pub cycle: u64,
    /// The sending side (the slot travels towards its peer).
    pub from: Side,
    /// What the sender put on the wire, if anything.
    pub sent: Option<[u8; RECORD_BYTES]>,
    /// What the slot carries after the faults at entry (`None`: lost).
    pub carried: Option<[u8; RECORD_BYTES]>,
    /// Set when `carried` is a copy or a replayed record.
    pub injected: Option<Injected>,
}

impl fmt::Display for WireEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cycle {} {:?}->{:?} sent {}",
            self.cycle,
            self.from,
            self.from.peer(),
            RecordSummary(self.sent.as_ref())
        )?;
        match (self.injected, self.carried == self.sent) {
            (Some(kind), _) => write!(
                f,
                " carried {kind:?} {}",
                RecordSummary(self.carried.as_ref())
            ),
            (None, true) => Ok(()),
            (None, false) => write!(f, " carried {}", RecordSummary(self.carried.as_ref())),
        }
    }
}

/// A record's slice 0 and first payload bytes, in hex, for the wire log.
struct RecordSummary<'a>(Option<&'a Rec>);

impl fmt::Display for RecordSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(r) = self.0 else {
            return write!(f, "-");
        };
        write!(
            f,
            "[op {:02x} ch {:02x} st {:02x} check {:08x} payload ",
            r[BYTE_OPCODE],
            r[BYTE_CHANNEL],
            r[BYTE_STATE],
            check_of(r)
        )?;
        for b in &r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + LOG_PAYLOAD_BYTES] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "..]")
    }
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

/// Picks records for [`AcpLinkModel::damage_next`].
pub type Selector = Box<dyn FnMut(&[u8; RECORD_BYTES]) -> bool>;
/// Changes a picked record for [`AcpLinkModel::damage_next`], drawing any
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

/// Sets byte `pos` (for example [`BYTE_OPCODE`], [`BYTE_CHANNEL`],
/// [`BYTE_STATE`]) to `value`.
pub fn set_byte(
    pos: usize,
    value: u8,
) -> impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static {
    set_bytes(pos..pos + 1, &[value])
}

/// XORs byte `pos` with `mask` (for example one bit of [`BYTE_STATE`]).
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

/// Damage aimed by [`AcpLinkModel::damage_next`].
struct TargetedDamage {
    select: Selector,
    mutate: Mutator,
    /// Records still to damage.
    left: u64,
}

/// The opt-in ring of the last slots that entered the wire.
struct WireLog {
    capacity: usize,
    entries: VecDeque<WireEntry>,
}

/// The link model. Deterministic for a given seed and input sequence.
pub struct AcpLinkModel {
    faults: LinkFaults,
    rng: ChaCha8Rng,
    /// In flight from A (index 0) and from B (1), one entry per cycle,
    /// oldest first.
    wire: [VecDeque<Option<Rec>>; 2],
    /// Cycles of cut left (0: the link is whole).
    cut_left: u64,
    /// Cycles without signal left, per receiving side (one-sided loss of signal).
    los_left: [u64; 2],
    /// Cycles of silent loss left, per sending side.
    drop_left: [u64; 2],
    /// Records that take the next slots from each side instead of what it
    /// sends, in order.
    inject: [VecDeque<(Rec, Injected)>; 2],
    /// The last [`REPLAY_DEPTH`] records that entered the wire from each side.
    history: [VecDeque<Rec>; 2],
    /// `history` as it was when the most recent cut or loss of signal started.
    replay_source: [Vec<Rec>; 2],
    /// The cycle at which `replay_after_cut` fires next.
    auto_replay_cycle: Option<u64>,
    /// Aimed damage, per sending side, oldest first.
    damage: [Vec<TargetedDamage>; 2],
    wire_log: Option<WireLog>,
    /// Steps taken so far.
    cycle: u64,
    stats: LinkStats,
}

impl AcpLinkModel {
    /// A whole link with the given faults, nothing in flight.
    pub fn new(faults: LinkFaults) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(faults.seed);
        let mut m = Self {
            faults,
            rng,
            wire: [VecDeque::new(), VecDeque::new()],
            cut_left: 0,
            los_left: [0; 2],
            drop_left: [0; 2],
            inject: [VecDeque::new(), VecDeque::new()],
            history: [VecDeque::new(), VecDeque::new()],
            replay_source: [Vec::new(), Vec::new()],
            auto_replay_cycle: None,
            damage: [Vec::new(), Vec::new()],
            wire_log: None,
            cycle: 0,
            stats: LinkStats::default(),
        };
        m.fill();
        m
    }

    /// Keeps each delay line exactly `latency` long.
    fn fill(&mut self) {
        let lat = self.faults.latency.max(1) as usize;
        for q in &mut self.wire {
            q.truncate(lat);
            while q.len() < lat {
                q.push_front(None);
            }
        }
    }

    /// What the link did so far.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// Cycles stepped so far (in a [`crate::pair::NicPair`], the pair's cycle).
    pub fn cycle(&self) -> u64 {
        self.cycle
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
        self.remember_for_replay();
        for from in Side::BOTH {
            self.lose_in_flight(from);
            // A copy waiting for its slot was never on the wire.
            self.inject[from.index()].retain(|&(_, kind)| kind != Injected::Duplicate);
        }
        if let Some(replay) = self.faults.replay_after_cut {
            self.auto_replay_cycle = Some(self.cycle + cycles + replay.delay_cycles);
        }
    }

    /// Loses every record in flight from `from`; returns how many there were.
    fn lose_in_flight(&mut self, from: Side) -> u64 {
        let mut n = 0;
        for r in self.wire[from.index()].iter_mut() {
            if r.take().is_some() {
                n += 1;
            }
        }
        self.stats.lost += n;
        n
    }

    /// Side `side`'s physical layer reports no signal for the next `cycles`
    /// cycles, and `side` receives nothing meanwhile: records in flight
    /// towards it now, and those arriving during those cycles, are lost. The
    /// peer keeps its signal and receives what `side` sends.
    pub fn los_now(&mut self, side: Side, cycles: u64) {
        if cycles == 0 {
            return;
        }
        self.stats.los += 1;
        self.los_left[side.index()] = cycles;
        self.remember_for_replay();
        self.stats.los_lost += self.lose_in_flight(side.peer());
    }

    /// Records `from` sends during the next `cycles` cycles are lost;
    /// signal stays up on both sides.
    pub fn drop_now(&mut self, from: Side, cycles: u64) {
        self.drop_left[from.index()] = cycles;
    }

    /// The next `n` slots towards `to` carry records that entered the wire
    /// towards `to` before the most recent cut or loss of signal (the most
    /// recent `n` of the [`REPLAY_DEPTH`] remembered, oldest first) instead
    /// of what they would carry, which is lost. Slots during a cut carry
    /// nothing and do not count. Returns how many records were queued
    /// (fewer than `n` when fewer are remembered; 0 before any cut).
    pub fn replay_now(&mut self, to: Side, n: usize) -> usize {
        let from = to.peer().index();
        let source = &self.replay_source[from];
        let n = n.min(source.len());
        self.inject[from].extend(
            source[source.len() - n..]
                .iter()
                .map(|&r| (r, Injected::Replay)),
        );
        n
    }

    /// The next `count` records `from` sends for which `select` is true are
    /// changed by `mutate` (in the order they are sent) and their check word
    /// is fitted by [`refit_check`], so each passes the check exactly when it
    /// did before, under any key. Only records that enter the wire count
    /// (not those lost to a cut, `drop_now` or `loss_rate`). Several pending
    /// calls act independently: each sees the record as sent.
    pub fn damage_next(
        &mut self,
        from: Side,
        select: impl FnMut(&[u8; RECORD_BYTES]) -> bool + 'static,
        mutate: impl FnMut(&mut [u8; RECORD_BYTES], &mut ChaCha8Rng) + 'static,
        count: u64,
    ) {
        if count == 0 {
            return;
        }
        self.damage[from.index()].push(TargetedDamage {
            select: Box::new(select),
            mutate: Box::new(mutate),
            left: count,
        });
    }

    /// Records still to be damaged by [`AcpLinkModel::damage_next`] from `from`.
    pub fn damage_pending(&self, from: Side) -> u64 {
        self.damage[from.index()].iter().map(|d| d.left).sum()
    }

    /// Starts keeping the last `capacity` slots that entered the wire (with
    /// what was sent or carried), for debugging; 0 stops it.
    pub fn enable_wire_log(&mut self, capacity: usize) {
        if capacity == 0 {
            self.wire_log = None;
            return;
        }
        let log = self.wire_log.get_or_insert_with(|| WireLog {
            capacity,
            entries: VecDeque::new(),
        });
        log.capacity = capacity;
        while log.entries.len() > capacity {
            log.entries.pop_front();
        }
    }

    /// The wire log, oldest first (empty unless enabled).
    pub fn wire_log(&self) -> impl Iterator<Item = &WireEntry> {
        self.wire_log.iter().flat_map(|l| l.entries.iter())
    }

    /// The last `n` entries of the wire log, one line each, oldest first.
    pub fn wire_log_text(&self, n: usize) -> String {
        let entries: Vec<_> = self.wire_log().collect();
        entries[entries.len().saturating_sub(n)..]
            .iter()
            .map(|e| format!("{e}\n"))
            .collect()
    }

    /// Keeps what entered the wire so far as the records to replay.
    fn remember_for_replay(&mut self) {
        for from in Side::BOTH {
            let i = from.index();
            self.replay_source[i] = self.history[i].iter().copied().collect();
        }
    }

    /// Notes a record entering the wire from `from` for replay.
    fn remember(&mut self, from: Side, r: Rec) {
        let h = &mut self.history[from.index()];
        if h.len() == REPLAY_DEPTH {
            h.pop_front();
        }
        h.push_back(r);
    }

    fn log(&mut self, entry: WireEntry) {
        if let Some(log) = self.wire_log.as_mut() {
            if log.entries.len() == log.capacity {
                log.entries.pop_front();
            }
            log.entries.push_back(entry);
        }
    }

    /// Applies the aimed damage pending for `from` to a record it sends.
    fn damage_targeted(&mut self, from: Side, r: &mut Rec) {
        let jobs = &mut self.damage[from.index()];
        if jobs.is_empty() {
            return;
        }
        let sent = *r;
        for job in jobs.iter_mut() {
            if job.left > 0 && (job.select)(&sent) {
                let before = *r;
                (job.mutate)(r, &mut self.rng);
                refit_check(&before, r);
                job.left -= 1;
                self.stats.targeted += 1;
            }
        }
        jobs.retain(|j| j.left > 0);
    }

    /// Damages an OFFER record's payload behind the check, at
    /// `undetected_rate`.
    fn damage_at_random(&mut self, r: &mut Rec) {
        if (r[BYTE_OPCODE] == OP_OFFER || r[BYTE_OPCODE] == OP_OFFER_VERB)
            && self
                .rng
                .gen_bool(self.faults.undetected_rate.clamp(0.0, 1.0))
        {
            self.stats.undetected += 1;
            let before = *r;
            let i = self.rng.gen_range(PAYLOAD_OFFSET..RECORD_BYTES);
            r[i] ^= self.rng.gen_range(1..=255u8);
            refit_check(&before, r);
        }
    }

    /// Flips bits at `corrupt_rate`: the check then fails.
    fn corrupt(&mut self, r: &mut Rec) {
        if self.rng.gen_bool(self.faults.corrupt_rate.clamp(0.0, 1.0)) {
            self.stats.corrupted += 1;
            // Distinct bits: a bit flipped twice would leave the record whole.
            let n = self.rng.gen_range(1..=3);
            let bits = rand::seq::index::sample(&mut self.rng, RECORD_BYTES * 8, n);
            for bit in bits.iter() {
                r[bit / 8] ^= 1 << (bit % 8);
            }
        }
    }

    /// A record `from` sends: lost, or changed by the faults as it goes in.
    fn transmit(&mut self, from: Side, mut r: Rec, dropping: bool) -> Option<Rec> {
        self.stats.records += 1;
        if self.cut_left > 0 {
            self.stats.lost += 1;
            return None;
        }
        if dropping {
            self.stats.lost += 1;
            self.stats.dropped += 1;
            return None;
        }
        if self.rng.gen_bool(self.faults.loss_rate.clamp(0.0, 1.0)) {
            self.stats.lost += 1;
            return None;
        }
        self.damage_targeted(from, &mut r);
        self.damage_at_random(&mut r);
        self.corrupt(&mut r);
        Some(r)
    }

    /// What the slot from `from` carries: a waiting copy or replayed record
    /// (displacing `own`), or `own`, which may then be duplicated into the
    /// next slot.
    fn fill_slot(&mut self, from: Side, own: Option<Rec>) -> (Option<Rec>, Option<Injected>) {
        if self.cut_left > 0 {
            // Nothing crosses a cut; waiting replays keep their turn.
            return (own, None);
        }
        if let Some((r, kind)) = self.inject[from.index()].pop_front() {
            if own.is_some() {
                self.stats.lost += 1;
                self.stats.displaced += 1;
            }
            match kind {
                Injected::Duplicate => self.stats.duplicated += 1,
                Injected::Replay => self.stats.replayed += 1,
            }
            return (Some(r), Some(kind));
        }
        if let Some(r) = own {
            // No draw at a zero rate: the fault stream of a seed stays what it
            // was before duplication existed.
            if self.faults.duplicate_rate > 0.0
                && self
                    .rng
                    .gen_bool(self.faults.duplicate_rate.clamp(0.0, 1.0))
            {
                self.inject[from.index()].push_front((r, Injected::Duplicate));
            }
        }
        (own, None)
    }

    /// A slot from `from` entering the wire: faults applied as it goes in.
    fn enter(&mut self, from: Side, sent: Option<Rec>, dropping: bool) -> Option<Rec> {
        let own = sent.and_then(|r| self.transmit(from, r, dropping));
        let (carried, injected) = self.fill_slot(from, own);
        if let Some(r) = carried {
            self.remember(from, r);
        }
        if sent.is_some() || carried.is_some() {
            self.log(WireEntry {
                cycle: self.cycle,
                from,
                sent,
                carried,
                injected,
            });
        }
        carried
    }

    /// Pushes a slot from `from` into its delay line and returns the one
    /// arriving at the peer now (lost when the peer has no signal).
    fn deliver(&mut self, from: Side, slot: Option<Rec>, receiver_silent: bool) -> Option<Rec> {
        let q = &mut self.wire[from.index()];
        q.push_back(slot);
        let arriving = q.pop_front().flatten();
        if receiver_silent && arriving.is_some() {
            self.stats.lost += 1;
            self.stats.los_lost += 1;
            return None;
        }
        arriving
    }

    /// Starts a cut at random (`cut_every`) when the link is whole.
    fn maybe_cut_at_random(&mut self) {
        if self.cut_left == 0 {
            if let Some(mean) = self.faults.cut_every {
                if self.rng.gen_bool((1.0 / mean.max(1) as f64).min(1.0)) {
                    self.start_cut(self.faults.cut_cycles);
                }
            }
        }
    }

    /// Counts down the cut; returns whether the signal is up this cycle.
    fn tick_cut(&mut self) -> bool {
        if self.cut_left == 0 {
            return true;
        }
        self.cut_left -= 1;
        self.stats.cut_cycles += 1;
        false
    }

    /// Counts down `side`'s loss of signal; returns whether it has none this cycle.
    fn tick_los(&mut self, side: Side) -> bool {
        let left = &mut self.los_left[side.index()];
        if *left == 0 {
            return false;
        }
        *left -= 1;
        self.stats.los_cycles += 1;
        true
    }

    /// Counts down `from`'s silent loss; returns whether it drops this cycle.
    fn tick_drop(&mut self, from: Side) -> bool {
        let left = &mut self.drop_left[from.index()];
        if *left == 0 {
            return false;
        }
        *left -= 1;
        true
    }

    /// Queues the replay `replay_after_cut` asks for when its cycle comes.
    fn maybe_replay_after_cut(&mut self) {
        if self.auto_replay_cycle.is_some_and(|c| c <= self.cycle) {
            self.auto_replay_cycle = None;
            if let Some(replay) = self.faults.replay_after_cut {
                for to in Side::BOTH {
                    self.replay_now(to, replay.records);
                }
            }
        }
    }

    /// One cycle: what A and B put on the wire now; returns what each
    /// receives now and whether each has signal.
    pub fn step(
        &mut self,
        a_tx: Option<[u8; RECORD_BYTES]>,
        b_tx: Option<[u8; RECORD_BYTES]>,
    ) -> LinkOutput {
        self.maybe_cut_at_random();
        let up = self.tick_cut();
        let silent = Side::BOTH.map(|s| self.tick_los(s));
        let dropping = Side::BOTH.map(|s| self.tick_drop(s));
        self.maybe_replay_after_cut();
        let a_in = self.enter(Side::A, a_tx, dropping[Side::A.index()]);
        let b_in = self.enter(Side::B, b_tx, dropping[Side::B.index()]);
        let b_rx = self.deliver(Side::A, a_in, silent[Side::B.index()]);
        let a_rx = self.deliver(Side::B, b_in, silent[Side::A.index()]);
        self.cycle += 1;
        LinkOutput {
            a_rx,
            b_rx,
            a_up: up && !silent[Side::A.index()],
            b_up: up && !silent[Side::B.index()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::acp::{Body, Record, RecordError, OP_STATE};

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
    fn keyed(op: u8, n: u32) -> Rec {
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

    fn number(r: &Rec) -> u32 {
        u32::from_le_bytes(r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4].try_into().unwrap())
    }

    fn passes(r: &Rec, key: u32) -> bool {
        check_of(r) == covered_crc(r) ^ key
    }

    fn link(latency: u32) -> AcpLinkModel {
        AcpLinkModel::new(LinkFaults {
            latency,
            ..Default::default()
        })
    }

    /// Steps `cycles` times, A sending `a(cycle)` and B `b(cycle)`; returns
    /// every output with the cycle it came out.
    fn run(
        m: &mut AcpLinkModel,
        cycles: u64,
        mut a: impl FnMut(u64) -> Option<Rec>,
        mut b: impl FnMut(u64) -> Option<Rec>,
    ) -> Vec<(u64, LinkOutput)> {
        (0..cycles)
            .map(|_| {
                let c = m.cycle();
                (c, m.step(a(c), b(c)))
            })
            .collect()
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

    #[test]
    fn one_sided_loss_of_signal_silences_only_that_side() {
        const LATENCY: u32 = 4;
        const LOS_CYCLES: u64 = 10;
        const START: u64 = 6;
        let mut m = link(LATENCY);
        let mut out = run(
            &mut m,
            START,
            |c| Some(keyed(OP_STATE, c as u32)),
            |c| Some(keyed(OP_STATE, 1000 + c as u32)),
        );
        m.los_now(Side::B, LOS_CYCLES);
        out.extend(run(
            &mut m,
            30,
            |c| Some(keyed(OP_STATE, c as u32)),
            |c| Some(keyed(OP_STATE, 1000 + c as u32)),
        ));
        let lat = LATENCY as u64;
        for (c, o) in &out {
            let silent = (START..START + LOS_CYCLES).contains(c);
            assert!(o.a_up, "cycle {c}: A lost its signal");
            assert_eq!(o.b_up, !silent, "cycle {c}");
            // A hears everything B sent, LOS or not, at the exact latency.
            if *c >= lat {
                assert_eq!(
                    number(&o.a_rx.unwrap()),
                    1000 + (c - lat) as u32,
                    "cycle {c}"
                );
            }
            // B hears nothing while silent, nor what was in flight when it
            // started; then what A sent from the LOS on.
            let b_hears = *c >= lat && !silent && (*c < START || c - lat >= START);
            match o.b_rx {
                Some(r) => {
                    assert!(b_hears, "cycle {c}: B heard during its LOS");
                    assert_eq!(number(&r), (c - lat) as u32);
                }
                None => assert!(!b_hears || *c < lat, "cycle {c}: B missed a record"),
            }
        }
        let s = m.stats();
        // In flight at the start (LATENCY), then arriving during the LOS
        // (sent in its first LOS_CYCLES - LATENCY cycles).
        assert_eq!(s.los_lost, LOS_CYCLES, "{s:?}");
        assert_eq!(s.lost, s.los_lost);
        assert_eq!((s.los, s.los_cycles, s.cuts), (1, LOS_CYCLES, 0));
    }

    #[test]
    fn silent_loss_drops_one_direction_with_the_signal_up() {
        const LATENCY: u32 = 3;
        const DROP_CYCLES: u64 = 5;
        const START: u64 = 4;
        let mut m = link(LATENCY);
        let mut out = run(
            &mut m,
            START,
            |c| Some(keyed(OP_STATE, c as u32)),
            |c| Some(keyed(OP_STATE, c as u32)),
        );
        m.drop_now(Side::A, DROP_CYCLES);
        out.extend(run(
            &mut m,
            20,
            |c| Some(keyed(OP_STATE, c as u32)),
            |c| Some(keyed(OP_STATE, c as u32)),
        ));
        let lat = LATENCY as u64;
        for (c, o) in out.iter().filter(|(c, _)| *c >= lat) {
            assert!(o.a_up && o.b_up);
            let sent = c - lat;
            assert_eq!(number(&o.a_rx.unwrap()), sent as u32);
            let dropped = (START..START + DROP_CYCLES).contains(&sent);
            assert_eq!(
                o.b_rx.map(|r| number(&r)),
                (!dropped).then_some(sent as u32),
                "cycle {c}"
            );
        }
        assert_eq!(
            (m.stats().dropped, m.stats().lost),
            (DROP_CYCLES, DROP_CYCLES)
        );
    }

    #[test]
    fn a_duplicate_takes_the_next_slot_at_the_same_latency() {
        const LATENCY: u32 = 5;
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: LATENCY,
            duplicate_rate: 1.0,
            ..Default::default()
        });
        let out = run(&mut m, 40, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
        let lat = LATENCY as u64;
        for (c, o) in out.iter().filter(|(c, _)| *c >= lat) {
            let slot = c - lat;
            // Every even slot's record goes on, and the odd slot after it
            // carries its copy (the odd record is lost).
            let expect = slot - slot % 2;
            assert_eq!(o.b_rx, Some(keyed(OP_OFFER, expect as u32)), "cycle {c}");
        }
        let s = m.stats();
        assert_eq!(
            (s.records, s.duplicated, s.displaced, s.lost),
            (40, 20, 20, 20)
        );
    }

    #[test]
    fn a_duplicate_waiting_for_its_slot_dies_with_a_cut() {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 2,
            duplicate_rate: 1.0,
            ..Default::default()
        });
        m.step(Some(keyed(OP_OFFER, 1)), None);
        m.cut_now(3);
        let out = run(&mut m, 10, |_| None, |_| None);
        assert!(out.iter().all(|(_, o)| o.b_rx.is_none()));
        assert_eq!(m.stats().duplicated, 0);
    }

    #[test]
    fn replay_carries_the_records_from_before_the_cut_in_order() {
        const LATENCY: u32 = 3;
        const BEFORE: u64 = 20;
        const CUT_CYCLES: u64 = 6;
        const REPLAYED: usize = 5;
        let mut m = link(LATENCY);
        let a = |c: u64| Some(keyed(OP_OFFER, c as u32));
        let b = |c: u64| Some(keyed(OP_STATE, 5000 + c as u32));
        run(&mut m, BEFORE, a, b);
        assert_eq!(
            m.replay_now(Side::B, REPLAYED),
            0,
            "nothing is remembered before a cut"
        );
        m.cut_now(CUT_CYCLES);
        // Nothing is sent during the cut (what the cut does to that is not
        // this test's concern).
        run(&mut m, CUT_CYCLES, |_| None, |_| None);
        assert_eq!(m.replay_now(Side::B, REPLAYED), REPLAYED);
        let start = m.cycle();
        let out = run(&mut m, 20, a, b);
        let lat = LATENCY as u64;
        for (c, o) in &out {
            let slot = c.checked_sub(lat).filter(|s| *s >= start);
            let expect = match slot {
                None => None,
                // The last REPLAYED records A sent before the cut, oldest first.
                Some(s) if s < start + REPLAYED as u64 => {
                    Some(BEFORE - REPLAYED as u64 + (s - start))
                }
                Some(s) => Some(s),
            };
            assert_eq!(o.b_rx.map(|r| number(&r) as u64), expect, "cycle {c}");
            // B→A is untouched.
            assert_eq!(
                o.a_rx.map(|r| number(&r) as u64),
                slot.map(|s| 5000 + s),
                "cycle {c}"
            );
        }
        let s = m.stats();
        assert_eq!(
            (s.replayed, s.displaced),
            (REPLAYED as u64, REPLAYED as u64)
        );
    }

    #[test]
    fn replay_remembers_at_most_its_depth() {
        let mut m = link(1);
        let sent = REPLAY_DEPTH as u64 + 100;
        run(&mut m, sent, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
        // B's loss of signal also loses A's last record, in flight.
        m.los_now(Side::B, 1);
        assert_eq!(m.replay_now(Side::B, usize::MAX), REPLAY_DEPTH);
        assert_eq!(m.replay_now(Side::A, 1), 0, "B sent nothing");
        let got: Vec<_> = run(&mut m, REPLAY_DEPTH as u64 + 2, |_| None, |_| None)
            .into_iter()
            .filter_map(|(_, o)| o.b_rx.map(|r| number(&r) as u64))
            .collect();
        let expect: Vec<_> = (sent - REPLAY_DEPTH as u64..sent).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn replay_after_cut_starts_its_delay_after_the_cut_ends() {
        const LATENCY: u32 = 2;
        const CUT_CYCLES: u64 = 4;
        const DELAY_CYCLES: u64 = 3;
        const RECORDS: usize = 2;
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: LATENCY,
            replay_after_cut: Some(ReplayAfterCut {
                delay_cycles: DELAY_CYCLES,
                records: RECORDS,
            }),
            ..Default::default()
        });
        let a = |c: u64| Some(keyed(OP_OFFER, c as u32));
        let b = |c: u64| Some(keyed(OP_STATE, 100 + c as u32));
        run(&mut m, 10, a, b);
        let cut_at = m.cycle();
        m.cut_now(CUT_CYCLES);
        let out = run(&mut m, 20, a, b);
        let first_replay = cut_at + CUT_CYCLES + DELAY_CYCLES;
        let arrive = first_replay + LATENCY as u64;
        let at = |c: u64| &out.iter().find(|(x, _)| *x == c).unwrap().1;
        assert_eq!(number(&at(arrive).b_rx.unwrap()), 8);
        assert_eq!(number(&at(arrive + 1).b_rx.unwrap()), 9);
        assert_eq!(number(&at(arrive).a_rx.unwrap()), 108);
        assert_eq!(number(&at(arrive + 1).a_rx.unwrap()), 109);
        assert_eq!(
            number(&at(arrive - 1).b_rx.unwrap()) as u64,
            first_replay - 1
        );
        assert_eq!(
            number(&at(arrive + 2).b_rx.unwrap()) as u64,
            first_replay + 2
        );
        assert_eq!(m.stats().replayed, 2 * RECORDS as u64);
    }

    #[test]
    fn targeted_damage_changes_only_the_field_asked_for_and_passes_under_the_key() {
        const LATENCY: u32 = 2;
        const COUNT: u64 = 3;
        const NEW_CHANNEL: u8 = 0x2A;
        let mut m = link(LATENCY);
        m.damage_next(
            Side::A,
            select_opcode(OP_OFFER),
            set_byte(BYTE_CHANNEL, NEW_CHANNEL),
            COUNT,
        );
        assert_eq!(m.damage_pending(Side::A), COUNT);
        // A alternates STATE and OFFER records; only the next COUNT OFFERs change.
        let op = |c: u64| if c % 2 == 1 { OP_OFFER } else { OP_STATE };
        let out = run(
            &mut m,
            20,
            |c| Some(keyed(op(c), c as u32)),
            |c| Some(keyed(OP_OFFER, c as u32)),
        );
        let mut changed = Vec::new();
        for (c, o) in out.iter().filter(|(c, _)| *c >= LATENCY as u64) {
            let slot = c - LATENCY as u64;
            let sent = keyed(op(slot), slot as u32);
            let got = o.b_rx.unwrap();
            assert!(passes(&got, KEY), "slot {slot}");
            assert_eq!(
                o.a_rx,
                Some(keyed(OP_OFFER, slot as u32)),
                "B's records are untouched"
            );
            if got != sent {
                changed.push(slot);
                for i in (0..RECORD_BYTES)
                    .filter(|i| !(BYTE_CHECK..BYTE_CHECK + CHECK_BYTES).contains(i))
                {
                    let expect = if i == BYTE_CHANNEL {
                        NEW_CHANNEL
                    } else {
                        sent[i]
                    };
                    assert_eq!(got[i], expect, "slot {slot} byte {i}");
                }
            }
        }
        assert_eq!(changed, vec![1, 3, 5]);
        assert_eq!((m.stats().targeted, m.damage_pending(Side::A)), (COUNT, 0));
    }

    #[test]
    fn random_field_damage_stays_in_its_range() {
        const RANGES: [Range<usize>; 4] = [
            BYTE_STATE..BYTE_STATE + 1,
            PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4,
            PAYLOAD_OFFSET + 4..PAYLOAD_OFFSET + 8,
            PAYLOAD_OFFSET + 8..RECORD_BYTES,
        ];
        for range in RANGES {
            let mut m = link(1);
            m.damage_next(Side::B, select_all(), xor_bytes_random(range.clone()), 50);
            let out = run(&mut m, 51, |_| None, |c| Some(keyed(OP_OFFER, c as u32)));
            for (c, o) in &out[1..] {
                let sent = keyed(OP_OFFER, *c as u32 - 1);
                let got = o.a_rx.unwrap();
                assert!(passes(&got, KEY));
                assert!(
                    got[range.clone()] != sent[range.clone()],
                    "{range:?} unchanged"
                );
                for i in (0..RECORD_BYTES).filter(|i| !range.contains(i)) {
                    if !(BYTE_CHECK..BYTE_CHECK + CHECK_BYTES).contains(&i) {
                        assert_eq!(got[i], sent[i], "{range:?}: byte {i} changed");
                    }
                }
            }
        }
    }

    #[test]
    fn field_mutators_set_and_xor_what_they_are_given() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let base = keyed(OP_OFFER, 1);
        let mut r = base;
        set_byte(BYTE_OPCODE, OP_STATE)(&mut r, &mut rng);
        assert_eq!(r[BYTE_OPCODE], OP_STATE);
        xor_byte(BYTE_STATE, 0x08)(&mut r, &mut rng);
        assert_eq!(r[BYTE_STATE], base[BYTE_STATE] ^ 0x08);
        set_bytes(12..16, &[1, 2, 3, 4])(&mut r, &mut rng);
        assert_eq!(r[12..16], [1, 2, 3, 4]);
        xor_byte_random(BYTE_CHANNEL)(&mut r, &mut rng);
        assert_ne!(r[BYTE_CHANNEL], base[BYTE_CHANNEL]);
        assert!(select_opcode(OP_OFFER)(&base) && !select_opcode(OP_OFFER)(&r));
        assert_eq!(r[16..], base[16..]);
        assert!(std::panic::catch_unwind(|| set_byte(BYTE_CHECK, 0)).is_err());
        assert!(std::panic::catch_unwind(|| xor_bytes_random(60..65)).is_err());
    }

    #[test]
    fn damage_counts_only_records_that_enter_the_wire() {
        let mut m = link(1);
        m.drop_now(Side::A, 2);
        m.damage_next(Side::A, select_all(), xor_byte_random(20), 1);
        let out = run(&mut m, 4, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
        assert!(out[..3].iter().all(|(_, o)| o.b_rx.is_none()));
        let got = out[3].1.b_rx.unwrap();
        assert_ne!(
            got,
            keyed(OP_OFFER, 2),
            "the first record through is damaged"
        );
        assert_eq!(m.stats().targeted, 1);
    }

    #[test]
    fn the_same_seed_gives_the_same_new_faults() {
        let run_once = || {
            let mut m = AcpLinkModel::new(LinkFaults {
                latency: 7,
                corrupt_rate: 0.05,
                undetected_rate: 0.05,
                loss_rate: 0.05,
                duplicate_rate: 0.1,
                cut_every: Some(300),
                cut_cycles: 40,
                replay_after_cut: Some(ReplayAfterCut {
                    delay_cycles: 10,
                    records: 30,
                }),
                seed: 99,
            });
            m.damage_next(
                Side::A,
                select_opcode(OP_OFFER),
                xor_bytes_random(16..64),
                100,
            );
            let mut outs = Vec::new();
            for c in 0..3000u32 {
                if c == 500 {
                    m.los_now(Side::B, 50);
                }
                if c == 900 {
                    m.drop_now(Side::A, 30);
                }
                let o = m.step(Some(keyed(OP_OFFER, c)), Some(keyed(OP_STATE, c)));
                outs.push((o.a_rx, o.b_rx, o.a_up, o.b_up));
            }
            (outs, m.stats().clone())
        };
        let (first, stats) = run_once();
        assert_eq!((first, stats.clone()), run_once());
        assert!(
            stats.duplicated > 0 && stats.replayed > 0 && stats.targeted == 100 && stats.cuts > 0,
            "{stats:?}"
        );
        let json = serde_json::to_value(&stats).unwrap();
        for field in [
            "los",
            "los_lost",
            "dropped",
            "duplicated",
            "replayed",
            "displaced",
            "targeted",
        ] {
            assert!(json.get(field).is_some(), "{field} not serialised");
        }
    }

    #[test]
    fn the_wire_log_keeps_the_last_slots() {
        const CAPACITY: usize = 4;
        let mut m = link(2);
        m.enable_wire_log(CAPACITY);
        m.drop_now(Side::B, 100);
        run(
            &mut m,
            10,
            |c| Some(keyed(OP_OFFER, c as u32)),
            |c| (c == 9).then(|| keyed(OP_STATE, 0)),
        );
        let log: Vec<_> = m.wire_log().cloned().collect();
        assert_eq!(log.len(), CAPACITY);
        assert_eq!(
            log.iter().map(|e| (e.cycle, e.from)).collect::<Vec<_>>(),
            vec![(7, Side::A), (8, Side::A), (9, Side::A), (9, Side::B)]
        );
        assert_eq!(log[0].carried, Some(keyed(OP_OFFER, 7)));
        assert_eq!(log[3].carried, None, "B's record was dropped");
        let text = m.wire_log_text(2);
        assert_eq!(text.lines().count(), 2);
        assert!(
            text.contains("cycle 9 B->A") && text.ends_with("carried -\n"),
            "{text}"
        );
    }
}
