use super::regs::GATES;
use crate::reset::{zero_ram, Clear, SDFF};
use crate::stream::Concat;
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

// A ring's units are 16 bytes (`pendulum_layout::ring`): its mask is bits
// 4 and up of RING_BYTES, minus one (hdl_gen takes a literal bit index).
const _: () = assert!(pendulum_layout::ring::UNIT_BYTES_LOG2 == 4);

/// A pipe's ring mask and on/off bit, one word of one RAM: they are written
/// together (a switch on or off) and read together. Kept apart, the 1-bit
/// on/off RAM went to LUT-RAM, whose read sat on the RX engine's deepest
/// path; in one word both are a block-RAM read that ends the path at its
/// address.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RingShape {
    pub mask: Bits<SLOT_BITS>,
    pub enable: Bit,
}

/// The RX engine's port into `RxPipeState` (`RxRingUser` is the engine's
/// side): its read of pipe `addr`'s ring state (a cycle later, with a tail
/// written in the read's cycle forwarded) and its tail writes (each
/// published frame's new tail, and 0 as it applies a switch).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RxRingUser"]
pub struct RxRingPort {
    pub addr: Signal<In, Bits<PIPE_BITS>>,
    pub base: Signal<Out, Bits<64>>,
    pub mask: Signal<Out, Bits<SLOT_BITS>>,
    pub enable: Signal<Out, Bit>,
    pub head: Signal<Out, Bits<SLOT_BITS>>,
    pub tail: Signal<Out, Bits<SLOT_BITS>>,
    pub tail_wr: Signal<In, Bit>,
    pub tail_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub tail_value: Signal<In, Bits<SLOT_BITS>>,
}

/// The RX engine's side of `RxRingPort`.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RxRingPort"]
pub struct RxRingUser {
    pub addr: Signal<Out, Bits<PIPE_BITS>>,
    pub base: Signal<In, Bits<64>>,
    pub mask: Signal<In, Bits<SLOT_BITS>>,
    pub enable: Signal<In, Bit>,
    pub head: Signal<In, Bits<SLOT_BITS>>,
    pub tail: Signal<In, Bits<SLOT_BITS>>,
    pub tail_wr: Signal<Out, Bit>,
    pub tail_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub tail_value: Signal<Out, Bits<SLOT_BITS>>,
}

/// Each RX pipe's ring state, in one place: ring base and size (RING_BYTES,
/// and the mask, slots minus one), on/off, head and tail.
///
/// Every register is a RAM, one per register, so the 1,024 pipes cost block
/// RAM, not logic. Each reader has a copy of what it reads, and every write
/// goes to each copy:
/// - the register file (`lk`: every register, a cycle later);
/// - the RX engine (`rx`: base, mask, on/off, head and tail, a cycle
///   later);
/// - the slot gates (`gate_*`): registers holding the state of the two pipes
///   that on-card sources write into, loaded when software names another
///   pipe (`gate_load`, with the page the register file read from `lk`:
///   `load_*`) and then following every write to their pipe.
///
/// Writers: the register file's apply stage (`wr_pipe`, `wr_data` and one
/// `set_*` strobe a cycle, from `RxPipeBank`; `switch` when the pipe was
/// switched on or off) and the RX engine, the tail's one writer (`rx`:
/// each frame it publishes, and 0 as it applies a switch). The ring (base,
/// size) changes only while the pipe is off, so a reader that sees it change
/// never has a frame in the old ring.
///
/// The engine's copy of the tail takes each write in the cycle the engine
/// decides it, and its read forwards a write in the read's cycle (the
/// engine reads the tail of the beat after a frame it is publishing). The
/// register file's copy and the gates take the tails a cycle later, from the
/// engine's events (`ev_*`, the same writes through the engine's event
/// register), so the engine's decision drives one write port only; the
/// `lk` read forwards the write it missed too (`lk_tail`), and `lk_tail_ram`
/// is the RAM's value alone (see `RxPipeBank`'s HEAD check). A reset's sweep
/// (`clear`) zeroes every RAM while no write can come.
#[derive(LogicBlock)]
pub struct RxPipeState {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    pub clear: Clear<PIPE_BITS>,
    /// The register file's read: pipe `lk`'s registers, a cycle later.
    pub lk: Signal<In, Bits<PIPE_BITS>>,
    pub lk_base_lo: Signal<Out, Bits<32>>,
    pub lk_base_hi: Signal<Out, Bits<32>>,
    pub lk_ring_bytes: Signal<Out, Bits<32>>,
    pub lk_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub lk_enable: Signal<Out, Bit>,
    pub lk_head: Signal<Out, Bits<SLOT_BITS>>,
    pub lk_tail: Signal<Out, Bits<SLOT_BITS>>,
    pub lk_tail_ram: Signal<Out, Bits<SLOT_BITS>>,
    /// The RX engine's reads and tail writes.
    pub rx: RxRingPort,
    /// A register write to pipe `wr_pipe`: `set_base_lo`/`set_base_hi` take
    /// `wr_data`; `set_ring` takes RING_BYTES from `wr_data` (and its mask);
    /// `set_ctrl` the on/off bit (`wr_data` bit 0), writing back the mask
    /// the write read (`wr_mask`); `set_head` the head `head_value`.
    /// `switch`: the pipe was switched on or off (with `set_ctrl`).
    pub wr_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub wr_mask: Signal<In, Bits<SLOT_BITS>>,
    pub set_base_lo: Signal<In, Bit>,
    pub set_base_hi: Signal<In, Bit>,
    pub set_ring: Signal<In, Bit>,
    pub set_ctrl: Signal<In, Bit>,
    pub set_head: Signal<In, Bit>,
    pub head_value: Signal<In, Bits<SLOT_BITS>>,
    pub switch: Signal<In, Bit>,
    /// The engine's tail writes, a cycle later, as the engine's events report them:
    /// a frame's new tail (`ev_frame`), or a switch applied (`ev_restart`:
    /// tail 0, with the ring's mask and on/off).
    pub ev_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub ev_frame: Signal<In, Bit>,
    pub ev_tail: Signal<In, Bits<SLOT_BITS>>,
    pub ev_restart: Signal<In, Bit>,
    pub ev_restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub ev_restart_enable: Signal<In, Bit>,
    /// The gates' pipes, and a pulse in a write's apply cycle when software
    /// names another one, with that pipe's state as the write read it
    /// (`load_*`, from `lk`).
    pub gate_pipe: [Signal<In, Bits<PIPE_BITS>>; GATES],
    pub gate_load: [Signal<In, Bit>; GATES],
    pub load_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub load_head: Signal<In, Bits<SLOT_BITS>>,
    pub load_tail: Signal<In, Bits<SLOT_BITS>>,
    pub load_mask: Signal<In, Bits<SLOT_BITS>>,
    pub load_enable: Signal<In, Bit>,
    /// The gates' pipes' ring state: head, tail, mask, on/off.
    pub gate_head: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_tail: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_mask: [Signal<Out, Bits<SLOT_BITS>>; GATES],
    pub gate_enable: [Signal<Out, Bit>; GATES],

    // The register file's copy.
    base_lo_ram: RAM<Bits<32>, PIPE_BITS>,
    base_hi_ram: RAM<Bits<32>, PIPE_BITS>,
    ring_bytes_ram: RAM<Bits<32>, PIPE_BITS>,
    shape_ram: RAM<RingShape, PIPE_BITS>,
    head_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    tail_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    // The RX engine's copy.
    rx_base_lo_ram: RAM<Bits<32>, PIPE_BITS>,
    rx_base_hi_ram: RAM<Bits<32>, PIPE_BITS>,
    rx_shape_ram: RAM<RingShape, PIPE_BITS>,
    rx_head_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    rx_tail_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    rx_base_cat: Concat<32, 32, 64>,
    // The write each RAM takes this cycle.
    shape_data: Signal<Local, RingShape>,
    // A tail write a read in its cycle missed: for `lk` (whether it was the
    // same pipe, compared as the read was issued) and for `rx_addr`.
    // (The write and the address match are registered apart and ANDed
    // after: the engine's write strobe is late in its cycle.)
    lk_fw: SDFF<Bit>,
    lk_fw_match: SDFF<Bit>,
    lk_fw_value: SDFF<Bits<SLOT_BITS>>,
    rx_fw: SDFF<Bit>,
    rx_fw_match: SDFF<Bit>,
    rx_fw_value: SDFF<Bits<SLOT_BITS>>,
    // A head write, a cycle late, for the gates.
    gh_v: SDFF<Bit>,
    gh_pipe: SDFF<Bits<PIPE_BITS>>,
    gh_value: SDFF<Bits<SLOT_BITS>>,
    gate_head_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_tail_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_mask_r: [SDFF<Bits<SLOT_BITS>>; GATES],
    gate_enable_r: [SDFF<Bit>; GATES],
    one16: Constant<Bits<SLOT_BITS>>,
    zero16: Constant<Bits<SLOT_BITS>>,
    zero32: Constant<Bits<32>>,
}

impl Default for RxPipeState {
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
            lk_enable: Default::default(),
            lk_head: Default::default(),
            lk_tail: Default::default(),
            lk_tail_ram: Default::default(),
            rx: Default::default(),
            wr_pipe: Default::default(),
            wr_data: Default::default(),
            wr_mask: Default::default(),
            set_base_lo: Default::default(),
            set_base_hi: Default::default(),
            set_ring: Default::default(),
            set_ctrl: Default::default(),
            set_head: Default::default(),
            head_value: Default::default(),
            switch: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_tail: Default::default(),
            ev_restart: Default::default(),
            ev_restart_mask: Default::default(),
            ev_restart_enable: Default::default(),
            gate_pipe: Default::default(),
            gate_load: Default::default(),
            load_pipe: Default::default(),
            load_head: Default::default(),
            load_tail: Default::default(),
            load_mask: Default::default(),
            load_enable: Default::default(),
            gate_head: Default::default(),
            gate_tail: Default::default(),
            gate_mask: Default::default(),
            gate_enable: Default::default(),
            // Every pipe starts off (its RAM entries zero, also on a board).
            base_lo_ram: zero_ram(),
            base_hi_ram: zero_ram(),
            ring_bytes_ram: zero_ram(),
            shape_ram: zero_ram(),
            head_ram: zero_ram(),
            tail_ram: zero_ram(),
            rx_base_lo_ram: zero_ram(),
            rx_base_hi_ram: zero_ram(),
            rx_shape_ram: zero_ram(),
            rx_head_ram: zero_ram(),
            rx_tail_ram: zero_ram(),
            rx_base_cat: Default::default(),
            shape_data: Default::default(),
            lk_fw: Default::default(),
            lk_fw_match: Default::default(),
            lk_fw_value: Default::default(),
            rx_fw: Default::default(),
            rx_fw_match: Default::default(),
            rx_fw_value: Default::default(),
            gh_v: Default::default(),
            gh_pipe: Default::default(),
            gh_value: Default::default(),
            gate_head_r: Default::default(),
            gate_tail_r: Default::default(),
            gate_mask_r: Default::default(),
            gate_enable_r: Default::default(),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
        }
    }
}

impl Logic for RxPipeState {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lk_fw,
            lk_fw_match,
            lk_fw_value,
            rx_fw,
            rx_fw_match,
            rx_fw_value,
            gh_v,
            gh_pipe,
            gh_value
        );
        self.lk_fw.reset.next = self.reset.val();
        self.lk_fw_match.reset.next = self.reset.val();
        self.lk_fw_value.reset.next = self.reset.val();
        self.rx_fw.reset.next = self.reset.val();
        self.rx_fw_match.reset.next = self.reset.val();
        self.rx_fw_value.reset.next = self.reset.val();
        self.gh_v.reset.next = self.reset.val();
        self.gh_pipe.reset.next = self.reset.val();
        self.gh_value.reset.next = self.reset.val();
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
        }
        self.base_lo_ram.read_clock.next = self.clock.val();
        self.base_lo_ram.write_clock.next = self.clock.val();
        self.base_hi_ram.read_clock.next = self.clock.val();
        self.base_hi_ram.write_clock.next = self.clock.val();
        self.ring_bytes_ram.read_clock.next = self.clock.val();
        self.ring_bytes_ram.write_clock.next = self.clock.val();
        self.shape_ram.read_clock.next = self.clock.val();
        self.shape_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();
        self.rx_base_lo_ram.read_clock.next = self.clock.val();
        self.rx_base_lo_ram.write_clock.next = self.clock.val();
        self.rx_base_hi_ram.read_clock.next = self.clock.val();
        self.rx_base_hi_ram.write_clock.next = self.clock.val();
        self.rx_shape_ram.read_clock.next = self.clock.val();
        self.rx_shape_ram.write_clock.next = self.clock.val();
        self.rx_head_ram.read_clock.next = self.clock.val();
        self.rx_head_ram.write_clock.next = self.clock.val();
        self.rx_tail_ram.read_clock.next = self.clock.val();
        self.rx_tail_ram.write_clock.next = self.clock.val();

        // ---- Reads ----
        self.base_lo_ram.read_address.next = self.lk.val();
        self.base_hi_ram.read_address.next = self.lk.val();
        self.ring_bytes_ram.read_address.next = self.lk.val();
        self.shape_ram.read_address.next = self.lk.val();
        self.head_ram.read_address.next = self.lk.val();
        self.tail_ram.read_address.next = self.lk.val();
        self.lk_base_lo.next = self.base_lo_ram.read_data.val();
        self.lk_base_hi.next = self.base_hi_ram.read_data.val();
        self.lk_ring_bytes.next = self.ring_bytes_ram.read_data.val();
        self.lk_mask.next = self.shape_ram.read_data.val().mask;
        self.lk_enable.next = self.shape_ram.read_data.val().enable;
        self.lk_head.next = self.head_ram.read_data.val();
        self.lk_tail_ram.next = self.tail_ram.read_data.val();
        self.lk_tail.next = self.tail_ram.read_data.val();
        if self.lk_fw.q.val() & self.lk_fw_match.q.val() {
            self.lk_tail.next = self.lk_fw_value.q.val();
        }
        self.rx_base_lo_ram.read_address.next = self.rx.addr.val();
        self.rx_base_hi_ram.read_address.next = self.rx.addr.val();
        self.rx_shape_ram.read_address.next = self.rx.addr.val();
        self.rx_head_ram.read_address.next = self.rx.addr.val();
        self.rx_tail_ram.read_address.next = self.rx.addr.val();
        self.rx_base_cat.hi.next = self.rx_base_hi_ram.read_data.val();
        self.rx_base_cat.lo.next = self.rx_base_lo_ram.read_data.val();
        self.rx.base.next = self.rx_base_cat.o.val();
        self.rx.mask.next = self.rx_shape_ram.read_data.val().mask;
        self.rx.enable.next = self.rx_shape_ram.read_data.val().enable;
        self.rx.head.next = self.rx_head_ram.read_data.val();
        self.rx.tail.next = self.rx_tail_ram.read_data.val();
        if self.rx_fw.q.val() & self.rx_fw_match.q.val() {
            self.rx.tail.next = self.rx_fw_value.q.val();
        }

        // ---- The register file's writes, to both copies ----
        self.base_lo_ram.write_enable.next = self.set_base_lo.val();
        self.base_lo_ram.write_address.next = self.wr_pipe.val();
        self.base_lo_ram.write_data.next = self.wr_data.val();
        self.rx_base_lo_ram.write_enable.next = self.set_base_lo.val();
        self.rx_base_lo_ram.write_address.next = self.wr_pipe.val();
        self.rx_base_lo_ram.write_data.next = self.wr_data.val();
        self.base_hi_ram.write_enable.next = self.set_base_hi.val();
        self.base_hi_ram.write_address.next = self.wr_pipe.val();
        self.base_hi_ram.write_data.next = self.wr_data.val();
        self.rx_base_hi_ram.write_enable.next = self.set_base_hi.val();
        self.rx_base_hi_ram.write_address.next = self.wr_pipe.val();
        self.rx_base_hi_ram.write_data.next = self.wr_data.val();
        self.ring_bytes_ram.write_enable.next = self.set_ring.val();
        self.ring_bytes_ram.write_address.next = self.wr_pipe.val();
        self.ring_bytes_ram.write_data.next = self.wr_data.val();
        // RING_BYTES sets the mask (bytes / 16 - 1: units) of a pipe that is off;
        // CTRL the on/off bit beside the mask it read.
        self.shape_data.next.mask = self.wr_mask.val();
        self.shape_data.next.enable = self.wr_data.val().get_bit(0);
        if self.set_ring.val() {
            self.shape_data.next.mask =
                self.wr_data.val().get_bits::<SLOT_BITS>(4) - self.one16.val();
            self.shape_data.next.enable = false;
        }
        self.shape_ram.write_enable.next = self.set_ring.val() | self.set_ctrl.val();
        self.shape_ram.write_address.next = self.wr_pipe.val();
        self.shape_ram.write_data.next = self.shape_data.val();
        self.rx_shape_ram.write_enable.next = self.set_ring.val() | self.set_ctrl.val();
        self.rx_shape_ram.write_address.next = self.wr_pipe.val();
        self.rx_shape_ram.write_data.next = self.shape_data.val();
        self.head_ram.write_enable.next = self.set_head.val();
        self.head_ram.write_address.next = self.wr_pipe.val();
        self.head_ram.write_data.next = self.head_value.val();
        self.rx_head_ram.write_enable.next = self.set_head.val();
        self.rx_head_ram.write_address.next = self.wr_pipe.val();
        self.rx_head_ram.write_data.next = self.head_value.val();

        // ---- Tails: the engine's copy now, the register file's a cycle later ----
        self.rx_tail_ram.write_enable.next = self.rx.tail_wr.val();
        self.rx_tail_ram.write_address.next = self.rx.tail_pipe.val();
        self.rx_tail_ram.write_data.next = self.rx.tail_value.val();
        self.rx_fw.d.next = self.rx.tail_wr.val();
        self.rx_fw_match.d.next = self.rx.tail_pipe.val() == self.rx.addr.val();
        self.rx_fw_value.d.next = self.rx.tail_value.val();
        self.tail_ram.write_enable.next = self.ev_frame.val() | self.ev_restart.val();
        self.tail_ram.write_address.next = self.ev_pipe.val();
        self.tail_ram.write_data.next = self.ev_tail.val();
        if self.ev_restart.val() {
            self.tail_ram.write_data.next = self.zero16.val();
        }
        self.lk_fw.d.next = self.ev_frame.val() | self.ev_restart.val();
        self.lk_fw_match.d.next = self.ev_pipe.val() == self.lk.val();
        self.lk_fw_value.d.next = self.tail_ram.write_data.val();

        // ---- The gates' pipes ----
        // Each follows its pipe's writes; naming another pipe loads that
        // pipe's state as the write read it (no other write changes it in
        // between, and this cycle's tail is taken here).
        for g in 0..GATES {
            if self.gate_load[g].val() {
                self.gate_head_r[g].d.next = self.load_head.val();
                self.gate_tail_r[g].d.next = self.load_tail.val();
                self.gate_mask_r[g].d.next = self.load_mask.val();
                self.gate_enable_r[g].d.next = self.load_enable.val();
                if self.ev_frame.val() & (self.ev_pipe.val() == self.load_pipe.val()) {
                    self.gate_tail_r[g].d.next = self.ev_tail.val();
                }
            } else {
                // The engine's writes, in its order: a switch applied (tail
                // 0, the new ring) and the tails it publishes.
                if self.ev_pipe.val() == self.gate_pipe[g].val() {
                    if self.ev_frame.val() {
                        self.gate_tail_r[g].d.next = self.ev_tail.val();
                    }
                    if self.ev_restart.val() {
                        self.gate_tail_r[g].d.next = self.zero16.val();
                        self.gate_mask_r[g].d.next = self.ev_restart_mask.val();
                        self.gate_enable_r[g].d.next = self.ev_restart_enable.val();
                    }
                }
                // A head write, a cycle late (the gate then sees less room,
                // never more); a switch closes the gate at once, until the
                // engine has applied it.
                if self.gh_v.q.val() & (self.gh_pipe.q.val() == self.gate_pipe[g].val()) {
                    self.gate_head_r[g].d.next = self.gh_value.q.val();
                }
                if self.switch.val() & (self.wr_pipe.val() == self.gate_pipe[g].val()) {
                    self.gate_enable_r[g].d.next = false;
                }
            }
        }
        self.gh_v.d.next = self.set_head.val();
        self.gh_pipe.d.next = self.wr_pipe.val();
        self.gh_value.d.next = self.head_value.val();

        // A reset's sweep zeroes every pipe's state: pipes off, rings
        // forgotten.
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
            self.shape_ram.write_enable.next = true;
            self.shape_ram.write_address.next = self.clear.addr.val();
            self.shape_ram.write_data.next.mask = self.zero16.val();
            self.shape_ram.write_data.next.enable = false;
            self.head_ram.write_enable.next = true;
            self.head_ram.write_address.next = self.clear.addr.val();
            self.head_ram.write_data.next = self.zero16.val();
            self.tail_ram.write_enable.next = true;
            self.tail_ram.write_address.next = self.clear.addr.val();
            self.tail_ram.write_data.next = self.zero16.val();
            self.rx_base_lo_ram.write_enable.next = true;
            self.rx_base_lo_ram.write_address.next = self.clear.addr.val();
            self.rx_base_lo_ram.write_data.next = self.zero32.val();
            self.rx_base_hi_ram.write_enable.next = true;
            self.rx_base_hi_ram.write_address.next = self.clear.addr.val();
            self.rx_base_hi_ram.write_data.next = self.zero32.val();
            self.rx_shape_ram.write_enable.next = true;
            self.rx_shape_ram.write_address.next = self.clear.addr.val();
            self.rx_shape_ram.write_data.next.mask = self.zero16.val();
            self.rx_shape_ram.write_data.next.enable = false;
            self.rx_head_ram.write_enable.next = true;
            self.rx_head_ram.write_address.next = self.clear.addr.val();
            self.rx_head_ram.write_data.next = self.zero16.val();
            self.rx_tail_ram.write_enable.next = true;
            self.rx_tail_ram.write_address.next = self.clear.addr.val();
            self.rx_tail_ram.write_data.next = self.zero16.val();
        }
    }
}
