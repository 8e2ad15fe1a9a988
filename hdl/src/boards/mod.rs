//! What a board top puts between the NIC core and the vendor blocks: thin
//! adapters from the vendor's bus to the core's ports, one block per file.
//! The tops themselves (vendor IP instances, pins, clocks) are written by
//! `rtl-gen` (`rtl-gen/src/boards/`), which instantiates these blocks by name.
//!
//! - [`AxiLiteMmio`]: BAR register access from AMD QDMA's AXI-Lite master.
//! - [`AxiDmaBridge`]: the core's DMA writes and reads onto QDMA's AXI slave bridge.
//! - [`AvalonMmio`]: BAR register access from Intel's Avalon-MM+ bursting master.
//! - [`AvalonDmaBridge`]: the core's DMA writes and reads onto Intel's Avalon-MM+ bursting slave.
//! - [`AvalonStEthRx`], [`AvalonStEthTx`]: Ethernet frames between Intel's E-tile
//!   MAC (Avalon-ST, first byte most significant) and the core's AXI-Stream shape.
//! - [`Replicate`]: a 32-bit word copied across a wide bus (wiring).
//! - [`ByteReverse`]: the bytes of a bus in reverse order (wiring).
//!
//! The clock-domain crossings use [`crate::stream::AsyncStreamFifo`], and
//! [`crate::stream::AsyncFrameFifo`] towards a MAC that must get whole frames.

mod avalon_dma;
mod avalon_mmio;
mod avalon_st_eth_rx;
mod avalon_st_eth_tx;
mod axi_dma;
mod axil_mmio;
mod byte_reverse;
mod replicate;

pub use avalon_dma::AvalonDmaBridge;
pub use avalon_mmio::AvalonMmio;
pub use avalon_st_eth_rx::AvalonStEthRx;
pub use avalon_st_eth_tx::AvalonStEthTx;
pub use axi_dma::AxiDmaBridge;
pub use axil_mmio::AxiLiteMmio;
pub use byte_reverse::ByteReverse;
pub use replicate::Replicate;
