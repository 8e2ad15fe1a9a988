//! Board tops: the NIC core, the adapters of `pendulum_hdl::boards`, the
//! clock-domain-crossing FIFOs, and the vendor's blocks, instantiated by the
//! names their documents give and left as black boxes.
//!
//! Everything with logic is a rust-hdl block, emitted here under its own
//! root name (`pendulum_cdc_rx`, `pendulum_axil_mmio`, …); the top itself is
//! structural Verilog written below: instances and wires only. Each vendor
//! block's ports are listed once, in [`VendorIp`], and give both the
//! instance and the lint stub, so the two cannot disagree.

use crate::Dir;
use pendulum_hdl::boards::{
    AvalonDmaBridge, AvalonMmio, AvalonStEthRx, AvalonStEthTx, AxiDmaBridge, AxiLiteMmio,
};
use pendulum_hdl::stream::{AsyncFrameDropFifo, AsyncFrameFifo, AsyncStreamFifo};
use pendulum_layout::params::MAX_FRAME_BYTES;
use rust_hdl::prelude::*;
use serde::Serialize;
use std::path::Path;

/// One port of a board top, and why it has no pin if it has none.
#[derive(Clone, Debug, Serialize)]
pub struct TopPort {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
}

/// A board `rtl-gen` can target.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    pub target: &'static str,
    pub top: &'static str,
    /// Folder under `constraints/`.
    pub constraints: &'static str,
    pub vendor: Vendor,
    pub part: &'static str,
    /// User LEDs the board gives the FPGA.
    pub leds: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    Amd,
    Intel,
}

pub const BOARDS: &[Board] = &[
    Board {
        target: "alveo-u250",
        top: "pendulum_au250",
        constraints: "alveo-u250",
        vendor: Vendor::Amd,
        part: "xcu250-figd2104-2L-e",
        leds: 3,
    },
    Board {
        target: "alveo-u280",
        top: "pendulum_au280",
        constraints: "alveo-u280",
        vendor: Vendor::Amd,
        part: "xcu280-fsvh2892-2L-e",
        leds: 0,
    },
    Board {
        target: "stratix10-mx",
        top: "pendulum_s10mx",
        constraints: "stratix10-mx",
        vendor: Vendor::Intel,
        part: "1SM21BHU2F53E1VG",
        leds: 4,
    },
];

pub fn board(target: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.target == target)
}

/// A vendor block: its module name as the vendor documents it, and the ports
/// the top connects (the block has more, for statistics and options, which
/// stay unconnected and default as the document says).
pub struct VendorIp {
    pub module: &'static str,
    pub source: &'static str,
    pub ports: &'static [(&'static str, Dir, usize)],
}

use Dir::{Input as I, Output as O};

/// The ports of AMD's UltraScale+ integrated 100G Ethernet subsystem
/// (PG203) that the tops connect, generated with the GT inside, the
/// AXI4-Stream user interface, RS-FEC off and static (ctl_*) configuration.
const CMAC_PORTS: &[(&str, Dir, usize)] = &[
    ("gt_ref_clk_p", I, 1),
    ("gt_ref_clk_n", I, 1),
    ("gt_rxp_in", I, 4),
    ("gt_rxn_in", I, 4),
    ("gt_txp_out", O, 4),
    ("gt_txn_out", O, 4),
    ("init_clk", I, 1),
    ("sys_reset", I, 1),
    ("core_rx_reset", I, 1),
    ("core_tx_reset", I, 1),
    ("core_drp_reset", I, 1),
    ("drp_clk", I, 1),
    ("drp_addr", I, 10),
    ("drp_di", I, 16),
    ("drp_en", I, 1),
    ("drp_we", I, 1),
    ("gt_loopback_in", I, 12),
    ("gt_txusrclk2", O, 1),
    ("rx_clk", I, 1),
    ("rx_axis_tvalid", O, 1),
    ("rx_axis_tdata", O, 512),
    ("rx_axis_tlast", O, 1),
    ("rx_axis_tkeep", O, 64),
    ("tx_axis_tready", O, 1),
    ("tx_axis_tvalid", I, 1),
    ("tx_axis_tdata", I, 512),
    ("tx_axis_tlast", I, 1),
    ("tx_axis_tkeep", I, 64),
    ("tx_axis_tuser", I, 1),
    ("tx_preamblein", I, 56),
    ("ctl_rx_enable", I, 1),
    ("ctl_rx_force_resync", I, 1),
    ("ctl_rx_test_pattern", I, 1),
    ("ctl_tx_enable", I, 1),
    ("ctl_tx_send_idle", I, 1),
    ("ctl_tx_send_rfi", I, 1),
    ("ctl_tx_send_lfi", I, 1),
    ("ctl_tx_test_pattern", I, 1),
    ("stat_rx_aligned", O, 1),
];

/// CMAC of QSFP28 cage 0 (Ethernet): one IP per cage, since each names its GT quad.
pub const CMAC: VendorIp = VendorIp {
    module: "cmac_usplus_0",
    source: "AMD PG203 (UltraScale+ Integrated 100G Ethernet), port descriptions",
    ports: CMAC_PORTS,
};

/// CMAC of QSFP28 cage 1 (the ACP port).
pub const CMAC_ACP: VendorIp = VendorIp {
    module: "cmac_usplus_1",
    source: "AMD PG203 (UltraScale+ Integrated 100G Ethernet), port descriptions",
    ports: CMAC_PORTS,
};

/// AMD QDMA subsystem for PCI Express (PG302), generated as `qdma_0`: Gen3
/// x16, 512-bit AXI at 250 MHz, AXI-Lite master for BAR access, AXI slave
/// bridge for card-initiated host access.
pub const QDMA: VendorIp = VendorIp {
    module: "qdma_0",
    source: "AMD PG302 (QDMA Subsystem for PCI Express), port descriptions",
    ports: &[
        ("sys_clk", I, 1),
        ("sys_clk_gt", I, 1),
        ("sys_rst_n", I, 1),
        ("pci_exp_rxp", I, 16),
        ("pci_exp_rxn", I, 16),
        ("pci_exp_txp", O, 16),
        ("pci_exp_txn", O, 16),
        ("axi_aclk", O, 1),
        ("axi_aresetn", O, 1),
        ("user_lnk_up", O, 1),
        ("m_axil_awaddr", O, 32),
        ("m_axil_awvalid", O, 1),
        ("m_axil_awready", I, 1),
        ("m_axil_wdata", O, 32),
        ("m_axil_wvalid", O, 1),
        ("m_axil_wready", I, 1),
        ("m_axil_bresp", I, 2),
        ("m_axil_bvalid", I, 1),
        ("m_axil_bready", O, 1),
        ("m_axil_araddr", O, 32),
        ("m_axil_arvalid", O, 1),
        ("m_axil_arready", I, 1),
        ("m_axil_rdata", I, 32),
        ("m_axil_rresp", I, 2),
        ("m_axil_rvalid", I, 1),
        ("m_axil_rready", O, 1),
        ("s_axib_awid", I, 4),
        ("s_axib_awaddr", I, 64),
        ("s_axib_awlen", I, 8),
        ("s_axib_awsize", I, 3),
        ("s_axib_awburst", I, 2),
        ("s_axib_awvalid", I, 1),
        ("s_axib_awready", O, 1),
        ("s_axib_wdata", I, 512),
        ("s_axib_wstrb", I, 64),
        ("s_axib_wlast", I, 1),
        ("s_axib_wvalid", I, 1),
        ("s_axib_wready", O, 1),
        ("s_axib_bready", I, 1),
        ("s_axib_arid", I, 4),
        ("s_axib_araddr", I, 64),
        ("s_axib_arlen", I, 8),
        ("s_axib_arsize", I, 3),
        ("s_axib_arburst", I, 2),
        ("s_axib_arvalid", I, 1),
        ("s_axib_arready", O, 1),
        ("s_axib_rdata", O, 512),
        ("s_axib_rlast", O, 1),
        ("s_axib_rvalid", O, 1),
        ("s_axib_rready", I, 1),
    ],
};

/// UltraScale+ GT reference clock buffer (UG974, IBUFDS_GTE4).
pub const IBUFDS_GTE4: VendorIp = VendorIp {
    module: "IBUFDS_GTE4",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), IBUFDS_GTE4",
    ports: &[
        ("I", I, 1),
        ("IB", I, 1),
        ("CEB", I, 1),
        ("O", O, 1),
        ("ODIV2", O, 1),
    ],
};

/// UltraScale+ differential input buffer (UG974, IBUFDS).
pub const IBUFDS: VendorIp = VendorIp {
    module: "IBUFDS",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), IBUFDS",
    ports: &[("I", I, 1), ("IB", I, 1), ("O", O, 1)],
};

/// UltraScale+ global clock buffer (UG974, BUFG).
pub const BUFG: VendorIp = VendorIp {
    module: "BUFG",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), BUFG",
    ports: &[("I", I, 1), ("O", O, 1)],
};

/// Intel L-/H-Tile Avalon-MM+ IP for PCI Express, generated as `pcie_avmmp`
/// (Gen3 x16, 512-bit, 250 MHz): bursting master `bam_*` for BARs, bursting
/// slave `bas_*` for card-initiated host access.
pub const S10_PCIE: VendorIp = VendorIp {
    module: "pcie_avmmp",
    source:
        "Intel L- and H-tile Avalon Memory-mapped+ IP for PCI Express User Guide, interface signals",
    ports: &[
        ("refclk", I, 1),
        ("pin_perst", I, 1),
        ("npor", I, 1),
        ("rx_in", I, 16),
        ("tx_out", O, 16),
        ("coreclkout_hip", O, 1),
        ("app_nreset_status", O, 1),
        ("link_up_o", O, 1),
        ("bam_address_o", O, 32),
        ("bam_read_o", O, 1),
        ("bam_write_o", O, 1),
        ("bam_writedata_o", O, 512),
        ("bam_waitrequest_i", I, 1),
        ("bam_readdata_i", I, 512),
        ("bam_readdatavalid_i", I, 1),
        ("bas_address_i", I, 64),
        ("bas_byteenable_i", I, 64),
        ("bas_burstcount_i", I, 4),
        ("bas_read_i", I, 1),
        ("bas_write_i", I, 1),
        ("bas_writedata_i", I, 512),
        ("bas_waitrequest_o", O, 1),
        ("bas_readdata_o", O, 512),
        ("bas_readdatavalid_o", O, 1),
    ],
};

/// Intel E-tile Hard IP for Ethernet, 100GE MAC+PCS, generated as
/// `alt_ehipc2` (the name Ensō's design uses for it) with the Avalon-ST client interface.
pub const S10_ETH: VendorIp = VendorIp {
    module: "alt_ehipc2",
    source: "Intel E-tile Hard IP for Ethernet User Guide, interface signals",
    ports: &[
        ("i_clk_ref", I, 1),
        ("i_rx_serial", I, 4),
        ("o_tx_serial", O, 4),
        ("i_csr_rst_n", I, 1),
        ("i_tx_rst_n", I, 1),
        ("i_rx_rst_n", I, 1),
        ("i_reconfig_clk", I, 1),
        ("i_reconfig_reset", I, 1),
        ("o_clk_pll_div64", O, 1),
        ("i_clk_tx", I, 1),
        ("i_clk_rx", I, 1),
        ("o_rx_pcs_ready", O, 1),
        ("o_tx_lanes_stable", O, 1),
        // Avalon-ST client, 100GE, 512 bits (not the segmented MAC interface);
        // first byte on the wire in the most significant byte. Names and widths
        // as in the guide's RX and TX client tables (they agree with a generated
        // 100GE component declared in CESNET's ndk-core); confirm in the E-tile
        // user guide, with TX ready latency 0, on first use.
        ("o_rx_data", O, 512),
        ("o_rx_valid", O, 1),
        ("o_rx_startofpacket", O, 1),
        ("o_rx_endofpacket", O, 1),
        ("o_rx_empty", O, 6),
        ("o_rx_error", O, 6),
        ("i_tx_data", I, 512),
        ("i_tx_valid", I, 1),
        ("i_tx_startofpacket", I, 1),
        ("i_tx_endofpacket", I, 1),
        ("i_tx_empty", I, 6),
        ("i_tx_error", I, 1),
        ("i_tx_skip_crc", I, 1),
        ("o_tx_ready", O, 1),
    ],
};

/// Depth of the Ethernet RX crossing, log2 of beats (see `generate_board`).
pub const ETH_RX_FIFO_LOG2: usize = 9;
type EthRxFifo = AsyncFrameDropFifo<ETH_RX_FIFO_LOG2, { ETH_RX_FIFO_LOG2 + 1 }>;
/// Depth of the Ethernet TX crossing, log2 of beats: it holds a whole frame
/// (see `generate_board`).
pub const ETH_TX_FIFO_LOG2: usize = 8;
type EthTxFifo = AsyncFrameFifo<ETH_TX_FIFO_LOG2, { ETH_TX_FIFO_LOG2 + 1 }>;

/// Emits one rust-hdl block as Verilog with its root module named `root`.
fn emit_block<B: Block>(root: &str, mut block: B) -> Result<String, String> {
    block.connect_all();
    check_all(&block).map_err(|e| format!("{root}: rust-hdl design check failed: {e:?}"))?;
    let mut defines = ModuleDefines::default();
    block.accept(root, &mut defines);
    crate::tidy(&defines.defines())
}

/// A stub with the vendor block's ports, for lint only (never given to the vendor tool).
pub fn stub(ip: &VendorIp) -> String {
    let mut s = format!(
        "// Lint stub of {} from {}.\n// Outputs are tied low; the real block comes from the vendor's IP.\n",
        ip.module, ip.source
    );
    s += "/* verilator lint_off UNUSEDSIGNAL */\n";
    s += &format!("module {}(\n", ip.module);
    let decls: Vec<String> = ip
        .ports
        .iter()
        .map(|(n, d, w)| {
            let dir = if *d == Dir::Input {
                "input wire"
            } else {
                "output wire"
            };
            let range = if *w > 1 {
                format!("[{}:0] ", w - 1)
            } else {
                String::new()
            };
            format!("    {dir} {range}{n}")
        })
        .collect();
    s += &decls.join(",\n");
    s += "\n);\n";
    for (n, d, w) in ip.ports {
        if *d == Dir::Output {
            s += &format!("    assign {n} = {w}'b0;\n");
        }
    }
    s += "endmodule\n/* verilator lint_on UNUSEDSIGNAL */\n";
    s
}

/// Writes `.name(expr)` connections for every listed port of `ip`, in its order.
fn instance(ip: &VendorIp, inst: &str, conns: &[(String, String)]) -> Result<String, String> {
    for (p, _) in conns {
        if !ip.ports.iter().any(|(n, _, _)| n == p) {
            return Err(format!("{}: no port {p} in its documented list", ip.module));
        }
    }
    // Every input must be driven; outputs the top does not use are left off the instance.
    let mut lines = Vec::new();
    for (n, d, _) in ip.ports {
        match conns.iter().find(|(p, e)| p == n && !e.is_empty()) {
            Some((_, e)) => lines.push(format!("        .{n}({e})")),
            None if *d == Dir::Input => {
                return Err(format!(
                    "{}: input {n} of instance {inst} is not driven",
                    ip.module
                ))
            }
            None => {}
        }
    }
    Ok(format!(
        "    {} {inst} (\n{}\n    );\n",
        ip.module,
        lines.join(",\n")
    ))
}

fn c(p: &str, e: &str) -> (String, String) {
    (p.to_string(), e.to_string())
}

/// Everything written for a board, beside the core's own files.
pub struct BoardFiles {
    pub top_verilog: String,
    pub stubs: String,
    pub ports: Vec<TopPort>,
}

fn ports_of(verilog: &str, top: &str) -> Result<Vec<TopPort>, String> {
    let start = verilog
        .find(&format!("module {top}("))
        .ok_or("board top not found")?;
    let body = &verilog[start..];
    let end = body.find(");").ok_or("board top has no port list end")?;
    let mut out = Vec::new();
    for line in body[..end].lines() {
        let line = line.trim().trim_end_matches(',');
        let (dir, rest) = if let Some(r) = line.strip_prefix("input wire") {
            (Dir::Input, r)
        } else if let Some(r) = line.strip_prefix("output wire") {
            (Dir::Output, r)
        } else {
            continue;
        };
        let rest = rest.trim();
        let (width, name) = match rest.strip_prefix('[') {
            Some(r) => {
                let (range, name) = r.split_once(']').ok_or("bad range")?;
                let msb: usize = range
                    .split(':')
                    .next()
                    .unwrap()
                    .trim()
                    .parse()
                    .map_err(|_| "bad msb")?;
                (msb + 1, name.trim())
            }
            None => (1, rest),
        };
        out.push(TopPort {
            name: name.to_string(),
            dir,
            width,
        });
    }
    Ok(out)
}

/// Generates the top, the adapters and the lint stubs of `board`.
pub fn generate_board(board: &Board) -> Result<BoardFiles, String> {
    let mut v = format!(
        "// Generated by pendulum-rtl-gen for {}. Do not edit.\n// Board top {}: the NIC core (pendulum_nic.v), adapters and CDC FIFOs\n// (below, from hdl/src/boards and hdl/src/stream/async_*fifo.rs, and rust-hdl's\n// BitSynchronizer) and vendor blocks.\n`default_nettype none\n",
        board.target, board.top
    );
    // 577 bits = {tlast, tkeep[63:0], tdata[511:0]} (EthBeat's packing). RX
    // cannot hold the MAC back, so it passes whole frames or drops them whole
    // (AsyncFrameDropFifo), and is deep (512 beats, block RAM) to ride out the
    // core's stalls. A frame longer than the FIFO could never pass: it must
    // hold the core's largest frame (MAX_FRAME_BYTES, 152 beats); a longer
    // one, which the core would drop anyway, is dropped and counted here.
    assert!(
        (MAX_FRAME_BYTES as usize).div_ceil(64) <= EthRxFifo::DEPTH_BEATS,
        "the Ethernet RX crossing must hold the largest frame"
    );
    v += &emit_block("pendulum_cdc_rx", EthRxFifo::new())?;
    // TX holds each frame until its last beat is in, so the MAC, on a faster
    // clock than the core, never sees a gap inside a frame: it must hold the
    // core's largest frame (MAX_FRAME_BYTES, 9,728 bytes = 152 beats; a
    // 9,600-byte jumbo is 150), so 2^ETH_TX_FIFO_LOG2 = 256 beats, block RAM.
    assert!(
        (MAX_FRAME_BYTES as usize).div_ceil(64) <= EthTxFifo::DEPTH_BEATS,
        "the Ethernet TX crossing must hold the largest frame"
    );
    v += &emit_block("pendulum_cdc_tx", EthTxFifo::new())?;
    // A level into a clock domain, two flip-flops: the resets (both tops) and
    // CMAC 1's stat_rx_aligned (Alveo).
    v += &emit_block("pendulum_sync_bit", BitSynchronizer::default())?;
    let stubs = match board.vendor {
        Vendor::Amd => {
            v += &emit_block("pendulum_axil_mmio", AxiLiteMmio::new())?;
            v += &emit_block("pendulum_axi_dma", AxiDmaBridge::new())?;
            // The ACP port's crossings (CMAC 1 <-> core): the same AsyncStreamFifo
            // as the Ethernet port's, 512 bits wide since a record is one whole
            // beat (tkeep and tlast are checked before RX and constant after TX).
            // RX: the core takes a record every cycle, so the FIFO only absorbs
            // the clock ratio: 32 words. TX: the core keeps the FIFO full (it
            // always has a record for the next slot), so every word in it is a
            // record's wait before the wire, which the link's round trip pays:
            // 8 words, enough for CMAC 1's line rate (one 64-byte frame per
            // 7.04 ns, 88 bytes on the wire with FCS, preamble and gap) over the
            // FIFO's pointer round trip of about 3 cycles of each clock.
            v += &emit_block(
                "pendulum_cdc_acp_rx",
                AsyncStreamFifo::<Bits<512>, 5, 6>::new(),
            )?;
            v += &emit_block(
                "pendulum_cdc_acp_tx",
                AsyncStreamFifo::<Bits<512>, 3, 4>::new(),
            )?;
            v += &alveo_top(board)?;
            [
                stub(&CMAC),
                stub(&CMAC_ACP),
                stub(&QDMA),
                stub(&IBUFDS_GTE4),
                stub(&IBUFDS),
                stub(&BUFG),
            ]
            .join("\n")
        }
        Vendor::Intel => {
            v += &emit_block("pendulum_avmm_mmio", AvalonMmio::new())?;
            v += &emit_block("pendulum_avmm_dma", AvalonDmaBridge::new())?;
            v += &emit_block("pendulum_avst_eth_rx", AvalonStEthRx::new())?;
            v += &emit_block("pendulum_avst_eth_tx", AvalonStEthTx::new())?;
            v += &s10_top(board)?;
            [stub(&S10_PCIE), stub(&S10_ETH)].join("\n")
        }
    };
    v += "`default_nettype wire\n";
    let ports = ports_of(&v, board.top)?;
    Ok(BoardFiles {
        top_verilog: v,
        stubs: format!("`default_nettype none\n{stubs}`default_nettype wire\n"),
        ports,
    })
}

/// Lint configuration for a board top: the core's waivers apply to the
/// rust-hdl modules in the top's file too.
pub fn lint_waivers(board: &Board) -> String {
    format!(
        "{}// The adapters and FIFOs share the board top's generated file.\nlint_off -rule DECLFILENAME -file \"*/{top}.v\"\nlint_off -rule DECLFILENAME -file \"*/vendor_stubs.v\"\n// A DMA read is 1 to 512 bytes (the core's contract), so a burst is at most\n// 8 beats and the high bits of the rounded-up beat count are always zero.\nlint_off -rule UNUSEDSIGNAL -file \"*/{top}.v\" -match \"*beats*\"\n",
        crate::LINT_WAIVERS,
        top = board.top
    )
}

/// The core's ports and the CDC FIFOs between the core and one MAC, shared by all tops.
const CORE_WIRES: &str = r#"
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
fn reset_sync(source: &str) -> String {
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
const CDC: &str = r#"
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

fn alveo_top(board: &Board) -> Result<String, String> {
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

fn s10_top(board: &Board) -> Result<String, String> {
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

/// Writes the board's files into `dir` (beside the core's `pendulum_nic.v`).
pub fn write_board(board: &Board, dir: &Path) -> Result<BoardFiles, String> {
    let files = generate_board(board)?;
    let w = |name: &str, text: &str| {
        crate::write_if_changed(&dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    w(&format!("{}.v", board.top), &files.top_verilog)?;
    w("vendor_stubs.v", &files.stubs)?;
    w("board_lint.vlt", &lint_waivers(board))?;
    let json = serde_json::json!({
        "target": board.target,
        "top": board.top,
        "part": board.part,
        "vendor": format!("{:?}", board.vendor),
        "verilog": ["pendulum_nic.v", format!("{}.v", board.top)],
        "lint_only": ["vendor_stubs.v"],
        "constraints": format!("constraints/{}", board.constraints),
        "ports": files.ports,
    });
    w(
        "board.json",
        &(serde_json::to_string_pretty(&json).unwrap() + "\n"),
    )?;
    Ok(files)
}
