use crate::reset::{Clear, SDFF};
use crate::stream::Concat;
use pendulum_layout::params::{
    MMIO_ADDR_BITS, NOTIF_BUFS, NOTIF_BUF_BITS, PIPES, RING_MAX_BYTES, RING_MIN_BYTES,
};
use pendulum_layout::{pipe, Reg, RegError};
use rust_hdl::prelude::*;

const OFF_BITS: usize = pendulum_layout::PAGE_BYTES_LOG2 as usize;
const PAGE_BITS: usize = MMIO_ADDR_BITS - OFF_BITS;
// Buffer b's registers are on pipe b's page.
const _: () = assert!(NOTIF_BUFS <= PIPES);
/// The offsets a write is tested against, in the order of `wo_hit`.
const WRITABLE: usize = 5;

/// The notification buffers' registers (buffer b on pipe b's page, page
/// b + 1): NBUF_BASE_LO/HI, NBUF_BYTES and NBUF_HEAD in block RAM, one RAM
/// per register, and NBUF_CTRL's on bits; and their part of a register read.
///
/// The RAMs are read at `lk_buf`, the buffer of the page `RegFile` reads as
/// it accepts a write or a read (see `RegFile`). Writes follow `RegFile`'s
/// write pipeline (accept, check, apply), kept here from `wr_take`,
/// `wr_addr` and `wr_data` as `RegFile` accepts a write: the check stage
/// takes the page out of the RAMs, and in the apply cycle `hit` says the
/// write is to one of these registers, and `err`, `err_cause` whether it was
/// refused. Reads likewise from `rd_take` and `rd_addr`, answered the next
/// cycle on `rd_data`, `rd_hit`. Every output comes from this block's
/// registers (or its RAMs' registered read ports) only.
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
    /// A register write accepted this cycle.
    pub wr_take: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub wr_data: Signal<In, Bits<32>>,
    /// In the write's apply cycle: it names a notification buffer's
    /// register, and whether it was refused (with its LAST_REG_ERROR cause).
    pub hit: Signal<Out, Bit>,
    pub err: Signal<Out, Bit>,
    pub err_cause: Signal<Out, Bits<32>>,
    /// Each buffer's NBUF_CTRL bit 0 (on).
    pub on: Signal<Out, Bits<NOTIF_BUFS>>,
    /// One-cycle pulse: the write's buffer was switched on or off, with its
    /// address and records minus one.
    pub cfg: Signal<Out, Bit>,
    pub cfg_on: Signal<Out, Bit>,
    pub cfg_base: Signal<Out, Bits<64>>,
    pub cfg_mask: Signal<Out, Bits<32>>,
    /// One-cycle pulse: software wrote the buffer's head.
    pub head_wr: Signal<Out, Bit>,
    pub head: Signal<Out, Bits<32>>,
    /// A register read accepted this cycle; its answer the next.
    pub rd_take: Signal<In, Bit>,
    pub rd_addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub rd_hit: Signal<Out, Bit>,

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
    wr_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    wr_data_r: SDFF<Bits<32>>,
    wr_check: SDFF<Bit>,
    wr_apply: SDFF<Bit>,
    wr_page: Signal<Local, Bits<PAGE_BITS>>,
    wr_off: Signal<Local, Bits<OFF_BITS>>,
    wr_data_l: Signal<Local, Bits<32>>,
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
    // The read's address, from the cycle after it was accepted.
    rd_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    rd_page: Signal<Local, Bits<PAGE_BITS>>,
    rd_off: Signal<Local, Bits<OFF_BITS>>,
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
    off_bits: Constant<Bits<5>>,
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

fn off(r: Reg) -> Constant<Bits<OFF_BITS>> {
    Constant::new((r.offset as u64).into())
}
fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new((v as u64).into())
}
fn cause(e: RegError) -> Constant<Bits<32>> {
    c32((e as u32) << pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT)
}
/// A RAM of one register per notification buffer, zero at power-up.
fn nb_zeros() -> RAM<Bits<32>, NOTIF_BUF_BITS> {
    (0..NOTIF_BUFS).map(|_| Bits::<32>::default()).into()
}

impl Default for NbufRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            lk_buf: Default::default(),
            wr_take: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            hit: Default::default(),
            err: Default::default(),
            err_cause: Default::default(),
            on: Default::default(),
            cfg: Default::default(),
            cfg_on: Default::default(),
            cfg_base: Default::default(),
            cfg_mask: Default::default(),
            head_wr: Default::default(),
            head: Default::default(),
            rd_take: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            rd_hit: Default::default(),
            lo_ram: nb_zeros(),
            hi_ram: nb_zeros(),
            bytes_ram: nb_zeros(),
            head_ram: nb_zeros(),
            on_r: Default::default(),
            wr_buf: Default::default(),
            nb_bit: Default::default(),
            wr_addr_r: Default::default(),
            wr_data_r: Default::default(),
            wr_check: Default::default(),
            wr_apply: Default::default(),
            wr_page: Default::default(),
            wr_off: Default::default(),
            wr_data_l: Default::default(),
            size_ok_r: Default::default(),
            notif_aligned_r: Default::default(),
            pg_base: Default::default(),
            pk_zero: Default::default(),
            pk_base: Default::default(),
            pk_mask: Default::default(),
            pk_ctrl: Default::default(),
            wo_hit: Default::default(),
            rd_addr_r: Default::default(),
            rd_page: Default::default(),
            rd_off: Default::default(),
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
            off_bits: Constant::new((OFF_BITS as u64).into()),
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
            wr_addr_r,
            wr_data_r,
            wr_check,
            wr_apply,
            size_ok_r,
            notif_aligned_r,
            pk_zero,
            pk_base,
            pk_mask,
            pk_ctrl,
            rd_addr_r
        );
        self.on_r.reset.next = self.reset.val();
        self.wr_addr_r.reset.next = self.reset.val();
        self.wr_data_r.reset.next = self.reset.val();
        self.wr_check.reset.next = self.reset.val();
        self.wr_apply.reset.next = self.reset.val();
        self.size_ok_r.reset.next = self.reset.val();
        self.notif_aligned_r.reset.next = self.reset.val();
        self.pk_zero.reset.next = self.reset.val();
        self.pk_base.reset.next = self.reset.val();
        self.pk_mask.reset.next = self.reset.val();
        self.pk_ctrl.reset.next = self.reset.val();
        self.rd_addr_r.reset.next = self.reset.val();
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
        self.wr_check.d.next = self.wr_take.val();
        self.wr_apply.d.next = self.wr_check.q.val();
        if self.wr_take.val() {
            self.wr_addr_r.d.next = self.wr_addr.val();
            self.wr_data_r.d.next = self.wr_data.val();
        }
        self.wr_data_l.next = self.wr_data_r.q.val();
        self.wr_page.next = self
            .wr_addr_r
            .q
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.wr_off.next = self.wr_addr_r.q.val().get_bits::<OFF_BITS>(0);
        // The pipe's notification buffer: the low bits of its index.
        // (The low bits of page - 1 are the low bits of the page, minus 1.)
        self.wr_buf.next = self.wr_page.val().get_bits::<NOTIF_BUF_BITS>(0) - self.buf_one.val();
        self.nb_bit.next = self.one_nb.val() << self.wr_buf.val();
        // The value checks, in the check stage.
        self.size_ok_r.d.next = ((self.wr_data_l.val()
            & (self.wr_data_l.val() - self.one32.val()))
            == self.zero32.val())
            & (self.wr_data_l.val() >= self.ring_min.val())
            & (self.wr_data_l.val() <= self.ring_max.val());
        self.notif_aligned_r.d.next =
            (self.wr_data_l.val() & self.notif_align_mask.val()) == self.zero32.val();
        // The page, as the check stage read it, for the apply stage.
        self.pk_zero.d.next = self.bytes_ram.read_data.val() == self.zero32.val();
        self.pk_base.d.next = self.pg_base.o.val();
        // Records minus one: bytes / 16 - 1.
        self.pk_mask.d.next =
            (self.bytes_ram.read_data.val() >> self.four32.val()) - self.one32.val();
        self.pk_ctrl.d.next = self.wr_off.val() == self.p_ctrl.val();
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.wr_off.val() == self.p_lo.val();
        self.wo_hit[1].d.next = self.wr_off.val() == self.p_hi.val();
        self.wo_hit[2].d.next = self.wr_off.val() == self.p_bytes.val();
        self.wo_hit[3].d.next = self.wr_off.val() == self.p_ctrl.val();
        self.wo_hit[4].d.next = self.wr_off.val() == self.p_head.val();

        self.lo_ram.write_enable.next = false;
        self.lo_ram.write_address.next = self.wr_buf.val();
        self.lo_ram.write_data.next = self.wr_data_l.val();
        self.hi_ram.write_enable.next = false;
        self.hi_ram.write_address.next = self.wr_buf.val();
        self.hi_ram.write_data.next = self.wr_data_l.val();
        self.bytes_ram.write_enable.next = false;
        self.bytes_ram.write_address.next = self.wr_buf.val();
        self.bytes_ram.write_data.next = self.wr_data_l.val();
        self.head_ram.write_enable.next = false;
        self.head_ram.write_address.next = self.wr_buf.val();
        self.head_ram.write_data.next = self.wr_data_l.val();
        if self.pk_ctrl.q.val() {
            self.head_ram.write_data.next = self.zero32.val();
        }
        self.cfg.next = false;
        self.cfg_on.next = self.wr_data_l.val().get_bit(0);
        self.cfg_base.next = self.pk_base.q.val();
        self.cfg_mask.next = self.pk_mask.q.val();
        self.head_wr.next = false;
        self.head.next = self.wr_data_l.val();

        // A notification buffer's register, on a page of one of the buffers
        // (the page read as the write was accepted).
        self.hit.next = self.wr_apply.q.val()
            & (self.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.wr_page.val() != self.page0.val())
            & (self.wr_page.val() <= self.last_nbuf_page.val())
            & ((self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val()));
        self.err.next = false;
        self.err_cause.next = self.zero32.val();
        if self.hit.val() {
            if (self.wo_hit[0].q.val()) | (self.wo_hit[1].q.val()) | (self.wo_hit[2].q.val()) {
                if self.on_r.q.val().get_bit(self.wr_buf.val().index()) {
                    self.err.next = true;
                    self.err_cause.next = self.cause_enabled.val();
                } else if self.wo_hit[0].q.val() {
                    if !self.notif_aligned_r.q.val() {
                        self.err.next = true;
                        self.err_cause.next = self.cause_misaligned.val();
                    } else {
                        self.lo_ram.write_enable.next = true;
                    }
                } else if self.wo_hit[1].q.val() {
                    self.hi_ram.write_enable.next = true;
                } else if !self.size_ok_r.q.val() {
                    self.err.next = true;
                    self.err_cause.next = self.cause_ring_size.val();
                } else {
                    self.bytes_ram.write_enable.next = true;
                }
            } else if self.wo_hit[3].q.val() {
                if self.wr_data_l.val().get_bit(0) & self.pk_zero.q.val() {
                    self.err.next = true;
                    self.err_cause.next = self.cause_ring_size.val();
                } else if self.wr_data_l.val().get_bit(0) {
                    self.on_r.d.next = self.on_r.q.val() | self.nb_bit.val();
                    self.cfg.next = !self.on_r.q.val().get_bit(self.wr_buf.val().index());
                    if !self.on_r.q.val().get_bit(self.wr_buf.val().index()) {
                        // Switched on: nothing read yet.
                        self.head_ram.write_enable.next = true;
                    }
                } else {
                    self.on_r.d.next = self.on_r.q.val() & !self.nb_bit.val();
                    self.cfg.next = self.on_r.q.val().get_bit(self.wr_buf.val().index());
                }
            } else {
                // NBUF_HEAD (the branch's offsets end here).
                self.head_ram.write_enable.next = true;
                self.head_wr.next = true;
            }
        }

        // ---- Reads ----
        // Answered from the RAMs' read of the page as the read was accepted.
        if self.rd_take.val() {
            self.rd_addr_r.d.next = self.rd_addr.val();
        }
        self.rd_page.next = self
            .rd_addr_r
            .q
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.rd_off.next = self.rd_addr_r.q.val().get_bits::<OFF_BITS>(0);
        self.rd_buf.next = self.rd_page.val().get_bits::<NOTIF_BUF_BITS>(0) - self.buf_one.val();
        self.rd_is_nbuf.next = (self.rd_page.val() != self.page0.val())
            & (self.rd_page.val() <= self.last_nbuf_page.val());
        self.rd_data.next = self.zero32.val();
        self.rd_hit.next = false;
        if self.rd_is_nbuf.val() {
            if self.rd_off.val() == self.p_lo.val() {
                self.rd_data.next = self.rd_data.val() | self.lo_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_hi.val() {
                self.rd_data.next = self.rd_data.val() | self.hi_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_bytes.val() {
                self.rd_data.next = self.rd_data.val() | self.bytes_ram.read_data.val();
                self.rd_hit.next = true;
            }
            if self.rd_off.val() == self.p_ctrl.val() {
                self.rd_hit.next = true;
                if self.on_r.q.val().get_bit(self.rd_buf.val().index()) {
                    self.rd_data.next = self.rd_data.val() | self.one32.val();
                }
            }
            if self.rd_off.val() == self.p_head.val() {
                self.rd_data.next = self.rd_data.val() | self.head_ram.read_data.val();
                self.rd_hit.next = true;
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
