use super::{StreamSink, StreamSource};
use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// First-word-fall-through FIFO of `2^N` words on block RAM.
/// `NP1` must be `N + 1` (the pointers carry one extra bit so that full and
/// empty differ; Cummings, SNUG 2002). Checked in `new()`.
/// Latency 2 cycles from `s` to `m` (RAM write, then registered read);
/// 1 word/cycle in and out.
#[derive(LogicBlock)]
pub struct StreamFifo<T: Synth, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Words in; `ready` is low only when full.
    pub s: StreamSink<T>,
    /// Words out, oldest first.
    pub m: StreamSource<T>,
    ram: RAM<T, N>,
    wr_ptr: SDFF<Bits<NP1>>,
    rd_ptr: SDFF<Bits<NP1>>,
    // The write pointer one cycle late: a word is readable only once the RAM holds it.
    wr_ptr_seen: SDFF<Bits<NP1>>,
    next_rd: Signal<Local, Bits<NP1>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    one: Constant<Bits<NP1>>,
    depth: Constant<Bits<NP1>>,
}

impl<T: Synth, const N: usize, const NP1: usize> StreamFifo<T, N, NP1> {
    pub fn new() -> Self {
        assert_eq!(NP1, N + 1, "StreamFifo: NP1 must be N + 1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            ram: Default::default(),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            wr_ptr_seen: Default::default(),
            next_rd: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            one: Constant::new(1u64.into()),
            depth: Constant::new((1u64 << N).into()),
        }
    }
}

impl<T: Synth, const N: usize, const NP1: usize> Default for StreamFifo<T, N, NP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const N: usize, const NP1: usize> Logic for StreamFifo<T, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, rd_ptr, wr_ptr_seen);
        self.wr_ptr.reset.next = self.reset.val();
        self.rd_ptr.reset.next = self.reset.val();
        self.wr_ptr_seen.reset.next = self.reset.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.wr_ptr_seen.d.next = self.wr_ptr.q.val();
        self.s.ready.next = (self.wr_ptr.q.val() - self.rd_ptr.q.val()) != self.depth.val();
        self.m.valid.next = self.wr_ptr_seen.q.val() != self.rd_ptr.q.val();
        self.push.next =
            self.s.valid.val() & ((self.wr_ptr.q.val() - self.rd_ptr.q.val()) != self.depth.val());
        self.pop.next = self.m.ready.val() & (self.wr_ptr_seen.q.val() != self.rd_ptr.q.val());
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wr_ptr.q.val().get_bits::<N>(0);
        self.ram.write_data.next = self.s.data.val();
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + self.one.val();
        }
        self.next_rd.next = self.rd_ptr.q.val();
        if self.pop.val() {
            self.next_rd.next = self.rd_ptr.q.val() + self.one.val();
        }
        self.rd_ptr.d.next = self.next_rd.val();
        // The RAM read is registered: address the word that will be at the head next cycle.
        self.ram.read_address.next = self.next_rd.val().get_bits::<N>(0);
        self.m.data.next = self.ram.read_data.val();
    }
}
