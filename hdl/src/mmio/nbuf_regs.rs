use super::reg_stages::{c32, cause, off, RegStages, OFF_BITS, PAGE_BITS};
use super::{RegRead, RegWrite};
use crate::reset::{zero_ram, Clear, SDFF};
use crate::stream::Concat;
use pendulum_layout::params::{NOTIF_BUFS, NOTIF_BUF_BITS, PIPES, RING_MAX_BYTES, RING_MIN_BYTES};
use pendulum_layout::{pipe, RegError};
use rust_hdl::prelude::*;

// Buffer b's registers are on pipe b's page.
const _: () = assert!(NOTIF_BUFS <= PIPES);
/// The offsets a write is tested against, in the order of `wo_hit`.
const WRITABLE: usize = 5;

/// What the notification buffers' registers tell the notification writer:
/// buffer `RegFile::wr_pipe` (a page below NOTIF_BUFS) switched on or off,
/// and software's head writes.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct NbufConfig {
    /// One-cycle pulse: the write's buffer was switched on or off, with its
    /// address and records minus one.
    pub cfg: Signal<Out, Bit>,
    pub cfg_on: Signal<Out, Bit>,
    pub cfg_base: Signal<Out, Bits<64>>,
    pub cfg_mask: Signal<Out, Bits<32>>,
    /// One-cycle pulse: software wrote the buffer's head.
    pub head_wr: Signal<Out, Bit>,
    pub head: Signal<Out, Bits<32>>,
}

/// The notification buffers' registers (buffer b on pipe b's page, page
/// b + 1): NBUF_BASE_LO/HI, NBUF_BYTES and NBUF_HEAD in block RAM, one RAM
/// per register, and NBUF_CTRL's on bits; and their part of a register read.
///
/// The RAMs are read at `lk_buf`, the buffer of the page `RegFile` reads as
/// it accepts a write or a read (see `RegFile`). Writes and reads come on
/// `wr` and `rd` (`RegWrite`, `RegRead`) through this block's copy of
/// `RegFile`'s pipeline (`RegStages`: accept, check, apply): the check stage
/// takes the page out of the RAMs, and in the apply cycle `wr.hit` says the
/// write is to one of these registers, `wr.err` whether it was refused.
/// Every output comes from this block's registers (or its RAMs' registered
/// read ports) only.
#[derive(LogicBlock)]
pub struct NbufRegs {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): every buffer's
    /// registers are zeroed while it is active.
    pub clear: Clear<NOTIF_BUF_BITS>,
    /// The buffer whose registers the RAMs read this cycle.
    pub lk_buf: Signal<In, Bits<NOTIF_BUF_BITS>>,
    /// Register writes (`RegWrite`) and reads (`RegRead`) from `RegFile`.
    pub wr: RegWrite,
    pub rd: RegRead,
    /// Each buffer's NBUF_CTRL bit 0 (on).
    pub on: Signal<Out, Bits<NOTIF_BUFS>>,
    pub writer: NbufConfig,

    lo_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    hi_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    bytes_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    head_ram: RAM<Bits<32>, NOTIF_BUF_BITS>,
    on_r: SDFF<Bits<NOTIF_BUFS>>,
    // The write's buffer (its pipe's, page - 1), and its bit in `on_r`.
    wr_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    nb_bit: Signal<Local, Bits<NOTIF_BUFS>>,
    // The write: latched as it is accepted, checked the next cycle (into the
    // `*_r` flags, `pk_*` and `wo_hit`), applied the one after.
    // The write pipeline's and read stage's registers (`RegStages`).
    stages: RegStages,
    size_ok_r: SDFF<Bit>,
    notif_aligned_r: SDFF<Bit>,
    // The buffer as the check stage read it.
    pg_base: Concat<32, 32, 64>,
    pk_zero: SDFF<Bit>,
    pk_base: SDFF<Bits<64>>,
    pk_mask: SDFF<Bits<32>>,
    // A buffer's head is written with the value, or 0 as NBUF_CTRL switches
    // it on: chosen by the offset alone, decoded in the check stage.
    pk_ctrl: SDFF<Bit>,
    // The write's offset decoded in the check stage: NBUF_BASE_LO,
    // NBUF_BASE_HI, NBUF_BYTES, NBUF_CTRL, NBUF_HEAD.
    wo_hit: [SDFF<Bit>; WRITABLE],
    // What the read's address names, from `stages`.
    rd_buf: Signal<Local, Bits<NOTIF_BUF_BITS>>,
    rd_is_nbuf: Signal<Local, Bit>,

    p_lo: Constant<Bits<OFF_BITS>>,
    p_hi: Constant<Bits<OFF_BITS>>,
    p_bytes: Constant<Bits<OFF_BITS>>,
    p_ctrl: Constant<Bits<OFF_BITS>>,
    p_head: Constant<Bits<OFF_BITS>>,
    last_nbuf_page: Constant<Bits<PAGE_BITS>>,
    page0: Constant<Bits<PAGE_BITS>>,
    buf_one: Constant<Bits<NOTIF_BUF_BITS>>,
    one_nb: Constant<Bits<NOTIF_BUFS>>,
    zero_off2: Constant<Bits<2>>,
    ring_min: Constant<Bits<32>>,
    ring_max: Constant<Bits<32>>,
    notif_align_mask: Constant<Bits<32>>,
    cause_ring_size: Constant<Bits<32>>,
    cause_misaligned: Constant<Bits<32>>,
    cause_enabled: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    four32: Constant<Bits<32>>,
}

impl Default for NbufRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            lk_buf: Default::default(),
            on: Default::default(),
            writer: Default::default(),
            lo_ram: zero_ram(),
            hi_ram: zero_ram(),
            bytes_ram: zero_ram(),
            head_ram: zero_ram(),
            on_r: Default::default(),
            wr_buf: Default::default(),
            nb_bit: Default::default(),
            size_ok_r: Default::default(),
            notif_aligned_r: Default::default(),
            pg_base: Default::default(),
            pk_zero: Default::default(),
            pk_base: Default::default(),
            pk_mask: Default::default(),
            pk_ctrl: Default::default(),
            wo_hit: Default::default(),
            rd_buf: Default::default(),
            rd_is_nbuf: Default::default(),
            p_lo: off(pipe::NBUF_BASE_LO),
            p_hi: off(pipe::NBUF_BASE_HI),
            p_bytes: off(pipe::NBUF_BYTES),
            p_ctrl: off(pipe::NBUF_CTRL),
            p_head: off(pipe::NBUF_HEAD),
            last_nbuf_page: Constant::new((NOTIF_BUFS as u64).into()),
            page0: Constant::new(0u64.into()),
            buf_one: Constant::new(1u64.into()),
            one_nb: Constant::new(1u64.into()),
            stages: Default::default(),
            zero_off2: Constant::new(0u64.into()),
            ring_min: c32(RING_MIN_BYTES),
            ring_max: c32(RING_MAX_BYTES),
            notif_align_mask: c32(pipe::NOTIF_ALIGN as u32 - 1),
            cause_ring_size: cause(RegError::BadRingSize),
            cause_misaligned: cause(RegError::Misaligned),
            cause_enabled: cause(RegError::PipeEnabled),
            zero32: c32(0),
            one32: c32(1),
            four32: c32(4),
        }
    }
}

impl Logic for NbufRegs {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..WRITABLE {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        dff_setup!(
            self,
            clock,
            on_r,
            size_ok_r,
            notif_aligned_r,
            pk_zero,
            pk_base,
            pk_mask,
            pk_ctrl
        );
        self.on_r.reset.next = self.reset.val();
        self.size_ok_r.reset.next = self.reset.val();
        self.notif_aligned_r.reset.next = self.reset.val();
        self.pk_zero.reset.next = self.reset.val();
        self.pk_base.reset.next = self.reset.val();
        self.pk_mask.reset.next = self.reset.val();
        self.pk_ctrl.reset.next = self.reset.val();
        self.lo_ram.read_clock.next = self.clock.val();
        self.lo_ram.write_clock.next = self.clock.val();
        self.hi_ram.read_clock.next = self.clock.val();
        self.hi_ram.write_clock.next = self.clock.val();
        self.bytes_ram.read_clock.next = self.clock.val();
        self.bytes_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();
        self.on.next = self.on_r.q.val();

        // ---- The page the RAMs read ----
        self.lo_ram.read_address.next = self.lk_buf.val();
        self.hi_ram.read_address.next = self.lk_buf.val();
        self.bytes_ram.read_address.next = self.lk_buf.val();
        self.head_ram.read_address.next = self.lk_buf.val();
        self.pg_base.hi.next = self.hi_ram.read_data.val();
        self.pg_base.lo.next = self.lo_ram.read_data.val();

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
        // The pipe's notification buffer: the low bits of its index.
        // (The low bits of page - 1 are the low bits of the page, minus 1.)
        self.wr_buf.next =
            self.stages.wr_page.val().get_bits::<NOTIF_BUF_BITS>(0) - self.buf_one.val();
        self.nb_bit.next = self.one_nb.val() << self.wr_buf.val();
        // The value checks, in the check stage.
        self.size_ok_r.d.next = ((self.stages.data.val()
            & (self.stages.data.val() - self.one32.val()))
            == self.zero32.val())
            & (self.stages.data.val() >= self.ring_min.val())
            & (self.stages.data.val() <= self.ring_max.val());
        self.notif_aligned_r.d.next =
            (self.stages.data.val() & self.notif_align_mask.val()) == self.zero32.val();
        // The page, as the check stage read it, for the apply stage.
        self.pk_zero.d.next = self.bytes_ram.read_data.val() == self.zero32.val();
        self.pk_base.d.next = self.pg_base.o.val();
        // Records minus one: bytes / 16 - 1.
        self.pk_mask.d.next =
            (self.bytes_ram.read_data.val() >> self.four32.val()) - self.one32.val();
        self.pk_ctrl.d.next = self.stages.wr_off.val() == self.p_ctrl.val();
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.p_lo.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.p_hi.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.p_bytes.val();
        self.wo_hit[3].d.next = self.stages.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[4].d.next = self.stages.wr_off.val() == self.p_head.val();

        self.lo_ram.write_enable.next = false;
        self.lo_ram.write_address.next = self.wr_buf.val();
        self.lo_ram.write_data.next = self.stages.data.val();
        self.hi_ram.write_enable.next = false;
        self.hi_ram.write_address.next = self.wr_buf.val();
        self.hi_ram.write_data.next = self.stages.data.val();
        self.bytes_ram.write_enable.next = false;
        self.bytes_ram.write_address.next = self.wr_buf.val();
        self.bytes_ram.write_data.next = self.stages.data.val();
        self.head_ram.write_enable.next = false;
        self.head_ram.write_address.next = self.wr_buf.val();
        self.head_ram.write_data.next = self.stages.data.val();
        if self.pk_ctrl.q.val() {
            self.head_ram.write_data.next = self.zero32.val();
        }
        self.writer.cfg.next = false;
        self.writer.cfg_on.next = self.stages.data.val().get_bit(0);
        self.writer.cfg_base.next = self.pk_base.q.val();
        self.writer.cfg_mask.next = self.pk_mask.q.val();
        self.writer.head_wr.next = false;
        self.writer.head.next = self.stages.data.val();

        // A notification buffer's register, on a page of one of the buffers
        // (the page read as the write was accepted).
        self.wr.hit.next = self.stages.apply.val()
            & (self.stages.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.stages.wr_page.val() != self.page0.val())
            & (self.stages.wr_page.val() <= self.last_nbuf_page.val())
            & ((self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val()));
        self.wr.err.next = false;
        self.wr.err_cause.next = self.zero32.val();
        if self.wr.hit.val() {
            if (self.wo_hit[0].q.val()) | (self.wo_hit[1].q.val()) | (self.wo_hit[2].q.val()) {
                if self.on_r.q.val().get_bit(self.wr_buf.val().index()) {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_enabled.val();
                } else if self.wo_hit[0].q.val() {
                    if !self.notif_aligned_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_misaligned.val();
                    } else {
                        self.lo_ram.write_enable.next = true;
                    }
                } else if self.wo_hit[1].q.val() {
                    self.hi_ram.write_enable.next = true;
                } else if !self.size_ok_r.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_ring_size.val();
                } else {
                    self.bytes_ram.write_enable.next = true;
                }
            } else if self.wo_hit[3].q.val() {
                if self.stages.data.val().get_bit(0) & self.pk_zero.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_ring_size.val();
                } else if self.stages.data.val().get_bit(0) {
                    self.on_r.d.next = self.on_r.q.val() | self.nb_bit.val();
                    self.writer.cfg.next = !self.on_r.q.val().get_bit(self.wr_buf.val().index());
                    if !self.on_r.q.val().get_bit(self.wr_buf.val().index()) {
                        // Switched on: nothing read yet.
                        self.head_ram.write_enable.next = true;
                    }
                } else {
                    self.on_r.d.next = self.on_r.q.val() & !self.nb_bit.val();
                    self.writer.cfg.next = self.on_r.q.val().get_bit(self.wr_buf.val().index());
                }
            } else {
                // NBUF_HEAD (the branch's offsets end here).
                self.head_ram.write_enable.next = true;
                self.writer.head_wr.next = true;
            }
        }

        // ---- Reads ----
        // Answered from the RAMs' read of the page as the read was accepted.
        self.rd_buf.next =
            self.stages.rd_page.val().get_bits::<NOTIF_BUF_BITS>(0) - self.buf_one.val();
        self.rd_is_nbuf.next = (self.stages.rd_page.val() != self.page0.val())
            & (self.stages.rd_page.val() <= self.last_nbuf_page.val());
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.rd_is_nbuf.val() {
            if self.stages.rd_off.val() == self.p_lo.val() {
                self.rd.data.next = self.rd.data.val() | self.lo_ram.read_data.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_hi.val() {
                self.rd.data.next = self.rd.data.val() | self.hi_ram.read_data.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_bytes.val() {
                self.rd.data.next = self.rd.data.val() | self.bytes_ram.read_data.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.p_ctrl.val() {
                self.rd.hit.next = true;
                if self.on_r.q.val().get_bit(self.rd_buf.val().index()) {
                    self.rd.data.next = self.rd.data.val() | self.one32.val();
                }
            }
            if self.stages.rd_off.val() == self.p_head.val() {
                self.rd.data.next = self.rd.data.val() | self.head_ram.read_data.val();
                self.rd.hit.next = true;
            }
        }

        // A reset's sweep zeroes every buffer's registers.
        if self.clear.active.val() {
            self.lo_ram.write_enable.next = true;
            self.lo_ram.write_address.next = self.clear.addr.val();
            self.lo_ram.write_data.next = self.zero32.val();
            self.hi_ram.write_enable.next = true;
            self.hi_ram.write_address.next = self.clear.addr.val();
            self.hi_ram.write_data.next = self.zero32.val();
            self.bytes_ram.write_enable.next = true;
            self.bytes_ram.write_address.next = self.clear.addr.val();
            self.bytes_ram.write_data.next = self.zero32.val();
            self.head_ram.write_enable.next = true;
            self.head_ram.write_address.next = self.clear.addr.val();
            self.head_ram.write_data.next = self.zero32.val();
        }
    }
}
