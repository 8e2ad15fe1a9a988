//! The ACP link on the Verilated pair: two NICs, ACP port to ACP port
//! through the seeded link model, each driven through the real driver by its
//! own host. Every test checks exactly-once delivery with `AcpTraffic::check`
//! (no duplicate, nothing delivered that was not sent or that came back as
//! not delivered, no payload changed, order kept within a channel).

use pendulum_driver::{LinkState, MsgKind};
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::SimConfig;

const RING: u32 = 64 * 1024;

/// A pair with the link up, rings of 64 KiB.
pub(crate) fn traffic(faults: LinkFaults) -> AcpTraffic {
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

/// A payload loaded into an idle channel whose peer's last record left it
/// ready to take an offer is offered a cycle after the load
/// (`pendulum_layout::acp::machine::offers_on_load`), not when the peer next
/// states that channel. Here B's port takes a record once in 64 cycles, so
/// B states each channel about once in 1,000: an offer that waited for B's
/// next record of its channel would leave A hundreds of cycles late. Each
/// message is posted on a quiet link; from the post to A's first OFFER of
/// it is the TX path (the doorbell and two DMA reads over the PCIe model)
/// and the link's load.
#[test]
fn a_payload_loaded_on_a_quiet_link_is_offered_without_waiting_for_the_peer() {
    use pendulum_layout::acp::{BYTE_OPCODE, OP_OFFER, PAYLOAD_OFFSET};
    use pendulum_testbench::acp_traffic::id_of;
    use pendulum_testbench::pair::Side;
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    let mut t = traffic(LinkFaults {
        latency: 20,
        ..Default::default()
    });
    let pcie = t.pair.borrow().a.cfg.pcie.one_way_latency_cycles;
    // Per id, the cycle A first offered it.
    let offered = Rc::new(RefCell::new(HashMap::new()));
    let o = offered.clone();
    {
        let mut p = t.pair.borrow_mut();
        p.phy_ready = Some(Box::new(|cycle, side| side == Side::A || cycle % 64 == 0));
        p.wire_tap = Some(Box::new(move |cycle, side, rec| {
            if side == Side::A && rec[BYTE_OPCODE] == OP_OFFER {
                if let Some(id) = rec[PAYLOAD_OFFSET..].try_into().ok().and_then(id_of) {
                    o.borrow_mut().entry(id).or_insert(cycle);
                }
            }
        }));
    }
    let mut delays = Vec::new();
    for _ in 0..8 {
        // Long enough for B to state every channel (16 × 64 cycles) twice.
        t.pair.borrow_mut().run(3_000);
        let posted = t.cycle();
        t.a.queue(1);
        t.a.poll_send().unwrap();
        let id = *t.a.sent.last().expect("the message was not posted");
        while !offered.borrow().contains_key(&id) && t.cycle() < posted + 20_000 {
            t.poll().unwrap();
        }
        let at = *offered.borrow().get(&id).expect("never offered");
        delays.push(at - posted);
        assert!(t.run_until_settled(200_000).unwrap(), "not settled");
    }
    t.check().unwrap();
    assert_eq!(t.b.received.len(), 8);
    // The TX path's reads: the doorbell, then the ring entry and payload,
    // each a PCIe round trip, and a margin for the pipelines.
    let bound = 4 * pcie + 100;
    assert!(
        delays.iter().all(|&d| d <= bound),
        "posted to first offer, cycles: {delays:?} (at most {bound} expected)"
    );
}
