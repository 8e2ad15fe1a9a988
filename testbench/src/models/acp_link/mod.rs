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
    machine, BYTE_CHANNEL, BYTE_OPCODE, BYTE_STATE, BYTE_TRANSITION, OP_ENTANGLE, OP_OFFER,
    OP_OFFER_VERB, PAYLOAD_OFFSET, RECORD_BYTES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

mod damage;
#[cfg(test)]
mod tests;
mod wire_log;

pub use damage::*;
pub use wire_log::WireEntry;

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
    /// Channel records sent whose transition byte does not fit their state
    /// byte (`pendulum_layout::acp::machine::stated_move_fits`): a move the
    /// channel machine cannot make. Always 0 for a correct link.
    pub bad_moves: u64,
}

/// Why a slot carries a record its sender did not send in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Injected {
    /// A copy of the record in the slot before.
    Duplicate,
    /// A record remembered from before a cut or loss of signal.
    Replay,
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
    /// The first record counted in `stats.bad_moves`, described.
    first_bad_move: Option<String>,
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
            first_bad_move: None,
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
        self.check_stated_move(from, &r);
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

    /// Counts a sent channel record whose transition byte names a move the
    /// channel machine cannot make, and keeps the first for the report.
    fn check_stated_move(&mut self, from: Side, r: &Rec) {
        let channel_record = r[BYTE_OPCODE] != OP_ENTANGLE;
        if channel_record && !machine::stated_move_fits(r[BYTE_STATE], r[BYTE_TRANSITION]) {
            self.stats.bad_moves += 1;
            if self.first_bad_move.is_none() {
                self.first_bad_move = Some(format!(
                    "cycle {} from {from:?}: channel {} states {:#04x} with transition {:#04x} ({})",
                    self.cycle,
                    r[BYTE_CHANNEL],
                    r[BYTE_STATE],
                    r[BYTE_TRANSITION],
                    machine::moves::name(r[BYTE_TRANSITION]).unwrap_or("not a move"),
                ));
            }
        }
    }

    /// The first record counted in [`LinkStats::bad_moves`], described.
    pub fn first_bad_move(&self) -> Option<&str> {
        self.first_bad_move.as_deref()
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
