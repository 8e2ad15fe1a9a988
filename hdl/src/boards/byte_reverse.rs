use rust_hdl::prelude::*;

/// `o` = the `B` bytes of `i` in reverse order (`W = 8 * B`): byte 0 of `i`
/// (bits 7:0) is byte `B - 1` of `o`. Between Avalon-ST, whose first byte on
/// the wire is the most significant, and AXI-Stream, whose first byte is the
/// least. Pure wiring (hdl_gen has no concatenation).
#[derive(LogicBlock, Default)]
pub struct ByteReverse<const B: usize, const W: usize> {
    pub i: Signal<In, Bits<W>>,
    pub o: Signal<Out, Bits<W>>,
}

impl<const B: usize, const W: usize> Logic for ByteReverse<B, W> {
    fn update(&mut self) {
        let i = self.i.val();
        let mut o = Bits::<W>::default();
        for k in 0..B {
            o = o | (bit_cast::<W, 8>(i.get_bits::<8>(8 * k)) << ((8 * (B - 1 - k)) as u64));
        }
        self.o.next = o;
    }
    fn connect(&mut self) {
        assert_eq!(W, 8 * B, "ByteReverse needs W = 8 * B");
        self.o.connect();
    }
    fn hdl(&self) -> Verilog {
        let bytes: Vec<String> = (0..B)
            .map(|k| format!("i[{}:{}]", 8 * k + 7, 8 * k))
            .collect();
        Verilog::Custom(format!("always @(*) o = {{{}}};", bytes.join(", ")))
    }
}
