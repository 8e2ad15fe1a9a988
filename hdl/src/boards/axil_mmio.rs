use crate::reset::SDFF;
use pendulum_layout::params::MMIO_ADDR_BITS;
use rust_hdl::prelude::*;

/// BAR register access: an AXI4-Lite slave (AMD QDMA's `m_axil_*` master)
/// onto the core's `mmio_wr`/`mmio_rd`/`mmio_rsp` ports.
///
/// A write waits for both its address and its data, then goes to the core
/// as one `mmio_wr` word; `bresp` is OKAY once the core took it (refused
/// writes are the register file's business: it counts them). `wstrb` is not
/// used: the registers are 32-bit and the driver writes whole words.
/// One read is outstanding at a time; its response is the core's `mmio_rsp`.
/// Addresses are the BAR offset's low `MMIO_ADDR_BITS` (the BAR's size); the top slices them.
/// Latency 0 cycles to the core (combinational handshake), 1 cycle for `bvalid`.
#[derive(LogicBlock)]
pub struct AxiLiteMmio {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    // AXI4-Lite slave, from the PCIe block.
    pub s_axil_awaddr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
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
    // A write response is waiting for bready.
    b_pending: SDFF<Bit>,
    // A read went to the core and its response has not been taken.
    r_pending: SDFF<Bit>,
    okay: Constant<Bits<2>>,
}

impl AxiLiteMmio {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
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
            b_pending: Default::default(),
            r_pending: Default::default(),
            okay: Constant::new(0u64.into()),
        }
    }
}

impl Default for AxiLiteMmio {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AxiLiteMmio {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_pending, r_pending);
        self.b_pending.reset.next = self.reset.val();
        self.r_pending.reset.next = self.reset.val();
        self.s_axil_bresp.next = self.okay.val();
        self.s_axil_rresp.next = self.okay.val();

        // Writes: address and data together, one at a time.
        self.mmio_wr_addr.next = self.s_axil_awaddr.val();
        self.mmio_wr_data.next = self.s_axil_wdata.val();
        self.mmio_wr_valid.next =
            self.s_axil_awvalid.val() & self.s_axil_wvalid.val() & !self.b_pending.q.val();
        self.s_axil_awready.next = self.mmio_wr_ready.val()
            & self.s_axil_awvalid.val()
            & self.s_axil_wvalid.val()
            & !self.b_pending.q.val();
        self.s_axil_wready.next = self.mmio_wr_ready.val()
            & self.s_axil_awvalid.val()
            & self.s_axil_wvalid.val()
            & !self.b_pending.q.val();
        self.s_axil_bvalid.next = self.b_pending.q.val();
        if self.s_axil_bready.val() {
            self.b_pending.d.next = false;
        }
        if self.mmio_wr_ready.val()
            & self.s_axil_awvalid.val()
            & self.s_axil_wvalid.val()
            & !self.b_pending.q.val()
        {
            self.b_pending.d.next = true;
        }

        // Reads: one outstanding; the response comes straight from the core.
        self.mmio_rd_addr.next = self.s_axil_araddr.val();
        self.mmio_rd_valid.next = self.s_axil_arvalid.val() & !self.r_pending.q.val();
        self.s_axil_arready.next = self.mmio_rd_ready.val() & !self.r_pending.q.val();
        self.s_axil_rdata.next = self.mmio_rsp_data.val();
        self.s_axil_rvalid.next = self.mmio_rsp_valid.val();
        self.mmio_rsp_ready.next = self.s_axil_rready.val();
        if self.mmio_rsp_valid.val() & self.s_axil_rready.val() {
            self.r_pending.d.next = false;
        }
        if self.s_axil_arvalid.val() & self.mmio_rd_ready.val() & !self.r_pending.q.val() {
            self.r_pending.d.next = true;
        }
    }
}
