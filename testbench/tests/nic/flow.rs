//! Flow director tests on the Verilated NIC, through the driver: exact-match
//! hits, misses spread by the RSS hash over the fallback pipes, the default
//! pipe for non-IP frames, a full table, and refused register writes.
//!
//! Where a frame should land is worked out from `pendulum_layout::flow`
//! (its Toeplitz hash is checked against Microsoft's published vectors) and
//! from what the test bound, never read back from the card.

use pendulum_driver::{Device, Error, FlowKey, RxPipe};
use pendulum_layout::flow::{fallback_pipe, PROTO_TCP, PROTO_UDP};
use pendulum_layout::{global, RegError};
use pendulum_testbench::models::{flow_frame, pad_to_min};
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PIPES: usize = pendulum_layout::params::PIPES;
const PIPE_BITS: usize = pendulum_layout::params::PIPE_BITS;

fn open() -> (Device<SimCard>, Vec<RxPipe>) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open simulated card");
    let pipes = (0..PIPES)
        .map(|p| dev.open_rx_pipe(p, 256 * 1024).unwrap())
        .collect();
    (dev, pipes)
}

/// A random TCP or UDP flow, IPv6 one time in three (`frame_kinds` uses it too).
pub(crate) fn random_key(rng: &mut ChaCha8Rng) -> FlowKey {
    let proto = if rng.gen_bool(0.5) {
        PROTO_TCP
    } else {
        PROTO_UDP
    };
    if rng.gen_ratio(1, 3) {
        FlowKey::v6(rng.gen(), rng.gen(), proto, rng.gen(), rng.gen())
    } else {
        FlowKey::v4(rng.gen(), rng.gen(), proto, rng.gen(), rng.gen())
    }
}

/// Queues `frame` on the MAC side, padded to the minimum as a MAC delivers
/// it, and expects it so on `pipe`: the ring's LEN is the MAC's length
/// (`frame_kinds` uses it too).
pub(crate) fn send(dev: &mut Device<SimCard>, exp: &mut Expected, frame: Vec<u8>, pipe: usize) {
    let mut wire = frame;
    pad_to_min(&mut wire);
    exp[pipe].push_back(wire.clone());
    dev.card_mut().sim.eth.push(wire);
}

#[test]
fn bound_flows_hit_their_pipes_and_the_rest_spread_over_the_fallback_pipes() {
    let (mut dev, mut pipes) = open();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let keys: Vec<FlowKey> = (0..32).map(|_| random_key(&mut rng)).collect();
    for (i, k) in keys.iter().take(16).enumerate() {
        pipes[i % PIPES].bind(&mut dev, *k).unwrap();
    }
    // Misses go to pipes 2 and 3 only.
    dev.set_fallback_pipes(2, 2).unwrap();
    assert_eq!(dev.read(global::FLOW_FALLBACK.offset).unwrap(), 2 | 1 << 16);

    let mut exp: Expected = vec![Default::default(); PIPES];
    let (mut hits, mut misses) = (0u64, 0u64);
    let mut miss_pipes = [0u32; PIPES];
    for seq in 0..600u64 {
        let k = keys[rng.gen_range(0..keys.len())];
        let want = match dev.flow_pipe(&k) {
            Some(p) => {
                hits += 1;
                p
            }
            None => {
                misses += 1;
                let p = fallback_pipe(k.hash(), 2, 1);
                miss_pipes[p] += 1;
                p
            }
        };
        send(
            &mut dev,
            &mut exp,
            flow_frame(&k, seq, rng.gen_range(96..=400)),
            want,
        );
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 5_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!((c.flow_hits, c.flow_misses), (hits, misses));
    assert_eq!(c.drops(), 0);
    assert!(
        miss_pipes[2] > 0 && miss_pipes[3] > 0,
        "both fallback pipes used: {miss_pipes:?}"
    );
}

#[test]
fn non_ip_frames_go_to_the_default_pipe_and_fragments_hash_on_their_addresses() {
    let (mut dev, mut pipes) = open();
    let key = FlowKey::v4([192, 168, 1, 1], [192, 168, 1, 2], PROTO_UDP, 5000, 6000);
    pipes[1].bind(&mut dev, key).unwrap();
    dev.set_default_pipe(3).unwrap();
    let mut exp: Expected = vec![Default::default(); PIPES];

    let mut arp = vec![0u8; 42];
    arp[0..6].copy_from_slice(&[0xFF; 6]);
    arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
    arp[14..22].copy_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    // A fragment of the bound flow: its ports are not trusted, so it is keyed
    // (and hashed) on its addresses alone and misses the 5-tuple entry.
    let mut frag = flow_frame(&key, 7, 200);
    frag[20] = 0x20; // more fragments
    let frag_key = FlowKey::from_frame(&frag).unwrap();
    assert_eq!((frag_key.sport, frag_key.dport), (0, 0));
    let frag_pipe = fallback_pipe(frag_key.hash(), 0, PIPE_BITS as u32);

    for seq in 0..30u64 {
        send(&mut dev, &mut exp, arp.clone(), 3);
        send(&mut dev, &mut exp, flow_frame(&key, seq, 128), 1);
        send(&mut dev, &mut exp, frag.clone(), frag_pipe);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!(
        (c.flow_hits, c.flow_misses),
        (30, 30),
        "ARP counts as neither"
    );
}

#[test]
fn a_full_set_of_slots_is_a_clear_error_and_keys_differing_only_in_protocol_stay_apart() {
    let (mut dev, mut pipes) = open();
    // The protocol is in the key but not in the hash: these five keys share
    // one hash, so their four candidate slots are the same four.
    let key = |proto| FlowKey::v4([10, 1, 2, 3], [10, 4, 5, 6], proto, 7000, 8000);
    let protos = [PROTO_TCP, PROTO_UDP, 1, 2];
    for (i, p) in protos.iter().enumerate() {
        dev.bind_flow(key(*p), (i + 1) % PIPES).unwrap();
    }
    let err = dev.bind_flow(key(3), 0).unwrap_err();
    assert!(
        matches!(err, Error::FlowTableFull { ways: 4, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("proto 3 10.1.2.3:7000 -> 10.4.5.6:8000"),
        "{err}"
    );
    assert_eq!(dev.flows_bound().0, 4);

    // TCP and UDP of the same addresses and ports land on their own pipes.
    let mut exp: Expected = vec![Default::default(); PIPES];
    for seq in 0..20u64 {
        send(&mut dev, &mut exp, flow_frame(&key(PROTO_TCP), seq, 100), 1);
        send(&mut dev, &mut exp, flow_frame(&key(PROTO_UDP), seq, 100), 2);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();

    // Unbinding frees a slot; rebinding moves a flow.
    assert!(dev.unbind_flow(key(PROTO_UDP)).unwrap());
    assert!(!dev.unbind_flow(key(PROTO_UDP)).unwrap());
    dev.bind_flow(key(3), 0).unwrap();
    pipes[3].bind(&mut dev, key(PROTO_TCP)).unwrap();
    let udp_pipe = fallback_pipe(key(PROTO_UDP).hash(), 0, PIPE_BITS as u32);
    for seq in 20..40u64 {
        send(&mut dev, &mut exp, flow_frame(&key(PROTO_TCP), seq, 100), 3);
        send(
            &mut dev,
            &mut exp,
            flow_frame(&key(PROTO_UDP), seq, 100),
            udp_pipe,
        );
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!((c.flow_hits, c.flow_misses), (60, 20));
}

#[test]
fn wrong_flow_register_writes_are_refused_counted_and_steering_goes_on() {
    let (mut dev, mut pipes) = open();
    let key = FlowKey::v6([1; 16], [2; 16], PROTO_TCP, 443, 50000);
    pipes[2].bind(&mut dev, key).unwrap();
    let refused =
        |dev: &mut Device<SimCard>, reg: pendulum_layout::Reg, extra: u32, v: u32| match dev
            .write_checked(reg.offset + extra, v)
        {
            Err(Error::RegisterRefused { cause, .. }) => cause,
            other => panic!(
                "{} + {extra} <- {v:#x}: expected a refusal, got {other:?}",
                reg.name
            ),
        };
    let before = dev.read(global::FLOW_FALLBACK.offset).unwrap();
    // Two pipes from the last pipe would run past it; twice the pipes there are.
    assert_eq!(
        refused(
            &mut dev,
            global::FLOW_FALLBACK,
            0,
            (PIPES as u32 - 1) | 1 << 16
        ),
        RegError::BadValue
    );
    assert_eq!(
        refused(
            &mut dev,
            global::FLOW_FALLBACK,
            0,
            (PIPE_BITS as u32 + 1) << 16
        ),
        RegError::BadValue
    );
    assert_eq!(
        refused(&mut dev, global::FLOW_FALLBACK, 0, 1 << 24),
        RegError::BadValue
    );
    assert_eq!(dev.read(global::FLOW_FALLBACK.offset).unwrap(), before);
    assert_eq!(
        refused(&mut dev, global::FLOW_DEFAULT_PIPE, 0, PIPES as u32),
        RegError::BadValue
    );
    assert_eq!(
        refused(&mut dev, global::FLOW_PIPE, 0, PIPES as u32 + 99),
        RegError::BadValue
    );
    assert_eq!(
        refused(&mut dev, global::FLOW_WRITE, 0, 1 << 20),
        RegError::BadValue
    );
    assert_eq!(
        refused(&mut dev, global::CAP_FLOW_TABLE, 0, 0),
        RegError::ReadOnly
    );
    assert_eq!(
        refused(&mut dev, global::FLOW_WRITE, 4, 0),
        RegError::UnknownAddress
    );
    assert!(matches!(
        dev.set_fallback_pipes(1, PIPES),
        Err(Error::BadFallback { .. })
    ));
    assert!(matches!(
        dev.bind_flow(key, PIPES),
        Err(Error::NoSuchPipe { .. })
    ));
    assert_eq!(dev.counters().unwrap().reg_errors, 8);
    // The key registers hold what was last staged, byte for byte.
    let words = key.words();
    for (k, w) in words.iter().enumerate() {
        assert_eq!(
            dev.read(global::FLOW_KEY0.offset + 4 * k as u32).unwrap(),
            *w
        );
    }

    let mut exp: Expected = vec![Default::default(); PIPES];
    for seq in 0..10u64 {
        send(&mut dev, &mut exp, flow_frame(&key, seq, 150), 2);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    assert_eq!(dev.counters().unwrap().flow_hits, 10);
}
