use rust_hdl::prelude::*;

// rust-hdl's `bit_cast` widens with a mask of the output width, which
// Verilator's `-Wall` flags as a width mismatch, and hdl_gen has no
// concatenation. These two wiring blocks emit the concatenation instead, so
// widening and joining stay lint clean at the source.

/// Zero-extends an `I`-bit value to `O` bits (`O >= I`). Pure wiring. Equal
/// widths are a plain wire: a build parameter (K = 256 channels fill a
/// channel byte) may make them equal.
#[derive(LogicBlock, Default)]
pub struct ZeroExtend<const I: usize, const O: usize> {
    pub i: Signal<In, Bits<I>>,
    pub o: Signal<Out, Bits<O>>,
}

impl<const I: usize, const O: usize> Logic for ZeroExtend<I, O> {
    fn update(&mut self) {
        self.o.next = bit_cast::<O, I>(self.i.val());
    }
    fn connect(&mut self) {
        assert!(O >= I, "ZeroExtend needs O >= I (got I={I}, O={O})");
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        if O == I {
            Verilog::Custom("always @(*) o = i;".into())
        } else {
            Verilog::Custom(format!("always @(*) o = {{{}'b0, i}};", O - I))
        }
    }
}

/// Joins two halves: `o = {hi, lo}` with `O = H + L`. Pure wiring.
#[derive(LogicBlock, Default)]
pub struct Concat<const H: usize, const L: usize, const O: usize> {
    pub hi: Signal<In, Bits<H>>,
    pub lo: Signal<In, Bits<L>>,
    pub o: Signal<Out, Bits<O>>,
}

impl<const H: usize, const L: usize, const O: usize> Logic for Concat<H, L, O> {
    fn update(&mut self) {
        self.o.next =
            (bit_cast::<O, H>(self.hi.val()) << (L as u64)) | bit_cast::<O, L>(self.lo.val());
    }
    fn connect(&mut self) {
        assert_eq!(O, H + L, "Concat needs O = H + L");
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) o = {hi, lo};".into())
    }
}

/// Joins `N` words of `W` bits: `o = {i[N-1], ..., i[1], i[0]}` with
/// `O = N * W` (word k at bits k*W and up). Pure wiring.
#[derive(LogicBlock)]
pub struct Join<const N: usize, const W: usize, const O: usize> {
    pub i: [Signal<In, Bits<W>>; N],
    pub o: Signal<Out, Bits<O>>,
}

impl<const N: usize, const W: usize, const O: usize> Default for Join<N, W, O> {
    fn default() -> Self {
        Self {
            i: std::array::from_fn(|_| Default::default()),
            o: Default::default(),
        }
    }
}

impl<const N: usize, const W: usize, const O: usize> Logic for Join<N, W, O> {
    fn update(&mut self) {
        let mut o = Bits::<O>::default();
        for (k, w) in self.i.iter().enumerate() {
            o = o | (bit_cast::<O, W>(w.val()) << ((k * W) as u64));
        }
        self.o.next = o;
    }
    fn connect(&mut self) {
        assert_eq!(O, N * W, "Join needs O = N * W");
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        let words: Vec<String> = (0..N).rev().map(|k| format!("i${k}")).collect();
        Verilog::Custom(format!("always @(*) o = {{{}}};", words.join(", ")))
    }
}
