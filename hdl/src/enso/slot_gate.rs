use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource};
use crate::types::{RxBeat, SlotBeat};
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// Hands 64-byte slots from an on-card source (ACP messages, atomic results)
/// to the RX engine as frames of `pipe` of one slot, or two (a commit's
/// result: `first` on the first, `last` on the second), only while that pipe
/// is enabled and its ring has room for them and for what may already be on
/// the way: the RX engine drops a frame it has no room for, and these slots
/// must never be dropped, so they wait here instead (and their source holds
/// back). Only a frame's first slot waits: once it has gone, the rest follow
/// (the RX arbiter holds its input until the frame ends), and a pipe switched
/// off in between drops the frame in the RX engine, counted.
/// The room check is registered (`room_ok`: this cycle's decision uses the
/// ring as it was a cycle ago), so it does not share a cycle with the RX
/// arbiter's grant; the extra margin in `min_free` covers the one frame that
/// may have been written meanwhile. Otherwise combinational (latency 0).
#[derive(LogicBlock)]
pub struct SlotGate {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<SlotBeat>,
    pub m: StreamSource<RxBeat>,
    /// The RX pipe that receives the slots, and its ring's state (from the
    /// register file: head, tail, size in slots minus one, on/off).
    pub pipe: Signal<In, Bits<PIPE_BITS>>,
    pub head: Signal<In, Bits<SLOT_BITS>>,
    pub tail: Signal<In, Bits<SLOT_BITS>>,
    pub ring_mask: Signal<In, Bits<SLOT_BITS>>,
    pub enable: Signal<In, Bit>,

    free: Signal<Local, Bits<SLOT_BITS>>,
    open: Signal<Local, Bit>,
    room_ok: SDFF<Bit>,
    pass: Signal<Local, Bit>,
    min_free: Constant<Bits<SLOT_BITS>>,
    all_keep: Constant<Bits<64>>,
    slot_len: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    two16: Constant<Bits<16>>,
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
            free: Default::default(),
            open: Default::default(),
            room_ok: Default::default(),
            pass: Default::default(),
            // Slots possibly between the gates and the RX engine's own room
            // check (its lookup register, one from each gated source), with
            // margin, plus one two-slot frame written while `room_ok` was formed.
            min_free: Constant::new(10u64.into()),
            all_keep: Constant::new(u64::MAX.into()),
            slot_len: Constant::new((pendulum_layout::BEAT_BYTES as u64).into()),
            one16: Constant::new(1u64.into()),
            two16: Constant::new(2u64.into()),
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
            (self.head.val() - self.tail.val() - self.one16.val()) & self.ring_mask.val();
        self.open.next = self.enable.val();
        self.room_ok.d.next = self.open.val() & (self.free.val() >= self.min_free.val());
        self.pass.next = self.room_ok.q.val() | !self.s.data.val().first;
        self.m.data.next.data = self.s.data.val().data;
        self.m.data.next.keep = self.all_keep.val();
        self.m.data.next.last = self.s.data.val().last;
        self.m.data.next.sop = self.s.data.val().first;
        self.m.data.next.pipe = self.pipe.val();
        self.m.data.next.len = self.slot_len.val();
        self.m.data.next.slots = self.one16.val();
        if !self.s.data.val().last {
            self.m.data.next.len = self.slot_len.val() + self.slot_len.val();
            self.m.data.next.slots = self.two16.val();
        }
        self.m.data.next.len_known = true;
        self.m.data.next.keep_ok = true;
        self.m.valid.next = self.s.valid.val() & self.pass.val();
        self.s.ready.next = self.m.ready.val() & self.pass.val();
    }
}
