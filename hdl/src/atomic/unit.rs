use crate::stream::{Concat, StreamFifo, StreamSink, StreamSource, ZeroExtend};
use pendulum_layout::atomic::{op, status, KIND_RESULT, KIND_VERB};
use pendulum_layout::params::{ATOMIC_BYTES, ATOMIC_WORD_BITS as WB};
use rust_hdl::prelude::*;

/// log2 of the result FIFO depth.
const RF: usize = 5;

/// The atomic unit: one verb per cycle on 64-bit words of on-NIC memory
/// (`pendulum_layout::atomic` has the slot layouts and the reference
/// semantics, `execute`).
///
/// Two stages. Accept: decode the verb slot, check it (opcode, alignment,
/// range) and address the memory. Execute: take the old word, compute the new
/// one, write it, and queue the result slot. A verb on the word the previous
/// verb just wrote gets that value forwarded (the memory's read sees the word
/// from before that write), so back-to-back verbs on one address run at full
/// rate and see each other in order. Verbs are accepted while the result
/// FIFO has room for every verb in flight, so execution never stalls.
#[derive(LogicBlock)]
pub struct AtomicUnit {
    pub clock: Signal<In, Clock>,
    /// Verb slots (byte 0 already checked to be KIND_VERB by the TX framer).
    pub s_verb: StreamSink<Bits<512>>,
    /// Result slots.
    pub m_result: StreamSource<Bits<512>>,
    /// One-cycle pulses: a verb executed (or refused), and a refused one.
    pub ev_verb: Signal<Out, Bit>,
    pub ev_error: Signal<Out, Bit>,

    words: RAM<Bits<64>, WB>,
    results: StreamFifo<Bits<512>, RF, { RF + 1 }>,
    used: DFF<Bits<8>>,
    // Execute stage.
    x_valid: DFF<Bit>,
    x_op: DFF<Bits<8>>,
    x_tag: DFF<Bits<16>>,
    x_idx: DFF<Bits<WB>>,
    x_err: DFF<Bits<8>>,
    x_o0: DFF<Bits<64>>,
    x_o1: DFF<Bits<64>>,
    x_o2: DFF<Bits<64>>,
    x_o3: DFF<Bits<64>>,
    // The write of the previous cycle, for forwarding.
    w_valid: DFF<Bit>,
    w_idx: DFF<Bits<WB>>,
    w_data: DFF<Bits<64>>,

    // Accept-stage decode.
    beat: Signal<Local, Bits<512>>,
    d_op: Signal<Local, Bits<8>>,
    d_addr: Signal<Local, Bits<32>>,
    d_err: Signal<Local, Bits<8>>,
    accept: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    // Execute-stage values.
    old: Signal<Local, Bits<64>>,
    new_word: Signal<Local, Bits<64>>,
    st: Signal<Local, Bits<8>>,
    writes: Signal<Local, Bit>,
    ret_old: Signal<Local, Bits<64>>,
    masked_sum: Signal<Local, Bits<64>>,
    // Result slot: {old 64, status 32, tag 16, op 8, kind 8} from byte 0.
    op_kind: Concat<8, 8, 16>,
    head32: Concat<16, 16, 32>,
    status32: ZeroExtend<8, 32>,
    word0: Concat<32, 32, 64>,
    res128: Concat<64, 64, 128>,
    res512: ZeroExtend<128, 512>,

    c_cas: Constant<Bits<8>>,
    c_fadd: Constant<Bits<8>>,
    c_swap: Constant<Bits<8>>,
    c_mcas: Constant<Bits<8>>,
    c_mfadd: Constant<Bits<8>>,
    c_ok: Constant<Bits<8>>,
    c_cmp_failed: Constant<Bits<8>>,
    c_misaligned: Constant<Bits<8>>,
    c_out_of_range: Constant<Bits<8>>,
    c_bad_op: Constant<Bits<8>>,
    c_kind: Constant<Bits<8>>,
    c_verb: Constant<Bits<8>>,
    c_zero192: Constant<Bits<192>>,
    c_zero3: Constant<Bits<3>>,
    c_limit: Constant<Bits<32>>,
    c_zero64: Constant<Bits<64>>,
    c_one8: Constant<Bits<8>>,
    c_room: Constant<Bits<8>>,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl AtomicUnit {
    pub fn new() -> Self {
        assert_eq!(8u64 << WB, ATOMIC_BYTES as u64, "ATOMIC_WORD_BITS must address ATOMIC_BYTES");
        Self {
            clock: Default::default(),
            s_verb: Default::default(),
            m_result: Default::default(),
            ev_verb: Default::default(),
            ev_error: Default::default(),
            words: Default::default(),
            results: StreamFifo::new(),
            used: Default::default(),
            x_valid: Default::default(),
            x_op: Default::default(),
            x_tag: Default::default(),
            x_idx: Default::default(),
            x_err: Default::default(),
            x_o0: Default::default(),
            x_o1: Default::default(),
            x_o2: Default::default(),
            x_o3: Default::default(),
            w_valid: Default::default(),
            w_idx: Default::default(),
            w_data: Default::default(),
            beat: Default::default(),
            d_op: Default::default(),
            d_addr: Default::default(),
            d_err: Default::default(),
            accept: Default::default(),
            pop: Default::default(),
            old: Default::default(),
            new_word: Default::default(),
            st: Default::default(),
            writes: Default::default(),
            ret_old: Default::default(),
            masked_sum: Default::default(),
            op_kind: Default::default(),
            head32: Default::default(),
            status32: Default::default(),
            word0: Default::default(),
            res128: Default::default(),
            res512: Default::default(),
            c_cas: c(op::CAS as u64),
            c_fadd: c(op::FETCH_ADD as u64),
            c_swap: c(op::SWAP as u64),
            c_mcas: c(op::MASKED_CAS as u64),
            c_mfadd: c(op::MASKED_FETCH_ADD as u64),
            c_ok: c(status::OK as u64),
            c_cmp_failed: c(status::COMPARE_FAILED as u64),
            c_misaligned: c(status::MISALIGNED as u64),
            c_out_of_range: c(status::OUT_OF_RANGE as u64),
            c_bad_op: c(status::BAD_OPCODE as u64),
            c_kind: c(KIND_RESULT as u64),
            c_verb: c(KIND_VERB as u64),
            c_zero192: c(0),
            c_zero3: c(0),
            c_limit: c(ATOMIC_BYTES as u64),
            c_zero64: c(0),
            c_one8: c(1),
            // Every verb in flight has a FIFO place: results queued + the one executing.
            c_room: c(((1u64 << RF) - 2) as u64),
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
        dff_setup!(self, clock, used, x_valid, x_op, x_tag, x_idx, x_err, x_o0, x_o1, x_o2, x_o3, w_valid, w_idx, w_data);
        self.words.read_clock.next = self.clock.val();
        self.words.write_clock.next = self.clock.val();
        self.results.clock.next = self.clock.val();

        // ---- Accept: decode and check, address the memory ----
        self.beat.next = self.s_verb.data.val();
        self.d_op.next = self.beat.val().get_bits::<8>(8);
        self.d_addr.next = self.beat.val().get_bits::<32>(32);
        self.d_err.next = self.c_ok.val();
        if (self.d_op.val() < self.c_cas.val())
            | (self.d_op.val() > self.c_mfadd.val())
            | (self.beat.val().get_bits::<8>(0) != self.c_verb.val())
            | (self.beat.val().get_bits::<192>(320) != self.c_zero192.val())
        {
            self.d_err.next = self.c_bad_op.val();
        } else if self.d_addr.val().get_bits::<3>(0) != self.c_zero3.val() {
            self.d_err.next = self.c_misaligned.val();
        } else if self.d_addr.val() >= self.c_limit.val() {
            self.d_err.next = self.c_out_of_range.val();
        }
        // (The FIFO's own ready is implied by the count; it is checked anyway.)
        self.s_verb.ready.next = (self.used.q.val() < self.c_room.val()) & self.results.s.ready.val();
        self.accept.next = self.s_verb.valid.val() & (self.used.q.val() < self.c_room.val()) & self.results.s.ready.val();
        self.words.read_address.next = self.d_addr.val().get_bits::<WB>(3);
        self.x_valid.d.next = self.accept.val();
        self.x_op.d.next = self.d_op.val();
        self.x_tag.d.next = self.beat.val().get_bits::<16>(16);
        self.x_idx.d.next = self.d_addr.val().get_bits::<WB>(3);
        self.x_err.d.next = self.d_err.val();
        self.x_o0.d.next = self.beat.val().get_bits::<64>(64);
        self.x_o1.d.next = self.beat.val().get_bits::<64>(128);
        self.x_o2.d.next = self.beat.val().get_bits::<64>(192);
        self.x_o3.d.next = self.beat.val().get_bits::<64>(256);

        // ---- Execute ----
        self.old.next = self.words.read_data.val();
        if self.w_valid.q.val() & (self.w_idx.q.val() == self.x_idx.q.val()) {
            self.old.next = self.w_data.q.val();
        }
        // Fields: clear their top bits so no carry leaves a field, then fix
        // the top bits up (pendulum_layout::atomic::masked_add).
        self.masked_sum.next = ((self.old.val() & !self.x_o1.q.val()) + (self.x_o0.q.val() & !self.x_o1.q.val()))
            ^ ((self.old.val() ^ self.x_o0.q.val()) & self.x_o1.q.val());
        self.new_word.next = self.old.val();
        self.st.next = self.c_ok.val();
        if self.x_op.q.val() == self.c_cas.val() {
            if self.old.val() == self.x_o0.q.val() {
                self.new_word.next = self.x_o1.q.val();
            } else {
                self.st.next = self.c_cmp_failed.val();
            }
        } else if self.x_op.q.val() == self.c_fadd.val() {
            self.new_word.next = self.old.val() + self.x_o0.q.val();
        } else if self.x_op.q.val() == self.c_swap.val() {
            self.new_word.next = self.x_o0.q.val();
        } else if self.x_op.q.val() == self.c_mcas.val() {
            if (self.old.val() & self.x_o2.q.val()) == (self.x_o0.q.val() & self.x_o2.q.val()) {
                self.new_word.next = (self.old.val() & !self.x_o3.q.val()) | (self.x_o1.q.val() & self.x_o3.q.val());
            } else {
                self.st.next = self.c_cmp_failed.val();
            }
        } else {
            self.new_word.next = self.masked_sum.val();
        }
        self.ret_old.next = self.old.val();
        if self.x_err.q.val() != self.c_ok.val() {
            self.st.next = self.x_err.q.val();
            self.ret_old.next = self.c_zero64.val();
        }
        self.writes.next = self.x_valid.q.val() & (self.st.val() == self.c_ok.val());
        self.words.write_enable.next = self.writes.val();
        self.words.write_address.next = self.x_idx.q.val();
        self.words.write_data.next = self.new_word.val();
        self.w_valid.d.next = self.writes.val();
        self.w_idx.d.next = self.x_idx.q.val();
        self.w_data.d.next = self.new_word.val();

        // The result slot.
        self.op_kind.hi.next = self.x_op.q.val();
        self.op_kind.lo.next = self.c_kind.val();
        self.head32.hi.next = self.x_tag.q.val();
        self.head32.lo.next = self.op_kind.o.val();
        self.status32.i.next = self.st.val();
        self.word0.hi.next = self.status32.o.val();
        self.word0.lo.next = self.head32.o.val();
        self.res128.hi.next = self.ret_old.val();
        self.res128.lo.next = self.word0.o.val();
        self.res512.i.next = self.res128.o.val();
        self.results.s.data.next = self.res512.o.val();
        self.results.s.valid.next = self.x_valid.q.val();
        self.ev_verb.next = self.x_valid.q.val();
        self.ev_error.next = self.x_valid.q.val() & (self.x_err.q.val() != self.c_ok.val());

        self.m_result.data.next = self.results.m.data.val();
        self.m_result.valid.next = self.results.m.valid.val();
        self.results.m.ready.next = self.m_result.ready.val();
        self.pop.next = self.results.m.valid.val() & self.m_result.ready.val();
        if self.accept.val() & !self.pop.val() {
            self.used.d.next = self.used.q.val() + self.c_one8.val();
        }
        if self.pop.val() & !self.accept.val() {
            self.used.d.next = self.used.q.val() - self.c_one8.val();
        }
    }
}
