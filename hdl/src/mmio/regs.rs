use super::counters::GlobalCounters;
use super::events::{LinkEvents, RxEvents, TxEvents};
use super::global_regs::GlobalRegs;
use super::link_flow_regs::{LinkFlowRegs, LinkFlowSettings};
use super::nbuf_regs::{NbufConfig, NbufRegs};
use super::reg_stages::{c32, cause, off};
use super::rx_pipe_bank::RxPipeBank;
use super::rx_pipe_state::RxRingPort;
use super::tx_regs::{TxEnginePort, TxRegs};
use crate::reset::{Clear, SDFF};
use crate::stream::{StreamSink, StreamSource};
use crate::types::MmioWrite;
use pendulum_layout::params::{
    ACP_CHANNEL_BITS as CB, MMIO_ADDR_BITS, NOTIF_BUF_BITS, PIPE_BITS, SLOT_BITS, TX_PIPE_BITS,
};
use pendulum_layout::{global, RegError};
use rust_hdl::prelude::*;

/// Width of a channel count (0..=K).
const CB1: usize = CB + 1;
const OFF_BITS: usize = pendulum_layout::PAGE_BYTES_LOG2 as usize;
const PAGE_BITS: usize = MMIO_ADDR_BITS - OFF_BITS;
/// Slot gates the register file keeps a pipe's ring state for.
pub const GATES: usize = 2;
/// The gate of the ACP link's messages (LINK_RX_PIPE).
pub const GATE_LINK: usize = 0;
/// The gate of the atomic unit's results (ATOMIC_RX_PIPE).
pub const GATE_ATOMIC: usize = 1;

/// The MMIO register file: the global page and one page per pipe, as
/// `pendulum_layout::regs` defines them: it accepts each access, decodes
/// its address, hands it to the block that owns the register (`GlobalRegs`,
/// `RxPipeBank`, `TxRegs`, `NbufRegs`, `LinkFlowRegs`, `GlobalCounters`)
/// and answers. A write that `RegError` forbids changes nothing and is
/// counted in REG_ERRORS with its cause in LAST_REG_ERROR.
///
/// The pipe blocks keep their registers in RAM with one read port, at the
/// pipe `RegFile` names (`lk_addr`), shared by writes and reads:
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
    /// The notification buffers' settings and head writes (`NbufRegs`).
    pub nbuf_config: NbufConfig,
    /// One-cycle pulse: the pipe's head is now `wr_head` (a HEAD write, or 0
    /// when the pipe is switched on).
    pub head_wr: Signal<Out, Bit>,
    pub wr_head: Signal<Out, Bits<SLOT_BITS>>,
    /// The TX engine's side of the TX pipes' registers (`TxRegs`).
    pub tx_engine: TxEnginePort,
    pub per_packet_notif: Signal<Out, Bit>,
    /// The RX engine's reads of its pipes' ring state, and its tail writes
    /// (see `RxPipeState`).
    pub rx_ring: RxRingPort,
    pub events: RxEvents,
    pub tx_events: TxEvents,
    /// The link's, the atomic unit's and the flow director's settings
    /// (`LinkFlowRegs`).
    pub link_flow_settings: LinkFlowSettings,
    /// The atomic unit's events.
    pub atomic_verb: Signal<In, Bit>,
    pub atomic_error: Signal<In, Bit>,
    /// The ACP link's state, its events, and its controls.
    pub link_state: Signal<In, Bits<2>>,
    pub link_events: LinkEvents,
    /// Channels in use (LINK_ACTIVE_CHANNELS).
    pub link_active: Signal<In, Bits<CB1>>,
    /// Flow director events: an IP frame hit or missed the table.
    pub flow_hit: Signal<In, Bit>,
    pub flow_miss: Signal<In, Bit>,
    /// RX_OVERFLOW_DROPS, counted by the board's RX crossing (on this clock).
    pub rx_overflow_drops: Signal<In, Bits<32>>,
    /// The CYCLES counter's value: the NIC's hardware time (RX timestamps).
    pub cycles: Signal<Out, Bits<64>>,
    // The link's, the atomic unit's and the flow director's registers.
    link_flow: LinkFlowRegs,
    pipe_one: Constant<Bits<PIPE_BITS>>,

    // Address decode.
    wr_addr: Signal<Local, Bits<MMIO_ADDR_BITS>>,
    wr_page: Signal<Local, Bits<PAGE_BITS>>,
    wr_off: Signal<Local, Bits<OFF_BITS>>,
    err: Signal<Local, Bit>,
    err_cause: Signal<Local, Bits<32>>,
    rd_data: Signal<Local, Bits<32>>,
    rd_hit: Signal<Local, Bit>,

    g_atomic_rx_pipe: Constant<Bits<OFF_BITS>>,
    g_link_rx_pipe: Constant<Bits<OFF_BITS>>,

    // Each RX pipe's registers, in block RAM (see the block's comment).
    // The tail, from the RX engine's events (read by software, bounds the
    // head): each frame's new tail, and 0 when the engine applies a restart
    // (two cycles after `restart`; `restart_wait` holds reads and writes
    // back until then, so none sees the old tail).
    restart_wait: SDFF<Bit>,
    // Each notification buffer's registers (buffer b on page b + 1), in
    // block RAM read with the pipe's page, and its on bit, which every pipe
    // of the buffer checks as it is switched on.
    nbuf: NbufRegs,
    // Each RX pipe's registers, and the gates' copies of two pipes' ring state.
    rx: RxPipeBank,
    // The gates' pipes (LINK_RX_PIPE, ATOMIC_RX_PIPE).
    gate_pipes: [Signal<Local, Bits<PIPE_BITS>>; GATES],
    lk_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    // The RAMs' read address: a write's pipe as it is accepted (the new
    // pipe of a LINK_RX_PIPE or ATOMIC_RX_PIPE write), else a read's.
    lk_addr: Signal<Local, Bits<PIPE_BITS>>,
    in_addr: Signal<Local, Bits<MMIO_ADDR_BITS>>,
    in_page: Signal<Local, Bits<PAGE_BITS>>,
    in_off: Signal<Local, Bits<OFF_BITS>>,
    // The low bits of a read's page, as it is accepted.
    rd_in_page: Signal<Local, Bits<PIPE_BITS>>,
    // The pipe of the write applied this cycle.
    wr_pipe_l: Signal<Local, Bits<PIPE_BITS>>,
    wr_is_pipe: Signal<Local, Bit>,
    // A read accepted last cycle, answered this one.
    rd_v: SDFF<Bit>,
    last_pipe_page: Constant<Bits<PAGE_BITS>>,

    // The global page's own registers.
    globals: GlobalRegs,
    // The global counters, and the TX pipes' events as they count them.
    counters: GlobalCounters,
    // The TX pipes' registers.
    tx: TxRegs,
    // A write's address, latched as it is accepted, and its check and apply
    // stages (see the block's comment).
    wr_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    wr_apply: SDFF<Bit>,
    // A write's data as it is accepted (its low bits: a gate's new pipe).
    in_data: Signal<Local, Bits<32>>,
    wr_check: SDFF<Bit>,
    wr_take: Signal<Local, Bit>,
    rsp_valid: SDFF<Bit>,
    rsp_data: SDFF<Bits<32>>,

    // Any aligned offset below this on the global page, or in the counter
    // window, is a register (read-only unless named above).
    g_plain_end: Constant<Bits<OFF_BITS>>,
    g_cnt_start: Constant<Bits<OFF_BITS>>,
    g_cnt_end: Constant<Bits<OFF_BITS>>,
    /// CYCLES' two words (read-only, `GlobalCounters`).
    g_cycles: [Constant<Bits<OFF_BITS>>; 2],
    cause_unknown: Constant<Bits<32>>,
    cause_read_only: Constant<Bits<32>>,
    all_ones: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero_off2: Constant<Bits<2>>,
    page0: Constant<Bits<PAGE_BITS>>,
    off_bits: Constant<Bits<5>>,
}

impl RegFile {
    /// `cap_*` describe the blocks this NIC has, for the capability registers.
    pub fn new(cap_link_channels: u32, cap_atomic_bytes: u32) -> Self {
        use pendulum_layout::params::*;
        let plain_end = global::ALL.iter().map(|r| r.offset).max().unwrap() + 4;
        let cnt_start = global::COUNTERS.iter().map(|r| r.offset).min().unwrap();
        let cnt_end = global::COUNTERS.iter().map(|r| r.offset).max().unwrap() + 8;
        Self {
            cycles: Default::default(),
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
            nbuf_config: Default::default(),
            head_wr: Default::default(),
            wr_head: Default::default(),
            tx_engine: Default::default(),
            per_packet_notif: Default::default(),
            rx_ring: Default::default(),
            events: Default::default(),
            tx_events: Default::default(),
            link_state: Default::default(),
            link_events: Default::default(),
            link_flow_settings: Default::default(),
            link_flow: Default::default(),
            link_active: Default::default(),
            flow_hit: Default::default(),
            flow_miss: Default::default(),
            rx_overflow_drops: Default::default(),
            pipe_one: Constant::new(1u64.into()),
            atomic_verb: Default::default(),
            atomic_error: Default::default(),
            g_atomic_rx_pipe: off(global::ATOMIC_RX_PIPE),
            g_link_rx_pipe: off(global::LINK_RX_PIPE),
            wr_addr: Default::default(),
            lk_buf: Default::default(),
            restart_wait: Default::default(),
            nbuf: Default::default(),
            rx: Default::default(),
            gate_pipes: Default::default(),
            lk_addr: Default::default(),
            in_addr: Default::default(),
            in_page: Default::default(),
            in_off: Default::default(),
            rd_in_page: Default::default(),
            wr_pipe_l: Default::default(),
            wr_is_pipe: Default::default(),
            gate_head: Default::default(),
            gate_tail: Default::default(),
            gate_mask: Default::default(),
            gate_enable: Default::default(),
            rd_v: Default::default(),
            last_pipe_page: Constant::new((PIPES as u64).into()),
            wr_page: Default::default(),
            wr_off: Default::default(),
            err: Default::default(),
            err_cause: Default::default(),
            rd_data: Default::default(),
            rd_hit: Default::default(),
            globals: GlobalRegs::new(cap_link_channels, cap_atomic_bytes),
            counters: Default::default(),
            tx: Default::default(),
            wr_addr_r: Default::default(),
            wr_apply: Default::default(),
            in_data: Default::default(),
            wr_check: Default::default(),
            wr_take: Default::default(),
            rsp_valid: Default::default(),
            rsp_data: Default::default(),
            g_plain_end: Constant::new((plain_end as u64).into()),
            g_cnt_start: Constant::new((cnt_start as u64).into()),
            g_cnt_end: Constant::new((cnt_end as u64).into()),
            g_cycles: std::array::from_fn(|w| {
                Constant::new(((global::CYCLES.offset + 4 * w as u32) as u64).into())
            }),
            cause_unknown: cause(RegError::UnknownAddress),
            cause_read_only: cause(RegError::ReadOnly),
            all_ones: c32(u32::MAX),
            zero32: c32(0),
            zero_off2: Constant::new(0u64.into()),
            page0: Constant::new(0u64.into()),
            off_bits: Constant::new((OFF_BITS as u64).into()),
        }
    }
}

impl Logic for RegFile {
    #[hdl_gen]
    fn update(&mut self) {
        for g in 0..GATES {
            self.gate_head[g].next = self.rx.gate_head[g].val();
            self.gate_tail[g].next = self.rx.gate_tail[g].val();
            self.gate_mask[g].next = self.rx.gate_mask[g].val();
            self.gate_enable[g].next = self.rx.gate_enable[g].val();
        }
        dff_setup!(
            self,
            clock,
            wr_check,
            wr_addr_r,
            wr_apply,
            rsp_valid,
            rsp_data,
            restart_wait,
            rd_v
        );
        self.wr_check.reset.next = self.reset.val();
        self.wr_addr_r.reset.next = self.reset.val();
        self.wr_apply.reset.next = self.reset.val();
        self.rsp_valid.reset.next = self.reset.val();
        self.rsp_data.reset.next = self.reset.val();
        self.restart_wait.reset.next = self.reset.val();
        self.rd_v.reset.next = self.reset.val();
        self.globals.clock.next = self.clock.val();
        self.globals.reset.next = self.reset.val();
        self.globals.link_state.next = self.link_state.val();
        self.globals.link_active.next = self.link_active.val();
        self.globals.rx_overflow_drops.next = self.rx_overflow_drops.val();
        self.link_flow.clock.next = self.clock.val();
        self.link_flow.reset.next = self.reset.val();
        LinkFlowSettings::link(&mut self.link_flow_settings, &mut self.link_flow.settings);

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
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.rx.clear.active.next = self.clear.active.val();
        self.rx.clear.addr.next = self.clear.addr.val();
        self.rx.lk_addr.next = self.lk_addr.val();
        RxRingPort::link(&mut self.rx_ring, &mut self.rx.ring);
        self.rx.ev_pipe.next = self.events.pipe.val();
        self.rx.ev_frame.next = self.events.frame.val();
        self.rx.ev_tail.next = self.events.tail.val();
        self.rx.ev_drop_ring_full.next = self.events.drop_ring_full.val();
        self.rx.ev_restart.next = self.events.restart.val();
        self.rx.ev_restart_mask.next = self.events.restart_mask.val();
        self.rx.ev_restart_enable.next = self.events.restart_enable.val();
        self.rx.nb_on.next = self.nbuf.on.val();
        // Buffer b's registers are on pipe b's page.
        self.lk_buf.next = self.lk_addr.val().get_bits::<NOTIF_BUF_BITS>(0);
        self.nbuf.clock.next = self.clock.val();
        self.nbuf.reset.next = self.reset.val();
        self.nbuf.clear.active.next = self.clear.active.val();
        self.nbuf.clear.addr.next = self.clear.addr.val().get_bits::<NOTIF_BUF_BITS>(0);
        self.nbuf.lk_buf.next = self.lk_buf.val();
        // Outputs to the datapath.
        TxEnginePort::link(&mut self.tx_engine, &mut self.tx.engine);
        self.tx.lk_addr.next = self.lk_addr.val().get_bits::<TX_PIPE_BITS>(0);
        self.tx.clear.active.next = self.clear.active.val();
        self.tx.clear.addr.next = self.clear.addr.val().get_bits::<TX_PIPE_BITS>(0);
        self.per_packet_notif.next = self.globals.per_packet_notif.val();

        // ---- Writes ----
        // At most one write every third cycle (see the block's comment).
        self.wr_check.d.next = self.wr_take.val();
        self.wr_apply.d.next = self.wr_check.q.val();
        if self.wr_take.val() {
            self.wr_addr_r.d.next = self.s_wr.data.val().addr;
        }
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.tx.wr.take.next = self.wr_take.val();
        self.tx.wr.addr.next = self.in_addr.val();
        self.tx.wr.data.next = self.in_data.val();
        self.rx.wr.take.next = self.wr_take.val();
        self.rx.wr.addr.next = self.in_addr.val();
        self.rx.wr.data.next = self.in_data.val();
        self.globals.wr.take.next = self.wr_take.val();
        self.globals.wr.addr.next = self.in_addr.val();
        self.globals.wr.data.next = self.in_data.val();
        self.link_flow.wr.take.next = self.wr_take.val();
        self.link_flow.wr.addr.next = self.in_addr.val();
        self.link_flow.wr.data.next = self.in_data.val();
        self.wr_addr.next = self.wr_addr_r.q.val();
        self.wr_page.next = self
            .wr_addr
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.wr_off.next = self.wr_addr.val().get_bits::<OFF_BITS>(0);
        self.wr_pipe_l.next = self.wr_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.wr_pipe.next = self.wr_pipe_l.val();
        self.wr_is_pipe.next = (self.wr_page.val() != self.page0.val())
            & (self.wr_page.val() <= self.last_pipe_page.val());
        self.err.next = false;
        self.err_cause.next = self.zero32.val();
        self.nbuf.wr.take.next = self.wr_take.val();
        self.nbuf.wr.addr.next = self.in_addr.val();
        self.nbuf.wr.data.next = self.in_data.val();
        NbufConfig::link(&mut self.nbuf_config, &mut self.nbuf.writer);
        if self.wr_apply.q.val() {
            if self.wr_off.val().get_bits::<2>(0) != self.zero_off2.val() {
                self.err.next = true;
                self.err_cause.next = self.cause_unknown.val();
            } else if self.wr_page.val() == self.page0.val() {
                if self.globals.wr.hit.val() {
                    // CTRL, SCRATCH or SESSION (`GlobalRegs`, which applies it).
                    if self.globals.wr.err.val() {
                        self.err.next = true;
                        self.err_cause.next = self.globals.wr.err_cause.val();
                    }
                } else if self.link_flow.wr.hit.val() {
                    // A link, atomic unit or flow director register
                    // (`LinkFlowRegs`, which applies it).
                    if self.link_flow.wr.err.val() {
                        self.err.next = true;
                        self.err_cause.next = self.link_flow.wr.err_cause.val();
                    }
                } else if (self.wr_off.val() < self.g_plain_end.val())
                    | ((self.wr_off.val() >= self.g_cnt_start.val())
                        & (self.wr_off.val() < self.g_cnt_end.val()))
                    | (self.wr_off.val() == self.g_cycles[0].val())
                    | (self.wr_off.val() == self.g_cycles[1].val())
                {
                    self.err.next = true;
                    self.err_cause.next = self.cause_read_only.val();
                } else {
                    self.err.next = true;
                    self.err_cause.next = self.cause_unknown.val();
                }
            } else if self.wr_is_pipe.val() {
                if self.rx.wr.hit.val() {
                    // An RX pipe's register (`RxPipeBank`, which applies it).
                    if self.rx.wr.err.val() {
                        self.err.next = true;
                        self.err_cause.next = self.rx.wr.err_cause.val();
                    }
                } else if self.tx.wr.hit.val() {
                    // A TX register, on a page of one of the TX pipes
                    // (`TxRegs`, which applies it).
                    if self.tx.wr.err.val() {
                        self.err.next = true;
                        self.err_cause.next = self.tx.wr.err_cause.val();
                    }
                } else if self.nbuf.wr.hit.val() {
                    // A notification buffer's register, on a page of one of
                    // the buffers (`NbufRegs`, which applies it).
                    if self.nbuf.wr.err.val() {
                        self.err.next = true;
                        self.err_cause.next = self.nbuf.wr.err_cause.val();
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
        self.rearm.next = self.rx.rearm.val();
        self.restart.next = self.rx.restart.val();
        self.restart_base.next = self.rx.restart_base.val();
        self.restart_mask.next = self.rx.restart_mask.val();
        self.restart_enable.next = self.rx.restart_enable.val();
        self.head_wr.next = self.rx.head_wr.val();
        self.wr_head.next = self.rx.wr_head.val();
        self.restart_wait.d.next = self.rx.restart.val();
        self.gate_pipes[0].next = self.link_flow_settings.link_rx_pipe.val();
        self.gate_pipes[1].next = self.link_flow_settings.atomic_rx_pipe.val();
        for g in 0..GATES {
            self.rx.gate_pipe[g].next = self.gate_pipes[g].val();
        }
        self.rx.gate_load[0].next = self.link_flow.gate_load_link.val();
        self.rx.gate_load[1].next = self.link_flow.gate_load_atomic.val();

        // A refused write is counted (`GlobalRegs`).
        self.globals.refused.next = self.err.val();
        self.globals.refused_cause.next = self.err_cause.val();

        // ---- Counters ----
        self.counters.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.cycles.next = self.counters.cycles_now.val();
        // Counter k counts event[k]: the order of `Counter::ALL`.
        self.counters.event[0].next = self.events.frame.val();
        self.counters.event[1].next = self.events.frame.val();
        self.counters.event[2].next = self.events.drop_ring_full.val();
        self.counters.event[3].next = self.events.drop_malformed.val();
        self.counters.event[4].next = self.events.drop_pipe_off.val();
        self.counters.event[5].next = self.events.notification.val();
        self.counters.event[6].next = self.tx_events.frame.val();
        self.counters.event[7].next = self.tx_events.frame.val();
        self.counters.event[8].next = self.tx_events.drop_malformed.val();
        self.counters.event[9].next = self.tx_events.completion.val();
        self.counters.event[10].next = self.link_events.record.val();
        self.counters.event[11].next = self.link_events.bad_check.val();
        self.counters.event[12].next = self.link_events.bad_record.val();
        self.counters.event[13].next = self.link_events.commit.val();
        self.counters.event[14].next = self.link_events.deliver.val();
        self.counters.event[15].next = self.link_events.reject.val();
        self.counters.event[16].next = self.link_events.reverse.val();
        self.counters.event[17].next = self.link_events.failure.val();
        self.counters.event[18].next = self.link_events.entangle.val();
        self.counters.event[19].next = self.link_events.returned.val();
        self.counters.event[20].next = self.atomic_verb.val();
        self.counters.event[21].next = self.atomic_error.val();
        self.counters.event[22].next = self.flow_hit.val();
        self.counters.event[23].next = self.flow_miss.val();
        self.counters.rx_frame_bytes.next = self.events.frame_bytes.val();
        self.counters.tx_frame_bytes.next = self.tx_events.frame_bytes.val();
        self.counters.tx_pipe_in.next = self.tx_events.pipe.val();
        self.tx.count_frame.next = self.counters.tx_frame.val();
        self.tx.count_drop.next = self.counters.tx_drop.val();
        self.tx.count_pipe.next = self.counters.tx_pipe.val();

        // ---- Reads ----
        // Each block answers the cycle after the read was accepted (when its
        // page is out of the RAMs), from its registers; the answers are ORed.
        self.rd_data.next = self.zero32.val();
        self.rd_hit.next = false;
        self.rd_data.next = self.rd_data.val() | self.globals.rd.data.val();
        if self.globals.rd.hit.val() {
            self.rd_hit.next = true;
        }
        self.rd_data.next = self.rd_data.val() | self.rx.rd.data.val();
        if self.rx.rd.hit.val() {
            self.rd_hit.next = true;
        }
        self.rd_data.next = self.rd_data.val() | self.nbuf.rd.data.val();
        if self.nbuf.rd.hit.val() {
            self.rd_hit.next = true;
        }
        self.rd_data.next = self.rd_data.val() | self.tx.rd.data.val();
        if self.tx.rd.hit.val() {
            self.rd_hit.next = true;
        }
        self.rd_data.next = self.rd_data.val() | self.link_flow.rd.data.val();
        if self.link_flow.rd.hit.val() {
            self.rd_hit.next = true;
        }
        // The counters answer from their own copy of the read (see
        // `GlobalCounters`).
        self.rd_data.next = self.rd_data.val() | self.counters.rd.data.val();
        if self.counters.rd.hit.val() {
            self.rd_hit.next = true;
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
        self.counters.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.counters.rd.addr.next = self.s_rd.data.val();
        self.globals.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.globals.rd.addr.next = self.s_rd.data.val();
        self.tx.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.tx.rd.addr.next = self.s_rd.data.val();
        self.rx.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.rx.rd.addr.next = self.s_rd.data.val();
        self.nbuf.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.nbuf.rd.addr.next = self.s_rd.data.val();
        self.link_flow.rd.take.next = self.s_rd.valid.val() & self.s_rd.ready.val();
        self.link_flow.rd.addr.next = self.s_rd.data.val();
        self.m_rsp.valid.next = self.rsp_valid.q.val();
        self.m_rsp.data.next = self.rsp_data.q.val();
        if self.m_rsp.ready.val() {
            self.rsp_valid.d.next = false;
        }
        if self.rd_v.q.val() {
            self.rsp_valid.d.next = true;
            self.rsp_data.d.next = self.rd_data.val();
        }
    }
}
