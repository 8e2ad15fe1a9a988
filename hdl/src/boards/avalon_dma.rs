use crate::reset::SDFF;
use crate::stream::StreamFifo;
use rust_hdl::prelude::*;

/// The core's DMA ports onto a 512-bit Avalon-MM master, for the bursting
/// slave (`bas_*`) of Intel's L-/H-Tile Avalon-MM+ IP for PCI Express, which
/// turns it into PCIe memory requests to host addresses.
///
/// Writes and reads share Avalon's one command channel; when both wait they
/// take turns. A command, once shown, is held unchanged until
/// `waitrequest` is low, as Avalon requires. A DMA write beat is a one-beat write
/// with the core's byte enables; a DMA read of `len` bytes is one read burst
/// of `ceil(len / 64)` beats (the core asks for 1 to 512 bytes).
/// Avalon returns read data in order and without back-pressure, so at most
/// `2^OUTSTANDING_LOG2` = 8 bursts are in flight and `dma_rd_cpl_ready` is
/// not consulted: the core's TX fetcher reserves room in its completion FIFO
/// before it asks (its credits), which is what makes this safe; a core
/// without that guarantee would need a FIFO here.
/// Latency 0 cycles for commands; read data passes through combinationally.
#[derive(LogicBlock)]
pub struct AvalonDmaBridge {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    // From the core.
    pub dma_wr_addr: Signal<In, Bits<64>>,
    pub dma_wr_data: Signal<In, Bits<512>>,
    pub dma_wr_strb: Signal<In, Bits<64>>,
    pub dma_wr_valid: Signal<In, Bit>,
    pub dma_wr_ready: Signal<Out, Bit>,
    pub dma_rd_req_addr: Signal<In, Bits<64>>,
    pub dma_rd_req_len: Signal<In, Bits<16>>,
    pub dma_rd_req_valid: Signal<In, Bit>,
    pub dma_rd_req_ready: Signal<Out, Bit>,
    pub dma_rd_cpl_data: Signal<Out, Bits<512>>,
    pub dma_rd_cpl_last: Signal<Out, Bit>,
    pub dma_rd_cpl_valid: Signal<Out, Bit>,
    // Avalon-MM master, to the PCIe block's bursting slave.
    pub avm_address: Signal<Out, Bits<64>>,
    pub avm_byteenable: Signal<Out, Bits<64>>,
    pub avm_burstcount: Signal<Out, Bits<4>>,
    pub avm_read: Signal<Out, Bit>,
    pub avm_write: Signal<Out, Bit>,
    pub avm_writedata: Signal<Out, Bits<512>>,
    pub avm_waitrequest: Signal<In, Bit>,
    pub avm_readdata: Signal<In, Bits<512>>,
    pub avm_readdatavalid: Signal<In, Bit>,
    // Beats of each read burst in flight, oldest first.
    bursts: StreamFifo<Bits<4>, 3, 4>,
    beat: SDFF<Bits<4>>,
    beat_next: Signal<Local, Bits<4>>,
    // The command shown last cycle was not taken: show it again.
    hold_read: SDFF<Bit>,
    hold_write: SDFF<Bit>,
    // Reads go first next time both wait.
    reads_turn: SDFF<Bit>,
    do_read: Signal<Local, Bit>,
    do_write: Signal<Local, Bit>,
    len_round: Signal<Local, Bits<16>>,
    beats: Signal<Local, Bits<16>>,
    one4: Constant<Bits<4>>,
    zero4: Constant<Bits<4>>,
    all_bytes: Constant<Bits<64>>,
    beat_round: Constant<Bits<16>>,
    beat_shift: Constant<Bits<16>>,
}

impl AvalonDmaBridge {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_cpl_data: Default::default(),
            dma_rd_cpl_last: Default::default(),
            dma_rd_cpl_valid: Default::default(),
            avm_address: Default::default(),
            avm_byteenable: Default::default(),
            avm_burstcount: Default::default(),
            avm_read: Default::default(),
            avm_write: Default::default(),
            avm_writedata: Default::default(),
            avm_waitrequest: Default::default(),
            avm_readdata: Default::default(),
            avm_readdatavalid: Default::default(),
            bursts: StreamFifo::new(),
            beat: Default::default(),
            beat_next: Default::default(),
            hold_read: Default::default(),
            hold_write: Default::default(),
            reads_turn: Default::default(),
            do_read: Default::default(),
            do_write: Default::default(),
            len_round: Default::default(),
            beats: Default::default(),
            one4: Constant::new(1u64.into()),
            zero4: Constant::new(0u64.into()),
            all_bytes: Constant::new(u64::MAX.into()),
            beat_round: Constant::new(63u64.into()),
            beat_shift: Constant::new(6u64.into()),
        }
    }
}

impl Default for AvalonDmaBridge {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AvalonDmaBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, hold_read, hold_write, reads_turn);
        self.beat.reset.next = self.reset.val();
        self.hold_read.reset.next = self.reset.val();
        self.hold_write.reset.next = self.reset.val();
        self.reads_turn.reset.next = self.reset.val();
        self.bursts.clock.next = self.clock.val();
        self.bursts.reset.next = self.reset.val();
        self.len_round.next = self.dma_rd_req_len.val() + self.beat_round.val();
        self.beats.next = self.len_round.val() >> self.beat_shift.val();

        // Choose the command: a held one first, else take turns.
        self.do_read.next = self.hold_read.q.val()
            | (!self.hold_write.q.val()
                & self.dma_rd_req_valid.val()
                & self.bursts.s.ready.val()
                & (self.reads_turn.q.val() | !self.dma_wr_valid.val()));
        self.do_write.next =
            self.hold_write.q.val() | (!self.do_read.val() & self.dma_wr_valid.val());
        self.avm_read.next = self.do_read.val();
        self.avm_write.next = self.do_write.val();
        self.avm_writedata.next = self.dma_wr_data.val();
        self.avm_address.next = self.dma_wr_addr.val();
        self.avm_byteenable.next = self.dma_wr_strb.val();
        self.avm_burstcount.next = self.one4.val();
        if self.do_read.val() {
            self.avm_address.next = self.dma_rd_req_addr.val();
            self.avm_byteenable.next = self.all_bytes.val();
            self.avm_burstcount.next = self.beats.val().get_bits::<4>(0);
        }
        self.dma_rd_req_ready.next = self.do_read.val() & !self.avm_waitrequest.val();
        self.dma_wr_ready.next = self.do_write.val() & !self.avm_waitrequest.val();
        self.hold_read.d.next = self.do_read.val() & self.avm_waitrequest.val();
        self.hold_write.d.next = self.do_write.val() & self.avm_waitrequest.val();
        if self.do_read.val() & !self.avm_waitrequest.val() {
            self.reads_turn.d.next = false;
        }
        if self.do_write.val() & !self.avm_waitrequest.val() {
            self.reads_turn.d.next = true;
        }
        self.bursts.s.data.next = self.beats.val().get_bits::<4>(0);
        self.bursts.s.valid.next = self.do_read.val() & !self.avm_waitrequest.val();

        // Read data: count beats against the oldest burst to mark its last.
        self.dma_rd_cpl_data.next = self.avm_readdata.val();
        self.dma_rd_cpl_valid.next = self.avm_readdatavalid.val();
        self.beat_next.next = self.beat.q.val() + self.one4.val();
        self.dma_rd_cpl_last.next =
            self.bursts.m.valid.val() & (self.beat_next.val() == self.bursts.m.data.val());
        self.bursts.m.ready.next = false;
        if self.avm_readdatavalid.val() {
            self.beat.d.next = self.beat_next.val();
            if self.bursts.m.valid.val() & (self.beat_next.val() == self.bursts.m.data.val()) {
                self.beat.d.next = self.zero4.val();
                self.bursts.m.ready.next = true;
            }
        }
    }
}
