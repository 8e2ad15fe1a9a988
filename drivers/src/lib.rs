//! Userspace driver for the Pendulum NIC.
//!
//! Everything goes through a [`Card`]: register access and DMA-able memory.
//! The simulated card (in `pendulum-testbench`) and a PCIe card implement it,
//! so an application is written once. This crate knows nothing of rust-hdl or
//! Verilator; it takes every offset and layout from `pendulum-layout`.
//!
//! [`open`] picks the card from one string: `0000:03:00.0` or `pci:VENDOR:DEVICE`
//! for a PCIe card ([`PciCard`]), `sim:/path/to/socket` for the simulator
//! process ([`SimClientCard`]).
//!
//! Simulated cards also implement [`EthernetPort`]: frames injected into
//! the card's Ethernet RX and collected from its TX with the same calls on
//! every simulated card, so a test that feeds traffic runs unchanged on each.
//!
//! [`Device::split`] gives each core its own [`CoreHandle`]: its own
//! notification buffer, RX and TX pipes and flows, usable from its own
//! thread.

// Only `sys` (memory mappings and VFIO ioctls), `dma` (loads from memory
// the card writes) and one function of the RX batch (`pipe/batch.rs`, which
// hands out announced frames without copying) may use `unsafe`, and every
// unsafe block says why it is sound.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod atomics;
mod card;
mod core_handle;
mod device;
#[allow(unsafe_code)]
mod dma;
mod dropped;
mod entry;
mod error;
mod flow;
mod link;
#[cfg(feature = "test-utils")]
pub mod mock;
mod notif;
mod open;
mod pci;
mod pipe;
mod random;
mod sim_client;
pub mod sim_proto;
#[allow(unsafe_code)]
mod sys;
mod traffic;
mod tx;

pub use atomics::{commit_words, Atomics};
pub use card::{Card, DmaRegion, RegionKind};
pub use core_handle::CoreHandle;
pub use device::{Counters, Device, POLLS_PER_RESET_CHECK};
pub use dma::{DmaView, DmaViewMut};
pub use error::{Error, Reservation, Result, SteeringConflict};
pub use link::{Link, LinkCounters, LinkMsg, LinkState, MsgKind};
pub use open::{open, AnyCard};
pub use pci::{find_device, physical_address, HostPaths, PciCard, PciSelector};
pub use pendulum_layout as layout;
pub use pendulum_layout::flow::FlowKey;
pub use pendulum_layout::ring::EntryHeader;
pub use pipe::{RxBatch, RxFrame, RxFrames, RxPipe};
pub use sim_client::SimClientCard;
pub use traffic::EthernetPort;
pub use tx::{TxPipe, TxStamp};
