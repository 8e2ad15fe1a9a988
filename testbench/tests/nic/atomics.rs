//! The atomic unit on the Verilated NIC, through the driver, against the
//! reference semantics in `pendulum_layout::atomic::execute`, bit for bit.

use pendulum_driver::{Atomics, Card, Device, Error};
use pendulum_layout::atomic::{
    execute_request, op, status, Commit, CommitWords, Request, Verb, VerbResult, WordOp, LINE_WORDS,
};
use pendulum_layout::params::ATOMIC_BYTES;
use pendulum_layout::Counter;
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

fn open() -> (Device<SimCard>, Atomics) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    // Results on RX pipe 1: pipe 0 receives non-IP frames.
    let at = dev.open_atomics(1, 1, 64 * 1024).unwrap();
    (dev, at)
}

/// Posts every verb (as many per doorbell as fit) and collects the results.
fn run_all(dev: &mut Device<SimCard>, at: &mut Atomics, verbs: &[Verb]) -> Vec<VerbResult> {
    let requests: Vec<Request> = verbs.iter().map(|&v| v.into()).collect();
    run_requests(dev, at, &requests)
}

/// Posts every request, verbs and commits mixed (as many per doorbell as
/// fit whole), and collects the results.
fn run_requests(dev: &mut Device<SimCard>, at: &mut Atomics, verbs: &[Request]) -> Vec<VerbResult> {
    let mut next = 0;
    let mut out = Vec::new();
    let mut idle = 0;
    while out.len() < verbs.len() {
        if next < verbs.len() {
            next += at.submit_requests(dev, &verbs[next..]).unwrap();
        }
        let got = at.results(dev).unwrap();
        if got.is_empty() {
            dev.card_mut().relax();
            idle += 1;
            assert!(
                idle < 200_000,
                "results stopped after {} of {}",
                out.len(),
                verbs.len()
            );
        }
        out.extend(got);
    }
    out
}

/// Reads words back without changing them (fetch-and-add 0).
fn read_words(dev: &mut Device<SimCard>, at: &mut Atomics, addrs: &[u32]) -> Vec<u64> {
    let verbs: Vec<Verb> = addrs
        .iter()
        .map(|&a| Verb {
            op: op::FETCH_ADD,
            tag: 0,
            addr: a,
            operands: [0; 4],
            reserved_set: false,
        })
        .collect();
    run_all(dev, at, &verbs).iter().map(|r| r.old).collect()
}

const ADDRS: [u32; 7] = [0, 8, 16, 4096, ATOMIC_BYTES - 8, ATOMIC_BYTES, 12];

fn verb_strategy() -> impl Strategy<Value = (u8, usize, [u64; 4], bool, bool)> {
    (
        // Opcodes 6 and 7 are commits: they come from their own strategies.
        prop_oneof![8 => 1u8..=5, 1 => Just(0u8), 1 => 8u8..=255],
        prop_oneof![10 => 0usize..5, 1 => 5usize..7],
        any::<[u64; 4]>(),
        any::<bool>(),
        prop::bool::weighted(0.03),
    )
}

/// Lines commits go to: the lines of the verbs' words (so verbs and commits
/// meet back to back), the last line, one past the end, and a misaligned one.
const LINES: [u32; 6] = [0, 4096, ATOMIC_BYTES - 64, ATOMIC_BYTES, 8, 72];

/// A commit: its line, masks, values, whether its compare uses the line's
/// current words (so most succeed), and reserved bytes set.
fn commit_strategy() -> impl Strategy<Value = (usize, u8, u8, [u64; 8], [u64; 8], bool, bool)> {
    (
        prop_oneof![10 => 0usize..3, 1 => 3usize..6],
        any::<u8>(),
        any::<u8>(),
        any::<[u64; 8]>(),
        any::<[u64; 8]>(),
        prop::bool::weighted(0.7),
        prop::bool::weighted(0.03),
    )
}

/// A one-slot commit's five operations: (compare, write, word, value).
type WordOps = [(bool, bool, u8, u64); 5];

/// A one-slot commit: its line, five operations (compare, write, word,
/// value; some words out of range to test refusal), whether compares use the
/// current words, and reserved bytes set.
fn words_strategy() -> impl Strategy<Value = (usize, WordOps, bool, bool)> {
    (
        prop_oneof![10 => 0usize..3, 1 => 3usize..6],
        prop::array::uniform5((
            any::<bool>(),
            any::<bool>(),
            prop_oneof![20 => 0u8..8, 1 => 8u8..64],
            any::<u64>(),
        )),
        prop::bool::weighted(0.7),
        prop::bool::weighted(0.03),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random verb streams, many back to back on the same few words: every
    /// result and the final memory equal the reference model's sequential
    /// execution.
    #[test]
    fn random_verb_streams_match_the_reference_model(
        spec in prop::collection::vec(prop_oneof![
            6 => verb_strategy().prop_map(|v| (Some(v), None, None)),
            1 => commit_strategy().prop_map(|c| (None, Some(c), None)),
            2 => words_strategy().prop_map(|w| (None, None, Some(w))),
        ], 1..300)
    ) {
        let (mut dev, mut at) = open();
        let mut model = vec![0u64; ATOMIC_BYTES as usize / 8];
        let mut verbs = Vec::new();
        let mut expect = Vec::new();
        for (i, item) in spec.into_iter().enumerate() {
            let tag = i as u16;
            let q = match item {
                (Some((opc, a, mut operands, use_current, reserved)), _, _) => {
                    let addr = ADDRS[a];
                    // Half the compares use the word's current value, so swaps happen.
                    if use_current && (opc == op::CAS || opc == op::MASKED_CAS) && addr % 8 == 0 && addr < ATOMIC_BYTES {
                        operands[0] = model[addr as usize / 8];
                    }
                    Request::Verb(Verb { op: opc, tag, addr, operands, reserved_set: reserved })
                }
                (_, Some((l, compare_mask, write_mask, mut compare, write, use_current, reserved)), _) => {
                    let addr = LINES[l];
                    if use_current && addr % 64 == 0 && addr < ATOMIC_BYTES {
                        compare.copy_from_slice(&model[addr as usize / 8..][..LINE_WORDS]);
                    }
                    Request::Commit(Commit { tag, addr, compare_mask, write_mask, compare, write, reserved_set: reserved })
                }
                (_, _, Some((l, ops, use_current, reserved))) => {
                    let addr = LINES[l];
                    let ops = ops.map(|(compare, write, word, mut value)| {
                        if use_current && compare && word < 8 && addr % 64 == 0 && addr < ATOMIC_BYTES {
                            value = model[addr as usize / 8 + word as usize];
                        }
                        WordOp { compare, write, word, value }
                    });
                    Request::Words(CommitWords { tag, addr, ops, reserved_set: reserved })
                }
                _ => unreachable!(),
            };
            expect.push(execute_request(&mut model, &q));
            verbs.push(q);
        }
        let got = run_requests(&mut dev, &mut at, &verbs);
        prop_assert_eq!(&got, &expect);
        let words: Vec<u32> = ADDRS
            .iter()
            .chain(&LINES)
            .flat_map(|&a| (0..8).map(move |w| (a & !63) + 8 * w))
            .filter(|a| *a < ATOMIC_BYTES)
            .collect();
        let mem = read_words(&mut dev, &mut at, &words);
        for (a, v) in words.iter().zip(mem) {
            prop_assert_eq!(v, model[*a as usize / 8], "word at {:#x}", a);
        }
        let errors = expect.iter().filter(|r| r.status > status::COMPARE_FAILED).count() as u64;
        prop_assert_eq!(dev.read64(Counter::AtomicErrors.reg()).unwrap(), errors);
    }
}

#[test]
fn back_to_back_verbs_on_one_word_see_each_other_in_order() {
    let (mut dev, mut at) = open();
    let n = 600u16;
    let verbs: Vec<Verb> = (0..n)
        .map(|i| Verb {
            op: op::FETCH_ADD,
            tag: i,
            addr: 64,
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    let got = run_all(&mut dev, &mut at, &verbs);
    for (i, r) in got.iter().enumerate() {
        assert_eq!((r.tag, r.old, r.status), (i as u16, i as u64, status::OK));
    }
    assert_eq!(read_words(&mut dev, &mut at, &[64]), vec![n as u64]);
}

#[test]
fn the_driver_verbs_and_their_errors() {
    let (mut dev, mut at) = open();
    assert_eq!(at.swap(&mut dev, 800, 10).unwrap(), 0);
    assert_eq!(at.cas(&mut dev, 800, 10, 20).unwrap(), 10);
    assert_eq!(
        at.cas(&mut dev, 800, 10, 30).unwrap(),
        20,
        "a failed CAS returns the current value"
    );
    assert_eq!(at.fetch_add(&mut dev, 800, 5).unwrap(), 20);
    // Two 32-bit counters in one word: the low one wraps, the high one is untouched.
    at.swap(&mut dev, 808, 0x0000_0007_FFFF_FFFF).unwrap();
    at.masked_fetch_add(&mut dev, 808, 1, 1 << 63 | 1 << 31)
        .unwrap();
    assert_eq!(
        at.fetch_add(&mut dev, 808, 0).unwrap(),
        0x0000_0007_0000_0000
    );
    // Masked CAS: compare the low byte only, replace the high byte only.
    assert_eq!(
        at.masked_cas(
            &mut dev,
            800,
            0xFF19,
            0xAB00_0000_0000_0000,
            0xFF,
            0xFF00_0000_0000_0000
        )
        .unwrap(),
        25
    );
    assert_eq!(
        at.fetch_add(&mut dev, 800, 0).unwrap(),
        0xAB00_0000_0000_0019
    );
    for (addr, st) in [
        (804, status::MISALIGNED),
        (ATOMIC_BYTES, status::OUT_OF_RANGE),
    ] {
        match at.fetch_add(&mut dev, addr, 1) {
            Err(Error::Atomic { addr: a, status: s }) => assert_eq!((a, s), (addr, st)),
            other => panic!("{addr:#x}: expected a refused verb, got {other:?}"),
        }
    }
    let e = at.fetch_add(&mut dev, 804, 1).unwrap_err().to_string();
    assert!(e.contains("not a multiple of 8"), "{e}");
    assert_eq!(dev.read64(Counter::AtomicErrors.reg()).unwrap(), 3);
    // A slot without the verb kind byte never reaches the unit: dropped and counted.
    let before = dev.counters().unwrap().tx_drop_malformed;
    let mut junk = Verb {
        op: op::SWAP,
        tag: 1,
        addr: 0,
        operands: [9; 4],
        reserved_set: false,
    }
    .to_slot();
    junk[0] = 0x00;
    at.submit_raw(&mut dev, &junk).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 0).unwrap(), 0);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, before + 1);
}

#[test]
fn commits_are_all_or_nothing_and_return_the_line() {
    let (mut dev, mut at) = open();
    let line = 0x200;
    for w in 0..8u32 {
        at.swap(&mut dev, line + 8 * w, 100 + w as u64).unwrap();
    }
    let before: [u64; 8] = std::array::from_fn(|w| 100 + w as u64);
    // Compare words 1 and 6, write words 0, 1 and 7.
    let mut cmp = [0u64; 8];
    cmp[1] = 101;
    cmp[6] = 106;
    let new = [7, 8, 9, 10, 11, 12, 13, 14];
    let (wrote, old) = at
        .commit(&mut dev, line, 0b0100_0010, cmp, 0b1000_0011, new)
        .unwrap();
    assert!(wrote);
    assert_eq!(old, before);
    let after = read_words(
        &mut dev,
        &mut at,
        &(0..8).map(|w| line + 8 * w).collect::<Vec<_>>(),
    );
    assert_eq!(after, vec![7, 8, 102, 103, 104, 105, 106, 14]);
    // Word 1 no longer matches: nothing written, the current values returned.
    let (wrote, cur) = at
        .commit(&mut dev, line, 0b0100_0010, cmp, 0xFF, [0; 8])
        .unwrap();
    assert!(!wrote);
    assert_eq!(cur.to_vec(), after);
    let again = read_words(
        &mut dev,
        &mut at,
        &(0..8).map(|w| line + 8 * w).collect::<Vec<_>>(),
    );
    assert_eq!(again, after, "a failed commit writes nothing");
    // Errors: misaligned line, beyond the memory.
    for (addr, st) in [
        (line + 8, status::MISALIGNED),
        (ATOMIC_BYTES, status::OUT_OF_RANGE),
    ] {
        match at.commit(&mut dev, addr, 0, [0; 8], 0xFF, [1; 8]) {
            Err(Error::Atomic { addr: a, status: s }) => assert_eq!((a, s), (addr, st)),
            other => panic!("{addr:#x}: expected a refused commit, got {other:?}"),
        }
    }
    assert_eq!(dev.read64(Counter::AtomicErrors.reg()).unwrap(), 2);
    // A one-slot verb naming COMMIT is refused by the driver, not posted.
    let bare = Verb {
        op: op::COMMIT,
        tag: 0,
        addr: 0,
        operands: [0; 4],
        reserved_set: false,
    };
    assert!(matches!(
        at.submit(&mut dev, &[bare]),
        Err(Error::BadVerb(_))
    ));
}

#[test]
fn commits_and_verbs_back_to_back_on_one_line_see_each_other() {
    // A fetch-and-add on word 3, then a commit that compares word 3 with the
    // value it must have by then, then more adds: all in one doorbell, so the
    // unit sees them back to back and forwarding must carry every write.
    let (mut dev, mut at) = open();
    let mut reqs = Vec::new();
    let mut model = vec![0u64; ATOMIC_BYTES as usize / 8];
    for i in 0..60u16 {
        let q = if i % 3 == 2 {
            let mut compare = [0; 8];
            compare[3] = model[3];
            Request::Commit(Commit {
                tag: i,
                addr: 0,
                compare_mask: 1 << 3,
                write_mask: 1 << 3 | 1 << (i % 8),
                compare,
                write: [i as u64 * 1000; 8],
                reserved_set: false,
            })
        } else {
            Request::Verb(Verb {
                op: op::FETCH_ADD,
                tag: i,
                addr: 24,
                operands: [1, 0, 0, 0],
                reserved_set: false,
            })
        };
        execute_request(&mut model, &q);
        reqs.push(q);
    }
    let got = run_requests(&mut dev, &mut at, &reqs);
    for (r, q) in got.iter().zip(&reqs) {
        if let Request::Commit(_) = q {
            assert_eq!(
                r.status,
                status::OK,
                "commit {} saw a stale word 3: {r:?}",
                r.tag
            );
        }
    }
    assert_eq!(
        read_words(
            &mut dev,
            &mut at,
            &(0..8).map(|w| 8 * w).collect::<Vec<_>>()
        ),
        model[..8].to_vec()
    );
}

#[test]
fn a_commit_cut_short_by_the_rung_tail_is_dropped_and_counted() {
    let (mut dev, mut at) = open();
    let before = dev.counters().unwrap().tx_drop_malformed;
    let c = Commit {
        tag: 1,
        addr: 0,
        compare_mask: 0,
        write_mask: 0xFF,
        compare: [0; 8],
        write: [0xEE; 8],
        reserved_set: false,
    };
    // Header and compare line rung, the write line not: the two slots are
    // dropped (one count), and the compare line is never taken for a verb,
    // even though it looks like one.
    let mut slots = c.to_slots();
    let looks_like_a_swap = Verb {
        op: op::SWAP,
        tag: 9,
        addr: 0,
        operands: [0xBAD; 4],
        reserved_set: false,
    }
    .to_slot();
    slots[64..128].copy_from_slice(&looks_like_a_swap);
    at.submit_raw(&mut dev, &slots[..128]).unwrap();
    // Let the card fetch them before anything else is rung: doorbells that
    // arrive together are served as one run, and then the next request's
    // slot would be this commit's write line (the driver never posts part of
    // a commit, so only raw posting can get here).
    dev.card_mut().sim.run(2_000);
    assert_eq!(
        at.fetch_add(&mut dev, 0, 0).unwrap(),
        0,
        "nothing of the cut commit was executed"
    );
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, before + 1);
    // The whole commit then goes through.
    let (wrote, _) = at.commit(&mut dev, 0, 0, [0; 8], 0xFF, [0xEE; 8]).unwrap();
    assert!(wrote);
    assert_eq!(at.fetch_add(&mut dev, 56, 0).unwrap(), 0xEE);
}

#[test]
fn one_slot_commits_through_the_driver() {
    let (mut dev, mut at) = open();
    let line = 0x300;
    for w in 0..8u32 {
        at.swap(&mut dev, line + 8 * w, 10 * w as u64).unwrap();
    }
    let cmp = |word, value| WordOp {
        compare: true,
        write: false,
        word,
        value,
    };
    let set = |word, value| WordOp {
        compare: false,
        write: true,
        word,
        value,
    };
    // Word 2 holds 20: words 0, 5 and 7 are written; the old values come back per operation.
    let (wrote, olds) = at
        .commit_words(
            &mut dev,
            line,
            &[cmp(2, 20), set(0, 1), set(5, 2), set(7, 3)],
        )
        .unwrap();
    assert!(wrote);
    assert_eq!(olds, [20, 0, 50, 70, 0]);
    let (wrote, olds) = at
        .commit_words(&mut dev, line, &[cmp(2, 21), set(0, 9)])
        .unwrap();
    assert!(!wrote, "word 2 is 20, not 21");
    assert_eq!(olds[1], 1, "nothing was written");
    assert!(matches!(
        at.commit_words(&mut dev, line, &[set(8, 1)]),
        Err(Error::BadVerb(_))
    ));
    assert!(matches!(
        at.commit_words(&mut dev, line + 8, &[set(1, 1)]),
        Err(Error::Atomic {
            status: status::MISALIGNED,
            ..
        })
    ));
}

#[test]
fn a_dropped_atomics_gives_the_unit_back_and_its_pipes_are_switched_off() {
    let (mut dev, mut at) = open();
    assert_eq!(at.fetch_add(&mut dev, 0, 3).unwrap(), 0);
    drop(at);
    let mut at = dev.open_atomics(1, 1, 64 * 1024).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 3).unwrap(), 3);
    // Failing halfway (no such TX pipe) leaves the RX pipe closed.
    dev.close_atomics(at).unwrap();
    let tx_pipes = dev.tx_pipes();
    assert!(matches!(
        dev.open_atomics(2, tx_pipes, 4096),
        Err(Error::NoSuchTxPipe { .. })
    ));
    let pipe2 = dev.read(pendulum_layout::pipe_page(2) + pendulum_layout::pipe::CTRL.offset);
    assert_eq!(pipe2.unwrap() & pendulum_layout::pipe::CTRL_ENABLE, 0);
    dev.open_rx_pipe(2, 4096).unwrap();
}
