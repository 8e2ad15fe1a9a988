use crate::reset::{zero_ram, Clear, SDFF};
use rust_hdl::prelude::*;

/// One 32-bit event counter per pipe, in RAM (`2^A` pipes; block RAM for the
/// RX pipes, LUT RAM for the TX pipes): `inc` counts an event of
/// `inc_pipe` (at most one per cycle), and `rd_count` answers, a cycle after
/// `rd_pipe`, that pipe's count with every event up to the cycle before
/// `rd_pipe` was given.
///
/// A count is read, incremented and written back a cycle after its event, so
/// two RAMs hold the same counts: one whose read port follows the events, and
/// a copy whose read port is the register file's. A write the RAMs took in
/// the cycle of a read is forwarded (back-to-back events of one pipe, or a
/// register read meeting an increment).
#[derive(LogicBlock)]
pub struct PipeCounter<const A: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): counts are zeroed
    /// one pipe a cycle while it is active.
    pub clear: Clear<A>,
    pub inc: Signal<In, Bit>,
    pub inc_pipe: Signal<In, Bits<A>>,
    pub rd_pipe: Signal<In, Bits<A>>,
    pub rd_count: Signal<Out, Bits<32>>,

    counts: RAM<Bits<32>, A>,
    copy: RAM<Bits<32>, A>,
    // The event being counted (a cycle after it was reported).
    inc_r: SDFF<Bit>,
    inc_pipe_r: SDFF<Bits<A>>,
    count: Signal<Local, Bits<32>>,
    next: Signal<Local, Bits<32>>,
    // The last write, which a read given in its cycle missed.
    fw: SDFF<Bit>,
    fw_pipe: SDFF<Bits<A>>,
    fw_count: SDFF<Bits<32>>,
    // The same for the register file's read.
    rd_fw: SDFF<Bit>,
    rd_fw_count: SDFF<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
}

impl<const A: usize> PipeCounter<A> {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            inc: Default::default(),
            inc_pipe: Default::default(),
            rd_pipe: Default::default(),
            rd_count: Default::default(),
            // Counts start at zero, also on a board.
            counts: zero_ram(),
            copy: zero_ram(),
            inc_r: Default::default(),
            inc_pipe_r: Default::default(),
            count: Default::default(),
            next: Default::default(),
            fw: Default::default(),
            fw_pipe: Default::default(),
            fw_count: Default::default(),
            rd_fw: Default::default(),
            rd_fw_count: Default::default(),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
        }
    }
}

impl<const A: usize> Default for PipeCounter<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize> Logic for PipeCounter<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            inc_r,
            inc_pipe_r,
            fw,
            fw_pipe,
            fw_count,
            rd_fw,
            rd_fw_count
        );
        self.inc_r.reset.next = self.reset.val();
        self.inc_pipe_r.reset.next = self.reset.val();
        self.fw.reset.next = self.reset.val();
        self.fw_pipe.reset.next = self.reset.val();
        self.fw_count.reset.next = self.reset.val();
        self.rd_fw.reset.next = self.reset.val();
        self.rd_fw_count.reset.next = self.reset.val();
        self.counts.read_clock.next = self.clock.val();
        self.counts.write_clock.next = self.clock.val();
        self.copy.read_clock.next = self.clock.val();
        self.copy.write_clock.next = self.clock.val();
        self.counts.read_address.next = self.inc_pipe.val();
        self.inc_r.d.next = self.inc.val();
        self.inc_pipe_r.d.next = self.inc_pipe.val();

        self.count.next = self.counts.read_data.val();
        if self.fw.q.val() & (self.fw_pipe.q.val() == self.inc_pipe_r.q.val()) {
            self.count.next = self.fw_count.q.val();
        }
        self.next.next = self.count.val() + self.one32.val();
        self.counts.write_enable.next = self.inc_r.q.val();
        self.counts.write_address.next = self.inc_pipe_r.q.val();
        self.counts.write_data.next = self.next.val();
        self.copy.write_enable.next = self.inc_r.q.val();
        self.copy.write_address.next = self.inc_pipe_r.q.val();
        self.copy.write_data.next = self.next.val();
        self.fw.d.next = self.inc_r.q.val();
        self.fw_pipe.d.next = self.inc_pipe_r.q.val();
        self.fw_count.d.next = self.next.val();

        if self.clear.active.val() {
            self.counts.write_enable.next = true;
            self.counts.write_address.next = self.clear.addr.val();
            self.counts.write_data.next = self.zero32.val();
            self.copy.write_enable.next = true;
            self.copy.write_address.next = self.clear.addr.val();
            self.copy.write_data.next = self.zero32.val();
        }

        self.copy.read_address.next = self.rd_pipe.val();
        self.rd_fw.d.next = self.inc_r.q.val() & (self.inc_pipe_r.q.val() == self.rd_pipe.val());
        self.rd_fw_count.d.next = self.next.val();
        self.rd_count.next = self.copy.read_data.val();
        if self.rd_fw.q.val() {
            self.rd_count.next = self.rd_fw_count.q.val();
        }
    }
}
