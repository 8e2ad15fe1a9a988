use crate::reset::{zero_ram, Clear, SDFF};
use crate::stream::Concat;
use pendulum_layout::params::{SLOT_BITS, TX_PIPES, TX_PIPE_BITS};
use rust_hdl::prelude::*;

// A ring's units are 16 bytes (`pendulum_layout::ring`): its mask is bits
// 4 and up of RING_BYTES, minus one (hdl_gen takes a literal bit index).
const _: () = assert!(pendulum_layout::ring::UNIT_BYTES_LOG2 == 4);

/// Each TX pipe's ring state, in one place: ring base and size, completion
/// record address, the tail software rang, the TX engine's head, and
/// TX_CTRL's bits.
///
/// The registers are in RAM, one RAM per register (LUT RAM at 64 pipes), so
/// TX pipes cost RAM, not logic. Three readers each have a copy of what they
/// read: the register file (`lk`: every register, a cycle later), the TX
/// fetcher (`fe_addr`: the ring's base, mask and tail, a cycle later) and
/// the TX completion logic (`cp_addr`: the tail); every write goes to each.
/// Only TX_CTRL's four bits per pipe are registers (`enable`, `acp`,
/// `atomic`, `stamps`), because the framer looks them up for every beat.
///
/// Writes come from `TxRegs`' apply stage (`wr_pipe`, `wr_data` and one
/// `set_*` strobe), at most one per cycle; `switch` (with `set_ctrl`) says
/// the pipe was switched on or off, which sets its tail to 0 and forgets
/// its head. The head is the framer's: each move (`head_move`) is written
/// into the head RAM, and a bit per pipe says whether the head moved since
/// the pipe was switched on (until then it reads 0), so a switch never
/// competes with a move for the RAM's write port. The reset's sweep
/// (`clear`) zeroes every RAM while no write can come.
#[derive(LogicBlock)]
pub struct TxPipeState {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    pub clear: Clear<TX_PIPE_BITS>,
    /// The register file's read: pipe `lk`'s registers, a cycle later.
    pub lk: Signal<In, Bits<TX_PIPE_BITS>>,
    pub lk_base_lo: Signal<Out, Bits<32>>,
    pub lk_base_hi: Signal<Out, Bits<32>>,
    pub lk_ring_bytes: Signal<Out, Bits<32>>,
    pub lk_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub lk_compl_lo: Signal<Out, Bits<32>>,
    pub lk_compl_hi: Signal<Out, Bits<32>>,
    pub lk_tail: Signal<Out, Bits<SLOT_BITS>>,
    /// The head (0 until it moves after the pipe is switched on).
    pub lk_head: Signal<Out, Bits<SLOT_BITS>>,
    /// TX_CTRL as read: bit 0 on, bit 1 ACP link, bit 2 atomic unit, bit 3
    /// stamps.
    pub lk_ctrl: Signal<Out, Bits<4>>,
    /// The TX completion logic's read: pipe `cp_addr`'s tail, a cycle later.
    pub cp_addr: Signal<In, Bits<TX_PIPE_BITS>>,
    pub cp_tail: Signal<Out, Bits<SLOT_BITS>>,
    /// The fetcher's read: pipe `fe_addr`'s ring, a cycle later.
    pub fe_addr: Signal<In, Bits<TX_PIPE_BITS>>,
    pub fe_base: Signal<Out, Bits<64>>,
    pub fe_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub fe_tail: Signal<Out, Bits<SLOT_BITS>>,
    /// A write to pipe `wr_pipe`: `set_ring` takes the ring's bytes from
    /// `wr_data` (and its mask, slots - 1), `set_tail` its low bits,
    /// `set_ctrl` its bits 0..3.
    pub wr_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub set_base_lo: Signal<In, Bit>,
    pub set_base_hi: Signal<In, Bit>,
    pub set_ring: Signal<In, Bit>,
    pub set_compl_lo: Signal<In, Bit>,
    pub set_compl_hi: Signal<In, Bit>,
    pub set_tail: Signal<In, Bit>,
    pub set_ctrl: Signal<In, Bit>,
    pub switch: Signal<In, Bit>,
    /// The framer moved pipe `head_pipe`'s head to `head_value`.
    pub head_move: Signal<In, Bit>,
    pub head_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    pub head_value: Signal<In, Bits<SLOT_BITS>>,
    /// TX_CTRL's bits, one per pipe.
    pub enable: Signal<Out, Bits<TX_PIPES>>,
    pub acp: Signal<Out, Bits<TX_PIPES>>,
    pub atomic: Signal<Out, Bits<TX_PIPES>>,
    pub stamps: Signal<Out, Bits<TX_PIPES>>,

    // The register file's copy.
    base_lo_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    base_hi_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    ring_bytes_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    mask_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    compl_lo_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    compl_hi_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    tail_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    head_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    // The fetcher's copy.
    fe_base_lo_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    fe_base_hi_ram: RAM<Bits<32>, TX_PIPE_BITS>,
    fe_mask_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    fe_tail_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    // The completion logic's copy.
    cp_tail_ram: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    fe_base_cat: Concat<32, 32, 64>,
    enable_r: SDFF<Bits<TX_PIPES>>,
    acp_r: SDFF<Bits<TX_PIPES>>,
    atomic_r: SDFF<Bits<TX_PIPES>>,
    stamps_r: SDFF<Bits<TX_PIPES>>,
    head_valid: SDFF<Bits<TX_PIPES>>,
    // Pipe `lk`'s bits, looked up with the RAMs.
    lk_head_valid: SDFF<Bit>,
    lk_ctrl_r: SDFF<Bits<4>>,
    // The write's value as each RAM takes it.
    ram_data: Signal<Local, Bits<32>>,
    ram_data16: Signal<Local, Bits<SLOT_BITS>>,
    mask_data: Signal<Local, Bits<SLOT_BITS>>,
    wr_bit: Signal<Local, Bits<TX_PIPES>>,
    switch_bit: Signal<Local, Bits<TX_PIPES>>,
    move_bit: Signal<Local, Bits<TX_PIPES>>,
    no_bits: Constant<Bits<TX_PIPES>>,
    one_bit: Constant<Bits<TX_PIPES>>,
    ctrl_on: Constant<Bits<4>>,
    ctrl_acp: Constant<Bits<4>>,
    ctrl_atomic: Constant<Bits<4>>,
    ctrl_stamps: Constant<Bits<4>>,
    ctrl_none: Constant<Bits<4>>,
    one16: Constant<Bits<SLOT_BITS>>,
    zero16: Constant<Bits<SLOT_BITS>>,
    zero32: Constant<Bits<32>>,
}

impl Default for TxPipeState {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            lk: Default::default(),
            lk_base_lo: Default::default(),
            lk_base_hi: Default::default(),
            lk_ring_bytes: Default::default(),
            lk_mask: Default::default(),
            lk_compl_lo: Default::default(),
            lk_compl_hi: Default::default(),
            lk_tail: Default::default(),
            lk_head: Default::default(),
            lk_ctrl: Default::default(),
            fe_addr: Default::default(),
            fe_base: Default::default(),
            fe_mask: Default::default(),
            fe_tail: Default::default(),
            wr_pipe: Default::default(),
            wr_data: Default::default(),
            set_base_lo: Default::default(),
            set_base_hi: Default::default(),
            set_ring: Default::default(),
            set_compl_lo: Default::default(),
            set_compl_hi: Default::default(),
            set_tail: Default::default(),
            set_ctrl: Default::default(),
            switch: Default::default(),
            head_move: Default::default(),
            head_pipe: Default::default(),
            head_value: Default::default(),
            enable: Default::default(),
            acp: Default::default(),
            atomic: Default::default(),
            stamps: Default::default(),
            base_lo_ram: zero_ram(),
            base_hi_ram: zero_ram(),
            ring_bytes_ram: zero_ram(),
            mask_ram: zero_ram(),
            compl_lo_ram: zero_ram(),
            compl_hi_ram: zero_ram(),
            tail_ram: zero_ram(),
            head_ram: zero_ram(),
            fe_base_lo_ram: zero_ram(),
            fe_base_hi_ram: zero_ram(),
            fe_mask_ram: zero_ram(),
            fe_tail_ram: zero_ram(),
            cp_tail_ram: zero_ram(),
            cp_addr: Default::default(),
            cp_tail: Default::default(),
            fe_base_cat: Default::default(),
            enable_r: Default::default(),
            acp_r: Default::default(),
            atomic_r: Default::default(),
            stamps_r: Default::default(),
            head_valid: Default::default(),
            lk_head_valid: Default::default(),
            lk_ctrl_r: Default::default(),
            ram_data: Default::default(),
            ram_data16: Default::default(),
            mask_data: Default::default(),
            wr_bit: Default::default(),
            switch_bit: Default::default(),
            move_bit: Default::default(),
            no_bits: Constant::new(0u64.into()),
            one_bit: Constant::new(1u64.into()),
            ctrl_on: Constant::new(1u64.into()),
            ctrl_acp: Constant::new(2u64.into()),
            ctrl_atomic: Constant::new(4u64.into()),
            ctrl_stamps: Constant::new(8u64.into()),
            ctrl_none: Constant::new(0u64.into()),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
        }
    }
}

impl Logic for TxPipeState {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            enable_r,
            acp_r,
            atomic_r,
            stamps_r,
            head_valid,
            lk_head_valid,
            lk_ctrl_r
        );
        self.enable_r.reset.next = self.reset.val();
        self.acp_r.reset.next = self.reset.val();
        self.atomic_r.reset.next = self.reset.val();
        self.stamps_r.reset.next = self.reset.val();
        self.head_valid.reset.next = self.reset.val();
        self.lk_head_valid.reset.next = self.reset.val();
        self.lk_ctrl_r.reset.next = self.reset.val();
        self.base_lo_ram.read_clock.next = self.clock.val();
        self.base_lo_ram.write_clock.next = self.clock.val();
        self.base_hi_ram.read_clock.next = self.clock.val();
        self.base_hi_ram.write_clock.next = self.clock.val();
        self.ring_bytes_ram.read_clock.next = self.clock.val();
        self.ring_bytes_ram.write_clock.next = self.clock.val();
        self.mask_ram.read_clock.next = self.clock.val();
        self.mask_ram.write_clock.next = self.clock.val();
        self.compl_lo_ram.read_clock.next = self.clock.val();
        self.compl_lo_ram.write_clock.next = self.clock.val();
        self.compl_hi_ram.read_clock.next = self.clock.val();
        self.compl_hi_ram.write_clock.next = self.clock.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();
        self.fe_base_lo_ram.read_clock.next = self.clock.val();
        self.fe_base_lo_ram.write_clock.next = self.clock.val();
        self.fe_base_hi_ram.read_clock.next = self.clock.val();
        self.fe_base_hi_ram.write_clock.next = self.clock.val();
        self.fe_mask_ram.read_clock.next = self.clock.val();
        self.fe_mask_ram.write_clock.next = self.clock.val();
        self.fe_tail_ram.read_clock.next = self.clock.val();
        self.fe_tail_ram.write_clock.next = self.clock.val();
        self.cp_tail_ram.read_clock.next = self.clock.val();
        self.cp_tail_ram.write_clock.next = self.clock.val();
        self.cp_tail_ram.read_address.next = self.cp_addr.val();
        self.cp_tail.next = self.cp_tail_ram.read_data.val();

        // ---- The register file's read ----
        self.base_lo_ram.read_address.next = self.lk.val();
        self.base_hi_ram.read_address.next = self.lk.val();
        self.ring_bytes_ram.read_address.next = self.lk.val();
        self.mask_ram.read_address.next = self.lk.val();
        self.compl_lo_ram.read_address.next = self.lk.val();
        self.compl_hi_ram.read_address.next = self.lk.val();
        self.tail_ram.read_address.next = self.lk.val();
        self.head_ram.read_address.next = self.lk.val();
        self.lk_head_valid.d.next = self.head_valid.q.val().get_bit(self.lk.val().index());
        self.lk_ctrl_r.d.next = self.ctrl_none.val();
        if self.enable_r.q.val().get_bit(self.lk.val().index()) {
            self.lk_ctrl_r.d.next = self.lk_ctrl_r.d.val() | self.ctrl_on.val();
        }
        if self.acp_r.q.val().get_bit(self.lk.val().index()) {
            self.lk_ctrl_r.d.next = self.lk_ctrl_r.d.val() | self.ctrl_acp.val();
        }
        if self.atomic_r.q.val().get_bit(self.lk.val().index()) {
            self.lk_ctrl_r.d.next = self.lk_ctrl_r.d.val() | self.ctrl_atomic.val();
        }
        if self.stamps_r.q.val().get_bit(self.lk.val().index()) {
            self.lk_ctrl_r.d.next = self.lk_ctrl_r.d.val() | self.ctrl_stamps.val();
        }
        self.lk_base_lo.next = self.base_lo_ram.read_data.val();
        self.lk_base_hi.next = self.base_hi_ram.read_data.val();
        self.lk_ring_bytes.next = self.ring_bytes_ram.read_data.val();
        self.lk_mask.next = self.mask_ram.read_data.val();
        self.lk_compl_lo.next = self.compl_lo_ram.read_data.val();
        self.lk_compl_hi.next = self.compl_hi_ram.read_data.val();
        self.lk_tail.next = self.tail_ram.read_data.val();
        self.lk_head.next = self.zero16.val();
        if self.lk_head_valid.q.val() {
            self.lk_head.next = self.head_ram.read_data.val();
        }
        self.lk_ctrl.next = self.lk_ctrl_r.q.val();

        // ---- The fetcher's read ----
        self.fe_base_lo_ram.read_address.next = self.fe_addr.val();
        self.fe_base_hi_ram.read_address.next = self.fe_addr.val();
        self.fe_mask_ram.read_address.next = self.fe_addr.val();
        self.fe_tail_ram.read_address.next = self.fe_addr.val();
        self.fe_base_cat.hi.next = self.fe_base_hi_ram.read_data.val();
        self.fe_base_cat.lo.next = self.fe_base_lo_ram.read_data.val();
        self.fe_base.next = self.fe_base_cat.o.val();
        self.fe_mask.next = self.fe_mask_ram.read_data.val();
        self.fe_tail.next = self.fe_tail_ram.read_data.val();
        self.enable.next = self.enable_r.q.val();
        self.acp.next = self.acp_r.q.val();
        self.atomic.next = self.atomic_r.q.val();
        self.stamps.next = self.stamps_r.q.val();

        // ---- Writes: one register of one pipe, or the sweep's zero ----
        self.ram_data.next = self.wr_data.val();
        self.ram_data16.next = self.wr_data.val().get_bits::<SLOT_BITS>(0);
        // Units - 1 (the write's bytes / 16 - 1; 2 MiB's bit falls off the
        // top and leaves all ones, the right mask).
        self.mask_data.next = self.wr_data.val().get_bits::<SLOT_BITS>(4) - self.one16.val();
        if self.switch.val() {
            // Switched: the ring starts over at unit 0.
            self.ram_data16.next = self.zero16.val();
        }
        if self.clear.active.val() {
            self.ram_data.next = self.zero32.val();
            self.ram_data16.next = self.zero16.val();
            self.mask_data.next = self.zero16.val();
        }
        self.base_lo_ram.write_address.next = self.wr_pipe.val();
        self.base_hi_ram.write_address.next = self.wr_pipe.val();
        self.ring_bytes_ram.write_address.next = self.wr_pipe.val();
        self.mask_ram.write_address.next = self.wr_pipe.val();
        self.compl_lo_ram.write_address.next = self.wr_pipe.val();
        self.compl_hi_ram.write_address.next = self.wr_pipe.val();
        self.tail_ram.write_address.next = self.wr_pipe.val();
        self.fe_base_lo_ram.write_address.next = self.wr_pipe.val();
        self.fe_base_hi_ram.write_address.next = self.wr_pipe.val();
        self.fe_mask_ram.write_address.next = self.wr_pipe.val();
        self.fe_tail_ram.write_address.next = self.wr_pipe.val();
        self.cp_tail_ram.write_address.next = self.wr_pipe.val();
        if self.clear.active.val() {
            self.base_lo_ram.write_address.next = self.clear.addr.val();
            self.base_hi_ram.write_address.next = self.clear.addr.val();
            self.ring_bytes_ram.write_address.next = self.clear.addr.val();
            self.mask_ram.write_address.next = self.clear.addr.val();
            self.compl_lo_ram.write_address.next = self.clear.addr.val();
            self.compl_hi_ram.write_address.next = self.clear.addr.val();
            self.tail_ram.write_address.next = self.clear.addr.val();
            self.fe_base_lo_ram.write_address.next = self.clear.addr.val();
            self.fe_base_hi_ram.write_address.next = self.clear.addr.val();
            self.fe_mask_ram.write_address.next = self.clear.addr.val();
            self.fe_tail_ram.write_address.next = self.clear.addr.val();
            self.cp_tail_ram.write_address.next = self.clear.addr.val();
        }
        self.base_lo_ram.write_data.next = self.ram_data.val();
        self.base_hi_ram.write_data.next = self.ram_data.val();
        self.ring_bytes_ram.write_data.next = self.ram_data.val();
        self.mask_ram.write_data.next = self.mask_data.val();
        self.compl_lo_ram.write_data.next = self.ram_data.val();
        self.compl_hi_ram.write_data.next = self.ram_data.val();
        self.tail_ram.write_data.next = self.ram_data16.val();
        self.fe_base_lo_ram.write_data.next = self.ram_data.val();
        self.fe_base_hi_ram.write_data.next = self.ram_data.val();
        self.fe_mask_ram.write_data.next = self.mask_data.val();
        self.fe_tail_ram.write_data.next = self.ram_data16.val();
        self.cp_tail_ram.write_data.next = self.ram_data16.val();
        self.base_lo_ram.write_enable.next = self.set_base_lo.val() | self.clear.active.val();
        self.fe_base_lo_ram.write_enable.next = self.set_base_lo.val() | self.clear.active.val();
        self.base_hi_ram.write_enable.next = self.set_base_hi.val() | self.clear.active.val();
        self.fe_base_hi_ram.write_enable.next = self.set_base_hi.val() | self.clear.active.val();
        self.ring_bytes_ram.write_enable.next = self.set_ring.val() | self.clear.active.val();
        self.mask_ram.write_enable.next = self.set_ring.val() | self.clear.active.val();
        self.fe_mask_ram.write_enable.next = self.set_ring.val() | self.clear.active.val();
        self.compl_lo_ram.write_enable.next = self.set_compl_lo.val() | self.clear.active.val();
        self.compl_hi_ram.write_enable.next = self.set_compl_hi.val() | self.clear.active.val();
        self.tail_ram.write_enable.next =
            self.set_tail.val() | self.switch.val() | self.clear.active.val();
        self.fe_tail_ram.write_enable.next =
            self.set_tail.val() | self.switch.val() | self.clear.active.val();
        self.cp_tail_ram.write_enable.next =
            self.set_tail.val() | self.switch.val() | self.clear.active.val();

        // TX_CTRL's bits.
        self.wr_bit.next = self.one_bit.val() << self.wr_pipe.val();
        if self.set_ctrl.val() {
            self.enable_r.d.next = self.enable_r.q.val() & !self.wr_bit.val();
            self.acp_r.d.next = self.acp_r.q.val() & !self.wr_bit.val();
            self.atomic_r.d.next = self.atomic_r.q.val() & !self.wr_bit.val();
            self.stamps_r.d.next = self.stamps_r.q.val() & !self.wr_bit.val();
            if self.wr_data.val().get_bit(0) {
                self.enable_r.d.next = self.enable_r.q.val() | self.wr_bit.val();
            }
            if self.wr_data.val().get_bit(1) {
                self.acp_r.d.next = self.acp_r.q.val() | self.wr_bit.val();
            }
            if self.wr_data.val().get_bit(2) {
                self.atomic_r.d.next = self.atomic_r.q.val() | self.wr_bit.val();
            }
            if self.wr_data.val().get_bit(3) {
                self.stamps_r.d.next = self.stamps_r.q.val() | self.wr_bit.val();
            }
        }

        // ---- The head: the framer's moves; a switch forgets it ----
        // Written whatever the pipe's state; the head counts as moved only
        // for a pipe that is on (a move the framer made as software switched
        // the pipe off is forgotten with the pipe).
        self.head_ram.write_enable.next = self.head_move.val();
        self.head_ram.write_address.next = self.head_pipe.val();
        self.head_ram.write_data.next = self.head_value.val();
        self.move_bit.next = self.no_bits.val();
        if self.head_move.val() & self.enable_r.q.val().get_bit(self.head_pipe.val().index()) {
            self.move_bit.next = self.one_bit.val() << self.head_pipe.val();
        }
        self.switch_bit.next = self.no_bits.val();
        if self.switch.val() {
            self.switch_bit.next = self.wr_bit.val();
        }
        self.head_valid.d.next =
            (self.head_valid.q.val() | self.move_bit.val()) & !self.switch_bit.val();
    }
}
