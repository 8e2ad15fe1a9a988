//! What a board top puts between the NIC core and the vendor blocks: thin
//! adapters from the vendor's bus to the core's ports, one block per file.
//! The tops themselves (vendor IP instances, pins, clocks) are written by
//! `rtl-gen` (`rtl-gen/src/boards.rs`), which instantiates these blocks by name.
//!
//! - [`AxiLiteMmio`]: BAR register access from AMD QDMA's AXI-Lite master.
//! - [`AxiDmaBridge`]: the core's DMA writes and reads onto QDMA's AXI slave bridge.
//! - [`AvalonMmio`]: BAR register access from Intel's Avalon-MM+ bursting master.
//! - [`AvalonDmaBridge`]: the core's DMA writes and reads onto Intel's Avalon-MM+ bursting slave.
//! - [`Replicate`]: a 32-bit word copied across a wide bus (wiring).
//!
//! The clock-domain crossings use [`crate::stream::AsyncStreamFifo`].

mod avalon_dma;
mod avalon_mmio;
mod axi_dma;
mod axil_mmio;
mod replicate;

pub use avalon_dma::AvalonDmaBridge;
pub use avalon_mmio::AvalonMmio;
pub use axi_dma::AxiDmaBridge;
pub use axil_mmio::AxiLiteMmio;
pub use replicate::Replicate;
