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
        let end = batch.end_slot();
        let n = batch.iter().count();
        for f in batch.iter() {
            got.push(f.unwrap().to_vec());
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
