use crate::reset::{Clear, SDFF};
use rust_hdl::prelude::*;

/// What software set for each of `NotifWriter`'s notification buffers
/// (`B = 2^BB`): on or off, address, records minus one (`mask`), and how
/// far software has read (`head`, a record COUNT); with the view of it
/// the writer's two stages need.
///
/// Switching a buffer on writes its address and size and a head of 0, and
/// marks it `fresh` (its record count starts over: the count is the
/// writer's, in its own RAM, so the writer reads `fresh` and clears it with
/// the buffer's first record, `formed`). A head write in the same cycle as
/// a switch on or off is dropped. Every input is registered on the way in,
/// as the writer registers its pipe events, so their order holds.
///
/// The read stage addresses the RAMs a cycle ahead (`read_next`) and gets,
/// for `read`, the words with the writes that read missed (last cycle's)
/// and this cycle's, so a buffer switched or a head written while a pipe
/// is in the read stage is seen there. The form stage, which holds its
/// pipe's state in registers, is told this cycle's writes to `hold`'s
/// buffer (`hold_*`).
#[derive(LogicBlock)]
pub struct NotifBuffers<const B: usize, const BB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep: the RAMs are zeroed one entry a cycle.
    pub clear: Clear<BB>,
    /// A buffer was switched on (`cfg_on`, with its address and records
    /// minus one) or off.
    pub cfg: Signal<In, Bit>,
    pub cfg_buf: Signal<In, Bits<BB>>,
    pub cfg_on: Signal<In, Bit>,
    pub cfg_base: Signal<In, Bits<64>>,
    pub cfg_mask: Signal<In, Bits<32>>,
    /// Software has read a buffer's records up to COUNT `head_count`.
    pub head: Signal<In, Bit>,
    pub head_buf: Signal<In, Bits<BB>>,
    pub head_count: Signal<In, Bits<32>>,
    /// The read stage: the buffer it reads next cycle, and the one it holds.
    pub read_next: Signal<In, Bits<BB>>,
    pub read: Signal<In, Bits<BB>>,
    /// `read`'s state: switched this cycle (`read_cfg`), on, fresh, head,
    /// address and mask.
    pub read_cfg: Signal<Out, Bit>,
    pub read_on: Signal<Out, Bit>,
    pub read_fresh: Signal<Out, Bit>,
    pub read_head: Signal<Out, Bits<32>>,
    pub read_base: Signal<Out, Bits<64>>,
    pub read_mask: Signal<Out, Bits<32>>,
    /// The form stage's buffer, and this cycle's writes to it: switched
    /// (`hold_cfg`: then `cfg_now_*` are its new state), head written.
    pub hold: Signal<In, Bits<BB>>,
    pub hold_cfg: Signal<Out, Bit>,
    pub hold_head_set: Signal<Out, Bit>,
    pub hold_head: Signal<Out, Bits<32>>,
    pub cfg_now_on: Signal<Out, Bit>,
    pub cfg_now_base: Signal<Out, Bits<64>>,
    pub cfg_now_mask: Signal<Out, Bits<32>>,
    /// A record was formed in `formed_buf`: it is fresh no more.
    pub formed: Signal<In, Bit>,
    pub formed_buf: Signal<In, Bits<BB>>,

    in_cfg: SDFF<Bit>,
    in_cfg_buf: SDFF<Bits<BB>>,
    in_cfg_on: SDFF<Bit>,
    in_cfg_base: SDFF<Bits<64>>,
    in_cfg_mask: SDFF<Bits<32>>,
    in_head: SDFF<Bit>,
    in_head_buf: SDFF<Bits<BB>>,
    in_head_count: SDFF<Bits<32>>,
    // Per buffer: on; no record since switched on (count 0).
    on: SDFF<Bits<B>>,
    fresh: SDFF<Bits<B>>,
    base_ram: RAM<Bits<64>, BB>,
    mask_ram: RAM<Bits<32>, BB>,
    head_ram: RAM<Bits<32>, BB>,
    // The writes of last cycle (switch on or off, head), which a read in
    // that cycle missed.
    lc_valid: SDFF<Bit>,
    lc_buf: SDFF<Bits<BB>>,
    lc_base: SDFF<Bits<64>>,
    lc_mask: SDFF<Bits<32>>,
    lh_valid: SDFF<Bit>,
    lh_buf: SDFF<Bits<BB>>,
    lh_count: SDFF<Bits<32>>,
    // The head write this cycle: the head (or 0 when switched on or off).
    wh_valid: Signal<Local, Bit>,
    wh_buf: Signal<Local, Bits<BB>>,
    wh_count: Signal<Local, Bits<32>>,
    cfg_bit: Signal<Local, Bits<B>>,
    formed_bit: Signal<Local, Bits<B>>,
    one_buf: Constant<Bits<B>>,
    zero_bufs: Constant<Bits<B>>,
    zero32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
}

impl<const B: usize, const BB: usize> NotifBuffers<B, BB> {
    pub fn new() -> Self {
        assert_eq!(1 << BB, B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            cfg: Default::default(),
            cfg_buf: Default::default(),
            cfg_on: Default::default(),
            cfg_base: Default::default(),
            cfg_mask: Default::default(),
            head: Default::default(),
            head_buf: Default::default(),
            head_count: Default::default(),
            read_next: Default::default(),
            read: Default::default(),
            read_cfg: Default::default(),
            read_on: Default::default(),
            read_fresh: Default::default(),
            read_head: Default::default(),
            read_base: Default::default(),
            read_mask: Default::default(),
            hold: Default::default(),
            hold_cfg: Default::default(),
            hold_head_set: Default::default(),
            hold_head: Default::default(),
            cfg_now_on: Default::default(),
            cfg_now_base: Default::default(),
            cfg_now_mask: Default::default(),
            formed: Default::default(),
            formed_buf: Default::default(),
            in_cfg: Default::default(),
            in_cfg_buf: Default::default(),
            in_cfg_on: Default::default(),
            in_cfg_base: Default::default(),
            in_cfg_mask: Default::default(),
            in_head: Default::default(),
            in_head_buf: Default::default(),
            in_head_count: Default::default(),
            on: Default::default(),
            fresh: Default::default(),
            base_ram: Default::default(),
            mask_ram: Default::default(),
            head_ram: Default::default(),
            lc_valid: Default::default(),
            lc_buf: Default::default(),
            lc_base: Default::default(),
            lc_mask: Default::default(),
            lh_valid: Default::default(),
            lh_buf: Default::default(),
            lh_count: Default::default(),
            wh_valid: Default::default(),
            wh_buf: Default::default(),
            wh_count: Default::default(),
            cfg_bit: Default::default(),
            formed_bit: Default::default(),
            one_buf: Constant::new(1u64.into()),
            zero_bufs: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
        }
    }
}

impl<const B: usize, const BB: usize> Default for NotifBuffers<B, BB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize, const BB: usize> Logic for NotifBuffers<B, BB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_cfg,
            in_cfg_buf,
            in_cfg_on,
            in_cfg_base,
            in_cfg_mask,
            in_head,
            in_head_buf,
            in_head_count,
            on,
            fresh,
            lc_valid,
            lc_buf,
            lc_base,
            lc_mask,
            lh_valid,
            lh_buf,
            lh_count
        );
        self.in_cfg.reset.next = self.reset.val();
        self.in_cfg_buf.reset.next = self.reset.val();
        self.in_cfg_on.reset.next = self.reset.val();
        self.in_cfg_base.reset.next = self.reset.val();
        self.in_cfg_mask.reset.next = self.reset.val();
        self.in_head.reset.next = self.reset.val();
        self.in_head_buf.reset.next = self.reset.val();
        self.in_head_count.reset.next = self.reset.val();
        self.on.reset.next = self.reset.val();
        self.fresh.reset.next = self.reset.val();
        self.lc_valid.reset.next = self.reset.val();
        self.lc_buf.reset.next = self.reset.val();
        self.lc_base.reset.next = self.reset.val();
        self.lc_mask.reset.next = self.reset.val();
        self.lh_valid.reset.next = self.reset.val();
        self.lh_buf.reset.next = self.reset.val();
        self.lh_count.reset.next = self.reset.val();
        self.base_ram.read_clock.next = self.clock.val();
        self.base_ram.write_clock.next = self.clock.val();
        self.mask_ram.read_clock.next = self.clock.val();
        self.mask_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();

        self.in_cfg.d.next = self.cfg.val();
        self.in_cfg_buf.d.next = self.cfg_buf.val();
        self.in_cfg_on.d.next = self.cfg_on.val();
        self.in_cfg_base.d.next = self.cfg_base.val();
        self.in_cfg_mask.d.next = self.cfg_mask.val();
        self.in_head.d.next = self.head.val();
        self.in_head_buf.d.next = self.head_buf.val();
        self.in_head_count.d.next = self.head_count.val();

        // ---- Writes ----
        self.base_ram.write_enable.next = self.in_cfg.q.val();
        self.base_ram.write_address.next = self.in_cfg_buf.q.val();
        self.base_ram.write_data.next = self.in_cfg_base.q.val();
        self.mask_ram.write_enable.next = self.in_cfg.q.val();
        self.mask_ram.write_address.next = self.in_cfg_buf.q.val();
        self.mask_ram.write_data.next = self.in_cfg_mask.q.val();
        self.wh_valid.next = self.in_cfg.q.val() | self.in_head.q.val();
        self.wh_buf.next = self.in_head_buf.q.val();
        self.wh_count.next = self.in_head_count.q.val();
        if self.in_cfg.q.val() {
            self.wh_buf.next = self.in_cfg_buf.q.val();
            self.wh_count.next = self.zero32.val();
        }
        self.head_ram.write_enable.next = self.wh_valid.val();
        self.head_ram.write_address.next = self.wh_buf.val();
        self.head_ram.write_data.next = self.wh_count.val();
        self.lh_valid.d.next = self.wh_valid.val();
        self.lh_buf.d.next = self.wh_buf.val();
        self.lh_count.d.next = self.wh_count.val();
        self.lc_valid.d.next = self.in_cfg.q.val();
        self.lc_buf.d.next = self.in_cfg_buf.q.val();
        self.lc_base.d.next = self.in_cfg_base.q.val();
        self.lc_mask.d.next = self.in_cfg_mask.q.val();
        self.cfg_bit.next = self.zero_bufs.val();
        if self.in_cfg.q.val() {
            self.cfg_bit.next = self.one_buf.val() << self.in_cfg_buf.q.val();
        }
        self.formed_bit.next = self.zero_bufs.val();
        if self.formed.val() {
            self.formed_bit.next = self.one_buf.val() << self.formed_buf.val();
        }
        // Switching on or off starts the count over; on wins.
        self.fresh.d.next = (self.fresh.q.val() & !self.formed_bit.val()) | self.cfg_bit.val();
        self.on.d.next = self.on.q.val() & !self.cfg_bit.val();
        if self.in_cfg.q.val() & self.in_cfg_on.q.val() {
            self.on.d.next = self.on.q.val() | self.cfg_bit.val();
        }
        if self.clear.active.val() {
            self.base_ram.write_enable.next = true;
            self.base_ram.write_address.next = self.clear.addr.val();
            self.base_ram.write_data.next = self.zero64.val();
            self.mask_ram.write_enable.next = true;
            self.mask_ram.write_address.next = self.clear.addr.val();
            self.mask_ram.write_data.next = self.zero32.val();
            self.head_ram.write_enable.next = true;
            self.head_ram.write_address.next = self.clear.addr.val();
            self.head_ram.write_data.next = self.zero32.val();
        }

        // ---- The read stage's view: the words read, with the writes the
        // read missed (last cycle's) and this cycle's ----
        self.base_ram.read_address.next = self.read_next.val();
        self.mask_ram.read_address.next = self.read_next.val();
        self.head_ram.read_address.next = self.read_next.val();
        self.read_cfg.next = self.in_cfg.q.val() & (self.in_cfg_buf.q.val() == self.read.val());
        self.read_head.next = self.head_ram.read_data.val();
        if self.lh_valid.q.val() & (self.lh_buf.q.val() == self.read.val()) {
            self.read_head.next = self.lh_count.q.val();
        }
        if self.wh_valid.val() & (self.wh_buf.val() == self.read.val()) {
            self.read_head.next = self.wh_count.val();
        }
        self.read_base.next = self.base_ram.read_data.val();
        self.read_mask.next = self.mask_ram.read_data.val();
        if self.lc_valid.q.val() & (self.lc_buf.q.val() == self.read.val()) {
            self.read_base.next = self.lc_base.q.val();
            self.read_mask.next = self.lc_mask.q.val();
        }
        if self.read_cfg.val() {
            self.read_base.next = self.in_cfg_base.q.val();
            self.read_mask.next = self.in_cfg_mask.q.val();
        }
        self.read_on.next = self.on.q.val().get_bit(self.read.val().index());
        if self.read_cfg.val() {
            self.read_on.next = self.in_cfg_on.q.val();
        }
        self.read_fresh.next =
            self.fresh.q.val().get_bit(self.read.val().index()) | self.read_cfg.val();

        // ---- The form stage's: this cycle's writes to its buffer ----
        self.hold_cfg.next = self.in_cfg.q.val() & (self.in_cfg_buf.q.val() == self.hold.val());
        self.hold_head_set.next = self.wh_valid.val() & (self.wh_buf.val() == self.hold.val());
        self.hold_head.next = self.wh_count.val();
        self.cfg_now_on.next = self.in_cfg_on.q.val();
        self.cfg_now_base.next = self.in_cfg_base.q.val();
        self.cfg_now_mask.next = self.in_cfg_mask.q.val();
    }
}
