//! Remote atomic verbs on the Verilated pair: A's host posts verbs on its
//! link; B's atomic unit runs them tentatively, the result comes back with
//! the digest echo, A decides COMMIT and hands the result up (one round
//! trip), and B makes the verb permanent, or undoes it on REVERSE. B's own
//! host runs local verbs on the same memory at the same time.
//!
//! Checked against the reference semantics (`pendulum_layout::atomic`): bit
//! for bit on one channel, where the order is the posting order; by the
//! linearizability checker under contention from both hosts; and by counting
//! under link faults (no verb applied twice, none lost).

use pendulum_driver::{Atomics, MsgKind};
use pendulum_layout::atomic::{execute_request, op, status, CommitWords, Request, Verb, WordOp};
use pendulum_layout::global;
use pendulum_layout::params::ATOMIC_BYTES;
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::linearizability::{linearizable, Op};
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::remote_verbs::{b_words, run_remote, VerbOutcomes};
use pendulum_testbench::SimConfig;
use proptest::prelude::*;
use std::collections::BTreeMap;

const RING: u32 = 64 * 1024;

/// The pair with the link up, and B's host's local atomics (RX 2, TX 3).
fn pair(faults: LinkFaults) -> (AcpTraffic, Atomics) {
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING).expect("open both cards");
    assert!(t.wait_up(20_000).unwrap(), "the link never came up");
    let at = t.b.dev.open_atomics(2, 3, RING).unwrap();
    (t, at)
}

const ADDRS: [u32; 6] = [0, 8, 64, 4096, ATOMIC_BYTES - 8, 12];

/// A verb (opcode 7: a one-slot commit on the verb's line, its operations
/// from the operands), its address, operands, and whether compares use the
/// current value.
fn verb_strategy() -> impl Strategy<Value = (u8, usize, [u64; 4], bool)> {
    (
        prop_oneof![9 => 1u8..=5, 1 => Just(0u8), 2 => Just(op::COMMIT_WORDS)],
        prop_oneof![10 => 0usize..5, 1 => Just(5usize)],
        any::<[u64; 4]>(),
        any::<bool>(),
    )
}

/// A one-slot commit on the line of `addr` built from `operands`: compare
/// one word (its current value if `current` is given), write two.
fn words_from(tag: u16, addr: u32, operands: [u64; 4], current: Option<&[u64]>) -> CommitWords {
    let line = addr & !63;
    let w = |k: usize| (operands[k] % 8) as u8;
    let compare_value = current.map_or(operands[1], |m| m[line as usize / 8 + w(0) as usize]);
    let mut ops = [WordOp::default(); 5];
    ops[0] = WordOp {
        compare: true,
        write: false,
        word: w(0),
        value: compare_value,
    };
    ops[1] = WordOp {
        compare: false,
        write: true,
        word: w(2),
        value: operands[2],
    };
    ops[2] = WordOp {
        compare: false,
        write: true,
        word: w(3),
        value: operands[3],
    };
    CommitWords {
        tag,
        addr: if addr % 8 != 0 { addr } else { line },
        ops,
        reserved_set: false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    /// On one channel the verbs run in the order A posted them: every result
    /// and B's final memory equal the reference model's, bit for bit, and
    /// every result came back in one round trip (no reversal, no fault).
    #[test]
    fn remote_verbs_on_one_channel_match_the_reference_model(spec in prop::collection::vec(verb_strategy(), 1..120)) {
        let (mut t, mut at) = pair(LinkFaults { latency: 20, seed: 5, ..Default::default() });
        t.a.dev.write_checked(global::LINK_CHANNELS.offset, 1).unwrap();
        t.a.dev.reset_link().unwrap();
        prop_assert!(t.wait_up(100_000).unwrap());
        let mut model = vec![0u64; ATOMIC_BYTES as usize / 8];
        let mut verbs = Vec::new();
        let mut expect = Vec::new();
        for (i, (opc, a, mut operands, use_current)) in spec.into_iter().enumerate() {
            let addr = ADDRS[a];
            let tag = i as u16;
            let q = if opc == op::COMMIT_WORDS {
                let in_range = addr < ATOMIC_BYTES;
                Request::Words(words_from(tag, addr, operands, (use_current && in_range).then_some(&model[..])))
            } else {
                if use_current && (opc == op::CAS || opc == op::MASKED_CAS) && addr % 8 == 0 && addr < ATOMIC_BYTES {
                    operands[0] = model[addr as usize / 8];
                }
                Request::Verb(Verb { op: opc, tag, addr, operands, reserved_set: false })
            };
            expect.push(execute_request(&mut model, &q));
            verbs.push(q);
        }
        let (out, _) = run_remote(&mut t, &verbs, 0, 2_000_000);
        prop_assert_eq!(out.accounted(), verbs.len());
        prop_assert_eq!(out.returned.len(), 0);
        prop_assert_eq!(out.other, 0);
        for e in &expect {
            prop_assert_eq!(&out.results[&e.tag].0, e);
        }
        let words: Vec<u32> = ADDRS
            .iter()
            .filter(|a| **a < ATOMIC_BYTES)
            .flat_map(|&a| (0..8).map(move |w| (a & !63) + 8 * w))
            .collect();
        let mem = b_words(&mut t, &mut at, &words);
        for (a, v) in words.iter().zip(mem) {
            prop_assert_eq!(v, model[*a as usize / 8], "B's word at {:#x}", a);
        }
        let (ca, _) = t.counters().unwrap();
        prop_assert_eq!(ca.reversals, 0);
    }
}

/// A small random verb on one of two words of `line`.
fn contended_verb(rng: &mut u64, tag: u16, line: u32) -> Verb {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let x = *rng;
    let op = [op::FETCH_ADD, op::FETCH_ADD, op::CAS, op::SWAP][(x % 4) as usize];
    // Small values, so CAS guesses are sometimes right.
    let operands = [(x >> 8) % 4, (x >> 16) % 4 + 1, 0, 0];
    Verb {
        op,
        tag,
        addr: line + 8 * ((x >> 24) % 2) as u32,
        operands,
        reserved_set: false,
    }
}

/// Both hosts hammer the same two words, A remotely over all 16 channels and
/// B locally, with their verbs in flight together; each round's history
/// (10 + 10 verbs, cycle-stamped by the hosts) must be linearizable. Some
/// offers are damaged past the check, so some tentative verbs are undone:
/// a local verb that saw a tentative value would then have seen a value
/// that never existed. B's local verbs on a line a remote verb holds
/// tentatively wait, and remote verbs on a held line are refused and
/// offered again.
#[test]
fn verbs_from_both_hosts_on_the_same_words_are_linearizable() {
    // Small histories keep the checker's search short: it is exponential
    // in the ops that overlap.
    const ROUNDS: u32 = 24;
    const PER_HOST: u16 = 10;
    let (mut t, mut at) = pair(LinkFaults {
        latency: 25,
        undetected_rate: 0.05,
        seed: 8,
        ..Default::default()
    });
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for round in 0..ROUNDS {
        let line = 64 * round;
        let remote: Vec<Verb> = (0..PER_HOST)
            .map(|i| contended_verb(&mut rng, i, line))
            .collect();
        let local: Vec<Verb> = (0..PER_HOST)
            .map(|i| contended_verb(&mut rng, 100 + i, line))
            .collect();
        // Post both batches, then run both hosts until everything is back.
        let mut out = VerbOutcomes::default();
        let a_posted = t.cycle();
        assert_eq!(
            t.a.link.send_verbs(&mut t.a.dev, &remote).unwrap(),
            remote.len()
        );
        let b_posted = t.cycle();
        assert_eq!(at.submit(&mut t.b.dev, &local).unwrap(), local.len());
        let mut local_results = Vec::new();
        let end = t.cycle() + 200_000;
        while (out.accounted() < remote.len() || local_results.len() < local.len())
            && t.cycle() < end
        {
            out.take(&mut t);
            let now = t.cycle();
            local_results.extend(
                at.results(&mut t.b.dev)
                    .unwrap()
                    .into_iter()
                    .map(|r| (r, now)),
            );
            t.pair.borrow_mut().run(8);
        }
        let n = PER_HOST as usize;
        assert_eq!(
            (out.results.len(), local_results.len()),
            (n, n),
            "round {round}: verbs did not all complete"
        );
        let mut history: Vec<Op> = remote
            .iter()
            .map(|v| {
                let (r, at_cycle) = out.results[&v.tag];
                Op {
                    invoked: a_posted,
                    returned: at_cycle,
                    verb: *v,
                    result: r,
                }
            })
            .collect();
        for (r, at_cycle) in local_results {
            let v = local.iter().find(|v| v.tag == r.tag).unwrap();
            history.push(Op {
                invoked: b_posted,
                returned: at_cycle,
                verb: *v,
                result: r,
            });
        }
        assert!(
            linearizable(&history, &BTreeMap::new()),
            "round {round}: not linearizable: {history:#?}"
        );
    }
    let (ca, cb) = t.counters().unwrap();
    assert_eq!(ca.commits, (ROUNDS * PER_HOST as u32) as u64, "{ca:?}");
    assert!(ca.reversals > 0, "no tentative verb was undone: {ca:?}");
    assert!(
        cb.rejects + ca.rejects > 0,
        "no remote verb ever met a held line: the test does not contend ({ca:?} {cb:?})"
    );
}

/// Under loss, corruption the check catches, damage it cannot catch (so
/// tentative verbs are reversed and undone) and cuts, 3,000 remote
/// fetch-and-adds of 1 on one word: each returns exactly once, the old values
/// are exactly 0..3000 (a verb applied twice, or undone but reported, would
/// repeat or skip one), and B's word ends at 3,000.
#[test]
fn under_link_faults_every_remote_verb_is_applied_exactly_once() {
    let faults = LinkFaults {
        latency: 40,
        corrupt_rate: 2e-3,
        undetected_rate: 5e-3,
        loss_rate: 2e-3,
        cut_every: Some(60_000),
        cut_cycles: 1_500,
        seed: 17,
        ..Default::default()
    };
    let (mut t, mut at) = pair(faults);
    let n = 3_000u16;
    let verbs: Vec<Verb> = (0..n)
        .map(|i| Verb {
            op: op::FETCH_ADD,
            tag: i,
            addr: 128,
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    let (out, _) = run_remote(&mut t, &verbs, 0, 6_000_000);
    assert_eq!(out.accounted(), verbs.len(), "verbs unaccounted for");
    assert!(
        out.returned.is_empty(),
        "no host lost its state, yet verbs came back: {:?}",
        &out.returned[..out.returned.len().min(4)]
    );
    let mut olds: Vec<u64> = out
        .results
        .values()
        .map(|(r, _)| {
            assert_eq!(r.status, status::OK);
            r.old
        })
        .collect();
    olds.sort_unstable();
    assert_eq!(olds, (0..n as u64).collect::<Vec<_>>());
    assert_eq!(b_words(&mut t, &mut at, &[128]), vec![n as u64]);
    let stats = t.pair.borrow().link.stats().clone();
    assert!(
        stats.undetected > 0 && stats.cuts > 0 && stats.lost > 0,
        "{stats:?}"
    );
    let (ca, _) = t.counters().unwrap();
    assert!(
        ca.reversals > 0,
        "no verb was reversed, so no undo was exercised: {ca:?}"
    );
}

/// Every offer damaged past the check: B runs each verb tentatively, A
/// reverses it, B undoes it; B's memory stays exactly as it was (its host
/// reads it meanwhile, waiting while a line is held). Once the damage stops,
/// every verb applies once.
#[test]
fn reversed_remote_verbs_leave_no_trace() {
    let (mut t, mut at) = pair(LinkFaults {
        latency: 30,
        seed: 3,
        ..Default::default()
    });
    let words = [0u32, 8, 16];
    for (i, &a) in words.iter().enumerate() {
        at.swap(&mut t.b.dev, a, 1000 + i as u64).unwrap();
    }
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 30,
        undetected_rate: 1.0,
        seed: 3,
        ..Default::default()
    });
    let verbs: Vec<Verb> = (0..30u16)
        .map(|i| Verb {
            op: op::SWAP,
            tag: i,
            addr: words[i as usize % 3],
            operands: [i as u64, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    assert_eq!(
        t.a.link.send_verbs(&mut t.a.dev, &verbs).unwrap(),
        verbs.len()
    );
    let mut out = VerbOutcomes::default();
    for _ in 0..300 {
        out.take(&mut t);
        assert_eq!(
            b_words(&mut t, &mut at, &words),
            vec![1000, 1001, 1002],
            "a reversed verb left a trace"
        );
        t.pair.borrow_mut().run(8);
    }
    assert!(out.results.is_empty(), "a damaged verb was committed");
    let (ca, _) = t.counters().unwrap();
    assert!(ca.reversals > 0 && ca.commits == 0, "{ca:?}");
    t.pair.borrow_mut().link.set_faults(LinkFaults {
        latency: 30,
        seed: 3,
        ..Default::default()
    });
    let end = t.cycle() + 500_000;
    while out.accounted() < verbs.len() && t.cycle() < end {
        out.take(&mut t);
        t.pair.borrow_mut().run(8);
    }
    assert_eq!(out.results.len(), verbs.len());
    // Each word saw 10 swaps, in some order: the old values are the
    // initial value and nine of the ten swapped-in values, each once.
    for (i, &a) in words.iter().enumerate() {
        let mut olds: Vec<u64> = out
            .results
            .values()
            .filter(|(r, _)| verbs[r.tag as usize].addr == a)
            .map(|(r, _)| r.old)
            .collect();
        let last = b_words(&mut t, &mut at, &[a])[0];
        olds.push(last);
        olds.sort_unstable();
        let mut expect: Vec<u64> = (0..30u64).filter(|j| j % 3 == i as u64).collect();
        expect.push(1000 + i as u64);
        expect.sort_unstable();
        assert_eq!(olds, expect, "word {a:#x}");
    }
}

/// A multi-word commit does not fit one link payload: the driver refuses it
/// with a clear error, and nothing is posted.
#[test]
fn a_remote_commit_is_refused_by_the_driver() {
    let (mut t, _) = pair(LinkFaults {
        latency: 5,
        seed: 1,
        ..Default::default()
    });
    let v = Verb {
        op: op::COMMIT,
        tag: 1,
        addr: 0,
        operands: [0; 4],
        reserved_set: false,
    };
    let e =
        t.a.link
            .send_verbs(&mut t.a.dev, &[v])
            .unwrap_err()
            .to_string();
    assert!(e.contains("locally only"), "{e}");
    assert!(t.a.link.sent(&t.a.dev));
}

/// B resets its link while A has verbs in flight on all 16 channels (one
/// fetch-and-add of 1 per line, on 256 lines): B undoes the verbs it held
/// tentatively, and A hands back as in doubt those it had committed but for
/// which no proof of delivery came (their results were never handed up: a
/// result is final); undecided ones would be offered again. So every result
/// saw 0 (a verb run twice without its undo would see 1), every line with a
/// result holds 1, an in-doubt line holds 0 (undone) or 1 (B heard COMMIT
/// first), some were undone, and no verb has both a result and a hand-back.
#[test]
fn a_reset_at_the_responder_undoes_tentative_verbs_and_the_requester_hears_in_doubt() {
    // A long link, so that B's reset (a register write, a few hundred
    // cycles on its way) lands while verbs are tentative at B and decided
    // but unconfirmed at A.
    let (mut t, mut at) = pair(LinkFaults {
        latency: 400,
        seed: 23,
        ..Default::default()
    });
    let n = 256u16;
    let line = |i: u16| 64 * i as u32;
    let verbs: Vec<Verb> = (0..n)
        .map(|i| Verb {
            op: op::FETCH_ADD,
            tag: i,
            addr: line(i),
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    // Whether A's last record stated a decision not yet confirmed (COMMIT,
    // or COMMIT_OFFER: decided and offering the next verb).
    let a_deciding = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = a_deciding.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |_, side, rec| {
        use pendulum_layout::acp::{sender_state, tx_state, BYTE_OPCODE, BYTE_STATE, OP_ENTANGLE};
        if side == pendulum_testbench::pair::Side::A && rec[BYTE_OPCODE] != OP_ENTANGLE {
            let s = sender_state(rec[BYTE_STATE]);
            seen.set(s == tx_state::COMMIT || s == tx_state::COMMIT_OFFER);
        }
    }));
    let mut out = VerbOutcomes::default();
    let mut posted = 0;
    let end = t.cycle() + 4_000_000;
    let mut reset_done = false;
    while out.accounted() < verbs.len() && t.cycle() < end {
        posted += t.a.link.send_verbs(&mut t.a.dev, &verbs[posted..]).unwrap();
        out.take(&mut t);
        // Reset once verbs flow and A states a decision: the write lands
        // while B holds verbs tentatively and A has decided COMMIT on some
        // but heard no confirmation.
        if !reset_done && out.results.len() >= 64 && a_deciding.get() {
            t.b.dev.reset_link().unwrap();
            reset_done = true;
        }
        t.pair.borrow_mut().run(8);
    }
    assert_eq!(out.accounted(), verbs.len(), "verbs unaccounted for");
    assert!(
        out.returned.iter().all(|(_, k)| *k == MsgKind::InDoubt),
        "A kept its state, so nothing is 'not delivered'"
    );
    let doubt: std::collections::HashSet<u16> = out.returned.iter().map(|(v, _)| v.tag).collect();
    assert!(
        !doubt.is_empty(),
        "no verb was past its commit when B reset: the test did not exercise the case"
    );
    for (r, _) in out.results.values() {
        assert_eq!(
            (r.status, r.old),
            (status::OK, 0),
            "verb {} saw a value it should not have",
            r.tag
        );
    }
    let words = b_words(
        &mut t,
        &mut at,
        &verbs.iter().map(|v| v.addr).collect::<Vec<_>>(),
    );
    let mut undone = 0;
    for (i, w) in words.into_iter().enumerate() {
        let tag = i as u16;
        if doubt.contains(&tag) {
            assert!(w <= 1, "line {i} holds {w}");
            undone += (w == 0) as u32;
        } else {
            assert!(
                out.results.contains_key(&tag),
                "verb {tag} neither returned nor in doubt"
            );
            assert_eq!(w, 1, "line {i}: its verb was committed, so it holds 1");
        }
    }
    // B had not heard COMMIT for some when it reset, and undid them.
    assert!(
        undone > 0,
        "no in-doubt verb was undone at B: the rollback on a reset was not exercised"
    );
    // The synchronous form works after all this, and reports the value.
    let v = Verb {
        op: op::SWAP,
        tag: 9_999,
        addr: 64 * 300,
        operands: [77, 0, 0, 0],
        reserved_set: false,
    };
    let r = t.a.link.run_verb(&mut t.a.dev, v, 100_000).unwrap();
    assert_eq!((r.status, r.old), (status::OK, 0));
    assert_eq!(
        b_words(&mut t, &mut at, &[64 * 300]),
        vec![77],
        "the swap handed B A's value and A B's, in one round trip"
    );
}

/// A message whose payload reads as a verb (a verb slot posted with
/// `Link::send`) is handed back as a message, never as a verb: the card
/// names the kind of what it hands back. A's reset, before it decides
/// anything, hands back both kinds from the same channels.
#[test]
fn a_handed_back_message_that_reads_as_a_verb_is_not_taken_for_one() {
    let (mut t, _at) = pair(LinkFaults {
        latency: 400,
        seed: 29,
        ..Default::default()
    });
    let verb = |tag: u16| Verb {
        op: op::FETCH_ADD,
        tag,
        addr: 64 * (tag as u32 % 256),
        operands: [1, 0, 0, 0],
        reserved_set: false,
    };
    // Tags below 1000 are verbs; 1000 and up, messages that read as verbs.
    let n = 24u16;
    let messages: Vec<[u8; 56]> = (0..n)
        .map(|i| verb(1_000 + i).to_slot()[..56].try_into().unwrap())
        .collect();
    let verbs: Vec<Verb> = (0..n).map(verb).collect();
    let (mut sent_m, mut sent_v) = (0, 0);
    while sent_m < messages.len() || sent_v < verbs.len() {
        sent_m += t.a.link.send(&mut t.a.dev, &messages[sent_m..]).unwrap();
        sent_v += t.a.link.send_verbs(&mut t.a.dev, &verbs[sent_v..]).unwrap();
        t.pair.borrow_mut().run(8);
    }
    // Loaded and offered, nothing decided yet (the round trip is 800+).
    t.pair.borrow_mut().run(100);
    t.a.dev.reset_link().unwrap();
    let (mut as_message, mut as_verb, mut results) = (0, 0, 0);
    let end = t.cycle() + 400_000;
    while t.cycle() < end {
        for m in t.a.link.recv(&mut t.a.dev).unwrap() {
            let tag = Verb::from_slot(&m.payload).map(|v| v.tag);
            match m.kind {
                MsgKind::NotDelivered | MsgKind::InDoubt if m.verb => {
                    assert!(tag < Some(1_000), "message {tag:?} handed back as a verb");
                    assert_eq!(m.returned_verb().map(|v| v.tag), tag);
                    as_verb += 1;
                }
                MsgKind::NotDelivered | MsgKind::InDoubt => {
                    assert!(tag >= Some(1_000), "verb {tag:?} handed back as a message");
                    assert_eq!(m.returned_verb(), None, "a message taken for a verb");
                    as_message += 1;
                }
                MsgKind::VerbResult => results += 1,
                MsgKind::Delivered => panic!("B sent nothing"),
            }
        }
        t.pair.borrow_mut().run(64);
    }
    assert!(
        as_message > 0 && as_verb > 0,
        "the reset handed back {as_message} messages and {as_verb} verbs: not both kinds"
    );
    let delivered_at_b = t.b.link.recv(&mut t.b.dev).unwrap().len();
    assert_eq!(
        as_message + delivered_at_b,
        messages.len(),
        "every message delivered at B or handed back to A"
    );
    assert_eq!(
        as_verb + results,
        verbs.len(),
        "every verb has a result or was handed back"
    );
}
