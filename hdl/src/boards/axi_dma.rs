use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// The core's DMA ports onto an AXI4 memory-mapped master, for AMD QDMA's
/// AXI slave bridge (`s_axib_*`), which turns AXI reads and writes into
/// PCIe memory requests to host addresses.
///
/// - A DMA write beat becomes one AXI write of one 64-byte beat (`awlen` 0,
///   `awsize` 64 bytes, INCR) with the core's byte enables as `wstrb`; the
///   address and data channels are offered together and the core's word is
///   taken once both were accepted, in either order. Write responses are
///   accepted and not checked (`bready` is tied high by the top): PCIe
///   posted writes have no completion to report. Beats are written one by
///   one at their own addresses; the core's grouping of beats into one TLP
///   (`dma_wr_last`) is not used, so the PCIe block may split it.
/// - A DMA read of `len` bytes becomes one AXI read burst of
///   `ceil(len / 64)` beats; the core never asks for 0 bytes or more than
///   512. All reads use one AXI ID, so data returns in request order, as the
///   core expects; `rlast` marks the request's last beat.
///
/// No burst crosses a 4 KiB boundary, as AXI requires: the core never asks
/// for one (each write beat is 64-byte aligned, and the TX fetcher ends every
/// read at the next boundary). Not handled here (see the README): error
/// responses.
///
/// Latency 0 cycles (combinational); 1 write or read request per cycle.
#[derive(LogicBlock)]
pub struct AxiDmaBridge {
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
    pub dma_rd_cpl_ready: Signal<In, Bit>,
    // AXI4 master, to the PCIe block's slave bridge.
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    pub m_axi_awvalid: Signal<Out, Bit>,
    pub m_axi_awready: Signal<In, Bit>,
    pub m_axi_wdata: Signal<Out, Bits<512>>,
    pub m_axi_wstrb: Signal<Out, Bits<64>>,
    pub m_axi_wlast: Signal<Out, Bit>,
    pub m_axi_wvalid: Signal<Out, Bit>,
    pub m_axi_wready: Signal<In, Bit>,
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    pub m_axi_arsize: Signal<Out, Bits<3>>,
    pub m_axi_arburst: Signal<Out, Bits<2>>,
    pub m_axi_arvalid: Signal<Out, Bit>,
    pub m_axi_arready: Signal<In, Bit>,
    pub m_axi_rdata: Signal<In, Bits<512>>,
    pub m_axi_rlast: Signal<In, Bit>,
    pub m_axi_rvalid: Signal<In, Bit>,
    pub m_axi_rready: Signal<Out, Bit>,
    // This write's address (data) was accepted; waiting for its data (address).
    aw_done: SDFF<Bit>,
    w_done: SDFF<Bit>,
    wr_take: Signal<Local, Bit>,
    len_round: Signal<Local, Bits<16>>,
    beats_minus_one: Signal<Local, Bits<16>>,
    zero8: Constant<Bits<8>>,
    size64: Constant<Bits<3>>,
    incr: Constant<Bits<2>>,
    beat_round: Constant<Bits<16>>,
    beat_shift: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
}

impl AxiDmaBridge {
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
            dma_rd_cpl_ready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_arsize: Default::default(),
            m_axi_arburst: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rlast: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            wr_take: Default::default(),
            len_round: Default::default(),
            beats_minus_one: Default::default(),
            zero8: Constant::new(0u64.into()),
            // AXI AxSIZE 6 = 64 bytes a beat; AxBURST 1 = INCR.
            size64: Constant::new(6u64.into()),
            incr: Constant::new(1u64.into()),
            beat_round: Constant::new(63u64.into()),
            beat_shift: Constant::new(6u64.into()),
            one16: Constant::new(1u64.into()),
        }
    }
}

impl Default for AxiDmaBridge {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AxiDmaBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, aw_done, w_done);
        self.aw_done.reset.next = self.reset.val();
        self.w_done.reset.next = self.reset.val();
        // Writes: one beat; address and data offered together.
        self.m_axi_awaddr.next = self.dma_wr_addr.val();
        self.m_axi_awlen.next = self.zero8.val();
        self.m_axi_awsize.next = self.size64.val();
        self.m_axi_awburst.next = self.incr.val();
        self.m_axi_awvalid.next = self.dma_wr_valid.val() & !self.aw_done.q.val();
        self.m_axi_wdata.next = self.dma_wr_data.val();
        self.m_axi_wstrb.next = self.dma_wr_strb.val();
        self.m_axi_wlast.next = true;
        self.m_axi_wvalid.next = self.dma_wr_valid.val() & !self.w_done.q.val();
        self.wr_take.next = self.dma_wr_valid.val()
            & (self.aw_done.q.val() | self.m_axi_awready.val())
            & (self.w_done.q.val() | self.m_axi_wready.val());
        self.dma_wr_ready.next = self.wr_take.val();
        if self.wr_take.val() {
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
        } else {
            if self.dma_wr_valid.val() & self.m_axi_awready.val() {
                self.aw_done.d.next = true;
            }
            if self.dma_wr_valid.val() & self.m_axi_wready.val() {
                self.w_done.d.next = true;
            }
        }

        // Reads: one burst of ceil(len / 64) beats per request.
        self.len_round.next = self.dma_rd_req_len.val() + self.beat_round.val();
        self.beats_minus_one.next =
            (self.len_round.val() >> self.beat_shift.val()) - self.one16.val();
        self.m_axi_araddr.next = self.dma_rd_req_addr.val();
        self.m_axi_arlen.next = self.beats_minus_one.val().get_bits::<8>(0);
        self.m_axi_arsize.next = self.size64.val();
        self.m_axi_arburst.next = self.incr.val();
        self.m_axi_arvalid.next = self.dma_rd_req_valid.val();
        self.dma_rd_req_ready.next = self.m_axi_arready.val();
        self.dma_rd_cpl_data.next = self.m_axi_rdata.val();
        self.dma_rd_cpl_last.next = self.m_axi_rlast.val();
        self.dma_rd_cpl_valid.next = self.m_axi_rvalid.val();
        self.m_axi_rready.next = self.dma_rd_cpl_ready.val();
    }
}
