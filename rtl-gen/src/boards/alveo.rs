//! The Alveo U250 and U280 tops: QDMA for PCIe, CMAC 0 for the Ethernet
//! port, CMAC 1 for the ACP link port, and the boards' own pins.

use super::core_wiring::{reset_sync, CDC, CORE_WIRES};
use super::vendor_ip::{c, instance, VendorIp, CMAC, CMAC_ACP, QDMA};
use super::Board;

pub(super) fn alveo_top(board: &Board) -> Result<String, String> {
    let top = board.top;
    let mut v = format!(
        r#"
// {target}: QSFP28 cage 0 carries the Ethernet port (CMAC 0), cage 1 the ACP
// link port (CMAC 1, one 64-byte record per one-beat frame; see below).
// The core runs on QDMA's axi_aclk (250 MHz for Gen3 x16 at 512 bits); each
// CMAC's user clock gt_txusrclk2 (322.27 MHz) drives its own AXI-Stream side,
// and every path between the two goes through a dual-clock FIFO or, for
// CMAC 1's alignment flag, a two-flop synchronizer.
module {top}(
    input wire pcie_refclk_p,
    input wire pcie_refclk_n,
    input wire pcie_reset_n,
    input wire [15:0] pcie_rx_p,
    input wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,
    input wire qsfp0_refclk_p,
    input wire qsfp0_refclk_n,
    input wire [3:0] qsfp0_rx_p,
    input wire [3:0] qsfp0_rx_n,
    output wire [3:0] qsfp0_tx_p,
    output wire [3:0] qsfp0_tx_n,
    input wire qsfp1_refclk_p,
    input wire qsfp1_refclk_n,
    input wire [3:0] qsfp1_rx_p,
    input wire [3:0] qsfp1_rx_n,
    output wire [3:0] qsfp1_tx_p,
    output wire [3:0] qsfp1_tx_n,
    input wire init_clk_p,
    input wire init_clk_n{board_ports}
);
    // ---- Clocks. The free-running board clock (IBUFDS + BUFG) drives the CMACs'
    // init_clk and DRP clock, as PG203 asks for a clock that runs before the GTs lock.
    wire init_clk_ibuf, init_clk;
    IBUFDS init_clk_buf (.I(init_clk_p), .IB(init_clk_n), .O(init_clk_ibuf));
    BUFG init_clk_bufg (.I(init_clk_ibuf), .O(init_clk));
    wire pcie_refclk_gt, pcie_refclk_div2;
    IBUFDS_GTE4 pcie_refclk_buf (.I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt), .ODIV2(pcie_refclk_div2));
    wire core_clk, core_rstn, link_up;
"#,
        target = board.target,
        board_ports = alveo_board_ports(board)
    );
    v += CORE_WIRES;
    v += r#"
    // ---- PCIe: QDMA; BARs over AXI-Lite, the core's DMA over the AXI slave bridge.
    // The BAR is 16 MiB: QDMA's AXI-Lite address (BAR offset, translation 0)
    // matters in its low 24 bits only.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] axil_awaddr, axil_araddr;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] axil_wdata, axil_rdata;
    wire [1:0] axil_bresp, axil_rresp;
    wire axil_awvalid, axil_awready, axil_wvalid, axil_wready, axil_bvalid, axil_bready;
    wire axil_arvalid, axil_arready, axil_rvalid, axil_rready;
    wire [63:0] axib_awaddr, axib_araddr, axib_wstrb;
    wire [7:0] axib_awlen, axib_arlen;
    wire [2:0] axib_awsize, axib_arsize;
    wire [1:0] axib_awburst, axib_arburst;
    wire [511:0] axib_wdata, axib_rdata;
    wire axib_awvalid, axib_awready, axib_wlast, axib_wvalid, axib_wready;
    wire axib_arvalid, axib_arready, axib_rlast, axib_rvalid, axib_rready;
    pendulum_axil_mmio bar (
        .clock(core_clk), .reset(core_reset),
        .s_axil_awaddr(axil_awaddr[23:0]), .s_axil_awvalid(axil_awvalid), .s_axil_awready(axil_awready),
        .s_axil_wdata(axil_wdata), .s_axil_wvalid(axil_wvalid), .s_axil_wready(axil_wready),
        .s_axil_bresp(axil_bresp), .s_axil_bvalid(axil_bvalid), .s_axil_bready(axil_bready),
        .s_axil_araddr(axil_araddr[23:0]), .s_axil_arvalid(axil_arvalid), .s_axil_arready(axil_arready),
        .s_axil_rdata(axil_rdata), .s_axil_rresp(axil_rresp), .s_axil_rvalid(axil_rvalid), .s_axil_rready(axil_rready),
        .mmio_wr_addr(mmio_wr_addr), .mmio_wr_data(mmio_wr_data), .mmio_wr_valid(mmio_wr_valid), .mmio_wr_ready(mmio_wr_ready),
        .mmio_rd_addr(mmio_rd_addr), .mmio_rd_valid(mmio_rd_valid), .mmio_rd_ready(mmio_rd_ready),
        .mmio_rsp_data(mmio_rsp_data), .mmio_rsp_valid(mmio_rsp_valid), .mmio_rsp_ready(mmio_rsp_ready)
    );
    pendulum_axi_dma dma (
        .clock(core_clk), .reset(core_reset),
        .dma_wr_addr(dma_wr_addr), .dma_wr_data(dma_wr_data), .dma_wr_strb(dma_wr_strb),
        .dma_wr_valid(dma_wr_valid), .dma_wr_ready(dma_wr_ready),
        .dma_rd_req_addr(dma_rd_req_addr), .dma_rd_req_len(dma_rd_req_len),
        .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_ready(dma_rd_req_ready),
        .dma_rd_cpl_data(dma_rd_cpl_data), .dma_rd_cpl_last(dma_rd_cpl_last),
        .dma_rd_cpl_valid(dma_rd_cpl_valid), .dma_rd_cpl_ready(dma_rd_cpl_ready),
        .m_axi_awaddr(axib_awaddr), .m_axi_awlen(axib_awlen), .m_axi_awsize(axib_awsize), .m_axi_awburst(axib_awburst),
        .m_axi_awvalid(axib_awvalid), .m_axi_awready(axib_awready),
        .m_axi_wdata(axib_wdata), .m_axi_wstrb(axib_wstrb), .m_axi_wlast(axib_wlast),
        .m_axi_wvalid(axib_wvalid), .m_axi_wready(axib_wready),
        .m_axi_araddr(axib_araddr), .m_axi_arlen(axib_arlen), .m_axi_arsize(axib_arsize), .m_axi_arburst(axib_arburst),
        .m_axi_arvalid(axib_arvalid), .m_axi_arready(axib_arready),
        .m_axi_rdata(axib_rdata), .m_axi_rlast(axib_rlast), .m_axi_rvalid(axib_rvalid), .m_axi_rready(axib_rready)
    );
"#;
    let q = |p: &str, e: &str| c(p, e);
    v += &instance(
        &QDMA,
        "pcie",
        &[
            q("sys_clk", "pcie_refclk_div2"),
            q("sys_clk_gt", "pcie_refclk_gt"),
            q("sys_rst_n", "pcie_reset_n"),
            q("pci_exp_rxp", "pcie_rx_p"),
            q("pci_exp_rxn", "pcie_rx_n"),
            q("pci_exp_txp", "pcie_tx_p"),
            q("pci_exp_txn", "pcie_tx_n"),
            q("axi_aclk", "core_clk"),
            q("axi_aresetn", "core_rstn"),
            q("user_lnk_up", "link_up"),
            q("m_axil_awaddr", "axil_awaddr"),
            q("m_axil_awvalid", "axil_awvalid"),
            q("m_axil_awready", "axil_awready"),
            q("m_axil_wdata", "axil_wdata"),
            q("m_axil_wvalid", "axil_wvalid"),
            q("m_axil_wready", "axil_wready"),
            q("m_axil_bresp", "axil_bresp"),
            q("m_axil_bvalid", "axil_bvalid"),
            q("m_axil_bready", "axil_bready"),
            q("m_axil_araddr", "axil_araddr"),
            q("m_axil_arvalid", "axil_arvalid"),
            q("m_axil_arready", "axil_arready"),
            q("m_axil_rdata", "axil_rdata"),
            q("m_axil_rresp", "axil_rresp"),
            q("m_axil_rvalid", "axil_rvalid"),
            q("m_axil_rready", "axil_rready"),
            q("s_axib_awid", "4'd0"),
            q("s_axib_awaddr", "axib_awaddr"),
            q("s_axib_awlen", "axib_awlen"),
            q("s_axib_awsize", "axib_awsize"),
            q("s_axib_awburst", "axib_awburst"),
            q("s_axib_awvalid", "axib_awvalid"),
            q("s_axib_awready", "axib_awready"),
            q("s_axib_wdata", "axib_wdata"),
            q("s_axib_wstrb", "axib_wstrb"),
            q("s_axib_wlast", "axib_wlast"),
            q("s_axib_wvalid", "axib_wvalid"),
            q("s_axib_wready", "axib_wready"),
            q("s_axib_bready", "1'b1"),
            q("s_axib_arid", "4'd0"),
            q("s_axib_araddr", "axib_araddr"),
            q("s_axib_arlen", "axib_arlen"),
            q("s_axib_arsize", "axib_arsize"),
            q("s_axib_arburst", "axib_arburst"),
            q("s_axib_arvalid", "axib_arvalid"),
            q("s_axib_arready", "axib_arready"),
            q("s_axib_rdata", "axib_rdata"),
            q("s_axib_rlast", "axib_rlast"),
            q("s_axib_rvalid", "axib_rvalid"),
            q("s_axib_rready", "axib_rready"),
        ],
    )?;
    v += r#"
    // ---- Ethernet: CMAC 0 on QSFP28 cage 0, through the CDC FIFOs.
    wire mac_clk;
    wire [511:0] mac_rx_tdata, mac_tx_tdata;
    wire [63:0] mac_rx_tkeep, mac_tx_tkeep;
    wire mac_rx_tlast, mac_rx_tvalid, mac_tx_tlast, mac_tx_tvalid, mac_tx_tready;
    wire mac0_aligned;
"#;
    v += &reset_sync("QDMA's axi_aresetn");
    v += CDC;
    let mac = |ip: &VendorIp,
               n: usize,
               clk: &str,
               rx: [&str; 4],
               tx: [&str; 5],
               aligned: &str|
     -> Result<String, String> {
        instance(
            ip,
            &format!("mac{n}"),
            &[
                c("gt_ref_clk_p", &format!("qsfp{n}_refclk_p")),
                c("gt_ref_clk_n", &format!("qsfp{n}_refclk_n")),
                c("gt_rxp_in", &format!("qsfp{n}_rx_p")),
                c("gt_rxn_in", &format!("qsfp{n}_rx_n")),
                c("gt_txp_out", &format!("qsfp{n}_tx_p")),
                c("gt_txn_out", &format!("qsfp{n}_tx_n")),
                c("init_clk", "init_clk"),
                c("sys_reset", "1'b0"),
                c("core_rx_reset", "1'b0"),
                c("core_tx_reset", "1'b0"),
                c("core_drp_reset", "1'b0"),
                c("drp_clk", "init_clk"),
                c("drp_addr", "10'd0"),
                c("drp_di", "16'd0"),
                c("drp_en", "1'b0"),
                c("drp_we", "1'b0"),
                c("gt_loopback_in", "12'd0"),
                c("gt_txusrclk2", clk),
                c("rx_clk", clk),
                c("rx_axis_tvalid", rx[0]),
                c("rx_axis_tdata", rx[1]),
                c("rx_axis_tlast", rx[2]),
                c("rx_axis_tkeep", rx[3]),
                c("tx_axis_tready", tx[0]),
                c("tx_axis_tvalid", tx[1]),
                c("tx_axis_tdata", tx[2]),
                c("tx_axis_tlast", tx[3]),
                c("tx_axis_tkeep", tx[4]),
                c("tx_axis_tuser", "1'b0"),
                c("tx_preamblein", "56'd0"),
                // Static configuration (no AXI-Lite): enable both directions, no test patterns.
                c("ctl_rx_enable", "1'b1"),
                c("ctl_rx_force_resync", "1'b0"),
                c("ctl_rx_test_pattern", "1'b0"),
                c("ctl_tx_enable", "1'b1"),
                c("ctl_tx_send_idle", "1'b0"),
                c("ctl_tx_send_rfi", "1'b0"),
                c("ctl_tx_send_lfi", "1'b0"),
                c("ctl_tx_test_pattern", "1'b0"),
                c("stat_rx_aligned", aligned),
            ],
        )
    };
    v += &mac(
        &CMAC,
        0,
        "mac_clk",
        [
            "mac_rx_tvalid",
            "mac_rx_tdata",
            "mac_rx_tlast",
            "mac_rx_tkeep",
        ],
        [
            "mac_tx_tready",
            "mac_tx_tvalid",
            "mac_tx_tdata",
            "mac_tx_tlast",
            "mac_tx_tkeep",
        ],
        "mac0_aligned",
    )?;
    v += r#"
    // ---- ACP port: CMAC 1 on QSFP28 cage 1, the core's acp_* link port.
    // One ACP record (64 bytes) travels as one Ethernet frame of exactly one
    // 512-bit beat: tkeep all ones, tlast set; byte 0 of the record is
    // tdata[7:0], first on the wire, as on the Ethernet port. The CMAC adds the
    // FCS on TX and strips it on RX (PG203 attributes CTL_TX_FCS_INS_ENABLE and
    // CTL_RX_DELETE_FCS, both TRUE by default), so a record is a 68-byte frame
    // on the wire and one beat again at the peer.
    // The record goes bare, with no Ethernet header: its first 14 bytes stand
    // where a MAC would read destination, source and EtherType. Chosen because
    // the ACP port is a point-to-point cable between two Pendulum cards, and
    // because the core's record is exactly one beat: a header would make every
    // record two beats and need a realigner on each side, at a cost in rate
    // and latency the link pays on every slot. The CMAC, generated without
    // flow control, does no address filtering; byte 1 (the slot's channel,
    // below K = 16) is never 0x80, so no record carries the pause-frame
    // destination 01-80-C2-00-00-01; and the CMAC only flags, on rx_axis_tuser (not used
    // here), what it finds wrong with a frame: the record's CRC-32C decides.
    // (Not tried on hardware: check this against PG203 on first use.)
    // A real deployment through a switch, or beside other Ethernet traffic,
    // would put an Ethernet header (with its own EtherType) in front of each
    // record and strip it on receipt, or run the port below the MAC's framing
    // (a raw, PCS-level mode) instead.
    wire acp_clk;
    // The ACP port's logic on CMAC 1's clock takes the reset through its own
    // synchroniser, from the same source as the core's (see "Reset" above).
    wire acp_reset;
    pendulum_sync_bit acp_reset_sync (.clock(acp_clk), .sig_in(~core_rstn), .sig_out(acp_reset));
    wire mac1_aligned, mac1_rx_tvalid, mac1_rx_tlast, mac1_tx_tvalid, mac1_tx_tready;
    wire [511:0] mac1_rx_tdata, mac1_tx_tdata;
    wire [63:0] mac1_rx_tkeep;
    // RX, CMAC 1 -> core. A record is a beat that is a whole frame: the first
    // beat of its frame, tlast set, all 64 bytes kept. Any other beat (a
    // shorter or longer frame, or any beat of one) is a framing error and is
    // dropped here, before the crossing; the peer's record is then simply
    // lost, which the link tolerates (it costs time, not data). A frame with a
    // bad FCS still arrives (flagged on rx_axis_tuser, not connected) and is
    // caught by the record's own CRC-32C in the core, which counts it.
    reg mac1_rx_sof = 1'b1;
    always @(posedge acp_clk)
        if (acp_reset) mac1_rx_sof <= 1'b1;
        else if (mac1_rx_tvalid) mac1_rx_sof <= mac1_rx_tlast;
    wire mac1_rx_record = mac1_rx_tvalid & mac1_rx_tlast & (&mac1_rx_tkeep) & mac1_rx_sof;
    // The core takes every record, so the FIFO's read side never waits; it
    // cannot fill while core_clk outruns CMAC 1's frame rate (142 M records/s).
    // Should it ever be full, the record is lost and acp_rx_overflow is set,
    // as rx_overflow is for the Ethernet port.
    wire acp_cdc_rx_in_ready;
    pendulum_cdc_acp_rx acp_cdc_rx (
        .s_clock(acp_clk), .s_reset(acp_reset), .s__data(mac1_rx_tdata), .s__valid(mac1_rx_record), .s__ready(acp_cdc_rx_in_ready),
        .m_clock(core_clk), .m_reset(core_reset), .m__data(acp_rx_data), .m__valid(acp_rx_valid), .m__ready(1'b1)
    );
    reg acp_rx_overflow = 1'b0;
    always @(posedge acp_clk)
        if (acp_reset) acp_rx_overflow <= 1'b0;
        else if (mac1_rx_record && !acp_cdc_rx_in_ready) acp_rx_overflow <= 1'b1;
    // TX, core -> CMAC 1: the core offers the next slot's record whenever the
    // FIFO has room; each leaves as its own frame (tlast on every beat, so
    // CMAC 1 never waits for the rest of a frame: no underrun mid-frame).
    pendulum_cdc_acp_tx acp_cdc_tx (
        .s_clock(core_clk), .s_reset(core_reset), .s__data(acp_tx_data), .s__valid(acp_tx_valid), .s__ready(acp_tx_ready),
        .m_clock(acp_clk), .m_reset(acp_reset), .m__data(mac1_tx_tdata), .m__valid(mac1_tx_tvalid), .m__ready(mac1_tx_tready)
    );
    // Signal present: CMAC 1's stat_rx_aligned (a level in acp_clk) through two
    // flip-flops on core_clk. The core registers it once more at its boundary.
    pendulum_sync_bit acp_link_sync (.clock(core_clk), .sig_in(mac1_aligned), .sig_out(acp_link_up));
"#;
    v += &mac(
        &CMAC_ACP,
        1,
        "acp_clk",
        [
            "mac1_rx_tvalid",
            "mac1_rx_tdata",
            "mac1_rx_tlast",
            "mac1_rx_tkeep",
        ],
        [
            "mac1_tx_tready",
            "mac1_tx_tvalid",
            "mac1_tx_tdata",
            "1'b1",
            "{64{1'b1}}",
        ],
        "mac1_aligned",
    )?;
    v += &alveo_board_logic(board);
    v += "endmodule\n";
    Ok(v)
}

/// Board-specific pins of the Alveo tops: QSFP28 module control and the
/// programmable reference-clock chips, and LEDs where the board has them.
fn alveo_board_ports(board: &Board) -> String {
    let mut p = String::new();
    for n in 0..2 {
        if board.target == "alveo-u250" {
            p += &format!(",\n    output wire qsfp{n}_resetl,\n    output wire qsfp{n}_lpmode,\n    output wire qsfp{n}_modsell,\n    output wire qsfp{n}_refclk_reset,\n    output wire [1:0] qsfp{n}_fs");
        } else {
            p += &format!(
                ",\n    output wire qsfp{n}_refclk_oe_b,\n    output wire qsfp{n}_refclk_fs"
            );
        }
    }
    if board.leds > 0 {
        p += &format!(",\n    output wire [{}:0] led", board.leds - 1);
    }
    p
}

fn alveo_board_logic(board: &Board) -> String {
    let mut v = String::new();
    for n in 0..2 {
        if board.target == "alveo-u250" {
            // Module out of reset, high power, selected; reference clock chip
            // running at 161.1328125 MHz (FS = 0b10), the CMAC's reference.
            v += &format!("    assign qsfp{n}_resetl = 1'b1;\n    assign qsfp{n}_lpmode = 1'b0;\n    assign qsfp{n}_modsell = 1'b0;\n    assign qsfp{n}_refclk_reset = 1'b0;\n    assign qsfp{n}_fs = 2'b10;\n");
        } else {
            // Reference clock enabled at 161.1328125 MHz (FS = 1), the CMAC's reference.
            v += &format!(
                "    assign qsfp{n}_refclk_oe_b = 1'b0;\n    assign qsfp{n}_refclk_fs = 1'b1;\n"
            );
        }
    }
    if board.leds >= 3 {
        v += "    // LEDs: PCIe link up, Ethernet aligned, RX overflow seen at either port's crossing (sticky).\n    assign led = {rx_overflow | acp_rx_overflow, mac0_aligned, link_up};\n";
    } else {
        v += "    // No user LEDs on this board: the status signals stay inside.\n    /* verilator lint_off UNUSEDSIGNAL */\n    wire unused_status = rx_overflow & acp_rx_overflow & mac0_aligned & link_up;\n    /* verilator lint_on UNUSEDSIGNAL */\n";
    }
    v
}
