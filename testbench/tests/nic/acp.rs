//! The ACP link on the Verilated pair: two NICs, ACP port to ACP port
//! through the seeded link model, each driven through the real driver by its
//! own host. Every test checks exactly-once delivery with `AcpTraffic::check`
//! (no duplicate, nothing delivered that was not sent or that came back as
//! not delivered, no payload changed, order kept within a channel).

use pendulum_driver::{LinkState, MsgKind};
use pendulum_layout::acp::{self, tx_state, Body, Record};
use pendulum_layout::{global, Counter};
use pendulum_testbench::acp_traffic::{payload, AcpTraffic};
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::{NicSim, SimConfig};

const RING: u32 = 64 * 1024;

fn traffic(faults: LinkFaults) -> AcpTraffic {
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING).expect("open both cards");
    assert!(t.wait_up(20_000).unwrap(), "the link never came up");
    t
}

#[test]
fn without_faults_nothing_is_reversed_or_repeated_at_any_latency() {
    for latency in [1, 40, 333] {
        let mut t = traffic(LinkFaults {
            latency,
            seed: latency as u64,
            ..Default::default()
        });
        t.a.queue(1500);
        t.b.queue(1200);
        assert!(
            t.run_until_settled(3_000_000).unwrap(),
            "latency {latency}: not settled"
        );
        t.check()
            .unwrap_or_else(|e| panic!("latency {latency}: {e}"));
        assert_eq!(t.b.received.len(), 1500);
        assert_eq!(t.a.received.len(), 1200);
        assert!(t.a.returned.is_empty() && t.b.returned.is_empty());
        let (ca, cb) = t.counters().unwrap();
        for (name, c) in [("A", &ca), ("B", &cb)] {
            assert_eq!(
                c.reversals, 0,
                "latency {latency}: {name} reversed a transfer with no fault"
            );
            assert_eq!(
                c.failures, 0,
                "latency {latency}: {name} saw a failure with no fault"
            );
            assert_eq!(c.bad_check, 0, "latency {latency}: {name}");
            assert_eq!(
                c.entangles, 1,
                "latency {latency}: {name} entangled more than once"
            );
        }
        assert_eq!(ca.commits, 1500);
        assert_eq!(cb.delivered, 1500);
        assert_eq!(cb.commits, 1200);
        assert_eq!(ca.delivered, 1200);
    }
}

#[test]
fn random_delays_without_loss_never_reverse_or_repeat() {
    // The physical layers stall at random, so records leave late and the
    // slots of each side drift against the other's; nothing is lost.
    let mut t = traffic(LinkFaults {
        latency: 70,
        seed: 21,
        ..Default::default()
    });
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    t.pair.borrow_mut().phy_ready = Some(Box::new(move |_, _| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 4 != 0
    }));
    t.a.queue(3_000);
    t.b.queue(3_000);
    assert!(t.run_until_settled(4_000_000).unwrap());
    t.check().unwrap();
    assert_eq!((t.b.received.len(), t.a.received.len()), (3_000, 3_000));
    let (ca, cb) = t.counters().unwrap();
    for c in [&ca, &cb] {
        assert_eq!(
            (
                c.reversals,
                c.failures,
                c.bad_check,
                c.returned,
                c.entangles
            ),
            (0, 0, 0, 0, 1),
            "{c:?}"
        );
    }
}

#[test]
fn corruption_loss_undetected_errors_and_cuts_deliver_exactly_once() {
    // About two million records cross the link (one per cycle each way).
    let faults = LinkFaults {
        latency: 60,
        corrupt_rate: 2e-3,
        undetected_rate: 5e-4,
        loss_rate: 2e-3,
        cut_every: Some(150_000),
        cut_cycles: 2_000,
        seed: 7,
        ..Default::default()
    };
    let mut t = traffic(faults);
    t.a.queue(20_000);
    t.b.queue(20_000);
    let start = t.cycle();
    while t.cycle() - start < 1_000_000 {
        t.poll().unwrap();
    }
    assert!(t.run_until_settled(2_000_000).unwrap(), "not settled");
    t.check().unwrap();
    let stats = t.pair.borrow().link.stats().clone();
    assert!(stats.records > 2_000_000, "{stats:?}");
    assert!(
        stats.corrupted > 1000 && stats.lost > 1000 && stats.undetected > 50 && stats.cuts >= 3,
        "{stats:?}"
    );
    let (ca, cb) = t.counters().unwrap();
    // The faults were felt: offers reversed after undetected damage, failures
    // detected and healed by re-entangling.
    assert!(ca.reversals + cb.reversals > 0, "{ca:?} {cb:?}");
    assert!(ca.failures >= 3 && cb.failures >= 3, "{ca:?} {cb:?}");
    assert!(ca.entangles >= 4 && cb.entangles >= 4, "{ca:?} {cb:?}");
    // Nothing was lost: both hosts kept state, so nothing came back.
    assert_eq!(t.b.received.len() + t.a.returned.len(), 20_000);
    assert_eq!(t.a.received.len() + t.b.returned.len(), 20_000);
}

#[test]
fn a_reversed_transfer_leaves_no_trace_at_the_receiver() {
    // Every offer damaged behind the check for a while: the receiver stores,
    // echoes a digest that disagrees, and must erase.
    let mut t = traffic(LinkFaults {
        latency: 30,
        seed: 3,
        ..Default::default()
    });
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 30,
        undetected_rate: 1.0,
        seed: 3,
        ..Default::default()
    });
    t.a.queue(50);
    for _ in 0..2_000 {
        t.poll().unwrap();
    }
    assert!(t.b.received.is_empty(), "a damaged offer was delivered");
    assert_eq!(t.b.corrupt, 0);
    let (ca, _) = t.counters().unwrap();
    assert!(ca.reversals > 0, "{ca:?}");
    assert_eq!(ca.commits, 0);
    // The damage stops; the same messages go through, once each.
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 30,
        seed: 3,
        ..Default::default()
    });
    assert!(t.run_until_settled(500_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 50);
}

#[test]
fn a_cut_is_detected_by_loss_of_signal_and_in_flight_transfers_settle_once() {
    let mut t = traffic(LinkFaults {
        latency: 100,
        seed: 11,
        ..Default::default()
    });
    t.a.queue(3_000);
    t.b.queue(3_000);
    for _ in 0..400 {
        t.poll().unwrap();
    }
    t.pair.borrow_mut().link.cut_now(5_000);
    for _ in 0..200 {
        t.poll().unwrap();
    }
    assert_eq!(t.a.dev.link_state().unwrap(), LinkState::Down);
    assert!(t.run_until_settled(3_000_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 3_000);
    assert_eq!(t.a.received.len(), 3_000);
    let (ca, cb) = t.counters().unwrap();
    assert_eq!((ca.failures, cb.failures), (1, 1));
    assert_eq!((ca.entangles, cb.entangles), (2, 2));
}

#[test]
fn a_garbled_link_is_detected_by_undecodable_records_in_a_row() {
    let mut t = traffic(LinkFaults {
        latency: 50,
        seed: 5,
        ..Default::default()
    });
    t.a.queue(2_000);
    for _ in 0..300 {
        t.poll().unwrap();
    }
    // Signal stays, but every record is garbage for a while.
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 50,
        corrupt_rate: 1.0,
        seed: 5,
        ..Default::default()
    });
    for _ in 0..100 {
        t.poll().unwrap();
    }
    let (ca, cb) = t.counters().unwrap();
    assert!(ca.failures >= 1 && cb.failures >= 1, "{ca:?} {cb:?}");
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 50,
        seed: 5,
        ..Default::default()
    });
    assert!(t.run_until_settled(2_000_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 2_000);
}

#[test]
fn a_peer_that_loses_its_state_gets_every_in_doubt_transfer_resolved_once() {
    let mut t = traffic(LinkFaults {
        latency: 80,
        seed: 13,
        ..Default::default()
    });
    t.a.queue(4_000);
    t.b.queue(4_000);
    for _ in 0..600 {
        t.poll().unwrap();
    }
    // B drops its link state mid-stream, as a reset card would.
    t.b.dev.reset_link().unwrap();
    assert!(t.run_until_settled(4_000_000).unwrap());
    t.check().unwrap();
    // B's held messages came back to B; A's unconfirmed commits came back to A in doubt.
    assert!(!t.b.returned.is_empty(), "B held messages when it reset");
    assert!(t
        .b
        .returned
        .iter()
        .all(|&(_, k)| k == MsgKind::NotDelivered || k == MsgKind::InDoubt));
    let (ca, cb) = t.counters().unwrap();
    assert_eq!(cb.returned as usize, t.b.returned.len());
    assert_eq!(ca.returned as usize, t.a.returned.len());
    assert_eq!((ca.entangles, cb.entangles), (2, 2));
}

#[test]
fn a_full_receiver_rejects_and_nothing_is_lost() {
    // B's ring is the smallest (64 slots) and B's host stops reading.
    let mut t = AcpTraffic::new(
        SimConfig::default(),
        LinkFaults {
            latency: 20,
            seed: 2,
            ..Default::default()
        },
        4096,
    )
    .unwrap();
    assert!(t.wait_up(20_000).unwrap());
    t.a.queue(600);
    let start = t.cycle();
    while t.cycle() - start < 60_000 {
        t.a.poll_send().unwrap();
        t.pair.borrow_mut().run(8);
    }
    let (ca, _) = t.counters().unwrap();
    assert!(ca.rejects > 0, "B never refused an offer: {ca:?}");
    assert!(ca.commits < 600);
    assert!(t.run_until_settled(2_000_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 600);
    let c = t.b.dev.counters().unwrap();
    assert_eq!(
        c.drops(),
        0,
        "a committed message was dropped at the RX ring: {c:?}"
    );
}

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

#[test]
fn a_disabled_receiving_pipe_holds_messages_back_until_it_is_enabled() {
    let mut t = traffic(LinkFaults {
        latency: 10,
        seed: 9,
        ..Default::default()
    });
    // B turns its link RX pipe off (before anything arrived, so its driver
    // state stays valid across the re-enable): deliveries wait in the link,
    // offers are refused.
    let ctrl = pendulum_layout::pipe_page(pendulum_testbench::acp_traffic::LINK_RX_PIPE)
        + pendulum_layout::pipe::CTRL.offset;
    t.b.dev.write_checked(ctrl, 0).unwrap();
    t.a.queue(400);
    for _ in 0..5_000 {
        t.poll().unwrap();
    }
    assert!(t.b.received.is_empty());
    let (ca, _) = t.counters().unwrap();
    assert!(ca.rejects > 0, "{ca:?}");
    assert_eq!(
        t.b.dev.counters().unwrap().drop_pipe_off,
        0,
        "a committed message was dropped"
    );
    t.b.dev
        .write_checked(ctrl, pendulum_layout::pipe::CTRL_ENABLE)
        .unwrap();
    assert!(t.run_until_settled(2_000_000).unwrap());
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 400);
}

/// Slots by event: with all 16 channels in use, an offer's decision is on
/// the wire as soon as with one channel, give or take a few cycles of
/// choosing the slot (a fixed rotation made it wait for the channel's turn:
/// RTT + 16 to + 32 cycles at K = 16), for a message and a verb.
#[test]
fn a_decision_waits_for_no_slot() {
    use pendulum_layout::params::ACP_CHANNELS as K;
    use pendulum_testbench::acp_measure::{decision_cycles, Kind};
    for latency in [25, 100] {
        for kind in [Kind::Message, Kind::Verb] {
            let one = decision_cycles(latency, 1, kind).0;
            let all = decision_cycles(latency, K as u32, kind).0;
            assert!(
                all <= one + 4,
                "latency {latency}, {}: {all} cycles with {K} channels, {one} with one",
                kind.name()
            );
        }
    }
}

/// A verb's result goes up as soon as B's proof of delivery is heard, not
/// when a scan over the channels passes its channel: from the decision, its
/// result lands in A's host memory a round trip later (B's proof) plus a
/// fixed pipeline (the check, the move, the result queue and its skid
/// buffer, the message FIFO, DMA: 13 cycles at every latency here),
/// whatever the latency does to the scan's phase.
/// (A scan made it wait for its channel's turn too: 11 to 25 cycles here
/// at K = 16, and in a K = 256 build it held every channel to one verb per
/// 256 cycles.)
#[test]
fn a_verbs_result_goes_up_without_waiting_for_a_scan() {
    use pendulum_testbench::acp_measure::{decision_cycles, Kind};
    for latency in 1..=8 {
        let rtt = 2 * latency as u64 + 14;
        let (decision, result) = decision_cycles(latency, 1, Kind::Verb);
        let result = result.expect("no result");
        let after = result - decision - rtt;
        assert!(
            after <= 13,
            "latency {latency}: result {after} cycles after the decision and a round trip"
        );
    }
}
