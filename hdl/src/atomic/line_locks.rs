use crate::reset::SDFF;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ATOMIC_LINE_BITS as LB};
use rust_hdl::prelude::*;

/// The lines that remote verbs hold, one per ACP channel, and the rollbacks
/// still to do.
///
/// A remote verb takes its line as it enters execute (`take`), and holds it
/// while its channel's decision is pending: `release` (COMMIT) frees it,
/// `rollback` (REVERSE, or a flush) asks for its undo, and a verb that wrote
/// nothing frees it a cycle after it executed (`x_free`, registered here:
/// whether it wrote is the compare's outcome, late in its cycle). Holding
/// the line that one cycle longer only makes a verb on it wait; a rollback
/// of the verb taken meanwhile writes back the line it found, which nothing
/// changed, since the line was held. Held lines are answered for three
/// askers: the link's next verb (`q_line`), the local verb in accept
/// (`local_line`), and the rollback chosen (`rb_*`).
///
/// Rollbacks go one at a time, lowest channel first. The channel is chosen
/// a cycle ahead (`rb_ch` is a register), so the undo entry's read address
/// does not wait for the choice; `rb_ready` says whether that channel still
/// has one to do. While any rollback waits, every line reads as held to the
/// link, so no new remote verb takes a line or an undo entry it needs.
#[derive(LogicBlock)]
pub struct LineLocks {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// Per channel, from the link: the tentative verb is permanent, or is to
    /// be undone.
    pub release: [Signal<In, Bit>; K],
    pub rollback: [Signal<In, Bit>; K],
    /// A remote verb enters execute: its channel takes its line.
    pub take: Signal<In, Bit>,
    pub take_ch: Signal<In, Bits<CB>>,
    pub take_line: Signal<In, Bits<LB>>,
    /// The chosen rollback goes in (its line is freed).
    pub take_rb: Signal<In, Bit>,
    /// The remote verb executing wrote nothing: its line is freed (next
    /// cycle).
    pub x_free: Signal<In, Bit>,
    pub x_ch: Signal<In, Bits<CB>>,
    /// The line executing now (for `rb_same`).
    pub x_line: Signal<In, Bits<LB>>,
    /// The line of the verb the link is about to hand over, and the one of
    /// the remote verb waiting to go in (it takes its lock as it goes).
    pub q_line: Signal<In, Bits<LB>>,
    pub wait_valid: Signal<In, Bit>,
    pub wait_line: Signal<In, Bits<LB>>,
    pub q_held: Signal<Out, Bit>,
    /// The local verb's line, and whether a tentative verb holds it.
    pub local_line: Signal<In, Bits<LB>>,
    pub local_held: Signal<Out, Bit>,
    /// The rollback chosen: its channel, whether it still has one to do,
    /// its line, whether its verb holds that line (it wrote), and whether the
    /// line is the one executing now.
    pub rb_ch: Signal<Out, Bits<CB>>,
    pub rb_ready: Signal<Out, Bit>,
    pub rb_line: Signal<Out, Bits<LB>>,
    pub rb_locked: Signal<Out, Bit>,
    pub rb_same: Signal<Out, Bit>,

    lock_valid: [SDFF<Bit>; K],
    lock_line: [SDFF<Bits<LB>>; K],
    rb_pending: [SDFF<Bit>; K],
    rb_sel: SDFF<Bits<CB>>,
    // `x_free`, a cycle late.
    free_valid: SDFF<Bit>,
    free_ch: SDFF<Bits<CB>>,
    rb_any: Signal<Local, Bit>,
    rb_first: Signal<Local, Bits<CB>>,
    // Whether each channel's line is the one executing (compared beside the
    // choice of the channel, not after it).
    lock_same: [Signal<Local, Bit>; K],
    chan_id: [Constant<Bits<CB>>; K],
}

impl LineLocks {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            release: std::array::from_fn(|_| Default::default()),
            rollback: std::array::from_fn(|_| Default::default()),
            take: Default::default(),
            take_ch: Default::default(),
            take_line: Default::default(),
            take_rb: Default::default(),
            x_free: Default::default(),
            x_ch: Default::default(),
            x_line: Default::default(),
            q_line: Default::default(),
            wait_valid: Default::default(),
            wait_line: Default::default(),
            q_held: Default::default(),
            local_line: Default::default(),
            local_held: Default::default(),
            rb_ch: Default::default(),
            rb_ready: Default::default(),
            rb_line: Default::default(),
            rb_locked: Default::default(),
            rb_same: Default::default(),
            lock_valid: std::array::from_fn(|_| Default::default()),
            lock_line: std::array::from_fn(|_| Default::default()),
            rb_pending: std::array::from_fn(|_| Default::default()),
            rb_sel: Default::default(),
            free_valid: Default::default(),
            free_ch: Default::default(),
            rb_any: Default::default(),
            rb_first: Default::default(),
            lock_same: std::array::from_fn(|_| Default::default()),
            chan_id: std::array::from_fn(|i| Constant::new((i as u64).into())),
        }
    }
}

impl Default for LineLocks {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for LineLocks {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rb_sel, free_valid, free_ch);
        self.rb_sel.reset.next = self.reset.val();
        self.free_valid.reset.next = self.reset.val();
        self.free_ch.reset.next = self.reset.val();
        self.free_valid.d.next = self.x_free.val();
        self.free_ch.d.next = self.x_ch.val();
        // Later writes win: a take or a rollback over a release, and both
        // over the free of a verb that wrote nothing (a take of its channel
        // cannot come so soon, since the channel's next verb waits for this
        // one's decision; were it to, its lock would hold).
        for k in 0..K {
            self.lock_valid[k].clock.next = self.clock.val();
            self.lock_valid[k].reset.next = self.reset.val();
            self.lock_line[k].clock.next = self.clock.val();
            self.lock_line[k].reset.next = self.reset.val();
            self.rb_pending[k].clock.next = self.clock.val();
            self.rb_pending[k].reset.next = self.reset.val();
            self.lock_valid[k].d.next = self.lock_valid[k].q.val();
            self.lock_line[k].d.next = self.lock_line[k].q.val();
            if self.free_valid.q.val() & (self.free_ch.q.val().index() == k) {
                self.lock_valid[k].d.next = false;
            }
            self.rb_pending[k].d.next = self.rb_pending[k].q.val() | self.rollback[k].val();
            if self.release[k].val() {
                self.lock_valid[k].d.next = false;
            }
            if self.take.val() & (self.take_ch.val().index() == k) {
                self.lock_valid[k].d.next = true;
                self.lock_line[k].d.next = self.take_line.val();
            }
            if self.take_rb.val() & (self.rb_sel.q.val().index() == k) {
                self.rb_pending[k].d.next = self.rollback[k].val();
                self.lock_valid[k].d.next = false;
            }
        }

        // The first channel with a rollback to do, chosen a cycle ahead.
        self.rb_any.next = false;
        self.rb_first.next = self.chan_id[0].val();
        for k in 0..K {
            if !self.rb_any.val() & self.rb_pending[k].q.val() {
                self.rb_any.next = true;
                self.rb_first.next = self.chan_id[k].val();
            }
        }
        self.rb_sel.d.next = self.rb_first.val();
        self.rb_ch.next = self.rb_sel.q.val();
        self.rb_ready.next = false;
        self.rb_line.next = self.lock_line[0].q.val();
        self.rb_locked.next = self.lock_valid[0].q.val();
        for k in 0..K {
            self.lock_same[k].next = self.lock_line[k].q.val() == self.x_line.val();
        }
        self.rb_same.next = self.lock_same[0].val();
        for k in 0..K {
            if self.rb_sel.q.val().index() == k {
                self.rb_ready.next = self.rb_pending[k].q.val();
                self.rb_same.next = self.lock_same[k].val();
                self.rb_line.next = self.lock_line[k].q.val();
                self.rb_locked.next = self.lock_valid[k].q.val();
            }
        }

        // Held lines, for the link's next verb and for the local verb.
        self.q_held.next = self.rb_any.val()
            | (self.wait_valid.val() & (self.wait_line.val() == self.q_line.val()));
        self.local_held.next = false;
        for k in 0..K {
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.q_line.val()) {
                self.q_held.next = true;
            }
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.local_line.val()) {
                self.local_held.next = true;
            }
        }
    }
}
