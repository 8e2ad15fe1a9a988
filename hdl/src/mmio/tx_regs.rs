use super::reg_stages::{RegStages, OFF_BITS, PAGE_BITS};
use super::{RegRead, RegWrite};
use crate::reset::SDFF;
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::params::{
    PIPES, PIPE_BITS, RING_MAX_BYTES, RING_MIN_BYTES, SLOT_BITS, TX_PIPES,
};
use pendulum_layout::{pipe, Reg, RegError};
use rust_hdl::prelude::*;

// A TX pipe's page is also an RX pipe's page.
const _: () = assert!(TX_PIPES <= PIPES);
/// The TX registers a write can change, in the order of `TxRegs::wo_hit`.
const TX_WRITABLE: usize = 7;

/// The TX pipes' registers (pipes 0..TX_PIPES, on pipe p's page p + 1): ring,
/// completion record address, TX_CTRL, the doorbell TX_TAIL, and the
/// per-pipe TX_FRAMES and TX_DROPS counters; and their part of a register
/// read (all but TX_HEAD, which is the TX engine's and answered by
/// `RegFile`).
///
/// Writes and reads come on `wr` and `rd` (`RegWrite`, `RegRead`) through
/// this block's copy of `RegFile`'s pipeline (`RegStages`: accept, check,
/// apply): in the apply cycle `wr.hit` says the write is to one of these
/// registers, `wr.err` whether it was refused. Every output comes from this block's registers only, so `RegFile`'s one always
/// block never reads back a value computed from its own signals.
#[derive(LogicBlock)]
pub struct TxRegs {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// Register writes (`RegWrite`) and reads (`RegRead`) from `RegFile`.
    pub wr: RegWrite,
    pub rd: RegRead,
    /// One-cycle pulse: the TX pipe was switched on or off (TX_CTRL bit 0
    /// changed), with its completion record's address.
    pub restart: Signal<Out, Bit>,
    pub restart_compl_base: Signal<Out, Bits<64>>,
    /// TX pipe configuration for the TX engine.
    pub base: [Signal<Out, Bits<64>>; TX_PIPES],
    pub mask: [Signal<Out, Bits<SLOT_BITS>>; TX_PIPES],
    pub enable: [Signal<Out, Bit>; TX_PIPES],
    pub tail: [Signal<Out, Bits<SLOT_BITS>>; TX_PIPES],
    pub acp: [Signal<Out, Bit>; TX_PIPES],
    pub atomic: [Signal<Out, Bit>; TX_PIPES],
    /// The TX engine's head per pipe (bounds the doorbell).
    pub head: [Signal<In, Bits<SLOT_BITS>>; TX_PIPES],
    /// A frame sent, or dropped as malformed, by TX pipe `count_pipe`.
    pub count_frame: Signal<In, Bit>,
    pub count_drop: Signal<In, Bit>,
    pub count_pipe: Signal<In, Bits<PIPE_BITS>>,

    base_lo: [SDFF<Bits<32>>; TX_PIPES],
    base_hi: [SDFF<Bits<32>>; TX_PIPES],
    ring_bytes: [SDFF<Bits<32>>; TX_PIPES],
    mask_r: [SDFF<Bits<SLOT_BITS>>; TX_PIPES],
    compl_lo: [SDFF<Bits<32>>; TX_PIPES],
    compl_hi: [SDFF<Bits<32>>; TX_PIPES],
    enable_r: [SDFF<Bit>; TX_PIPES],
    tail_r: [SDFF<Bits<SLOT_BITS>>; TX_PIPES],
    frames: [SDFF<Bits<32>>; TX_PIPES],
    drops: [SDFF<Bits<32>>; TX_PIPES],
    acp_r: [SDFF<Bit>; TX_PIPES],
    atomic_r: [SDFF<Bit>; TX_PIPES],
    base_cat: [Concat<32, 32, 64>; TX_PIPES],
    compl_cat: [Concat<32, 32, 64>; TX_PIPES],
    tail32: [ZeroExtend<SLOT_BITS, 32>; TX_PIPES],
    // The write: latched as it is accepted, checked the next cycle (into the
    // `*_ok_r` flags and `wo_hit`), applied the one after.
    // The write pipeline's and read stage's registers (`RegStages`).
    stages: RegStages,
    wr_pipe: Signal<Local, Bits<PIPE_BITS>>,
    wr_data16: Signal<Local, Bits<SLOT_BITS>>,
    ring_slots: Signal<Local, Bits<SLOT_BITS>>,
    size_ok_r: SDFF<Bit>,
    ring_aligned_r: SDFF<Bit>,
    notif_aligned_r: SDFF<Bit>,
    tail_ok_r: [SDFF<Bit>; TX_PIPES],
    // The write's offset decoded in the check stage: TX_RING_BASE_LO,
    // TX_RING_BASE_HI, TX_RING_BYTES, TX_COMPL_BASE_LO, TX_COMPL_BASE_HI,
    // TX_CTRL, TX_TAIL.
    wo_hit: [SDFF<Bit>; TX_WRITABLE],
    // What the read's address names, from `stages`.
    rd_pipe: Signal<Local, Bits<PIPE_BITS>>,
    rd_is_pipe: Signal<Local, Bit>,

    p_base_lo: Constant<Bits<OFF_BITS>>,
    p_base_hi: Constant<Bits<OFF_BITS>>,
    p_ring_bytes: Constant<Bits<OFF_BITS>>,
    p_compl_lo: Constant<Bits<OFF_BITS>>,
    p_compl_hi: Constant<Bits<OFF_BITS>>,
    p_ctrl: Constant<Bits<OFF_BITS>>,
    p_tail: Constant<Bits<OFF_BITS>>,
    p_frames: Constant<Bits<OFF_BITS>>,
    p_drops: Constant<Bits<OFF_BITS>>,
    last_pipe_page: Constant<Bits<PAGE_BITS>>,
    last_tx_page: Constant<Bits<PAGE_BITS>>,
    page0: Constant<Bits<PAGE_BITS>>,
    pipe_one: Constant<Bits<PIPE_BITS>>,
    zero_off2: Constant<Bits<2>>,
    ring_min: Constant<Bits<32>>,
    ring_max: Constant<Bits<32>>,
    ring_align_mask: Constant<Bits<32>>,
    notif_align_mask: Constant<Bits<32>>,
    cause_tail: Constant<Bits<32>>,
    cause_ring_size: Constant<Bits<32>>,
    cause_misaligned: Constant<Bits<32>>,
    cause_enabled: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    four32: Constant<Bits<32>>,
}

fn off(r: Reg) -> Constant<Bits<OFF_BITS>> {
    Constant::new((r.offset as u64).into())
}
fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new((v as u64).into())
}
fn cause(e: RegError) -> Constant<Bits<32>> {
    c32((e as u32) << pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT)
}

impl Default for TxRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            restart_compl_base: Default::default(),
            base: Default::default(),
            mask: Default::default(),
            enable: Default::default(),
            tail: Default::default(),
            acp: Default::default(),
            atomic: Default::default(),
            head: Default::default(),
            count_frame: Default::default(),
            count_drop: Default::default(),
            count_pipe: Default::default(),
            base_lo: Default::default(),
            base_hi: Default::default(),
            ring_bytes: Default::default(),
            mask_r: Default::default(),
            compl_lo: Default::default(),
            compl_hi: Default::default(),
            enable_r: Default::default(),
            tail_r: Default::default(),
            frames: Default::default(),
            drops: Default::default(),
            acp_r: Default::default(),
            atomic_r: Default::default(),
            base_cat: Default::default(),
            compl_cat: Default::default(),
            tail32: Default::default(),
            wr_pipe: Default::default(),
            wr_data16: Default::default(),
            ring_slots: Default::default(),
            size_ok_r: Default::default(),
            ring_aligned_r: Default::default(),
            notif_aligned_r: Default::default(),
            tail_ok_r: Default::default(),
            wo_hit: Default::default(),
            rd_pipe: Default::default(),
            rd_is_pipe: Default::default(),
            p_base_lo: off(pipe::TX_RING_BASE_LO),
            p_base_hi: off(pipe::TX_RING_BASE_HI),
            p_ring_bytes: off(pipe::TX_RING_BYTES),
            p_compl_lo: off(pipe::TX_COMPL_BASE_LO),
            p_compl_hi: off(pipe::TX_COMPL_BASE_HI),
            p_ctrl: off(pipe::TX_CTRL),
            p_tail: off(pipe::TX_TAIL),
            p_frames: off(pipe::TX_FRAMES),
            p_drops: off(pipe::TX_DROPS),
            last_pipe_page: Constant::new((PIPES as u64).into()),
            last_tx_page: Constant::new((TX_PIPES as u64).into()),
            page0: Constant::new(0u64.into()),
            pipe_one: Constant::new(1u64.into()),
            stages: Default::default(),
            zero_off2: Constant::new(0u64.into()),
            ring_min: c32(RING_MIN_BYTES),
            ring_max: c32(RING_MAX_BYTES),
            ring_align_mask: c32(pipe::RING_ALIGN as u32 - 1),
            notif_align_mask: c32(pipe::NOTIF_ALIGN as u32 - 1),
            cause_tail: cause(RegError::TailBeyondHead),
            cause_ring_size: cause(RegError::BadRingSize),
            cause_misaligned: cause(RegError::Misaligned),
            cause_enabled: cause(RegError::PipeEnabled),
            zero16: Constant::new(0u64.into()),
            one16: Constant::new(1u64.into()),
            zero32: c32(0),
            one32: c32(1),
            two32: c32(2),
            four32: c32(4),
        }
    }
}

impl Logic for TxRegs {
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks and hold-by-default for every register.
        for i in 0..TX_PIPES {
            self.base_lo[i].clock.next = self.clock.val();
            self.base_lo[i].reset.next = self.reset.val();
            self.base_hi[i].clock.next = self.clock.val();
            self.base_hi[i].reset.next = self.reset.val();
            self.ring_bytes[i].clock.next = self.clock.val();
            self.ring_bytes[i].reset.next = self.reset.val();
            self.mask_r[i].clock.next = self.clock.val();
            self.mask_r[i].reset.next = self.reset.val();
            self.compl_lo[i].clock.next = self.clock.val();
            self.compl_lo[i].reset.next = self.reset.val();
            self.compl_hi[i].clock.next = self.clock.val();
            self.compl_hi[i].reset.next = self.reset.val();
            self.enable_r[i].clock.next = self.clock.val();
            self.enable_r[i].reset.next = self.reset.val();
            self.tail_r[i].clock.next = self.clock.val();
            self.tail_r[i].reset.next = self.reset.val();
            self.frames[i].clock.next = self.clock.val();
            self.frames[i].reset.next = self.reset.val();
            self.drops[i].clock.next = self.clock.val();
            self.drops[i].reset.next = self.reset.val();
            self.acp_r[i].clock.next = self.clock.val();
            self.acp_r[i].reset.next = self.reset.val();
            self.atomic_r[i].clock.next = self.clock.val();
            self.atomic_r[i].reset.next = self.reset.val();
            self.tail_ok_r[i].clock.next = self.clock.val();
            self.tail_ok_r[i].reset.next = self.reset.val();
            self.base_lo[i].d.next = self.base_lo[i].q.val();
            self.base_hi[i].d.next = self.base_hi[i].q.val();
            self.ring_bytes[i].d.next = self.ring_bytes[i].q.val();
            self.mask_r[i].d.next = self.mask_r[i].q.val();
            self.compl_lo[i].d.next = self.compl_lo[i].q.val();
            self.compl_hi[i].d.next = self.compl_hi[i].q.val();
            self.enable_r[i].d.next = self.enable_r[i].q.val();
            self.tail_r[i].d.next = self.tail_r[i].q.val();
            self.frames[i].d.next = self.frames[i].q.val();
            self.drops[i].d.next = self.drops[i].q.val();
            self.acp_r[i].d.next = self.acp_r[i].q.val();
            self.atomic_r[i].d.next = self.atomic_r[i].q.val();
        }
        for k in 0..TX_WRITABLE {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        dff_setup!(self, clock, size_ok_r, ring_aligned_r, notif_aligned_r);
        self.size_ok_r.reset.next = self.reset.val();
        self.ring_aligned_r.reset.next = self.reset.val();
        self.notif_aligned_r.reset.next = self.reset.val();

        // Outputs to the TX engine.
        for i in 0..TX_PIPES {
            self.base_cat[i].hi.next = self.base_hi[i].q.val();
            self.base_cat[i].lo.next = self.base_lo[i].q.val();
            self.base[i].next = self.base_cat[i].o.val();
            self.compl_cat[i].hi.next = self.compl_hi[i].q.val();
            self.compl_cat[i].lo.next = self.compl_lo[i].q.val();
            self.mask[i].next = self.mask_r[i].q.val();
            self.enable[i].next = self.enable_r[i].q.val();
            self.tail[i].next = self.tail_r[i].q.val();
            self.tail32[i].i.next = self.tail_r[i].q.val();
            self.acp[i].next = self.acp_r[i].q.val();
            self.atomic[i].next = self.atomic_r[i].q.val();
        }
        self.restart.next = false;
        self.restart_compl_base.next = self.compl_cat[0].o.val();

        // ---- Writes ----
        // Accepted (latched), checked the next cycle, applied the one after:
        // `RegFile` accepts at most one write every third cycle.
        self.stages.clock.next = self.clock.val();
        self.stages.reset.next = self.reset.val();
        self.stages.wr_take.next = self.wr.take.val();
        self.stages.wr_addr.next = self.wr.addr.val();
        self.stages.wr_data.next = self.wr.data.val();
        self.stages.rd_take.next = self.rd.take.val();
        self.stages.rd_addr.next = self.rd.addr.val();
        self.wr_pipe.next =
            self.stages.wr_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.wr_data16.next = self.stages.data.val().get_bits::<SLOT_BITS>(0);
        self.ring_slots.next = self.stages.data.val().get_bits::<SLOT_BITS>(6);
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
        for i in 0..TX_PIPES {
            // The new TX tail must lie in the ring and advance only into free slots
            // (one slot stays empty so a full ring differs from an empty one).
            self.tail_ok_r[i].d.next = (self.stages.data.val().get_bits::<16>(16)
                == self.zero16.val())
                & ((self.wr_data16.val() & !self.mask_r[i].q.val()) == self.zero16.val())
                & (((self.wr_data16.val() - self.tail_r[i].q.val()) & self.mask_r[i].q.val())
                    <= (self.mask_r[i].q.val()
                        - ((self.tail_r[i].q.val() - self.head[i].val())
                            & self.mask_r[i].q.val())));
        }
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.p_base_lo.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.p_base_hi.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.p_ring_bytes.val();
        self.wo_hit[3].d.next = self.stages.wr_off.val() == self.p_compl_lo.val();
        self.wo_hit[4].d.next = self.stages.wr_off.val() == self.p_compl_hi.val();
        self.wo_hit[5].d.next = self.stages.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[6].d.next = self.stages.wr_off.val() == self.p_tail.val();

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
            for i in 0..TX_PIPES {
                if self.wr_pipe.val().index() == i {
                    if (self.wo_hit[0].q.val())
                        | (self.wo_hit[1].q.val())
                        | (self.wo_hit[2].q.val())
                        | (self.wo_hit[3].q.val())
                        | (self.wo_hit[4].q.val())
                    {
                        if self.enable_r[i].q.val() {
                            self.wr.err.next = true;
                            self.wr.err_cause.next = self.cause_enabled.val();
                        } else if self.wo_hit[0].q.val() {
                            if !self.ring_aligned_r.q.val() {
                                self.wr.err.next = true;
                                self.wr.err_cause.next = self.cause_misaligned.val();
                            } else {
                                self.base_lo[i].d.next = self.stages.data.val();
                            }
                        } else if self.wo_hit[1].q.val() {
                            self.base_hi[i].d.next = self.stages.data.val();
                        } else if self.wo_hit[2].q.val() {
                            if !self.size_ok_r.q.val() {
                                self.wr.err.next = true;
                                self.wr.err_cause.next = self.cause_ring_size.val();
                            } else {
                                self.ring_bytes[i].d.next = self.stages.data.val();
                                self.mask_r[i].d.next = self.ring_slots.val() - self.one16.val();
                            }
                        } else if self.wo_hit[3].q.val() {
                            if !self.notif_aligned_r.q.val() {
                                self.wr.err.next = true;
                                self.wr.err_cause.next = self.cause_misaligned.val();
                            } else {
                                self.compl_lo[i].d.next = self.stages.data.val();
                            }
                        } else {
                            self.compl_hi[i].d.next = self.stages.data.val();
                        }
                    } else if self.wo_hit[5].q.val() {
                        if self.stages.data.val().get_bit(0)
                            & (self.ring_bytes[i].q.val() == self.zero32.val())
                        {
                            self.wr.err.next = true;
                            self.wr.err_cause.next = self.cause_ring_size.val();
                        } else {
                            self.enable_r[i].d.next = self.stages.data.val().get_bit(0);
                            self.restart.next =
                                self.stages.data.val().get_bit(0) != self.enable_r[i].q.val();
                            self.restart_compl_base.next = self.compl_cat[i].o.val();
                            self.acp_r[i].d.next = self.stages.data.val().get_bit(1);
                            self.atomic_r[i].d.next = self.stages.data.val().get_bit(2);
                            if !self.stages.data.val().get_bit(0) {
                                self.tail_r[i].d.next = self.zero16.val();
                            }
                        }
                    } else {
                        // TX_TAIL (the branch's offsets end here).
                        if self.tail_ok_r[i].q.val() & self.enable_r[i].q.val() {
                            self.tail_r[i].d.next = self.wr_data16.val();
                        } else {
                            self.wr.err.next = true;
                            self.wr.err_cause.next = self.cause_tail.val();
                        }
                    }
                }
            }
        }

        // ---- Counters ----
        for i in 0..TX_PIPES {
            if self.count_pipe.val().index() == i {
                if self.count_frame.val() {
                    self.frames[i].d.next = self.frames[i].q.val() + self.one32.val();
                }
                if self.count_drop.val() {
                    self.drops[i].d.next = self.drops[i].q.val() + self.one32.val();
                }
            }
        }

        // ---- Reads ----
        self.rd_pipe.next =
            self.stages.rd_page.val().get_bits::<PIPE_BITS>(0) - self.pipe_one.val();
        self.rd_is_pipe.next = (self.stages.rd_page.val() != self.page0.val())
            & (self.stages.rd_page.val() <= self.last_pipe_page.val());
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        for i in 0..TX_PIPES {
            if self.rd_is_pipe.val() & (self.rd_pipe.val().index() == i) {
                if self.stages.rd_off.val() == self.p_base_lo.val() {
                    self.rd.data.next = self.rd.data.val() | self.base_lo[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_base_hi.val() {
                    self.rd.data.next = self.rd.data.val() | self.base_hi[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_ring_bytes.val() {
                    self.rd.data.next = self.rd.data.val() | self.ring_bytes[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_compl_lo.val() {
                    self.rd.data.next = self.rd.data.val() | self.compl_lo[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_compl_hi.val() {
                    self.rd.data.next = self.rd.data.val() | self.compl_hi[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_ctrl.val() {
                    self.rd.hit.next = true;
                    if self.enable_r[i].q.val() {
                        self.rd.data.next = self.rd.data.val() | self.one32.val();
                    }
                    if self.acp_r[i].q.val() {
                        self.rd.data.next = self.rd.data.val() | self.two32.val();
                    }
                    if self.atomic_r[i].q.val() {
                        self.rd.data.next = self.rd.data.val() | self.four32.val();
                    }
                }
                if self.stages.rd_off.val() == self.p_tail.val() {
                    self.rd.data.next = self.rd.data.val() | self.tail32[i].o.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_frames.val() {
                    self.rd.data.next = self.rd.data.val() | self.frames[i].q.val();
                    self.rd.hit.next = true;
                }
                if self.stages.rd_off.val() == self.p_drops.val() {
                    self.rd.data.next = self.rd.data.val() | self.drops[i].q.val();
                    self.rd.hit.next = true;
                }
            }
        }
    }
}
