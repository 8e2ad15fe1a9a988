//! Board tops: the NIC core, the adapters of `pendulum_hdl::boards`, the
//! clock-domain-crossing FIFOs, and the vendor's blocks, instantiated by the
//! names their documents give and left as black boxes.
//!
//! Everything with logic is a rust-hdl block, emitted here under its own
//! root name (`pendulum_cdc_rx`, `pendulum_axil_mmio`, …); the top itself is
//! structural Verilog written in `alveo.rs` and `stratix10.rs`: instances
//! and wires only. Each vendor block's ports are listed once, in
//! [`VendorIp`], and give both the instance and the lint stub, so the two
//! cannot disagree.
//!
//! This file holds the boards, [`generate_board`] and [`write_board`];
//! `vendor_ip.rs` the vendor blocks' port lists, `core_wiring.rs` the text
//! every top shares, and `alveo.rs` and `stratix10.rs` the two tops.

mod alveo;
mod core_wiring;
mod stratix10;
mod vendor_ip;

pub use vendor_ip::{
    stub, VendorIp, BUFG, CMAC, CMAC_ACP, IBUFDS, IBUFDS_GTE4, QDMA, S10_ETH, S10_PCIE,
};

use crate::Dir;
use alveo::alveo_top;
use pendulum_hdl::boards::{
    AvalonDmaBridge, AvalonMmio, AvalonStEthRx, AvalonStEthTx, AxiDmaBridge, AxiLiteMmio,
};
use pendulum_hdl::stream::{AsyncFrameDropFifo, AsyncFrameFifo, AsyncStreamFifo};
use pendulum_layout::params::MAX_FRAME_BYTES;
use rust_hdl::prelude::*;
use serde::Serialize;
use std::path::Path;
use stratix10::s10_top;

/// One port of a board top: its name, direction and width.
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
