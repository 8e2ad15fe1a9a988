//! The merged decision on the Verilated pair (`pendulum_layout::acp::machine`:
//! COMMIT b with OFFER b̄ in one record): under load a channel moves one
//! payload per round trip, and what the merge adds is seen on the wire.

use pendulum_layout::acp::machine::moves;
use pendulum_layout::acp::{
    tx_state, BYTE_CHANNEL, BYTE_OPCODE, BYTE_STATE, BYTE_TRANSITION, OP_ENTANGLE, OP_OFFER,
    OP_OFFER_VERB,
};
use pendulum_layout::atomic::{op, status, Verb};
use pendulum_layout::params::ACP_CHANNELS as K;
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::pair::Side;
use pendulum_testbench::SimConfig;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Moves seen on the wire: a side's role changing its alternation bit
/// with the transition byte naming the move.
#[derive(Default)]
struct Seen {
    /// Per side and channel, the last state byte stated. (Maps, not
    /// `[_; K]`: `Default` is derived for arrays of at most 32.)
    last: [HashMap<usize, u8>; 2],
    /// A's sender role passed to the next payload on its echo (PASSED).
    passed: u64,
    /// Of those, the ones stated as COMMIT: the decision on the wire
    /// without the next payload's offer.
    passed_alone: u64,
    /// A's sender role was confirmed otherwise (by a STATE proof).
    confirmed: u64,
    /// B delivered and stored the next payload in one move (DELIVER_STORE).
    deliver_store: u64,
    /// B delivered on a plain decision (DELIVER).
    deliver: u64,
    /// A sent OFFER and OFFER_VERB records folding a decision (state COMMIT_OFFER).
    folded_offers: u64,
    folded_verbs: u64,
}

fn watch(t: &AcpTraffic) -> Rc<RefCell<Seen>> {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let s = seen.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |_, side, rec| {
        if rec[BYTE_OPCODE] == OP_ENTANGLE {
            return;
        }
        let mut s = s.borrow_mut();
        let (st, tr) = (rec[BYTE_STATE], rec[BYTE_TRANSITION]);
        let ch = rec[BYTE_CHANNEL] as usize % K;
        let i = (side == Side::B) as usize;
        if side == Side::A && st & 7 == tx_state::COMMIT_OFFER {
            s.folded_offers += (rec[BYTE_OPCODE] == OP_OFFER) as u64;
            s.folded_verbs += (rec[BYTE_OPCODE] == OP_OFFER_VERB) as u64;
        }
        if let Some(&before) = s.last[i].get(&ch) {
            let tx_flip = (before ^ st) & 0x08 != 0;
            let rx_flip = (before ^ st) & 0x40 != 0;
            // PASSED may be followed at once by OFFER_NEXT (a next payload
            // loaded meanwhile), so it is told by the states.
            let was_merged = before & 7 == tx_state::COMMIT_OFFER;
            let deciding = st & 7 == tx_state::COMMIT || st & 7 == tx_state::COMMIT_OFFER;
            match (side, tr) {
                (Side::A, _) if tx_flip && was_merged && deciding => {
                    s.passed += 1;
                    s.passed_alone += (st & 7 == tx_state::COMMIT) as u64;
                }
                (Side::A, _) if tx_flip => s.confirmed += 1,
                (Side::B, moves::DELIVER_STORE) if rx_flip => s.deliver_store += 1,
                (Side::B, moves::DELIVER) if rx_flip => s.deliver += 1,
                _ => {}
            }
        }
        s.last[i].insert(ch, st);
    }));
    seen
}

#[test]
fn under_load_a_decision_travels_with_the_next_offer() {
    for latency in [20, 100] {
        let mut t = AcpTraffic::new(
            SimConfig::default(),
            LinkFaults {
                latency,
                seed: 5,
                ..Default::default()
            },
            256 * 1024,
        )
        .expect("open both cards");
        assert!(t.wait_up(20_000).unwrap(), "the link never came up");
        let seen = watch(&t);
        let n = 40 * K as u64;
        t.a.queue(n);
        assert!(t.run_until_settled(3_000_000).unwrap(), "not settled");
        t.check()
            .unwrap_or_else(|e| panic!("latency {latency}: {e}"));
        assert_eq!(t.b.received.len() as u64, n);
        let (ca, cb) = t.counters().unwrap();
        assert_eq!((ca.reversals, cb.reversals), (0, 0));
        assert_eq!((ca.commits, cb.delivered), (n, n));
        let s = seen.borrow();
        // With a backlog every channel holds a next payload, so most
        // deliveries store the next one in the same move, and most
        // confirmations come with the next payload's echo. (A state seen
        // only in a record that was restated later is missed here, so the
        // counts are lower bounds.)
        assert!(s.folded_offers > 0, "latency {latency}: no folded offer");
        assert!(
            s.deliver_store * 2 > n,
            "latency {latency}: {} of {n} deliveries stored the next payload ({} plain)",
            s.deliver_store,
            s.deliver
        );
        assert!(
            s.passed * 2 > n,
            "latency {latency}: {} of {n} confirmations by the next echo ({} by proof)",
            s.passed,
            s.confirmed
        );
        // A payload waiting joins the decision PASSED makes in the same
        // move, so a decision goes out alone only when none waits: at the
        // end of the backlog, once per channel, and in gaps of the host's
        // feed.
        assert!(
            s.passed_alone <= 2 * K as u64,
            "latency {latency}: {} of {} decisions made by PASSED went out without the next offer",
            s.passed_alone,
            s.passed
        );
    }
}

/// Remote verbs merge too: a fetch-and-add's decision travels with the
/// offer of the next verb of its channel, B runs the next one as it makes
/// the first permanent, and A hands up the first's result kept from the
/// echo it decided on.
#[test]
fn remote_verbs_are_decided_with_the_next_offer() {
    let mut t = pendulum_testbench::acp_measure::pair_with_channels(
        K as u32,
        LinkFaults {
            latency: 100,
            seed: 6,
            ..Default::default()
        },
    );
    let seen = watch(&t);
    let n = 40 * K as u32;
    let verbs: Vec<Verb> = (0..n)
        .map(|i| Verb {
            op: op::FETCH_ADD,
            tag: i as u16,
            addr: i * 64,
            operands: [1 + i as u64, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    let (mut posted, mut results) = (0, Vec::new());
    let end = t.cycle() + 2_000_000;
    while results.len() < n as usize && t.cycle() < end {
        posted += t.a.link.send_verbs(&mut t.a.dev, &verbs[posted..]).unwrap();
        for m in t.a.link.recv(&mut t.a.dev).unwrap() {
            results.push(m.verb_result().expect("only verb results come back"));
        }
        t.pair.borrow_mut().run(8);
    }
    assert_eq!(results.len(), n as usize, "results missing");
    // Each verb on its own line, applied once: every result saw 0, and
    // each tag came back once.
    let mut tags: Vec<u16> = results.iter().map(|r| r.tag).collect();
    tags.sort_unstable();
    tags.dedup();
    assert_eq!(tags.len(), n as usize, "a result came back twice");
    for r in &results {
        assert_eq!((r.status, r.old), (status::OK, 0), "verb {}", r.tag);
    }
    let (ca, _) = t.counters().unwrap();
    assert_eq!(ca.reversals, 0);
    let s = seen.borrow();
    assert!(s.folded_verbs > 0, "no folded verb offer");
    assert!(
        s.deliver_store * 2 > n as u64,
        "{} of {n} verbs made permanent with the next one run ({} plain)",
        s.deliver_store,
        s.deliver
    );
}

/// On a port paced at 100 GbE the slot logic changes its choice while the
/// port waits (`SlotChoice`: news takes a slot chosen only to restate, and
/// a waiting record that restates for want of news is dropped for the
/// record after it). Both directions loaded, records lost and corrupted:
/// every message arrives once, none is reversed without a fault, and the
/// decision still travels with the next offer.
#[test]
fn a_paced_port_keeps_every_promise_both_ways() {
    let mut t = AcpTraffic::new(
        SimConfig::default(),
        LinkFaults {
            latency: 25,
            loss_rate: 1e-3,
            corrupt_rate: 1e-3,
            seed: 11,
            ..Default::default()
        },
        256 * 1024,
    )
    .expect("open both cards");
    pendulum_testbench::acp_measure::pace(
        &mut t,
        pendulum_testbench::acp_measure::RECORDS_PER_CYCLE_100GBE,
    );
    assert!(t.wait_up(40_000).unwrap(), "the link never came up");
    let seen = watch(&t);
    let n = 40 * K as u64;
    t.a.queue(n);
    t.b.queue(n);
    assert!(t.run_until_settled(4_000_000).unwrap(), "not settled");
    t.check().unwrap_or_else(|e| panic!("paced: {e}"));
    assert_eq!(t.b.received.len() as u64, n);
    assert_eq!(t.a.received.len() as u64, n);
    let s = seen.borrow();
    assert!(
        s.passed * 2 > n,
        "paced: {} of {n} confirmations by the next echo",
        s.passed
    );
}

/// A remote verb's echo waits for its result from B's atomic unit, and
/// goes out as soon as the result is back: the store is news only then.
/// (Were it news at the store, every channel waiting for a result would
/// keep a news bit no record can clear, and under load the news slots
/// would go round those channels while a result that is back waits its
/// turn: about K slots.) Counted on the wire, from B's first record that
/// states a verb stored without its echo to B's first echo of it.
#[test]
fn a_remote_verbs_echo_leaves_when_its_result_is_back() {
    let mut t = pendulum_testbench::acp_measure::pair_with_channels(
        K as u32,
        pendulum_testbench::acp_measure::clean(25),
    );
    // Per channel: B's receiver bit last echoed, and since when a newer
    // tentative state has been stated without its echo.
    #[derive(Default)]
    struct Gaps {
        echoed_bit: HashMap<usize, u8>,
        waiting_since: HashMap<usize, u64>,
        echoes: u64,
        late: u64,
        worst: u64,
    }
    let gaps = Rc::new(RefCell::new(Gaps::default()));
    let g = gaps.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        let op = rec[BYTE_OPCODE];
        if side != Side::B || op == OP_ENTANGLE {
            return;
        }
        let mut g = g.borrow_mut();
        let (st, ch) = (rec[BYTE_STATE], rec[BYTE_CHANNEL] as usize % K);
        if (st >> 4) & 3 != pendulum_layout::acp::rx_state::TENTATIVE {
            return;
        }
        let bit = st & 0x40;
        if op == pendulum_layout::acp::OP_ECHO {
            if g.echoed_bit.get(&ch) != Some(&bit) {
                g.echoes += 1;
                if let Some(since) = g.waiting_since.remove(&ch) {
                    let gap = cycle - since;
                    g.worst = g.worst.max(gap);
                    g.late += (gap > 8) as u64;
                }
            }
            g.echoed_bit.insert(ch, bit);
        } else if g.echoed_bit.get(&ch).is_some_and(|&b| b != bit) {
            g.waiting_since.entry(ch).or_insert(cycle);
        }
    }));
    let mut next = 0u32;
    let end = t.cycle() + 30_000;
    while t.cycle() < end {
        pendulum_testbench::acp_measure::feed_verbs(&mut t, &mut next);
    }
    let g = gaps.borrow();
    assert!(g.echoes > 3_000, "only {} verbs echoed", g.echoes);
    // The unit takes 2 cycles and a record 2 more to form: a gap over 8
    // cycles is a result that waited for a slot.
    assert!(
        g.late * 100 <= g.echoes,
        "{} of {} verb echoes left over 8 cycles after B stated the verb stored (worst {})",
        g.late,
        g.echoes,
        g.worst
    );
}

/// A record that only restates goes to the port only when the port holds
/// none (`RecordForm`'s `port_idle`, judged from registers): the port's
/// rhythm and that judgement must not fall into step so that a channel
/// goes unstated. (Judged from the port's takes instead of its ready, a
/// port that takes every cycle and the link settled at half rate, and one
/// message on an idle link with 8 channels never left: the peer never
/// stated its channel.) Each port rhythm, 4, 8 and 16 channels: one
/// message on an idle link, then a backlog one way, then both ways.
#[test]
fn every_channel_is_stated_whatever_the_ports_rhythm() {
    for k in [4u32, 8, 16] {
        for rate in [None, Some(0.5)] {
            let mut t = pendulum_testbench::acp_measure::pair_with_channels(
                k,
                pendulum_testbench::acp_measure::clean(25),
            );
            if let Some(r) = rate {
                pendulum_testbench::acp_measure::pace(&mut t, r);
            }
            // One message on an idle link, A alone (B only restates),
            // then both ways.
            t.pair.borrow_mut().run(1_000);
            t.a.queue(1);
            assert!(
                t.run_until_settled(100_000).unwrap(),
                "K = {k}, port rate {rate:?}: one message not delivered"
            );
            let n = 8 * k as u64;
            t.a.queue(n);
            assert!(
                t.run_until_settled(400_000).unwrap(),
                "K = {k}, port rate {rate:?}: A to B not settled ({} of {n} delivered)",
                t.b.received.len()
            );
            t.a.queue(n);
            t.b.queue(n);
            assert!(
                t.run_until_settled(400_000).unwrap(),
                "K = {k}, port rate {rate:?}: both ways not settled ({} and {} of {n} delivered)",
                t.b.received.len(),
                t.a.received.len()
            );
            t.check().unwrap();
            assert_eq!(t.b.received.len() as u64, 2 * n + 1);
            assert_eq!(t.a.received.len() as u64, n);
        }
    }
}

/// The restating share's bound, on an idle link: each side states every
/// channel in use at least once in 2^ACP_RESTATE_SHARE_LOG2 × K of its
/// slots, whatever the port's rhythm (every cycle, exactly every other
/// cycle, 100 GbE), so a lost record costs bounded time. (A port that
/// waits in step with the slot logic drops the restate before each share
/// slot, always the same channels' if the share took its channels from
/// the restating round.)
#[test]
fn every_channel_is_restated_within_the_shares_bound() {
    use pendulum_layout::params::ACP_RESTATE_SHARE_LOG2 as SHARE;
    for k in [8u32, 16] {
        for rate in [
            1.0,
            0.5,
            pendulum_testbench::acp_measure::RECORDS_PER_CYCLE_100GBE,
        ] {
            let mut t = pendulum_testbench::acp_measure::pair_with_channels(
                k,
                pendulum_testbench::acp_measure::clean(25),
            );
            pendulum_testbench::acp_measure::pace(&mut t, rate);
            t.pair.borrow_mut().run(2_000);
            // Per side: records sent, and per channel the count when it
            // was last stated and the longest run of records without it.
            type Gaps = [(u64, [u64; K], [u64; K]); 2];
            let gaps: Rc<RefCell<Gaps>> = Rc::new(RefCell::new([(0, [0; K], [0; K]); 2]));
            let g = gaps.clone();
            t.pair.borrow_mut().wire_tap = Some(Box::new(move |_, side, rec| {
                let mut g = g.borrow_mut();
                let s = &mut g[(side == Side::B) as usize];
                s.0 += 1;
                let ch = rec[BYTE_CHANNEL] as usize % K;
                s.2[ch] = s.2[ch].max(s.0 - s.1[ch]);
                s.1[ch] = s.0;
            }));
            t.pair.borrow_mut().run(20_000);
            let g = gaps.borrow();
            let bound = (1u64 << SHARE) * k as u64;
            for (side, s) in g.iter().enumerate() {
                for ch in 0..k as usize {
                    // (The last run, still open, counts too.)
                    let worst = s.2[ch].max(s.0 - s.1[ch]);
                    assert!(
                        worst <= bound,
                        "K = {k}, port rate {rate}: side {} left channel {ch} unstated for {worst} of its records (bound {bound}; {} records)",
                        ["A", "B"][side],
                        s.0
                    );
                }
            }
        }
    }
}

/// Under full load the restating share costs no slot news could use
/// (`SlotChoice`: the share yields its slot when the port took a record of
/// the channel it visits since its last visit). K = 16 at one-way latency
/// 2 is bound by the port paced at 100 GbE, not by the round trip: every
/// channel has its next payload waiting for a slot. Had the share kept one
/// slot in 2^ACP_RESTATE_SHARE_LOG2 to restate a channel waiting for its
/// echo, goodput would stay below 7/8 of the port's 33.3 B/cycle.
#[test]
fn the_restating_share_yields_its_slots_to_news_under_full_load() {
    use pendulum_testbench::acp_measure::{goodput, RECORDS_PER_CYCLE_100GBE};
    let port = RECORDS_PER_CYCLE_100GBE * 56.0;
    let [g, _] = goodput(16, 2, 40_000, true, 1);
    assert!(
        g >= 0.95 * port,
        "goodput {g:.2} B/cycle, {:.1} % of the paced port's {port:.2}",
        100.0 * g / port
    );
}

/// With few channels in use the round trip bounds goodput: each channel
/// moves one payload per round trip, so K channels carry K × 56 B per RTT.
/// Unpaced at one-way latency 25 (RTT 64), K = 1 and K = 4 reach 100 % of
/// that bound. A load that chooses its channel a cycle ahead (`LoadChoice`)
/// and skips the channel being decided on whenever a payload waits fell
/// into step with a lone channel's moves: its choice held only in the
/// cycles it was voided, and K = 1 moved a payload per two round trips
/// (48 % of the bound) while every test at K = 16 passed.
#[test]
fn each_of_a_few_channels_moves_a_payload_per_round_trip() {
    use pendulum_testbench::acp_measure::{goodput, rtt_cycles};
    let latency = 25;
    for k in [1u32, 4] {
        let [g, _] = goodput(k, latency, 20_000, false, 1);
        let bound = f64::from(k) * 56.0 / rtt_cycles(latency) as f64;
        assert!(
            g >= 0.9 * bound,
            "K = {k}: goodput {g:.3} B/cycle, {:.1} % of the round trip's bound {bound:.3}",
            100.0 * g / bound
        );
    }
}

/// Both directions loaded at once, K = 16 at one-way latency 2 with the
/// port paced at 100 GbE: bound by the port, each direction moves a
/// payload in every record. That takes an echo beside each payload (the
/// check word carries it, state bit 7) and the records of a channel
/// taking turns rather than crossing (one side holds a lone echo back
/// until it can fold it: `ChannelState::defer_echo`). Without either,
/// every other record of a channel was an echo alone and each direction
/// got half the port (16.7 B/cycle).
#[test]
fn both_directions_loaded_each_move_a_payload_per_record() {
    use pendulum_testbench::acp_measure::{goodput, RECORDS_PER_CYCLE_100GBE};
    let port = RECORDS_PER_CYCLE_100GBE * 56.0;
    let [ab, ba] = goodput(16, 2, 20_000, true, 2);
    for (dir, g) in [("A to B", ab), ("B to A", ba)] {
        assert!(
            g >= 0.9 * port,
            "{dir}: goodput {g:.2} B/cycle, {:.1} % of the paced port's {port:.2}",
            100.0 * g / port
        );
    }
}

/// After a delivery the receiver owes its proof until it hears the sender
/// at the new bit, and does not take an offer that is the first record it
/// hears there (`machine::hear`, "peer heard at b before"). A sender that
/// offers before it has stated the new bit otherwise (a payload loaded
/// before its IDLE record left, or a merged decision confirmed by a STATE)
/// states that offer twice (`ChannelState`'s `new_bit`), so the receiver
/// takes the second. Without it the offer waited for the restating share:
/// K = 16 unpaced at one-way latency 2, 56 offers in 100,000 cycles waited
/// more than RTT + 100 cycles for B's echo (up to 207); at K = 256 under
/// load the wait was thousands of cycles (`examples/acp_delivery_tail.rs`).
#[test]
fn an_offer_that_is_a_senders_first_record_at_its_bit_is_taken_without_a_restate() {
    use pendulum_layout::acp::{rx_state, PAYLOAD_OFFSET};
    use pendulum_testbench::acp_measure::{clean, pair_with_channels};
    use pendulum_testbench::acp_traffic::id_of;
    let latency = 2u32;
    let mut t = pair_with_channels(16, clean(latency));
    // Per channel: the id A offers last, the cycle it first did, and
    // whether B has not echoed it yet.
    let open = Rc::new(RefCell::new(vec![(None, 0u64, false); K]));
    let waits = Rc::new(RefCell::new(Vec::new()));
    let (o, w) = (open.clone(), waits.clone());
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        let op = rec[BYTE_OPCODE];
        if op == OP_ENTANGLE {
            return;
        }
        let ch = rec[BYTE_CHANNEL] as usize;
        let mut o = o.borrow_mut();
        if side == Side::A && op == OP_OFFER {
            let id = rec[PAYLOAD_OFFSET..].try_into().ok().and_then(id_of);
            if o[ch].0 != id {
                o[ch] = (id, cycle, true);
            }
        } else if side == Side::B
            && (rec[BYTE_STATE] >> 4) & 3 == rx_state::TENTATIVE
            && o[ch].2
            && cycle > o[ch].1 + latency as u64
        {
            w.borrow_mut().push(cycle - o[ch].1);
            o[ch].2 = false;
        }
    }));
    let start = t.cycle();
    while t.cycle() - start < 100_000 {
        if t.a.backlog() < 256 {
            t.a.queue(256);
        }
        t.poll().unwrap();
    }
    assert!(t.run_until_settled(1_000_000).unwrap());
    t.check().unwrap();
    let rtt = 2 * latency as u64 + 14;
    let waits = waits.borrow();
    let late: Vec<u64> = waits.iter().copied().filter(|&d| d > rtt + 100).collect();
    assert!(waits.len() > 10_000, "only {} offers echoed", waits.len());
    assert!(
        late.is_empty(),
        "{} of {} offers waited more than RTT + 100 = {} cycles for B's echo: {:?}",
        late.len(),
        waits.len(),
        rtt + 100,
        &late[..late.len().min(10)]
    );
}
