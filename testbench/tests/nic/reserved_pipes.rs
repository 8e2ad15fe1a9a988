//! Pipes reserved for the atomic unit's results and the link's messages, on
//! the Verilated NIC through the driver: Ethernet frames that the RSS hash
//! (or a table entry installed before the reservation) would put there go
//! to the next pipe of the fallback range instead, so atomic calls keep
//! returning right answers exactly once; and the card refuses to make a
//! reserved pipe a steering target.
//!
//! Where a frame should land is worked out from `pendulum_layout::flow::steer`,
//! never read back from the card.

use pendulum_driver::{Device, Error, FlowKey, Reservation, RxPipe};
use pendulum_layout::flow::{bucket, fallback_pipe, slot, steer, PROTO_UDP, WRITE_VALID};
use pendulum_layout::{global, Counter, RegError};
use pendulum_testbench::models::{flow_frame, pad_to_min};
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PIPES: usize = pendulum_layout::params::PIPES;
const PIPE_BITS: u32 = pendulum_layout::params::PIPE_BITS as u32;
const RING: u32 = 64 * 1024;
/// The atomic unit's RX pipe (the issue's: "ring of pipe 1 is corrupt") and
/// the link's, next to it, so a frame hashed onto either must skip both.
const ATOMIC_RX: usize = 1;
const LINK_RX: usize = 2;

fn open() -> Device<SimCard> {
    Device::open(SimCard::new(SimConfig::default())).expect("open simulated card")
}

fn random_udp(rng: &mut ChaCha8Rng) -> FlowKey {
    FlowKey::v4(rng.gen(), rng.gen(), PROTO_UDP, rng.gen(), rng.gen())
}

/// `n` UDP keys whose RSS hash puts them on `pipe` when misses spread over
/// all pipes (the state after `Device::open`).
fn keys_hashed_onto(rng: &mut ChaCha8Rng, pipe: usize, n: usize) -> Vec<FlowKey> {
    std::iter::repeat_with(|| random_udp(rng))
        .filter(|k| fallback_pipe(k.hash(), 0, PIPE_BITS) == pipe)
        .take(n)
        .collect()
}

/// Installs `key` -> `pipe` in way 0 of the card's table with raw register
/// writes, as a driver that ran before this one could have left it.
fn install_raw(dev: &mut Device<SimCard>, key: &FlowKey, pipe: usize) {
    let buckets = (dev.read(global::CAP_FLOW_TABLE.offset).unwrap() & 0xFFFF) as usize;
    for (k, w) in key.words().iter().enumerate() {
        dev.write_checked(global::FLOW_KEY0.offset + 4 * k as u32, *w)
            .unwrap();
    }
    dev.write_checked(global::FLOW_PIPE.offset, pipe as u32)
        .unwrap();
    let s = slot(0, bucket(key.hash(), 0, buckets), buckets);
    dev.write_checked(global::FLOW_WRITE.offset, WRITE_VALID | s as u32)
        .unwrap();
}

#[test]
fn udp_frames_hashed_onto_the_atomic_result_pipe_go_elsewhere_and_fetch_add_stays_exact() {
    let mut dev = open();
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    // An entry for the result pipe, installed before it was reserved.
    let stale = random_udp(&mut rng);
    install_raw(&mut dev, &stale, ATOMIC_RX);
    let mut at = dev.open_atomics(ATOMIC_RX, 1, RING).unwrap();
    let link = dev.open_link_seeded(LINK_RX, 2, RING, 0x2400_0001).unwrap();
    assert_eq!(
        dev.read(global::ATOMIC_RX_PIPE.offset).unwrap(),
        ATOMIC_RX as u32 | global::RX_PIPE_RESERVED
    );

    let mut keys = keys_hashed_onto(&mut rng, ATOMIC_RX, 6);
    keys.extend(keys_hashed_onto(&mut rng, LINK_RX, 2));
    keys.push(stale);
    let reserved = [ATOMIC_RX, LINK_RX];
    let hit = |k: &FlowKey| (*k == stale).then_some(ATOMIC_RX);
    let dest: Vec<usize> = keys
        .iter()
        .map(|k| steer(hit(k), k.hash(), 0, PIPE_BITS, &reserved, 0))
        .collect();
    assert!(dest.iter().all(|p| !reserved.contains(p)));
    assert_eq!(dest[0], 3, "the next pipe after both reserved ones");
    let mut open_pipes: Vec<usize> = dest.clone();
    open_pipes.sort_unstable();
    open_pipes.dedup();
    let mut pipes: Vec<RxPipe> = open_pipes
        .iter()
        .map(|&p| dev.open_rx_pipe(p, RING).unwrap())
        .collect();

    // Frames arrive while the atomic calls run: a few before each call.
    let mut exp: Expected = vec![Default::default(); PIPES];
    let rounds = 40u64;
    let mut seq = 0u64;
    for round in 0..rounds {
        for _ in 0..3 {
            let i = rng.gen_range(0..keys.len());
            let frame = flow_frame(&keys[i], seq, rng.gen_range(64..=300));
            seq += 1;
            exp[dest[i]].push_back(frame.clone());
            let mut wire = frame;
            pad_to_min(&mut wire);
            dev.card_mut().sim.eth.push(wire);
        }
        assert_eq!(
            at.fetch_add(&mut dev, 0x100, 1).unwrap(),
            round,
            "fetch_add {round}"
        );
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
    // Each verb ran once: the word moved by one per call, and the card
    // counted one verb per call (and the read below).
    assert_eq!(at.fetch_add(&mut dev, 0x100, 0).unwrap(), rounds);
    assert_eq!(dev.read64(Counter::AtomicVerbs.reg()).unwrap(), rounds + 1);
    assert!(at.results(&mut dev).unwrap().is_empty());
    let c = dev.counters().unwrap();
    assert_eq!(c.drops(), 0);
    // The stale entry's frames count as misses: they took the fallback path.
    assert_eq!((c.flow_hits, c.flow_misses), (0, seq));

    // Closed, the pipes are no longer reserved: the hash puts frames there again.
    dev.close_atomics(at).unwrap();
    dev.close_link(link).unwrap();
    assert_eq!(
        dev.read(global::ATOMIC_RX_PIPE.offset).unwrap(),
        ATOMIC_RX as u32
    );
    let mut p1 = vec![dev.open_rx_pipe(ATOMIC_RX, RING).unwrap()];
    let mut exp: Expected = vec![Default::default(); PIPES];
    for n in 0..4 {
        let frame = flow_frame(&keys[0], seq + n, 100);
        exp[ATOMIC_RX].push_back(frame.clone());
        dev.card_mut().sim.eth.push(frame);
    }
    receive_and_check(&mut dev, &mut p1, &mut exp, 1_000_000).unwrap();
}

#[test]
fn the_card_refuses_to_steer_to_a_reserved_pipe_or_reserve_the_default_pipe() {
    let mut dev = open();
    let refused = |r: Result<(), Error>| match r {
        Err(Error::RegisterRefused { cause, .. }) => cause,
        other => panic!("expected a refused write, got {other:?}"),
    };
    let reserve = |p: usize| p as u32 | global::RX_PIPE_RESERVED;
    // Pipe 0 is the default pipe: it cannot be reserved, by either register.
    for reg in [global::ATOMIC_RX_PIPE, global::LINK_RX_PIPE] {
        assert_eq!(
            refused(dev.write_checked(reg.offset, reserve(0))),
            RegError::PipeReserved,
            "{}",
            reg.name
        );
        assert_eq!(dev.read(reg.offset).unwrap(), 0, "{}", reg.name);
    }
    // Bits above the reserved bit, or a pipe beyond the last, are bad values.
    assert_eq!(
        refused(dev.write_checked(global::ATOMIC_RX_PIPE.offset, reserve(5) | 1 << 17)),
        RegError::BadValue
    );
    assert_eq!(
        refused(dev.write_checked(global::LINK_RX_PIPE.offset, reserve(PIPES))),
        RegError::BadValue
    );

    // Reserved, pipe 5 cannot become the default pipe, nor an entry's pipe.
    dev.write_checked(global::ATOMIC_RX_PIPE.offset, reserve(5))
        .unwrap();
    dev.write_checked(global::LINK_RX_PIPE.offset, reserve(9))
        .unwrap();
    for p in [5, 9] {
        assert_eq!(
            refused(dev.write_checked(global::FLOW_DEFAULT_PIPE.offset, p)),
            RegError::PipeReserved
        );
        // Staging the pipe is fine; installing the entry is not.
        dev.write_checked(global::FLOW_PIPE.offset, p).unwrap();
        assert_eq!(
            refused(dev.write_checked(global::FLOW_WRITE.offset, WRITE_VALID | 7)),
            RegError::PipeReserved
        );
        // Emptying a slot names no pipe.
        dev.write_checked(global::FLOW_WRITE.offset, 7).unwrap();
    }
    assert_eq!(dev.read(global::FLOW_DEFAULT_PIPE.offset).unwrap(), 0);
    let (addr, code) = dev.last_reg_error().unwrap();
    assert_eq!(
        (addr, code),
        (global::FLOW_WRITE.offset, RegError::PipeReserved as u32)
    );
    assert_eq!(dev.counters().unwrap().reg_errors, 2 + 2 + 2 * 2);

    // Other pipes are steered to as before; freed, pipe 5 is too.
    dev.write_checked(global::FLOW_DEFAULT_PIPE.offset, 6)
        .unwrap();
    dev.write_checked(global::FLOW_PIPE.offset, 6).unwrap();
    dev.write_checked(global::FLOW_WRITE.offset, WRITE_VALID | 7)
        .unwrap();
    dev.write_checked(global::ATOMIC_RX_PIPE.offset, 5).unwrap();
    dev.write_checked(global::FLOW_DEFAULT_PIPE.offset, 5)
        .unwrap();
    // And the default pipe can no longer be reserved.
    assert_eq!(
        refused(dev.write_checked(global::ATOMIC_RX_PIPE.offset, reserve(5))),
        RegError::PipeReserved
    );
    assert_eq!(dev.read(global::ATOMIC_RX_PIPE.offset).unwrap(), 5);
}

#[test]
fn the_driver_refuses_a_reserved_pipe_as_a_steering_target_without_touching_the_card() {
    let mut dev = open();
    let e = dev.open_atomics(0, 1, RING).unwrap_err();
    assert!(matches!(e, Error::CannotReserve { pipe: 0, .. }), "{e}");
    let at = dev.open_atomics(ATOMIC_RX, 1, RING).unwrap();
    let key = FlowKey::v4([10, 9, 8, 7], [10, 9, 8, 6], PROTO_UDP, 24, 24);
    let errors = dev.counters().unwrap().reg_errors;
    let last = dev.read(global::LAST_REG_ERROR.offset).unwrap();
    for r in [
        dev.set_default_pipe(ATOMIC_RX),
        dev.bind_flow(key, ATOMIC_RX),
        dev.set_fallback_pipes(ATOMIC_RX, 1),
    ] {
        assert!(
            matches!(
                r,
                Err(Error::PipeReserved {
                    pipe: ATOMIC_RX,
                    by: Reservation::AtomicResults
                })
            ),
            "{r:?}"
        );
    }
    assert_eq!(dev.counters().unwrap().reg_errors, errors);
    assert_eq!(dev.read(global::LAST_REG_ERROR.offset).unwrap(), last);
    dev.close_atomics(at).unwrap();
    dev.set_default_pipe(ATOMIC_RX).unwrap();
    dev.bind_flow(key, ATOMIC_RX).unwrap();
}
