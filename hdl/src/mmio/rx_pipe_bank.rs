use super::reg_stages::{c32, cause, off, RegStages, OFF_BITS, PAGE_BITS};
use super::regs::GATES;
use super::rx_pipe_state::{RxPipeState, RxRingPort};
use super::PipeCounter;
use super::{RegRead, RegWrite};
use crate::reset::{Clear, SDFF};
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::params::{
    NOTIF_BUFS, NOTIF_BUF_BITS, PIPES, PIPE_BITS, RING_MAX_BYTES, RING_MIN_BYTES, SLOT_BITS,
};
use pendulum_layout::{pipe, RegError};
use rust_hdl::prelude::*;

/// Bits of a 32-bit register write above a ring position (from bit 17:
/// hdl_gen takes a literal bit index).
const POS_HI_BITS: usize = 32 - SLOT_BITS;
const _: () = assert!(SLOT_BITS == 17);

/// The offsets a write is tested against, in the order of `wo_hit`.
const OFFSETS: usize = 13;

/// Each RX pipe's registers (pipe p on page p + 1): ring base and size, CTRL
/// (on/off), HEAD, TAIL, and its RX_FRAMES and DROP_RING_FULL counters; and
/// the pipe page's part of a register read. The ring state is
/// `RxPipeState`'s, the one home of it, which this block writes and which
/// the RX engine (`ring`) and the slot gates (`gate_*`) read
/// through it; the counters are in block RAM here.
///
/// The register file's read port is at `lk_addr`: the pipe of the write
/// `RegFile` accepts this cycle, else of its read (see `RegFile`). Writes and
/// reads come on `wr` and `rd` (`RegWrite`, `RegRead`) through this block's
/// copy of `RegFile`'s pipeline (`RegStages`): the cycle a write is accepted
/// reads its page, the next checks the value against it (into registers),
/// the third applies it: `wr.hit` says the write is to one of these
/// registers (or a read-only one of the pipe page), `wr.err` whether it was
/// refused, and `restart`, `head_wr`, `rearm` report it to the datapath.
/// Every output comes from this block's registers (or its RAMs' registered
/// read ports) only.
#[derive(LogicBlock)]
pub struct RxPipeBank {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): every pipe's
    /// registers are zeroed while it is active.
    pub clear: Clear<PIPE_BITS>,
    /// The pipe whose page the RAMs read this cycle.
    pub lk_addr: Signal<In, Bits<PIPE_BITS>>,
    /// Register writes (`RegWrite`) and reads (`RegRead`) from `RegFile`.
    pub wr: RegWrite,
    pub rd: RegRead,
    /// The notification buffers' on bits (NBUF_CTRL), which a pipe's buffer
    /// must have set as the pipe is switched on.
    pub nb_on: Signal<In, Bits<NOTIF_BUFS>>,
    /// One-cycle pulse: software moved the pipe's head, or asked for its next
    /// notification now (NOTIF_PREFETCH); either re-arms its notification.
    pub rearm: Signal<Out, Bit>,
    /// One-cycle pulse: the pipe was switched on or off (CTRL bit 0 changed),
    /// with its ring and whether it is now on.
    pub restart: Signal<Out, Bit>,
    pub restart_base: Signal<Out, Bits<64>>,
    pub restart_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<Out, Bit>,
    /// One-cycle pulse: the pipe's head is now `wr_head` (a HEAD write, or 0
    /// when the pipe is switched on).
    pub head_wr: Signal<Out, Bit>,
    pub wr_head: Signal<Out, Bits<SLOT_BITS>>,
    /// The RX engine's read of its pipes' ring state, and its tail writes
    /// (see `RxPipeState`).
    pub ring: RxRingPort,
    /// The RX engine's events (see `RxEvents`).
    pub ev_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub ev_frame: Signal<In, Bit>,
    pub ev_tail: Signal<In, Bits<SLOT_BITS>>,
    pub ev_drop_ring_full: Signal<In, Bit>,
    pub ev_restart: Signal<In, Bit>,
    pub ev_restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub ev_restart_enable: Signal<In, Bit>,
    /// The gates' pipes, and a pulse in the write's apply cycle when software
    /// names another one (which loads that pipe's page).
    pub gate_pipe: [Signal<In, Bits<PIPE_BITS>>; GATES],
    pub gate_load: [Signal<In, Bit>; GATES],
    /// The gates' pipes' ring state: head, tail, size in slots minus one,
    /// on/off.
    pub gate_head: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_tail: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_mask: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_enable: [Signal<Out, Bit>; GATES],

    // Every pipe's ring state. The register file's copy of the tail is
    // written from the RX engine's events (each frame's new tail, and 0 when
    // the engine applies a restart, two cycles after `restart`; `RegFile`'s
    // `restart_wait` holds reads and writes back until then, so none sees
    // the old tail).
    state: RxPipeState,
    rx_frames: PipeCounter<PIPE_BITS>,
    rx_drops: PipeCounter<PIPE_BITS>,
    // The pipe whose page the RAMs read last cycle, and that page.
    lk_pipe: SDFF<Bits<PIPE_BITS>>,
    pg_base: Concat<32, 32, 64>,
    pg_head32: ZeroExtend<SLOT_BITS, 32>,
    pg_tail32: ZeroExtend<SLOT_BITS, 32>,
    // The write pipeline's and read stage's registers (`RegStages`): a
    // write is checked the cycle after it is accepted (into the `*_r` flags,
    // `pk_*` and `wo_hit`) and applied the one after.
    stages: RegStages,
    wr_pipe: Signal<Local, Bits<PIPE_BITS>>,
    wr_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    wr_pos: Signal<Local, Bits<SLOT_BITS>>,
    size_ok_r: SDFF<Bit>,
    ring_aligned_r: SDFF<Bit>,
    head_ok_r: SDFF<Bit>,
    // The pipe's notification buffer is off. Checked a cycle before the
    // write applies: only a write's apply changes the on bits, and none
    // comes between.
    nb_off_r: SDFF<Bit>,
    // The write's page as the check stage read it.
    pk_enable: SDFF<Bit>,
    pk_ring_zero: SDFF<Bit>,
    pk_base: SDFF<Bits<64>>,
    pk_mask: SDFF<Bits<SLOT_BITS>>,
    pk_head: SDFF<Bits<SLOT_BITS>>,
    pk_tail: SDFF<Bits<SLOT_BITS>>,
    pk_pipe: SDFF<Bits<PIPE_BITS>>,
    // The write's offset decoded in the check stage: RING_BASE_LO,
    // RING_BASE_HI, RING_BYTES, CTRL, HEAD, NOTIF_PREFETCH, then the
    // read-only PIPE_ID, TAIL, RX_FRAMES, DROP_RING_FULL, TX_HEAD,
    // TX_FRAMES, TX_DROPS.
    wo_hit: [SDFF<Bit>; OFFSETS],
    // What the write applied this cycle does, for the outputs and the state.
    do_restart: Signal<Local, Bit>,
    do_head_wr: Signal<Local, Bit>,
    new_head: Signal<Local, Bits<SLOT_BITS>>,
    // What the read's address names, from `stages`.
    rd_pipe: Signal<Local, Bits<PIPE_BITS>>,
    rd_pipe32: ZeroExtend<PIPE_BITS, 32>,
    rd_is_pipe: Signal<Local, Bit>,

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
    p_tx_head: Constant<Bits<OFF_BITS>>,
    p_tx_frames: Constant<Bits<OFF_BITS>>,
    p_tx_drops: Constant<Bits<OFF_BITS>>,
    last_pipe_page: Constant<Bits<PAGE_BITS>>,
    page0: Constant<Bits<PAGE_BITS>>,
    pipe_one: Constant<Bits<PIPE_BITS>>,
    zero_off2: Constant<Bits<2>>,
    ring_min: Constant<Bits<32>>,
    ring_max: Constant<Bits<32>>,
    ring_align_mask: Constant<Bits<32>>,
    cause_read_only: Constant<Bits<32>>,
    cause_ring_size: Constant<Bits<32>>,
    cause_misaligned: Constant<Bits<32>>,
    cause_head: Constant<Bits<32>>,
    cause_enabled: Constant<Bits<32>>,
    cause_nbuf_off: Constant<Bits<32>>,
    zero_pos: Constant<Bits<SLOT_BITS>>,
    // A position write's bits above the position.
    zero_hi: Constant<Bits<POS_HI_BITS>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
}

impl Default for RxPipeBank {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            lk_addr: Default::default(),
            nb_on: Default::default(),
            rearm: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            head_wr: Default::default(),
            wr_head: Default::default(),
            ring: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_tail: Default::default(),
            ev_drop_ring_full: Default::default(),
            ev_restart: Default::default(),
            ev_restart_mask: Default::default(),
            ev_restart_enable: Default::default(),
            gate_pipe: Default::default(),
            gate_load: Default::default(),
            gate_head: Default::default(),
            gate_tail: Default::default(),
            gate_mask: Default::default(),
            gate_enable: Default::default(),
            state: Default::default(),
            rx_frames: PipeCounter::new(),
            rx_drops: PipeCounter::new(),
            lk_pipe: Default::default(),
            pg_base: Default::default(),
            pg_head32: Default::default(),
            pg_tail32: Default::default(),
            wr_pipe: Default::default(),
            wr_buf: Default::default(),
            wr_pos: Default::default(),
            size_ok_r: Default::default(),
            ring_aligned_r: Default::default(),
            head_ok_r: Default::default(),
            nb_off_r: Default::default(),
            pk_enable: Default::default(),
            pk_ring_zero: Default::default(),
            pk_base: Default::default(),
            pk_mask: Default::default(),
            pk_head: Default::default(),
            pk_tail: Default::default(),
            pk_pipe: Default::default(),
            wo_hit: Default::default(),
            do_restart: Default::default(),
            do_head_wr: Default::default(),
            new_head: Default::default(),
            rd_pipe: Default::default(),
            rd_pipe32: Default::default(),
            rd_is_pipe: Default::default(),
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
            p_tx_head: off(pipe::TX_HEAD),
            p_tx_frames: off(pipe::TX_FRAMES),
            p_tx_drops: off(pipe::TX_DROPS),
            last_pipe_page: Constant::new((PIPES as u64).into()),
            page0: Constant::new(0u64.into()),
            pipe_one: Constant::new(1u64.into()),
            stages: Default::default(),
            zero_off2: Constant::new(0u64.into()),
            ring_min: c32(RING_MIN_BYTES),
            ring_max: c32(RING_MAX_BYTES),
            ring_align_mask: c32(pipe::RING_ALIGN as u32 - 1),
            cause_read_only: cause(RegError::ReadOnly),
            cause_ring_size: cause(RegError::BadRingSize),
            cause_misaligned: cause(RegError::Misaligned),
            cause_head: cause(RegError::HeadBeyondTail),
            cause_enabled: cause(RegError::PipeEnabled),
            cause_nbuf_off: cause(RegError::NotifBufOff),
            zero_pos: Constant::new(0u64.into()),
            zero_hi: Constant::new(0u64.into()),
            zero32: c32(0),
            one32: c32(1),
        }
    }
}

impl Logic for RxPipeBank {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- The ring state (`RxPipeState`) and its readers ----
        self.state.clock.next = self.clock.val();
        self.state.reset.next = self.reset.val();
        self.state.clear.active.next = self.clear.active.val();
        self.state.clear.addr.next = self.clear.addr.val();
        RxRingPort::link(&mut self.ring, &mut self.state.rx);
        self.state.ev_pipe.next = self.ev_pipe.val();
        self.state.ev_frame.next = self.ev_frame.val();
        self.state.ev_tail.next = self.ev_tail.val();
        self.state.ev_restart.next = self.ev_restart.val();
        self.state.ev_restart_mask.next = self.ev_restart_mask.val();
        self.state.ev_restart_enable.next = self.ev_restart_enable.val();
        for g in 0..GATES {
            self.state.gate_pipe[g].next = self.gate_pipe[g].val();
            self.state.gate_load[g].next = self.gate_load[g].val();
            self.gate_head[g].next = self.state.gate_head[g].val();
            self.gate_tail[g].next = self.state.gate_tail[g].val();
            self.gate_mask[g].next = self.state.gate_mask[g].val();
            self.gate_enable[g].next = self.state.gate_enable[g].val();
        }
        self.state.load_pipe.next = self.pk_pipe.q.val();
        self.state.load_head.next = self.pk_head.q.val();
        self.state.load_tail.next = self.pk_tail.q.val();
        self.state.load_mask.next = self.pk_mask.q.val();
        self.state.load_enable.next = self.pk_enable.q.val();
        for k in 0..OFFSETS {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        dff_setup!(
            self,
            clock,
            lk_pipe,
            size_ok_r,
            ring_aligned_r,
            head_ok_r,
            nb_off_r,
            pk_enable,
            pk_ring_zero,
            pk_base,
            pk_mask,
            pk_head,
            pk_tail,
            pk_pipe
        );
        self.lk_pipe.reset.next = self.reset.val();
        self.size_ok_r.reset.next = self.reset.val();
        self.ring_aligned_r.reset.next = self.reset.val();
        self.head_ok_r.reset.next = self.reset.val();
        self.nb_off_r.reset.next = self.reset.val();
        self.pk_enable.reset.next = self.reset.val();
        self.pk_ring_zero.reset.next = self.reset.val();
        self.pk_base.reset.next = self.reset.val();
        self.pk_mask.reset.next = self.reset.val();
        self.pk_head.reset.next = self.reset.val();
        self.pk_tail.reset.next = self.reset.val();
        self.pk_pipe.reset.next = self.reset.val();
        self.rx_frames.clock.next = self.clock.val();
        self.rx_frames.reset.next = self.reset.val();
        self.rx_drops.clock.next = self.clock.val();
        self.rx_drops.reset.next = self.reset.val();
        self.rx_frames.clear.active.next = self.clear.active.val();
        self.rx_frames.clear.addr.next = self.clear.addr.val();
        self.rx_drops.clear.active.next = self.clear.active.val();
        self.rx_drops.clear.addr.next = self.clear.addr.val();

        // ---- The page the RAMs read ----
        self.lk_pipe.d.next = self.lk_addr.val();
        self.state.lk.next = self.lk_addr.val();
        self.rx_frames.rd_pipe.next = self.lk_addr.val();
        self.rx_drops.rd_pipe.next = self.lk_addr.val();
        // The page read last cycle.
        self.pg_base.hi.next = self.state.lk_base_hi.val();
        self.pg_base.lo.next = self.state.lk_base_lo.val();
        self.pg_head32.i.next = self.state.lk_head.val();
        self.pg_tail32.i.next = self.state.lk_tail.val();

        // ---- Counters, from the RX engine's events ----
        self.rx_frames.inc.next = self.ev_frame.val();
        self.rx_frames.inc_pipe.next = self.ev_pipe.val();
        self.rx_drops.inc.next = self.ev_drop_ring_full.val();
        self.rx_drops.inc_pipe.next = self.ev_pipe.val();

        // ---- Writes ----
        // Accepted (latched, its page read), checked the next cycle, applied
        // the one after: `RegFile` accepts at most one write every third
        // cycle, so each check sees the previous write's effect.
        self.stages.clock.next = self.clock.val();
        self.stages.reset.next = self.reset.val();
        self.stages.wr_take.next = self.wr.take.val();
        self.stages.wr_addr.next = self.wr.addr.val();
        self.stages.wr_data.next = self.wr.data.val();
        self.stages.rd_take.next = self.rd.take.val();
        self.stages.rd_addr.next = self.rd.addr.val();
        self.wr_pipe.next =
            self.stages.wr_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        // The pipe's notification buffer: the low bits of its index.
        self.wr_buf.next = self.wr_pipe.val().get_bits::<NOTIF_BUF_BITS>(0);
        self.wr_pos.next = self.stages.data.val().get_bits::<SLOT_BITS>(0);
        self.new_head.next = self.wr_pos.val();
        // The value checks, in the check stage.
        self.size_ok_r.d.next = ((self.stages.data.val()
            & (self.stages.data.val() - self.one32.val()))
            == self.zero32.val())
            & (self.stages.data.val() >= self.ring_min.val())
            & (self.stages.data.val() <= self.ring_max.val());
        self.ring_aligned_r.d.next =
            (self.stages.data.val() & self.ring_align_mask.val()) == self.zero32.val();
        // The new head must lie in the ring and between the old head and the
        // tail. The tail is the RAM's, without the forwarded move: a tail
        // the RX engine wrote in the very cycle of the page read is one
        // software cannot have learned yet (a notification or a TAIL read
        // comes later), so it could not name a head past the older one. (The
        // forwarding mux ahead of the subtraction made this check 9 LUT
        // levels deep.)
        self.head_ok_r.d.next = (self.stages.data.val().get_bits::<POS_HI_BITS>(17)
            == self.zero_hi.val())
            & ((self.wr_pos.val() & !self.state.lk_mask.val()) == self.zero_pos.val())
            & (((self.wr_pos.val() - self.state.lk_head.val()) & self.state.lk_mask.val())
                <= ((self.state.lk_tail_ram.val() - self.state.lk_head.val())
                    & self.state.lk_mask.val()));
        self.nb_off_r.d.next = !self.nb_on.val().get_bit(self.wr_buf.val().index());
        // The page, as the check stage read it, for the apply stage.
        self.pk_enable.d.next = self.state.lk_enable.val();
        self.pk_ring_zero.d.next = self.state.lk_ring_bytes.val() == self.zero32.val();
        self.pk_base.d.next = self.pg_base.o.val();
        self.pk_mask.d.next = self.state.lk_mask.val();
        self.pk_head.d.next = self.state.lk_head.val();
        self.pk_pipe.d.next = self.lk_pipe.q.val();
        self.pk_tail.d.next = self.state.lk_tail.val();
        if self.ev_pipe.val() == self.lk_pipe.q.val() {
            if self.ev_frame.val() {
                self.pk_tail.d.next = self.ev_tail.val();
            }
            if self.ev_restart.val() {
                self.pk_tail.d.next = self.zero_pos.val();
            }
        }
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.p_base_lo.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.p_base_hi.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.p_ring_bytes.val();
        self.wo_hit[3].d.next = self.stages.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[4].d.next = self.stages.wr_off.val() == self.p_head.val();
        self.wo_hit[5].d.next = self.stages.wr_off.val() == self.p_prefetch.val();
        self.wo_hit[6].d.next = self.stages.wr_off.val() == self.p_pipe_id.val();
        self.wo_hit[7].d.next = self.stages.wr_off.val() == self.p_tail.val();
        self.wo_hit[8].d.next = self.stages.wr_off.val() == self.p_frames.val();
        self.wo_hit[9].d.next = self.stages.wr_off.val() == self.p_drops.val();
        self.wo_hit[10].d.next = self.stages.wr_off.val() == self.p_tx_head.val();
        self.wo_hit[11].d.next = self.stages.wr_off.val() == self.p_tx_frames.val();
        self.wo_hit[12].d.next = self.stages.wr_off.val() == self.p_tx_drops.val();

        self.state.wr_pipe.next = self.wr_pipe.val();
        self.state.wr_data.next = self.stages.data.val();
        self.state.wr_mask.next = self.pk_mask.q.val();
        self.state.set_base_lo.next = false;
        self.state.set_base_hi.next = false;
        self.state.set_ring.next = false;
        self.state.set_ctrl.next = false;
        self.rearm.next = false;
        self.do_restart.next = false;
        self.do_head_wr.next = false;

        // An RX register: the page was read as the write was accepted.
        self.wr.hit.next = self.stages.apply.val()
            & (self.stages.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.stages.wr_page.val() != self.page0.val())
            & (self.stages.wr_page.val() <= self.last_pipe_page.val())
            & ((self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val())
                | (self.wo_hit[5].q.val())
                | (self.wo_hit[6].q.val())
                | (self.wo_hit[7].q.val())
                | (self.wo_hit[8].q.val())
                | (self.wo_hit[9].q.val())
                | (self.wo_hit[10].q.val())
                | (self.wo_hit[11].q.val())
                | (self.wo_hit[12].q.val()));
        self.wr.err.next = false;
        self.wr.err_cause.next = self.zero32.val();
        if self.wr.hit.val() {
            if (self.wo_hit[0].q.val()) | (self.wo_hit[1].q.val()) | (self.wo_hit[2].q.val()) {
                if self.pk_enable.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_enabled.val();
                } else if self.wo_hit[0].q.val() {
                    if !self.ring_aligned_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_misaligned.val();
                    } else {
                        self.state.set_base_lo.next = true;
                    }
                } else if self.wo_hit[1].q.val() {
                    self.state.set_base_hi.next = true;
                } else {
                    // RING_BYTES (the branch's offsets end here).
                    if !self.size_ok_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_ring_size.val();
                    } else {
                        self.state.set_ring.next = true;
                    }
                }
            } else if self.wo_hit[3].q.val() {
                if self.stages.data.val().get_bit(0) & self.pk_ring_zero.q.val() {
                    // A pipe cannot be enabled before it has a ring.
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_ring_size.val();
                } else if self.stages.data.val().get_bit(0)
                    & !self.pk_enable.q.val()
                    & self.nb_off_r.q.val()
                {
                    // Nor switched on with nowhere to announce its frames.
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_nbuf_off.val();
                } else {
                    self.state.set_ctrl.next = true;
                    self.do_restart.next =
                        self.stages.data.val().get_bit(0) != self.pk_enable.q.val();
                    if self.stages.data.val().get_bit(0) & !self.pk_enable.q.val() {
                        self.do_head_wr.next = true;
                        self.new_head.next = self.zero_pos.val();
                    }
                }
            } else if self.wo_hit[4].q.val() {
                if self.head_ok_r.q.val() {
                    self.do_head_wr.next = true;
                    self.rearm.next = true;
                } else {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_head.val();
                }
            } else if self.wo_hit[5].q.val() {
                self.rearm.next = true;
            } else {
                // PIPE_ID to TX_DROPS (the branch's offsets end here).
                self.wr.err.next = true;
                self.wr.err_cause.next = self.cause_read_only.val();
            }
        }
        self.restart.next = self.do_restart.val();
        self.restart_base.next = self.pk_base.q.val();
        self.restart_mask.next = self.pk_mask.q.val();
        self.restart_enable.next = self.stages.data.val().get_bit(0);
        self.head_wr.next = self.do_head_wr.val();
        self.wr_head.next = self.new_head.val();
        self.state.set_head.next = self.do_head_wr.val();
        self.state.head_value.next = self.new_head.val();
        self.state.switch.next = self.do_restart.val();

        // ---- Reads ----
        // Decoded the cycle after the read was accepted, when its page is
        // out of the RAMs.
        self.rd_pipe.next =
            self.stages.rd_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.rd_pipe32.i.next = self.rd_pipe.val();
        self.rd_is_pipe.next = (self.stages.rd_page.val() != self.page0.val())
            & (self.stages.rd_page.val() <= self.last_pipe_page.val());
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.rd_is_pipe.val() {
            if self.stages.rd_off.val() == self.p_pipe_id.val() {
                self.rd.data.next = self.rd.data.val() | self.rd_pipe32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_base_lo.val() {
                self.rd.data.next = self.rd.data.val() | self.state.lk_base_lo.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_base_hi.val() {
                self.rd.data.next = self.rd.data.val() | self.state.lk_base_hi.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_ring_bytes.val() {
                self.rd.data.next = self.rd.data.val() | self.state.lk_ring_bytes.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_ctrl.val() {
                self.rd.hit.next = true;
                if self.state.lk_enable.val() {
                    self.rd.data.next = self.rd.data.val() | self.one32.val();
                }
            }
            if self.stages.rd_off.val() == self.p_head.val() {
                self.rd.data.next = self.rd.data.val() | self.pg_head32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_prefetch.val() {
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_tail.val() {
                self.rd.data.next = self.rd.data.val() | self.pg_tail32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_frames.val() {
                self.rd.data.next = self.rd.data.val() | self.rx_frames.rd_count.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_drops.val() {
                self.rd.data.next = self.rd.data.val() | self.rx_drops.rd_count.val();
                self.rd.hit.next = true;
            }
        }
    }
}
