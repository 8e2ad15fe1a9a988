use rust_hdl::prelude::*;

/// `o = {N{i}}` with `O = N * I`: a word copied into every lane of a wide
/// bus, so a host that reads any lane of a wide register port sees it.
/// Pure wiring (hdl_gen has no replication operator).
#[derive(LogicBlock, Default)]
pub struct Replicate<const I: usize, const O: usize> {
    pub i: Signal<In, Bits<I>>,
    pub o: Signal<Out, Bits<O>>,
}

impl<const I: usize, const O: usize> Logic for Replicate<I, O> {
    fn update(&mut self) {
        let mut v = Bits::<O>::default();
        for lane in 0..O / I {
            v = v | (bit_cast::<O, I>(self.i.val()) << ((lane * I) as u64));
        }
        self.o.next = v;
    }
    fn connect(&mut self) {
        assert!(
            I > 0 && O % I == 0,
            "Replicate needs O a multiple of I (got I={I}, O={O})"
        );
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("always @(*) o = {{{}{{i}}}};", O / I))
    }
}
