//! `FirstSet`, the balanced priority encoder, in rust-hdl's simulator
//! against `u64::trailing_zeros` (the link's choices run it inside the NIC
//! on Verilator), and through Yosys' reader.

use pendulum_hdl::first_set::FirstSet;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

type Uut = FirstSet<64, 6>;

/// What the block gives for each input: (ok, index, one_hot, above).
fn run(inputs: Vec<u64>) -> Vec<(bool, u64, u64, u64)> {
    let mut uut = Uut::default();
    uut.v.connect();
    uut.connect_all();
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = got.clone();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<Uut>| {
        let mut x = sim.init()?;
        for v in &inputs {
            x.v.next = (*v).into();
            x = sim.wait(1, x)?;
            out.lock().unwrap().push((
                x.ok.val(),
                x.index.val().to_u64(),
                x.one_hot.val().to_u64(),
                x.above.val().to_u64(),
            ));
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 1_000_000).unwrap();
    let v = got.lock().unwrap().clone();
    v
}

#[test]
fn first_set_is_the_lowest_set_bit_for_every_kind_of_input() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut inputs = vec![0, u64::MAX, 1 << 63, 1, 0x8000_0001_0000_0000];
    inputs.extend((0..64).map(|i| 1u64 << i));
    inputs.extend((0..64).map(|i| u64::MAX << i));
    // Sparse and dense random vectors: few bits set, and most.
    inputs.extend((0..200).map(|_| rng.gen::<u64>() & rng.gen::<u64>() & rng.gen::<u64>()));
    inputs.extend((0..200).map(|_| rng.gen::<u64>() | rng.gen::<u64>()));
    let got = run(inputs.clone());
    for (v, (ok, index, one_hot, above)) in inputs.iter().zip(got) {
        assert_eq!(ok, *v != 0, "ok for {v:#x}");
        if *v == 0 {
            assert_eq!((index, one_hot, above), (0, 0, 0), "nothing set");
            continue;
        }
        let first = v.trailing_zeros() as u64;
        assert_eq!(index, first, "index for {v:#x}");
        assert_eq!(one_hot, 1 << first, "one_hot for {v:#x}");
        let above_first = if first == 63 {
            0
        } else {
            u64::MAX << (first + 1)
        };
        assert_eq!(above, above_first, "above for {v:#x}");
    }
}

#[test]
fn first_set_is_synthesizable() {
    let mut uut = FirstSet::<64, 6>::default();
    uut.connect_all();
    yosys_validate("pendulum_first_set", &generate_verilog(&uut)).unwrap();
}
