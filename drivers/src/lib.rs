//! Userspace driver for the Pendulum NIC.
//!
//! Everything goes through a [`Card`]: register access and DMA-able memory.
//! The simulated card (in `pendulum-testbench`) and a PCIe card implement it,
//! so an application is written once. This crate knows nothing of rust-hdl or
//! Verilator; it takes every offset and layout from `pendulum-layout`.

#![forbid(unsafe_code)]

mod card;
mod device;
mod error;
mod pipe;
mod tx;

pub use card::{Card, DmaRegion, RegionKind};
pub use device::{Counters, Device};
pub use error::{Error, Result};
pub use pipe::{RxBatch, RxPipe};
pub use tx::TxPipe;
pub use pendulum_layout as layout;
