//! The Stratix 10 MX top: the Avalon-MM+ PCIe hard IP, the E-tile Ethernet
//! hard IP with its Avalon-ST adapters, and the ACP port tied off.

use super::core_wiring::{reset_sync, CDC, CORE_WIRES};
use super::vendor_ip::{c, instance, S10_ETH, S10_PCIE};
use super::Board;

pub(super) fn s10_top(board: &Board) -> Result<String, String> {
    let top = board.top;
    let mut v = format!(
        r#"
// {target}: Intel Stratix 10 MX FPGA development kit (the board Ensō ran on).
// PCIe Gen3 x16 through the Avalon-MM+ hard IP, whose coreclkout_hip
// (250 MHz) is the core clock. QSFP28 cage 0 carries the Ethernet port through
// the E-tile Ethernet hard IP (100GE MAC+PCS), whose Avalon-ST client
// (first byte most significant, start/end of packet, empty) the adapters
// pendulum_avst_eth_rx / pendulum_avst_eth_tx turn into the core's AXI-Stream
// shape on the MAC clock, then the CDC FIFOs cross to the core clock, as on
// the Alveo tops. Not tried on hardware.
module {top}(
    input wire pcie_refclk,
    input wire pcie_perst_n,
    input wire [15:0] pcie_rx,
    output wire [15:0] pcie_tx,
    input wire qsfp0_refclk,
    input wire [3:0] qsfp0_rx,
    output wire [3:0] qsfp0_tx,
    input wire clk_100m,
    output wire [3:0] led
);
    wire core_clk, core_rstn, link_up;
"#,
        target = board.target
    );
    v += CORE_WIRES;
    v += r#"
    // ---- PCIe: BARs over the bursting master, the core's DMA over the bursting slave.
    wire [31:0] bam_address;
    wire bam_read, bam_write, bam_waitrequest, bam_readdatavalid;
    wire [511:0] bam_writedata, bam_readdata;
    wire [63:0] bas_address, bas_byteenable;
    wire [3:0] bas_burstcount;
    wire bas_read, bas_write, bas_waitrequest, bas_readdatavalid;
    wire [511:0] bas_writedata, bas_readdata;
    pendulum_avmm_mmio bar (
        .clock(core_clk), .reset(core_reset),
        .avs_address(bam_address[23:0]), .avs_read(bam_read), .avs_write(bam_write), .avs_writedata(bam_writedata),
        .avs_waitrequest(bam_waitrequest), .avs_readdata(bam_readdata), .avs_readdatavalid(bam_readdatavalid),
        .mmio_wr_addr(mmio_wr_addr), .mmio_wr_data(mmio_wr_data), .mmio_wr_valid(mmio_wr_valid), .mmio_wr_ready(mmio_wr_ready),
        .mmio_rd_addr(mmio_rd_addr), .mmio_rd_valid(mmio_rd_valid), .mmio_rd_ready(mmio_rd_ready),
        .mmio_rsp_data(mmio_rsp_data), .mmio_rsp_valid(mmio_rsp_valid), .mmio_rsp_ready(mmio_rsp_ready)
    );
    pendulum_avmm_dma dma (
        .clock(core_clk), .reset(core_reset),
        .dma_wr_addr(dma_wr_addr), .dma_wr_data(dma_wr_data), .dma_wr_strb(dma_wr_strb),
        .dma_wr_valid(dma_wr_valid), .dma_wr_ready(dma_wr_ready),
        .dma_rd_req_addr(dma_rd_req_addr), .dma_rd_req_len(dma_rd_req_len),
        .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_ready(dma_rd_req_ready),
        .dma_rd_cpl_data(dma_rd_cpl_data), .dma_rd_cpl_last(dma_rd_cpl_last), .dma_rd_cpl_valid(dma_rd_cpl_valid),
        .avm_address(bas_address), .avm_byteenable(bas_byteenable), .avm_burstcount(bas_burstcount),
        .avm_read(bas_read), .avm_write(bas_write), .avm_writedata(bas_writedata),
        .avm_waitrequest(bas_waitrequest), .avm_readdata(bas_readdata), .avm_readdatavalid(bas_readdatavalid)
    );
    // The bridge never holds read data back (see AvalonDmaBridge): the core's
    // completion FIFO has room reserved by the TX fetcher's credits.
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_pcie = dma_rd_cpl_ready & (|bam_address[31:24]);
    /* verilator lint_on UNUSEDSIGNAL */
"#;
    v += &instance(
        &S10_PCIE,
        "pcie",
        &[
            c("refclk", "pcie_refclk"),
            c("pin_perst", "pcie_perst_n"),
            c("npor", "1'b1"),
            c("rx_in", "pcie_rx"),
            c("tx_out", "pcie_tx"),
            c("coreclkout_hip", "core_clk"),
            c("app_nreset_status", "core_rstn"),
            c("link_up_o", "link_up"),
            c("bam_address_o", "bam_address"),
            c("bam_read_o", "bam_read"),
            c("bam_write_o", "bam_write"),
            c("bam_writedata_o", "bam_writedata"),
            c("bam_waitrequest_i", "bam_waitrequest"),
            c("bam_readdata_i", "bam_readdata"),
            c("bam_readdatavalid_i", "bam_readdatavalid"),
            c("bas_address_i", "bas_address"),
            c("bas_byteenable_i", "bas_byteenable"),
            c("bas_burstcount_i", "bas_burstcount"),
            c("bas_read_i", "bas_read"),
            c("bas_write_i", "bas_write"),
            c("bas_writedata_i", "bas_writedata"),
            c("bas_waitrequest_o", "bas_waitrequest"),
            c("bas_readdata_o", "bas_readdata"),
            c("bas_readdatavalid_o", "bas_readdatavalid"),
        ],
    )?;
    v += r#"
    // ---- Ethernet: E-tile hard IP on QSFP28 cage 0, Avalon-ST <-> AXI-Stream
    // on the MAC clock, then the CDC FIFOs.
    wire mac_clk, mac_pcs_ready, mac_tx_stable;
    wire [511:0] mac_rx_tdata, mac_tx_tdata;
    wire [63:0] mac_rx_tkeep, mac_tx_tkeep;
    wire mac_rx_tlast, mac_rx_tvalid, mac_tx_tlast, mac_tx_tvalid, mac_tx_tready;
    wire [511:0] avst_rx_data, avst_tx_data;
    wire [5:0] avst_rx_empty, avst_tx_empty;
    wire avst_rx_valid, avst_rx_eop, avst_tx_valid, avst_tx_sop, avst_tx_eop, avst_tx_ready;
    // Not needed: a frame starts on the beat after an end of packet, and the
    // MAC's error flags are not acted on (see AvalonStEthRx).
    /* verilator lint_off UNUSEDSIGNAL */
    wire avst_rx_sop;
    wire [5:0] avst_rx_error;
    /* verilator lint_on UNUSEDSIGNAL */
    // RX: the MAC never waits; a frame the crossing cannot take is dropped
    // whole and counted (CDC, below). The MAC's error flags are not used: a bad
    // frame is passed like the CMAC tops pass it (see AvalonStEthRx).
    pendulum_avst_eth_rx eth_rx (
        .clock(mac_clk), .reset(mac_reset),
        .rx_data(avst_rx_data), .rx_valid(avst_rx_valid), .rx_endofpacket(avst_rx_eop), .rx_empty(avst_rx_empty),
        .m_tdata(mac_rx_tdata), .m_tkeep(mac_rx_tkeep), .m_tlast(mac_rx_tlast), .m_tvalid(mac_rx_tvalid)
    );
    // TX: whole frames from the crossing, so tx_valid holds from start to end of packet.
    pendulum_avst_eth_tx eth_tx (
        .clock(mac_clk), .reset(mac_reset),
        .s_tdata(mac_tx_tdata), .s_tkeep(mac_tx_tkeep), .s_tlast(mac_tx_tlast),
        .s_tvalid(mac_tx_tvalid), .s_tready(mac_tx_tready),
        .tx_data(avst_tx_data), .tx_valid(avst_tx_valid), .tx_startofpacket(avst_tx_sop),
        .tx_endofpacket(avst_tx_eop), .tx_empty(avst_tx_empty), .tx_ready(avst_tx_ready)
    );
"#;
    v += &reset_sync("the hard IP's app_nreset_status");
    v += CDC;
    v += &instance(
        &S10_ETH,
        "mac0",
        &[
            c("i_clk_ref", "qsfp0_refclk"),
            c("i_rx_serial", "qsfp0_rx"),
            c("o_tx_serial", "qsfp0_tx"),
            c("i_csr_rst_n", "1'b1"),
            c("i_tx_rst_n", "1'b1"),
            c("i_rx_rst_n", "1'b1"),
            c("i_reconfig_clk", "clk_100m"),
            c("i_reconfig_reset", "1'b0"),
            // The MAC's user clock (o_clk_pll_div64, 402.83 MHz for 100GE) clocks both directions.
            c("o_clk_pll_div64", "mac_clk"),
            c("i_clk_tx", "mac_clk"),
            c("i_clk_rx", "mac_clk"),
            c("o_rx_pcs_ready", "mac_pcs_ready"),
            c("o_tx_lanes_stable", "mac_tx_stable"),
            c("o_rx_data", "avst_rx_data"),
            c("o_rx_valid", "avst_rx_valid"),
            c("o_rx_startofpacket", "avst_rx_sop"),
            c("o_rx_endofpacket", "avst_rx_eop"),
            c("o_rx_empty", "avst_rx_empty"),
            c("o_rx_error", "avst_rx_error"),
            c("i_tx_data", "avst_tx_data"),
            c("i_tx_valid", "avst_tx_valid"),
            c("i_tx_startofpacket", "avst_tx_sop"),
            c("i_tx_endofpacket", "avst_tx_eop"),
            c("i_tx_empty", "avst_tx_empty"),
            // The core's frames are whole and good; the MAC appends the FCS.
            c("i_tx_error", "1'b0"),
            c("i_tx_skip_crc", "1'b0"),
            c("o_tx_ready", "avst_tx_ready"),
        ],
    )?;
    v += r#"
    // ---- ACP port: tied off. This top has one Ethernet hard IP, the E-tile
    // instance mac0 on QSFP28 cage 0, and no second one for the ACP link, so
    // the core's ACP port has no physical layer here: no records arrive
    // (acp_rx_valid low), the link reads as having no signal (acp_link_up low:
    // the link engine stays in its down state and never entangles), and the
    // core's records are taken and discarded (acp_tx_ready high) so its slot
    // rotation keeps running. To give it one, a user would add a second E-tile
    // Hard IP for Ethernet instance (100GE MAC+PCS, like alt_ehipc2) on a
    // second 100G port of the kit, with its pins and reference clock in
    // constraints/stratix10-mx/pendulum.qsf, a second pair of Avalon-ST
    // adapters (AvalonStEthRx/Tx, as above; a record is one whole 64-byte beat,
    // checked and dropped on RX as the Alveo tops do), and then the same
    // crossings as the Alveo tops: pendulum_cdc_acp_rx and pendulum_cdc_acp_tx
    // (AsyncStreamFifo, 512 bits) and a two-flop synchronizer from the IP's
    // o_rx_pcs_ready to acp_link_up.
    assign acp_rx_data = 512'd0;
    assign acp_rx_valid = 1'b0;
    assign acp_link_up = 1'b0;
    assign acp_tx_ready = 1'b1;
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_acp = acp_tx_valid & (|acp_tx_data);
    /* verilator lint_on UNUSEDSIGNAL */
    // LEDs: PCIe link up, Ethernet PCS ready, TX lanes stable, RX overflow seen.
    assign led = {rx_overflow, mac_tx_stable, mac_pcs_ready, link_up};
endmodule
"#;
    Ok(v)
}
