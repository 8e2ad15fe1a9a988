//! One traffic API (`pendulum_driver::EthernetPort`) for both simulated
//! cards: the same run of frames, injected, steered, received, echoed and
//! collected through it, gives the same frames byte for byte, the same
//! counters and the same cycles on the Verilated NIC in process (`SimCard`)
//! and in the simulator process (`sim:`). A change to either card's side of
//! the trait (or to `pendulum-sim serve`'s) that moves other frames fails here.
//! The mock card (`FakeCard::with_mac`) plays the card's rules, not its
//! timing: it must receive the same frames on each pipe and send the same
//! frames, with the same counts.

use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::layout::frame::{ARP_FRAME_BYTES, ETHERTYPE_ARP};
use pendulum_driver::layout::params::MAX_FRAME_BYTES;
use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Card, Counters, Device, EthernetPort, FlowKey, RxPipe, TxPipe};
use pendulum_testbench::models::{flow_frame, pad_to_min};
use pendulum_testbench::{SimCard, SimConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

/// What a card did with the traffic of [`run_traffic`].
#[derive(Debug, PartialEq)]
struct Trace {
    /// Per RX pipe, the frames the driver received, in order.
    received: Vec<Vec<Vec<u8>>>,
    /// What the card sent on its Ethernet TX port, in order.
    sent: Vec<Vec<u8>>,
    /// Frames a second `collect` returned (none: the first took them).
    collected_again: usize,
    counters: Counters,
    /// Cycles from the first injection to the end of the drain.
    cycles: u64,
}

/// The flow bound to pipe 0; its twin on port 9 is left to the fallback.
fn flow_a() -> FlowKey {
    FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 5000, 7)
}

/// The traffic: frames of two flows of random lengths, an ARP frame (not IP:
/// the default pipe), a frame whose IP length disagrees with its wire length
/// and one of an unknown EtherType (both carried as they are: the ring's
/// LEN is the wire's), and one over the MTU (dropped by the card), in two
/// injections, the second after the first frames were received.
fn traffic() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let flow_b = FlowKey {
        dport: 9,
        ..flow_a()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let mut frame = |seq: u64| {
        let flow = if rng.gen_bool(0.5) { flow_a() } else { flow_b };
        flow_frame(&flow, seq, rng.gen_range(60..=1518))
    };
    let mut first: Vec<Vec<u8>> = (0..40).map(&mut frame).collect();
    let mut short = frame(40);
    short.truncate(short.len() - 10);
    let mut arp = vec![0u8; ARP_FRAME_BYTES as usize];
    arp[..6].fill(0xFF);
    arp[12..14].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    arp[14..]
        .iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = i as u8);
    pad_to_min(&mut arp);
    let mut unknown = frame(41);
    unknown[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
    let mut too_long = frame(100);
    too_long.resize(MAX_FRAME_BYTES as usize + 1, 0x77);
    first.insert(10, short);
    first.insert(20, arp);
    first.insert(30, unknown);
    first.insert(35, too_long);
    let second = (42..100).map(frame).collect();
    (first, second)
}

/// The frames of `frames` the card takes, as the driver hands them out:
/// every frame within the MTU, as it came off the wire.
fn accepted<'a>(frames: impl Iterator<Item = &'a Vec<u8>>) -> Vec<Vec<u8>> {
    frames
        .filter(|f| f.len() <= MAX_FRAME_BYTES as usize)
        .cloned()
        .collect()
}

/// Receives what waits on `rx` and sends copies out on `tx`; the frames.
fn echo<C: Card>(
    dev: &mut Device<C>,
    rx: &mut RxPipe,
    tx: &mut TxPipe,
) -> pendulum_driver::Result<Vec<Vec<u8>>> {
    let batch = rx.recv(dev);
    let copies = batch
        .iter()
        .map(|f| f.map(|f| f.bytes.to_vec()))
        .collect::<pendulum_driver::Result<Vec<_>>>()?;
    let end = batch.end_unit();
    if copies.is_empty() {
        return Ok(copies);
    }
    rx.free(dev, end)?;
    let refs: Vec<&[u8]> = copies.iter().map(Vec::as_slice).collect();
    let mut sent = 0;
    while sent < refs.len() {
        let n = tx.send(dev, &refs[sent..])?;
        if n == 0 {
            dev.relax()?;
        }
        sent += n;
    }
    Ok(copies)
}

/// Flow A to pipe 0, flow B left to the fallback (narrowed to pipe 1),
/// non-IP to pipe 1; frames from RX pipe p go back out on TX pipe p.
/// The same code for every card: only the type parameter differs.
fn run_traffic<C: Card + EthernetPort>(mut dev: Device<C>) -> Trace {
    let mut rx: Vec<RxPipe> = (0..2)
        .map(|p| dev.open_rx_pipe(p, 64 * 1024).unwrap())
        .collect();
    let mut tx: Vec<TxPipe> = (0..2)
        .map(|p| dev.open_tx_pipe(p, 64 * 1024).unwrap())
        .collect();
    rx[0].bind(&mut dev, flow_a()).unwrap();
    dev.set_fallback_pipes(1, 1).unwrap();
    dev.set_default_pipe(1).unwrap();

    let (first, second) = traffic();
    let expected = accepted(first.iter().chain(&second)).len();
    let start = dev.card_mut().cycles().unwrap();
    dev.card_mut().inject(&first).unwrap();
    let mut received = vec![Vec::new(); 2];
    let mut second = Some(second);
    let mut polls = 0;
    while received.iter().map(Vec::len).sum::<usize>() < expected {
        let mut any = false;
        for p in 0..2 {
            let got = echo(&mut dev, &mut rx[p], &mut tx[p]).unwrap();
            any |= !got.is_empty();
            received[p].extend(got);
        }
        if any {
            if let Some(s) = second.take() {
                dev.card_mut().inject(&s).unwrap();
            }
        } else {
            polls += 1;
            assert!(polls < 1_000_000, "traffic stalled: {received:?}");
            dev.relax().unwrap();
        }
    }
    for t in &mut tx {
        assert!(
            t.wait_idle(&mut dev, 1_000_000),
            "TX pipe {} stuck",
            t.index()
        );
    }
    let card = dev.card_mut();
    assert!(card.drain(1_000_000).unwrap(), "the card did not drain");
    let cycles = card.cycles().unwrap() - start;
    let sent = card.collect().unwrap();
    let collected_again = card.collect().unwrap().len();
    Trace {
        received,
        sent,
        collected_again,
        counters: dev.counters().unwrap(),
        cycles,
    }
}

#[test]
fn both_simulated_cards_move_the_same_frames_byte_for_byte_in_the_same_cycles() {
    let in_process = run_traffic(Device::open(SimCard::new(SimConfig::default())).unwrap());
    let s = common::Server::start("traffic");
    let process = run_traffic(pendulum_driver::open(&s.address()).unwrap());

    // The run is what it should be on the in-process card...
    let (first, second) = traffic();
    let good = accepted(first.iter().chain(&second));
    let steered = |f: &Vec<u8>| FlowKey::from_frame(f) == Some(flow_a());
    let want: Vec<Vec<Vec<u8>>> = [true, false]
        .iter()
        .map(|&a| good.iter().filter(|f| steered(f) == a).cloned().collect())
        .collect();
    for (p, (got, want)) in in_process.received.iter().zip(&want).enumerate() {
        same_frames(
            got,
            want,
            &format!("in process: RX pipe {p}, against the steering rule"),
        );
    }
    let mut sent = in_process.sent.clone();
    let mut all_good = good.clone();
    sent.sort();
    all_good.sort();
    same_frames(
        &sent,
        &all_good,
        "in process: sent, against received (sorted)",
    );
    assert_eq!(in_process.collected_again, 0);
    let c = &in_process.counters;
    assert_eq!(
        (c.rx_frames, c.tx_frames, c.drop_malformed, c.drops()),
        (good.len() as u64, good.len() as u64, 1, 1)
    );

    // ...and the same, byte for byte and cycle for cycle, on the other.
    for p in 0..2 {
        same_frames(
            &process.received[p],
            &in_process.received[p],
            &format!("sim: against in process, RX pipe {p}"),
        );
    }
    same_frames(
        &process.sent,
        &in_process.sent,
        "sim: against in process, sent",
    );
    assert_eq!(process.counters, in_process.counters);
    assert_eq!(process.collected_again, 0);
    assert_eq!(process.cycles, in_process.cycles, "cycles");
    assert!(process == in_process);
}

#[test]
fn the_mock_card_receives_and_sends_the_frames_the_verilated_card_does() {
    let card = run_traffic(Device::open(SimCard::new(SimConfig::default())).unwrap());
    let fake = run_traffic(Device::open(FakeCard::new().with_mac()).unwrap());
    for p in 0..2 {
        same_frames(
            &fake.received[p],
            &card.received[p],
            &format!("mock against Verilated, RX pipe {p}"),
        );
    }
    // Two TX pipes interleave on the wire by timing, which the mock does
    // not model; each pipe's frames keep their order.
    let (mut fake_sent, mut card_sent) = (fake.sent.clone(), card.sent.clone());
    fake_sent.sort();
    card_sent.sort();
    same_frames(
        &fake_sent,
        &card_sent,
        "mock against Verilated, sent (sorted)",
    );
    assert_eq!(fake.collected_again, 0);
    // Every count but those of notifications and completions, which depend
    // on timing.
    let rules = |c: &Counters| Counters {
        notifications: 0,
        tx_completions: 0,
        ..c.clone()
    };
    assert_eq!(rules(&fake.counters), rules(&card.counters));
}

/// Fails, naming the first frame that differs (not printing them all),
/// unless `got` and `want` hold the same frames in the same order.
fn same_frames(got: &[Vec<u8>], want: &[Vec<u8>], what: &str) {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        let len = |f: Option<&Vec<u8>>| f.map(Vec::len);
        panic!(
            "{what}: {} frames, {} wanted; frame {i} differs ({:?} bytes, {:?} wanted)",
            got.len(),
            want.len(),
            len(got.get(i)),
            len(want.get(i))
        );
    }
}
