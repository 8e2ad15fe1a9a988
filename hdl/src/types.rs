//! Payloads carried on the NIC's streams, packed by rust-hdl's `LogicStruct`.

use rust_hdl::prelude::*;

/// One 64-byte beat of an Ethernet frame (AXI-Stream tdata/tkeep/tlast).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct EthBeat {
    /// Byte k of the beat is bits 8k+7..8k.
    pub data: Bits<512>,
    /// Byte k present; contiguous from byte 0, all ones except on the last beat.
    pub keep: Bits<64>,
    pub last: Bit,
}

/// A posted DMA write of up to 64 bytes into host memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct DmaWrite {
    /// Bus address of byte 0 of `data`; 64-byte aligned for ring writes.
    pub addr: Bits<64>,
    pub data: Bits<512>,
    /// Byte enables: byte k written when bit k is set.
    pub strb: Bits<64>,
}

/// A 32-bit register write from the host (BAR offset, data).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct MmioWrite {
    pub addr: Bits<24>,
    pub data: Bits<32>,
}
