//! Unit tests of the stream pieces in rust-hdl's own simulator (the
//! integration tests run them inside the NIC on Verilator): every block is
//! synthesizable by Yosys, and words come out complete and in order under
//! random valid and ready patterns.

use pendulum_hdl::stream::{RoundRobinArbiter, SkidBuffer, StreamFifo};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

fn synthesizable<U: Block>(name: &str, mut uut: U) {
    uut.connect_all();
    yosys_validate(name, &generate_verilog(&uut)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
}

#[test]
fn stream_blocks_are_synthesizable() {
    synthesizable("pendulum_skid", SkidBuffer::<Bits<8>>::default());
    synthesizable("pendulum_fifo", StreamFifo::<Bits<8>, 3, 4>::new());
    synthesizable("pendulum_arb", RoundRobinArbiter::<Bits<8>, 3>::new());
}

/// Sends `words` through a block with `s`/`m` stream ports, with random
/// gaps on the input and random stalls on the output; returns what came out.
macro_rules! pass_through {
    ($ty:ty, $uut:expr, $words:expr, $seed:expr) => {{
        let words: Vec<u64> = $words;
        let mut uut: $ty = $uut;
        uut.s.valid.connect();
        uut.s.data.connect();
        uut.m.ready.connect();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<$ty>| x.clock.next = !x.clock.val());
        let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out = got.clone();
        sim.add_testbench(move |mut sim: Sim<$ty>| {
            let mut x = sim.init()?;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64($seed);
            let mut next = 0usize;
            let mut cycles = 0;
            wait_clock_false!(sim, clock, x);
            while out.lock().unwrap().len() < words.len() && cycles < 20 * words.len() + 100 {
                // Drive this cycle's inputs with the clock low, let them settle, sample.
                let offer = next < words.len() && rng.gen_bool(0.7);
                x.s.valid.next = offer;
                x.s.data.next = (if offer { words[next] } else { 0 }).into();
                x.m.ready.next = rng.gen_bool(0.6);
                x = sim.wait(1, x)?;
                if offer && x.s.ready.val() {
                    next += 1;
                }
                if x.m.valid.val() && x.m.ready.val() {
                    out.lock().unwrap().push(x.m.data.val().index() as u64);
                }
                wait_clock_true!(sim, clock, x);
                wait_clock_false!(sim, clock, x);
                cycles += 1;
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let v = got.lock().unwrap().clone();
        v
    }};
}

#[test]
fn skid_buffer_keeps_every_word_in_order_under_random_stalls() {
    let words: Vec<u64> = (0..300).map(|i| (i * 37 + 11) % 256).collect();
    let got = pass_through!(SkidBuffer<Bits<8>>, SkidBuffer::default(), words.clone(), 1);
    assert_eq!(got, words);
}

#[test]
fn fifo_keeps_every_word_in_order_under_random_stalls() {
    let words: Vec<u64> = (0..300).map(|i| (i * 53 + 7) % 256).collect();
    let got = pass_through!(
        StreamFifo<Bits<8>, 3, 4>,
        StreamFifo::new(),
        words.clone(),
        2
    );
    assert_eq!(got, words);
}

type Arb = RoundRobinArbiter<Bits<8>, 2>;

/// A two-input arbiter with its inputs driven by the test, and a clock.
fn arbiter_bench() -> (Arb, Simulation<Arb>) {
    let mut uut = Arb::new();
    for i in 0..2 {
        uut.s[i].valid.connect();
        uut.s[i].data.connect();
        uut.s_last[i].connect();
    }
    uut.m.ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Arb>| x.clock.next = !x.clock.val());
    (uut, sim)
}

#[test]
fn arbiter_serves_every_input_in_order_and_in_turn() {
    let (uut, mut sim) = arbiter_bench();
    sim.add_testbench(move |mut sim: Sim<Arb>| {
        let mut x = sim.init()?;
        // Both inputs always offer: input 0 sends even words, input 1 odd ones.
        let mut next = [0u64, 1u64];
        let mut order = Vec::new();
        wait_clock_false!(sim, clock, x);
        for _ in 0..40 {
            for (i, n) in next.iter().enumerate() {
                x.s[i].valid.next = true;
                x.s[i].data.next = (*n).into();
                x.s_last[i].next = true;
            }
            x.m.ready.next = true;
            x = sim.wait(1, x)?;
            for (i, n) in next.iter_mut().enumerate() {
                if x.s[i].ready.val() {
                    *n += 2;
                }
            }
            if x.m.valid.val() {
                order.push(x.m.data.val().index() as u64);
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        // Strict alternation while both wait, and each input's words in order.
        let alternates = order.windows(2).all(|w| w[0] % 2 != w[1] % 2);
        let evens: Vec<u64> = order.iter().copied().filter(|w| w % 2 == 0).collect();
        let odds: Vec<u64> = order.iter().copied().filter(|w| w % 2 == 1).collect();
        let in_order = evens.iter().enumerate().all(|(k, w)| *w == 2 * k as u64)
            && odds.iter().enumerate().all(|(k, w)| *w == 2 * k as u64 + 1);
        sim_assert!(sim, order.len() == 40 && alternates && in_order, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}

#[test]
fn arbiter_never_interleaves_packets() {
    let (uut, mut sim) = arbiter_bench();
    sim.add_testbench(move |mut sim: Sim<Arb>| {
        let mut x = sim.init()?;
        // Input 0 sends packets of three words (0x10, 0x11, 0x12, 0x20, ...),
        // input 1 single words (0x80, 0x81, ...); the output is stalled at random.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (mut word0, mut word1) = (0u64, 0u64);
        let mut out = Vec::new();
        wait_clock_false!(sim, clock, x);
        for _ in 0..200 {
            x.s[0].valid.next = true;
            x.s[0].data.next = (0x10 * (1 + (word0 / 3) % 7) + word0 % 3).into();
            x.s_last[0].next = word0 % 3 == 2;
            x.s[1].valid.next = true;
            x.s[1].data.next = (0x80 + word1 % 0x80).into();
            x.s_last[1].next = true;
            x.m.ready.next = rng.gen_bool(0.7);
            x = sim.wait(1, x)?;
            if x.s[0].ready.val() {
                word0 += 1;
            }
            if x.s[1].ready.val() {
                word1 += 1;
            }
            if x.m.valid.val() && x.m.ready.val() {
                out.push(x.m.data.val().index() as u64);
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        // Every packet of input 0 appears as three words in a row.
        let mut ok = out.len() > 50;
        let mut i = 0;
        while i < out.len() {
            if out[i] < 0x80 {
                let base = out[i];
                ok &= base % 0x10 == 0;
                for k in 1..3 {
                    ok &= i + k >= out.len() || out[i + k] == base + k as u64;
                }
                i += 3;
            } else {
                i += 1;
            }
        }
        sim_assert!(sim, ok, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}
