use rust_hdl::prelude::*;

/// The sum of `N` words of `I` bits, each zero-extended to `O` bits
/// (`O` wide enough for the sum; checked in `connect`). Pure logic: an
/// adder tree for the synthesis tool to build. rust-hdl's `bit_cast`
/// widens with a mask that Verilator's `-Wall` flags, so the Verilog is
/// written here with explicit zero-extension.
#[derive(LogicBlock)]
pub struct WordSum<const N: usize, const I: usize, const O: usize> {
    pub i: [Signal<In, Bits<I>>; N],
    pub o: Signal<Out, Bits<O>>,
}

impl<const N: usize, const I: usize, const O: usize> Default for WordSum<N, I, O> {
    fn default() -> Self {
        Self {
            i: std::array::from_fn(|_| Default::default()),
            o: Default::default(),
        }
    }
}

impl<const N: usize, const I: usize, const O: usize> Logic for WordSum<N, I, O> {
    fn update(&mut self) {
        let mut o = Bits::<O>::default();
        for w in &self.i {
            o = o + bit_cast::<O, I>(w.val());
        }
        self.o.next = o;
    }
    fn connect(&mut self) {
        assert!(
            O > I && (N as u64) << I <= 1u64 << O.min(63),
            "WordSum<{N}, {I}, {O}>: O too narrow for the sum"
        );
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        let terms: Vec<String> = (0..N).map(|k| format!("{{{}'b0, i${k}}}", O - I)).collect();
        Verilog::Custom(format!("always @(*) o = {};", terms.join(" + ")))
    }
}
