use rust_hdl::prelude::*;

/// A D flip-flop with a synchronous reset: on a rising clock edge with
/// `reset` high it takes its power-up value (the type's default, all zeros),
/// else `d`. Every register in the core is one of these, so a reset returns
/// each block's registers to exactly the state it powers up in; tables in
/// RAM are cleared by [`super::ClearSweep`]. (Two are plain DFFs on
/// purpose, each saying why: the ACP nonce generator and the sweep's flag.)
///
/// rust-hdl's `DFF` has no reset input; this one is the same block with
/// one. On UltraScale+ and Stratix 10 the reset is the flip-flop's own
/// synchronous clear pin (FDRE R, or the ALM's sclr), so it adds no logic
/// level to any path.
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct SDFF<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
}

impl<T: Synth> Logic for SDFF<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = if self.reset.val() {
                T::default()
            } else {
                self.d.val()
            };
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let zero = T::default().verilog();
        Verilog::Custom(format!(
            "\
initial begin
   q = {zero:x};
end

always @(posedge clock) begin
   if (reset)
      q <= {zero:x};
   else
      q <= d;
end
"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sdff".into(),
            clock: "clock".into(),
            inputs: vec!["d".into(), "reset".into()],
            outputs: vec!["q".into()],
        }]
    }
}
