use super::{StreamSink, StreamSource};
use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// Skid buffer: registers a stream in both directions so that neither `valid`
/// nor `ready` has a combinational path through it.
/// Latency 1 cycle; 1 word/cycle; holds up to 2 words.
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<T: Synth> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Words in.
    pub s: StreamSink<T>,
    /// Words out.
    pub m: StreamSource<T>,
    out_data: SDFF<T>,
    out_valid: SDFF<Bit>,
    // The skid register catches the word accepted in the cycle the output stalled.
    skid_data: SDFF<T>,
    skid_valid: SDFF<Bit>,
}

impl<T: Synth> Logic for SkidBuffer<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_data, out_valid, skid_data, skid_valid);
        self.out_data.reset.next = self.reset.val();
        self.out_valid.reset.next = self.reset.val();
        self.skid_data.reset.next = self.reset.val();
        self.skid_valid.reset.next = self.reset.val();
        self.m.data.next = self.out_data.q.val();
        self.m.valid.next = self.out_valid.q.val();
        self.s.ready.next = !self.skid_valid.q.val();
        if self.m.ready.val() | !self.out_valid.q.val() {
            // The output register is free (or being emptied): refill it,
            // from the skid register first so order is kept.
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s.data.val();
                self.out_valid.d.next = self.s.valid.val();
            }
        } else if self.s.valid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s.data.val();
            self.skid_valid.d.next = true;
        }
    }
}
