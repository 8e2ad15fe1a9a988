//! The ACP soak: messages both ways and remote verbs from A, for millions
//! of records, under every fault the link model has at once (corruption,
//! damage behind the check word, loss, duplicates, cuts with replay) and
//! resets of either side's link, with the exactly-once accounting checked
//! as it goes (`pendulum-acp-soak`, `make soak`).
//!
//! Verbs go in rounds: one fetch-and-add of 1 on each of `lines` distinct
//! lines of B's atomic memory. When every verb of a round has an outcome,
//! B's host reads those words, and each must have moved by what A was told:
//! a result (applied once, and its old value is the word's value before),
//! not delivered (not applied), in doubt (applied once or not at all).

use crate::acp_traffic::AcpTraffic;
use crate::models::{LinkFaults, ReplayAfterCut};
use crate::pair::Side;
use crate::remote_verbs::{b_words, Outcome, VerbOutcomes};
use crate::SimConfig;
use pendulum_driver::Atomics;
use pendulum_layout::atomic::{op, status, Verb};
use pendulum_layout::params::ATOMIC_BYTES;

/// Messages each side keeps posted and not yet accounted for.
const MESSAGES_IN_FLIGHT: usize = 96;

/// What a soak runs.
#[derive(Clone, Debug)]
pub struct SoakConfig {
    /// Records on the wire (both directions) to run for.
    pub records: u64,
    pub latency: u32,
    pub seed: u64,
    /// Distinct lines of B's atomic memory per round of verbs.
    pub lines: u32,
    /// Cycles between resets of a side's link state (alternating A and B); 0: none.
    pub reset_every: u64,
}

impl Default for SoakConfig {
    fn default() -> Self {
        Self {
            records: 10_000_000,
            latency: 100,
            seed: 1,
            lines: 64,
            reset_every: 400_000,
        }
    }
}

/// The faults of a soak: every kind the link model has, at once.
pub fn soak_faults(latency: u32, seed: u64) -> LinkFaults {
    LinkFaults {
        latency,
        corrupt_rate: 1e-3,
        undetected_rate: 1e-5,
        loss_rate: 1e-3,
        duplicate_rate: 1e-4,
        cut_every: Some(300_000),
        cut_cycles: 3_000,
        replay_after_cut: Some(ReplayAfterCut {
            delay_cycles: 200,
            records: 8,
        }),
        seed,
    }
}

/// What a soak counted. A correct link has `duplicates`, `lost`,
/// `reordered`, `unsent_delivered`, `changed` and `verb_mismatches` at 0.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SoakReport {
    pub cycles: u64,
    pub records: u64,
    pub messages_sent: u64,
    pub messages_delivered: u64,
    pub messages_not_delivered: u64,
    pub messages_in_doubt: u64,
    pub verbs: u64,
    pub verb_results: u64,
    pub verbs_not_delivered: u64,
    pub verbs_in_doubt: u64,
    /// Of the in-doubt verbs, those B's memory shows applied.
    pub verbs_in_doubt_applied: u64,
    pub resets: u64,
    pub cuts: u64,
    pub corrupted: u64,
    pub undetected: u64,
    pub lost_records: u64,
    /// The exactly-once checks (message checks from `AcpTraffic::check`:
    /// the first failure, if any).
    pub message_check: Option<String>,
    /// Sent and not accounted for after the settling time, and then the
    /// first channel not back at IDLE and EXPECT (what is stuck).
    pub lost: u64,
    pub stuck: Option<String>,
    pub verb_mismatches: u64,
    pub first_verb_mismatch: Option<String>,
}

impl SoakReport {
    /// Whether every exactly-once check held.
    pub fn clean(&self) -> bool {
        self.message_check.is_none() && self.lost == 0 && self.verb_mismatches == 0
    }
}

/// The soak itself. Calls `progress(records so far)` now and then.
pub struct Soak {
    cfg: SoakConfig,
    t: AcpTraffic,
    at: Atomics,
    /// B's words as last read, per line of the round.
    words: Vec<u64>,
    round: Vec<Verb>,
    posted: usize,
    out: VerbOutcomes,
    next_tag: u16,
    report: SoakReport,
    next_reset: u64,
}

impl Soak {
    pub fn new(cfg: SoakConfig) -> Self {
        assert!(cfg.lines >= 1 && cfg.lines <= ATOMIC_BYTES / 64);
        let mut t = AcpTraffic::new_up(
            SimConfig::default(),
            soak_faults(cfg.latency, cfg.seed),
            256 * 1024,
        )
        .expect("open both cards, link up");
        let mut at = t.b.dev.open_atomics(2, 3, 64 * 1024).unwrap();
        let addrs: Vec<u32> = (0..cfg.lines).map(|l| 64 * l).collect();
        let words = b_words(&mut t, &mut at, &addrs[..1]);
        let next_reset = t.cycle() + cfg.reset_every;
        let mut soak = Self {
            cfg,
            t,
            at,
            words,
            round: Vec::new(),
            posted: 0,
            out: VerbOutcomes::default(),
            next_tag: 0,
            report: SoakReport::default(),
            next_reset,
        };
        soak.words = soak.read_words(&addrs);
        soak
    }

    /// B's words at `addrs`, read by B's host in one batch of fetch-and-add
    /// 0 while both hosts keep polling.
    fn read_words(&mut self, addrs: &[u32]) -> Vec<u64> {
        let reads: Vec<Verb> = addrs
            .iter()
            .enumerate()
            .map(|(i, &addr)| Verb {
                op: op::FETCH_ADD,
                tag: i as u16,
                addr,
                operands: [0; 4],
                reserved_set: false,
            })
            .collect();
        let mut words = vec![None; addrs.len()];
        let mut posted = 0;
        while words.iter().any(Option::is_none) {
            posted += self.at.submit(&mut self.t.b.dev, &reads[posted..]).unwrap();
            for r in self.at.results(&mut self.t.b.dev).unwrap() {
                words[r.tag as usize] = Some(r.old);
            }
            self.poll();
        }
        words.into_iter().map(Option::unwrap).collect()
    }

    fn records(&self) -> u64 {
        self.t.pair.borrow().link.stats().records
    }

    /// Runs until `cfg.records` records crossed the wire, then lets
    /// everything settle and checks it.
    pub fn run(mut self, mut progress: impl FnMut(u64)) -> SoakReport {
        let mut last_progress = 0;
        while self.records() < self.cfg.records {
            self.step();
            let r = self.records();
            if r - last_progress >= 100_000 {
                progress(r);
                last_progress = r;
            }
        }
        // Settle: no more faults, no new work.
        let latency = self.cfg.latency;
        self.t.pair.borrow_mut().link.set_faults(LinkFaults {
            latency,
            seed: self.cfg.seed,
            ..Default::default()
        });
        let end = self.t.cycle() + 20_000_000;
        while !(self.t.settled() && self.round.is_empty()) && self.t.cycle() < end {
            self.poll();
            if !self.round.is_empty() && self.out.accounted() == self.round.len() {
                self.finish_round();
            }
        }
        progress(self.records());
        self.finish()
    }

    /// One poll of both hosts, with resets and verb rounds.
    fn step(&mut self) {
        if self.cfg.reset_every > 0 && self.t.cycle() >= self.next_reset {
            let side = if self.report.resets % 2 == 0 {
                &mut self.t.a
            } else {
                &mut self.t.b
            };
            side.dev.reset_link().unwrap();
            self.report.resets += 1;
            self.next_reset = self.t.cycle() + self.cfg.reset_every;
        }
        // Messages keep the link busy both ways, but A's never more than a
        // few per channel ahead: its verbs share A's TX ring with them.
        for side in Side::BOTH {
            let room = self.t.unaccounted_from(side) < MESSAGES_IN_FLIGHT;
            let e = match side {
                Side::A => &mut self.t.a,
                Side::B => &mut self.t.b,
            };
            if e.backlog() == 0 && room {
                e.queue(32);
            }
        }
        if self.round.is_empty() {
            self.start_round();
        }
        if self.posted < self.round.len() {
            let n = self
                .t
                .a
                .link
                .send_verbs(&mut self.t.a.dev, &self.round[self.posted..])
                .unwrap();
            self.posted += n;
        }
        self.poll();
        if self.out.accounted() == self.round.len() {
            self.finish_round();
        }
    }

    /// Both hosts post and take what arrived (A's link pipe carries both
    /// messages and verb results), then time passes.
    fn poll(&mut self) {
        self.t.a.poll_send().unwrap();
        self.t.b.poll().unwrap();
        self.out.take(&mut self.t);
        self.t.fold();
        let n = self.t.pair.borrow().a.cfg.poll_interval_cycles;
        self.t.pair.borrow_mut().run(n);
    }

    fn start_round(&mut self) {
        self.round = (0..self.cfg.lines)
            .map(|line| {
                let tag = self.next_tag;
                self.next_tag = self.next_tag.wrapping_add(1);
                Verb {
                    op: op::FETCH_ADD,
                    tag,
                    addr: 64 * line,
                    operands: [1, 0, 0, 0],
                    reserved_set: false,
                }
            })
            .collect();
        self.posted = 0;
        self.out = VerbOutcomes::default();
    }

    /// Every verb of the round has its outcome: check each against B's memory.
    fn finish_round(&mut self) {
        let addrs: Vec<u32> = self.round.iter().map(|v| v.addr).collect();
        let now = self.read_words(&addrs);
        for (i, v) in self.round.iter().enumerate() {
            let (before, after) = (self.words[i], now[i]);
            let outcome = self.out.outcome(v.tag).expect("every verb has an outcome");
            let ok = match outcome {
                Outcome::Result(r) => {
                    self.report.verb_results += 1;
                    after == before + 1 && r.old == before && r.status == status::OK
                }
                Outcome::NotDelivered => {
                    self.report.verbs_not_delivered += 1;
                    after == before
                }
                Outcome::InDoubt => {
                    self.report.verbs_in_doubt += 1;
                    self.report.verbs_in_doubt_applied += (after == before + 1) as u64;
                    after == before || after == before + 1
                }
            };
            if !ok {
                self.report.verb_mismatches += 1;
                self.report.first_verb_mismatch.get_or_insert_with(|| {
                    format!(
                        "verb {} on line {i}: {outcome:?}, word {before} -> {after}",
                        v.tag
                    )
                });
            }
        }
        self.report.verbs += self.round.len() as u64;
        self.words = now;
        self.round.clear();
    }

    fn finish(mut self) -> SoakReport {
        let r = &mut self.report;
        let stats = self.t.pair.borrow().link.stats().clone();
        r.cycles = self.t.cycle();
        r.records = stats.records;
        r.cuts = stats.cuts;
        r.corrupted = stats.corrupted;
        r.undetected = stats.undetected;
        r.lost_records = stats.lost;
        for (from, to) in [(&self.t.a, &self.t.b), (&self.t.b, &self.t.a)] {
            r.messages_sent += from.sent.len() as u64;
            r.messages_delivered += to.received.len() as u64;
            for &(_, kind) in &from.returned {
                match kind {
                    pendulum_driver::MsgKind::InDoubt => r.messages_in_doubt += 1,
                    _ => r.messages_not_delivered += 1,
                }
            }
        }
        // Lost: sent and neither delivered nor handed back (a delivered
        // in-doubt message is counted in both, hence the unique count).
        r.lost = if self.t.settled() {
            0
        } else {
            self.t.unaccounted() as u64
        };
        if r.lost > 0 {
            let drops = |d: &mut pendulum_driver::Device<_>| {
                d.counters().map(|c| c.drops()).unwrap_or(u64::MAX)
            };
            let (a_drops, b_drops) = (drops(&mut self.t.a.dev), drops(&mut self.t.b.dev));
            r.stuck = Some(format!(
                "A: {} unaccounted (first id {:?}), {} not posted, {a_drops} RX drops; \
                 B: {} unaccounted (first id {:?}), {} not posted, {b_drops} RX drops; {}",
                self.t.unaccounted_from(Side::A),
                self.t.first_unaccounted(Side::A),
                self.t.a.backlog(),
                self.t.unaccounted_from(Side::B),
                self.t.first_unaccounted(Side::B),
                self.t.b.backlog(),
                self.t
                    .quiescent()
                    .err()
                    .unwrap_or_else(|| "every channel back at IDLE and EXPECT".into())
            ));
        }
        r.message_check = self.t.check().err();
        self.report
    }
}
