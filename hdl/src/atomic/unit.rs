use super::result_queue::{ResultQueue, RESULT_FIFO_BITS};
use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{Join, StreamSink, StreamSource, ZeroExtend};
use crate::types::{RemoteResult, RemoteVerb, SlotBeat};
use pendulum_layout::atomic::{op, status, KIND_VERB, LINE_WORDS, WORD_OPS};
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
    lock_valid: [SDFF<Bit>; K],
    lock_line: [SDFF<Bits<LB>>; K],
    rb_pending: [SDFF<Bit>; K],
    undo: RAM<Bits<512>, CB>,
    x_remote: SDFF<Bit>,
    x_restore: SDFF<Bit>,
    x_ch: SDFF<Bits<CB>>,
    rv_slot: ZeroExtend<448, 512>,
    take_remote: Signal<Local, Bit>,
    take_rb: Signal<Local, Bit>,
    rb_any: Signal<Local, Bit>,
    rb_ch: Signal<Local, Bits<CB>>,
    // The channel chosen last cycle (`rb_first`), so the undo entry's
    // read address is a register: a rollback waits a cycle longer, and
    // goes ahead only if its channel still has one to do (`rb_ready`).
    rb_first: Signal<Local, Bits<CB>>,
    rb_sel: SDFF<Bits<CB>>,
    rb_ready: Signal<Local, Bit>,
    rb_line: Signal<Local, Bits<LB>>,
    // Whether the line executed next is this cycle's, per source of it
    // (compared beside the choice of the source, not after it).
    lock_same: [Signal<Local, Bit>; K],
    rb_same: Signal<Local, Bit>,
    same_next: Signal<Local, Bit>,
    rb_locked: Signal<Local, Bit>,
    local_line: Signal<Local, Bits<LB>>,
    local_held: Signal<Local, Bit>,
    local_issues: Signal<Local, Bit>,
    chan_id: [Constant<Bits<CB>>; K],

    // Accept stage.
    beat: Signal<Local, Bits<512>>,
    first: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    cmp_line: Signal<Local, Bit>,
    write_line: Signal<Local, Bit>,
    d_op: Signal<Local, Bits<8>>,
    d_addr: Signal<Local, Bits<32>>,
    d_commit: Signal<Local, Bit>,
    d_words: Signal<Local, Bit>,
    d_words_bad: Signal<Local, Bit>,
    // A COMMIT_WORDS slot spread over the line: per word, compared / written and the value.
    w_cmp_en: [Signal<Local, Bits<1>>; LINE_WORDS],
    w_cmp_val: [Signal<Local, Bits<64>>; LINE_WORDS],
    w_wr_en: [Signal<Local, Bits<1>>; LINE_WORDS],
    w_wr_val: [Signal<Local, Bits<64>>; LINE_WORDS],
    w_cmask: Join<LINE_WORDS, 1, LINE_WORDS>,
    w_wmask: Join<LINE_WORDS, 1, LINE_WORDS>,
    w_cmp: Join<LINE_WORDS, 64, 512>,
    w_wline: Join<LINE_WORDS, 64, 512>,
    x_multi: Signal<Local, Bit>,
    words_in: Signal<Local, Bit>,
    op_old: [Signal<Local, Bits<64>>; WORD_OPS],
    d_err: Signal<Local, Bits<8>>,
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
    // Execute stage.
    old_line: Signal<Local, Bits<512>>,
    lane_old: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_new: [Signal<Local, Bits<64>>; LINE_WORDS],
    old: Signal<Local, Bits<64>>,
    o0: Signal<Local, Bits<64>>,
    o1: Signal<Local, Bits<64>>,
    o2: Signal<Local, Bits<64>>,
    o3: Signal<Local, Bits<64>>,
    // Each lane's word as the verb would leave it, and its compares: made
    // for every lane and then chosen, so no carry or compare waits for the
    // choice of the lane.
    lane_op: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_sum: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_eq: [Signal<Local, Bit>; LINE_WORDS],
    lane_meq: [Signal<Local, Bit>; LINE_WORDS],
    // A masked add's field tops (o1), or none for a plain add.
    add_mask: Signal<Local, Bits<64>>,
    eq: Signal<Local, Bit>,
    meq: Signal<Local, Bit>,
    differ: Signal<Local, Bits<8>>,
    ok: Signal<Local, Bit>,
    failed: Signal<Local, Bit>,
    writes: Signal<Local, Bit>,
    // The new line from its words, and the words that compared unequal.
    new_line: Join<LINE_WORDS, 64, 512>,
    differ_bits: Join<LINE_WORDS, 1, LINE_WORDS>,

    c_cas: Constant<Bits<8>>,
    c_fadd: Constant<Bits<8>>,
    c_swap: Constant<Bits<8>>,
    c_mcas: Constant<Bits<8>>,
    c_commit: Constant<Bits<8>>,
    c_words: Constant<Bits<8>>,
    c_zero24: Constant<Bits<24>>,
    c_ok: Constant<Bits<8>>,
    c_misaligned: Constant<Bits<8>>,
    c_out_of_range: Constant<Bits<8>>,
    c_bad_op: Constant<Bits<8>>,
    c_verb: Constant<Bits<8>>,
    c_zero192: Constant<Bits<192>>,
    c_zero432: Constant<Bits<432>>,
    c_zero3: Constant<Bits<3>>,
    c_zero6: Constant<Bits<6>>,
    c_limit: Constant<Bits<32>>,
    c_zero64: Constant<Bits<64>>,
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
            lock_valid: std::array::from_fn(|_| Default::default()),
            lock_line: std::array::from_fn(|_| Default::default()),
            rb_pending: std::array::from_fn(|_| Default::default()),
            undo: Default::default(),
            x_remote: Default::default(),
            x_restore: Default::default(),
            x_ch: Default::default(),
            rv_slot: Default::default(),
            take_remote: Default::default(),
            take_rb: Default::default(),
            rb_any: Default::default(),
            rb_ch: Default::default(),
            rb_first: Default::default(),
            rb_sel: Default::default(),
            rb_ready: Default::default(),
            rb_line: Default::default(),
            lock_same: std::array::from_fn(|_| Default::default()),
            rb_same: Default::default(),
            same_next: Default::default(),
            rb_locked: Default::default(),
            local_line: Default::default(),
            local_held: Default::default(),
            local_issues: Default::default(),
            chan_id: std::array::from_fn(|i| Constant::new((i as u64).into())),
            beat: Default::default(),
            first: Default::default(),
            last: Default::default(),
            cmp_line: Default::default(),
            write_line: Default::default(),
            d_op: Default::default(),
            d_addr: Default::default(),
            d_commit: Default::default(),
            d_words: Default::default(),
            d_words_bad: Default::default(),
            w_cmp_en: Default::default(),
            w_cmp_val: Default::default(),
            w_wr_en: Default::default(),
            w_wr_val: Default::default(),
            w_cmask: Default::default(),
            w_wmask: Default::default(),
            w_cmp: Default::default(),
            w_wline: Default::default(),
            x_multi: Default::default(),
            words_in: Default::default(),
            op_old: Default::default(),
            d_err: Default::default(),
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
            lane_old: Default::default(),
            lane_new: Default::default(),
            old: Default::default(),
            o0: Default::default(),
            o1: Default::default(),
            o2: Default::default(),
            o3: Default::default(),
            lane_op: Default::default(),
            lane_sum: Default::default(),
            lane_eq: Default::default(),
            lane_meq: Default::default(),
            add_mask: Default::default(),
            eq: Default::default(),
            meq: Default::default(),
            differ: Default::default(),
            ok: Default::default(),
            failed: Default::default(),
            writes: Default::default(),
            new_line: Default::default(),
            differ_bits: Default::default(),
            c_cas: c(op::CAS as u64),
            c_fadd: c(op::FETCH_ADD as u64),
            c_swap: c(op::SWAP as u64),
            c_mcas: c(op::MASKED_CAS as u64),
            c_commit: c(op::COMMIT as u64),
            c_words: c(op::COMMIT_WORDS as u64),
            c_zero24: c(0),
            c_ok: c(status::OK as u64),
            c_misaligned: c(status::MISALIGNED as u64),
            c_out_of_range: c(status::OUT_OF_RANGE as u64),
            c_bad_op: c(status::BAD_OPCODE as u64),
            c_verb: c(KIND_VERB as u64),
            c_zero192: c(0),
            c_zero432: c(0),
            c_zero3: c(0),
            c_zero6: c(0),
            c_limit: c(ATOMIC_BYTES as u64),
            c_zero64: c(0),
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
            rv_valid, rv, x_remote, x_restore, x_ch, x_words, rb_sel
        );
        self.used.reset.next = self.reset.val();
        self.g_left.reset.next = self.reset.val();
        self.x_is_cas.reset.next = self.reset.val();
        self.x_is_fadd.reset.next = self.reset.val();
        self.x_is_swap.reset.next = self.reset.val();
        self.x_is_mcas.reset.next = self.reset.val();
        self.x_sel_op.reset.next = self.reset.val();
        self.rb_sel.reset.next = self.reset.val();
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
        for k in 0..K {
            self.lock_valid[k].clock.next = self.clock.val();
            self.lock_valid[k].reset.next = self.reset.val();
            self.lock_line[k].clock.next = self.clock.val();
            self.lock_line[k].reset.next = self.reset.val();
            self.rb_pending[k].clock.next = self.clock.val();
            self.rb_pending[k].reset.next = self.reset.val();
            self.lock_valid[k].d.next = self.lock_valid[k].q.val();
            self.lock_line[k].d.next = self.lock_line[k].q.val();
            self.rb_pending[k].d.next = self.rb_pending[k].q.val() | self.rollback[k].val();
            if self.release[k].val() {
                self.lock_valid[k].d.next = false;
            }
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
        // The first channel with a rollback to do, and whether its verb wrote.
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
            self.lock_same[k].next = self.lock_line[k].q.val() == self.x_line.q.val();
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
        // (While a rollback waits, its channel's line and undo entry must
        // not be taken by a new remote verb: hold every line until it is done.)
        self.rv_slot.i.next = self.rv.q.val().payload;
        // The verb in `rv` holds its line too: it takes its lock as it goes
        // in, this cycle. (One handed over this cycle the link checks itself.)
        self.q_held.next = self.rb_any.val()
            | (self.rv_valid.q.val()
                & (self.rv_slot.o.val().get_bits::<LB>(38) == self.q_line.val()));
        for k in 0..K {
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.q_line.val()) {
                self.q_held.next = true;
            }
        }
        // A remote verb goes first; then a rollback, once no remote verb is
        // on its way to the undo entry it reads.
        self.take_remote.next = self.rv_valid.q.val();
        self.take_rb.next = !self.rv_valid.q.val()
            & self.rb_ready.val()
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
        self.d_op.next = self.beat.val().get_bits::<8>(8);
        self.d_addr.next = self.beat.val().get_bits::<32>(32);
        self.d_commit.next = self.d_op.val() == self.c_commit.val();
        self.d_words.next = self.d_op.val() == self.c_words.val();
        // A COMMIT_WORDS slot: five descriptors (bits 5..3 zero), three
        // reserved bytes, five values, eight reserved bytes.
        self.d_words_bad.next = (self.beat.val().get_bits::<24>(104) != self.c_zero24.val())
            | (self.beat.val().get_bits::<64>(448) != self.c_zero64.val());
        for j in 0..WORD_OPS {
            if self.beat.val().get_bits::<3>(64 + 8 * j + 3) != self.c_zero3.val() {
                self.d_words_bad.next = true;
            }
        }
        // Spread its operations over the line's words (a later one wins).
        for i in 0..LINE_WORDS {
            self.w_cmp_en[i].next = false.into();
            self.w_wr_en[i].next = false.into();
            self.w_cmp_val[i].next = self.c_zero64.val();
            self.w_wr_val[i].next = self.c_zero64.val();
            for j in 0..WORD_OPS {
                if self.beat.val().get_bits::<3>(64 + 8 * j).index() == i {
                    if self.beat.val().get_bit(64 + 8 * j + 7) {
                        self.w_cmp_en[i].next = true.into();
                        self.w_cmp_val[i].next = self.beat.val().get_bits::<64>(128 + 64 * j);
                    }
                    if self.beat.val().get_bit(64 + 8 * j + 6) {
                        self.w_wr_en[i].next = true.into();
                        self.w_wr_val[i].next = self.beat.val().get_bits::<64>(128 + 64 * j);
                    }
                }
            }
            self.w_cmask.i[i].next = self.w_cmp_en[i].val();
            self.w_wmask.i[i].next = self.w_wr_en[i].val();
            self.w_cmp.i[i].next = self.w_cmp_val[i].val();
            self.w_wline.i[i].next = self.w_wr_val[i].val();
        }
        self.d_err.next = self.c_ok.val();
        // (A remote COMMIT is refused: its three slots do not fit one link
        // payload; COMMIT_WORDS does.)
        if (self.d_op.val() < self.c_cas.val())
            | (self.d_op.val() > self.c_words.val())
            | (self.take_remote.val() & self.d_commit.val())
            | (self.beat.val().get_bits::<8>(0) != self.c_verb.val())
            | (!self.d_commit.val()
                & !self.d_words.val()
                & (self.beat.val().get_bits::<192>(320) != self.c_zero192.val()))
            | (self.d_commit.val() & (self.beat.val().get_bits::<432>(80) != self.c_zero432.val()))
            | (self.d_words.val() & self.d_words_bad.val())
        {
            self.d_err.next = self.c_bad_op.val();
        } else if (self.d_addr.val().get_bits::<3>(0) != self.c_zero3.val())
            | ((self.d_commit.val() | self.d_words.val())
                & (self.d_addr.val().get_bits::<6>(0) != self.c_zero6.val()))
        {
            self.d_err.next = self.c_misaligned.val();
        } else if self.d_addr.val() >= self.c_limit.val() {
            self.d_err.next = self.c_out_of_range.val();
        }
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
        self.local_line.next = self.d_addr.val().get_bits::<LB>(6);
        if !self.first.val() {
            self.local_line.next = self.g_line.q.val();
        }
        self.local_held.next = false;
        for k in 0..K {
            if self.lock_valid[k].q.val() & (self.lock_line[k].q.val() == self.local_line.val()) {
                self.local_held.next = true;
            }
        }
        self.local_issues.next =
            (self.first.val() & !self.d_commit.val()) | (!self.first.val() & self.last.val());
        self.s_verb.ready.next = self.room.val()
            & !self.cut_short.val()
            & !self.take_remote.val()
            & !self.take_rb.val()
            & !(self.local_issues.val() & (self.local_held.val() | self.stall.val()));
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

        self.lines.read_address.next = self.d_addr.val().get_bits::<LB>(6);
        self.undo.read_address.next = self.rb_ch.val();
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
        self.x_op.d.next = self.d_op.val();
        self.x_tag.d.next = self.beat.val().get_bits::<16>(16);
        self.x_line.d.next = self.d_addr.val().get_bits::<LB>(6);
        self.same_next.next = self.d_addr.val().get_bits::<LB>(6) == self.x_line.q.val();
        self.x_lane.d.next = self.d_addr.val().get_bits::<3>(3);
        self.x_err.d.next = self.d_err.val();
        self.x_cmask.d.next = self.g_cmask.q.val();
        self.x_wmask.d.next = self.g_wmask.q.val();
        self.x_cmp.d.next = self.g_cmp.q.val();
        self.x_beat.d.next = self.beat.val();
        // A COMMIT_WORDS slot that goes in now (local or remote) takes the
        // commit's execute path with its operations spread over the line.
        self.words_in.next = self.d_words.val()
            & (self.take_remote.val() | (self.take.val() & self.first.val() & !self.take_rb.val()));
        if self.words_in.val() {
            self.x_words.d.next = true;
            self.x_cmask.d.next = self.w_cmask.o.val();
            self.x_wmask.d.next = self.w_wmask.o.val();
            self.x_cmp.d.next = self.w_cmp.o.val();
            self.x_beat.d.next = self.w_wline.o.val();
        }
        if self.take_remote.val() {
            // Its line is held from now; released at once if it writes nothing.
            self.rv_valid.d.next = self.verb_valid.val();
            self.issue.next = true;
            self.x_remote.d.next = true;
            for k in 0..K {
                if self.rv.q.val().channel.index() == k {
                    self.lock_valid[k].d.next = true;
                    self.lock_line[k].d.next = self.d_addr.val().get_bits::<LB>(6);
                }
            }
        } else if self.take_rb.val() {
            // Undo the channel's verb (if it wrote), then free its line.
            self.issue.next = self.rb_locked.val();
            self.x_restore.d.next = true;
            self.x_err.d.next = self.c_ok.val();
            self.x_line.d.next = self.rb_line.val();
            self.same_next.next = self.rb_same.val();
            self.lines.read_address.next = self.rb_line.val();
            for k in 0..K {
                if self.rb_ch.val().index() == k {
                    self.rb_pending[k].d.next = self.rollback[k].val();
                    self.lock_valid[k].d.next = false;
                }
            }
        } else if self.room.val() & !self.stall.val() & self.cut_short.val() {
            self.issue.next = true;
            self.issue_commit.next = true;
            self.x_op.d.next = self.c_commit.val();
            self.x_tag.d.next = self.g_tag.q.val();
            self.x_err.d.next = self.c_bad_op.val();
            self.g_left.d.next = self.c_zero2.val();
        } else if self.take.val() & self.first.val() {
            if self.d_commit.val() {
                self.g_left.d.next = self.c_two2.val();
                self.g_tag.d.next = self.beat.val().get_bits::<16>(16);
                self.g_line.d.next = self.d_addr.val().get_bits::<LB>(6);
                self.g_err.d.next = self.d_err.val();
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
        self.old.next = self.c_zero64.val();
        for i in 0..LINE_WORDS {
            self.lane_old[i].next = self.old_line.val().get_bits::<64>(i * 64);
            if self.x_lane.q.val().index() == i {
                self.old.next = self.lane_old[i].val();
            }
            self.differ_bits.i[i].next = (self.x_cmask.q.val().get_bit(i)
                & (self.lane_old[i].val() != self.x_cmp.q.val().get_bits::<64>(i * 64)))
            .into();
        }
        self.differ.next = self.differ_bits.o.val();
        self.o0.next = self.x_beat.q.val().get_bits::<64>(64);
        self.o1.next = self.x_beat.q.val().get_bits::<64>(128);
        self.o2.next = self.x_beat.q.val().get_bits::<64>(192);
        self.o3.next = self.x_beat.q.val().get_bits::<64>(256);
        // Fields: clear their top bits so no carry leaves a field, then fix
        // the top bits up (pendulum_layout::atomic::masked_add); a plain
        // add is a masked add with no field tops.
        self.add_mask.next = self.o1.val();
        if self.x_is_fadd.q.val() {
            self.add_mask.next = self.c_zero64.val();
        }
        self.eq.next = false;
        self.meq.next = false;
        for i in 0..LINE_WORDS {
            self.lane_sum[i].next = ((self.lane_old[i].val() & !self.add_mask.val())
                + (self.o0.val() & !self.add_mask.val()))
                ^ ((self.lane_old[i].val() ^ self.o0.val()) & self.add_mask.val());
            self.lane_eq[i].next = self.lane_old[i].val() == self.o0.val();
            self.lane_meq[i].next =
                (self.lane_old[i].val() & self.o2.val()) == (self.o0.val() & self.o2.val());
            // A compare that fails writes nothing (`writes`), so the new
            // word need not wait for it.
            self.lane_op[i].next = self.lane_sum[i].val();
            if self.x_is_cas.q.val() {
                self.lane_op[i].next = self.o1.val();
            } else if self.x_is_swap.q.val() {
                self.lane_op[i].next = self.o0.val();
            } else if self.x_is_mcas.q.val() {
                self.lane_op[i].next =
                    (self.lane_old[i].val() & !self.o3.val()) | (self.o1.val() & self.o3.val());
            }
            if self.x_lane.q.val().index() == i {
                self.eq.next = self.lane_eq[i].val();
                self.meq.next = self.lane_meq[i].val();
            }
        }
        // The compare failed: the verb writes nothing.
        self.x_multi.next = self.x_commit.q.val() | self.x_words.q.val();
        self.failed.next = false;
        if self.x_restore.q.val() {
            // A rollback: the line goes back to its undo entry.
        } else if self.x_multi.val() {
            self.failed.next = self.differ.val() != self.c_zero8.val();
        } else {
            self.failed.next = (self.x_is_cas.q.val() & !self.eq.val())
                | (self.x_is_mcas.q.val() & !self.meq.val());
        }
        self.ok.next = self.x_err.q.val() == self.c_ok.val();
        // The old words the result returns: a single-word verb's word, a
        // COMMIT_WORDS's word per operation (0 if unused), none for a COMMIT.
        for j in 0..WORD_OPS {
            self.op_old[j].next = self.c_zero64.val();
            for i in 0..LINE_WORDS {
                if self.x_op_used[j].q.val() & (self.x_op_word[j].q.val().index() == i) {
                    self.op_old[j].next = self.lane_old[i].val();
                }
            }
            self.queue.x_olds[j].next = self.c_zero64.val();
            if self.x_words.q.val() {
                self.queue.x_olds[j].next = self.op_old[j].val();
            }
        }
        if !self.x_multi.val() {
            self.queue.x_olds[0].next = self.old.val();
        }
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
        for i in 0..LINE_WORDS {
            self.lane_new[i].next = self.lane_old[i].val();
            if self.x_restore.q.val() {
                self.lane_new[i].next = self.undo.read_data.val().get_bits::<64>(i * 64);
            } else if self.x_sel_beat.q.val().get_bit(i) {
                self.lane_new[i].next = self.x_beat.q.val().get_bits::<64>(i * 64);
            } else if self.x_sel_op.q.val().get_bit(i) {
                self.lane_new[i].next = self.lane_op[i].val();
            }
        }
        for i in 0..LINE_WORDS {
            self.new_line.i[i].next = self.lane_new[i].val();
        }
        self.writes.next = self.x_valid.q.val() & self.ok.val() & !self.failed.val();
        self.lines.write_enable.next = self.writes.val();
        self.lines.write_address.next = self.x_line.q.val();
        self.lines.write_data.next = self.new_line.o.val();
        self.w_valid.d.next = self.writes.val();
        self.w_same.d.next = self.same_next.val();
        self.x_is_cas.d.next = self.x_op.d.val() == self.c_cas.val();
        self.x_is_fadd.d.next = self.x_op.d.val() == self.c_fadd.val();
        self.x_is_swap.d.next = self.x_op.d.val() == self.c_swap.val();
        self.x_is_mcas.d.next = self.x_op.d.val() == self.c_mcas.val();
        self.w_data.d.next = self.new_line.o.val();

        // The result, made and queued by `queue` from next cycle.
        self.queue.x_valid.next = self.x_valid.q.val() & !self.x_restore.q.val();
        self.queue.x_remote.next = self.x_remote.q.val();
        self.queue.x_commit.next = self.x_commit.q.val();
        self.queue.x_multi.next = self.x_multi.val();
        self.queue.x_err.next = self.x_err.q.val();
        self.queue.x_failed.next = self.failed.val();
        self.queue.x_differ.next = self.differ.val();
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
        for k in 0..K {
            if self.x_valid.q.val()
                & self.x_remote.q.val()
                & !self.writes.val()
                & (self.x_ch.q.val().index() == k)
            {
                self.lock_valid[k].d.next = false;
            }
        }
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
