use super::Replicate;
use crate::reset::SDFF;
use crate::stream::Concat;
use pendulum_layout::params::MMIO_ADDR_BITS;
use rust_hdl::prelude::*;

/// BAR register access from a 512-bit Avalon-MM master (the bursting master
/// `bam_*` of Intel's L-/H-Tile Avalon-MM+ IP for PCI Express) onto the
/// core's `mmio_wr`/`mmio_rd`/`mmio_rsp` ports.
///
/// The host's 32-bit access arrives as one 64-byte word with the byte
/// address; address bits `[5:2]` pick the 32-bit lane written, and a read's
/// response is copied into every lane so the host's lane holds it. Bursts
/// and byte enables are not used (the top leaves them unconnected): the
/// driver makes single, whole 32-bit accesses. One read is outstanding at a
/// time; Avalon read data has no back-pressure, so `mmio_rsp_ready` is high.
/// Latency 0 cycles to the core; the response as soon as the core gives it.
#[derive(LogicBlock)]
pub struct AvalonMmio {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    // Avalon-MM slave, from the PCIe block's BAR master.
    pub avs_address: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub avs_read: Signal<In, Bit>,
    pub avs_write: Signal<In, Bit>,
    pub avs_writedata: Signal<In, Bits<512>>,
    pub avs_waitrequest: Signal<Out, Bit>,
    pub avs_readdata: Signal<Out, Bits<512>>,
    pub avs_readdatavalid: Signal<Out, Bit>,
    // The core's register ports.
    pub mmio_wr_addr: Signal<Out, Bits<MMIO_ADDR_BITS>>,
    pub mmio_wr_data: Signal<Out, Bits<32>>,
    pub mmio_wr_valid: Signal<Out, Bit>,
    pub mmio_wr_ready: Signal<In, Bit>,
    pub mmio_rd_addr: Signal<Out, Bits<MMIO_ADDR_BITS>>,
    pub mmio_rd_valid: Signal<Out, Bit>,
    pub mmio_rd_ready: Signal<In, Bit>,
    pub mmio_rsp_data: Signal<In, Bits<32>>,
    pub mmio_rsp_valid: Signal<In, Bit>,
    pub mmio_rsp_ready: Signal<Out, Bit>,
    r_pending: SDFF<Bit>,
    lane: Signal<Local, Bits<4>>,
    lane_bit: Concat<4, 5, 9>,
    spread: Replicate<32, 512>,
    zero5: Constant<Bits<5>>,
}

impl AvalonMmio {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            avs_address: Default::default(),
            avs_read: Default::default(),
            avs_write: Default::default(),
            avs_writedata: Default::default(),
            avs_waitrequest: Default::default(),
            avs_readdata: Default::default(),
            avs_readdatavalid: Default::default(),
            mmio_wr_addr: Default::default(),
            mmio_wr_data: Default::default(),
            mmio_wr_valid: Default::default(),
            mmio_wr_ready: Default::default(),
            mmio_rd_addr: Default::default(),
            mmio_rd_valid: Default::default(),
            mmio_rd_ready: Default::default(),
            mmio_rsp_data: Default::default(),
            mmio_rsp_valid: Default::default(),
            mmio_rsp_ready: Default::default(),
            r_pending: Default::default(),
            lane: Default::default(),
            lane_bit: Default::default(),
            spread: Default::default(),
            zero5: Constant::new(0u64.into()),
        }
    }
}

impl Default for AvalonMmio {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AvalonMmio {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_pending);
        self.r_pending.reset.next = self.reset.val();
        // Lane = address[5:2]; its first bit in the 512-bit word = lane * 32.
        self.lane.next = self.avs_address.val().get_bits::<4>(2);
        self.lane_bit.hi.next = self.lane.val();
        self.lane_bit.lo.next = self.zero5.val();
        self.mmio_wr_addr.next = self.avs_address.val();
        self.mmio_wr_data.next = self
            .avs_writedata
            .val()
            .get_bits::<32>(self.lane_bit.o.val().index());
        self.mmio_wr_valid.next = self.avs_write.val();
        self.mmio_rd_addr.next = self.avs_address.val();
        self.mmio_rd_valid.next =
            self.avs_read.val() & !self.avs_write.val() & !self.r_pending.q.val();
        // Hold the master until the core takes its command.
        self.avs_waitrequest.next = (self.avs_write.val() & !self.mmio_wr_ready.val())
            | (self.avs_read.val()
                & !self.avs_write.val()
                & (self.r_pending.q.val() | !self.mmio_rd_ready.val()));
        self.spread.i.next = self.mmio_rsp_data.val();
        self.avs_readdata.next = self.spread.o.val();
        self.avs_readdatavalid.next = self.mmio_rsp_valid.val();
        self.mmio_rsp_ready.next = true;
        if self.mmio_rsp_valid.val() {
            self.r_pending.d.next = false;
        }
        if self.avs_read.val()
            & !self.avs_write.val()
            & !self.r_pending.q.val()
            & self.mmio_rd_ready.val()
        {
            self.r_pending.d.next = true;
        }
    }
}
