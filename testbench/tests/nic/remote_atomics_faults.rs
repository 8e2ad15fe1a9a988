//! Remote atomic verbs when the requester's host is slow, when a side
//! resets, and when records are damaged past the check or replayed, on the
//! Verilated pair. A result A's driver returns is final: the verb was applied
//! exactly once, and the result is the one B's unit produced. A verb that may
//! not have been applied comes back in doubt, never as a value. Every test
//! checks what A's driver returned against B's memory, read by B's host.

use pendulum_driver::{Atomics, Error};
use pendulum_layout::acp::{BYTE_CHANNEL, BYTE_OPCODE, OP_ECHO, OP_OFFER_VERB, OP_STATE};
use pendulum_layout::atomic::{op, status, Verb};
use pendulum_layout::global::{LINK_CTRL, LINK_CTRL_RESET};
use pendulum_layout::params::{ACP_CHANNELS, ATOMIC_BYTES};
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::{select_opcode, set_byte, xor_bytes_random, LinkFaults};
use pendulum_testbench::pair::Side;
use pendulum_testbench::remote_verbs::{b_words, run_remote, Outcome, VerbOutcomes};
use pendulum_testbench::SimConfig;

const RING: u32 = 64 * 1024;
/// Lines of B's atomic memory.
const LINES: u32 = ATOMIC_BYTES / 64;

/// The pair with the link up (link pipes with rings of `ring_bytes`), and
/// B's host's local atomics (RX 2, TX 3).
fn pair(latency: u32, seed: u64, ring_bytes: u32) -> (AcpTraffic, Atomics) {
    let mut t = AcpTraffic::new_up(
        SimConfig::default(),
        LinkFaults {
            latency,
            seed,
            ..Default::default()
        },
        ring_bytes,
    )
    .expect("open both cards, link up");
    let at = t.b.dev.open_atomics(2, 3, RING).unwrap();
    (t, at)
}

/// A fetch-and-add of 1 on the first word of each of `lines`, tagged in order from `tag0`.
fn fetch_adds(lines: std::ops::Range<u32>, tag0: u16) -> Vec<Verb> {
    lines
        .enumerate()
        .map(|(i, line)| Verb {
            op: op::FETCH_ADD,
            tag: tag0 + i as u16,
            addr: 64 * line,
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect()
}

/// Cycles from posting a verb on an idle link to its offer leaving A (the
/// TX doorbell, the DMA read of the slot, the link's load): reset offsets
/// count from there. Uses line `line`.
fn offer_delay(t: &mut AcpTraffic, line: u32) -> u64 {
    let first_offer = std::rc::Rc::new(std::cell::Cell::new(None));
    let seen = first_offer.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        if side == Side::A && rec[BYTE_OPCODE] == OP_OFFER_VERB && seen.get().is_none() {
            seen.set(Some(cycle));
        }
    }));
    let v = fetch_adds(line..line + 1, u16::MAX)[0];
    let posted = t.cycle();
    t.a.link.run_verb(&mut t.a.dev, v, 100_000).unwrap();
    t.pair.borrow_mut().wire_tap = None;
    first_offer.get().expect("the verb's offer never left A") - posted
}

/// Every verb has exactly one outcome, and it agrees with B's memory (every
/// word started at 0): a result saw 0 and left 1; not delivered left 0; in
/// doubt left 0 or 1; and every channel is back to idle. Returns how many
/// were in doubt.
fn outcomes_agree_with_memory(
    t: &mut AcpTraffic,
    at: &mut Atomics,
    verbs: &[Verb],
    out: &VerbOutcomes,
    what: &str,
) -> usize {
    let words = b_words(t, at, &verbs.iter().map(|v| v.addr).collect::<Vec<_>>());
    let mut doubt = 0;
    for (v, w) in verbs.iter().zip(words) {
        match out.outcome(v.tag) {
            Some(Outcome::Result(r)) => {
                assert_eq!(
                    (r.status, r.old, w),
                    (status::OK, 0, 1),
                    "{what}: verb {} returned as applied once: (status, old, word now)",
                    v.tag
                );
            }
            Some(Outcome::NotDelivered) => {
                assert_eq!(w, 0, "{what}: verb {} handed back as not delivered", v.tag)
            }
            Some(Outcome::InDoubt) => {
                assert!(w <= 1, "{what}: verb {} in doubt, word {w}", v.tag);
                doubt += 1;
            }
            None => panic!("{what}: verb {} has no outcome", v.tag),
        }
    }
    t.quiescent().unwrap_or_else(|e| panic!("{what}: {e}"));
    doubt
}

/// 1,000 fetch-and-adds on distinct lines, A's rings 4 KiB (64 slots) and A's
/// host reading its link pipe only every 3,000 cycles: the results wait (the
/// link holds the channels back), and every one comes back.
#[test]
fn results_wait_for_a_host_that_reads_slowly_and_none_is_lost() {
    let (mut t, mut at) = pair(40, 2, 4096);
    let verbs = fetch_adds(0..1000, 0);
    let (out, _) = run_remote(&mut t, &verbs, 3_000, 4_000_000);
    assert_eq!(
        (out.results.len(), out.returned.len()),
        (verbs.len(), 0),
        "results lost while A's host read slowly"
    );
    outcomes_agree_with_memory(&mut t, &mut at, &verbs, &out, "slow host");
    let c = t.a.dev.counters().unwrap();
    assert_eq!(c.drops(), 0, "A dropped a result at its ring: {c:?}");
}

/// B resets its link at every fourth cycle over the life of four verbs in
/// flight (from before their offers leave until after their confirmations
/// are back), at two latencies. No outcome contradicts B's memory, and no
/// verb gets two outcomes.
#[test]
fn a_reset_at_every_offset_never_reports_an_unapplied_verb_as_applied() {
    const PER_ROUND: u32 = 4;
    for latency in [40u32, 100] {
        let (mut t, mut at) = pair(latency, latency as u64, RING);
        let delay = offer_delay(&mut t, LINES - 1);
        let life = 4 * latency as u64 + 60;
        let mut doubt = 0;
        let mut line = 0;
        for k in (0..life).step_by(4) {
            let verbs = fetch_adds(line..line + PER_ROUND, line as u16);
            line += PER_ROUND;
            assert!(line < LINES - 1);
            let at_cycle = t.cycle() + delay + k;
            t.pair
                .borrow_mut()
                .schedule_write(Side::B, at_cycle, LINK_CTRL.offset, LINK_CTRL_RESET)
                .unwrap();
            let (out, _) = run_remote(&mut t, &verbs, 0, 400_000);
            let what = format!("latency {latency}, B reset {k} cycles after posting");
            assert_eq!(
                out.accounted(),
                verbs.len(),
                "{what}: verbs unaccounted for"
            );
            doubt += outcomes_agree_with_memory(&mut t, &mut at, &verbs, &out, &what);
        }
        assert!(
            doubt > 0,
            "latency {latency}: no verb was ever in doubt; the sweep missed the window"
        );
    }
}

/// The synchronous form, with B resetting at every offset of its one verb:
/// `Link::run_verb` returns a value only for a verb applied once, and says
/// in doubt (an error) otherwise.
#[test]
fn run_verb_returns_in_doubt_never_a_value() {
    let latency = 100;
    let (mut t, mut at) = pair(latency, 31, RING);
    let delay = offer_delay(&mut t, LINES - 1);
    let (mut values, mut doubt) = (0, 0);
    for (i, k) in (0..(4 * latency as u64 + 60)).step_by(3).enumerate() {
        let v = fetch_adds(i as u32..i as u32 + 1, i as u16)[0];
        let at_cycle = t.cycle() + delay + k;
        t.pair
            .borrow_mut()
            .schedule_write(Side::B, at_cycle, LINK_CTRL.offset, LINK_CTRL_RESET)
            .unwrap();
        let r = t.a.link.run_verb(&mut t.a.dev, v, 100_000);
        let w = b_words(&mut t, &mut at, &[v.addr])[0];
        match r {
            Ok(r) => {
                assert_eq!(
                    (r.old, w),
                    (0, 1),
                    "offset {k}: a value for a verb not applied once"
                );
                values += 1;
            }
            Err(Error::VerbHandedBack { in_doubt: true, .. }) => {
                assert!(w <= 1, "offset {k}");
                doubt += 1;
            }
            Err(Error::VerbHandedBack {
                in_doubt: false, ..
            }) => {
                assert_eq!(w, 0, "offset {k}: not delivered, yet applied")
            }
            Err(e) => panic!("offset {k}: {e}"),
        }
        // What else came back (nothing is expected) is kept for `recv`.
        assert!(t.a.link.recv(&mut t.a.dev).unwrap().is_empty());
    }
    assert!(values > 0 && doubt > 0, "values {values}, in doubt {doubt}");
}

/// B's echo records carry the verbs' results; 40 of them are damaged past
/// the check in the result bytes. No wrong value reaches A's host: every
/// result A's driver returns is the one B's unit produced.
#[test]
fn a_result_damaged_past_the_check_never_reaches_the_host() {
    let (mut t, mut at) = pair(30, 5, RING);
    t.pair.borrow_mut().link.damage_next(
        Side::B,
        select_opcode(OP_ECHO),
        xor_bytes_random(16..64),
        40,
    );
    let verbs = fetch_adds(0..1000, 0);
    let (out, _) = run_remote(&mut t, &verbs, 0, 4_000_000);
    assert_eq!(t.pair.borrow().link.damage_pending(Side::B), 0);
    assert_eq!(out.accounted(), verbs.len());
    assert!(
        out.returned.is_empty(),
        "nothing reset, yet verbs came back"
    );
    outcomes_agree_with_memory(&mut t, &mut at, &verbs, &out, "damaged results");
}

/// Records from before a cut, replayed after the sides re-entangled, while
/// remote verbs and messages flow: never acted on. Every verb's outcome
/// agrees with B's memory, the messages arrive exactly once, and B's host
/// can still use every line (none is left held by a stale verb).
#[test]
fn records_replayed_from_before_a_cut_are_never_acted_on() {
    let (mut t, mut at) = pair(40, 9, RING);
    let verbs = fetch_adds(0..300, 0);
    t.a.queue(300);
    t.b.queue(300);
    let mut out = VerbOutcomes::default();
    let mut posted = 0;
    let mut replayed = false;
    let end = t.cycle() + 3_000_000;
    let cut_at = t.cycle() + 1_500;
    while (out.accounted() < verbs.len() || !t.settled()) && t.cycle() < end {
        posted += t.a.link.send_verbs(&mut t.a.dev, &verbs[posted..]).unwrap();
        out.take(&mut t);
        t.poll().unwrap();
        if t.cycle() >= cut_at && t.pair.borrow().link.stats().cuts == 0 {
            t.pair.borrow_mut().link.cut_now(300);
        }
        if !replayed && t.pair.borrow().link.stats().cuts == 1 && t.cycle() > cut_at + 1_500 {
            // Both sides are up again: replay what crossed before the cut.
            let mut p = t.pair.borrow_mut();
            assert!(p.link.replay_now(Side::A, 400) > 0);
            assert!(p.link.replay_now(Side::B, 400) > 0);
            replayed = true;
        }
    }
    assert!(replayed);
    assert_eq!(out.accounted(), verbs.len(), "verbs unaccounted for");
    if !t.settled() {
        let (ca, cb) = t.counters().unwrap();
        panic!(
            "messages unaccounted for: A sent {} (B got {}, {} back), B sent {} (A got {}, {} back); verbs {} of {}; A {:?} {ca:?}; B {:?} {cb:?}",
            t.a.sent.len(),
            t.b.received.len(),
            t.a.returned.len(),
            t.b.sent.len(),
            t.a.received.len(),
            t.b.returned.len(),
            out.accounted(),
            verbs.len(),
            t.a.dev.link_state().unwrap(),
            t.b.dev.link_state().unwrap(),
        );
    }
    t.check().unwrap();
    outcomes_agree_with_memory(&mut t, &mut at, &verbs, &out, "replay");
    // B's host reaches every line a verb touched: a local verb on each, each
    // answered within a bounded time.
    let probe: Vec<Verb> = verbs
        .iter()
        .map(|v| Verb {
            tag: v.tag,
            operands: [0; 4],
            ..*v
        })
        .collect();
    let mut got = 0;
    let end = t.cycle() + 200_000;
    let mut sent = 0;
    while got < probe.len() && t.cycle() < end {
        sent += at.submit(&mut t.b.dev, &probe[sent..]).unwrap();
        got += at.results(&mut t.b.dev).unwrap().len();
        t.pair.borrow_mut().run(8);
    }
    assert_eq!(
        got,
        probe.len(),
        "B's local verbs stopped answering: a line is held"
    );
}

/// B's proofs of delivery (STATE records) damaged past the check into the
/// next channel's, one in twenty of them (300 in all), while A posts
/// remote verbs at random moments (so the channels move out of step): a
/// proof confirms only the transfer whose digest it matches, so no verb is
/// handed up with another's result, and none stalls.
#[test]
fn a_proof_for_another_channel_confirms_nothing() {
    let (mut t, mut at) = pair(30, 19, RING);
    let mut nth = 0u32;
    t.pair.borrow_mut().link.damage_next(
        Side::B,
        move |r| {
            nth += 1;
            r[BYTE_OPCODE] == OP_STATE && nth % 20 == 0
        },
        |r, _| r[BYTE_CHANNEL] = (r[BYTE_CHANNEL] + 1) % ACP_CHANNELS as u8,
        300,
    );
    let verbs = fetch_adds(0..800, 0);
    let mut out = VerbOutcomes::default();
    let (mut posted, mut x) = (0, 0x9E37_79B9u32);
    let end = t.cycle() + 4_000_000;
    while out.accounted() < verbs.len() && t.cycle() < end {
        // One or two verbs at a random moment, about every 40 cycles.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if x % 5 == 0 && posted < verbs.len() {
            let n = (1 + x as usize / 5 % 2).min(verbs.len() - posted);
            posted +=
                t.a.link
                    .send_verbs(&mut t.a.dev, &verbs[posted..posted + n])
                    .unwrap();
        }
        out.take(&mut t);
        t.pair.borrow_mut().run(8);
    }
    assert!(
        t.pair.borrow().link.damage_pending(Side::B) < 300,
        "no proof was damaged"
    );
    assert_eq!(out.accounted(), verbs.len(), "verbs unaccounted for");
    assert!(
        out.returned.is_empty(),
        "nothing reset, yet verbs came back"
    );
    outcomes_agree_with_memory(
        &mut t,
        &mut at,
        &verbs,
        &out,
        "proofs moved to another channel",
    );
}

/// One verb offer damaged past the check onto channel 15, which A does not
/// use: B runs the verb there tentatively and holds its line. A holds
/// nothing on that channel, so it has it reversed: the verb is undone, its
/// line freed, and A's own offer of it (restated on its channel) runs once.
#[test]
fn a_verb_offered_on_an_idle_channel_by_damage_is_undone() {
    let (mut t, mut at) = pair(30, 23, RING);
    let stray = (ACP_CHANNELS - 1) as u8;
    t.pair.borrow_mut().link.damage_next(
        Side::A,
        select_opcode(OP_OFFER_VERB),
        set_byte(BYTE_CHANNEL, stray),
        1,
    );
    let v = fetch_adds(7..8, 7)[0];
    let r =
        t.a.link
            .run_verb(&mut t.a.dev, v, 20_000)
            .expect("the verb never completed: its line stayed held");
    assert_eq!(t.pair.borrow().link.damage_pending(Side::A), 0);
    assert_eq!((r.status, r.old), (status::OK, 0));
    assert_eq!(
        b_words(&mut t, &mut at, &[v.addr]),
        vec![1],
        "applied once: the stray copy was undone"
    );
    let (ca, _) = t.counters().unwrap();
    assert!(
        ca.reversals > 0,
        "the stray verb was never reversed: {ca:?}"
    );
}
