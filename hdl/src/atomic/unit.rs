use super::line_execute::LineExecute;
use super::line_locks::LineLocks;
use super::result_queue::{ResultQueue, RESULT_FIFO_BITS};
use super::verb_decode::VerbDecode;
use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource, ZeroExtend};
use crate::types::{RemoteResult, RemoteVerb, SlotBeat};
use pendulum_layout::atomic::{op, status, LINE_WORDS, WORD_OPS};
use pendulum_layout::params::{
    ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ATOMIC_BYTES, ATOMIC_LINE_BITS as LB,
};
use rust_hdl::prelude::*;

const RF: usize = RESULT_FIFO_BITS;

/// The atomic unit: one verb per cycle on 64-bit words of on-NIC memory, and
/// multi-word commits on its 64-byte lines (`pendulum_layout::atomic` has
/// the slot layouts and the reference semantics, `execute_request`).
///
/// The memory is one line wide, so a commit reads and writes its whole line
/// in one cycle, and a single-word verb rewrites its line with one word
/// changed. Two stages. Accept: decode the slot and check it (opcode,
/// alignment, range, reserved bytes), gather a commit's header and compare
/// line, and address the memory. Execute: take the old line, compute the new
/// one, write it, and queue the result. A verb on the line the previous verb
/// just wrote gets that line forwarded (the memory's read sees the line from
/// before that write), so back-to-back verbs on one word run at full rate
/// and see each other in order. Verbs are accepted while the result FIFO has
/// room for every result in flight, so execution never stalls.
///
/// Remote verbs (from the peer, over the ACP link) run tentatively: the
/// link hands one over (`verb_valid`, only while `verb_free` and the verb's
/// line is not `q_held`), the unit executes it ahead of local verbs (one a
/// cycle, back to back; a local verb waiting gets every other cycle), returns
/// its result to the link (`res_*`, for the ECHO record), and keeps the line
/// it wrote, with its old contents in an undo entry, held for the verb's
/// channel. Until the link says `release` (the requester decided COMMIT) or
/// `rollback` (REVERSE, or a flush), no other verb touches that line: local
/// verbs on it wait, and the link REJECTs remote ones, which the peer offers
/// again. A rollback writes the undo entry back. So a verb's effect is seen
/// by others only once it is permanent, and a reversed verb leaves no trace.
///
/// The pieces, each in its own file: `VerbDecode` checks a slot,
/// `LineExecute` computes what a verb does to its line, `ResultQueue` makes
/// and queues results, `LineLocks` keeps the lines remote verbs hold.
///
/// Results are made and queued a cycle after execute (`ResultQueue`), so
/// the status, which waits for the compare of the line just read, does not
/// also run through the result slot's muxes in the same cycle.
///
/// Latency 5 cycles from the slot that completes a verb to its result.
/// Throughput: 1 single-word verb or `COMMIT_WORDS` per cycle; a `COMMIT`
/// per three slots (its second result slot is queued while the next one's
/// first two slots are gathered).
#[derive(LogicBlock)]
pub struct AtomicUnit {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Verb slots (byte 0 of a `first` slot already checked to be KIND_VERB
    /// by the TX framer; a commit's two line slots follow its header).
    pub s_verb: StreamSink<SlotBeat>,
    /// Result slots: one per verb, two (kept together) per three-slot COMMIT.
    pub m_result: StreamSource<SlotBeat>,
    /// One-cycle pulses: a verb executed (or refused), and a refused one.
    pub ev_verb: Signal<Out, Bit>,
    pub ev_error: Signal<Out, Bit>,

    /// A remote verb from the link, taken in the cycle it is valid (the link
    /// offers one only while `verb_free` and its line is not `q_held`).
    pub verb_valid: Signal<In, Bit>,
    pub verb: Signal<In, RemoteVerb>,
    pub verb_free: Signal<Out, Bit>,
    /// The line of a verb the link is about to take, and whether it is held
    /// by a tentative verb.
    pub q_line: Signal<In, Bits<LB>>,
    pub q_held: Signal<Out, Bit>,
    /// A remote verb's result, for its channel's ECHO record.
    pub res_valid: Signal<Out, Bit>,
    pub res: Signal<Out, RemoteResult>,
    /// Per channel: the tentative verb is permanent (release its line), or
    /// is to be undone (rollback).
    pub release: [Signal<In, Bit>; K],
    pub rollback: [Signal<In, Bit>; K],

    lines: RAM<Bits<512>, LB>,
    /// Result slots made, queued for the host or handed to the link.
    queue: ResultQueue,
    /// Result slots queued or on their way into the FIFO.
    used: SDFF<Bits<8>>,
    // A commit being gathered: line slots still expected, its header and compare line.
    g_left: SDFF<Bits<2>>,
    g_tag: SDFF<Bits<16>>,
    g_line: SDFF<Bits<LB>>,
    g_err: SDFF<Bits<8>>,
    g_cmask: SDFF<Bits<8>>,
    g_wmask: SDFF<Bits<8>>,
    g_cmp: SDFF<Bits<512>>,
    // Execute stage.
    x_valid: SDFF<Bit>,
    x_commit: SDFF<Bit>,
    /// A one-slot commit (COMMIT_WORDS): the commit's execute path, one result slot.
    x_words: SDFF<Bit>,
    /// Its operations' words and whether each is used, for the result.
    x_op_word: [SDFF<Bits<3>>; WORD_OPS],
    x_op_used: [SDFF<Bit>; WORD_OPS],
    x_op: SDFF<Bits<8>>,
    // The word ops, decoded as they enter execute.
    x_is_cas: SDFF<Bit>,
    x_is_fadd: SDFF<Bit>,
    x_is_swap: SDFF<Bit>,
    x_is_mcas: SDFF<Bit>,
    // Per lane, what execute writes there (decided as the verb enters, so
    // the new line does not wait for the lane's or the op's decode): the
    // word op's result, or the commit's word.
    x_sel_op: SDFF<Bits<8>>,
    x_sel_beat: SDFF<Bits<8>>,
    multi_next: Signal<Local, Bit>,
    x_tag: SDFF<Bits<16>>,
    x_line: SDFF<Bits<LB>>,
    x_lane: SDFF<Bits<3>>,
    x_err: SDFF<Bits<8>>,
    x_cmask: SDFF<Bits<8>>,
    x_wmask: SDFF<Bits<8>>,
    x_cmp: SDFF<Bits<512>>,
    /// The verb slot (its operands), or a commit's write line.
    x_beat: SDFF<Bits<512>>,
    // The write of the previous cycle, for forwarding.
    w_valid: SDFF<Bit>,
    // The line executed next is this cycle's (decided a cycle ahead, so
    // the forward from the last write is not behind a compare).
    w_same: SDFF<Bit>,
    w_data: SDFF<Bits<512>>,
    // Remote verbs: the one waiting to go in, and per channel the line a
    // tentative verb holds, its undo entry, and a rollback to do.
    rv_valid: SDFF<Bit>,
    rv: SDFF<RemoteVerb>,
    locks: LineLocks,
    undo: RAM<Bits<512>, CB>,
    x_remote: SDFF<Bit>,
    x_restore: SDFF<Bit>,
    x_ch: SDFF<Bits<CB>>,
    rv_slot: ZeroExtend<448, 512>,
    take_remote: Signal<Local, Bit>,
    take_rb: Signal<Local, Bit>,
    same_next: Signal<Local, Bit>,
    local_line: Signal<Local, Bits<LB>>,
    local_issues: Signal<Local, Bit>,

    // Accept stage.
    beat: Signal<Local, Bits<512>>,
    first: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    cmp_line: Signal<Local, Bit>,
    write_line: Signal<Local, Bit>,
    x_multi: Signal<Local, Bit>,
    words_in: Signal<Local, Bit>,
    decode: VerbDecode,
    room: Signal<Local, Bit>,
    /// A commit's second result slot goes into the FIFO next cycle: no
    /// slot that would queue a result may go in now (gathering may).
    stall: Signal<Local, Bit>,
    cut_short: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    stray: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    issue_commit: Signal<Local, Bit>,
    taken: Signal<Local, Bits<8>>,
    freed: Signal<Local, Bits<8>>,
    // Execute stage: the line read (or forwarded), and what the verb does to it.
    old_line: Signal<Local, Bits<512>>,
    exec: LineExecute,
    ok: Signal<Local, Bit>,
    writes: Signal<Local, Bit>,

    c_cas: Constant<Bits<8>>,
    c_fadd: Constant<Bits<8>>,
    c_swap: Constant<Bits<8>>,
    c_mcas: Constant<Bits<8>>,
    c_commit: Constant<Bits<8>>,
    c_ok: Constant<Bits<8>>,
    c_bad_op: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_two8: Constant<Bits<8>>,
    c_room: Constant<Bits<8>>,
    c_zero2: Constant<Bits<2>>,
    c_one2: Constant<Bits<2>>,
    c_two2: Constant<Bits<2>>,
}

impl AtomicUnit {
    pub fn new() -> Self {
        assert_eq!(
            64u64 << LB,
            ATOMIC_BYTES as u64,
            "ATOMIC_LINE_BITS must address ATOMIC_BYTES"
        );
        assert_eq!(LINE_WORDS * 64, 512, "a line is one 512-bit memory word");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_verb: Default::default(),
            m_result: Default::default(),
            ev_verb: Default::default(),
            ev_error: Default::default(),
            lines: Default::default(),
            queue: ResultQueue::new(),
            used: Default::default(),
            g_left: Default::default(),
            g_tag: Default::default(),
            g_line: Default::default(),
            g_err: Default::default(),
            g_cmask: Default::default(),
            g_wmask: Default::default(),
            g_cmp: Default::default(),
            x_valid: Default::default(),
            x_commit: Default::default(),
            x_words: Default::default(),
            x_op_word: Default::default(),
            x_op_used: Default::default(),
            x_op: Default::default(),
            x_is_cas: Default::default(),
            x_is_fadd: Default::default(),
            x_is_swap: Default::default(),
            x_is_mcas: Default::default(),
            x_sel_op: Default::default(),
            x_sel_beat: Default::default(),
            multi_next: Default::default(),
            x_tag: Default::default(),
            x_line: Default::default(),
            x_lane: Default::default(),
            x_err: Default::default(),
            x_cmask: Default::default(),
            x_wmask: Default::default(),
            x_cmp: Default::default(),
            x_beat: Default::default(),
            w_valid: Default::default(),
            w_same: Default::default(),
            w_data: Default::default(),
            verb_valid: Default::default(),
            verb: Default::default(),
            verb_free: Default::default(),
            q_line: Default::default(),
            q_held: Default::default(),
            res_valid: Default::default(),
            res: Default::default(),
            release: std::array::from_fn(|_| Default::default()),
            rollback: std::array::from_fn(|_| Default::default()),
            rv_valid: Default::default(),
            rv: Default::default(),
            locks: LineLocks::new(),
            undo: Default::default(),
            x_remote: Default::default(),
            x_restore: Default::default(),
            x_ch: Default::default(),
            rv_slot: Default::default(),
            take_remote: Default::default(),
            take_rb: Default::default(),
            same_next: Default::default(),
            local_line: Default::default(),
            local_issues: Default::default(),
            beat: Default::default(),
            first: Default::default(),
            last: Default::default(),
            cmp_line: Default::default(),
            write_line: Default::default(),
            x_multi: Default::default(),
            words_in: Default::default(),
            decode: VerbDecode::new(),
            room: Default::default(),
            stall: Default::default(),
            cut_short: Default::default(),
            take: Default::default(),
            stray: Default::default(),
            issue: Default::default(),
            issue_commit: Default::default(),
            taken: Default::default(),
            freed: Default::default(),
            old_line: Default::default(),
            exec: LineExecute::new(),
            ok: Default::default(),
            writes: Default::default(),
            c_cas: c(op::CAS as u64),
            c_fadd: c(op::FETCH_ADD as u64),
            c_swap: c(op::SWAP as u64),
            c_mcas: c(op::MASKED_CAS as u64),
            c_commit: c(op::COMMIT as u64),
            c_ok: c(status::OK as u64),
            c_bad_op: c(status::BAD_OPCODE as u64),
            c_zero8: c(0),
            c_one8: c(1),
            c_two8: c(2),
            // Every result in flight has a FIFO place: up to two for the verb
            // accepted now, and those of the one executing.
            c_room: c((1u64 << RF) - 3),
            c_zero2: c(0),
            c_one2: c(1),
            c_two2: c(2),
        }
    }
}

impl Default for AtomicUnit {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AtomicUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, used, g_left, g_tag, g_line, g_err, g_cmask, g_wmask, g_cmp, x_valid,
            x_commit, x_op, x_is_cas, x_is_fadd, x_is_swap, x_is_mcas, x_sel_op, x_sel_beat, x_tag,
            x_line, x_lane, x_err, x_cmask, x_wmask, x_cmp, x_beat, w_valid, w_same, w_data,
            rv_valid, rv, x_remote, x_restore, x_ch, x_words
        );
        self.used.reset.next = self.reset.val();
        self.g_left.reset.next = self.reset.val();
        self.x_is_cas.reset.next = self.reset.val();
        self.x_is_fadd.reset.next = self.reset.val();
        self.x_is_swap.reset.next = self.reset.val();
        self.x_is_mcas.reset.next = self.reset.val();
        self.x_sel_op.reset.next = self.reset.val();
        self.x_sel_beat.reset.next = self.reset.val();
        self.g_tag.reset.next = self.reset.val();
        self.g_line.reset.next = self.reset.val();
        self.g_err.reset.next = self.reset.val();
        self.g_cmask.reset.next = self.reset.val();
        self.g_wmask.reset.next = self.reset.val();
        self.g_cmp.reset.next = self.reset.val();
        self.x_valid.reset.next = self.reset.val();
        self.x_commit.reset.next = self.reset.val();
        self.x_op.reset.next = self.reset.val();
        self.x_tag.reset.next = self.reset.val();
        self.x_line.reset.next = self.reset.val();
        self.x_lane.reset.next = self.reset.val();
        self.x_err.reset.next = self.reset.val();
        self.x_cmask.reset.next = self.reset.val();
        self.x_wmask.reset.next = self.reset.val();
        self.x_cmp.reset.next = self.reset.val();
        self.x_beat.reset.next = self.reset.val();
        self.w_valid.reset.next = self.reset.val();
        self.w_same.reset.next = self.reset.val();
        self.w_data.reset.next = self.reset.val();
        self.rv_valid.reset.next = self.reset.val();
        self.rv.reset.next = self.reset.val();
        self.x_remote.reset.next = self.reset.val();
        self.x_restore.reset.next = self.reset.val();
        self.x_ch.reset.next = self.reset.val();
        self.x_words.reset.next = self.reset.val();
        for j in 0..WORD_OPS {
            self.x_op_word[j].clock.next = self.clock.val();
            self.x_op_word[j].reset.next = self.reset.val();
            self.x_op_used[j].clock.next = self.clock.val();
            self.x_op_used[j].reset.next = self.reset.val();
            self.x_op_word[j].d.next = self.x_op_word[j].q.val();
            self.x_op_used[j].d.next = self.x_op_used[j].q.val();
        }
        self.lines.read_clock.next = self.clock.val();
        self.lines.write_clock.next = self.clock.val();
        self.undo.read_clock.next = self.clock.val();
        self.undo.write_clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.locks.clock.next = self.clock.val();
        self.locks.reset.next = self.reset.val();
        for k in 0..K {
            self.locks.release[k].next = self.release[k].val();
            self.locks.rollback[k].next = self.rollback[k].val();
        }

        // ---- Remote verbs: one waits in `rv` until the accept stage takes it ----
        // The one waiting goes in this cycle, so another may follow at once,
        // unless a local verb waits: then it goes next (remote verbs first,
        // but not for ever).
        self.verb_free.next = !(self.rv_valid.q.val() & self.s_verb.valid.val());
        if self.verb_valid.val() {
            self.rv_valid.d.next = true;
            self.rv.d.next = self.verb.val();
        }
        // (While a rollback waits, its channel's line and undo entry must
        // not be taken by a new remote verb: `locks` holds every line until
        // it is done.) The verb in `rv` holds its line too: it takes its lock
        // as it goes in, this cycle. (One handed over this cycle the link
        // checks itself.)
        self.rv_slot.i.next = self.rv.q.val().payload;
        self.locks.q_line.next = self.q_line.val();
        self.locks.wait_valid.next = self.rv_valid.q.val();
        self.locks.wait_line.next = self.rv_slot.o.val().get_bits::<LB>(38);
        self.q_held.next = self.locks.q_held.val();
        self.locks.x_line.next = self.x_line.q.val();
        // A remote verb goes first; then a rollback, once no remote verb is
        // on its way to the undo entry it reads.
        self.take_remote.next = self.rv_valid.q.val();
        self.take_rb.next = !self.rv_valid.q.val()
            & self.locks.rb_ready.val()
            & !(self.x_valid.q.val() & self.x_remote.q.val());

        // ---- Accept: decode and check, gather commits, address the memory ----
        self.beat.next = self.s_verb.data.val().data;
        self.first.next = self.s_verb.data.val().first;
        self.last.next = self.s_verb.data.val().last;
        if self.take_remote.val() {
            self.beat.next = self.rv_slot.o.val();
            self.first.next = true;
            self.last.next = true;
        }
        self.decode.slot.next = self.beat.val();
        self.decode.remote.next = self.take_remote.val();
        // A remote verb's channel takes its line as the verb goes in; a
        // rollback going in frees its channel's.
        self.locks.take.next = self.take_remote.val();
        self.locks.take_ch.next = self.rv.q.val().channel;
        self.locks.take_line.next = self.decode.line.val();
        self.locks.take_rb.next = self.take_rb.val();
        // Room for the results in flight (the FIFO's own ready is implied by
        // the count; it is checked anyway).
        self.room.next = (self.used.q.val() < self.c_room.val()) & self.queue.ready.val();
        self.stall.next = self.x_valid.q.val() & self.x_commit.q.val();
        // A new verb while a commit still waits for its lines (its pipe was
        // switched off mid-commit): the commit is refused first, with a
        // result, and the new verb is taken next cycle.
        self.cut_short.next = self.s_verb.valid.val()
            & self.first.val()
            & (self.g_left.q.val() != self.c_zero2.val());
        // A local verb on a line a tentative remote verb holds waits.
        self.local_line.next = self.decode.line.val();
        if !self.first.val() {
            self.local_line.next = self.g_line.q.val();
        }
        self.locks.local_line.next = self.local_line.val();
        self.local_issues.next =
            (self.first.val() & !self.decode.commit.val()) | (!self.first.val() & self.last.val());
        self.s_verb.ready.next = self.room.val()
            & !self.cut_short.val()
            & !self.take_remote.val()
            & !self.take_rb.val()
            & !(self.local_issues.val() & (self.locks.local_held.val() | self.stall.val()));
        self.take.next = self.s_verb.valid.val() & self.s_verb.ready.val();
        // A commit's lines come as [compare, write(last)]. A line slot the
        // count does not expect there is dropped and counted (the framer
        // never sends one).
        self.cmp_line.next =
            !self.first.val() & !self.last.val() & (self.g_left.q.val() == self.c_two2.val());
        self.write_line.next =
            !self.first.val() & self.last.val() & (self.g_left.q.val() == self.c_one2.val());
        self.stray.next =
            self.take.val() & !self.first.val() & !self.cmp_line.val() & !self.write_line.val();

        self.lines.read_address.next = self.decode.line.val();
        self.undo.read_address.next = self.locks.rb_ch.val();
        self.issue.next = false;
        self.issue_commit.next = false;
        self.x_remote.d.next = false;
        self.x_restore.d.next = false;
        self.x_words.d.next = false;
        for j in 0..WORD_OPS {
            self.x_op_word[j].d.next = self.beat.val().get_bits::<3>(64 + 8 * j);
            self.x_op_used[j].d.next =
                self.beat.val().get_bit(64 + 8 * j + 7) | self.beat.val().get_bit(64 + 8 * j + 6);
        }
        self.x_ch.d.next = self.rv.q.val().channel;
        self.x_op.d.next = self.decode.op.val();
        self.x_tag.d.next = self.decode.tag.val();
        self.x_line.d.next = self.decode.line.val();
        self.same_next.next = self.decode.line.val() == self.x_line.q.val();
        self.x_lane.d.next = self.decode.lane.val();
        self.x_err.d.next = self.decode.err.val();
        self.x_cmask.d.next = self.g_cmask.q.val();
        self.x_wmask.d.next = self.g_wmask.q.val();
        self.x_cmp.d.next = self.g_cmp.q.val();
        self.x_beat.d.next = self.beat.val();
        // A COMMIT_WORDS slot that goes in now (local or remote) takes the
        // commit's execute path with its operations spread over the line.
        self.words_in.next = self.decode.words.val()
            & (self.take_remote.val() | (self.take.val() & self.first.val() & !self.take_rb.val()));
        if self.words_in.val() {
            self.x_words.d.next = true;
            self.x_cmask.d.next = self.decode.cmask.val();
            self.x_wmask.d.next = self.decode.wmask.val();
            self.x_cmp.d.next = self.decode.cmp.val();
            self.x_beat.d.next = self.decode.wline.val();
        }
        if self.take_remote.val() {
            // Its line is held from now; released a cycle after it executes
            // if it writes nothing (`LineLocks`).
            self.rv_valid.d.next = self.verb_valid.val();
            self.issue.next = true;
            self.x_remote.d.next = true;
        } else if self.take_rb.val() {
            // Undo the channel's verb (if it wrote), then free its line.
            self.issue.next = self.locks.rb_locked.val();
            self.x_restore.d.next = true;
            self.x_err.d.next = self.c_ok.val();
            self.x_line.d.next = self.locks.rb_line.val();
            self.same_next.next = self.locks.rb_same.val();
            self.lines.read_address.next = self.locks.rb_line.val();
        } else if self.room.val() & !self.stall.val() & self.cut_short.val() {
            self.issue.next = true;
            self.issue_commit.next = true;
            self.x_op.d.next = self.c_commit.val();
            self.x_tag.d.next = self.g_tag.q.val();
            self.x_err.d.next = self.c_bad_op.val();
            self.g_left.d.next = self.c_zero2.val();
        } else if self.take.val() & self.first.val() {
            if self.decode.commit.val() {
                self.g_left.d.next = self.c_two2.val();
                self.g_tag.d.next = self.decode.tag.val();
                self.g_line.d.next = self.decode.line.val();
                self.g_err.d.next = self.decode.err.val();
                self.g_cmask.d.next = self.beat.val().get_bits::<8>(64);
                self.g_wmask.d.next = self.beat.val().get_bits::<8>(72);
            } else {
                self.issue.next = true;
            }
        } else if self.take.val() & self.cmp_line.val() {
            self.g_cmp.d.next = self.beat.val();
            self.g_left.d.next = self.c_one2.val();
        } else if self.take.val() & self.write_line.val() {
            // The write line: the commit goes to execute.
            self.g_left.d.next = self.c_zero2.val();
            self.issue.next = true;
            self.issue_commit.next = true;
            self.x_op.d.next = self.c_commit.val();
            self.x_tag.d.next = self.g_tag.q.val();
            self.x_line.d.next = self.g_line.q.val();
            self.same_next.next = self.g_line.q.val() == self.x_line.q.val();
            self.x_err.d.next = self.g_err.q.val();
            self.lines.read_address.next = self.g_line.q.val();
        }

        self.x_valid.d.next = self.issue.val();
        self.x_commit.d.next = self.issue_commit.val();

        // ---- Execute ----
        self.old_line.next = self.lines.read_data.val();
        if self.w_valid.q.val() & self.w_same.q.val() {
            self.old_line.next = self.w_data.q.val();
        }
        self.exec.old_line.next = self.old_line.val();
        self.exec.operands.next = self.x_beat.q.val();
        self.exec.cmp.next = self.x_cmp.q.val();
        self.exec.cmask.next = self.x_cmask.q.val();
        self.exec.lane.next = self.x_lane.q.val();
        self.exec.sel_op.next = self.x_sel_op.q.val();
        self.exec.sel_beat.next = self.x_sel_beat.q.val();
        self.exec.is_cas.next = self.x_is_cas.q.val();
        self.exec.is_fadd.next = self.x_is_fadd.q.val();
        self.exec.is_swap.next = self.x_is_swap.q.val();
        self.exec.is_mcas.next = self.x_is_mcas.q.val();
        self.x_multi.next = self.x_commit.q.val() | self.x_words.q.val();
        self.exec.multi.next = self.x_multi.val();
        self.exec.words.next = self.x_words.q.val();
        self.exec.restore.next = self.x_restore.q.val();
        self.exec.undo_line.next = self.undo.read_data.val();
        for j in 0..WORD_OPS {
            self.exec.op_word[j].next = self.x_op_word[j].q.val();
            self.exec.op_used[j].next = self.x_op_used[j].q.val();
            self.queue.x_olds[j].next = self.exec.olds[j].val();
        }
        self.ok.next = self.x_err.q.val() == self.c_ok.val();
        self.multi_next.next = self.x_commit.d.val() | self.x_words.d.val();
        self.x_sel_op.d.next = self.c_zero8.val();
        self.x_sel_beat.d.next = self.c_zero8.val();
        if !self.x_restore.d.val() {
            if self.multi_next.val() {
                self.x_sel_beat.d.next = self.x_wmask.d.val();
            } else {
                self.x_sel_op.d.next = self.c_one8.val() << self.x_lane.d.val();
            }
        }
        self.writes.next = self.x_valid.q.val() & self.ok.val() & !self.exec.failed.val();
        self.lines.write_enable.next = self.writes.val();
        self.lines.write_address.next = self.x_line.q.val();
        self.lines.write_data.next = self.exec.new_line.val();
        self.w_valid.d.next = self.writes.val();
        self.w_same.d.next = self.same_next.val();
        self.x_is_cas.d.next = self.x_op.d.val() == self.c_cas.val();
        self.x_is_fadd.d.next = self.x_op.d.val() == self.c_fadd.val();
        self.x_is_swap.d.next = self.x_op.d.val() == self.c_swap.val();
        self.x_is_mcas.d.next = self.x_op.d.val() == self.c_mcas.val();
        self.w_data.d.next = self.exec.new_line.val();

        // The result, made and queued by `queue` from next cycle.
        self.queue.x_valid.next = self.x_valid.q.val() & !self.x_restore.q.val();
        self.queue.x_remote.next = self.x_remote.q.val();
        self.queue.x_commit.next = self.x_commit.q.val();
        self.queue.x_multi.next = self.x_multi.val();
        self.queue.x_err.next = self.x_err.q.val();
        self.queue.x_failed.next = self.exec.failed.val();
        self.queue.x_differ.next = self.exec.differ.val();
        self.queue.x_op.next = self.x_op.q.val();
        self.queue.x_tag.next = self.x_tag.q.val();
        self.queue.x_ch.next = self.x_ch.q.val();
        self.queue.x_line.next = self.old_line.val();
        self.m_result.data.next = self.queue.m_result.data.val();
        self.m_result.valid.next = self.queue.m_result.valid.val();
        self.queue.m_result.ready.next = self.m_result.ready.val();
        self.res_valid.next = self.queue.res_valid.val();
        self.res.next = self.queue.res.val();
        self.ev_verb.next = self.x_valid.q.val() & !self.x_restore.q.val();
        // The old line is the remote verb's undo entry; a verb that wrote
        // nothing holds nothing.
        self.undo.write_enable.next = self.x_valid.q.val() & self.x_remote.q.val();
        self.undo.write_address.next = self.x_ch.q.val();
        self.undo.write_data.next = self.old_line.val();
        self.locks.x_free.next = self.x_valid.q.val() & self.x_remote.q.val() & !self.writes.val();
        self.locks.x_ch.next = self.x_ch.q.val();
        self.ev_error.next = (self.x_valid.q.val() & !self.ok.val()) | self.stray.val();
        // Places taken when a verb enters execute: one, or two for a commit.
        self.taken.next = self.c_zero8.val();
        if self.issue.val() & !self.take_remote.val() & !self.take_rb.val() {
            self.taken.next = self.c_one8.val();
            if self.issue_commit.val() {
                self.taken.next = self.c_two8.val();
            }
        }
        self.freed.next = self.c_zero8.val();
        if self.queue.pop.val() {
            self.freed.next = self.c_one8.val();
        }
        self.used.d.next = self.used.q.val() + self.taken.val() - self.freed.val();
    }
}
