use super::PipeCounter;
use crate::enso::FLOW_MATCH_BITS;
use crate::reset::{Clear, SDFF};
use crate::stream::{Concat, Join, StreamSink, StreamSource, ZeroExtend};
use crate::types::MmioWrite;
use pendulum_layout::flow::{ENTRIES, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::params::{
    ACP_CHANNEL_BITS as CB, FLOW_SLOT_BITS, MMIO_ADDR_BITS, NOTIF_BUFS, NOTIF_BUF_BITS, PIPES,
    PIPE_BITS, SLOT_BITS, TX_PIPES,
};
use pendulum_layout::{global, pipe, Counter, Reg, RegError};
use rust_hdl::prelude::*;

/// Width of a channel count (0..=K).
const CB1: usize = CB + 1;
const OFF_BITS: usize = pendulum_layout::PAGE_BYTES_LOG2 as usize;
const PAGE_BITS: usize = MMIO_ADDR_BITS - OFF_BITS;
const COUNTERS: usize = Counter::ALL.len();
/// Registers on the global page that hold constants (identity and capabilities).
const CONST_REGS: usize = 9;
/// FLOW_KEY0..9; the table compares the first FLOW_MATCH_BITS of them, so
/// the last word gives only its low bytes.
const FLOW_KEY_WORDS: usize = global::FLOW_KEY_WORDS as usize;
const FLOW_FULL_WORDS: usize = FLOW_KEY_WORDS - 1;
const FLOW_LAST_BITS: usize = FLOW_MATCH_BITS - 32 * FLOW_FULL_WORDS;
/// Slot gates the register file keeps a pipe's ring state for.
pub const GATES: usize = 2;
/// The gate of the ACP link's messages (LINK_RX_PIPE).
pub const GATE_LINK: usize = 0;
/// The gate of the atomic unit's results (ATOMIC_RX_PIPE).
pub const GATE_ATOMIC: usize = 1;

/// Events the RX datapath reports for counting, one frame at a time.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RxEvents {
    /// The pipe the other fields are about.
    pub pipe: Signal<In, Bits<PIPE_BITS>>,
    /// A frame was written to the pipe's ring; its length is `frame_bytes`,
    /// and the pipe's tail is now `tail`.
    pub frame: Signal<In, Bit>,
    pub frame_bytes: Signal<In, Bits<16>>,
    pub tail: Signal<In, Bits<SLOT_BITS>>,
    pub drop_ring_full: Signal<In, Bit>,
    pub drop_malformed: Signal<In, Bit>,
    pub drop_pipe_off: Signal<In, Bit>,
    /// The RX engine applied a restart of the pipe (its tail is 0, with this
    /// ring size and on/off), in order with its `frame` events: never in the
    /// same cycle as one, and none for the old ring after it.
    pub restart: Signal<In, Bit>,
    pub restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<In, Bit>,
    /// A notification was written (for any pipe).
    pub notification: Signal<In, Bit>,
}

/// Events the TX datapath reports for counting.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct TxEvents {
    pub pipe: Signal<In, Bits<PIPE_BITS>>,
    /// A frame went out on the Ethernet TX port; its length is `frame_bytes`.
    pub frame: Signal<In, Bit>,
    pub frame_bytes: Signal<In, Bits<16>>,
    pub drop_malformed: Signal<In, Bit>,
    /// A TX completion record was written (for any pipe).
    pub completion: Signal<In, Bit>,
}

/// Events the ACP link reports for counting (one-cycle pulses).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct LinkEvents {
    pub record: Signal<In, Bit>,
    pub bad_check: Signal<In, Bit>,
    pub bad_record: Signal<In, Bit>,
    pub commit: Signal<In, Bit>,
    pub deliver: Signal<In, Bit>,
    pub reject: Signal<In, Bit>,
    pub reverse: Signal<In, Bit>,
    pub failure: Signal<In, Bit>,
    pub entangle: Signal<In, Bit>,
    pub returned: Signal<In, Bit>,
}

/// The MMIO register file: the global page and one page per pipe, as
/// `pendulum_layout::regs` defines them. Holds the pipes' configuration and
/// head, and every counter. A write that `RegError` forbids changes nothing
/// and is counted in REG_ERRORS with its cause in LAST_REG_ERROR.
///
/// Each RX pipe's registers (ring, notification buffer, on/off, head, a copy
/// of its tail, its counters) live in block RAM, one RAM per register, so
/// the pipes cost RAM, not logic. The RAMs
/// have one read port, shared by writes and reads:
/// - A write goes through three cycles: the cycle it is accepted reads its
///   pipe's page, the next checks the value against it (into registers),
///   the third applies it (and reports it to the datapath: `restart`,
///   `head_wr`, `rearm`). A write is accepted at most every third cycle, so
///   each check sees the previous write's effect, and not in the cycle after
///   a restart (`restart_wait`), so the next one sees the RX engine's tail
///   of 0: 83 M register writes/s at 250 MHz, far above what a PCIe BAR
///   delivers.
/// - A read is accepted when no write is being accepted, checked or applied (so it
///   sees every write before it, as on PCIe) and no other read is under way;
///   its pipe's page is read that cycle, decoded the next, and answered the
///   one after: one read every 3 cycles.
///
/// Counters count an event 1 cycle after the datapath reports it.
#[derive(LogicBlock)]
pub struct RegFile {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): every pipe's and
    /// notification buffer's registers are zeroed, one entry a cycle, while
    /// it is active. The core answers no register access until it is done.
    pub clear: Clear<PIPE_BITS>,
    /// Register writes (always ready).
    pub s_wr: StreamSink<MmioWrite>,
    /// Register reads: the byte address.
    pub s_rd: StreamSink<Bits<MMIO_ADDR_BITS>>,
    /// Read data, in request order. Unknown addresses read as all ones.
    pub m_rsp: StreamSource<Bits<32>>,
    /// The ring state of the two pipes that on-card sources write into
    /// (`GATE_LINK`: LINK_RX_PIPE, `GATE_ATOMIC`: ATOMIC_RX_PIPE), for their
    /// slot gates: head, tail, size in slots minus one, on/off. Kept from the
    /// events below, and loaded from the pipe's page when software names
    /// another pipe.
    pub gate_head: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_tail: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_mask: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_enable: [Signal<Out, Bit>; GATES],
    /// The pipe whose page the write applied this cycle addresses (what
    /// `rearm`, `restart` and `tx_restart` are about).
    pub wr_pipe: Signal<Out, Bits<PIPE_BITS>>,
    /// One-cycle pulse: software moved the pipe's head, or asked for its next
    /// notification now (NOTIF_PREFETCH, without moving the head); either
    /// re-arms its notification.
    pub rearm: Signal<Out, Bit>,
    /// One-cycle pulse: the pipe was switched on or off (CTRL bit 0 changed),
    /// with its ring and whether it is now on.
    pub restart: Signal<Out, Bit>,
    pub restart_base: Signal<Out, Bits<64>>,
    pub restart_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<Out, Bit>,
    /// One-cycle pulse: notification buffer `wr_pipe` (a page below
    /// NOTIF_BUFS) was switched on or off, with its address and records
    /// minus one.
    pub nbuf_cfg: Signal<Out, Bit>,
    pub nbuf_cfg_on: Signal<Out, Bit>,
    pub nbuf_cfg_base: Signal<Out, Bits<64>>,
    pub nbuf_cfg_mask: Signal<Out, Bits<32>>,
    /// One-cycle pulse: software wrote notification buffer `wr_pipe`'s head.
    pub nbuf_head_wr: Signal<Out, Bit>,
    pub nbuf_head: Signal<Out, Bits<32>>,
    /// One-cycle pulse: the pipe's head is now `wr_head` (a HEAD write, or 0
    /// when the pipe is switched on).
    pub head_wr: Signal<Out, Bit>,
    pub wr_head: Signal<Out, Bits<SLOT_BITS>>,
    /// One-cycle pulse: the TX pipe was switched on or off (TX_CTRL bit 0
    /// changed), with its completion record's address.
    pub tx_restart: Signal<Out, Bit>,
    pub tx_restart_compl_base: Signal<Out, Bits<64>>,
    pub per_packet_notif: Signal<Out, Bit>,
    pub events: RxEvents,
    /// TX pipe configuration for the TX engine (pipes 0..TX_PIPES).
    pub tx_base: [Signal<Out, Bits<64>>; TX_PIPES],
    pub tx_mask: [Signal<Out, Bits<SLOT_BITS>>; TX_PIPES],
    pub tx_enable: [Signal<Out, Bit>; TX_PIPES],
    /// Software's TX tail (the doorbell).
    pub tx_tail: [Signal<Out, Bits<SLOT_BITS>>; TX_PIPES],
    /// The TX engine's head per pipe (bounds the doorbell).
    pub tx_head: [Signal<In, Bits<SLOT_BITS>>; TX_PIPES],
    pub tx_events: TxEvents,
    /// TX pipe bound to the ACP link (TX_CTRL bit 1).
    pub tx_acp: [Signal<Out, Bit>; TX_PIPES],
    /// TX pipe bound to the atomic unit (TX_CTRL bit 2).
    pub tx_atomic: [Signal<Out, Bit>; TX_PIPES],
    /// RX pipe receiving atomic results (ATOMIC_RX_PIPE).
    pub atomic_rx_pipe: Signal<Out, Bits<PIPE_BITS>>,
    /// The atomic unit's events.
    pub atomic_verb: Signal<In, Bit>,
    pub atomic_error: Signal<In, Bit>,
    /// The ACP link's state, its events, and its controls.
    pub link_state: Signal<In, Bits<2>>,
    pub link_events: LinkEvents,
    pub link_reset: Signal<Out, Bit>,
    pub link_seed: Signal<Out, Bits<32>>,
    pub link_seed_write: Signal<Out, Bit>,
    pub link_rx_pipe: Signal<Out, Bits<PIPE_BITS>>,
    /// Channels the link offers to use (LINK_CHANNELS, 0 meaning all).
    pub link_channels: Signal<Out, Bits<{ CB + 1 }>>,
    /// Channels in use (LINK_ACTIVE_CHANNELS).
    pub link_active: Signal<In, Bits<CB1>>,
    /// The flow director's table writes (FLOW_WRITE, one cycle later, with
    /// the staged key and pipe) and steering settings.
    pub flow_table_wr: Signal<Out, Bit>,
    pub flow_table_slot: Signal<Out, Bits<FLOW_SLOT_BITS>>,
    pub flow_table_valid: Signal<Out, Bit>,
    pub flow_key: Signal<Out, Bits<FLOW_MATCH_BITS>>,
    pub flow_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_default_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_fallback_first: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_fallback_mask: Signal<Out, Bits<PIPE_BITS>>,
    /// Flow director events: an IP frame hit or missed the table.
    pub flow_hit: Signal<In, Bit>,
    pub flow_miss: Signal<In, Bit>,
    /// RX_OVERFLOW_DROPS, counted by the board's RX crossing (on this clock).
    pub rx_overflow_drops: Signal<In, Bits<32>>,
    // The flow director's registers. Decoded here with the rest: a child
    // block's combinational answer read back into this one always block is
    // a loop Verilator evaluates once, and would read stale.
    flow_key_r: [SDFF<Bits<32>>; FLOW_KEY_WORDS],
    flow_key_join: Join<FLOW_FULL_WORDS, 32, { 32 * FLOW_FULL_WORDS }>,
    flow_key_cat: Concat<FLOW_LAST_BITS, { 32 * FLOW_FULL_WORDS }, FLOW_MATCH_BITS>,
    flow_pipe_r: SDFF<Bits<32>>,
    flow_default_r: SDFF<Bits<32>>,
    // FLOW_FALLBACK as written; until the first write it reads as all pipes.
    flow_fallback_r: SDFF<Bits<32>>,
    flow_fallback_set: SDFF<Bit>,
    flow_fallback: Signal<Local, Bits<32>>,
    flow_fallback_ok: Signal<Local, Bit>,
    // FLOW_WRITE's value and its pulse, a cycle after the register write.
    flow_write_r: SDFF<Bits<32>>,
    flow_write_pulse: SDFF<Bit>,
    g_flow_cap: Constant<Bits<OFF_BITS>>,
    g_flow_default: Constant<Bits<OFF_BITS>>,
    g_flow_fallback: Constant<Bits<OFF_BITS>>,
    g_flow_pipe: Constant<Bits<OFF_BITS>>,
    g_flow_write: Constant<Bits<OFF_BITS>>,
    g_flow_key: [Constant<Bits<OFF_BITS>>; FLOW_KEY_WORDS],
    g_flow_key_first: Constant<Bits<OFF_BITS>>,
    g_flow_key_last: Constant<Bits<OFF_BITS>>,
    flow_cap: Constant<Bits<32>>,
    flow_all_pipes: Constant<Bits<32>>,
    flow_write_reserved: Constant<Bits<32>>,
    flow_fallback_reserved: Constant<Bits<32>>,
    flow_max_log2: Constant<Bits<5>>,
    pipe_ones: Constant<Bits<PIPE_BITS>>,
    pipe_one: Constant<Bits<PIPE_BITS>>,
    low16: Constant<Bits<32>>,

    // Address decode.
    wr_addr: Signal<Local, Bits<MMIO_ADDR_BITS>>,
    wr_data: Signal<Local, Bits<32>>,
    ring_slots: Signal<Local, Bits<SLOT_BITS>>,
    size_ok: Signal<Local, Bit>,
    names_pipe: Signal<Local, Bit>,
    ring_aligned: Signal<Local, Bit>,
    notif_aligned: Signal<Local, Bit>,
    rd_addr: Signal<Local, Bits<MMIO_ADDR_BITS>>,
    wr_page: Signal<Local, Bits<PAGE_BITS>>,
    wr_off: Signal<Local, Bits<OFF_BITS>>,
    wr_data16: Signal<Local, Bits<SLOT_BITS>>,
    wr_addr32: ZeroExtend<MMIO_ADDR_BITS, 32>,
    rd_page: Signal<Local, Bits<PAGE_BITS>>,
    rd_off: Signal<Local, Bits<OFF_BITS>>,
    err: Signal<Local, Bit>,
    err_cause: Signal<Local, Bits<32>>,
    rd_data: Signal<Local, Bits<32>>,
    rd_hit: Signal<Local, Bit>,
    frame_bytes64: ZeroExtend<16, 64>,

    tx_tail_ok: [Signal<Local, Bit>; TX_PIPES],
    tx_base_cat: [Concat<32, 32, 64>; TX_PIPES],
    tx_compl_cat: [Concat<32, 32, 64>; TX_PIPES],
    tx_tail32: [ZeroExtend<SLOT_BITS, 32>; TX_PIPES],
    tx_head32: [ZeroExtend<SLOT_BITS, 32>; TX_PIPES],
    tx_bytes64: ZeroExtend<16, 64>,

    link_state32: ZeroExtend<2, 32>,
    link_rx_pipe_r: SDFF<Bits<32>>,
    link_seed_r: SDFF<Bits<32>>,
    // The write pulse, one cycle late so it meets the new value.
    link_seed_pulse: SDFF<Bit>,
    link_channels_r: SDFF<Bits<32>>,
    link_active32: ZeroExtend<CB1, 32>,
    g_link_channels: Constant<Bits<OFF_BITS>>,
    g_link_active: Constant<Bits<OFF_BITS>>,
    channels_max: Constant<Bits<32>>,
    channels_all: Constant<Bits<{ CB + 1 }>>,
    tx_acp_r: [SDFF<Bit>; TX_PIPES],
    tx_atomic_r: [SDFF<Bit>; TX_PIPES],
    atomic_rx_pipe_r: SDFF<Bits<32>>,
    g_atomic_rx_pipe: Constant<Bits<OFF_BITS>>,
    four32: Constant<Bits<32>>,
    g_link_state: Constant<Bits<OFF_BITS>>,
    g_link_ctrl: Constant<Bits<OFF_BITS>>,
    g_link_seed: Constant<Bits<OFF_BITS>>,
    g_link_rx_pipe: Constant<Bits<OFF_BITS>>,
    pipes32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    cause_value: Constant<Bits<32>>,

    // Each RX pipe's registers, in block RAM (see the block's comment).
    base_lo_ram: RAM<Bits<32>, PIPE_BITS>,
    base_hi_ram: RAM<Bits<32>, PIPE_BITS>,
    ring_bytes_ram: RAM<Bits<32>, PIPE_BITS>,
    enable_ram: RAM<Bit, PIPE_BITS>,
    head_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    // The tail, from the RX engine's events (read by software, bounds the
    // head): each frame's new tail, and 0 when the engine applies a restart
    // (two cycles after `restart`; `restart_wait` holds reads and writes
    // back until then, so none sees the old tail).
    tail_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    restart_wait: SDFF<Bit>,
    // A head write, a cycle late, for the gates' copies.
    gh_v: SDFF<Bit>,
    gh_pipe: SDFF<Bits<PIPE_BITS>>,
    gh_value: SDFF<Bits<SLOT_BITS>>,
    // A refused write and its LAST_REG_ERROR word, counted a cycle later.
    err_r: SDFF<Bit>,
    err_word: SDFF<Bits<32>>,
    // The last tail write, which a read in its cycle missed.
    fw_tail: SDFF<Bit>,
    fw_match: SDFF<Bit>,
    fw_tail_value: SDFF<Bits<SLOT_BITS>>,
    // Each notification buffer's registers (buffer b on page b + 1), in
    // block RAM read with the pipe's page, and its on bit, which every pipe
    // of the buffer checks as it is switched on.
    nb_lo_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    nb_hi_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    nb_bytes_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    nb_head_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    nb_on: SDFF<Bits<NOTIF_BUFS>>,
    nb_bit: Signal<Local, Bits<NOTIF_BUFS>>,
    one_nb: Constant<Bits<NOTIF_BUFS>>,
    wr_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    lk_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    pg_nb_base: Concat<32, 32, 64>,
    rd_is_nbuf: Signal<Local, Bit>,
    last_nbuf_page: Constant<Bits<PAGE_BITS>>,
    p_nb_lo: Constant<Bits<OFF_BITS>>,
    p_nb_hi: Constant<Bits<OFF_BITS>>,
    p_nb_bytes: Constant<Bits<OFF_BITS>>,
    p_nb_ctrl: Constant<Bits<OFF_BITS>>,
    p_nb_head: Constant<Bits<OFF_BITS>>,
    cause_nbuf_off: Constant<Bits<32>>,
    rx_frames: PipeCounter,
    rx_drops: PipeCounter,
    // The RAMs' read address: a write's pipe as it is accepted (the new
    // pipe of a LINK_RX_PIPE or ATOMIC_RX_PIPE write), else a read's.
    lk_addr: Signal<Local, Bits<PIPE_BITS>>,
    lk_pipe: SDFF<Bits<PIPE_BITS>>,
    in_addr: Signal<Local, Bits<MMIO_ADDR_BITS>>,
    in_page: Signal<Local, Bits<PAGE_BITS>>,
    in_off: Signal<Local, Bits<OFF_BITS>>,
    // The low bits of a read's page, as it is accepted.
    rd_in_page: Signal<Local, Bits<PIPE_BITS>>,
    // The page of `lk_pipe`, from the RAMs.
    pg_base: Concat<32, 32, 64>,
    pg_mask: Signal<Local, Bits<SLOT_BITS>>,
    pg_tail: Signal<Local, Bits<SLOT_BITS>>,
    pg_head32: ZeroExtend<SLOT_BITS, 32>,
    pg_tail32: ZeroExtend<SLOT_BITS, 32>,
    head_ok: Signal<Local, Bit>,
    // What the write applied this cycle does, for the outputs and the gates.
    do_restart: Signal<Local, Bit>,
    do_head_wr: Signal<Local, Bit>,
    new_head: Signal<Local, Bits<SLOT_BITS>>,
    wr_pipe_l: Signal<Local, Bits<PIPE_BITS>>,
    wr_is_pipe: Signal<Local, Bit>,
    // The gates' pipes' ring state (`gate_*` outputs), and the pipe each is for.
    gate_head_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_tail_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_mask_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_enable_r: [SDFF<Bit>; GATES],
    gate_pipe: [Signal<Local, Bits<PIPE_BITS>>; GATES],
    gate_load: [Signal<Local, Bit>; GATES],
    // A read: its address while its page is read, then decoded.
    rd_v: SDFF<Bit>,
    rd_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    rd_pipe: Signal<Local, Bits<PIPE_BITS>>,
    rd_is_pipe: Signal<Local, Bit>,
    rd_pipe32: ZeroExtend<PIPE_BITS, 32>,
    last_pipe_page: Constant<Bits<PAGE_BITS>>,
    last_tx_page: Constant<Bits<PAGE_BITS>>,

    // State.
    tx_base_lo: [SDFF<Bits<32>>; TX_PIPES],
    tx_base_hi: [SDFF<Bits<32>>; TX_PIPES],
    tx_ring_bytes: [SDFF<Bits<32>>; TX_PIPES],
    tx_mask_r: [SDFF<Bits<SLOT_BITS>>; TX_PIPES],
    tx_compl_lo: [SDFF<Bits<32>>; TX_PIPES],
    tx_compl_hi: [SDFF<Bits<32>>; TX_PIPES],
    tx_enable_r: [SDFF<Bit>; TX_PIPES],
    tx_tail_r: [SDFF<Bits<SLOT_BITS>>; TX_PIPES],
    tx_frames: [SDFF<Bits<32>>; TX_PIPES],
    tx_drops: [SDFF<Bits<32>>; TX_PIPES],
    ctrl: SDFF<Bits<32>>,
    scratch: SDFF<Bits<32>>,
    // SESSION: the opener's token; a reset clears it.
    session: SDFF<Bits<32>>,
    reg_errors: SDFF<Bits<32>>,
    last_err: SDFF<Bits<32>>,
    counters: [SDFF<Bits<64>>; COUNTERS],
    // Every counted event, registered: counter k counts ev_r[k] a cycle after
    // the datapath reports it, so the datapath's event logic and the 64-bit
    // adders are in different cycles. No register read can see the lag.
    ev_r: [SDFF<Bit>; COUNTERS],
    ev_rx_pipe: SDFF<Bits<PIPE_BITS>>,
    ev_rx_bytes: SDFF<Bits<16>>,
    ev_tx_pipe: SDFF<Bits<PIPE_BITS>>,
    ev_tx_bytes: SDFF<Bits<16>>,
    // A write goes through three cycles: the cycle it is accepted latches its
    // address and data and reads its page, the next checks its value against
    // the page (into the `*_r` flags and `pk_*` below), the third decodes the
    // address and applies it. A write is accepted at most every third cycle
    // (`wr_check`, `wr_apply`), so each check sees the previous write's effect.
    wr_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    wr_data_r: SDFF<Bits<32>>,
    wr_apply: SDFF<Bit>,
    // A write's data as it is accepted (its low bits: a gate's new pipe).
    in_data: Signal<Local, Bits<32>>,
    size_ok_r: SDFF<Bit>,
    // The value names a pipe (< PIPES): registered with the other value
    // checks, so the apply stage's gate loads start from a flop.
    names_pipe_r: SDFF<Bit>,
    ring_aligned_r: SDFF<Bit>,
    notif_aligned_r: SDFF<Bit>,
    flow_fallback_ok_r: SDFF<Bit>,
    tx_tail_ok_r: [SDFF<Bit>; TX_PIPES],
    wr_check: SDFF<Bit>,
    head_ok_r: SDFF<Bit>,
    // The write's page as the check stage read it (see the block's comment).
    pk_enable: SDFF<Bit>,
    pk_ring_zero: SDFF<Bit>,
    pk_nb_zero: SDFF<Bit>,
    pk_base: SDFF<Bits<64>>,
    pk_mask: SDFF<Bits<SLOT_BITS>>,
    pk_nb_base: SDFF<Bits<64>>,
    pk_nb_mask: SDFF<Bits<32>>,
    pk_head: SDFF<Bits<SLOT_BITS>>,
    pk_tail: SDFF<Bits<SLOT_BITS>>,
    pk_pipe: SDFF<Bits<PIPE_BITS>>,
    pk_nb_ctrl: SDFF<Bit>,
    // The write's offset decoded in the check stage: bit k is "the offset is
    // the k-th one the apply stage tests" (the list where they are set).
    wo_hit: [SDFF<Bit>; 40],
    wr_take: Signal<Local, Bit>,
    // Reading a counter's LO half latches its HI half here.
    hi_latch: SDFF<Bits<32>>,
    rsp_valid: SDFF<Bit>,
    rsp_data: SDFF<Bits<32>>,

    // Constants from pendulum-layout.
    const_off: [Constant<Bits<OFF_BITS>>; CONST_REGS],
    const_val: [Constant<Bits<32>>; CONST_REGS],
    cnt_lo_off: [Constant<Bits<OFF_BITS>>; COUNTERS],
    cnt_hi_off: [Constant<Bits<OFF_BITS>>; COUNTERS],
    g_ctrl: Constant<Bits<OFF_BITS>>,
    g_scratch: Constant<Bits<OFF_BITS>>,
    g_session: Constant<Bits<OFF_BITS>>,
    g_reg_errors: Constant<Bits<OFF_BITS>>,
    g_last_err: Constant<Bits<OFF_BITS>>,
    g_rx_overflow_drops: Constant<Bits<OFF_BITS>>,
    // Any aligned offset below this on the global page, or in the counter
    // window, is a register (read-only unless named above).
    g_plain_end: Constant<Bits<OFF_BITS>>,
    g_cnt_start: Constant<Bits<OFF_BITS>>,
    g_cnt_end: Constant<Bits<OFF_BITS>>,
    p_pipe_id: Constant<Bits<OFF_BITS>>,
    p_base_lo: Constant<Bits<OFF_BITS>>,
    p_base_hi: Constant<Bits<OFF_BITS>>,
    p_ring_bytes: Constant<Bits<OFF_BITS>>,
    p_ctrl: Constant<Bits<OFF_BITS>>,
    p_head: Constant<Bits<OFF_BITS>>,
    p_prefetch: Constant<Bits<OFF_BITS>>,
    p_tail: Constant<Bits<OFF_BITS>>,
    p_frames: Constant<Bits<OFF_BITS>>,
    p_drops: Constant<Bits<OFF_BITS>>,
    p_tx_base_lo: Constant<Bits<OFF_BITS>>,
    p_tx_base_hi: Constant<Bits<OFF_BITS>>,
    p_tx_ring_bytes: Constant<Bits<OFF_BITS>>,
    p_tx_compl_lo: Constant<Bits<OFF_BITS>>,
    p_tx_compl_hi: Constant<Bits<OFF_BITS>>,
    p_tx_ctrl: Constant<Bits<OFF_BITS>>,
    p_tx_tail: Constant<Bits<OFF_BITS>>,
    p_tx_head: Constant<Bits<OFF_BITS>>,
    p_tx_frames: Constant<Bits<OFF_BITS>>,
    p_tx_drops: Constant<Bits<OFF_BITS>>,
    cause_tail: Constant<Bits<32>>,
    ring_min: Constant<Bits<32>>,
    ring_max: Constant<Bits<32>>,
    ring_align_mask: Constant<Bits<32>>,
    notif_align_mask: Constant<Bits<32>>,
    cause_unknown: Constant<Bits<32>>,
    cause_read_only: Constant<Bits<32>>,
    cause_ring_size: Constant<Bits<32>>,
    cause_misaligned: Constant<Bits<32>>,
    cause_head: Constant<Bits<32>>,
    cause_enabled: Constant<Bits<32>>,
    all_ones: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    one64: Constant<Bits<64>>,
    zero_off2: Constant<Bits<2>>,
    page0: Constant<Bits<PAGE_BITS>>,
    off_bits: Constant<Bits<5>>,
}

fn off(r: Reg) -> Constant<Bits<OFF_BITS>> {
    Constant::new((r.offset as u64).into())
}
fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new((v as u64).into())
}
/// A RAM of one register per pipe, zero at power-up (also on a board).
fn zeros<const W: usize>() -> RAM<Bits<W>, PIPE_BITS> {
    (0..PIPES).map(|_| Bits::<W>::default()).into()
}
/// A RAM of one register per notification buffer, zero at power-up.
fn nb_zeros() -> RAM<Bits<32>, NOTIF_BUF_BITS> {
    (0..NOTIF_BUFS).map(|_| Bits::<32>::default()).into()
}
fn cause(e: RegError) -> Constant<Bits<32>> {
    c32((e as u32) << pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT)
}

impl RegFile {
    /// `cap_*` describe the blocks this NIC has, for the capability registers.
    pub fn new(cap_link_channels: u32, cap_atomic_bytes: u32) -> Self {
        use pendulum_layout::params::*;
        let consts: [(Reg, u32); CONST_REGS] = [
            (global::IDENTITY, pendulum_layout::IDENTITY),
            (global::VERSION, pendulum_layout::VERSION),
            (global::NEXT, 0),
            (global::CAP_PIPES, PIPES as u32),
            (global::CAP_NOTIF_BUFS, NOTIF_BUFS as u32),
            (global::CAP_LINK_CHANNELS, cap_link_channels),
            (global::CAP_ATOMIC_BYTES, cap_atomic_bytes),
            (global::CAP_MAX_FRAME, MAX_FRAME_BYTES),
            (global::CAP_TX_PIPES, TX_PIPES as u32),
        ];
        let plain_end = global::ALL.iter().map(|r| r.offset).max().unwrap() + 4;
        let cnt_start = global::COUNTERS.iter().map(|r| r.offset).min().unwrap();
        let cnt_end = global::COUNTERS.iter().map(|r| r.offset).max().unwrap() + 8;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            s_wr: Default::default(),
            s_rd: Default::default(),
            m_rsp: Default::default(),
            wr_pipe: Default::default(),
            rearm: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            nbuf_cfg: Default::default(),
            nbuf_cfg_on: Default::default(),
            nbuf_cfg_base: Default::default(),
            nbuf_cfg_mask: Default::default(),
            nbuf_head_wr: Default::default(),
            nbuf_head: Default::default(),
            head_wr: Default::default(),
            wr_head: Default::default(),
            tx_restart: Default::default(),
            tx_restart_compl_base: Default::default(),
            per_packet_notif: Default::default(),
            events: Default::default(),
            tx_base: Default::default(),
            tx_mask: Default::default(),
            tx_enable: Default::default(),
            tx_tail: Default::default(),
            tx_head: Default::default(),
            tx_events: Default::default(),
            tx_acp: Default::default(),
            link_state: Default::default(),
            link_events: Default::default(),
            link_reset: Default::default(),
            link_seed: Default::default(),
            link_seed_write: Default::default(),
            link_rx_pipe: Default::default(),
            link_state32: Default::default(),
            link_rx_pipe_r: Default::default(),
            link_seed_r: Default::default(),
            link_seed_pulse: Default::default(),
            link_channels: Default::default(),
            link_active: Default::default(),
            flow_table_wr: Default::default(),
            flow_table_slot: Default::default(),
            flow_table_valid: Default::default(),
            flow_key: Default::default(),
            flow_pipe: Default::default(),
            flow_default_pipe: Default::default(),
            flow_fallback_first: Default::default(),
            flow_fallback_mask: Default::default(),
            flow_hit: Default::default(),
            flow_miss: Default::default(),
            rx_overflow_drops: Default::default(),
            flow_key_r: Default::default(),
            flow_key_join: Default::default(),
            flow_key_cat: Default::default(),
            flow_pipe_r: Default::default(),
            flow_default_r: Default::default(),
            flow_fallback_r: Default::default(),
            flow_fallback_set: Default::default(),
            flow_fallback: Default::default(),
            flow_fallback_ok: Default::default(),
            flow_write_r: Default::default(),
            flow_write_pulse: Default::default(),
            g_flow_cap: off(global::CAP_FLOW_TABLE),
            g_flow_default: off(global::FLOW_DEFAULT_PIPE),
            g_flow_fallback: off(global::FLOW_FALLBACK),
            g_flow_pipe: off(global::FLOW_PIPE),
            g_flow_write: off(global::FLOW_WRITE),
            g_flow_key: std::array::from_fn(|k| {
                Constant::new(((global::FLOW_KEY0.offset + 4 * k as u32) as u64).into())
            }),
            g_flow_key_first: off(global::FLOW_KEY0),
            g_flow_key_last: Constant::new(
                ((global::FLOW_KEY0.offset + 4 * (FLOW_KEY_WORDS as u32 - 1)) as u64).into(),
            ),
            flow_cap: c32((FLOW_WAYS as u32) << 16 | 1 << FLOW_BUCKET_BITS),
            flow_all_pipes: c32((PIPE_BITS as u32) << FALLBACK_COUNT_LOG2_SHIFT),
            flow_write_reserved: c32(!(WRITE_VALID | (ENTRIES as u32 - 1))),
            flow_fallback_reserved: c32(!((1 << (FALLBACK_COUNT_LOG2_SHIFT + 5)) - 1)),
            flow_max_log2: Constant::new((PIPE_BITS as u64).into()),
            pipe_ones: Constant::new(((1u64 << PIPE_BITS) - 1).into()),
            pipe_one: Constant::new(1u64.into()),
            low16: c32(0xFFFF),
            link_channels_r: Default::default(),
            link_active32: Default::default(),
            g_link_channels: off(global::LINK_CHANNELS),
            g_link_active: off(global::LINK_ACTIVE_CHANNELS),
            channels_max: c32(pendulum_layout::params::ACP_CHANNELS as u32),
            channels_all: Constant::new((pendulum_layout::params::ACP_CHANNELS as u64).into()),
            tx_acp_r: Default::default(),
            tx_atomic: Default::default(),
            atomic_rx_pipe: Default::default(),
            atomic_verb: Default::default(),
            atomic_error: Default::default(),
            tx_atomic_r: Default::default(),
            atomic_rx_pipe_r: Default::default(),
            g_atomic_rx_pipe: off(global::ATOMIC_RX_PIPE),
            four32: c32(4),
            g_link_state: off(global::LINK_STATE),
            g_link_ctrl: off(global::LINK_CTRL),
            g_link_seed: off(global::LINK_SEED),
            g_link_rx_pipe: off(global::LINK_RX_PIPE),
            pipes32: c32(PIPES as u32),
            two32: c32(2),
            cause_value: cause(RegError::BadValue),
            tx_tail_ok: Default::default(),
            tx_base_cat: Default::default(),
            tx_compl_cat: Default::default(),
            tx_tail32: Default::default(),
            tx_head32: Default::default(),
            tx_bytes64: Default::default(),
            tx_base_lo: Default::default(),
            tx_base_hi: Default::default(),
            tx_ring_bytes: Default::default(),
            tx_mask_r: Default::default(),
            tx_compl_lo: Default::default(),
            tx_compl_hi: Default::default(),
            tx_enable_r: Default::default(),
            tx_tail_r: Default::default(),
            tx_frames: Default::default(),
            tx_drops: Default::default(),
            p_tx_base_lo: off(pipe::TX_RING_BASE_LO),
            p_tx_base_hi: off(pipe::TX_RING_BASE_HI),
            p_tx_ring_bytes: off(pipe::TX_RING_BYTES),
            p_tx_compl_lo: off(pipe::TX_COMPL_BASE_LO),
            p_tx_compl_hi: off(pipe::TX_COMPL_BASE_HI),
            p_tx_ctrl: off(pipe::TX_CTRL),
            p_tx_tail: off(pipe::TX_TAIL),
            p_tx_head: off(pipe::TX_HEAD),
            p_tx_frames: off(pipe::TX_FRAMES),
            p_tx_drops: off(pipe::TX_DROPS),
            cause_tail: cause(RegError::TailBeyondHead),
            wr_addr: Default::default(),
            base_lo_ram: zeros(),
            base_hi_ram: zeros(),
            ring_bytes_ram: zeros(),
            nb_lo_ram: nb_zeros(),
            nb_hi_ram: nb_zeros(),
            nb_bytes_ram: nb_zeros(),
            nb_head_ram: nb_zeros(),
            nb_on: Default::default(),
            nb_bit: Default::default(),
            one_nb: Constant::new(1u64.into()),
            wr_buf: Default::default(),
            lk_buf: Default::default(),
            pg_nb_base: Default::default(),
            rd_is_nbuf: Default::default(),
            last_nbuf_page: Constant::new((NOTIF_BUFS as u64).into()),
            p_nb_lo: off(pipe::NBUF_BASE_LO),
            p_nb_hi: off(pipe::NBUF_BASE_HI),
            p_nb_bytes: off(pipe::NBUF_BYTES),
            p_nb_ctrl: off(pipe::NBUF_CTRL),
            p_nb_head: off(pipe::NBUF_HEAD),
            cause_nbuf_off: cause(RegError::NotifBufOff),
            enable_ram: (0..PIPES).map(|_| false).into(),
            head_ram: zeros(),
            tail_ram: zeros(),
            restart_wait: Default::default(),
            gh_v: Default::default(),
            gh_pipe: Default::default(),
            gh_value: Default::default(),
            err_r: Default::default(),
            err_word: Default::default(),
            fw_tail: Default::default(),
            fw_match: Default::default(),
            fw_tail_value: Default::default(),
            rx_frames: PipeCounter::new(),
            rx_drops: PipeCounter::new(),
            lk_addr: Default::default(),
            lk_pipe: Default::default(),
            in_addr: Default::default(),
            in_page: Default::default(),
            in_off: Default::default(),
            rd_in_page: Default::default(),
            pg_base: Default::default(),
            pg_mask: Default::default(),
            pg_tail: Default::default(),
            pg_head32: Default::default(),
            pg_tail32: Default::default(),
            head_ok: Default::default(),
            do_restart: Default::default(),
            do_head_wr: Default::default(),
            new_head: Default::default(),
            wr_pipe_l: Default::default(),
            wr_is_pipe: Default::default(),
            gate_head: Default::default(),
            gate_tail: Default::default(),
            gate_mask: Default::default(),
            gate_enable: Default::default(),
            gate_head_r: Default::default(),
            gate_tail_r: Default::default(),
            gate_mask_r: Default::default(),
            gate_enable_r: Default::default(),
            gate_pipe: Default::default(),
            gate_load: Default::default(),
            rd_v: Default::default(),
            rd_addr_r: Default::default(),
            rd_pipe: Default::default(),
            rd_is_pipe: Default::default(),
            rd_pipe32: Default::default(),
            last_pipe_page: Constant::new((PIPES as u64).into()),
            last_tx_page: Constant::new((TX_PIPES as u64).into()),
            wr_data: Default::default(),
            ring_slots: Default::default(),
            size_ok: Default::default(),
            names_pipe: Default::default(),
            ring_aligned: Default::default(),
            notif_aligned: Default::default(),
            rd_addr: Default::default(),
            wr_page: Default::default(),
            wr_off: Default::default(),
            wr_data16: Default::default(),
            wr_addr32: Default::default(),
            rd_page: Default::default(),
            rd_off: Default::default(),
            err: Default::default(),
            err_cause: Default::default(),
            rd_data: Default::default(),
            rd_hit: Default::default(),
            frame_bytes64: Default::default(),
            ctrl: Default::default(),
            scratch: Default::default(),
            session: Default::default(),
            reg_errors: Default::default(),
            last_err: Default::default(),
            counters: Default::default(),
            ev_r: Default::default(),
            ev_rx_pipe: Default::default(),
            ev_rx_bytes: Default::default(),
            ev_tx_pipe: Default::default(),
            ev_tx_bytes: Default::default(),
            wr_addr_r: Default::default(),
            wr_data_r: Default::default(),
            wr_apply: Default::default(),
            in_data: Default::default(),
            size_ok_r: Default::default(),
            names_pipe_r: Default::default(),
            ring_aligned_r: Default::default(),
            notif_aligned_r: Default::default(),
            flow_fallback_ok_r: Default::default(),
            tx_tail_ok_r: Default::default(),
            wr_check: Default::default(),
            head_ok_r: Default::default(),
            pk_enable: Default::default(),
            pk_ring_zero: Default::default(),
            pk_nb_zero: Default::default(),
            pk_base: Default::default(),
            pk_mask: Default::default(),
            pk_nb_base: Default::default(),
            pk_nb_mask: Default::default(),
            pk_head: Default::default(),
            pk_tail: Default::default(),
            pk_pipe: Default::default(),
            pk_nb_ctrl: Default::default(),
            wo_hit: std::array::from_fn(|_| Default::default()),
            wr_take: Default::default(),
            hi_latch: Default::default(),
            rsp_valid: Default::default(),
            rsp_data: Default::default(),
            const_off: std::array::from_fn(|k| off(consts[k].0)),
            const_val: std::array::from_fn(|k| c32(consts[k].1)),
            cnt_lo_off: std::array::from_fn(|k| off(global::COUNTERS[k])),
            cnt_hi_off: std::array::from_fn(|k| {
                Constant::new(((global::COUNTERS[k].offset + 4) as u64).into())
            }),
            g_ctrl: off(global::CTRL),
            g_scratch: off(global::SCRATCH),
            g_session: off(global::SESSION),
            g_reg_errors: off(global::REG_ERRORS),
            g_last_err: off(global::LAST_REG_ERROR),
            g_rx_overflow_drops: off(global::RX_OVERFLOW_DROPS),
            g_plain_end: Constant::new((plain_end as u64).into()),
            g_cnt_start: Constant::new((cnt_start as u64).into()),
            g_cnt_end: Constant::new((cnt_end as u64).into()),
            p_pipe_id: off(pipe::PIPE_ID),
            p_base_lo: off(pipe::RING_BASE_LO),
            p_base_hi: off(pipe::RING_BASE_HI),
            p_ring_bytes: off(pipe::RING_BYTES),
            p_ctrl: off(pipe::CTRL),
            p_head: off(pipe::HEAD),
            p_prefetch: off(pipe::NOTIF_PREFETCH),
            p_tail: off(pipe::TAIL),
            p_frames: off(pipe::RX_FRAMES),
            p_drops: off(pipe::DROP_RING_FULL),
            ring_min: c32(RING_MIN_BYTES),
            ring_max: c32(RING_MAX_BYTES),
            ring_align_mask: c32(pipe::RING_ALIGN as u32 - 1),
            notif_align_mask: c32(pipe::NOTIF_ALIGN as u32 - 1),
            cause_unknown: cause(RegError::UnknownAddress),
            cause_read_only: cause(RegError::ReadOnly),
            cause_ring_size: cause(RegError::BadRingSize),
            cause_misaligned: cause(RegError::Misaligned),
            cause_head: cause(RegError::HeadBeyondTail),
            cause_enabled: cause(RegError::PipeEnabled),
            all_ones: c32(u32::MAX),
            zero16: Constant::new(0u64.into()),
            one16: Constant::new(1u64.into()),
            zero32: c32(0),
            one32: c32(1),
            one64: Constant::new(1u64.into()),
            zero_off2: Constant::new(0u64.into()),
            page0: Constant::new(0u64.into()),
            off_bits: Constant::new((OFF_BITS as u64).into()),
        }
    }
}

impl Logic for RegFile {
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks and hold-by-default for every register.
        for i in 0..TX_PIPES {
            self.tx_base_lo[i].clock.next = self.clock.val();
            self.tx_base_lo[i].reset.next = self.reset.val();
            self.tx_base_hi[i].clock.next = self.clock.val();
            self.tx_base_hi[i].reset.next = self.reset.val();
            self.tx_ring_bytes[i].clock.next = self.clock.val();
            self.tx_ring_bytes[i].reset.next = self.reset.val();
            self.tx_mask_r[i].clock.next = self.clock.val();
            self.tx_mask_r[i].reset.next = self.reset.val();
            self.tx_compl_lo[i].clock.next = self.clock.val();
            self.tx_compl_lo[i].reset.next = self.reset.val();
            self.tx_compl_hi[i].clock.next = self.clock.val();
            self.tx_compl_hi[i].reset.next = self.reset.val();
            self.tx_enable_r[i].clock.next = self.clock.val();
            self.tx_enable_r[i].reset.next = self.reset.val();
            self.tx_tail_r[i].clock.next = self.clock.val();
            self.tx_tail_r[i].reset.next = self.reset.val();
            self.tx_frames[i].clock.next = self.clock.val();
            self.tx_frames[i].reset.next = self.reset.val();
            self.tx_drops[i].clock.next = self.clock.val();
            self.tx_drops[i].reset.next = self.reset.val();
            self.tx_base_lo[i].d.next = self.tx_base_lo[i].q.val();
            self.tx_base_hi[i].d.next = self.tx_base_hi[i].q.val();
            self.tx_ring_bytes[i].d.next = self.tx_ring_bytes[i].q.val();
            self.tx_mask_r[i].d.next = self.tx_mask_r[i].q.val();
            self.tx_compl_lo[i].d.next = self.tx_compl_lo[i].q.val();
            self.tx_compl_hi[i].d.next = self.tx_compl_hi[i].q.val();
            self.tx_enable_r[i].d.next = self.tx_enable_r[i].q.val();
            self.tx_tail_r[i].d.next = self.tx_tail_r[i].q.val();
            self.tx_frames[i].d.next = self.tx_frames[i].q.val();
            self.tx_drops[i].d.next = self.tx_drops[i].q.val();
            self.tx_acp_r[i].clock.next = self.clock.val();
            self.tx_acp_r[i].reset.next = self.reset.val();
            self.tx_acp_r[i].d.next = self.tx_acp_r[i].q.val();
            self.tx_acp[i].next = self.tx_acp_r[i].q.val();
            self.tx_atomic_r[i].clock.next = self.clock.val();
            self.tx_atomic_r[i].reset.next = self.reset.val();
            self.tx_atomic_r[i].d.next = self.tx_atomic_r[i].q.val();
            self.tx_atomic[i].next = self.tx_atomic_r[i].q.val();
        }
        for k in 0..FLOW_KEY_WORDS {
            self.flow_key_r[k].clock.next = self.clock.val();
            self.flow_key_r[k].reset.next = self.reset.val();
            self.flow_key_r[k].d.next = self.flow_key_r[k].q.val();
        }
        for k in 0..COUNTERS {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].reset.next = self.reset.val();
            self.counters[k].d.next = self.counters[k].q.val();
            self.ev_r[k].clock.next = self.clock.val();
            self.ev_r[k].reset.next = self.reset.val();
        }
        for i in 0..TX_PIPES {
            self.tx_tail_ok_r[i].clock.next = self.clock.val();
            self.tx_tail_ok_r[i].reset.next = self.reset.val();
        }
        for g in 0..GATES {
            self.gate_head_r[g].clock.next = self.clock.val();
            self.gate_head_r[g].reset.next = self.reset.val();
            self.gate_tail_r[g].clock.next = self.clock.val();
            self.gate_tail_r[g].reset.next = self.reset.val();
            self.gate_mask_r[g].clock.next = self.clock.val();
            self.gate_mask_r[g].reset.next = self.reset.val();
            self.gate_enable_r[g].clock.next = self.clock.val();
            self.gate_enable_r[g].reset.next = self.reset.val();
            self.gate_head_r[g].d.next = self.gate_head_r[g].q.val();
            self.gate_tail_r[g].d.next = self.gate_tail_r[g].q.val();
            self.gate_mask_r[g].d.next = self.gate_mask_r[g].q.val();
            self.gate_enable_r[g].d.next = self.gate_enable_r[g].q.val();
            self.gate_head[g].next = self.gate_head_r[g].q.val();
            self.gate_tail[g].next = self.gate_tail_r[g].q.val();
            self.gate_mask[g].next = self.gate_mask_r[g].q.val();
            self.gate_enable[g].next = self.gate_enable_r[g].q.val();
            self.gate_load[g].next = false;
        }
        dff_setup!(
            self,
            clock,
            ev_rx_pipe,
            ev_rx_bytes,
            ev_tx_pipe,
            ev_tx_bytes,
            wr_check,
            head_ok_r,
            pk_enable,
            pk_ring_zero,
            pk_nb_zero,
            pk_base,
            pk_mask,
            pk_nb_base,
            pk_nb_mask,
            pk_head,
            pk_tail,
            pk_pipe,
            pk_nb_ctrl,
            wr_addr_r,
            wr_data_r,
            wr_apply,
            size_ok_r,
            names_pipe_r,
            ring_aligned_r,
            notif_aligned_r,
            flow_fallback_ok_r,
            ctrl,
            scratch,
            session,
            reg_errors,
            last_err,
            hi_latch,
            rsp_valid,
            rsp_data,
            link_rx_pipe_r,
            link_seed_r,
            link_seed_pulse,
            link_channels_r,
            atomic_rx_pipe_r,
            flow_pipe_r,
            flow_default_r,
            flow_fallback_r,
            flow_fallback_set,
            flow_write_r,
            flow_write_pulse,
            restart_wait,
            gh_v,
            gh_pipe,
            gh_value,
            err_r,
            err_word,
            fw_tail,
            fw_match,
            fw_tail_value,
            lk_pipe,
            nb_on,
            rd_v,
            rd_addr_r
        );
        self.ev_rx_pipe.reset.next = self.reset.val();
        self.ev_rx_bytes.reset.next = self.reset.val();
        self.ev_tx_pipe.reset.next = self.reset.val();
        self.ev_tx_bytes.reset.next = self.reset.val();
        self.wr_check.reset.next = self.reset.val();
        self.head_ok_r.reset.next = self.reset.val();
        self.pk_enable.reset.next = self.reset.val();
        self.pk_ring_zero.reset.next = self.reset.val();
        self.pk_nb_zero.reset.next = self.reset.val();
        self.pk_base.reset.next = self.reset.val();
        self.pk_mask.reset.next = self.reset.val();
        self.pk_nb_base.reset.next = self.reset.val();
        self.pk_nb_mask.reset.next = self.reset.val();
        self.pk_head.reset.next = self.reset.val();
        self.pk_tail.reset.next = self.reset.val();
        self.pk_pipe.reset.next = self.reset.val();
        self.pk_nb_ctrl.reset.next = self.reset.val();
        self.wr_addr_r.reset.next = self.reset.val();
        self.wr_data_r.reset.next = self.reset.val();
        self.wr_apply.reset.next = self.reset.val();
        self.size_ok_r.reset.next = self.reset.val();
        self.names_pipe_r.reset.next = self.reset.val();
        self.ring_aligned_r.reset.next = self.reset.val();
        self.notif_aligned_r.reset.next = self.reset.val();
        self.flow_fallback_ok_r.reset.next = self.reset.val();
        self.ctrl.reset.next = self.reset.val();
        self.scratch.reset.next = self.reset.val();
        self.session.reset.next = self.reset.val();
        self.reg_errors.reset.next = self.reset.val();
        self.last_err.reset.next = self.reset.val();
        self.hi_latch.reset.next = self.reset.val();
        self.rsp_valid.reset.next = self.reset.val();
        self.rsp_data.reset.next = self.reset.val();
        self.link_rx_pipe_r.reset.next = self.reset.val();
        self.link_seed_r.reset.next = self.reset.val();
        self.link_seed_pulse.reset.next = self.reset.val();
        self.link_channels_r.reset.next = self.reset.val();
        self.atomic_rx_pipe_r.reset.next = self.reset.val();
        self.flow_pipe_r.reset.next = self.reset.val();
        self.flow_default_r.reset.next = self.reset.val();
        self.flow_fallback_r.reset.next = self.reset.val();
        self.flow_fallback_set.reset.next = self.reset.val();
        self.flow_write_r.reset.next = self.reset.val();
        self.flow_write_pulse.reset.next = self.reset.val();
        self.restart_wait.reset.next = self.reset.val();
        self.gh_v.reset.next = self.reset.val();
        self.gh_pipe.reset.next = self.reset.val();
        self.gh_value.reset.next = self.reset.val();
        self.err_r.reset.next = self.reset.val();
        self.err_word.reset.next = self.reset.val();
        self.fw_tail.reset.next = self.reset.val();
        self.fw_match.reset.next = self.reset.val();
        self.fw_tail_value.reset.next = self.reset.val();
        self.lk_pipe.reset.next = self.reset.val();
        self.nb_on.reset.next = self.reset.val();
        self.rd_v.reset.next = self.reset.val();
        self.rd_addr_r.reset.next = self.reset.val();
        self.base_lo_ram.read_clock.next = self.clock.val();
        self.base_lo_ram.write_clock.next = self.clock.val();
        self.base_hi_ram.read_clock.next = self.clock.val();
        self.base_hi_ram.write_clock.next = self.clock.val();
        self.ring_bytes_ram.read_clock.next = self.clock.val();
        self.ring_bytes_ram.write_clock.next = self.clock.val();
        self.nb_lo_ram.read_clock.next = self.clock.val();
        self.nb_lo_ram.write_clock.next = self.clock.val();
        self.nb_hi_ram.read_clock.next = self.clock.val();
        self.nb_hi_ram.write_clock.next = self.clock.val();
        self.nb_bytes_ram.read_clock.next = self.clock.val();
        self.nb_bytes_ram.write_clock.next = self.clock.val();
        self.nb_head_ram.read_clock.next = self.clock.val();
        self.nb_head_ram.write_clock.next = self.clock.val();
        self.enable_ram.read_clock.next = self.clock.val();
        self.enable_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();
        self.rx_frames.clock.next = self.clock.val();
        self.rx_frames.reset.next = self.reset.val();
        self.rx_drops.clock.next = self.clock.val();
        self.rx_drops.reset.next = self.reset.val();
        self.rx_frames.clear.active.next = self.clear.active.val();
        self.rx_frames.clear.addr.next = self.clear.addr.val();
        self.rx_drops.clear.active.next = self.clear.active.val();
        self.rx_drops.clear.addr.next = self.clear.addr.val();
        self.atomic_rx_pipe.next = self.atomic_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.link_channels.next = self.link_channels_r.q.val().get_bits::<CB1>(0);
        if self.link_channels_r.q.val() == self.zero32.val() {
            self.link_channels.next = self.channels_all.val();
        }
        self.link_active32.i.next = self.link_active.val();
        self.link_reset.next = false;
        self.link_seed_write.next = self.link_seed_pulse.q.val();
        self.link_seed_pulse.d.next = false;
        self.link_seed.next = self.link_seed_r.q.val();
        self.link_rx_pipe.next = self.link_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.link_state32.i.next = self.link_state.val();

        // ---- The pipe page the RAMs read ----
        // A write's page is read as it is accepted (`wr_take`), a read's
        // when no write is (see `s_rd.ready`).
        self.s_wr.ready.next =
            !self.wr_check.q.val() & !self.wr_apply.q.val() & !self.restart_wait.q.val();
        self.wr_take.next = self.s_wr.valid.val() & self.s_wr.ready.val();
        self.in_data.next = self.s_wr.data.val().data;
        // (A struct field cannot be sliced at a computed offset in Yosys.)
        self.in_addr.next = self.s_wr.data.val().addr;
        self.in_page.next = self
            .in_addr
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.in_off.next = self.in_addr.val().get_bits::<OFF_BITS>(0);
        self.rd_in_page.next = self
            .s_rd
            .data
            .val()
            .get_bits::<PIPE_BITS>(self.off_bits.val().index());
        // Pipe p's page is page p + 1.
        // (The low bits of page - 1 are the low bits of the page, minus 1.)
        self.lk_addr.next = self.rd_in_page.val() - self.pipe_one.val();
        if self.wr_take.val() {
            self.lk_addr.next = self.in_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
            if (self.in_page.val() == self.page0.val())
                & ((self.in_off.val() == self.g_link_rx_pipe.val())
                    | (self.in_off.val() == self.g_atomic_rx_pipe.val()))
            {
                // A gate's new pipe: its page loads the gate's state.
                self.lk_addr.next = self.in_data.val().get_bits::<PIPE_BITS>(0);
            }
        }
        self.lk_pipe.d.next = self.lk_addr.val();
        self.base_lo_ram.read_address.next = self.lk_addr.val();
        self.base_hi_ram.read_address.next = self.lk_addr.val();
        self.ring_bytes_ram.read_address.next = self.lk_addr.val();
        // Buffer b's registers are on pipe b's page.
        self.lk_buf.next = self.lk_addr.val().get_bits::<NOTIF_BUF_BITS>(0);
        self.nb_lo_ram.read_address.next = self.lk_buf.val();
        self.nb_hi_ram.read_address.next = self.lk_buf.val();
        self.nb_bytes_ram.read_address.next = self.lk_buf.val();
        self.nb_head_ram.read_address.next = self.lk_buf.val();
        self.enable_ram.read_address.next = self.lk_addr.val();
        self.head_ram.read_address.next = self.lk_addr.val();
        self.tail_ram.read_address.next = self.lk_addr.val();
        self.rx_frames.rd_pipe.next = self.lk_addr.val();
        self.rx_drops.rd_pipe.next = self.lk_addr.val();
        // The page read last cycle.
        self.pg_base.hi.next = self.base_hi_ram.read_data.val();
        self.pg_base.lo.next = self.base_lo_ram.read_data.val();
        self.pg_nb_base.hi.next = self.nb_hi_ram.read_data.val();
        self.pg_nb_base.lo.next = self.nb_lo_ram.read_data.val();
        // Slots minus one: bytes / 64 - 1 (0 - 1 before the ring is set; the
        // pipe cannot be on then).
        self.pg_mask.next =
            self.ring_bytes_ram.read_data.val().get_bits::<SLOT_BITS>(6) - self.one16.val();
        self.pg_tail.next = self.tail_ram.read_data.val();
        // (The pipes compared as the read was issued: `fw_match`.)
        self.fw_match.d.next = self.events.pipe.val() == self.lk_addr.val();
        if self.fw_tail.q.val() & self.fw_match.q.val() {
            self.pg_tail.next = self.fw_tail_value.q.val();
        }
        self.pg_head32.i.next = self.head_ram.read_data.val();
        self.pg_tail32.i.next = self.pg_tail.val();

        // ---- Tails, from the RX engine ----
        self.tail_ram.write_enable.next = self.events.frame.val() | self.events.restart.val();
        self.tail_ram.write_address.next = self.events.pipe.val();
        self.tail_ram.write_data.next = self.events.tail.val();
        if self.events.restart.val() {
            self.tail_ram.write_data.next = self.zero16.val();
        }
        self.fw_tail.d.next = self.tail_ram.write_enable.val();
        self.fw_tail_value.d.next = self.tail_ram.write_data.val();

        // Outputs to the datapath.
        for i in 0..TX_PIPES {
            self.tx_base_cat[i].hi.next = self.tx_base_hi[i].q.val();
            self.tx_base_cat[i].lo.next = self.tx_base_lo[i].q.val();
            self.tx_base[i].next = self.tx_base_cat[i].o.val();
            self.tx_compl_cat[i].hi.next = self.tx_compl_hi[i].q.val();
            self.tx_compl_cat[i].lo.next = self.tx_compl_lo[i].q.val();
            self.tx_mask[i].next = self.tx_mask_r[i].q.val();
            self.tx_enable[i].next = self.tx_enable_r[i].q.val();
            self.tx_tail[i].next = self.tx_tail_r[i].q.val();
            self.tx_tail32[i].i.next = self.tx_tail_r[i].q.val();
            self.tx_head32[i].i.next = self.tx_head[i].val();
        }
        self.per_packet_notif.next = self.ctrl.q.val().get_bit(0);
        self.rearm.next = false;
        self.do_restart.next = false;
        self.do_head_wr.next = false;
        self.tx_restart_compl_base.next = self.tx_compl_cat[0].o.val();
        self.tx_restart.next = false;

        // ---- Writes ----
        // One write every other cycle (see the block's comment).
        self.wr_check.d.next = self.wr_take.val();
        self.wr_apply.d.next = self.wr_check.q.val();
        if self.wr_take.val() {
            self.wr_addr_r.d.next = self.s_wr.data.val().addr;
            self.wr_data_r.d.next = self.in_data.val();
        }
        for k in 0..FLOW_FULL_WORDS {
            self.flow_key_join.i[k].next = self.flow_key_r[k].q.val();
        }
        self.flow_key_cat.lo.next = self.flow_key_join.o.val();
        for k in FLOW_FULL_WORDS..FLOW_KEY_WORDS {
            self.flow_key_cat.hi.next = self.flow_key_r[k].q.val().get_bits::<FLOW_LAST_BITS>(0);
        }
        self.flow_fallback.next = self.flow_all_pipes.val();
        if self.flow_fallback_set.q.val() {
            self.flow_fallback.next = self.flow_fallback_r.q.val();
        }
        self.flow_key.next = self.flow_key_cat.o.val();
        self.flow_pipe.next = self.flow_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.flow_default_pipe.next = self.flow_default_r.q.val().get_bits::<PIPE_BITS>(0);
        self.flow_fallback_first.next = self.flow_fallback.val().get_bits::<PIPE_BITS>(0);
        self.flow_fallback_mask.next =
            !(self.pipe_ones.val() << self.flow_fallback.val().get_bits::<5>(16));
        self.flow_table_wr.next = self.flow_write_pulse.q.val();
        self.flow_table_slot.next = self.flow_write_r.q.val().get_bits::<FLOW_SLOT_BITS>(0);
        self.flow_table_valid.next = self.flow_write_r.q.val().get_bit(31);
        self.flow_write_pulse.d.next = false;
        self.wr_addr.next = self.wr_addr_r.q.val();
        self.wr_data.next = self.wr_data_r.q.val();
        self.wr_page.next = self
            .wr_addr
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.wr_off.next = self.wr_addr.val().get_bits::<OFF_BITS>(0);
        self.wr_pipe_l.next = self.wr_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.wr_pipe.next = self.wr_pipe_l.val();
        self.wr_is_pipe.next = (self.wr_page.val() != self.page0.val())
            & (self.wr_page.val() <= self.last_pipe_page.val());
        self.wr_data16.next = self.wr_data.val().get_bits::<SLOT_BITS>(0);
        self.new_head.next = self.wr_data16.val();
        self.wr_addr32.i.next = self.wr_addr.val();
        // FLOW_FALLBACK: count a power of two up to all pipes, first + count
        // within the pipes, reserved bits clear.
        self.flow_fallback_ok_r.d.next = ((self.wr_data.val() & self.flow_fallback_reserved.val())
            == self.zero32.val())
            & (self.wr_data.val().get_bits::<5>(16) <= self.flow_max_log2.val())
            & (((self.wr_data.val() & self.low16.val())
                + (self.one32.val() << self.wr_data.val().get_bits::<5>(16)))
                <= self.pipes32.val());
        self.flow_fallback_ok.next = self.flow_fallback_ok_r.q.val();
        self.ring_slots.next = self.wr_data.val().get_bits::<SLOT_BITS>(6);
        // The value checks shared by the RX and TX ring registers, once per write.
        self.size_ok_r.d.next = ((self.wr_data.val() & (self.wr_data.val() - self.one32.val()))
            == self.zero32.val())
            & (self.wr_data.val() >= self.ring_min.val())
            & (self.wr_data.val() <= self.ring_max.val());
        self.size_ok.next = self.size_ok_r.q.val();
        self.names_pipe_r.d.next = self.wr_data.val() < self.pipes32.val();
        self.names_pipe.next = self.names_pipe_r.q.val();
        self.ring_aligned_r.d.next =
            (self.wr_data.val() & self.ring_align_mask.val()) == self.zero32.val();
        self.ring_aligned.next = self.ring_aligned_r.q.val();
        self.notif_aligned_r.d.next =
            (self.wr_data.val() & self.notif_align_mask.val()) == self.zero32.val();
        self.notif_aligned.next = self.notif_aligned_r.q.val();
        self.err.next = false;
        self.err_cause.next = self.zero32.val();
        // The new head must lie in the ring and between the old head and the tail.
        self.head_ok_r.d.next = (self.wr_data.val().get_bits::<16>(16) == self.zero16.val())
            & ((self.wr_data16.val() & !self.pg_mask.val()) == self.zero16.val())
            & (((self.wr_data16.val() - self.head_ram.read_data.val()) & self.pg_mask.val())
                <= ((self.pg_tail.val() - self.head_ram.read_data.val()) & self.pg_mask.val()));
        self.head_ok.next = self.head_ok_r.q.val();
        // The page, as the check stage read it, for the apply stage.
        self.pk_enable.d.next = self.enable_ram.read_data.val();
        self.pk_ring_zero.d.next = self.ring_bytes_ram.read_data.val() == self.zero32.val();
        self.pk_nb_zero.d.next = self.nb_bytes_ram.read_data.val() == self.zero32.val();
        self.pk_base.d.next = self.pg_base.o.val();
        self.pk_mask.d.next = self.pg_mask.val();
        self.pk_nb_base.d.next = self.pg_nb_base.o.val();
        // Records minus one: bytes / 16 - 1.
        self.pk_nb_mask.d.next =
            (self.nb_bytes_ram.read_data.val() >> self.four32.val()) - self.one32.val();
        self.pk_head.d.next = self.head_ram.read_data.val();
        self.pk_pipe.d.next = self.lk_pipe.q.val();
        self.pk_tail.d.next = self.pg_tail.val();
        if self.events.pipe.val() == self.lk_pipe.q.val() {
            if self.events.frame.val() {
                self.pk_tail.d.next = self.events.tail.val();
            }
            if self.events.restart.val() {
                self.pk_tail.d.next = self.zero16.val();
            }
        }
        for i in 0..TX_PIPES {
            // The new TX tail must lie in the ring and advance only into free slots
            // (one slot stays empty so a full ring differs from an empty one).
            self.tx_tail_ok_r[i].d.next = (self.wr_data.val().get_bits::<16>(16)
                == self.zero16.val())
                & ((self.wr_data16.val() & !self.tx_mask_r[i].q.val()) == self.zero16.val())
                & (((self.wr_data16.val() - self.tx_tail_r[i].q.val())
                    & self.tx_mask_r[i].q.val())
                    <= (self.tx_mask_r[i].q.val()
                        - ((self.tx_tail_r[i].q.val() - self.tx_head[i].val())
                            & self.tx_mask_r[i].q.val())));
            self.tx_tail_ok[i].next = self.tx_tail_ok_r[i].q.val();
        }
        self.base_lo_ram.write_enable.next = false;
        self.base_lo_ram.write_address.next = self.wr_pipe_l.val();
        self.base_lo_ram.write_data.next = self.wr_data.val();
        self.base_hi_ram.write_enable.next = false;
        self.base_hi_ram.write_address.next = self.wr_pipe_l.val();
        self.base_hi_ram.write_data.next = self.wr_data.val();
        self.ring_bytes_ram.write_enable.next = false;
        self.ring_bytes_ram.write_address.next = self.wr_pipe_l.val();
        self.ring_bytes_ram.write_data.next = self.wr_data.val();
        // The pipe's notification buffer: the low bits of its index.
        self.wr_buf.next = self.wr_pipe_l.val().get_bits::<NOTIF_BUF_BITS>(0);
        self.nb_bit.next = self.one_nb.val() << self.wr_buf.val();
        self.nb_lo_ram.write_enable.next = false;
        self.nb_lo_ram.write_address.next = self.wr_buf.val();
        self.nb_lo_ram.write_data.next = self.wr_data.val();
        self.nb_hi_ram.write_enable.next = false;
        self.nb_hi_ram.write_address.next = self.wr_buf.val();
        self.nb_hi_ram.write_data.next = self.wr_data.val();
        self.nb_bytes_ram.write_enable.next = false;
        self.nb_bytes_ram.write_address.next = self.wr_buf.val();
        self.nb_bytes_ram.write_data.next = self.wr_data.val();
        self.nb_head_ram.write_enable.next = false;
        self.nb_head_ram.write_address.next = self.wr_buf.val();
        // A buffer's head is written with the value, or 0 as NBUF_CTRL switches
        // it on: chosen by the offset alone, decoded in the check stage.
        self.pk_nb_ctrl.d.next = self.wr_off.val() == self.p_nb_ctrl.val();
        self.nb_head_ram.write_data.next = self.wr_data.val();
        if self.pk_nb_ctrl.q.val() {
            self.nb_head_ram.write_data.next = self.zero32.val();
        }
        self.nbuf_cfg.next = false;
        self.nbuf_cfg_on.next = self.wr_data.val().get_bit(0);
        self.nbuf_cfg_base.next = self.pk_nb_base.q.val();
        self.nbuf_cfg_mask.next = self.pk_nb_mask.q.val();
        self.nbuf_head_wr.next = false;
        self.nbuf_head.next = self.wr_data.val();
        self.enable_ram.write_enable.next = false;
        self.enable_ram.write_address.next = self.wr_pipe_l.val();
        self.enable_ram.write_data.next = self.wr_data.val().get_bit(0);
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.wr_off.val() == self.g_ctrl.val();
        self.wo_hit[1].d.next = self.wr_off.val() == self.g_scratch.val();
        self.wo_hit[2].d.next = self.wr_off.val() == self.g_link_ctrl.val();
        self.wo_hit[3].d.next = self.wr_off.val() == self.g_link_seed.val();
        self.wo_hit[4].d.next = self.wr_off.val() == self.g_link_channels.val();
        self.wo_hit[5].d.next = self.wr_off.val() == self.g_link_active.val();
        self.wo_hit[6].d.next = self.wr_off.val() == self.g_link_state.val();
        self.wo_hit[7].d.next = self.wr_off.val() == self.g_atomic_rx_pipe.val();
        self.wo_hit[8].d.next = self.wr_off.val() == self.g_link_rx_pipe.val();
        self.wo_hit[9].d.next = self.wr_off.val() == self.g_flow_default.val();
        self.wo_hit[10].d.next = self.wr_off.val() == self.g_flow_pipe.val();
        self.wo_hit[11].d.next = self.wr_off.val() == self.g_flow_fallback.val();
        self.wo_hit[12].d.next = self.wr_off.val() == self.g_flow_write.val();
        self.wo_hit[13].d.next = self.wr_off.val() == self.g_flow_cap.val();
        self.wo_hit[14].d.next = self.wr_off.val() == self.p_base_lo.val();
        self.wo_hit[15].d.next = self.wr_off.val() == self.p_base_hi.val();
        self.wo_hit[16].d.next = self.wr_off.val() == self.p_ring_bytes.val();
        self.wo_hit[17].d.next = self.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[18].d.next = self.wr_off.val() == self.p_head.val();
        self.wo_hit[19].d.next = self.wr_off.val() == self.p_prefetch.val();
        self.wo_hit[20].d.next = self.wr_off.val() == self.p_pipe_id.val();
        self.wo_hit[21].d.next = self.wr_off.val() == self.p_tail.val();
        self.wo_hit[22].d.next = self.wr_off.val() == self.p_frames.val();
        self.wo_hit[23].d.next = self.wr_off.val() == self.p_drops.val();
        self.wo_hit[24].d.next = self.wr_off.val() == self.p_tx_head.val();
        self.wo_hit[25].d.next = self.wr_off.val() == self.p_tx_frames.val();
        self.wo_hit[26].d.next = self.wr_off.val() == self.p_tx_drops.val();
        self.wo_hit[27].d.next = self.wr_off.val() == self.p_tx_base_lo.val();
        self.wo_hit[28].d.next = self.wr_off.val() == self.p_tx_base_hi.val();
        self.wo_hit[29].d.next = self.wr_off.val() == self.p_tx_ring_bytes.val();
        self.wo_hit[30].d.next = self.wr_off.val() == self.p_tx_compl_lo.val();
        self.wo_hit[31].d.next = self.wr_off.val() == self.p_tx_compl_hi.val();
        self.wo_hit[32].d.next = self.wr_off.val() == self.p_tx_ctrl.val();
        self.wo_hit[33].d.next = self.wr_off.val() == self.p_tx_tail.val();
        self.wo_hit[34].d.next = self.wr_off.val() == self.p_nb_lo.val();
        self.wo_hit[35].d.next = self.wr_off.val() == self.p_nb_hi.val();
        self.wo_hit[36].d.next = self.wr_off.val() == self.p_nb_bytes.val();
        self.wo_hit[37].d.next = self.wr_off.val() == self.p_nb_ctrl.val();
        self.wo_hit[38].d.next = self.wr_off.val() == self.p_nb_head.val();
        self.wo_hit[39].d.next = self.wr_off.val() == self.g_session.val();
        for k in 0..40 {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        if self.wr_apply.q.val() {
            if self.wr_off.val().get_bits::<2>(0) != self.zero_off2.val() {
                self.err.next = true;
                self.err_cause.next = self.cause_unknown.val();
            } else if self.wr_page.val() == self.page0.val() {
                if self.wo_hit[0].q.val() {
                    self.ctrl.d.next = self.wr_data.val();
                } else if self.wo_hit[1].q.val() {
                    self.scratch.d.next = self.wr_data.val();
                } else if self.wo_hit[39].q.val() {
                    self.session.d.next = self.wr_data.val();
                } else if self.wo_hit[2].q.val() {
                    self.link_reset.next = self.wr_data.val().get_bit(0);
                } else if self.wo_hit[3].q.val() {
                    self.link_seed_r.d.next = self.wr_data.val();
                    self.link_seed_pulse.d.next = true;
                } else if self.wo_hit[4].q.val() {
                    if self.wr_data.val() <= self.channels_max.val() {
                        self.link_channels_r.d.next = self.wr_data.val();
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    }
                } else if (self.wo_hit[5].q.val()) | (self.wo_hit[6].q.val()) {
                    self.err.next = true;
                    self.err_cause.next = self.cause_read_only.val();
                } else if self.wo_hit[7].q.val() {
                    if self.names_pipe.val() {
                        self.atomic_rx_pipe_r.d.next = self.wr_data.val();
                        self.gate_load[1].next = true;
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    }
                } else if self.wo_hit[8].q.val() {
                    if self.names_pipe.val() {
                        self.link_rx_pipe_r.d.next = self.wr_data.val();
                        self.gate_load[0].next = true;
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    }
                } else if (self.wo_hit[9].q.val()) | (self.wo_hit[10].q.val()) {
                    if !self.names_pipe.val() {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    } else if self.wo_hit[9].q.val() {
                        self.flow_default_r.d.next = self.wr_data.val();
                    } else {
                        self.flow_pipe_r.d.next = self.wr_data.val();
                    }
                } else if self.wo_hit[11].q.val() {
                    if self.flow_fallback_ok.val() {
                        self.flow_fallback_r.d.next = self.wr_data.val();
                        self.flow_fallback_set.d.next = true;
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    }
                } else if self.wo_hit[12].q.val() {
                    if (self.wr_data.val() & self.flow_write_reserved.val()) == self.zero32.val() {
                        self.flow_write_r.d.next = self.wr_data.val();
                        self.flow_write_pulse.d.next = true;
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_value.val();
                    }
                } else if (self.wr_off.val() >= self.g_flow_key_first.val())
                    & (self.wr_off.val() <= self.g_flow_key_last.val())
                {
                    for k in 0..FLOW_KEY_WORDS {
                        if self.wr_off.val() == self.g_flow_key[k].val() {
                            self.flow_key_r[k].d.next = self.wr_data.val();
                        }
                    }
                } else if (self.wr_off.val() < self.g_plain_end.val())
                    | (self.wo_hit[13].q.val())
                    | (self.wr_off.val() < self.g_plain_end.val())
                    | ((self.wr_off.val() >= self.g_cnt_start.val())
                        & (self.wr_off.val() < self.g_cnt_end.val()))
                {
                    self.err.next = true;
                    self.err_cause.next = self.cause_read_only.val();
                } else {
                    self.err.next = true;
                    self.err_cause.next = self.cause_unknown.val();
                }
            } else if self.wr_is_pipe.val() {
                // An RX register: the page was read as the write was accepted.
                if (self.wo_hit[14].q.val()) | (self.wo_hit[15].q.val()) | (self.wo_hit[16].q.val())
                {
                    if self.pk_enable.q.val() {
                        self.err.next = true;
                        self.err_cause.next = self.cause_enabled.val();
                    } else if self.wo_hit[14].q.val() {
                        if !self.ring_aligned.val() {
                            self.err.next = true;
                            self.err_cause.next = self.cause_misaligned.val();
                        } else {
                            self.base_lo_ram.write_enable.next = true;
                        }
                    } else if self.wo_hit[15].q.val() {
                        self.base_hi_ram.write_enable.next = true;
                    } else {
                        // RING_BYTES (the branch's offsets end here).
                        if !self.size_ok.val() {
                            self.err.next = true;
                            self.err_cause.next = self.cause_ring_size.val();
                        } else {
                            self.ring_bytes_ram.write_enable.next = true;
                        }
                    }
                } else if self.wo_hit[17].q.val() {
                    if self.wr_data.val().get_bit(0) & self.pk_ring_zero.q.val() {
                        // A pipe cannot be enabled before it has a ring.
                        self.err.next = true;
                        self.err_cause.next = self.cause_ring_size.val();
                    } else if self.wr_data.val().get_bit(0)
                        & !self.pk_enable.q.val()
                        & !self.nb_on.q.val().get_bit(self.wr_buf.val().index())
                    {
                        // Nor switched on with nowhere to announce its frames.
                        self.err.next = true;
                        self.err_cause.next = self.cause_nbuf_off.val();
                    } else {
                        self.enable_ram.write_enable.next = true;
                        self.do_restart.next =
                            self.wr_data.val().get_bit(0) != self.pk_enable.q.val();
                        if self.wr_data.val().get_bit(0) & !self.pk_enable.q.val() {
                            self.do_head_wr.next = true;
                            self.new_head.next = self.zero16.val();
                        }
                    }
                } else if self.wo_hit[18].q.val() {
                    if self.head_ok.val() {
                        self.do_head_wr.next = true;
                        self.rearm.next = true;
                    } else {
                        self.err.next = true;
                        self.err_cause.next = self.cause_head.val();
                    }
                } else if self.wo_hit[19].q.val() {
                    self.rearm.next = true;
                } else if (self.wo_hit[20].q.val())
                    | (self.wo_hit[21].q.val())
                    | (self.wo_hit[22].q.val())
                    | (self.wo_hit[23].q.val())
                    | (self.wo_hit[24].q.val())
                    | (self.wo_hit[25].q.val())
                    | (self.wo_hit[26].q.val())
                {
                    self.err.next = true;
                    self.err_cause.next = self.cause_read_only.val();
                } else if ((self.wo_hit[27].q.val())
                    | (self.wo_hit[28].q.val())
                    | (self.wo_hit[29].q.val())
                    | (self.wo_hit[30].q.val())
                    | (self.wo_hit[31].q.val())
                    | (self.wo_hit[32].q.val())
                    | (self.wo_hit[33].q.val()))
                    & (self.wr_page.val() <= self.last_tx_page.val())
                {
                    // A TX register, on a page of one of the TX pipes.
                    for i in 0..TX_PIPES {
                        if self.wr_pipe_l.val().index() == i {
                            if (self.wo_hit[27].q.val())
                                | (self.wo_hit[28].q.val())
                                | (self.wo_hit[29].q.val())
                                | (self.wo_hit[30].q.val())
                                | (self.wo_hit[31].q.val())
                            {
                                if self.tx_enable_r[i].q.val() {
                                    self.err.next = true;
                                    self.err_cause.next = self.cause_enabled.val();
                                } else if self.wo_hit[27].q.val() {
                                    if !self.ring_aligned.val() {
                                        self.err.next = true;
                                        self.err_cause.next = self.cause_misaligned.val();
                                    } else {
                                        self.tx_base_lo[i].d.next = self.wr_data.val();
                                    }
                                } else if self.wo_hit[28].q.val() {
                                    self.tx_base_hi[i].d.next = self.wr_data.val();
                                } else if self.wo_hit[29].q.val() {
                                    if !self.size_ok.val() {
                                        self.err.next = true;
                                        self.err_cause.next = self.cause_ring_size.val();
                                    } else {
                                        self.tx_ring_bytes[i].d.next = self.wr_data.val();
                                        self.tx_mask_r[i].d.next =
                                            self.ring_slots.val() - self.one16.val();
                                    }
                                } else if self.wo_hit[30].q.val() {
                                    if !self.notif_aligned.val() {
                                        self.err.next = true;
                                        self.err_cause.next = self.cause_misaligned.val();
                                    } else {
                                        self.tx_compl_lo[i].d.next = self.wr_data.val();
                                    }
                                } else {
                                    self.tx_compl_hi[i].d.next = self.wr_data.val();
                                }
                            } else if self.wo_hit[32].q.val() {
                                if self.wr_data.val().get_bit(0)
                                    & (self.tx_ring_bytes[i].q.val() == self.zero32.val())
                                {
                                    self.err.next = true;
                                    self.err_cause.next = self.cause_ring_size.val();
                                } else {
                                    self.tx_enable_r[i].d.next = self.wr_data.val().get_bit(0);
                                    self.tx_restart.next = self.wr_data.val().get_bit(0)
                                        != self.tx_enable_r[i].q.val();
                                    self.tx_restart_compl_base.next = self.tx_compl_cat[i].o.val();
                                    self.tx_acp_r[i].d.next = self.wr_data.val().get_bit(1);
                                    self.tx_atomic_r[i].d.next = self.wr_data.val().get_bit(2);
                                    if !self.wr_data.val().get_bit(0) {
                                        self.tx_tail_r[i].d.next = self.zero16.val();
                                    }
                                }
                            } else {
                                // TX_TAIL (the branch's offsets end here).
                                if self.tx_tail_ok[i].val() & self.tx_enable_r[i].q.val() {
                                    self.tx_tail_r[i].d.next = self.wr_data16.val();
                                } else {
                                    self.err.next = true;
                                    self.err_cause.next = self.cause_tail.val();
                                }
                            }
                        }
                    }
                } else if ((self.wo_hit[34].q.val())
                    | (self.wo_hit[35].q.val())
                    | (self.wo_hit[36].q.val())
                    | (self.wo_hit[37].q.val())
                    | (self.wo_hit[38].q.val()))
                    & (self.wr_page.val() <= self.last_nbuf_page.val())
                {
                    // A notification buffer's register, on a page of one of
                    // the buffers (the page read as the write was accepted).
                    if (self.wo_hit[34].q.val())
                        | (self.wo_hit[35].q.val())
                        | (self.wo_hit[36].q.val())
                    {
                        if self.nb_on.q.val().get_bit(self.wr_buf.val().index()) {
                            self.err.next = true;
                            self.err_cause.next = self.cause_enabled.val();
                        } else if self.wo_hit[34].q.val() {
                            if !self.notif_aligned.val() {
                                self.err.next = true;
                                self.err_cause.next = self.cause_misaligned.val();
                            } else {
                                self.nb_lo_ram.write_enable.next = true;
                            }
                        } else if self.wo_hit[35].q.val() {
                            self.nb_hi_ram.write_enable.next = true;
                        } else if !self.size_ok.val() {
                            self.err.next = true;
                            self.err_cause.next = self.cause_ring_size.val();
                        } else {
                            self.nb_bytes_ram.write_enable.next = true;
                        }
                    } else if self.wo_hit[37].q.val() {
                        if self.wr_data.val().get_bit(0) & self.pk_nb_zero.q.val() {
                            self.err.next = true;
                            self.err_cause.next = self.cause_ring_size.val();
                        } else if self.wr_data.val().get_bit(0) {
                            self.nb_on.d.next = self.nb_on.q.val() | self.nb_bit.val();
                            self.nbuf_cfg.next =
                                !self.nb_on.q.val().get_bit(self.wr_buf.val().index());
                            if !self.nb_on.q.val().get_bit(self.wr_buf.val().index()) {
                                // Switched on: nothing read yet.
                                self.nb_head_ram.write_enable.next = true;
                            }
                        } else {
                            self.nb_on.d.next = self.nb_on.q.val() & !self.nb_bit.val();
                            self.nbuf_cfg.next =
                                self.nb_on.q.val().get_bit(self.wr_buf.val().index());
                        }
                    } else {
                        // NBUF_HEAD (the branch's offsets end here).
                        self.nb_head_ram.write_enable.next = true;
                        self.nbuf_head_wr.next = true;
                    }
                } else {
                    self.err.next = true;
                    self.err_cause.next = self.cause_unknown.val();
                }
            } else {
                self.err.next = true;
                self.err_cause.next = self.cause_unknown.val();
            }
        }
        self.restart.next = self.do_restart.val();
        self.restart_base.next = self.pk_base.q.val();
        self.restart_mask.next = self.pk_mask.q.val();
        self.restart_enable.next = self.wr_data.val().get_bit(0);
        self.head_wr.next = self.do_head_wr.val();
        self.wr_head.next = self.new_head.val();
        self.head_ram.write_enable.next = self.do_head_wr.val();
        self.head_ram.write_address.next = self.wr_pipe_l.val();
        self.head_ram.write_data.next = self.new_head.val();
        self.restart_wait.d.next = self.do_restart.val();

        // ---- The gates' pipes ----
        // Each follows its pipe's events; naming another pipe loads that
        // pipe's page, read as the write was accepted (no other write changes
        // a page in between, and this cycle's tail event is taken below).
        self.gate_pipe[0].next = self.link_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.gate_pipe[1].next = self.atomic_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        for g in 0..GATES {
            if self.gate_load[g].val() {
                self.gate_head_r[g].d.next = self.pk_head.q.val();
                self.gate_tail_r[g].d.next = self.pk_tail.q.val();
                self.gate_mask_r[g].d.next = self.pk_mask.q.val();
                self.gate_enable_r[g].d.next = self.pk_enable.q.val();
                if self.events.frame.val() & (self.events.pipe.val() == self.pk_pipe.q.val()) {
                    self.gate_tail_r[g].d.next = self.events.tail.val();
                }
            } else {
                // The RX engine's events, in its order: a restart (tail 0,
                // the new ring) and the tails it publishes.
                if self.events.pipe.val() == self.gate_pipe[g].val() {
                    if self.events.frame.val() {
                        self.gate_tail_r[g].d.next = self.events.tail.val();
                    }
                    if self.events.restart.val() {
                        self.gate_tail_r[g].d.next = self.zero16.val();
                        self.gate_mask_r[g].d.next = self.events.restart_mask.val();
                        self.gate_enable_r[g].d.next = self.events.restart_enable.val();
                    }
                }
                // A head write, a cycle late (the gate then sees less room,
                // never more); a restart closes the gate at once, until the
                // engine has applied it.
                if self.gh_v.q.val() & (self.gh_pipe.q.val() == self.gate_pipe[g].val()) {
                    self.gate_head_r[g].d.next = self.gh_value.q.val();
                }
                if self.do_restart.val() & (self.wr_pipe_l.val() == self.gate_pipe[g].val()) {
                    self.gate_enable_r[g].d.next = false;
                }
            }
        }
        self.gh_v.d.next = self.do_head_wr.val();
        self.gh_pipe.d.next = self.wr_pipe_l.val();
        self.gh_value.d.next = self.new_head.val();

        // A refused write is counted a cycle later.
        self.err_r.d.next = self.err.val();
        self.err_word.d.next = self.err_cause.val() | self.wr_addr32.o.val();
        if self.err_r.q.val() {
            self.reg_errors.d.next = self.reg_errors.q.val() + self.one32.val();
            self.last_err.d.next = self.err_word.q.val();
        }

        // ---- Counters ----
        self.ev_r[0].d.next = self.events.frame.val();
        self.ev_r[1].d.next = self.events.frame.val();
        self.ev_r[2].d.next = self.events.drop_ring_full.val();
        self.ev_r[3].d.next = self.events.drop_malformed.val();
        self.ev_r[4].d.next = self.events.drop_pipe_off.val();
        self.ev_r[5].d.next = self.events.notification.val();
        self.ev_r[6].d.next = self.tx_events.frame.val();
        self.ev_r[7].d.next = self.tx_events.frame.val();
        self.ev_r[8].d.next = self.tx_events.drop_malformed.val();
        self.ev_r[9].d.next = self.tx_events.completion.val();
        self.ev_r[10].d.next = self.link_events.record.val();
        self.ev_r[11].d.next = self.link_events.bad_check.val();
        self.ev_r[12].d.next = self.link_events.bad_record.val();
        self.ev_r[13].d.next = self.link_events.commit.val();
        self.ev_r[14].d.next = self.link_events.deliver.val();
        self.ev_r[15].d.next = self.link_events.reject.val();
        self.ev_r[16].d.next = self.link_events.reverse.val();
        self.ev_r[17].d.next = self.link_events.failure.val();
        self.ev_r[18].d.next = self.link_events.entangle.val();
        self.ev_r[19].d.next = self.link_events.returned.val();
        self.ev_r[20].d.next = self.atomic_verb.val();
        self.ev_r[21].d.next = self.atomic_error.val();
        self.ev_r[22].d.next = self.flow_hit.val();
        self.ev_r[23].d.next = self.flow_miss.val();
        self.ev_rx_pipe.d.next = self.events.pipe.val();
        self.ev_rx_bytes.d.next = self.events.frame_bytes.val();
        self.ev_tx_pipe.d.next = self.tx_events.pipe.val();
        self.ev_tx_bytes.d.next = self.tx_events.frame_bytes.val();
        for k in 0..COUNTERS {
            if self.ev_r[k].q.val() {
                self.counters[k].d.next = self.counters[k].q.val() + self.one64.val();
            }
        }
        // The two byte counters add the frame's length instead of one.
        self.frame_bytes64.i.next = self.ev_rx_bytes.q.val();
        if self.ev_r[1].q.val() {
            self.counters[1].d.next = self.counters[1].q.val() + self.frame_bytes64.o.val();
        }
        self.tx_bytes64.i.next = self.ev_tx_bytes.q.val();
        if self.ev_r[7].q.val() {
            self.counters[7].d.next = self.counters[7].q.val() + self.tx_bytes64.o.val();
        }
        for i in 0..TX_PIPES {
            if self.ev_tx_pipe.q.val().index() == i {
                if self.ev_r[6].q.val() {
                    self.tx_frames[i].d.next = self.tx_frames[i].q.val() + self.one32.val();
                }
                if self.ev_r[8].q.val() {
                    self.tx_drops[i].d.next = self.tx_drops[i].q.val() + self.one32.val();
                }
            }
        }
        self.rx_frames.inc.next = self.events.frame.val();
        self.rx_frames.inc_pipe.next = self.events.pipe.val();
        self.rx_drops.inc.next = self.events.drop_ring_full.val();
        self.rx_drops.inc_pipe.next = self.events.pipe.val();

        // ---- Reads ----
        // Decoded the cycle after the read was accepted, when its page is
        // out of the RAMs (`lk_pipe`).
        self.rd_addr.next = self.rd_addr_r.q.val();
        self.rd_page.next = self
            .rd_addr
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.rd_off.next = self.rd_addr.val().get_bits::<OFF_BITS>(0);
        // Offsets are unique, so the hits are ORed together: an OR of
        // AND-terms that synthesis balances into a shallow tree, where a chain
        // of if/else would be one mux deep per register (20 LUT levels).
        self.rd_data.next = self.zero32.val();
        self.rd_hit.next = false;
        if self.rd_page.val() == self.page0.val() {
            if self.rd_off.val() == self.g_flow_cap.val() {
                self.rd_data.next = self.rd_data.val() | self.flow_cap.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_flow_default.val() {
                self.rd_data.next = self.rd_data.val() | self.flow_default_r.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_flow_fallback.val() {
                self.rd_data.next = self.rd_data.val() | self.flow_fallback.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_flow_pipe.val() {
                self.rd_data.next = self.rd_data.val() | self.flow_pipe_r.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_flow_write.val() {
                self.rd_hit.next = true;
            }
            for k in 0..FLOW_KEY_WORDS {
                if self.rd_off.val() == self.g_flow_key[k].val() {
                    self.rd_data.next = self.rd_data.val() | self.flow_key_r[k].q.val();
                    self.rd_hit.next = true;
                }
            }
            for k in 0..CONST_REGS {
                if self.rd_off.val() == self.const_off[k].val() {
                    self.rd_data.next = self.rd_data.val() | self.const_val[k].val();
                    self.rd_hit.next = true;
                }
            }
            if self.rd_off.val() == self.g_ctrl.val() {
                self.rd_data.next = self.rd_data.val() | self.ctrl.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_scratch.val() {
                self.rd_data.next = self.rd_data.val() | self.scratch.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_session.val() {
                self.rd_data.next = self.rd_data.val() | self.session.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_reg_errors.val() {
                self.rd_data.next = self.rd_data.val() | self.reg_errors.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_last_err.val() {
                self.rd_data.next = self.rd_data.val() | self.last_err.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_rx_overflow_drops.val() {
                self.rd_data.next = self.rd_data.val() | self.rx_overflow_drops.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_state.val() {
                self.rd_data.next = self.rd_data.val() | self.link_state32.o.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_ctrl.val() {
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_seed.val() {
                self.rd_data.next = self.rd_data.val() | self.link_seed_r.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_channels.val() {
                self.rd_data.next = self.rd_data.val() | self.link_channels_r.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_active.val() {
                self.rd_data.next = self.rd_data.val() | self.link_active32.o.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_atomic_rx_pipe.val() {
                self.rd_data.next = self.rd_data.val() | self.atomic_rx_pipe_r.q.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.g_link_rx_pipe.val() {
                self.rd_data.next = self.rd_data.val() | self.link_rx_pipe_r.q.val();
                self.rd_hit.next = true;
            }
            for k in 0..COUNTERS {
                if self.rd_off.val() == self.cnt_lo_off[k].val() {
                    self.rd_data.next =
                        self.rd_data.val() | self.counters[k].q.val().get_bits::<32>(0);
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.cnt_hi_off[k].val() {
                    self.rd_data.next = self.rd_data.val() | self.hi_latch.q.val();
                    self.rd_hit.next = true;
                }
            }
        }
        self.rd_pipe.next = self.rd_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.rd_pipe32.i.next = self.rd_pipe.val();
        self.rd_is_pipe.next = (self.rd_page.val() != self.page0.val())
            & (self.rd_page.val() <= self.last_pipe_page.val());
        if self.rd_is_pipe.val() {
            if self.rd_off.val() == self.p_pipe_id.val() {
                self.rd_data.next = self.rd_data.val() | self.rd_pipe32.o.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_base_lo.val() {
                self.rd_data.next = self.rd_data.val() | self.base_lo_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_base_hi.val() {
                self.rd_data.next = self.rd_data.val() | self.base_hi_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_ring_bytes.val() {
                self.rd_data.next = self.rd_data.val() | self.ring_bytes_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_ctrl.val() {
                self.rd_hit.next = true;
                if self.enable_ram.read_data.val() {
                    self.rd_data.next = self.rd_data.val() | self.one32.val();
                }
            }
            if self.rd_off.val() == self.p_head.val() {
                self.rd_data.next = self.rd_data.val() | self.pg_head32.o.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_prefetch.val() {
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_tail.val() {
                self.rd_data.next = self.rd_data.val() | self.pg_tail32.o.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_frames.val() {
                self.rd_data.next = self.rd_data.val() | self.rx_frames.rd_count.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_drops.val() {
                self.rd_data.next = self.rd_data.val() | self.rx_drops.rd_count.val();
                self.rd_hit.next = true;
            }
        }
        self.rd_is_nbuf.next =
            self.rd_is_pipe.val() & (self.rd_page.val() <= self.last_nbuf_page.val());
        if self.rd_is_nbuf.val() {
            if self.rd_off.val() == self.p_nb_lo.val() {
                self.rd_data.next = self.rd_data.val() | self.nb_lo_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_nb_hi.val() {
                self.rd_data.next = self.rd_data.val() | self.nb_hi_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_nb_bytes.val() {
                self.rd_data.next = self.rd_data.val() | self.nb_bytes_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_nb_ctrl.val() {
                self.rd_hit.next = true;
                if self
                    .nb_on
                    .q
                    .val()
                    .get_bit(self.rd_pipe.val().get_bits::<NOTIF_BUF_BITS>(0).index())
                {
                    self.rd_data.next = self.rd_data.val() | self.one32.val();
                }
            }
            if self.rd_off.val() == self.p_nb_head.val() {
                self.rd_data.next = self.rd_data.val() | self.nb_head_ram.read_data.val();
                self.rd_hit.next = true;
            }
        }
        for i in 0..TX_PIPES {
            if self.rd_is_pipe.val() & (self.rd_pipe.val().index() == i) {
                if self.rd_off.val() == self.p_tx_base_lo.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_base_lo[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_base_hi.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_base_hi[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_ring_bytes.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_ring_bytes[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_compl_lo.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_compl_lo[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_compl_hi.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_compl_hi[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_ctrl.val() {
                    self.rd_hit.next = true;
                    if self.tx_enable_r[i].q.val() {
                        self.rd_data.next = self.rd_data.val() | self.one32.val();
                    }
                    if self.tx_acp_r[i].q.val() {
                        self.rd_data.next = self.rd_data.val() | self.two32.val();
                    }
                    if self.tx_atomic_r[i].q.val() {
                        self.rd_data.next = self.rd_data.val() | self.four32.val();
                    }
                }
                if self.rd_off.val() == self.p_tx_tail.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_tail32[i].o.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_head.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_head32[i].o.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_frames.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_frames[i].q.val();
                    self.rd_hit.next = true;
                }
                if self.rd_off.val() == self.p_tx_drops.val() {
                    self.rd_data.next = self.rd_data.val() | self.tx_drops[i].q.val();
                    self.rd_hit.next = true;
                }
            }
        }
        // Reads of addresses with no register answer all ones, like PCIe's
        // unsupported request.
        if !self.rd_hit.val() {
            self.rd_data.next = self.all_ones.val();
        }

        // One read at a time: accepted when no write is being accepted or
        // applied (a read never passes a posted write, as on PCIe, and the
        // RAMs' read port is the write's), decoded, then answered.
        self.s_rd.ready.next = !self.rd_v.q.val()
            & !self.rsp_valid.q.val()
            & !self.wr_check.q.val()
            & !self.wr_apply.q.val()
            & !self.restart_wait.q.val()
            & !self.wr_take.val();
        self.rd_v.d.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        if self.s_rd.valid.val() & self.s_rd.ready.val() {
            self.rd_addr_r.d.next = self.s_rd.data.val();
        }
        self.m_rsp.valid.next = self.rsp_valid.q.val();
        self.m_rsp.data.next = self.rsp_data.q.val();
        if self.m_rsp.ready.val() {
            self.rsp_valid.d.next = false;
        }
        if self.rd_v.q.val() {
            self.rsp_valid.d.next = true;
            self.rsp_data.d.next = self.rd_data.val();
            for k in 0..COUNTERS {
                if (self.rd_page.val() == self.page0.val())
                    & (self.rd_off.val() == self.cnt_lo_off[k].val())
                {
                    self.hi_latch.d.next = self.counters[k].q.val().get_bits::<32>(32);
                }
            }
        }
        // A reset's sweep zeroes every pipe's and buffer's registers.
        if self.clear.active.val() {
            self.base_lo_ram.write_enable.next = true;
            self.base_lo_ram.write_address.next = self.clear.addr.val();
            self.base_lo_ram.write_data.next = self.zero32.val();
            self.base_hi_ram.write_enable.next = true;
            self.base_hi_ram.write_address.next = self.clear.addr.val();
            self.base_hi_ram.write_data.next = self.zero32.val();
            self.ring_bytes_ram.write_enable.next = true;
            self.ring_bytes_ram.write_address.next = self.clear.addr.val();
            self.ring_bytes_ram.write_data.next = self.zero32.val();
            self.enable_ram.write_enable.next = true;
            self.enable_ram.write_address.next = self.clear.addr.val();
            self.enable_ram.write_data.next = false;
            self.head_ram.write_enable.next = true;
            self.head_ram.write_address.next = self.clear.addr.val();
            self.head_ram.write_data.next = self.zero16.val();
            self.tail_ram.write_enable.next = true;
            self.tail_ram.write_address.next = self.clear.addr.val();
            self.tail_ram.write_data.next = self.zero16.val();
            self.nb_lo_ram.write_enable.next = true;
            self.nb_lo_ram.write_address.next = self.clear.addr.val().get_bits::<NOTIF_BUF_BITS>(0);
            self.nb_lo_ram.write_data.next = self.zero32.val();
            self.nb_hi_ram.write_enable.next = true;
            self.nb_hi_ram.write_address.next = self.clear.addr.val().get_bits::<NOTIF_BUF_BITS>(0);
            self.nb_hi_ram.write_data.next = self.zero32.val();
            self.nb_bytes_ram.write_enable.next = true;
            self.nb_bytes_ram.write_address.next =
                self.clear.addr.val().get_bits::<NOTIF_BUF_BITS>(0);
            self.nb_bytes_ram.write_data.next = self.zero32.val();
            self.nb_head_ram.write_enable.next = true;
            self.nb_head_ram.write_address.next =
                self.clear.addr.val().get_bits::<NOTIF_BUF_BITS>(0);
            self.nb_head_ram.write_data.next = self.zero32.val();
        }
    }
}
