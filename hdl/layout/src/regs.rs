//! The MMIO register map: a global page at offset 0 and one 4 KiB page per
//! pipe after it, so one pipe's page can be handed to one process alone.
//! All registers are 32 bits wide; 64-bit values are a LO/HI pair, and reading
//! a counter's LO half latches its HI half so the pair reads consistently.

/// Who may write a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only: a write is refused and counted ([`RegError::ReadOnly`]).
    Ro,
    /// Read-write.
    Rw,
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    pub name: &'static str,
    /// Byte offset inside its page.
    pub offset: u32,
    pub access: Access,
    pub doc: &'static str,
}

const fn ro(name: &'static str, offset: u32, doc: &'static str) -> Reg {
    Reg {
        name,
        offset,
        access: Access::Ro,
        doc,
    }
}
const fn rw(name: &'static str, offset: u32, doc: &'static str) -> Reg {
    Reg {
        name,
        offset,
        access: Access::Rw,
        doc,
    }
}

/// Size of a register page.
pub const PAGE_BYTES: u32 = 4096;
/// log2 of [`PAGE_BYTES`].
pub const PAGE_BYTES_LOG2: u32 = 12;

/// Byte offset of pipe `p`'s page in the BAR.
pub const fn pipe_page(p: usize) -> u32 {
    (p as u32 + 1) * PAGE_BYTES
}

/// Registers of the global page (page 0).
pub mod global {
    use super::*;
    pub const IDENTITY: Reg = ro("IDENTITY", 0x000, "block type: \"PNDL\" (0x4C444E50)");
    pub const VERSION: Reg = ro("VERSION", 0x004, "major << 16 | minor");
    pub const NEXT: Reg = ro("NEXT", 0x008, "offset of the next register block; 0 = none");
    pub const CAP_PIPES: Reg = ro("CAP_PIPES", 0x00C, "number of RX pipes");
    pub const CAP_NOTIF_BUFS: Reg = ro("CAP_NOTIF_BUFS", 0x010, "number of notification buffers");
    pub const CAP_LINK_CHANNELS: Reg = ro(
        "CAP_LINK_CHANNELS",
        0x014,
        "ACP token channels (0: no link yet)",
    );
    pub const CAP_ATOMIC_BYTES: Reg = ro(
        "CAP_ATOMIC_BYTES",
        0x018,
        "on-NIC atomic memory (0: no atomic unit yet)",
    );
    pub const CAP_MAX_FRAME: Reg = ro("CAP_MAX_FRAME", 0x01C, "largest frame accepted, bytes");
    pub const CTRL: Reg = rw(
        "CTRL",
        0x020,
        "bit 0: notify after every frame (per-packet baseline) instead of reactively",
    );
    pub const SCRATCH: Reg = rw("SCRATCH", 0x024, "free for software; resets to 0");
    pub const REG_ERRORS: Reg = ro("REG_ERRORS", 0x028, "register writes refused since reset");
    pub const LAST_REG_ERROR: Reg = ro(
        "LAST_REG_ERROR",
        0x02C,
        "cause << 24 | byte address of the last refused write",
    );
    pub const CAP_TX_PIPES: Reg = ro(
        "CAP_TX_PIPES",
        0x030,
        "number of TX pipes: pipes 0..CAP_TX_PIPES have TX registers",
    );
    pub const RX_OVERFLOW_DROPS: Reg = ro("RX_OVERFLOW_DROPS", 0x034, "frames dropped whole at the board's MAC-to-core clock crossing: the MAC cannot be held back, and the frame found its FIFO full (32-bit, wraps; 0 without a board top)");
    pub const SESSION: Reg = rw("SESSION", 0x038, "the token of the driver that opened the card (software writes any non-zero value); resets to 0, so a driver that reads back anything else knows the card was reset under it");
    /// 64-bit counters, LO at the offset and HI at offset + 4.
    pub const RX_FRAMES: Reg = ro("RX_FRAMES", 0x040, "frames written to a ring (64-bit)");
    pub const RX_BYTES: Reg = ro("RX_BYTES", 0x048, "bytes of those frames (64-bit)");
    pub const DROP_RING_FULL: Reg = ro(
        "DROP_RING_FULL",
        0x050,
        "frames dropped: ring had no room (64-bit)",
    );
    pub const DROP_MALFORMED: Reg = ro(
        "DROP_MALFORMED",
        0x058,
        "frames dropped: length unknown, over MTU, or not as the header says (64-bit)",
    );
    pub const DROP_PIPE_OFF: Reg = ro(
        "DROP_PIPE_OFF",
        0x060,
        "frames dropped: their pipe is not enabled (64-bit)",
    );
    pub const NOTIFICATIONS: Reg = ro("NOTIFICATIONS", 0x068, "notifications written (64-bit)");
    pub const TX_FRAMES: Reg = ro(
        "TX_FRAMES",
        0x070,
        "frames sent on the Ethernet TX port (64-bit)",
    );
    pub const TX_BYTES: Reg = ro("TX_BYTES", 0x078, "bytes of those frames (64-bit)");
    pub const TX_DROP_MALFORMED: Reg = ro("TX_DROP_MALFORMED", 0x080, "TX data dropped: a frame with no length, over the MTU, or running past the posted tail (64-bit)");
    pub const TX_COMPLETIONS: Reg = ro(
        "TX_COMPLETIONS",
        0x088,
        "TX completion records written (64-bit)",
    );
    pub const LINK_RECORDS: Reg = ro(
        "LINK_RECORDS",
        0x090,
        "ACP records heard (check passed, known opcode and channel) (64-bit)",
    );
    pub const LINK_BAD_CHECK: Reg = ro(
        "LINK_BAD_CHECK",
        0x098,
        "ACP records not heard: check word wrong (64-bit)",
    );
    pub const LINK_BAD_RECORD: Reg = ro(
        "LINK_BAD_RECORD",
        0x0A0,
        "ACP records ignored: unknown opcode or channel (64-bit)",
    );
    pub const LINK_COMMITS: Reg = ro(
        "LINK_COMMITS",
        0x0A8,
        "our transfers decided COMMIT (64-bit)",
    );
    pub const LINK_DELIVERED: Reg = ro(
        "LINK_DELIVERED",
        0x0B0,
        "the peer's transfers delivered to LINK_RX_PIPE (64-bit)",
    );
    pub const LINK_REJECTS: Reg = ro("LINK_REJECTS", 0x0B8, "our offers refused by the peer: no room, or (a verb) its line held by another tentative verb (64-bit)");
    pub const LINK_REVERSALS: Reg = ro(
        "LINK_REVERSALS",
        0x0C0,
        "our transfers reversed: the peer's echo differed (64-bit)",
    );
    pub const LINK_FAILURES: Reg = ro(
        "LINK_FAILURES",
        0x0C8,
        "link failures detected: loss of signal or undecodable records in a row (64-bit)",
    );
    pub const LINK_ENTANGLES: Reg = ro("LINK_ENTANGLES", 0x0D0, "entanglements completed (64-bit)");
    pub const LINK_RETURNED: Reg = ro(
        "LINK_RETURNED",
        0x0D8,
        "our messages handed back as not delivered or in doubt (64-bit)",
    );
    pub const ATOMIC_VERBS: Reg = ro(
        "ATOMIC_VERBS",
        0x0E0,
        "atomic verbs executed or refused, each with a result (64-bit)",
    );
    pub const ATOMIC_ERRORS: Reg = ro(
        "ATOMIC_ERRORS",
        0x0E8,
        "atomic verbs refused: bad opcode, misaligned or out of range (64-bit)",
    );
    pub const FLOW_HITS: Reg = ro(
        "FLOW_HITS",
        0x0F0,
        "IP frames steered by an exact-match table entry (64-bit)",
    );
    pub const FLOW_MISSES: Reg = ro(
        "FLOW_MISSES",
        0x0F8,
        "IP frames that missed the table and went to a fallback pipe (64-bit)",
    );

    /// Every global register, in address order.
    pub const ALL: &[Reg] = &[
        IDENTITY,
        VERSION,
        NEXT,
        CAP_PIPES,
        CAP_NOTIF_BUFS,
        CAP_LINK_CHANNELS,
        CAP_ATOMIC_BYTES,
        CAP_MAX_FRAME,
        CTRL,
        SCRATCH,
        REG_ERRORS,
        LAST_REG_ERROR,
        CAP_TX_PIPES,
        RX_OVERFLOW_DROPS,
        SESSION,
    ];
    /// The ACP link's control block.
    pub const LINK_STATE: Reg = ro(
        "LINK_STATE",
        0x100,
        "ACP link: 0 down (no signal), 1 entangling, 2 up",
    );
    pub const LINK_CTRL: Reg = rw("LINK_CTRL", 0x104, "bit 0: write 1 to reset the link: every message held is handed back, then re-entangle (reads 0)");
    pub const LINK_SEED: Reg = rw(
        "LINK_SEED",
        0x108,
        "mixed into the link's nonce generator on every write (write host randomness once at open)",
    );
    pub const LINK_RX_PIPE: Reg = rw(
        "LINK_RX_PIPE",
        0x10C,
        "RX pipe receiving ACP messages: delivered by the peer and handed back; one 64-byte ring entry each (bits 15..0); bit 16 (RX_PIPE_RESERVED) reserves that pipe: no Ethernet frame is steered to it, and it cannot be FLOW_DEFAULT_PIPE or a FLOW_WRITE's FLOW_PIPE; resets to 0, not reserved",
    );
    pub const LINK_CHANNELS: Reg = rw("LINK_CHANNELS", 0x110, "token channels to use, 1..=CAP_LINK_CHANNELS (0 reads as all); the link uses the smaller of both ends' values, agreed when entangling");
    pub const LINK_ACTIVE_CHANNELS: Reg = ro(
        "LINK_ACTIVE_CHANNELS",
        0x114,
        "token channels in use since the last entanglement",
    );
    /// The atomic unit's control.
    pub const ATOMIC_RX_PIPE: Reg = rw(
        "ATOMIC_RX_PIPE",
        0x120,
        "RX pipe receiving atomic verb results, one ring entry each: 64 B, a commit's 128 B (bits 15..0); bit 16 (RX_PIPE_RESERVED) reserves that pipe, as in LINK_RX_PIPE; resets to 0, not reserved",
    );
    /// The NIC's hardware time: core clock cycles since its last reset,
    /// 64-bit, free-running.
    pub const CYCLES: Reg = ro(
        "CYCLES",
        0x130,
        "core clock cycles since the NIC's last reset: its hardware time (4 ns a cycle at 250 MHz; 64-bit, free-running: reading LO latches HI, as for the counters)",
    );
    /// The time block (64-bit registers, LO then HI).
    pub const TIME: &[Reg] = &[CYCLES];
    /// The link and atomic control block, in address order.
    pub const LINK: &[Reg] = &[
        LINK_STATE,
        LINK_CTRL,
        LINK_SEED,
        LINK_RX_PIPE,
        LINK_CHANNELS,
        LINK_ACTIVE_CHANNELS,
        ATOMIC_RX_PIPE,
    ];

    /// The 64-bit counters, in the order of [`super::Counter`].
    pub const COUNTERS: &[Reg] = &[
        RX_FRAMES,
        RX_BYTES,
        DROP_RING_FULL,
        DROP_MALFORMED,
        DROP_PIPE_OFF,
        NOTIFICATIONS,
        TX_FRAMES,
        TX_BYTES,
        TX_DROP_MALFORMED,
        TX_COMPLETIONS,
        LINK_RECORDS,
        LINK_BAD_CHECK,
        LINK_BAD_RECORD,
        LINK_COMMITS,
        LINK_DELIVERED,
        LINK_REJECTS,
        LINK_REVERSALS,
        LINK_FAILURES,
        LINK_ENTANGLES,
        LINK_RETURNED,
        ATOMIC_VERBS,
        ATOMIC_ERRORS,
        FLOW_HITS,
        FLOW_MISSES,
    ];

    /// The flow director (see `pendulum_layout::flow`).
    pub const CAP_FLOW_TABLE: Reg = ro(
        "CAP_FLOW_TABLE",
        0x140,
        "flow table shape: ways << 16 | buckets per way",
    );
    pub const FLOW_DEFAULT_PIPE: Reg = rw(
        "FLOW_DEFAULT_PIPE",
        0x144,
        "pipe receiving frames that are not IPv4 or IPv6; never a reserved pipe (RX_PIPE_RESERVED); resets to 0",
    );
    pub const FLOW_FALLBACK: Reg = rw("FLOW_FALLBACK", 0x148, "where IP frames that miss the table go: pipe first + (RSS hash mod count); bits 15..0 first, bits 20..16 log2(count); first + count must not pass CAP_PIPES; a reserved pipe in the range gives way to the next ones (pendulum_layout::flow); resets to all pipes");
    pub const FLOW_PIPE: Reg = rw("FLOW_PIPE", 0x14C, "pipe of the entry FLOW_WRITE installs");
    pub const FLOW_WRITE: Reg = rw("FLOW_WRITE", 0x150, "writes table slot bits 15..0 (way * buckets + bucket): bit 31 set installs FLOW_KEY0..9 -> FLOW_PIPE, clear empties the slot; reads 0");
    pub const FLOW_KEY0: Reg = rw("FLOW_KEY0", 0x160, "flow key bytes 0..4 (source address); FLOW_KEYk at 0x160 + 4k holds key bytes 4k..4k+4, k = 0..9 (see pendulum_layout::flow)");
    /// The flow director block, in address order (FLOW_KEY1..9 follow FLOW_KEY0).
    pub const FLOW: &[Reg] = &[
        CAP_FLOW_TABLE,
        FLOW_DEFAULT_PIPE,
        FLOW_FALLBACK,
        FLOW_PIPE,
        FLOW_WRITE,
        FLOW_KEY0,
    ];
    /// Registers FLOW_KEY0..9.
    pub const FLOW_KEY_WORDS: u32 = 10;

    /// Bit of CTRL selecting per-packet notifications.
    pub const CTRL_PER_PACKET_NOTIF: u32 = 1 << 0;
    /// Bit of LINK_CTRL resetting the link.
    pub const LINK_CTRL_RESET: u32 = 1 << 0;
    /// Bit of ATOMIC_RX_PIPE and LINK_RX_PIPE reserving the pipe they name
    /// for the atomic unit's results or the link's messages: the flow
    /// director never steers an Ethernet frame there (a table entry naming
    /// it counts as a miss; the fallback range skips it, see
    /// `pendulum_layout::flow::steer_miss`), and the card refuses to make it
    /// FLOW_DEFAULT_PIPE or install an entry for it
    /// ([`super::RegError::PipeReserved`]).
    pub const RX_PIPE_RESERVED: u32 = 1 << 16;
    /// The pipe field of ATOMIC_RX_PIPE and LINK_RX_PIPE.
    pub const RX_PIPE_MASK: u32 = RX_PIPE_RESERVED - 1;
    /// The global page's bit fields above, by name, for code outside Rust.
    pub const BITS: &[(&str, u32)] = &[
        ("CTRL_PER_PACKET_NOTIF", CTRL_PER_PACKET_NOTIF),
        ("LINK_CTRL_RESET", LINK_CTRL_RESET),
        ("RX_PIPE_RESERVED", RX_PIPE_RESERVED),
        ("RX_PIPE_MASK", RX_PIPE_MASK),
    ];
}

/// The global 64-bit counters, indexed as the hardware keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    RxFrames = 0,
    RxBytes = 1,
    DropRingFull = 2,
    DropMalformed = 3,
    DropPipeOff = 4,
    Notifications = 5,
    TxFrames = 6,
    TxBytes = 7,
    TxDropMalformed = 8,
    TxCompletions = 9,
    LinkRecords = 10,
    LinkBadCheck = 11,
    LinkBadRecord = 12,
    LinkCommits = 13,
    LinkDelivered = 14,
    LinkRejects = 15,
    LinkReversals = 16,
    LinkFailures = 17,
    LinkEntangles = 18,
    LinkReturned = 19,
    AtomicVerbs = 20,
    AtomicErrors = 21,
    FlowHits = 22,
    FlowMisses = 23,
}

impl Counter {
    pub const ALL: [Counter; 24] = [
        Counter::RxFrames,
        Counter::RxBytes,
        Counter::DropRingFull,
        Counter::DropMalformed,
        Counter::DropPipeOff,
        Counter::Notifications,
        Counter::TxFrames,
        Counter::TxBytes,
        Counter::TxDropMalformed,
        Counter::TxCompletions,
        Counter::LinkRecords,
        Counter::LinkBadCheck,
        Counter::LinkBadRecord,
        Counter::LinkCommits,
        Counter::LinkDelivered,
        Counter::LinkRejects,
        Counter::LinkReversals,
        Counter::LinkFailures,
        Counter::LinkEntangles,
        Counter::LinkReturned,
        Counter::AtomicVerbs,
        Counter::AtomicErrors,
        Counter::FlowHits,
        Counter::FlowMisses,
    ];
    /// The register holding this counter's low half.
    pub fn reg(self) -> Reg {
        global::COUNTERS[self as usize]
    }
}

/// Registers of each pipe's page (offsets inside the page).
pub mod pipe {
    use super::*;
    pub const PIPE_ID: Reg = ro("PIPE_ID", 0x00, "index of this pipe");
    pub const RING_BASE_LO: Reg = rw(
        "RING_BASE_LO",
        0x08,
        "bus address of the data ring, low 32 bits; 64-byte aligned",
    );
    pub const RING_BASE_HI: Reg = rw(
        "RING_BASE_HI",
        0x0C,
        "bus address of the data ring, high 32 bits",
    );
    pub const RING_BYTES: Reg = rw(
        "RING_BYTES",
        0x10,
        "ring size in bytes: a power of two from 4 KiB to 2 MiB; 0 (unset) until written",
    );
    pub const CTRL: Reg = rw("CTRL", 0x20, "bit 0: enable (refused while RING_BYTES is unset or while the pipe's notification buffer, p mod CAP_NOTIF_BUFS, is off); enabling sets head = tail = 0 and the sequence to 0");
    pub const HEAD: Reg = rw(
        "HEAD",
        0x24,
        "software's position (16-byte unit): everything before it is free; must move within [head, tail]",
    );
    pub const TAIL: Reg = ro(
        "TAIL",
        0x28,
        "the NIC's position (16-byte unit): ring entries end before it",
    );
    pub const RX_FRAMES: Reg = ro(
        "RX_FRAMES",
        0x2C,
        "frames written into this ring (32-bit, wraps)",
    );
    pub const DROP_RING_FULL: Reg = ro(
        "DROP_RING_FULL",
        0x30,
        "frames dropped for lack of room (32-bit, wraps)",
    );
    pub const NOTIF_PREFETCH: Reg = rw("NOTIF_PREFETCH", 0x34, "notification prefetch: a write (any value) re-arms this pipe's notification now, without moving the head, so frames that arrive while software still holds its batch are announced at once; reads 0");
    // The TX pipe of the same index.
    pub const TX_RING_BASE_LO: Reg = rw(
        "TX_RING_BASE_LO",
        0x40,
        "bus address of the TX data ring, low 32 bits; 64-byte aligned",
    );
    pub const TX_RING_BASE_HI: Reg = rw(
        "TX_RING_BASE_HI",
        0x44,
        "bus address of the TX data ring, high 32 bits",
    );
    pub const TX_RING_BYTES: Reg = rw(
        "TX_RING_BYTES",
        0x48,
        "TX ring size in bytes: a power of two from 4 KiB to 2 MiB; 0 (unset) until written",
    );
    pub const TX_COMPL_BASE_LO: Reg = rw(
        "TX_COMPL_BASE_LO",
        0x50,
        "bus address of the TX completion record, low 32 bits; 16-byte aligned",
    );
    pub const TX_COMPL_BASE_HI: Reg = rw(
        "TX_COMPL_BASE_HI",
        0x54,
        "bus address of the TX completion record, high 32 bits",
    );
    pub const TX_CTRL: Reg = rw("TX_CTRL", 0x58, "bit 0: enable (refused while TX_RING_BYTES is unset); enabling sets TX head = tail = 0; bit 1: bound to the ACP link (64-byte message entries, not frames); bit 2: bound to the atomic unit (verb entries: 64 B, a commit 192 B); bit 3: TX stamps (an entry whose FLAGS has TX_STAMP gets a stamp record in the stamp slots after the completion record, so TX_COMPL_BASE must then point to 16 + TX_RING_BYTES bytes; without this bit TX_STAMP is ignored)");
    pub const TX_TAIL: Reg = rw("TX_TAIL", 0x5C, "doorbell: software's tail (16-byte unit) after the ring entries it appended; must not pass the NIC's TX head");
    pub const TX_HEAD: Reg = ro(
        "TX_HEAD",
        0x60,
        "the NIC's TX position (16-byte unit): everything before it is sent or dropped, and free",
    );
    pub const TX_FRAMES: Reg = ro(
        "TX_FRAMES",
        0x64,
        "frames this TX pipe sent (32-bit, wraps)",
    );
    pub const TX_DROPS: Reg = ro(
        "TX_DROPS",
        0x68,
        "malformed TX data dropped on this pipe (32-bit, wraps)",
    );

    // Notification buffer b, on the page of pipe b (b < CAP_NOTIF_BUFS).
    pub const NBUF_BASE_LO: Reg = rw(
        "NBUF_BASE_LO",
        0x70,
        "notification buffer b = p (pages below CAP_NOTIF_BUFS): bus address of its ring of 16-byte records, low 32 bits; 16-byte aligned",
    );
    pub const NBUF_BASE_HI: Reg = rw(
        "NBUF_BASE_HI",
        0x74,
        "notification buffer: bus address, high 32 bits",
    );
    pub const NBUF_BYTES: Reg = rw(
        "NBUF_BYTES",
        0x78,
        "notification buffer size in bytes: a power of two from 4 KiB to 2 MiB; 0 (unset) until written",
    );
    pub const NBUF_CTRL: Reg = rw("NBUF_CTRL", 0x7C, "bit 0: notification buffer on (refused while NBUF_BYTES is unset); switching it on starts its record count and NBUF_HEAD at 0; base and size are refused while it is on");
    pub const NBUF_HEAD: Reg = rw("NBUF_HEAD", 0x80, "records software has read from the buffer (the COUNT of the last one); the NIC writes a record only while its count minus this is below the buffer's records, else the record waits");

    /// Every pipe register, in address order.
    pub const ALL: &[Reg] = &[
        PIPE_ID,
        RING_BASE_LO,
        RING_BASE_HI,
        RING_BYTES,
        CTRL,
        HEAD,
        TAIL,
        RX_FRAMES,
        DROP_RING_FULL,
        NOTIF_PREFETCH,
        TX_RING_BASE_LO,
        TX_RING_BASE_HI,
        TX_RING_BYTES,
        TX_COMPL_BASE_LO,
        TX_COMPL_BASE_HI,
        TX_CTRL,
        TX_TAIL,
        TX_HEAD,
        TX_FRAMES,
        TX_DROPS,
        NBUF_BASE_LO,
        NBUF_BASE_HI,
        NBUF_BYTES,
        NBUF_CTRL,
        NBUF_HEAD,
    ];

    /// Bit of CTRL enabling the pipe.
    pub const CTRL_ENABLE: u32 = 1 << 0;
    /// Bit of TX_CTRL binding the TX pipe to the ACP link.
    pub const TX_CTRL_ACP: u32 = 1 << 1;
    /// Bit of TX_CTRL binding the TX pipe to the atomic unit.
    pub const TX_CTRL_ATOMIC: u32 = 1 << 2;
    /// Bit of TX_CTRL switching on TX stamps (`crate::tx_stamp`).
    pub const TX_CTRL_STAMPS: u32 = 1 << 3;
    /// Required alignment of RING_BASE.
    pub const RING_ALIGN: u64 = 64;
    /// Required alignment of NBUF_BASE and TX_COMPL_BASE.
    pub const NOTIF_ALIGN: u64 = 16;
    /// Bit of NBUF_CTRL switching the notification buffer on.
    pub const NBUF_CTRL_ON: u32 = 1 << 0;
    /// The pipe page's bit fields and alignments above, by name, for code
    /// outside Rust.
    pub const BITS: &[(&str, u64)] = &[
        ("CTRL_ENABLE", CTRL_ENABLE as u64),
        ("TX_CTRL_ACP", TX_CTRL_ACP as u64),
        ("TX_CTRL_ATOMIC", TX_CTRL_ATOMIC as u64),
        ("TX_CTRL_STAMPS", TX_CTRL_STAMPS as u64),
        ("NBUF_CTRL_ON", NBUF_CTRL_ON as u64),
        ("RING_ALIGN", RING_ALIGN),
        ("NOTIF_ALIGN", NOTIF_ALIGN),
    ];
}

/// Why a register write was refused (the cause field of LAST_REG_ERROR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegError {
    /// No register at that address.
    UnknownAddress = 1,
    /// The register is read-only.
    ReadOnly = 2,
    /// RING_BYTES (or NBUF_BYTES) not a power of two, or outside 4 KiB..=2 MiB; or enabling a pipe (or buffer) without one.
    BadRingSize = 3,
    /// A base address without the required alignment.
    Misaligned = 4,
    /// HEAD outside the ring, or beyond the tail.
    HeadBeyondTail = 5,
    /// Ring or notification buffer address or size changed while the pipe (or buffer) is on.
    PipeEnabled = 6,
    /// TX_TAIL outside the ring, or passing the NIC's TX head (the ring would overflow).
    TailBeyondHead = 7,
    /// A value outside what the register accepts (LINK_RX_PIPE, ATOMIC_RX_PIPE,
    /// FLOW_DEFAULT_PIPE and FLOW_PIPE must name a pipe; LINK_CHANNELS must be
    /// at most CAP_LINK_CHANNELS; FLOW_FALLBACK must stay inside the pipes;
    /// FLOW_WRITE must name a table slot).
    BadValue = 8,
    /// Enabling a pipe whose notification buffer (p mod CAP_NOTIF_BUFS) is off.
    NotifBufOff = 9,
    /// A pipe reserved for the atomic unit's results or the link's messages
    /// (ATOMIC_RX_PIPE or LINK_RX_PIPE with RX_PIPE_RESERVED) named as a
    /// steering target (FLOW_DEFAULT_PIPE, or the FLOW_PIPE of a FLOW_WRITE
    /// that installs an entry); or reserving the pipe that is
    /// FLOW_DEFAULT_PIPE.
    PipeReserved = 10,
}

impl RegError {
    pub const ALL: [RegError; 10] = [
        RegError::UnknownAddress,
        RegError::ReadOnly,
        RegError::BadRingSize,
        RegError::Misaligned,
        RegError::HeadBeyondTail,
        RegError::PipeEnabled,
        RegError::TailBeyondHead,
        RegError::BadValue,
        RegError::NotifBufOff,
        RegError::PipeReserved,
    ];
    /// Decodes the cause field of LAST_REG_ERROR.
    pub fn from_code(code: u32) -> Option<RegError> {
        Self::ALL.into_iter().find(|e| *e as u32 == code)
    }
    pub fn describe(self) -> &'static str {
        match self {
            RegError::UnknownAddress => "no register at that address",
            RegError::ReadOnly => "register is read-only",
            RegError::BadRingSize => {
                "ring (or notification buffer) size must be a power of two from 4 KiB to 2 MiB"
            }
            RegError::Misaligned => "base address is not aligned",
            RegError::HeadBeyondTail => "head must stay inside the ring and not pass the tail",
            RegError::PipeEnabled => {
                "switch the pipe (or notification buffer) off before changing its ring or buffer"
            }
            RegError::TailBeyondHead => {
                "TX tail must stay inside the ring and leave one unit free before the TX head"
            }
            RegError::BadValue => "value out of range for this register",
            RegError::NotifBufOff => {
                "switch on the pipe's notification buffer (pipe mod CAP_NOTIF_BUFS) first"
            }
            RegError::PipeReserved => {
                "the pipe is reserved for the atomic unit's results or the link's messages and cannot be a steering target (FLOW_DEFAULT_PIPE, a table entry's pipe), nor can the default pipe be reserved; choose another pipe"
            }
        }
    }
}

/// Bit position of the cause in LAST_REG_ERROR.
pub const LAST_REG_ERROR_CAUSE_SHIFT: u32 = 24;

/// The register map as a Markdown table (for the README and `docs/regmap.md`).
pub fn regmap_markdown() -> String {
    let mut s =
        String::from("| page | offset | name | access | meaning |\n|---|---|---|---|---|\n");
    let acc = |a: Access| if a == Access::Ro { "RO" } else { "RW" };
    for r in global::ALL
        .iter()
        .chain(global::COUNTERS)
        .chain(global::LINK)
        .chain(global::TIME)
        .chain(global::FLOW)
    {
        s += &format!(
            "| global | 0x{:03X} | {} | {} | {} |\n",
            r.offset,
            r.name,
            acc(r.access),
            r.doc
        );
    }
    for r in pipe::ALL {
        s += &format!(
            "| pipe p at 0x1000*(p+1) | 0x{:03X} | {} | {} | {} |\n",
            r.offset,
            r.name,
            acc(r.access),
            r.doc
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_unique(regs: &[Reg], width: u32) {
        for (i, a) in regs.iter().enumerate() {
            assert_eq!(a.offset % 4, 0, "{} unaligned", a.name);
            for b in &regs[i + 1..] {
                assert!(
                    a.offset + width <= b.offset || b.offset + width <= a.offset,
                    "{} overlaps {}",
                    a.name,
                    b.name
                );
            }
        }
    }

    #[test]
    fn register_offsets_are_aligned_and_disjoint() {
        check_unique(global::ALL, 4);
        check_unique(global::COUNTERS, 8);
        check_unique(global::LINK, 4);
        let counters_end = global::COUNTERS.iter().map(|r| r.offset).max().unwrap() + 8;
        assert!(global::LINK.iter().all(|r| r.offset >= counters_end));
        check_unique(global::FLOW, 4);
        let link_end = global::LINK.iter().map(|r| r.offset).max().unwrap() + 4;
        check_unique(global::TIME, 8);
        assert!(global::TIME.iter().all(|r| r.offset >= link_end));
        let time_end = global::TIME.iter().map(|r| r.offset).max().unwrap() + 8;
        assert!(global::FLOW.iter().all(|r| r.offset >= time_end));
        assert_eq!(
            global::FLOW_KEY0.offset,
            global::FLOW.iter().map(|r| r.offset).max().unwrap(),
            "FLOW_KEY1..9 follow FLOW_KEY0"
        );
        const { assert!(global::FLOW_KEY0.offset + 4 * global::FLOW_KEY_WORDS <= PAGE_BYTES) };
        check_unique(pipe::ALL, 4);
        let last_plain = global::ALL.iter().map(|r| r.offset).max().unwrap();
        assert!(global::COUNTERS.iter().all(|c| c.offset > last_plain));
    }

    #[test]
    fn error_codes_round_trip() {
        for e in RegError::ALL {
            assert_eq!(RegError::from_code(e as u32), Some(e));
        }
        assert_eq!(RegError::from_code(0), None);
    }
}

#[cfg(test)]
mod readme {
    /// The README's table is generated from this crate; run with
    /// PENDULUM_BLESS=1 to rewrite it after a layout change.
    #[test]
    fn readme_register_table_is_current() {
        crate::check_readme_section(
            "<!-- regmap begin -->\n",
            "<!-- regmap end -->",
            &super::regmap_markdown(),
        );
    }
}
