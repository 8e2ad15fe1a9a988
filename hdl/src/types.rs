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

/// One beat of a posted DMA write into host memory. Consecutive beats up to
/// one with `last` form one write (one PCIe TLP): each beat covers the 64
/// bytes after the previous one, and a write never crosses a 256-byte
/// boundary (the maximum payload), so the board adapter maps it 1:1.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct DmaWrite {
    /// Bus address of byte 0 of `data`; 64-byte aligned for ring writes.
    pub addr: Bits<64>,
    pub data: Bits<512>,
    /// Byte enables: byte k written when bit k is set.
    pub strb: Bits<64>,
    /// The last beat of this write.
    pub last: Bit,
}

/// A 32-bit register write from the host (BAR offset, data).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct MmioWrite {
    pub addr: Bits<24>,
    pub data: Bits<32>,
}

/// A DMA read request: `len` bytes (a multiple of 64, at most 512) at `addr`,
/// never across a 4 KiB boundary (`DMA_BOUNDARY_BYTES`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct DmaReadReq {
    pub addr: Bits<64>,
    pub len: Bits<16>,
    pub tag: Bits<8>,
}

/// One 64-byte beat of a read completion. Completions come back in request
/// order (the board adapter reorders by tag if its PCIe block does not), so
/// the tag is not carried; `last` marks the final beat of a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct CplBeat {
    pub data: Bits<512>,
    pub last: Bit,
}

/// A beat on its way to an RX ring: an Ethernet frame's (or an on-card
/// source's entry), with what the RX front end learned about its frame
/// (meaningful on the first beat, `sop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RxBeat {
    pub data: Bits<512>,
    /// The 16-byte units of `data` that hold the frame's bytes, from unit 0:
    /// 4 except on a last beat (1 to 4).
    pub beat_units: Bits<4>,
    pub last: Bit,
    /// First beat of a frame.
    pub sop: Bit,
    /// The frame's pipe (first beat).
    pub pipe: Bits<{ pendulum_layout::params::PIPE_BITS }>,
    /// The frame's ring entry (`pendulum_layout::ring`), first beat: its
    /// units (`entry_units(len)`), and its header's fields as far as the
    /// stages so far have filled them in: LEN (0: the frame was cut for being
    /// over the MTU, and is dropped), FLAGS, HASH and TIMESTAMP.
    pub units: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub len: Bits<16>,
    pub flags: Bits<16>,
    pub hash: Bits<32>,
    pub stamp: Bits<64>,
}

/// One 64-byte slot of a message that may span several slots: an atomic
/// verb (a commit is three slots: header, compare line, write line) or an
/// atomic result (a commit's is two). `first` marks the slot that starts one,
/// `last` the slot that ends it; a one-slot message has both.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct SlotBeat {
    pub data: Bits<512>,
    pub first: Bit,
    pub last: Bit,
}

/// A payload entering the ACP link from a host's TX pipe: a message for the
/// peer's host, or (`verb`) an atomic verb for the peer's atomic unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct AcpSend {
    pub payload: Bits<448>,
    pub verb: Bit,
}

/// A remote verb the link hands the atomic unit: executed tentatively for
/// `channel`, its result returned to the link for the ECHO record.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RemoteVerb {
    pub payload: Bits<448>,
    pub channel: Bits<{ pendulum_layout::params::ACP_CHANNEL_BITS }>,
}

/// A remote verb's result, back from the atomic unit: the first 48 bytes of
/// its result slot, for the ECHO record of `channel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RemoteResult {
    pub result: Bits<384>,
    pub channel: Bits<{ pendulum_layout::params::ACP_CHANNEL_BITS }>,
}

/// A message leaving the ACP link for the host: delivered by the peer, or one
/// of ours handed back (`pendulum_layout::acp::message` kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct AcpMsg {
    pub kind: Bits<8>,
    pub channel: Bits<8>,
    pub payload: Bits<448>,
}

/// What the RX datapath reports about one pipe in one cycle (the RX engine's
/// `ev_*` outputs, carried as one word): a frame published (its bytes and
/// the pipe's new tail), a frame dropped (ring full, malformed, pipe off), or
/// a restart applied (tail 0, with this ring size and on/off).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RxEvent {
    pub pipe: Bits<{ pendulum_layout::params::PIPE_BITS }>,
    pub frame: Bit,
    pub bytes: Bits<16>,
    pub tail: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub full: Bit,
    pub malformed: Bit,
    pub off: Bit,
    pub restart: Bit,
    pub mask: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub enable: Bit,
}

/// One item into the ring packer (`enso::RingPacker`): a beat of a ring
/// entry's frame, or events alone (`units` 0, not `sop`). Ring positions
/// count 16-byte units (`pendulum_layout::ring`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct PackItem {
    pub data: Bits<512>,
    /// The 16-byte units of `data` that belong to the frame, from unit 0:
    /// 4 except on a last beat; 0 for an item with only events.
    pub units: Bits<4>,
    /// First beat of an entry: `header`, `base`, `line_mask` and `start` hold.
    pub sop: Bit,
    /// Last beat of an entry's frame.
    pub last: Bit,
    /// The entry's header unit, written in front of the frame.
    pub header: Bits<128>,
    /// The ring: bus address of unit 0, and its size in 64-byte lines
    /// minus one (its size in units, over four, minus one).
    pub base: Bits<64>,
    pub line_mask: Bits<{ pendulum_layout::params::SLOT_BITS - 2 }>,
    /// The entry's first unit (its header's).
    pub start: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    /// First beat: the entry starts where the last published entry given
    /// to the packer ended, in the same ring (same pipe, no restart since).
    /// The producer's promise; the packer then continues that entry's line.
    pub cont: Bit,
    /// The events that go with this item. A last beat with `ev.frame` ends a
    /// published entry; a last beat without it ends an abandoned one (its
    /// pipe restarted, or it was malformed), which need not be written.
    pub ev: RxEvent,
}

/// An Ethernet beat with its frame's length in bytes (`len`, the same on
/// every beat of the frame), from a store-and-forward FIFO that counted
/// them (`stream::SizedFrameFifo`); 0 marks a frame cut short for being
/// over the MTU. `stamp` is the same on every beat too.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct SizedBeat {
    pub data: Bits<512>,
    pub keep: Bits<64>,
    pub last: Bit,
    pub len: Bits<16>,
    /// The cycle counter's value when the frame's first beat went in.
    pub stamp: Bits<64>,
    /// The frame's bytes from byte 12 on as little-endian 16-bit words,
    /// summed, carries not folded (`stream::FrameSum`).
    pub sum: Bits<32>,
}

/// What a store-and-forward FIFO knows of a frame once its last beat is in
/// (`stream::SizedFrameFifo`): its length (0: cut), its first beat's stamp
/// and the sum of its bytes (`stream::FrameSum`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct FrameTag {
    pub len: Bits<16>,
    pub stamp: Bits<64>,
    pub sum: Bits<32>,
}

/// What the ring unpacker (`enso::RingUnpacker`) must know about each DMA
/// read of a TX ring in the v2 format (`pendulum_layout::ring`). Reads are
/// whole 64-byte lines; positions count 16-byte units.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct TxReadInfo {
    /// The TX pipe.
    pub pipe: Bits<{ pendulum_layout::params::TX_PIPE_BITS }>,
    /// The read starts a run: its first line holds unit `unit`, where the
    /// run's first entry starts, and the run is `run_units` long (to the
    /// tail software rang). A read that does not start a run continues the
    /// one before it, line after line (the fields below are then unused).
    pub run_start: Bit,
    pub unit: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub run_units: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    /// The read is its run's last: its last line is the run's (where its
    /// tail is). Clear on every read of a run the fetcher stopped early.
    pub run_end: Bit,
    /// The ring's size in units, minus one.
    pub mask: Bits<{ pendulum_layout::params::SLOT_BITS }>,
}

/// One beat to the MAC, with what a TX stamp needs (`enso::TxStampWriter`):
/// on a frame's first beat, whether the frame asks for a stamp on a pipe
/// with stamps on, and which entry of which pipe it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct TxEthBeat {
    /// As in [`EthBeat`].
    pub data: Bits<512>,
    pub keep: Bits<64>,
    pub last: Bit,
    /// A first beat whose frame is to be stamped as it leaves.
    pub stamp: Bit,
    pub pipe: Bits<{ pendulum_layout::params::TX_PIPE_BITS }>,
    /// The entry's first unit, and its LEN.
    pub entry: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub len: Bits<16>,
}

/// A frame's first beat left for the MAC asking for a stamp: the stamp
/// writer's input.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct TxStampEvent {
    pub pipe: Bits<{ pendulum_layout::params::TX_PIPE_BITS }>,
    pub entry: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub len: Bits<16>,
    /// CYCLES in the cycle the beat left.
    pub cycles: Bits<64>,
}

/// One beat out of the ring unpacker: a TX ring entry's frame, realigned so
/// that its byte 0 is the beat's byte 0, with the entry's length and place.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct TxEntryBeat {
    pub data: Bits<512>,
    /// Byte k present: all ones except on a frame's last beat.
    pub keep: Bits<64>,
    /// First beat of an entry (`len`, `start` and `end` hold on every beat
    /// of it).
    pub sop: Bit,
    pub last: Bit,
    /// The entry cannot be sent: its length is 0 or over the MTU, or it runs
    /// past the run's tail. One beat (`sop` and `last`) stands for it; the
    /// unpacker skips its units itself.
    pub bad: Bit,
    /// The run ended inside this entry's frame (its pipe restarted while
    /// the frame was read): the frame is cut short here, on a `last` beat.
    pub abort: Bit,
    /// The entry's LEN.
    pub len: Bits<16>,
    /// On a first beat: the header's FLAGS asks for a TX stamp
    /// (`pendulum_layout::ring::tx_flags::STAMP`; the header's other fields
    /// are software's own on TX). 0 on later beats.
    pub stamp: Bit,
    pub pipe: Bits<{ pendulum_layout::params::TX_PIPE_BITS }>,
    /// The entry's first unit, and the unit after it (the next entry's, or
    /// the run's tail for an entry that ran past it): the pipe's head moves
    /// there once the entry is done.
    pub start: Bits<{ pendulum_layout::params::SLOT_BITS }>,
    pub end: Bits<{ pendulum_layout::params::SLOT_BITS }>,
}
