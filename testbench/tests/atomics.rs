//! The atomic unit on the Verilated NIC, through the driver, against the
//! reference semantics in `pendulum_layout::atomic::execute`, bit for bit.

use pendulum_driver::{Atomics, Card, Device, Error};
use pendulum_layout::atomic::{execute, op, status, Verb, VerbResult};
use pendulum_layout::params::ATOMIC_BYTES;
use pendulum_layout::Counter;
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

fn open() -> (Device<SimCard>, Atomics) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    let at = dev.open_atomics(0, 1, 64 * 1024).unwrap();
    (dev, at)
}

/// Posts every verb (as many per doorbell as fit) and collects the results.
fn run_all(dev: &mut Device<SimCard>, at: &mut Atomics, verbs: &[Verb]) -> Vec<VerbResult> {
    let mut next = 0;
    let mut out = Vec::new();
    let mut idle = 0;
    while out.len() < verbs.len() {
        if next < verbs.len() {
            next += at.submit(dev, &verbs[next..]).unwrap();
        }
        let got = at.results(dev).unwrap();
        if got.is_empty() {
            dev.card_mut().relax();
            idle += 1;
            assert!(idle < 200_000, "results stopped after {} of {}", out.len(), verbs.len());
        }
        out.extend(got);
    }
    out
}

/// Reads words back without changing them (fetch-and-add 0).
fn read_words(dev: &mut Device<SimCard>, at: &mut Atomics, addrs: &[u32]) -> Vec<u64> {
    let verbs: Vec<Verb> = addrs
        .iter()
        .map(|&a| Verb { op: op::FETCH_ADD, tag: 0, addr: a, operands: [0; 4], reserved_set: false })
        .collect();
    run_all(dev, at, &verbs).iter().map(|r| r.old).collect()
}

const ADDRS: [u32; 7] = [0, 8, 16, 4096, ATOMIC_BYTES - 8, ATOMIC_BYTES, 12];

fn verb_strategy() -> impl Strategy<Value = (u8, usize, [u64; 4], bool, bool)> {
    (
        prop_oneof![8 => 1u8..=5, 1 => Just(0u8), 1 => 6u8..=255],
        prop_oneof![10 => 0usize..5, 1 => 5usize..7],
        any::<[u64; 4]>(),
        any::<bool>(),
        prop::bool::weighted(0.03),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random verb streams, many back to back on the same few words: every
    /// result and the final memory equal the reference model's sequential
    /// execution.
    #[test]
    fn random_verb_streams_match_the_reference_model(spec in prop::collection::vec(verb_strategy(), 1..300)) {
        let (mut dev, mut at) = open();
        let mut model = vec![0u64; ATOMIC_BYTES as usize / 8];
        let mut verbs = Vec::new();
        let mut expect = Vec::new();
        for (i, (opc, a, mut operands, use_current, reserved)) in spec.into_iter().enumerate() {
            let addr = ADDRS[a];
            // Half the compares use the word's current value, so swaps happen.
            if use_current && (opc == op::CAS || opc == op::MASKED_CAS) && addr % 8 == 0 && addr < ATOMIC_BYTES {
                operands[0] = model[addr as usize / 8];
            }
            let v = Verb { op: opc, tag: i as u16, addr, operands, reserved_set: reserved };
            expect.push(execute(&mut model, &v));
            verbs.push(v);
        }
        let got = run_all(&mut dev, &mut at, &verbs);
        prop_assert_eq!(&got, &expect);
        let words: Vec<u32> = ADDRS.iter().copied().filter(|a| a % 8 == 0 && *a < ATOMIC_BYTES).collect();
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
        .map(|i| Verb { op: op::FETCH_ADD, tag: i, addr: 64, operands: [1, 0, 0, 0], reserved_set: false })
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
    assert_eq!(at.cas(&mut dev, 800, 10, 30).unwrap(), 20, "a failed CAS returns the current value");
    assert_eq!(at.fetch_add(&mut dev, 800, 5).unwrap(), 20);
    // Two 32-bit counters in one word: the low one wraps, the high one is untouched.
    at.swap(&mut dev, 808, 0x0000_0007_FFFF_FFFF).unwrap();
    at.masked_fetch_add(&mut dev, 808, 1, 1 << 63 | 1 << 31).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 808, 0).unwrap(), 0x0000_0007_0000_0000);
    // Masked CAS: compare the low byte only, replace the high byte only.
    assert_eq!(at.masked_cas(&mut dev, 800, 0xFF19, 0xAB00_0000_0000_0000, 0xFF, 0xFF00_0000_0000_0000).unwrap(), 25);
    assert_eq!(at.fetch_add(&mut dev, 800, 0).unwrap(), 0xAB00_0000_0000_0019);
    for (addr, st) in [(804, status::MISALIGNED), (ATOMIC_BYTES, status::OUT_OF_RANGE)] {
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
    let mut junk = Verb { op: op::SWAP, tag: 1, addr: 0, operands: [9; 4], reserved_set: false }.to_slot();
    junk[0] = 0x00;
    at.submit_raw(&mut dev, &junk).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 0).unwrap(), 0);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, before + 1);
}
