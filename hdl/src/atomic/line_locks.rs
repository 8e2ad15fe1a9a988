use crate::first_set::FirstSet;
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
///
/// Every answer over the K channels is a balanced tree: the flags are
/// gathered into K-bit vectors, the chosen rollback's are read with its
/// channel as a vector index, the first channel with a rollback to do is a
/// `FirstSet`, and "some channel holds this line" is the `any()` of a
/// vector of compares. Written as K `if`s, each overriding the last, they
/// were chains: the unit alone was 17 LUT levels deep at K = 64 (8 at
/// K = 16).
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
    rb_first: FirstSet<K, CB>,
    /// Per channel, a bit each: a line held, a rollback to do, the line
    /// held is the one executing (compared beside the choice of the
    /// channel, not after it), is `q_line`, is `local_line`; and per bit
    /// of a line, that bit of each channel's line.
    v_valid: Signal<Local, Bits<K>>,
    v_pending: Signal<Local, Bits<K>>,
    v_same: Signal<Local, Bits<K>>,
    v_q_hit: Signal<Local, Bits<K>>,
    v_local_hit: Signal<Local, Bits<K>>,
    v_line: [Signal<Local, Bits<K>>; LB],
    c_ch_bit: [Constant<Bits<K>>; K],
    c_line_bit: [Constant<Bits<LB>>; LB],
    c_k_zero: Constant<Bits<K>>,
    c_line_zero: Constant<Bits<LB>>,
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
            rb_first: Default::default(),
            v_valid: Default::default(),
            v_pending: Default::default(),
            v_same: Default::default(),
            v_q_hit: Default::default(),
            v_local_hit: Default::default(),
            v_line: std::array::from_fn(|_| Default::default()),
            c_ch_bit: crate::one_hots(),
            c_line_bit: crate::one_hots(),
            c_k_zero: Constant::new(Bits::<K>::default()),
            c_line_zero: Constant::new(Bits::<LB>::default()),
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

        // The flags as vectors, a bit per channel.
        self.v_valid.next = self.c_k_zero.val();
        self.v_pending.next = self.c_k_zero.val();
        self.v_same.next = self.c_k_zero.val();
        self.v_q_hit.next = self.c_k_zero.val();
        self.v_local_hit.next = self.c_k_zero.val();
        for b in 0..LB {
            self.v_line[b].next = self.c_k_zero.val();
        }
        for k in 0..K {
            if self.lock_valid[k].q.val() {
                self.v_valid.next = self.v_valid.val() | self.c_ch_bit[k].val();
            }
            if self.rb_pending[k].q.val() {
                self.v_pending.next = self.v_pending.val() | self.c_ch_bit[k].val();
            }
            if self.lock_line[k].q.val() == self.x_line.val() {
                self.v_same.next = self.v_same.val() | self.c_ch_bit[k].val();
            }
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.q_line.val()) {
                self.v_q_hit.next = self.v_q_hit.val() | self.c_ch_bit[k].val();
            }
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.local_line.val()) {
                self.v_local_hit.next = self.v_local_hit.val() | self.c_ch_bit[k].val();
            }
            for b in 0..LB {
                if self.lock_line[k].q.val().get_bit(b) {
                    self.v_line[b].next = self.v_line[b].val() | self.c_ch_bit[k].val();
                }
            }
        }

        // The first channel with a rollback to do, chosen a cycle ahead,
        // and the chosen one's flags and line, read by its number.
        self.rb_first.v.next = self.v_pending.val();
        self.rb_sel.d.next = self.rb_first.index.val();
        self.rb_ch.next = self.rb_sel.q.val();
        self.rb_ready.next = self.v_pending.val().get_bit(self.rb_sel.q.val().index());
        self.rb_locked.next = self.v_valid.val().get_bit(self.rb_sel.q.val().index());
        self.rb_same.next = self.v_same.val().get_bit(self.rb_sel.q.val().index());
        self.rb_line.next = self.c_line_zero.val();
        for b in 0..LB {
            if self.v_line[b].val().get_bit(self.rb_sel.q.val().index()) {
                self.rb_line.next = self.rb_line.val() | self.c_line_bit[b].val();
            }
        }

        // Held lines, for the link's next verb and for the local verb.
        self.q_held.next = self.rb_first.ok.val()
            | (self.wait_valid.val() & (self.wait_line.val() == self.q_line.val()))
            | self.v_q_hit.val().any();
        self.local_held.next = self.v_local_hit.val().any();
    }
}
