//! Every pipe of the build in use at once, on the Verilated NIC: frames of
//! random sizes for all of them, interleaved on the wire, each pipe's stream
//! checked byte for byte and in order through the driver; and exact-match
//! flows bound across the whole pipe range.

use pendulum_driver::{Device, FlowKey, RxPipe};
use pendulum_layout::flow::PROTO_UDP;
use pendulum_layout::params::{PIPES, TX_PIPES};
use pendulum_layout::{pipe, pipe_page, RegError};
use pendulum_testbench::models::{flow_frame, pad_to_min, FrameGen};
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use rand::{Rng, SeedableRng};

/// 64 KiB per pipe: 1,024 slots, room for every frame this test sends a pipe.
const RING_BYTES: u32 = 64 << 10;

fn open_all() -> (Device<SimCard>, Vec<RxPipe>) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open");
    assert_eq!(dev.pipes(), PIPES);
    const {
        assert!(
            PIPES >= 1024,
            "this build has fewer pipes than the boards' 1,024 this test is about"
        )
    };
    let pipes = (0..PIPES)
        .map(|p| dev.open_rx_pipe(p, RING_BYTES).unwrap())
        .collect();
    (dev, pipes)
}

#[test]
fn every_pipe_at_once_with_interleaved_frames_keeps_each_stream_intact_and_in_order() {
    let (mut dev, mut pipes) = open_all();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut gen = FrameGen::new(7);
    let mut exp: Expected = vec![Default::default(); PIPES];
    // Each round sends one frame to every pipe, in a new random order, so
    // consecutive frames on the wire are for different pipes.
    let mut order: Vec<usize> = (0..PIPES).collect();
    for _ in 0..6 {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        for &p in &order {
            let len = gen.random_len(60, 1518);
            let f = gen.frame(len, p);
            exp[p].push_back(f.clone());
            dev.card_mut().sim.eth.push(f);
        }
    }
    let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 20_000_000).unwrap();
    assert_eq!(rep.frames, 6 * PIPES as u64);
    let c = dev.counters().unwrap();
    assert_eq!(c.rx_frames, 6 * PIPES as u64);
    assert_eq!(c.drop_ring_full + c.drop_malformed + c.drop_pipe_off, 0);
    // Each pipe's own counter and tail, read from its page (block RAM).
    for p in [0, 1, PIPES / 2, PIPES - 1] {
        assert_eq!(
            dev.read(pipe_page(p) + pipe::RX_FRAMES.offset).unwrap(),
            6,
            "pipe {p}"
        );
        assert_eq!(
            dev.read(pipe_page(p) + pipe::PIPE_ID.offset).unwrap(),
            p as u32
        );
    }
}

#[test]
fn flows_bound_across_the_whole_pipe_range_land_on_their_pipes() {
    let (mut dev, mut pipes) = open_all();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    // One flow for each of 200 pipes spread over the range.
    let targets: Vec<usize> = (0..200).map(|i| i * PIPES / 200).collect();
    let keys: Vec<FlowKey> = targets
        .iter()
        .map(|_| FlowKey::v4(rng.gen(), rng.gen(), PROTO_UDP, rng.gen(), rng.gen()))
        .collect();
    for (k, &p) in keys.iter().zip(&targets) {
        pipes[p].bind(&mut dev, *k).unwrap();
    }
    let mut exp: Expected = vec![Default::default(); PIPES];
    for seq in 0..1_000u64 {
        let i = rng.gen_range(0..keys.len());
        let f = flow_frame(&keys[i], seq, rng.gen_range(64..=600));
        exp[targets[i]].push_back(f.clone());
        let mut wire = f;
        pad_to_min(&mut wire);
        dev.card_mut().sim.eth.push(wire);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 20_000_000).unwrap();
    assert_eq!(dev.counters().unwrap().flow_hits, 1_000);
}

#[test]
fn pipes_past_the_tx_pipes_have_no_tx_registers() {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open");
    assert_eq!(dev.tx_pipes(), TX_PIPES);
    const { assert!(TX_PIPES < PIPES) };
    let page = pipe_page(TX_PIPES);
    assert_eq!(
        dev.read(page + pipe::TX_RING_BYTES.offset).unwrap(),
        u32::MAX
    );
    assert!(matches!(
        dev.write_checked(page + pipe::TX_RING_BYTES.offset, 4096),
        Err(pendulum_driver::Error::RegisterRefused {
            cause: RegError::UnknownAddress,
            ..
        })
    ));
    assert!(matches!(
        dev.open_tx_pipe(TX_PIPES, 4096),
        Err(pendulum_driver::Error::NoSuchTxPipe { .. })
    ));
    // The last TX pipe's page still has them.
    let last = pipe_page(TX_PIPES - 1);
    dev.write_checked(last + pipe::TX_RING_BYTES.offset, 4096)
        .unwrap();
    assert_eq!(dev.read(last + pipe::TX_RING_BYTES.offset).unwrap(), 4096);
}
