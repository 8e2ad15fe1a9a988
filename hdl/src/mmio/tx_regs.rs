use super::reg_stages::{c32, cause, off, RegStages, OFF_BITS, PAGE_BITS};
use super::tx_pipe_state::TxPipeState;
use super::PipeCounter;
use super::{RegRead, RegWrite};
use crate::reset::{Clear, SDFF};
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::params::{RING_MAX_BYTES, RING_MIN_BYTES, SLOT_BITS, TX_PIPES, TX_PIPE_BITS};
use pendulum_layout::{pipe, RegError};
use rust_hdl::prelude::*;

/// Bits of a 32-bit register write above a ring position (from bit 17:
/// hdl_gen takes a literal bit index).
const POS_HI_BITS: usize = 32 - SLOT_BITS;
const _: () = assert!(SLOT_BITS == 17);

// A TX pipe's page is also an RX pipe's page.
const _: () = assert!(TX_PIPES <= pendulum_layout::params::PIPES);
/// The TX registers a write can change, in the order of `TxRegs::wo_hit`.
const TX_WRITABLE: usize = 7;

/// What the TX engine reads from the TX pipes' registers and tells them.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct TxEnginePort {
    /// One-cycle pulse: TX pipe `restart_pipe` was switched on or off
    /// (TX_CTRL bit 0 changed), with its completion record's address.
    pub restart: Signal<Out, Bit>,
    pub restart_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    pub restart_compl_base: Signal<Out, Bits<64>>,
    /// One-cycle pulse: software rang TX pipe `doorbell_pipe` (its new tail
    /// is in the RAMs from the next cycle on).
    pub doorbell: Signal<Out, Bit>,
    pub doorbell_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    /// TX_CTRL's bits, one per TX pipe: on, bound to the ACP link, bound to
    /// the atomic unit.
    pub enable: Signal<Out, Bits<TX_PIPES>>,
    pub acp: Signal<Out, Bits<TX_PIPES>>,
    pub atomic: Signal<Out, Bits<TX_PIPES>>,
    /// TX_CTRL_STAMPS, one bit per TX pipe.
    pub stamps: Signal<Out, Bits<TX_PIPES>>,
    /// The TX completion logic's read port: pipe `cp_addr`'s tail, a cycle
    /// later.
    pub cp_addr: Signal<In, Bits<TX_PIPE_BITS>>,
    pub cp_tail: Signal<Out, Bits<SLOT_BITS>>,
    /// The fetcher's read port: pipe `fe_addr`'s ring, a cycle later.
    pub fe_addr: Signal<In, Bits<TX_PIPE_BITS>>,
    pub fe_base: Signal<Out, Bits<64>>,
    pub fe_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub fe_tail: Signal<Out, Bits<SLOT_BITS>>,
    /// The framer moved pipe `head_pipe`'s head to `head_value`.
    pub head_move: Signal<In, Bit>,
    pub head_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    pub head_value: Signal<In, Bits<SLOT_BITS>>,
}

/// The TX pipes' registers (pipes 0..TX_PIPES, on pipe p's page p + 1):
/// ring base and size, completion record address, TX_CTRL, the doorbell
/// TX_TAIL, the TX engine's head (TX_HEAD) and the per-pipe TX_FRAMES and
/// TX_DROPS counters. The ring state itself lives in `TxPipeState` (its one
/// home, in RAM), which this block reads at `lk_addr` (the pipe of the write
/// `RegFile` accepts this cycle, else of its read, as for `RxPipeBank`) and
/// the TX fetcher at `fe_addr`; the framer's head moves go to it too.
///
/// Writes and reads come on `wr` and `rd` (`RegWrite`, `RegRead`) through
/// this block's copy of `RegFile`'s pipeline (`RegStages`): the accept cycle
/// reads the page, the check stage checks the value against it (into
/// registers), the apply stage writes it; `wr.hit` says the write is to one
/// of these registers, `wr.err` whether it was refused. Applied writes are
/// reported to the TX engine: `restart` (the pipe was switched on or off)
/// and `doorbell` (a TX_TAIL write was taken).
#[derive(LogicBlock)]
pub struct TxRegs {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep: every TX pipe's registers are zeroed.
    pub clear: Clear<TX_PIPE_BITS>,
    /// The TX pipe whose page the MMIO copy of the RAMs reads this cycle
    /// (the low bits of `RegFile`'s pipe).
    pub lk_addr: Signal<In, Bits<TX_PIPE_BITS>>,
    /// Register writes (`RegWrite`) and reads (`RegRead`) from `RegFile`.
    pub wr: RegWrite,
    pub rd: RegRead,
    pub engine: TxEnginePort,
    /// A frame sent, or dropped as malformed, by TX pipe `count_pipe`.
    pub count_frame: Signal<In, Bit>,
    pub count_drop: Signal<In, Bit>,
    pub count_pipe: Signal<In, Bits<TX_PIPE_BITS>>,

    // The pipes' ring state (RAM), and their counters.
    state: TxPipeState,
    frames: PipeCounter<TX_PIPE_BITS>,
    drops: PipeCounter<TX_PIPE_BITS>,
    pg_head32: ZeroExtend<SLOT_BITS, 32>,
    pg_tail32: ZeroExtend<SLOT_BITS, 32>,
    pg_ctrl32: ZeroExtend<4, 32>,
    pg_compl: Concat<32, 32, 64>,
    // The write: its page as the check stage read it, for the apply stage.
    pk_enable: SDFF<Bit>,
    pk_ring_zero: SDFF<Bit>,
    pk_compl: SDFF<Bits<64>>,
    stages: RegStages,
    wr_pipe: Signal<Local, Bits<TX_PIPE_BITS>>,
    wr_pos: Signal<Local, Bits<SLOT_BITS>>,
    size_ok_r: SDFF<Bit>,
    ring_aligned_r: SDFF<Bit>,
    notif_aligned_r: SDFF<Bit>,
    tail_ok_r: SDFF<Bit>,
    // The write's offset decoded in the check stage: TX_RING_BASE_LO,
    // TX_RING_BASE_HI, TX_RING_BYTES, TX_COMPL_BASE_LO, TX_COMPL_BASE_HI,
    // TX_CTRL, TX_TAIL.
    wo_hit: [SDFF<Bit>; TX_WRITABLE],
    ctrl_on: Signal<Local, Bit>,
    // What the read's address names, from `stages`.
    rd_is_tx: Signal<Local, Bit>,

    p_base_lo: Constant<Bits<OFF_BITS>>,
    p_base_hi: Constant<Bits<OFF_BITS>>,
    p_ring_bytes: Constant<Bits<OFF_BITS>>,
    p_compl_lo: Constant<Bits<OFF_BITS>>,
    p_compl_hi: Constant<Bits<OFF_BITS>>,
    p_ctrl: Constant<Bits<OFF_BITS>>,
    p_tail: Constant<Bits<OFF_BITS>>,
    p_head: Constant<Bits<OFF_BITS>>,
    p_frames: Constant<Bits<OFF_BITS>>,
    p_drops: Constant<Bits<OFF_BITS>>,
    last_tx_page: Constant<Bits<PAGE_BITS>>,
    page0: Constant<Bits<PAGE_BITS>>,
    pipe_one: Constant<Bits<TX_PIPE_BITS>>,
    zero_off2: Constant<Bits<2>>,
    ring_min: Constant<Bits<32>>,
    ring_max: Constant<Bits<32>>,
    ring_align_mask: Constant<Bits<32>>,
    notif_align_mask: Constant<Bits<32>>,
    cause_tail: Constant<Bits<32>>,
    cause_ring_size: Constant<Bits<32>>,
    cause_misaligned: Constant<Bits<32>>,
    cause_enabled: Constant<Bits<32>>,
    zero_pos: Constant<Bits<SLOT_BITS>>,
    // A position write's bits above the position.
    zero_hi: Constant<Bits<POS_HI_BITS>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
}

impl Default for TxRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            lk_addr: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            engine: Default::default(),
            count_frame: Default::default(),
            count_drop: Default::default(),
            count_pipe: Default::default(),
            state: Default::default(),
            frames: PipeCounter::new(),
            drops: PipeCounter::new(),
            pg_head32: Default::default(),
            pg_tail32: Default::default(),
            pg_ctrl32: Default::default(),
            pg_compl: Default::default(),
            pk_enable: Default::default(),
            pk_ring_zero: Default::default(),
            pk_compl: Default::default(),
            stages: Default::default(),
            wr_pipe: Default::default(),
            wr_pos: Default::default(),
            size_ok_r: Default::default(),
            ring_aligned_r: Default::default(),
            notif_aligned_r: Default::default(),
            tail_ok_r: Default::default(),
            wo_hit: Default::default(),
            ctrl_on: Default::default(),
            rd_is_tx: Default::default(),
            p_base_lo: off(pipe::TX_RING_BASE_LO),
            p_base_hi: off(pipe::TX_RING_BASE_HI),
            p_ring_bytes: off(pipe::TX_RING_BYTES),
            p_compl_lo: off(pipe::TX_COMPL_BASE_LO),
            p_compl_hi: off(pipe::TX_COMPL_BASE_HI),
            p_ctrl: off(pipe::TX_CTRL),
            p_tail: off(pipe::TX_TAIL),
            p_head: off(pipe::TX_HEAD),
            p_frames: off(pipe::TX_FRAMES),
            p_drops: off(pipe::TX_DROPS),
            last_tx_page: Constant::new((TX_PIPES as u64).into()),
            page0: Constant::new(0u64.into()),
            pipe_one: Constant::new(1u64.into()),
            zero_off2: Constant::new(0u64.into()),
            ring_min: c32(RING_MIN_BYTES),
            ring_max: c32(RING_MAX_BYTES),
            ring_align_mask: c32(pipe::RING_ALIGN as u32 - 1),
            notif_align_mask: c32(pipe::NOTIF_ALIGN as u32 - 1),
            cause_tail: cause(RegError::TailBeyondHead),
            cause_ring_size: cause(RegError::BadRingSize),
            cause_misaligned: cause(RegError::Misaligned),
            cause_enabled: cause(RegError::PipeEnabled),
            zero_pos: Constant::new(0u64.into()),
            zero_hi: Constant::new(0u64.into()),
            zero32: c32(0),
            one32: c32(1),
        }
    }
}

impl Logic for TxRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pk_enable,
            pk_ring_zero,
            pk_compl,
            size_ok_r,
            ring_aligned_r,
            notif_aligned_r,
            tail_ok_r
        );
        self.pk_enable.reset.next = self.reset.val();
        self.pk_ring_zero.reset.next = self.reset.val();
        self.pk_compl.reset.next = self.reset.val();
        self.size_ok_r.reset.next = self.reset.val();
        self.ring_aligned_r.reset.next = self.reset.val();
        self.notif_aligned_r.reset.next = self.reset.val();
        self.tail_ok_r.reset.next = self.reset.val();
        for k in 0..TX_WRITABLE {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        self.state.clock.next = self.clock.val();
        self.state.reset.next = self.reset.val();
        self.state.clear.active.next = self.clear.active.val();
        self.state.clear.addr.next = self.clear.addr.val();
        self.frames.clock.next = self.clock.val();
        self.frames.reset.next = self.reset.val();
        self.frames.clear.active.next = self.clear.active.val();
        self.frames.clear.addr.next = self.clear.addr.val();
        self.drops.clock.next = self.clock.val();
        self.drops.reset.next = self.reset.val();
        self.drops.clear.active.next = self.clear.active.val();
        self.drops.clear.addr.next = self.clear.addr.val();

        // ---- The TX engine's view ----
        self.engine.enable.next = self.state.enable.val();
        self.engine.acp.next = self.state.acp.val();
        self.engine.atomic.next = self.state.atomic.val();
        self.engine.stamps.next = self.state.stamps.val();
        self.state.fe_addr.next = self.engine.fe_addr.val();
        self.state.cp_addr.next = self.engine.cp_addr.val();
        self.engine.cp_tail.next = self.state.cp_tail.val();
        self.engine.fe_base.next = self.state.fe_base.val();
        self.engine.fe_mask.next = self.state.fe_mask.val();
        self.engine.fe_tail.next = self.state.fe_tail.val();
        self.state.head_move.next = self.engine.head_move.val();
        self.state.head_pipe.next = self.engine.head_pipe.val();
        self.state.head_value.next = self.engine.head_value.val();
        self.frames.inc.next = self.count_frame.val();
        self.frames.inc_pipe.next = self.count_pipe.val();
        self.drops.inc.next = self.count_drop.val();
        self.drops.inc_pipe.next = self.count_pipe.val();

        // ---- The page read as a write or read is accepted ----
        self.state.lk.next = self.lk_addr.val();
        self.frames.rd_pipe.next = self.lk_addr.val();
        self.drops.rd_pipe.next = self.lk_addr.val();
        self.pg_head32.i.next = self.state.lk_head.val();
        self.pg_tail32.i.next = self.state.lk_tail.val();
        self.pg_ctrl32.i.next = self.state.lk_ctrl.val();
        self.pg_compl.hi.next = self.state.lk_compl_hi.val();
        self.pg_compl.lo.next = self.state.lk_compl_lo.val();

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
        // Pipe p's page is page p + 1 (the low bits of page - 1 are the low
        // bits of the page, minus 1).
        self.wr_pipe.next =
            self.stages.wr_page.val().get_bits::<TX_PIPE_BITS>(0) - self.pipe_one.val();
        self.wr_pos.next = self.stages.data.val().get_bits::<SLOT_BITS>(0);
        // The value checks, in the check stage.
        self.size_ok_r.d.next = ((self.stages.data.val()
            & (self.stages.data.val() - self.one32.val()))
            == self.zero32.val())
            & (self.stages.data.val() >= self.ring_min.val())
            & (self.stages.data.val() <= self.ring_max.val());
        self.ring_aligned_r.d.next =
            (self.stages.data.val() & self.ring_align_mask.val()) == self.zero32.val();
        self.notif_aligned_r.d.next =
            (self.stages.data.val() & self.notif_align_mask.val()) == self.zero32.val();
        // The new TX tail must lie in the ring and advance only into free
        // slots (one slot stays empty so a full ring differs from an empty
        // one). The head read with the page misses a move made in that very
        // cycle: a head one cycle old only holds back slots that software
        // cannot yet know are free (it learns the head from this RAM, or
        // later from a completion record).
        self.tail_ok_r.d.next = (self.stages.data.val().get_bits::<POS_HI_BITS>(17)
            == self.zero_hi.val())
            & ((self.wr_pos.val() & !self.state.lk_mask.val()) == self.zero_pos.val())
            & (((self.wr_pos.val() - self.state.lk_tail.val()) & self.state.lk_mask.val())
                <= (self.state.lk_mask.val()
                    - ((self.state.lk_tail.val() - self.state.lk_head.val())
                        & self.state.lk_mask.val())));
        self.pk_enable.d.next = self.state.lk_ctrl.val().get_bit(0);
        self.pk_ring_zero.d.next = self.state.lk_ring_bytes.val() == self.zero32.val();
        self.pk_compl.d.next = self.pg_compl.o.val();
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.p_base_lo.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.p_base_hi.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.p_ring_bytes.val();
        self.wo_hit[3].d.next = self.stages.wr_off.val() == self.p_compl_lo.val();
        self.wo_hit[4].d.next = self.stages.wr_off.val() == self.p_compl_hi.val();
        self.wo_hit[5].d.next = self.stages.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[6].d.next = self.stages.wr_off.val() == self.p_tail.val();

        self.state.wr_pipe.next = self.wr_pipe.val();
        self.state.wr_data.next = self.stages.data.val();
        self.state.set_base_lo.next = false;
        self.state.set_base_hi.next = false;
        self.state.set_ring.next = false;
        self.state.set_compl_lo.next = false;
        self.state.set_compl_hi.next = false;
        self.state.set_tail.next = false;
        self.state.set_ctrl.next = false;
        self.state.switch.next = false;
        self.engine.restart.next = false;
        self.engine.restart_pipe.next = self.wr_pipe.val();
        self.engine.restart_compl_base.next = self.pk_compl.q.val();
        self.engine.doorbell.next = false;
        self.engine.doorbell_pipe.next = self.wr_pipe.val();
        self.ctrl_on.next = self.stages.data.val().get_bit(0);

        // A TX register, on a page of one of the TX pipes (a TX pipe's page
        // is a pipe's page: TX_PIPES <= PIPES).
        self.wr.hit.next = self.stages.apply.val()
            & (self.stages.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.stages.wr_page.val() != self.page0.val())
            & (self.stages.wr_page.val() <= self.last_tx_page.val())
            & ((self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val())
                | (self.wo_hit[5].q.val())
                | (self.wo_hit[6].q.val()));
        self.wr.err.next = false;
        self.wr.err_cause.next = self.zero32.val();
        if self.wr.hit.val() {
            if (self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val())
            {
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
                } else if self.wo_hit[2].q.val() {
                    if !self.size_ok_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_ring_size.val();
                    } else {
                        self.state.set_ring.next = true;
                    }
                } else if self.wo_hit[3].q.val() {
                    if !self.notif_aligned_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_misaligned.val();
                    } else {
                        self.state.set_compl_lo.next = true;
                    }
                } else {
                    self.state.set_compl_hi.next = true;
                }
            } else if self.wo_hit[5].q.val() {
                if self.ctrl_on.val() & self.pk_ring_zero.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_ring_size.val();
                } else {
                    self.state.set_ctrl.next = true;
                    if self.ctrl_on.val() != self.pk_enable.q.val() {
                        // Switched: the ring starts over at slot 0.
                        self.engine.restart.next = true;
                        self.state.switch.next = true;
                    }
                }
            } else {
                // TX_TAIL (the branch's offsets end here).
                if self.tail_ok_r.q.val() & self.pk_enable.q.val() {
                    self.state.set_tail.next = true;
                    self.engine.doorbell.next = true;
                } else {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_tail.val();
                }
            }
        }

        // ---- Reads ----
        // The page was read as the read was accepted.
        self.rd_is_tx.next = (self.stages.rd_page.val() != self.page0.val())
            & (self.stages.rd_page.val() <= self.last_tx_page.val());
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.rd_is_tx.val() {
            if self.stages.rd_off.val() == self.p_base_lo.val() {
                self.rd.data.next = self.state.lk_base_lo.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_base_hi.val() {
                self.rd.data.next = self.state.lk_base_hi.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_ring_bytes.val() {
                self.rd.data.next = self.state.lk_ring_bytes.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_compl_lo.val() {
                self.rd.data.next = self.state.lk_compl_lo.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_compl_hi.val() {
                self.rd.data.next = self.state.lk_compl_hi.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_ctrl.val() {
                self.rd.data.next = self.pg_ctrl32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_tail.val() {
                self.rd.data.next = self.pg_tail32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_head.val() {
                self.rd.data.next = self.pg_head32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_frames.val() {
                self.rd.data.next = self.frames.rd_count.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_drops.val() {
                self.rd.data.next = self.drops.rd_count.val();
                self.rd.hit.next = true;
            }
        }
    }
}
