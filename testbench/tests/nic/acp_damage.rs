//! The ACP link under faults aimed at single records, on the Verilated pair:
//! damage that passes the check word in one field (state byte, opcode,
//! channel, digest, decision check), records duplicated, and records
//! replayed from before a cut. However the damage falls, nothing stalls:
//! every message ends delivered exactly once, handed back as not delivered,
//! or handed back in doubt (`AcpTraffic::check` on what each driver returned).

use pendulum_layout::acp::{self, tx_state, BYTE_CHANNEL, BYTE_OPCODE, BYTE_STATE, OP_ENTANGLE};
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::{
    select_opcode, xor_byte_random, xor_bytes_random, xor_crc32c_codeword, LinkFaults,
};
use pendulum_testbench::pair::Side;
use pendulum_testbench::SimConfig;

const RING: u32 = 64 * 1024;

fn traffic(latency: u32, seed: u64) -> AcpTraffic {
    traffic_with(LinkFaults {
        latency,
        seed,
        ..Default::default()
    })
}

fn traffic_with(faults: LinkFaults) -> AcpTraffic {
    AcpTraffic::new_up(SimConfig::default(), faults, RING).expect("open both cards, link up")
}

/// A channel record (not ENTANGLE) whose sender role states `state`.
fn sender_states(state: u8) -> impl FnMut(&[u8; 64]) -> bool + 'static {
    move |r| r[BYTE_OPCODE] != OP_ENTANGLE && acp::sender_state(r[BYTE_STATE]) == state
}

/// Runs both hosts until every queued message is accounted for (at most
/// `max_cycles`), then checks exactly-once and that every damage asked for
/// was done.
fn settles(t: &mut AcpTraffic, what: &str, max_cycles: u64) {
    let settled = t.run_until_settled(max_cycles).unwrap();
    let pending = {
        let p = t.pair.borrow();
        p.link.damage_pending(Side::A) + p.link.damage_pending(Side::B)
    };
    assert!(
        settled,
        "{what}: not settled: A sent {} ({} delivered, {} back), B sent {} ({} delivered, {} back)",
        t.a.sent.len(),
        t.b.received.len(),
        t.a.returned.len(),
        t.b.sent.len(),
        t.a.received.len(),
        t.b.returned.len()
    );
    assert_eq!(pending, 0, "{what}: not every damage asked for was done");
    t.check().unwrap_or_else(|e| panic!("{what}: {e}"));
    quiescent(t, what);
}

/// Once everything is accounted for, every channel of both sides settles
/// back to IDLE and EXPECT (`AcpTraffic::quiescent`).
fn quiescent(t: &mut AcpTraffic, what: &str) {
    t.quiescent().unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Offered payloads damaged by an error the check word cannot see (a
/// CRC-32C codeword: the CRC of the damaged record is the CRC of the sent
/// one), 40 of 1,500: the receiver stores and echoes the damaged payload,
/// and the sender, whose digest is a CRC of another polynomial, sees the
/// echo differ and reverses it. None is delivered changed. (With the digest
/// a CRC-32C too, every one of them was delivered damaged.)
#[test]
fn payloads_damaged_past_the_check_word_are_reversed_not_delivered() {
    let mut t = traffic(40, 17);
    t.pair.borrow_mut().link.damage_next(
        Side::A,
        select_opcode(acp::OP_OFFER),
        xor_crc32c_codeword(acp::PAYLOAD_OFFSET..acp::RECORD_BYTES),
        40,
    );
    t.a.queue(1_500);
    settles(&mut t, "payload codeword", 3_000_000);
    assert_eq!(
        t.b.received.len(),
        1_500,
        "each is offered again and delivered"
    );
    let (ca, _) = t.counters().unwrap();
    assert!(
        ca.reversals > 0,
        "the damaged offers were stored, echoed and reversed"
    );
}

/// A's COMMIT decisions turned into REVERSE in the state byte, past the
/// check, 50 times over 2,000 messages: the receiver must not act on a
/// decision its sender never took, and nothing stalls.
#[test]
fn a_commit_turned_into_reverse_past_the_check_stalls_nothing() {
    let mut t = traffic(40, 12);
    t.pair.borrow_mut().link.damage_next(
        Side::A,
        sender_states(tx_state::COMMIT),
        |r, _| r[BYTE_STATE] = acp::with_sender_state(r[BYTE_STATE], tx_state::REVERSE),
        50,
    );
    t.a.queue(2_000);
    settles(&mut t, "COMMIT made REVERSE", 3_000_000);
    assert_eq!(
        t.b.received.len(),
        2_000,
        "no side lost its state, so every message is delivered"
    );
}

/// One field of 30 records damaged past the check at random, per field and
/// per direction, with messages flowing both ways: the state byte, the
/// opcode, the channel, and the payload slices where digests and decision
/// checks travel.
#[test]
fn damage_to_any_one_field_past_the_check_stalls_nothing() {
    type Mutator = Box<dyn FnMut(&mut [u8; 64], &mut rand_chacha::ChaCha8Rng)>;
    type MakeMutator = fn() -> Mutator;
    let fields: [(&str, MakeMutator); 5] = [
        ("state byte", || Box::new(xor_byte_random(BYTE_STATE))),
        ("opcode", || Box::new(xor_byte_random(BYTE_OPCODE))),
        ("channel", || Box::new(xor_byte_random(BYTE_CHANNEL))),
        ("bytes 8..12", || Box::new(xor_bytes_random(8..12))),
        ("bytes 12..16", || Box::new(xor_bytes_random(12..16))),
    ];
    for (i, (name, mutator)) in fields.into_iter().enumerate() {
        let mut t = traffic(30, 100 + i as u64);
        for side in [Side::A, Side::B] {
            let mut m = mutator();
            t.pair.borrow_mut().link.damage_next(
                side,
                |r| r[BYTE_OPCODE] != OP_ENTANGLE,
                move |r, rng| m(r, rng),
                30,
            );
        }
        t.a.queue(800);
        t.b.queue(800);
        settles(&mut t, name, 3_000_000);
    }
}

/// One record in a hundred duplicated into the next slot: repeated records
/// change nothing.
#[test]
fn duplicated_records_change_nothing() {
    let mut t = traffic_with(LinkFaults {
        latency: 25,
        duplicate_rate: 0.01,
        seed: 6,
        ..Default::default()
    });
    t.a.queue(1_500);
    t.b.queue(1_500);
    settles(&mut t, "duplicates", 3_000_000);
    assert!(t.pair.borrow().link.stats().duplicated > 100);
    assert!(t.a.returned.is_empty() && t.b.returned.is_empty());
}

/// After each of several cuts, the 300 records that crossed before it are
/// replayed to both sides once they are up again: records of an earlier
/// entanglement are never acted on, so no message is delivered twice or
/// handed back as not delivered after all.
#[test]
fn records_replayed_from_before_a_cut_change_nothing() {
    let mut t = traffic_with(LinkFaults {
        latency: 40,
        cut_every: Some(15_000),
        cut_cycles: 200,
        replay_after_cut: Some(pendulum_testbench::models::ReplayAfterCut {
            delay_cycles: 600,
            records: 300,
        }),
        seed: 14,
        ..Default::default()
    });
    t.a.queue(6_000);
    t.b.queue(6_000);
    settles(&mut t, "replay", 4_000_000);
    let stats = t.pair.borrow().link.stats().clone();
    assert!(stats.cuts >= 3 && stats.replayed > 1_000, "{stats:?}");
}

/// LINK_CHANNELS lowered (by the peer, then a reset of its link; or by us,
/// then a cut) while messages are in flight on all 16 channels: what the
/// dropped channels held is delivered or handed back, never stranded.
#[test]
fn lowering_the_channel_count_strands_nothing() {
    use pendulum_layout::global::LINK_CHANNELS;
    for peer_lowers in [true, false] {
        let mut t = traffic(40, 21);
        t.a.queue(400);
        t.b.queue(400);
        for _ in 0..60 {
            t.poll().unwrap();
        }
        if peer_lowers {
            t.b.dev.write_checked(LINK_CHANNELS.offset, 3).unwrap();
            t.b.dev.reset_link().unwrap();
        } else {
            t.a.dev.write_checked(LINK_CHANNELS.offset, 3).unwrap();
            t.pair.borrow_mut().link.cut_now(200);
        }
        let what = if peer_lowers {
            "B lowered, then reset"
        } else {
            "A lowered, then a cut"
        };
        settles(&mut t, what, 1_000_000);
        assert_eq!(
            t.a.dev
                .read(pendulum_layout::global::LINK_ACTIVE_CHANNELS.offset)
                .unwrap(),
            3,
            "{what}"
        );
    }
}

/// A's offers damaged past the check into another channel's (the channel
/// byte, and the sender bit made the other one than that channel's), aimed
/// at the moment that channel is most exposed: one of A's last four records
/// stated its first COMMIT on it, so the stray offer reaches B right after
/// B delivers there and expects the next bit, before B could state its
/// proof. Stored then, it would hold what A never offered while A waits for
/// the proof, and the channel would stall; B stores an offer only once it
/// has heard A at its bit. Up to 100 such offers while A's host posts 1,500
/// messages at random moments.
#[test]
fn an_offer_for_another_channel_is_never_delivered_and_stalls_nothing() {
    use pendulum_layout::params::ACP_CHANNELS as K;
    use std::cell::Cell;
    use std::rc::Rc;
    let mut t = traffic(40, 33);
    // A's sender role per channel as its last record stated it, and the
    // channel and bit of a first COMMIT in one of the last four records
    // (with the records left to find an offer in).
    let mut last: [Option<u8>; K] = [None; K];
    let mut first_commit: Option<(usize, bool, u32)> = None;
    let target = Rc::new(Cell::new((0usize, false)));
    let seen = target.clone();
    let exposed = move |r: &[u8; 64]| {
        if r[BYTE_OPCODE] == OP_ENTANGLE {
            return false;
        }
        let ch = r[BYTE_CHANNEL] as usize % K;
        let (state, bit) = (acp::sender_state(r[BYTE_STATE]), r[BYTE_STATE] & 8 != 0);
        let hit =
            r[BYTE_OPCODE] == acp::OP_OFFER && matches!(first_commit, Some((c, _, _)) if c != ch);
        if let (true, Some((c, b, _))) = (hit, first_commit) {
            seen.set((c, b));
        }
        first_commit = match first_commit {
            _ if hit => None,
            Some((c, b, n)) if n > 1 => Some((c, b, n - 1)),
            _ => None,
        };
        if state == tx_state::COMMIT && last[ch] == Some(tx_state::OFFER) {
            first_commit = Some((ch, bit, 4));
        }
        last[ch] = Some(state);
        hit
    };
    t.pair.borrow_mut().link.damage_next(
        Side::A,
        exposed,
        move |r, _| {
            let (ch, commit_bit) = target.get();
            r[BYTE_CHANNEL] = ch as u8;
            // The bit B expects there once it has delivered.
            r[BYTE_STATE] = (r[BYTE_STATE] & !8) | if commit_bit { 0 } else { 8 };
        },
        100,
    );
    let mut x = 0x2545_F491u32;
    for _ in 0..1_500 {
        // A message at a random moment, about every 16 cycles.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        for _ in 0..x % 4 {
            t.poll().unwrap();
        }
        t.a.queue(1);
    }
    let settled = t.run_until_settled(3_000_000).unwrap();
    let done = 100 - t.pair.borrow().link.damage_pending(Side::A);
    assert!(
        settled,
        "stalled after {done} stray offers: B received {}",
        t.b.received.len()
    );
    assert!(done >= 5, "only {done} offers hit the exposed moment");
    t.check().unwrap();
    quiescent(&mut t, "offers moved to another channel");
    assert_eq!(t.b.received.len(), 1_500);
}
