//! Verilog text every board top shares: the NIC core's instance and wires,
//! the reset synchronisers, and the Ethernet port's clock-domain crossings.

/// The core's ports and the CDC FIFOs between the core and one MAC, shared by all tops.
pub(super) const CORE_WIRES: &str = r#"
    // ---- The NIC core and its ports.
    wire [511:0] eth_rx_tdata;  wire [63:0] eth_rx_tkeep; wire eth_rx_tlast, eth_rx_tvalid, eth_rx_tready;
    wire [31:0] eth_rx_overflow_drops;
    wire [511:0] eth_tx_tdata;  wire [63:0] eth_tx_tkeep; wire eth_tx_tlast, eth_tx_tvalid, eth_tx_tready;
    wire [63:0] dma_wr_addr;    wire [511:0] dma_wr_data; wire [63:0] dma_wr_strb; wire dma_wr_valid, dma_wr_ready;
    wire [63:0] dma_rd_req_addr; wire [15:0] dma_rd_req_len; wire dma_rd_req_valid, dma_rd_req_ready;
    // Requests return in order on these buses, so the tag is not needed by the adapters.
    // Each DMA write beat carries its own address, and the bridges write beat by
    // beat (one bus write each), so the grouping of beats into one TLP
    // (dma_wr_last) is not used: correct, but the PCIe block may send more,
    // smaller TLPs than the core intended (README, "what is left").
    /* verilator lint_off UNUSEDSIGNAL */
    wire [7:0] dma_rd_req_tag;
    wire dma_wr_last;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [511:0] dma_rd_cpl_data; wire dma_rd_cpl_last, dma_rd_cpl_valid, dma_rd_cpl_ready;
    wire [23:0] mmio_wr_addr; wire [31:0] mmio_wr_data; wire mmio_wr_valid, mmio_wr_ready;
    wire [23:0] mmio_rd_addr; wire mmio_rd_valid, mmio_rd_ready;
    wire [31:0] mmio_rsp_data; wire mmio_rsp_valid, mmio_rsp_ready;
    // The ACP link port: one 64-byte record per slot each way, no back-pressure
    // into the core (it takes every record), and the physical layer's signal flag.
    wire [511:0] acp_rx_data;   wire acp_rx_valid, acp_link_up;
    wire [511:0] acp_tx_data;   wire acp_tx_valid, acp_tx_ready;
    pendulum_nic nic (
        .clock(core_clk), .reset(core_reset),
        .eth_rx_tdata(eth_rx_tdata), .eth_rx_tkeep(eth_rx_tkeep), .eth_rx_tlast(eth_rx_tlast),
        .eth_rx_tvalid(eth_rx_tvalid), .eth_rx_tready(eth_rx_tready),
        .eth_rx_overflow_drops(eth_rx_overflow_drops),
        .eth_tx_tdata(eth_tx_tdata), .eth_tx_tkeep(eth_tx_tkeep), .eth_tx_tlast(eth_tx_tlast),
        .eth_tx_tvalid(eth_tx_tvalid), .eth_tx_tready(eth_tx_tready),
        .dma_wr_addr(dma_wr_addr), .dma_wr_data(dma_wr_data), .dma_wr_strb(dma_wr_strb),
        .dma_wr_last(dma_wr_last), .dma_wr_valid(dma_wr_valid), .dma_wr_ready(dma_wr_ready),
        .dma_rd_req_addr(dma_rd_req_addr), .dma_rd_req_len(dma_rd_req_len), .dma_rd_req_tag(dma_rd_req_tag),
        .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_ready(dma_rd_req_ready),
        .dma_rd_cpl_data(dma_rd_cpl_data), .dma_rd_cpl_last(dma_rd_cpl_last),
        .dma_rd_cpl_valid(dma_rd_cpl_valid), .dma_rd_cpl_ready(dma_rd_cpl_ready),
        .mmio_wr_addr(mmio_wr_addr), .mmio_wr_data(mmio_wr_data), .mmio_wr_valid(mmio_wr_valid), .mmio_wr_ready(mmio_wr_ready),
        .mmio_rd_addr(mmio_rd_addr), .mmio_rd_valid(mmio_rd_valid), .mmio_rd_ready(mmio_rd_ready),
        .mmio_rsp_data(mmio_rsp_data), .mmio_rsp_valid(mmio_rsp_valid), .mmio_rsp_ready(mmio_rsp_ready),
        .acp_rx_data(acp_rx_data), .acp_rx_valid(acp_rx_valid), .acp_link_up(acp_link_up),
        .acp_tx_data(acp_tx_data), .acp_tx_valid(acp_tx_valid), .acp_tx_ready(acp_tx_ready)
    );
"#;

/// The reset synchronisers of a top: the core's (on core_clk) and the MAC
/// side's (on mac_clk), both from the PCIe block's `core_rstn` (`source`
/// names it, for the comment).
pub(super) fn reset_sync(source: &str) -> String {
    r#"
    // ---- Reset. The PCIe block's reset (SOURCE, which follows PERST# and
    // the link's resets) resets the core through a two-flop synchroniser on
    // core_clk, and the logic on the MAC clock through its own. Both follow
    // the same source, so the two sides of every clock crossing are in reset
    // at once while it is held, which is all the crossings' FIFOs need (see
    // AsyncStreamFifo). After the release the core clears its tables for
    // RESET_CLEAR_CYCLES cycles (4 us) before it answers the BAR.
    wire core_reset, mac_reset;
    pendulum_sync_bit core_reset_sync (.clock(core_clk), .sig_in(~core_rstn), .sig_out(core_reset));
    pendulum_sync_bit mac_reset_sync (.clock(mac_clk), .sig_in(~core_rstn), .sig_out(mac_reset));
"#
    .replace("SOURCE", source)
}

/// CDC FIFOs between `mac_clk` and `core_clk` for cage 0. The MAC side's
/// signals are `mac_rx_*` (tvalid only: the MAC cannot be held back) and `mac_tx_*`.
pub(super) const CDC: &str = r#"
    // ---- Clock-domain crossings, MAC clock <-> core clock (dual-clock FIFOs, Gray pointers).
    // RX: the MAC has no back-pressure, so the crossing keeps or drops whole
    // frames (AsyncFrameDropFifo): a frame one of whose beats finds the FIFO
    // full is dropped whole, never passed on truncated or merged with the next.
    // It counts the frames it drops (32 bits, Gray-coded across to core_clk):
    // the core's RX_OVERFLOW_DROPS register, and the sticky rx_overflow LED.
    wire [576:0] rx_cdc_out;
    pendulum_cdc_rx cdc_rx (
        .s_clock(mac_clk), .s_reset(mac_reset), .s_data({mac_rx_tlast, mac_rx_tkeep, mac_rx_tdata}), .s_valid(mac_rx_tvalid),
        .m_clock(core_clk), .m_reset(core_reset), .m__data(rx_cdc_out), .m__valid(eth_rx_tvalid), .m__ready(eth_rx_tready),
        .m_drops(eth_rx_overflow_drops)
    );
    assign eth_rx_tdata = rx_cdc_out[511:0];
    assign eth_rx_tkeep = rx_cdc_out[575:512];
    assign eth_rx_tlast = rx_cdc_out[576];
    // Sticky: a frame was dropped at the crossing since the last reset.
    reg rx_overflow = 1'b0;
    always @(posedge core_clk)
        if (core_reset) rx_overflow <= 1'b0;
        else if (eth_rx_overflow_drops != 32'd0) rx_overflow <= 1'b1;
    // TX: whole frames only (AsyncFrameFifo): a frame goes to the MAC once its
    // last beat is in, so the faster MAC clock cannot drain it mid-frame.
    wire [576:0] tx_cdc_out;
    pendulum_cdc_tx cdc_tx (
        .s_clock(core_clk), .s_reset(core_reset), .s__data({eth_tx_tlast, eth_tx_tkeep, eth_tx_tdata}), .s__valid(eth_tx_tvalid), .s__ready(eth_tx_tready),
        .m_clock(mac_clk), .m_reset(mac_reset), .m__data(tx_cdc_out), .m__valid(mac_tx_tvalid), .m__ready(mac_tx_tready)
    );
    assign mac_tx_tdata = tx_cdc_out[511:0];
    assign mac_tx_tkeep = tx_cdc_out[575:512];
    assign mac_tx_tlast = tx_cdc_out[576];
"#;
