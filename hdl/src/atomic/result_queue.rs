use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{Concat, Join, SkidBuffer, StreamFifo, StreamSource, ZeroExtend};
use crate::types::{RemoteResult, SlotBeat};
use pendulum_layout::atomic::{status, KIND_RESULT, LINE_WORDS, WORD_OPS};
use pendulum_layout::params::ACP_CHANNEL_BITS as CB;
use rust_hdl::prelude::*;

/// log2 of the result FIFO depth.
pub const RESULT_FIFO_BITS: usize = 5;
const RF: usize = RESULT_FIFO_BITS;
/// The first slot word after the old words (the rest are zero).
const PAST_OLDS: usize = WORD_OPS + 1;
const _: () = assert!(PAST_OLDS <= LINE_WORDS, "a result's old words fit its slot");

/// The atomic unit's results: what a verb's execution decided, made into its
/// result slot (`pendulum_layout::atomic::VerbResult`) and queued for the
/// host, or handed to the ACP link for a remote verb.
///
/// What execute decided is registered as it comes in (`x_*`), and the slot
/// is made from those registers in the next cycle. So the status byte, which
/// waits for the compare of the line just read, ends its cycle in a
/// register, and the slot's muxes (the status, zeroed words of a refused
/// verb, a commit's second slot) start the next one from registers.
///
/// A commit's second slot (its old line, zero when refused) goes into the
/// FIFO the cycle after its first; the unit keeps the FIFO's write port free
/// for it (no local verb enters execute the cycle after a commit).
///
/// Latency 1 cycle to `res` and into the FIFO, whose output is registered
/// both ways (`m_result`), so the RX arbiter's grant does not run on into
/// the FIFO's read pointer.
#[derive(LogicBlock)]
pub struct ResultQueue {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// A verb left execute this cycle with a result (a rollback has none).
    pub x_valid: Signal<In, Bit>,
    /// It came over the link: its result goes to `res`, not to the host.
    pub x_remote: Signal<In, Bit>,
    /// A three-slot COMMIT: two result slots, the second its old line.
    pub x_commit: Signal<In, Bit>,
    /// A COMMIT or COMMIT_WORDS: the slot reports the words that differed.
    pub x_multi: Signal<In, Bit>,
    /// `status::OK`, or why the verb was refused.
    pub x_err: Signal<In, Bits<8>>,
    /// Its compare failed (a CAS, masked CAS or commit that wrote nothing).
    pub x_failed: Signal<In, Bit>,
    pub x_differ: Signal<In, Bits<8>>,
    pub x_op: Signal<In, Bits<8>>,
    pub x_tag: Signal<In, Bits<16>>,
    pub x_ch: Signal<In, Bits<CB>>,
    /// The old words the slot returns (a single-word verb: its word; a
    /// COMMIT_WORDS: one per operation; a COMMIT: none).
    pub x_olds: [Signal<In, Bits<64>>; WORD_OPS],
    /// A commit's line as it was.
    pub x_line: Signal<In, Bits<512>>,
    /// Result slots for the host.
    pub m_result: StreamSource<SlotBeat>,
    /// A remote verb's result, for its channel's ECHO record.
    pub res_valid: Signal<Out, Bit>,
    pub res: Signal<Out, RemoteResult>,
    /// The FIFO takes a slot this cycle if one comes (the unit counts its
    /// places and admits verbs only while every result has one).
    pub ready: Signal<Out, Bit>,
    /// A slot left the FIFO this cycle.
    pub pop: Signal<Out, Bit>,

    r_valid: SDFF<Bit>,
    r_remote: SDFF<Bit>,
    r_commit: SDFF<Bit>,
    r_multi: SDFF<Bit>,
    r_err: SDFF<Bits<8>>,
    r_failed: SDFF<Bit>,
    r_differ: SDFF<Bits<8>>,
    r_op: SDFF<Bits<8>>,
    r_tag: SDFF<Bits<16>>,
    r_ch: SDFF<Bits<CB>>,
    r_olds: [SDFF<Bits<64>>; WORD_OPS],
    // A commit's second slot: taken from execute, queued two cycles later.
    p_valid: SDFF<Bit>,
    p_data: SDFF<Bits<512>>,
    results: StreamFifo<SlotBeat, RF, { RF + 1 }>,
    out: SkidBuffer<SlotBeat>,

    ok: Signal<Local, Bit>,
    st: Signal<Local, Bits<8>>,
    differ: Signal<Local, Bits<8>>,
    // Slot word 0: {differ 8 + status 8 in 32, tag 16, op 8, kind 8}.
    op_kind: Concat<8, 8, 16>,
    head32: Concat<16, 16, 32>,
    status16: Concat<8, 8, 16>,
    status32: ZeroExtend<16, 32>,
    word0: Concat<32, 32, 64>,
    words: Join<LINE_WORDS, 64, 512>,

    c_ok: Constant<Bits<8>>,
    c_cmp_failed: Constant<Bits<8>>,
    c_kind: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_zero64: Constant<Bits<64>>,
    c_zero512: Constant<Bits<512>>,
}

impl ResultQueue {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            x_valid: Default::default(),
            x_remote: Default::default(),
            x_commit: Default::default(),
            x_multi: Default::default(),
            x_err: Default::default(),
            x_failed: Default::default(),
            x_differ: Default::default(),
            x_op: Default::default(),
            x_tag: Default::default(),
            x_ch: Default::default(),
            x_olds: Default::default(),
            x_line: Default::default(),
            m_result: Default::default(),
            res_valid: Default::default(),
            res: Default::default(),
            ready: Default::default(),
            pop: Default::default(),
            r_valid: Default::default(),
            r_remote: Default::default(),
            r_commit: Default::default(),
            r_multi: Default::default(),
            r_err: Default::default(),
            r_failed: Default::default(),
            r_differ: Default::default(),
            r_op: Default::default(),
            r_tag: Default::default(),
            r_ch: Default::default(),
            r_olds: Default::default(),
            p_valid: Default::default(),
            p_data: Default::default(),
            results: StreamFifo::new(),
            out: Default::default(),
            ok: Default::default(),
            st: Default::default(),
            differ: Default::default(),
            op_kind: Default::default(),
            head32: Default::default(),
            status16: Default::default(),
            status32: Default::default(),
            word0: Default::default(),
            words: Default::default(),
            c_ok: c(status::OK as u64),
            c_cmp_failed: c(status::COMPARE_FAILED as u64),
            c_kind: c(KIND_RESULT as u64),
            c_zero8: c(0),
            c_zero64: c(0),
            c_zero512: c(0),
        }
    }
}

impl Default for ResultQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for ResultQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_valid, r_remote, r_commit, r_multi, r_err, r_failed, r_differ, r_op,
            r_tag, r_ch, p_valid, p_data
        );
        self.r_valid.reset.next = self.reset.val();
        self.r_remote.reset.next = self.reset.val();
        self.r_commit.reset.next = self.reset.val();
        self.r_multi.reset.next = self.reset.val();
        self.r_err.reset.next = self.reset.val();
        self.r_failed.reset.next = self.reset.val();
        self.r_differ.reset.next = self.reset.val();
        self.r_op.reset.next = self.reset.val();
        self.r_tag.reset.next = self.reset.val();
        self.r_ch.reset.next = self.reset.val();
        self.p_valid.reset.next = self.reset.val();
        self.p_data.reset.next = self.reset.val();
        self.results.clock.next = self.clock.val();
        self.results.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // ---- What execute decided, registered ----
        self.r_valid.d.next = self.x_valid.val();
        self.r_remote.d.next = self.x_remote.val();
        self.r_commit.d.next = self.x_commit.val();
        self.r_multi.d.next = self.x_multi.val();
        self.r_err.d.next = self.x_err.val();
        self.r_failed.d.next = self.x_failed.val();
        self.r_differ.d.next = self.x_differ.val();
        self.r_op.d.next = self.x_op.val();
        self.r_tag.d.next = self.x_tag.val();
        self.r_ch.d.next = self.x_ch.val();
        for j in 0..WORD_OPS {
            self.r_olds[j].clock.next = self.clock.val();
            self.r_olds[j].reset.next = self.reset.val();
            self.r_olds[j].d.next = self.x_olds[j].val();
        }
        // A commit's old line waits here for its second slot (nothing else
        // enters execute the cycle after a commit, so it is not overwritten).
        if self.x_valid.val() & self.x_commit.val() {
            self.p_data.d.next = self.c_zero512.val();
            if self.x_err.val() == self.c_ok.val() {
                self.p_data.d.next = self.x_line.val();
            }
        }
        self.p_valid.d.next = self.r_valid.q.val() & self.r_commit.q.val();

        // ---- The result slot ----
        self.ok.next = self.r_err.q.val() == self.c_ok.val();
        self.st.next = self.c_ok.val();
        if self.r_failed.q.val() {
            self.st.next = self.c_cmp_failed.val();
        }
        self.differ.next = self.c_zero8.val();
        if self.r_multi.q.val() {
            self.differ.next = self.r_differ.q.val();
        }
        if !self.ok.val() {
            self.st.next = self.r_err.q.val();
            self.differ.next = self.c_zero8.val();
        }
        self.op_kind.hi.next = self.r_op.q.val();
        self.op_kind.lo.next = self.c_kind.val();
        self.head32.hi.next = self.r_tag.q.val();
        self.head32.lo.next = self.op_kind.o.val();
        self.status16.hi.next = self.differ.val();
        self.status16.lo.next = self.st.val();
        self.status32.i.next = self.status16.o.val();
        self.word0.hi.next = self.status32.o.val();
        self.word0.lo.next = self.head32.o.val();
        self.words.i[0].next = self.word0.o.val();
        for j in 0..WORD_OPS {
            self.words.i[j + 1].next = self.c_zero64.val();
            if self.ok.val() {
                self.words.i[j + 1].next = self.r_olds[j].q.val();
            }
        }
        for j in PAST_OLDS..LINE_WORDS {
            self.words.i[j].next = self.c_zero64.val();
        }

        // ---- Into the FIFO, or to the link ----
        self.results.s.data.next.data = self.words.o.val();
        self.results.s.data.next.first = true;
        self.results.s.data.next.last = !self.r_commit.q.val();
        self.results.s.valid.next = self.r_valid.q.val() & !self.r_remote.q.val();
        if self.p_valid.q.val() {
            self.results.s.data.next.data = self.p_data.q.val();
            self.results.s.data.next.first = false;
            self.results.s.data.next.last = true;
            self.results.s.valid.next = true;
        }
        self.ready.next = self.results.s.ready.val();
        self.res_valid.next = self.r_valid.q.val() & self.r_remote.q.val();
        self.res.next.result = self.words.o.val().get_bits::<384>(0);
        self.res.next.channel = self.r_ch.q.val();

        self.out.s.data.next = self.results.m.data.val();
        self.out.s.valid.next = self.results.m.valid.val();
        self.results.m.ready.next = self.out.s.ready.val();
        self.pop.next = self.results.m.valid.val() & self.out.s.ready.val();
        self.m_result.data.next = self.out.m.data.val();
        self.m_result.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m_result.ready.val();
    }
}
