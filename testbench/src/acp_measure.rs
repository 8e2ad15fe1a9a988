//! Measurements of the ACP link on the Verilated pair, shared by
//! `pendulum-acp-bench` and `pendulum-atomics-bench`: goodput (one or both
//! directions, at the port's full rate or paced at 100 GbE), remote verbs
//! per cycle, and the time from an offer on the wire to its decision.

use crate::acp_traffic::AcpTraffic;
use crate::entry_tap::EntryTap;
use crate::models::{LinkFaults, PcieConfig};
use crate::pair::Side;
use crate::SimConfig;
use pendulum_layout::acp::{self, tx_state};
use pendulum_layout::atomic::{op, status, CommitWords, Request, Verb, WordOp};
use std::sync::{Arc, Mutex};

/// Records per cycle at 100 GbE with one record per 64-byte frame
/// (148.8 M frames/s: 64 B + 20 B of preamble and gap) at a 250 MHz clock.
pub const RECORDS_PER_CYCLE_100GBE: f64 = 100e9 / ((64.0 + 20.0) * 8.0) / 250e6;

/// Host rings of the pairs measured.
const RING: u32 = 256 * 1024;

/// Seed of the link model in every measurement.
pub const SEED: u64 = 2026;

/// A pair with the link up and `k` channels agreed (both ends' LINK_CHANNELS
/// set, then both links reset so they entangle with it).
pub fn pair_with_channels(k: u32, faults: LinkFaults) -> AcpTraffic {
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING).expect("open pair");
    for dev in [&mut t.a.dev, &mut t.b.dev] {
        dev.write(pendulum_layout::global::LINK_CHANNELS.offset, k)
            .unwrap();
        dev.reset_link().unwrap();
    }
    assert!(t.wait_up(100_000).unwrap(), "link did not come up");
    t
}

/// A fault-free link of one-way `latency`.
pub fn clean(latency: u32) -> LinkFaults {
    LinkFaults {
        latency,
        seed: SEED,
        ..Default::default()
    }
}

/// Paces both sides' physical layers at `records_per_cycle` (a slot is
/// offered whenever the running total crosses a whole record).
pub fn pace(t: &mut AcpTraffic, records_per_cycle: f64) {
    t.pair.borrow_mut().phy_ready = Some(Box::new(move |cycle, _| {
        let at = |c: u64| (c as f64 * records_per_cycle).floor();
        at(cycle + 1) > at(cycle)
    }));
}

/// The round trip issue #25's bounds name for a one-way link latency: the
/// wire both ways plus the 14 cycles of the two NICs' port registers and
/// record check (64, 214 and 514 cycles at 25, 100 and 250). The bench
/// prints the measured one beside it (one message on one idle channel).
pub fn rtt_cycles(latency: u32) -> u64 {
    2 * latency as u64 + 14
}

/// Record slots per cycle: 1 unpaced, [`RECORDS_PER_CYCLE_100GBE`] paced.
pub fn record_rate(paced: bool) -> f64 {
    if paced {
        RECORDS_PER_CYCLE_100GBE
    } else {
        1.0
    }
}

/// Goodput in payload bytes per cycle, A→B and B→A, over `cycles` of steady
/// sending (`directions` 1: A sends; 2: both do), after a warm-up. Every
/// message is checked delivered exactly once afterwards.
pub fn goodput(k: u32, latency: u32, cycles: u64, paced: bool, directions: u32) -> [f64; 2] {
    let mut t = pair_with_channels(k, clean(latency));
    if paced {
        pace(&mut t, RECORDS_PER_CYCLE_100GBE);
    }
    // The hosts keep a backlog of a few hundred messages: the link, not the
    // host, sets the rate.
    let top_up = |t: &mut AcpTraffic| {
        if t.a.backlog() < 256 {
            t.a.queue(256);
        }
        if directions == 2 && t.b.backlog() < 256 {
            t.b.queue(256);
        }
    };
    let warm = t.cycle() + 4 * latency as u64 + 2_000;
    while t.cycle() < warm {
        top_up(&mut t);
        t.poll().unwrap();
    }
    let (start, na, nb) = (t.cycle(), t.b.received.len(), t.a.received.len());
    while t.cycle() - start < cycles {
        top_up(&mut t);
        t.poll().unwrap();
    }
    let span = (t.cycle() - start) as f64;
    let bytes = |n: usize| n as f64 * acp::PAYLOAD_BYTES as f64 / span;
    let g = [
        bytes(t.b.received.len() - na),
        bytes(t.a.received.len() - nb),
    ];
    assert!(
        t.run_until_settled(50_000_000).unwrap(),
        "K={k} latency={latency}: did not settle"
    );
    t.check().expect("exactly once");
    g
}

/// What is offered: a host message or a remote verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Message,
    Verb,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::Verb => "verb",
        }
    }
}

/// For one transfer on an idle link with `k` channels in use: cycles from
/// its offer entering the wire at A to the first record of A's that states
/// the COMMIT decision, and, for a verb, to its final result landing in A's
/// host memory (the result comes with B's proof of delivery).
pub fn decision_cycles(latency: u32, k: u32, kind: Kind) -> (u64, Option<u64>) {
    let mut t = pair_with_channels(k, clean(latency));
    let offer_op = match kind {
        Kind::Message => acp::OP_OFFER,
        Kind::Verb => acp::OP_OFFER_VERB,
    };
    // (offer out, COMMIT decided, result written to host memory)
    type Seen = (Option<u64>, Option<u64>, Option<u64>);
    let seen: Arc<Mutex<Seen>> = Arc::new(Mutex::new((None, None, None)));
    let s = seen.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        let mut s = s.lock().unwrap();
        if side != Side::A {
            return;
        }
        if rec[acp::BYTE_OPCODE] == offer_op && s.0.is_none() {
            s.0 = Some(cycle);
        }
        if acp::sender_state(rec[acp::BYTE_STATE]) == tx_state::COMMIT
            && s.0.is_some()
            && s.1.is_none()
        {
            s.1 = Some(cycle);
        }
    }));
    let s = seen.clone();
    let mut entries = EntryTap::new(acp::message::KIND_VERB_RESULT, &[acp::RECORD_BYTES]);
    t.pair.borrow_mut().a.dma_tap = Some(Box::new(move |cycle, addr, data, strb| {
        let landed = !entries.write(addr, data, strb).is_empty();
        let mut s = s.lock().unwrap();
        if landed && s.2.is_none() {
            s.2 = Some(cycle);
        }
    }));
    match kind {
        Kind::Verb => {
            let v = Verb {
                op: op::FETCH_ADD,
                tag: 1,
                addr: 0,
                operands: [1, 0, 0, 0],
                reserved_set: false,
            };
            assert_eq!(t.a.link.send_verbs(&mut t.a.dev, &[v]).unwrap(), 1);
        }
        Kind::Message => t.a.queue(1),
    }
    let end = t.cycle() + 200_000;
    let done = |s: &Seen| s.1.is_some() && (kind == Kind::Message || s.2.is_some());
    while t.cycle() < end && !done(&seen.lock().unwrap()) {
        t.poll().unwrap();
    }
    let s = seen.lock().unwrap();
    let offer = s.0.expect("no offer");
    let commit = s.1.expect("no commit").saturating_sub(offer);
    (commit, s.2.map(|r| r.saturating_sub(offer)))
}

/// The remote verb a measurement streams, each on a 64-byte line of its own
/// (1,024 lines in turn, so none waits for another's line): a fetch-and-add,
/// or a one-slot commit that writes four words of its line and compares
/// none (`COMMIT_WORDS`, so it always succeeds and does its full work).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteOp {
    FetchAdd,
    CommitWords,
}

impl RemoteOp {
    /// The name `acp.json` gives it (`op` of a `remote_verbs` row).
    pub fn name(self) -> &'static str {
        match self {
            RemoteOp::FetchAdd => "fetch_add",
            RemoteOp::CommitWords => "commit_words",
        }
    }

    /// The opcode of its requests, and of the results they bring back.
    pub fn opcode(self) -> u8 {
        match self {
            RemoteOp::FetchAdd => op::FETCH_ADD,
            RemoteOp::CommitWords => op::COMMIT_WORDS,
        }
    }

    /// The `i`-th request of the stream (`i` also its tag).
    pub fn request(self, i: u32) -> Request {
        let addr = (i % 1024) * 64;
        match self {
            RemoteOp::FetchAdd => Request::Verb(Verb {
                op: self.opcode(),
                tag: i as u16,
                addr,
                operands: [1, 0, 0, 0],
                reserved_set: false,
            }),
            RemoteOp::CommitWords => four_word_write(i as u16, addr, i as u64),
        }
    }
}

/// A one-slot commit (`COMMIT_WORDS`) that writes `value` into four words
/// of the line at `addr` (words 0, 2, 4 and 6) and compares none: it always
/// succeeds and does its full work.
pub fn four_word_write(tag: u16, addr: u32, value: u64) -> Request {
    let mut ops = [WordOp::default(); 5];
    for (w, o) in ops.iter_mut().take(4).enumerate() {
        *o = WordOp {
            compare: false,
            write: true,
            word: 2 * w as u8,
            value,
        };
    }
    Request::Words(CommitWords {
        tag,
        addr,
        ops,
        reserved_set: false,
    })
}

/// A's host keeping a backlog of remote verbs of kind `op` for B, one
/// poll's worth: posts what fits of the next 64 (`next` numbers them),
/// takes what came back, and runs the pair 8 cycles. Returns the verb
/// results taken: final, of `op`'s opcode and executed (status OK); a
/// result of any other kind panics, so a rate is never made of refusals.
pub fn feed_requests(t: &mut AcpTraffic, stream: RemoteOp, next: &mut u32) -> u64 {
    let requests: Vec<Request> = (*next..*next + 64).map(|i| stream.request(i)).collect();
    *next += t.a.link.send_requests(&mut t.a.dev, &requests).unwrap() as u32;
    let got =
        t.a.link
            .recv(&mut t.a.dev)
            .unwrap()
            .iter()
            .filter_map(|m| m.verb_result())
            .inspect(|r| {
                assert!(
                    r.op == stream.opcode() && r.status == status::OK,
                    "{} stream: result {r:?}",
                    stream.name()
                )
            })
            .count() as u64;
    t.pair.borrow_mut().run(8);
    got
}

/// [`feed_requests`] with fetch-and-adds.
pub fn feed_verbs(t: &mut AcpTraffic, next: &mut u32) -> u64 {
    feed_requests(t, RemoteOp::FetchAdd, next)
}

/// Remote verbs of kind `op` per cycle A→B with `k` channels, measured
/// over `cycles` with A's host keeping a backlog ([`feed_requests`]).
pub fn remote_rate(op: RemoteOp, k: u32, latency: u32, cycles: u64, paced: bool) -> f64 {
    let mut t = pair_with_channels(k, clean(latency));
    if paced {
        pace(&mut t, RECORDS_PER_CYCLE_100GBE);
    }
    let mut next = 0u32;
    let warm = t.cycle() + 4 * latency as u64 + 2_000;
    while t.cycle() < warm {
        feed_requests(&mut t, op, &mut next);
    }
    let (start, mut got) = (t.cycle(), 0u64);
    while t.cycle() - start < cycles {
        got += feed_requests(&mut t, op, &mut next);
    }
    got as f64 / (t.cycle() - start) as f64
}

/// Bytes of host ring a link message or verb takes each way: the ring's
/// 16-byte entry header and the 64-byte message slot
/// (`ring::entry_units(64)` units of 16 bytes: 80 bytes).
pub const HOST_ENTRY_BYTES: u32 = pendulum_layout::ring::entry_units(acp::RECORD_BYTES as u32)
    * pendulum_layout::ring::UNIT_BYTES as u32;

/// Link messages (or remote verbs) per cycle a host can post and take at
/// most, whichever limit is lower:
/// - its PCIe link: each is one [`HOST_ENTRY_BYTES`] ring entry read from
///   the sender's TX ring (host->NIC) and one written into the receiver's
///   RX ring (NIC->host), streamed in full TLPs
///   ([`PcieConfig::streaming_bytes_per_cycle`]); notifications, read
///   requests and TX completions are left out, so the bound is generous;
/// - the NIC's DMA datapath, one 64-byte beat a cycle each way.
///
/// With Gen3 x16: 57.6 / 80 = 0.72 a cycle (the datapath allows 0.8).
pub fn host_entries_per_cycle(pcie: &PcieConfig) -> f64 {
    let entry = HOST_ENTRY_BYTES as f64;
    (pcie.streaming_bytes_per_cycle() / entry).min(pendulum_layout::BEAT_BYTES as f64 / entry)
}
