use crate::konst as c;
use rust_hdl::prelude::*;

/// The lowest set bit of `v` (a priority encoder), as a balanced tree.
///
/// `ok` says a bit is set; `index` is its number, `one_hot` the bit alone,
/// and `above` the bits above it (the mask a round-robin scan starts from
/// next). `N` is `1 << B`.
///
/// Written as K `if`s, each overriding the last ("the first i with v[i]"),
/// the scan is a chain to Yosys, about one LUT per 2–4 inputs: 12 LUT
/// levels at N = 64 in the ACP link. Here every bit's "is any bit below
/// set" is a prefix OR in B doubling steps, the one-hot is `v` less it, and
/// each index bit is an OR of the one-hot's bits: reductions ABC maps to
/// trees. A carry-chain form (`v & -v`) would be shallower in LUTs but
/// moves the delay into the carry chain, where the LUT-level budget that
/// `make synth` enforces does not see it.
#[derive(LogicBlock)]
pub struct FirstSet<const N: usize, const B: usize> {
    pub v: Signal<In, Bits<N>>,
    pub ok: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<B>>,
    pub one_hot: Signal<Out, Bits<N>>,
    pub above: Signal<Out, Bits<N>>,
    /// Per bit: some bit below it is set.
    below: Signal<Local, Bits<N>>,
    c_one: Constant<Bits<B>>,
    /// The doubling steps: 1, 2, 4, … N / 2.
    c_step: [Constant<Bits<B>>; B],
    /// Per index bit b: the inputs whose number has bit b set, and bit b.
    c_index_mask: [Constant<Bits<N>>; B],
    c_index_bit: [Constant<Bits<B>>; B],
    c_zero: Constant<Bits<B>>,
}

impl<const N: usize, const B: usize> Default for FirstSet<N, B> {
    fn default() -> Self {
        assert_eq!(N, 1 << B, "FirstSet<{N}, {B}>: N must be 1 << B");
        Self {
            v: Default::default(),
            ok: Default::default(),
            index: Default::default(),
            one_hot: Default::default(),
            above: Default::default(),
            below: Default::default(),
            c_one: c(1),
            c_step: std::array::from_fn(|s| c(1 << s)),
            c_index_mask: std::array::from_fn(|b| {
                let mut m = Bits::<N>::default();
                for i in (0..N).filter(|i| i >> b & 1 == 1) {
                    m = m.replace_bit(i, true);
                }
                Constant::new(m)
            }),
            c_index_bit: std::array::from_fn(|b| c(1 << b)),
            c_zero: c(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for FirstSet<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.below.next = self.v.val() << self.c_one.val();
        for s in 0..B {
            self.below.next = self.below.val() | (self.below.val() << self.c_step[s].val());
        }
        self.ok.next = self.v.val().any();
        self.one_hot.next = self.v.val() & !self.below.val();
        self.above.next = self.below.val();
        self.index.next = self.c_zero.val();
        for b in 0..B {
            if (self.one_hot.val() & self.c_index_mask[b].val()).any() {
                self.index.next = self.index.val() | self.c_index_bit[b].val();
            }
        }
    }
}
