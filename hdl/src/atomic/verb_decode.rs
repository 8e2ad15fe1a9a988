use crate::konst as c;
use crate::stream::Join;
use pendulum_layout::atomic::{op, status, KIND_VERB, LINE_WORDS, WORD_OPS};
use pendulum_layout::params::{ATOMIC_BYTES, ATOMIC_LINE_BITS as LB};
use rust_hdl::prelude::*;

/// Decodes and checks a verb's first slot (`pendulum_layout::atomic`'s
/// `Verb`, `Commit` header or `CommitWords`), with no register: its opcode
/// and address, and the status that refuses it, checked in the reference
/// semantics' order (opcode and reserved bytes, alignment, range). A
/// `COMMIT_WORDS` slot's operations come out spread over the line: per
/// word, whether it is compared and written and with what (a later
/// operation on the same word wins).
#[derive(LogicBlock)]
pub struct VerbDecode {
    pub slot: Signal<In, Bits<512>>,
    /// The slot came over the ACP link: a COMMIT is refused (its three slots
    /// do not fit one link payload; COMMIT_WORDS does).
    pub remote: Signal<In, Bit>,
    pub op: Signal<Out, Bits<8>>,
    pub tag: Signal<Out, Bits<16>>,
    /// The line it addresses, and its word in the line.
    pub line: Signal<Out, Bits<LB>>,
    pub lane: Signal<Out, Bits<3>>,
    pub commit: Signal<Out, Bit>,
    pub words: Signal<Out, Bit>,
    /// `status::OK`, or why the verb is refused.
    pub err: Signal<Out, Bits<8>>,
    /// A COMMIT_WORDS's words compared and written, and their values.
    pub cmask: Signal<Out, Bits<LINE_WORDS>>,
    pub wmask: Signal<Out, Bits<LINE_WORDS>>,
    pub cmp: Signal<Out, Bits<512>>,
    pub wline: Signal<Out, Bits<512>>,

    addr: Signal<Local, Bits<32>>,
    words_bad: Signal<Local, Bit>,
    cmp_en: [Signal<Local, Bits<1>>; LINE_WORDS],
    cmp_val: [Signal<Local, Bits<64>>; LINE_WORDS],
    wr_en: [Signal<Local, Bits<1>>; LINE_WORDS],
    wr_val: [Signal<Local, Bits<64>>; LINE_WORDS],
    cmask_bits: Join<LINE_WORDS, 1, LINE_WORDS>,
    wmask_bits: Join<LINE_WORDS, 1, LINE_WORDS>,
    cmp_words: Join<LINE_WORDS, 64, 512>,
    wline_words: Join<LINE_WORDS, 64, 512>,

    c_cas: Constant<Bits<8>>,
    c_commit: Constant<Bits<8>>,
    c_words: Constant<Bits<8>>,
    c_verb: Constant<Bits<8>>,
    c_ok: Constant<Bits<8>>,
    c_misaligned: Constant<Bits<8>>,
    c_out_of_range: Constant<Bits<8>>,
    c_bad_op: Constant<Bits<8>>,
    c_limit: Constant<Bits<32>>,
    c_zero3: Constant<Bits<3>>,
    c_zero6: Constant<Bits<6>>,
    c_zero24: Constant<Bits<24>>,
    c_zero64: Constant<Bits<64>>,
    c_zero192: Constant<Bits<192>>,
    c_zero432: Constant<Bits<432>>,
}

impl VerbDecode {
    pub fn new() -> Self {
        Self {
            slot: Default::default(),
            remote: Default::default(),
            op: Default::default(),
            tag: Default::default(),
            line: Default::default(),
            lane: Default::default(),
            addr: Default::default(),
            commit: Default::default(),
            words: Default::default(),
            err: Default::default(),
            cmask: Default::default(),
            wmask: Default::default(),
            cmp: Default::default(),
            wline: Default::default(),
            words_bad: Default::default(),
            cmp_en: Default::default(),
            cmp_val: Default::default(),
            wr_en: Default::default(),
            wr_val: Default::default(),
            cmask_bits: Default::default(),
            wmask_bits: Default::default(),
            cmp_words: Default::default(),
            wline_words: Default::default(),
            c_cas: c(op::CAS as u64),
            c_commit: c(op::COMMIT as u64),
            c_words: c(op::COMMIT_WORDS as u64),
            c_verb: c(KIND_VERB as u64),
            c_ok: c(status::OK as u64),
            c_misaligned: c(status::MISALIGNED as u64),
            c_out_of_range: c(status::OUT_OF_RANGE as u64),
            c_bad_op: c(status::BAD_OPCODE as u64),
            c_limit: c(ATOMIC_BYTES as u64),
            c_zero3: c(0),
            c_zero6: c(0),
            c_zero24: c(0),
            c_zero64: c(0),
            c_zero192: c(0),
            c_zero432: c(0),
        }
    }
}

impl Default for VerbDecode {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for VerbDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.op.next = self.slot.val().get_bits::<8>(8);
        self.tag.next = self.slot.val().get_bits::<16>(16);
        self.addr.next = self.slot.val().get_bits::<32>(32);
        self.line.next = self.addr.val().get_bits::<LB>(6);
        self.lane.next = self.addr.val().get_bits::<3>(3);
        self.commit.next = self.op.val() == self.c_commit.val();
        self.words.next = self.op.val() == self.c_words.val();
        // A COMMIT_WORDS slot: five descriptors (bits 5..3 zero), three
        // reserved bytes, five values, eight reserved bytes.
        self.words_bad.next = (self.slot.val().get_bits::<24>(104) != self.c_zero24.val())
            | (self.slot.val().get_bits::<64>(448) != self.c_zero64.val());
        for j in 0..WORD_OPS {
            if self.slot.val().get_bits::<3>(64 + 8 * j + 3) != self.c_zero3.val() {
                self.words_bad.next = true;
            }
        }
        // Spread its operations over the line's words (a later one wins).
        for i in 0..LINE_WORDS {
            self.cmp_en[i].next = false.into();
            self.wr_en[i].next = false.into();
            self.cmp_val[i].next = self.c_zero64.val();
            self.wr_val[i].next = self.c_zero64.val();
            for j in 0..WORD_OPS {
                if self.slot.val().get_bits::<3>(64 + 8 * j).index() == i {
                    if self.slot.val().get_bit(64 + 8 * j + 7) {
                        self.cmp_en[i].next = true.into();
                        self.cmp_val[i].next = self.slot.val().get_bits::<64>(128 + 64 * j);
                    }
                    if self.slot.val().get_bit(64 + 8 * j + 6) {
                        self.wr_en[i].next = true.into();
                        self.wr_val[i].next = self.slot.val().get_bits::<64>(128 + 64 * j);
                    }
                }
            }
            self.cmask_bits.i[i].next = self.cmp_en[i].val();
            self.wmask_bits.i[i].next = self.wr_en[i].val();
            self.cmp_words.i[i].next = self.cmp_val[i].val();
            self.wline_words.i[i].next = self.wr_val[i].val();
        }
        self.cmask.next = self.cmask_bits.o.val();
        self.wmask.next = self.wmask_bits.o.val();
        self.cmp.next = self.cmp_words.o.val();
        self.wline.next = self.wline_words.o.val();

        self.err.next = self.c_ok.val();
        if (self.op.val() < self.c_cas.val())
            | (self.op.val() > self.c_words.val())
            | (self.remote.val() & self.commit.val())
            | (self.slot.val().get_bits::<8>(0) != self.c_verb.val())
            | (!self.commit.val()
                & !self.words.val()
                & (self.slot.val().get_bits::<192>(320) != self.c_zero192.val()))
            | (self.commit.val() & (self.slot.val().get_bits::<432>(80) != self.c_zero432.val()))
            | (self.words.val() & self.words_bad.val())
        {
            self.err.next = self.c_bad_op.val();
        } else if (self.addr.val().get_bits::<3>(0) != self.c_zero3.val())
            | ((self.commit.val() | self.words.val())
                & (self.addr.val().get_bits::<6>(0) != self.c_zero6.val()))
        {
            self.err.next = self.c_misaligned.val();
        } else if self.addr.val() >= self.c_limit.val() {
            self.err.next = self.c_out_of_range.val();
        }
    }
}
