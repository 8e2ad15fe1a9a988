//! The core's synchronous reset, on the Verilated NIC: a reset at any cycle of
//! RX, TX and atomic traffic lets nothing out of the core while it is held or
//! as it is released, returns every register to its power-up value, tells
//! the driver that was using the card, and leaves a card that opens again
//! and carries traffic byte for byte.

use pendulum_driver::{Atomics, Card, Device, Error, RxPipe, TxPipe};
use pendulum_layout::atomic::{op, Verb};
use pendulum_layout::{global, pipe, pipe_page, Counter};
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

const RING: u32 = 64 * 1024;
/// RX pipe for Ethernet frames; the atomic unit's results go to pipe 1 and
/// its verbs come from TX pipe 1; TX pipe 0 sends frames.
const RX_PIPE: usize = 2;
const ATOMIC_RX: usize = 1;
const ATOMIC_TX: usize = 1;
const TX_PIPE: usize = 0;
/// The word the fetch-adds move.
const WORD: u32 = 0x40;

/// Every register software can read that has a power-up value: the global
/// page, the counters (LO then HI), and the pages of the pipes the test
/// uses and of one it never touches.
fn register_dump(card: &mut SimCard) -> Vec<(String, u32, u32)> {
    let mut regs: Vec<(String, u32)> = global::ALL
        .iter()
        .chain(global::LINK)
        .chain(global::FLOW)
        .map(|r| (r.name.to_string(), r.offset))
        .collect();
    for c in Counter::ALL {
        let r = c.reg();
        regs.push((format!("{}.lo", r.name), r.offset));
        regs.push((format!("{}.hi", r.name), r.offset + 4));
    }
    for p in [TX_PIPE, ATOMIC_RX, RX_PIPE, 3, 777] {
        for r in pipe::ALL {
            regs.push((format!("pipe {p} {}", r.name), pipe_page(p) + r.offset));
        }
    }
    regs.into_iter()
        .map(|(name, off)| {
            let v = card.read32(off).expect("register read");
            (name, off, v)
        })
        .collect()
}

/// The traffic of one test: an RX pipe, a TX pipe and the atomic unit.
struct Traffic {
    rx: RxPipe,
    tx: TxPipe,
    at: Atomics,
}

fn open_traffic(dev: &mut Device<SimCard>) -> Traffic {
    let at = dev.open_atomics(ATOMIC_RX, ATOMIC_TX, RING).unwrap();
    let rx = dev.open_rx_pipe(RX_PIPE, RING).unwrap();
    let tx = dev.open_tx_pipe(TX_PIPE, RING).unwrap();
    Traffic { rx, tx, at }
}

fn fetch_add(tag: u16) -> Verb {
    Verb {
        op: op::FETCH_ADD,
        tag,
        addr: WORD,
        operands: [1, 0, 0, 0],
        reserved_set: false,
    }
}

/// Frames from `g` for RX_PIPE, lengths from the generator.
fn frames(g: &mut FrameGen, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = g.random_len(60, 1500);
            g.frame(len, RX_PIPE)
        })
        .collect()
}

/// Runs until `want` frames arrived on the RX pipe, `sent` went out on the
/// wire, and every verb's result came back; returns the frames received and
/// the verb results' old values, in order.
fn collect(
    dev: &mut Device<SimCard>,
    t: &mut Traffic,
    want_rx: usize,
    verbs: usize,
) -> (Vec<Vec<u8>>, Vec<u64>) {
    let mut got = Vec::new();
    let mut olds = Vec::new();
    for _ in 0..400_000 {
        if got.len() >= want_rx && olds.len() >= verbs {
            break;
        }
        let batch = t.rx.recv_checked(dev).unwrap();
        let end = batch.end_unit();
        let n = batch.iter().count();
        for f in batch.iter() {
            got.push(f.unwrap().bytes.to_vec());
        }
        if n > 0 {
            t.rx.free(dev, end).unwrap();
        }
        for r in t.at.results(dev).unwrap() {
            olds.push(r.old);
        }
        dev.relax().unwrap();
    }
    (got, olds)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// A reset at a random cycle of mixed traffic, held 1 to 40 cycles.
    #[test]
    fn a_reset_mid_traffic_clears_the_card_and_it_works_again(
        seed in any::<u64>(),
        before in 0u64..6_000,
        hold in 1u64..40,
    ) {
        let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
        let mut t = open_traffic(&mut dev);
        let mut g = FrameGen::new(seed);
        let tx_frames = frames(&mut g, 24);
        let rx_frames = frames(&mut g, 24);

        // Traffic in every direction, then the reset somewhere in it.
        for f in &rx_frames {
            dev.card_mut().sim.eth.push(f.clone());
        }
        let refs: Vec<&[u8]> = tx_frames.iter().map(|f| f.as_slice()).collect();
        let posted = t.tx.send(&mut dev, &refs).unwrap();
        let verbs: Vec<Verb> = (0..40).map(fetch_add).collect();
        let submitted = t.at.submit(&mut dev, &verbs).unwrap();
        dev.card_mut().sim.run(before);
        let results_before = t.at.results(&mut dev).unwrap().len();
        dev.card_mut().sim.eth_tx.take_frames();
        dev.card_mut().sim.reset_card(hold);
        // Frames still queued at the MAC wait until the registers are
        // compared below, or they would be counted as they come in.
        let queued = dev.card_mut().sim.eth.take_queued();

        let sim = &dev.card().sim;
        prop_assert_eq!(sim.outputs_in_reset(), 0, "the core let something out during its reset");
        let pcie = sim.pcie.counters();
        prop_assert_eq!((pcie.stray_writes, pcie.tlp_errors), (0, 0));

        // The driver that was using the card is told.
        prop_assert!(matches!(dev.check_card(), Err(Error::CardReset)));
        prop_assert!(matches!(t.rx.recv_checked(&mut dev), Err(Error::CardReset)));

        // Every register reads as on a card that was just powered up.
        let mut card = dev.into_card();
        let mut fresh = SimCard::new(SimConfig::default());
        let (now, new) = (register_dump(&mut card), register_dump(&mut fresh));
        for (a, b) in now.iter().zip(&new) {
            prop_assert_eq!(a, b, "register differs from power-up after the reset");
        }

        for f in queued {
            card.sim.eth.push(f);
        }
        // Until software opens pipes again, the card writes nothing to host
        // memory: a frame for a pipe that was on is dropped, and counted.
        let writes = card.sim.pcie.counters().dma_writes;
        card.sim.eth.push(g.frame(200, RX_PIPE));
        card.sim.run(3_000);
        prop_assert_eq!(card.sim.pcie.counters().dma_writes, writes, "a DMA write after the reset, before any pipe was opened");
        let off_drops = card.read32(Counter::DropPipeOff.reg().offset).unwrap();
        prop_assert!(off_drops >= 1, "the frame for a pipe the reset switched off was not counted");

        // Open again: traffic goes through, byte for byte.
        let mut dev = Device::open(card).unwrap();
        let mut t = open_traffic(&mut dev);
        let tx_after = frames(&mut g, 16);
        let rx_after = frames(&mut g, 16);
        for f in &rx_after {
            dev.card_mut().sim.eth.push(f.clone());
        }
        let refs: Vec<&[u8]> = tx_after.iter().map(|f| f.as_slice()).collect();
        prop_assert_eq!(t.tx.send(&mut dev, &refs).unwrap(), tx_after.len());
        let verbs: Vec<Verb> = (0..8).map(fetch_add).collect();
        prop_assert_eq!(t.at.submit(&mut dev, &verbs).unwrap(), 8);
        let (got, olds) = collect(&mut dev, &mut t, rx_after.len(), verbs.len());
        prop_assert!(t.tx.wait_idle(&mut dev, 1_000_000), "TX did not finish after the reset");
        prop_assert!(dev.card_mut().sim.drain(100_000));

        // RX: frames still queued at the MAC when the reset came may arrive
        // (whole and unchanged) or be dropped while no pipe was on; what
        // arrives ends with every frame sent after it, in order.
        let old: std::collections::HashSet<&Vec<u8>> = rx_frames.iter().collect();
        let split = got.len().saturating_sub(rx_after.len());
        for f in &got[..split] {
            prop_assert!(old.contains(f), "a frame arrived that nobody sent");
        }
        prop_assert_eq!(&got[split..], &rx_after[..]);
        // TX: exactly what was sent after the reset; nothing from before it.
        let out = dev.card_mut().sim.eth_tx.take_frames();
        prop_assert_eq!(out, tx_after);
        // Atomics: the memory is kept across a reset. The word holds what the
        // fetch-adds that ran before it made: at least those whose results
        // came back, at most all submitted. The new ones count on from there.
        prop_assert_eq!(olds.len(), 8);
        let start = olds[0];
        prop_assert!(
            (results_before as u64..=submitted as u64).contains(&start),
            "word reads {} after the reset; {} results came back, {} verbs were submitted",
            start, results_before, submitted
        );
        for (k, o) in olds.iter().enumerate() {
            prop_assert_eq!(*o, start + k as u64);
        }
        let _ = posted;
        let c = dev.counters().unwrap();
        prop_assert_eq!(c.reg_errors, 0);
    }
}

/// A card held in reset answers no register access and takes no frame; the
/// access waits and is answered once the tables are clear.
#[test]
fn a_register_read_waits_out_the_reset_and_the_clear() {
    let mut card = SimCard::new(SimConfig::default());
    card.sim.run(2_000);
    card.write32(global::SCRATCH.offset, 0x1234_5678).unwrap();
    assert_eq!(card.read32(global::SCRATCH.offset).unwrap(), 0x1234_5678);
    card.sim.assert_reset();
    card.sim.run(10);
    card.sim.release_reset();
    let start = card.sim.cycle();
    assert_eq!(card.read32(global::SCRATCH.offset).unwrap(), 0);
    let waited = card.sim.cycle() - start;
    assert!(
        waited >= pendulum_layout::params::RESET_CLEAR_CYCLES as u64,
        "the read was answered {waited} cycles after the release, before the tables were clear"
    );
    assert_eq!(card.sim.outputs_in_reset(), 0);
}

/// A reset of one card of a linked pair, at a random point of traffic both
/// ways: the link comes Up again once that card is opened again, nothing is
/// delivered twice or changed, and messages sent after it go through once.
#[test]
fn a_reset_of_one_linked_card_brings_the_link_back() {
    use pendulum_driver::LinkState;
    use pendulum_testbench::acp_traffic::{AcpTraffic, Endpoint};
    use pendulum_testbench::models::LinkFaults;
    use pendulum_testbench::pair::{PairCard, Side};
    use std::collections::HashMap;

    const LINK_RING: u32 = 64 * 1024;
    for (polls, hold) in [(0u64, 1u64), (3, 7), (9, 30), (20, 2)] {
        let mut t = AcpTraffic::new_up(SimConfig::default(), LinkFaults::default(), LINK_RING)
            .expect("link up");
        t.a.queue(32);
        t.b.queue(32);
        for _ in 0..polls {
            t.poll().unwrap();
        }
        {
            let mut p = t.pair.borrow_mut();
            p.side(Side::A).assert_reset();
            p.run(hold);
            p.side(Side::A).release_reset();
        }
        assert_eq!(t.pair.borrow().a.outputs_in_reset(), 0);
        assert!(matches!(t.a.dev.check_card(), Err(Error::CardReset)));

        // A opens its card again, with new ids; B goes on as it was.
        let card = PairCard::new(t.pair.clone(), Side::A);
        let mut dev = Device::open(card).unwrap();
        let link = dev
            .open_link_seeded(
                pendulum_testbench::acp_traffic::LINK_RX_PIPE,
                1,
                LINK_RING,
                0x5555_0001,
            )
            .unwrap();
        const A2: u64 = 1 << 20;
        let old_a = std::mem::replace(&mut t.a, Endpoint::new(dev, link, A2));
        assert!(
            t.wait_up(200_000).unwrap(),
            "polls {polls}: the link did not come back Up"
        );
        assert_eq!(t.a.dev.link_state().unwrap(), LinkState::Up);
        let b_mark = t.b.sent.len();
        t.b.queue(16);
        t.a.queue(16);
        let mut done = false;
        for _ in 0..20_000 {
            t.poll().unwrap();
            let b_new: Vec<u64> = t.b.sent[b_mark..].to_vec();
            done = t.a.backlog() == 0
                && t.b.backlog() == 0
                && t.a
                    .sent
                    .iter()
                    .all(|id| t.b.received.iter().any(|r| r.0 == *id))
                && b_new
                    .iter()
                    .all(|id| t.a.received.iter().any(|r| r.0 == *id));
            if done {
                break;
            }
        }
        assert!(
            done,
            "polls {polls}: messages sent after the reset did not all arrive: A backlog {} sent {} received {} returned {}; B backlog {} sent {} (new {}) received {} returned {}; old A received {}; states A {:?} B {:?}",
            t.a.backlog(), t.a.sent.len(), t.a.received.len(), t.a.returned.len(),
            t.b.backlog(), t.b.sent.len(), t.b.sent.len() - b_mark, t.b.received.len(), t.b.returned.len(),
            old_a.received.len(),
            t.a.dev.link_state(), t.b.dev.link_state(),
        );
        // Nothing arrives twice (the old A's and the new A's receipts
        // together) and nothing arrives changed.
        let mut seen: HashMap<u64, usize> = HashMap::new();
        for (id, _) in old_a
            .received
            .iter()
            .chain(&t.a.received)
            .chain(&t.b.received)
        {
            *seen.entry(*id).or_default() += 1;
        }
        if let Some((id, n)) = seen.iter().find(|(_, n)| **n > 1) {
            panic!("polls {polls}: message {id:#x} delivered {n} times");
        }
        assert_eq!(old_a.corrupt + t.a.corrupt + t.b.corrupt, 0);
    }
}

/// CYCLES, the card's hardware time: two reads N cycles apart differ by N
/// (both halves, LO latching HI), a write is refused as read-only, and a
/// reset starts it again from 0.
#[test]
fn the_cycle_counter_counts_every_cycle_and_a_reset_restarts_it() {
    let mut card = SimCard::new(SimConfig::default());
    card.sim.run(1_000);
    let read = |card: &mut SimCard| {
        let lo = card.read32(global::CYCLES.offset).unwrap() as u64;
        let hi = card.read32(global::CYCLES.offset + 4).unwrap() as u64;
        hi << 32 | lo
    };
    let (c1, v1) = (card.sim.cycle(), read(&mut card));
    // The answer is the count as the read reaches it: after the call, before its answer.
    let answered = card.sim.cycle();
    assert!(
        (c1 - 50..=answered).contains(&v1),
        "CYCLES read {v1}, asked at simulated cycle {c1}, answered at {answered}"
    );
    card.sim.run(123_457);
    let (c2, v2) = (card.sim.cycle(), read(&mut card));
    assert_eq!(
        v2 - v1,
        c2 - c1,
        "CYCLES moved by other than the cycles between the reads"
    );

    let errors = card.read32(global::REG_ERRORS.offset).unwrap();
    card.write32(global::CYCLES.offset, 5).unwrap();
    assert_eq!(card.read32(global::REG_ERRORS.offset).unwrap(), errors + 1);
    let cause = card.read32(global::LAST_REG_ERROR.offset).unwrap()
        >> pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT;
    assert_eq!(cause, pendulum_layout::RegError::ReadOnly as u32);
    assert!(read(&mut card) > v2, "a write moved the counter back");

    card.sim.reset_card(10);
    let released = card.sim.cycle();
    let v3 = read(&mut card);
    assert!(
        v3 <= card.sim.cycle() - released,
        "CYCLES read {v3} {} cycles after the reset: it did not restart",
        card.sim.cycle() - released
    );
}
