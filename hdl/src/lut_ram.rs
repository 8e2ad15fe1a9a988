use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// A small memory with a combinational read and a clocked write: what an
/// FPGA's LUT-RAM is (UltraScale+ RAM32M16/RAM64M8, Stratix 10 MLAB). A
/// read sees every write made at an earlier clock edge.
///
/// rust-hdl's `RAM` registers its read, so its read address must be ready
/// a cycle early. Where that address is the end of a long choice (the ACP
/// link's slot choice), the choice and the RAM read add up to one LUT
/// level more than the budget allows. With this block the address comes
/// straight from the register that holds the choice, and the read is the
/// one LUT level of the RAM itself. Keep it to a few dozen entries: a
/// combinational read cannot map to block RAM.
#[derive(LogicBlock, Default)]
pub struct LutRam<D: Synth, const N: usize> {
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_clock: Signal<In, Clock>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for LutRam<D, N> {
    fn update(&mut self) {
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._sim
                .insert(self.write_address.val(), self.write_data.val());
        }
        // After the write, so a read in the cycle after it sees it.
        self.read_data.next = self
            ._sim
            .get(&self.read_address.val())
            .copied()
            .unwrap_or_default();
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{top}:0] mem [0:{last}];

always @(*) begin
   read_data = mem[read_address];
end

always @(posedge write_clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            top = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lut_ram_write".into(),
            clock: "write_clock".into(),
            inputs: vec![
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec![],
        }]
    }
}
