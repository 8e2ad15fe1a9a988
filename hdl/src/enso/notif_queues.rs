use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamFifo, StreamSource};
use rust_hdl::prelude::*;

/// The pipes waiting for `NotifWriter` to look at them, and the order it
/// takes them in: the queues of its events (see `NotifWriter`).
///
/// A pipe joins a queue when it moved while armed (or per-packet), or was
/// re-armed with a move unannounced; at most once (`queued`, a bit per
/// pipe), never while restarting. A pipe whose buffer had no room when its
/// turn came (`blocked`) goes to a third queue, popped only when the other
/// two are empty: those pipes wait for software, the others for nothing.
/// Re-arms go first. Since a pipe is in one queue at most once, each queue
/// holds every pipe and none can fill.
///
/// One pipe is popped per cycle while `chosen` (a skid buffer) has room,
/// and leaves on `m`: its `ready` is a register, so the pops do not wait on
/// the stages behind, and `m` is two registers. A pipe waits one cycle
/// there at least (the queue's own 2 cycles before it).
///
/// A popped pipe's `queued` bit clears a cycle later. Its events in the
/// cycle it is popped push nothing, which loses nothing: the writer reads
/// the pipe's flags when it leaves the form stage, after those events. In
/// the cycle after, its events may queue it again (`repush_*`), so a busy
/// pipe in per-packet mode is back in `chosen` 3 cycles after it left its
/// queue.
#[derive(LogicBlock)]
pub struct NotifQueues<const P: usize, const PB: usize, const PB1: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// The pipe's tail moved, and whether it wants a record for it (armed,
    /// or per-packet; a re-arm of the same pipe this cycle counts too).
    pub moved: Signal<In, Bit>,
    pub moved_pipe: Signal<In, Bits<PB>>,
    pub moved_armed: Signal<In, Bit>,
    /// The pipe was re-armed, and whether a move is unannounced.
    pub rearm: Signal<In, Bit>,
    pub rearm_pipe: Signal<In, Bits<PB>>,
    pub rearm_dirty: Signal<In, Bit>,
    /// `moved_pipe` and `rearm_pipe` as one-hot masks, zero without the
    /// event (the writer decodes them once, for its flags and for these).
    pub moved_bit: Signal<In, Bits<P>>,
    pub rearm_bit: Signal<In, Bits<P>>,
    /// The pipe restarts: it joins no queue this cycle.
    pub restart: Signal<In, Bit>,
    pub restart_pipe: Signal<In, Bits<PB>>,
    /// The form stage's pipe found no room in its buffer: it retries,
    /// unless an event queues it again this cycle or it is queued already.
    pub blocked: Signal<In, Bit>,
    pub blocked_pipe: Signal<In, Bits<PB>>,
    /// The pipes to look at, in order.
    pub m: StreamSource<Bits<PB>>,

    moved_q: StreamFifo<Bits<PB>, PB, PB1>,
    rearm_q: StreamFifo<Bits<PB>, PB, PB1>,
    retry_q: StreamFifo<Bits<PB>, PB, PB1>,
    chosen: SkidBuffer<Bits<PB>>,
    // The pipe is in a queue (and for one cycle after it left one).
    queued: SDFF<Bits<P>>,
    // The pipe popped last cycle: its `queued` bit clears now.
    popped: SDFF<Bit>,
    popped_pipe: SDFF<Bits<PB>>,
    pop_bit: Signal<Local, Bits<P>>,
    push_bits: Signal<Local, Bits<P>>,
    same: Signal<Local, Bit>,
    moved_restart: Signal<Local, Bit>,
    rearm_restart: Signal<Local, Bit>,
    repush_moved: Signal<Local, Bit>,
    repush_rearm: Signal<Local, Bit>,
    moved_push: Signal<Local, Bit>,
    rearm_push: Signal<Local, Bit>,
    pop_rearm: Signal<Local, Bit>,
    pop_moved: Signal<Local, Bit>,
    pop_retry: Signal<Local, Bit>,
    pop_any: Signal<Local, Bit>,
    pop_pipe: Signal<Local, Bits<PB>>,
    // A blocked pipe's retry, but for its `queued` bit; the pipe as a bit.
    retry_cond: Signal<Local, Bit>,
    retry_push: Signal<Local, Bit>,
    retry_bit: Signal<Local, Bits<P>>,
    blocked_bit: Signal<Local, Bits<P>>,
    one_pipe: Constant<Bits<P>>,
    zero_pipes: Constant<Bits<P>>,
}

impl<const P: usize, const PB: usize, const PB1: usize> NotifQueues<P, PB, PB1> {
    pub fn new() -> Self {
        // The queues hold 2^PB pipes each: every pipe, once.
        assert_eq!(1 << PB, P);
        assert_eq!(PB + 1, PB1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            moved: Default::default(),
            moved_pipe: Default::default(),
            moved_armed: Default::default(),
            rearm: Default::default(),
            rearm_pipe: Default::default(),
            rearm_dirty: Default::default(),
            moved_bit: Default::default(),
            rearm_bit: Default::default(),
            restart: Default::default(),
            restart_pipe: Default::default(),
            blocked: Default::default(),
            blocked_pipe: Default::default(),
            m: Default::default(),
            moved_q: StreamFifo::new(),
            rearm_q: StreamFifo::new(),
            retry_q: StreamFifo::new(),
            chosen: Default::default(),
            queued: Default::default(),
            popped: Default::default(),
            popped_pipe: Default::default(),
            pop_bit: Default::default(),
            push_bits: Default::default(),
            same: Default::default(),
            moved_restart: Default::default(),
            rearm_restart: Default::default(),
            repush_moved: Default::default(),
            repush_rearm: Default::default(),
            moved_push: Default::default(),
            rearm_push: Default::default(),
            pop_rearm: Default::default(),
            pop_moved: Default::default(),
            pop_retry: Default::default(),
            pop_any: Default::default(),
            pop_pipe: Default::default(),
            retry_cond: Default::default(),
            retry_push: Default::default(),
            retry_bit: Default::default(),
            blocked_bit: Default::default(),
            one_pipe: Constant::new(1u64.into()),
            zero_pipes: Constant::new(0u64.into()),
        }
    }
}

impl<const P: usize, const PB: usize, const PB1: usize> Default for NotifQueues<P, PB, PB1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: usize, const PB: usize, const PB1: usize> Logic for NotifQueues<P, PB, PB1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, queued, popped, popped_pipe);
        self.queued.reset.next = self.reset.val();
        self.popped.reset.next = self.reset.val();
        self.popped_pipe.reset.next = self.reset.val();
        self.moved_q.clock.next = self.clock.val();
        self.moved_q.reset.next = self.reset.val();
        self.rearm_q.clock.next = self.clock.val();
        self.rearm_q.reset.next = self.reset.val();
        self.retry_q.clock.next = self.clock.val();
        self.retry_q.reset.next = self.reset.val();
        self.chosen.clock.next = self.clock.val();
        self.chosen.reset.next = self.reset.val();

        // ---- Pop one pipe while `chosen` has room; retries go last ----
        self.pop_rearm.next = false;
        self.pop_moved.next = false;
        self.pop_retry.next = false;
        self.pop_pipe.next = self.retry_q.m.data.val();
        if self.moved_q.m.valid.val() {
            self.pop_pipe.next = self.moved_q.m.data.val();
        }
        if self.rearm_q.m.valid.val() {
            self.pop_pipe.next = self.rearm_q.m.data.val();
        }
        if self.chosen.s.ready.val() {
            if self.rearm_q.m.valid.val() {
                self.pop_rearm.next = true;
            } else if self.moved_q.m.valid.val() {
                self.pop_moved.next = true;
            } else if self.retry_q.m.valid.val() {
                self.pop_retry.next = true;
            }
        }
        self.pop_any.next = self.pop_rearm.val() | self.pop_moved.val() | self.pop_retry.val();
        self.rearm_q.m.ready.next = self.pop_rearm.val();
        self.moved_q.m.ready.next = self.pop_moved.val();
        self.retry_q.m.ready.next = self.pop_retry.val();
        self.chosen.s.valid.next = self.pop_any.val();
        self.chosen.s.data.next = self.pop_pipe.val();
        self.m.valid.next = self.chosen.m.valid.val();
        self.m.data.next = self.chosen.m.data.val();
        self.chosen.m.ready.next = self.m.ready.val();
        self.popped.d.next = self.pop_any.val();
        self.popped_pipe.d.next = self.pop_pipe.val();
        self.pop_bit.next = self.zero_pipes.val();
        if self.popped.q.val() {
            self.pop_bit.next = self.one_pipe.val() << self.popped_pipe.q.val();
        }

        // ---- Push: a pipe that wants a look, once ----
        self.same.next =
            self.moved.val() & self.rearm.val() & (self.moved_pipe.val() == self.rearm_pipe.val());
        self.moved_restart.next =
            self.restart.val() & (self.restart_pipe.val() == self.moved_pipe.val());
        self.rearm_restart.next =
            self.restart.val() & (self.restart_pipe.val() == self.rearm_pipe.val());
        self.repush_moved.next =
            self.popped.q.val() & (self.popped_pipe.q.val() == self.moved_pipe.val());
        self.repush_rearm.next =
            self.popped.q.val() & (self.popped_pipe.q.val() == self.rearm_pipe.val());
        // (Were a queue full, the pipe would stay unqueued and its next
        // event retry; it cannot be.)
        self.moved_push.next = self.moved.val()
            & self.moved_q.s.ready.val()
            & (self.moved_armed.val() | self.same.val())
            & (!self.queued.q.val().get_bit(self.moved_pipe.val().index())
                | self.repush_moved.val())
            & !self.moved_restart.val();
        self.rearm_push.next = self.rearm.val()
            & self.rearm_q.s.ready.val()
            & !self.same.val()
            & self.rearm_dirty.val()
            & (!self.queued.q.val().get_bit(self.rearm_pipe.val().index())
                | self.repush_rearm.val())
            & !self.rearm_restart.val();
        self.moved_q.s.data.next = self.moved_pipe.val();
        self.moved_q.s.valid.next = self.moved_push.val();
        self.rearm_q.s.data.next = self.rearm_pipe.val();
        self.rearm_q.s.valid.next = self.rearm_push.val();

        // ---- Retry: a blocked pipe, unless an event queued it again ----
        self.retry_cond.next = self.blocked.val()
            & self.retry_q.s.ready.val()
            & !(self.moved_push.val() & (self.moved_pipe.val() == self.blocked_pipe.val()))
            & !(self.rearm_push.val() & (self.rearm_pipe.val() == self.blocked_pipe.val()));
        self.retry_push.next =
            self.retry_cond.val() & !self.queued.q.val().get_bit(self.blocked_pipe.val().index());
        self.retry_q.s.data.next = self.blocked_pipe.val();
        self.retry_q.s.valid.next = self.retry_push.val();
        // (Its `queued` bit from the pipe's own bit, not through the choice
        // by `blocked_pipe` that `retry_push` makes: that choice and the
        // push behind the room check's carry chains made this the core's
        // deepest path.)
        self.blocked_bit.next = self.one_pipe.val() << self.blocked_pipe.val();
        self.retry_bit.next = self.zero_pipes.val();
        if self.retry_cond.val() {
            self.retry_bit.next = self.blocked_bit.val() & !self.queued.q.val();
        }
        self.push_bits.next = self.zero_pipes.val();
        if self.moved_push.val() {
            self.push_bits.next = self.moved_bit.val();
        }
        if self.rearm_push.val() {
            self.push_bits.next = self.rearm_bit.val();
        }
        if self.moved_push.val() & self.rearm_push.val() {
            self.push_bits.next = self.moved_bit.val() | self.rearm_bit.val();
        }
        self.queued.d.next = (self.queued.q.val() & !self.pop_bit.val())
            | self.push_bits.val()
            | self.retry_bit.val();
    }
}
