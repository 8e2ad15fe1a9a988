//! `EthernetPort` on the mock card (`FakeCard::with_mac`): frames injected
//! are steered, checked and received as the card does it, and frames sent
//! come out whole, without Verilator. (`pendulum-testbench`'s
//! `tests/nic/traffic.rs` runs the same traffic on the Verilated cards and this
//! one and compares them.)

use crate::common::udp_frame;
use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::layout::frame::ETHERTYPE_ARP;
use pendulum_driver::mock::{FakeCard, MAX_FRAME_BYTES};
use pendulum_driver::{Device, Error, EthernetPort, FlowKey, RxPipe};

/// Receives `n` frames on `rx`, freeing each batch.
fn receive(dev: &mut Device<FakeCard>, rx: &mut RxPipe, n: usize) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    while got.len() < n {
        assert!(
            rx.wait(dev, 10),
            "{} frames on pipe {}",
            got.len(),
            rx.index()
        );
        let batch = rx.recv(dev);
        got.extend(batch.iter().map(|f| f.unwrap().bytes.to_vec()));
        let end = batch.end_unit();
        rx.free(dev, end).unwrap();
    }
    got
}

fn flow(dport: u16) -> FlowKey {
    FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 5000, dport)
}

#[test]
fn frames_in_are_steered_checked_and_received_and_frames_out_are_collected() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut rx0 = dev.open_rx_pipe(0, 4096).unwrap();
    let mut rx1 = dev.open_rx_pipe(1, 4096).unwrap();
    let mut tx = dev.open_tx_pipe(2, 4096).unwrap();
    rx0.bind(&mut dev, flow(7)).unwrap();
    dev.set_fallback_pipes(1, 1).unwrap();
    dev.set_default_pipe(1).unwrap();

    let bound: Vec<Vec<u8>> = (0..30)
        .map(|i| udp_frame(&flow(7), 60 + 37 * i, i as u8))
        .collect();
    let missed = udp_frame(&flow(9), 200, 0xB0);
    let mut arp = vec![0u8; 60];
    arp[12..14].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    arp[14..42].fill(0xA4);
    // Bound, and shorter on the wire than its IP header says: the ring
    // entry's length is the MAC's, so it is received as it came.
    let mut short = udp_frame(&flow(7), 300, 0xEE);
    short.truncate(290);
    // Over the largest frame, and empty: dropped as malformed.
    let oversize = vec![0u8; MAX_FRAME_BYTES as usize + 1];
    let mut frames = vec![missed.clone(), short.clone(), oversize, arp.clone(), vec![]];
    frames.extend(bound.iter().cloned());
    dev.card_mut().inject(&frames).unwrap();

    // A frame enters at each relax; pipe 0's 4 KiB ring (256 units) wraps
    // several times as it is freed. Notifications are reactive: a pipe
    // announces again once its head is written (`free`).
    let got0 = receive(&mut dev, &mut rx0, 1 + bound.len());
    let got1 = receive(&mut dev, &mut rx1, 2);
    // ARP's padding is part of the frame: the card does not parse it.
    assert!(got1 == [missed, arp], "pipe 1 got other frames");
    assert!(got0[0] == short, "pipe 0 did not get the short frame");
    assert!(got0[1..] == bound, "pipe 0 got other frames");
    let c = dev.counters().unwrap();
    assert_eq!(
        (
            c.rx_frames,
            c.drops(),
            c.drop_malformed,
            c.flow_hits,
            c.flow_misses
        ),
        (33, 2, 2, 31, 1)
    );

    let refs: Vec<&[u8]> = got1.iter().map(Vec::as_slice).collect();
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 2);
    assert!(tx.wait_idle(&mut dev, 10));
    let card = dev.card_mut();
    assert!(card.drain(100).unwrap());
    assert!(card.collect().unwrap() == got1, "other frames went out");
    assert!(card.collect().unwrap().is_empty());
    assert_eq!(dev.counters().unwrap().tx_frames, 2);
}

#[test]
fn a_fake_card_without_a_mac_says_how_to_make_one_with() {
    let mut card = FakeCard::new();
    match card.inject(&[vec![0; 60]]) {
        Err(e @ Error::NoTestPort { .. }) => assert!(e.to_string().contains("with_mac"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(card.collect(), Err(Error::NoTestPort { .. })));
}
