//! What the ACP link is given that no peer or host should give it: a
//! message without the send header, records a scripted peer forges (bad
//! opcodes, states, channels, check words, replayed sessions) and register
//! writes out of range. Each is dropped or refused and counted, and never
//! acted on; good traffic beside it goes through (Verilated NIC, the real
//! driver).

use crate::acp::traffic;
use pendulum_layout::acp::{self, tx_state, Body, Record};
use pendulum_layout::{global, Counter};
use pendulum_testbench::acp_traffic::payload;
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::{NicSim, SimConfig};

#[test]
fn a_message_without_the_send_header_is_dropped_and_counted() {
    let mut t = traffic(LinkFaults {
        latency: 10,
        seed: 4,
        ..Default::default()
    });
    let mut bad = [0u8; 64];
    bad[0] = 0x55;
    t.a.link.send_raw(&mut t.a.dev, &bad).unwrap();
    t.a.queue(5);
    assert!(t.run_until_settled(200_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 5);
    assert_eq!(t.a.dev.counters().unwrap().tx_drop_malformed, 1);
}

/// A scripted peer entangles one NIC (its ENTANGLE record names the NIC's
/// nonce), then feeds it records no peer would send: counted, never acted
/// on. Returns the NIC, Up, and the session terms of the peer's records
/// and of the NIC's.
fn entangled_with_a_scripted_peer(peer_nonce: u32) -> (NicSim, u32, u32) {
    let mut sim = NicSim::new(SimConfig::default());
    sim.acp_up = true;
    let k = pendulum_layout::params::ACP_CHANNELS;
    // Wait for the NIC's nonce.
    let mut nic_nonce = None;
    for _ in 0..100 {
        sim.step();
        if let Some(r) = sim.acp_out {
            // (Nonces are odd; a record formed before the first draw carries 0.)
            if let Ok(Record::Entangle { nonce, .. }) = Record::from_bytes(&r, k, 0) {
                if nonce != 0 {
                    nic_nonce = Some(nonce);
                    break;
                }
            }
        }
    }
    let nic_nonce = nic_nonce.expect("the NIC sends no ENTANGLE record");
    let ours = Record::Entangle {
        nonce: peer_nonce,
        heard: nic_nonce,
        incarnation: 77,
        channels: k as u16,
    }
    .to_bytes(0);
    for _ in 0..20 {
        sim.acp_in = Some(ours);
        sim.step();
    }
    sim.acp_in = None;
    assert_eq!(
        sim.mmio_read(global::LINK_STATE.offset).unwrap(),
        acp::link_state::UP,
        "the scripted peer did not entangle the NIC"
    );
    (
        sim,
        acp::session_term(peer_nonce, nic_nonce),
        acp::session_term(nic_nonce, peer_nonce),
    )
}

/// Records no peer would send, fed to an entangled NIC's ACP port.
#[test]
fn bad_records_are_counted_and_never_acted_on() {
    let (mut sim, session, nic_session) = entangled_with_a_scripted_peer(0x600D_5EED);
    let offer = |session: u32| {
        Record::Channel {
            channel: 0,
            tx: tx_state::OFFER,
            tx_bit: false,
            rx: 0,
            rx_bit: false,
            transition: 0,
            body: Body::Payload(payload(99)),
        }
        .to_bytes(session)
    };
    let rec = |op: u8, channel: u8, state: u8| {
        let mut r = offer(session);
        r[acp::BYTE_OPCODE] = op;
        r[acp::BYTE_CHANNEL] = channel;
        r[acp::BYTE_STATE] = state;
        let c = acp::check_word(&r, session);
        r[acp::BYTE_CHECK..acp::BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
        r
    };
    let unknown_op = rec(0x7E, 0, 1);
    let bad_channel = rec(acp::OP_OFFER, 200, 1);
    let bad_state = rec(acp::OP_OFFER, 0, 0x81);
    let no_receiver_state = rec(acp::OP_OFFER, 0, 0x31);
    let mut garbled = rec(acp::OP_OFFER, 0, 1);
    garbled[20] ^= 4;
    // A good offer, but of another entanglement.
    let stale = offer(acp::session_term(0x0BAD_0BAD, 1));
    // An ENTANGLE record whose two copies differ.
    let mut torn = Record::Entangle {
        nonce: 5,
        heard: 6,
        incarnation: 7,
        channels: 1,
    }
    .to_bytes(0);
    torn[acp::PAYLOAD_OFFSET + 2] ^= 1;
    let c = acp::check_word(&torn, 0);
    torn[acp::BYTE_CHECK..acp::BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
    let before = |sim: &mut NicSim, c: Counter| {
        let lo = sim.mmio_read(c.reg().offset).unwrap() as u64;
        lo | (sim.mmio_read(c.reg().offset + 4).unwrap() as u64) << 32
    };
    let bad_record0 = before(&mut sim, Counter::LinkBadRecord);
    let bad_check0 = before(&mut sim, Counter::LinkBadCheck);
    // Few enough in a row that the NIC does not declare a failure.
    let fail_after = pendulum_layout::params::ACP_FAIL_AFTER as usize;
    for r in [unknown_op, bad_channel, bad_state, no_receiver_state, torn] {
        for _ in 0..10 {
            sim.acp_in = Some(r);
            sim.step();
        }
    }
    for r in [garbled, stale] {
        for _ in 0..fail_after / 2 - 1 {
            sim.acp_in = Some(r);
            sim.step();
        }
        sim.acp_in = None;
        sim.step();
    }
    sim.acp_in = None;
    sim.run(10);
    assert_eq!(before(&mut sim, Counter::LinkBadRecord) - bad_record0, 50);
    assert_eq!(
        before(&mut sim, Counter::LinkBadCheck) - bad_check0,
        2 * (fail_after as u64 / 2 - 1)
    );
    // Nothing was acted on: still Up, and channel 0 holds nothing (its
    // records state EXPECT at bit 0, with no echo).
    assert_eq!(
        sim.mmio_read(global::LINK_STATE.offset).unwrap(),
        acp::link_state::UP
    );
    let k = pendulum_layout::params::ACP_CHANNELS;
    let mut seen = 0;
    for _ in 0..4 * k {
        sim.step();
        if let Some(r) = sim.acp_out {
            let rec = Record::from_bytes(&r, k, nic_session)
                .unwrap_or_else(|e| panic!("the NIC sent a record it should not: {e:?}"));
            if let Record::Channel {
                channel: 0,
                rx,
                rx_bit,
                body,
                ..
            } = rec
            {
                assert_eq!((rx, rx_bit), (acp::rx_state::EXPECT, false));
                assert!(matches!(body, Body::Fields { echo: false, .. }));
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "the NIC never stated channel 0");
    assert_eq!(
        sim.mmio_read(global::IDENTITY.offset).unwrap(),
        pendulum_layout::IDENTITY
    );
}

#[test]
fn link_register_writes_are_checked() {
    use pendulum_driver::Error;
    use pendulum_layout::RegError;
    let mut t = traffic(LinkFaults {
        latency: 10,
        seed: 8,
        ..Default::default()
    });
    let refused = |r: Result<(), Error>| match r {
        Err(Error::RegisterRefused { cause, .. }) => cause,
        other => panic!("expected a refused write, got {other:?}"),
    };
    let k = pendulum_layout::params::ACP_CHANNELS as u32;
    let pipes = t.a.dev.pipes() as u32;
    assert_eq!(
        refused(t.a.dev.write_checked(global::LINK_RX_PIPE.offset, pipes)),
        RegError::BadValue
    );
    assert_eq!(
        refused(t.a.dev.write_checked(global::LINK_CHANNELS.offset, k + 1)),
        RegError::BadValue
    );
    assert_eq!(
        refused(t.a.dev.write_checked(global::LINK_STATE.offset, 0)),
        RegError::ReadOnly
    );
    assert_eq!(
        refused(
            t.a.dev
                .write_checked(global::LINK_ACTIVE_CHANNELS.offset, 1)
        ),
        RegError::ReadOnly
    );
    // Nothing changed, and the link still works.
    assert_eq!(
        t.a.dev.read(global::LINK_RX_PIPE.offset).unwrap(),
        pendulum_testbench::acp_traffic::LINK_RX_PIPE as u32 | global::RX_PIPE_RESERVED
    );
    assert_eq!(
        t.a.dev.read(global::LINK_ACTIVE_CHANNELS.offset).unwrap(),
        k
    );
    t.a.queue(100);
    assert!(t.run_until_settled(500_000).unwrap());
    t.check().unwrap();
    // Fewer channels, agreed at the next entanglement: the smaller offer wins.
    t.a.dev
        .write_checked(global::LINK_CHANNELS.offset, 3)
        .unwrap();
    t.b.dev
        .write_checked(global::LINK_CHANNELS.offset, 5)
        .unwrap();
    t.a.dev.reset_link().unwrap();
    assert!(t.wait_up(100_000).unwrap());
    assert_eq!(
        t.a.dev.read(global::LINK_ACTIVE_CHANNELS.offset).unwrap(),
        3
    );
    assert_eq!(
        t.b.dev.read(global::LINK_ACTIVE_CHANNELS.offset).unwrap(),
        3
    );
    t.b.queue(300);
    assert!(t.run_until_settled(2_000_000).unwrap());
    t.check().unwrap();
    assert!(
        t.a.received.iter().all(|&(_, ch)| ch < 3),
        "a channel beyond the agreed 3 was used"
    );
}
