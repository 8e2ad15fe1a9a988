//! Behavioural models of everything around the NIC: host memory, the PCIe
//! link that carries DMA and register traffic, and the Ethernet MAC that
//! feeds received frames in and takes sent frames out.
//!
//! The models are deterministic (seeded) so a failing simulation can be
//! replayed cycle for cycle.

pub mod acp_link;
pub mod ethernet;
pub mod gobackn;
pub mod host_mem;
pub mod pcie;

pub use acp_link::{
    select_all, select_opcode, set_byte, set_bytes, xor_byte, xor_byte_random, xor_bytes,
    xor_bytes_random, xor_crc32c_codeword, AcpLinkModel, Injected, LinkFaults, LinkOutput,
    LinkStats, ReplayAfterCut, Side, WireEntry, REPLAY_DEPTH,
};
pub use ethernet::{
    beats_of, flow_frame, ipv4_udp_frame, pad_to_min, set_l4_checksum, Beat, EthSink, EthSource,
    FrameGen, Pacing,
};
pub use gobackn::{percentile, GbnConfig, GbnReport, GoBackN, OnFailure};
pub use host_mem::{HostMemory, MemError, RegionId, RegionKind};
pub use pcie::{CplBeat, MmioOp, PcieConfig, PcieCounters, PcieModel};
