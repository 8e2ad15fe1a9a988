use crate::konst as k;
use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource};
use crate::types::{RxBeat, SlotBeat};
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use pendulum_layout::ring::entry_units;
use rust_hdl::prelude::*;

/// Hands 64-byte slots from an on-card source (ACP messages, atomic results)
/// to the RX engine as frames of `pipe` of one slot, or two (a commit's
/// result: `first` on the first, `last` on the second), each frame one ring
/// entry (`pendulum_layout::ring`: LEN 64 or 128, 5 or 9 units; FLAGS and
/// HASH 0; TIMESTAMP `now` as its first slot leaves), only while that pipe
/// is enabled and its ring has room for them and for what may already be on
/// the way: the RX engine drops a frame it has no room for, and these slots
/// must never be dropped, so they wait here instead (and their source holds
/// back). Only a frame's first slot waits: once it has gone, the rest follow
/// (the RX arbiter holds its input until the frame ends), and a pipe switched
/// off in between drops the frame in the RX engine, counted.
/// The room check is registered (`room_ok`: this cycle's decision uses the
/// ring as it was a cycle ago), so it does not share a cycle with the RX
/// arbiter's grant. The tail it sees is the published one, which moves only
/// once an entry's bytes have left the ring packer, so `min_free` covers
/// every entry that may be on its way meanwhile (see `new`). Otherwise
/// combinational (latency 0).
#[derive(LogicBlock)]
pub struct SlotGate {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<SlotBeat>,
    pub m: StreamSource<RxBeat>,
    /// The RX pipe that receives the slots, and its ring's state (from the
    /// register file: head, tail, size in units minus one, on/off).
    pub pipe: Signal<In, Bits<PIPE_BITS>>,
    pub head: Signal<In, Bits<SLOT_BITS>>,
    pub tail: Signal<In, Bits<SLOT_BITS>>,
    pub ring_mask: Signal<In, Bits<SLOT_BITS>>,
    pub enable: Signal<In, Bit>,
    /// The cycle counter, for TIMESTAMP.
    pub now: Signal<In, Bits<64>>,

    free: Signal<Local, Bits<SLOT_BITS>>,
    open: Signal<Local, Bit>,
    room_ok: SDFF<Bit>,
    pass: Signal<Local, Bit>,
    min_free: Constant<Bits<SLOT_BITS>>,
    four_units: Constant<Bits<4>>,
    slot_len: Constant<Bits<16>>,
    one_unit: Constant<Bits<SLOT_BITS>>,
    units1: Constant<Bits<SLOT_BITS>>,
    units2: Constant<Bits<SLOT_BITS>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
}

impl SlotGate {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            pipe: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            ring_mask: Default::default(),
            enable: Default::default(),
            now: Default::default(),
            free: Default::default(),
            open: Default::default(),
            room_ok: Default::default(),
            pass: Default::default(),
            // Units of the entries that may be between this gate and the
            // published tail it sees: the arbiter (2 beats), the RX engine
            // (3), the packer's input, residue and output lines (5), its
            // event register and the tail's way back here (2), and the
            // cycle `room_ok` takes: about 15 beats of at most 9 units for
            // two (a two-slot entry), so under 72 units; 128 with margin.
            min_free: k(128),
            four_units: k(4),
            slot_len: k(pendulum_layout::BEAT_BYTES as u64),
            one_unit: k(1),
            units1: k(entry_units(64) as u64),
            units2: k(entry_units(128) as u64),
            zero16: k(0),
            zero32: k(0),
        }
    }
}

impl Default for SlotGate {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for SlotGate {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, room_ok);
        self.room_ok.reset.next = self.reset.val();
        // One slot always stays empty (a full ring differs from an empty one).
        self.free.next =
            (self.head.val() - self.tail.val() - self.one_unit.val()) & self.ring_mask.val();
        self.open.next = self.enable.val();
        self.room_ok.d.next = self.open.val() & (self.free.val() >= self.min_free.val());
        self.pass.next = self.room_ok.q.val() | !self.s.data.val().first;
        self.m.data.next.data = self.s.data.val().data;
        self.m.data.next.beat_units = self.four_units.val();
        self.m.data.next.last = self.s.data.val().last;
        self.m.data.next.sop = self.s.data.val().first;
        self.m.data.next.pipe = self.pipe.val();
        self.m.data.next.len = self.slot_len.val();
        self.m.data.next.units = self.units1.val();
        if !self.s.data.val().last {
            self.m.data.next.len = self.slot_len.val() + self.slot_len.val();
            self.m.data.next.units = self.units2.val();
        }
        self.m.data.next.flags = self.zero16.val();
        self.m.data.next.hash = self.zero32.val();
        self.m.data.next.stamp = self.now.val();
        self.m.valid.next = self.s.valid.val() & self.pass.val();
        self.s.ready.next = self.m.ready.val() & self.pass.val();
    }
}
