use crate::konst as c;
use crate::stream::Join;
use pendulum_layout::atomic::{LINE_WORDS, WORD_OPS};
use rust_hdl::prelude::*;

/// What a verb does to its line, with no register: the new line, whether
/// its compare failed, and the old words its result returns. The atomic
/// unit's execute stage around it holds the verb (decoded as it entered)
/// and the line it read, and writes the new line back.
///
/// Every lane's word is computed as the verb would leave it, with every
/// lane's compare, and then one is chosen, so no carry or compare waits for
/// the choice of the lane. A failed compare writes nothing (the unit's
/// write enable), so the new words do not wait for it.
#[derive(LogicBlock)]
pub struct LineExecute {
    /// The line as it is (read, or forwarded from the last write).
    pub old_line: Signal<In, Bits<512>>,
    /// A single-word verb's slot (operands in words 1 to 4), or a commit's
    /// write line.
    pub operands: Signal<In, Bits<512>>,
    /// A commit's compare line, and the words it compares.
    pub cmp: Signal<In, Bits<512>>,
    pub cmask: Signal<In, Bits<LINE_WORDS>>,
    /// A single-word verb's word in the line.
    pub lane: Signal<In, Bits<3>>,
    /// Per lane, what goes there: the word op's result (`sel_op`), the
    /// write line's word (`sel_beat`), or the old word.
    pub sel_op: Signal<In, Bits<LINE_WORDS>>,
    pub sel_beat: Signal<In, Bits<LINE_WORDS>>,
    /// The single-word op (none of them: a masked fetch-and-add).
    pub is_cas: Signal<In, Bit>,
    pub is_fadd: Signal<In, Bit>,
    pub is_swap: Signal<In, Bit>,
    pub is_mcas: Signal<In, Bit>,
    /// A COMMIT or COMMIT_WORDS, and a COMMIT_WORDS.
    pub multi: Signal<In, Bit>,
    pub words: Signal<In, Bit>,
    /// A rollback: the line goes back to its undo entry.
    pub restore: Signal<In, Bit>,
    pub undo_line: Signal<In, Bits<512>>,
    /// A COMMIT_WORDS's operations: each one's word, and whether it is used.
    pub op_word: [Signal<In, Bits<3>>; WORD_OPS],
    pub op_used: [Signal<In, Bit>; WORD_OPS],

    pub new_line: Signal<Out, Bits<512>>,
    /// The commit's compared words that differ.
    pub differ: Signal<Out, Bits<LINE_WORDS>>,
    /// The compare failed: the verb writes nothing.
    pub failed: Signal<Out, Bit>,
    /// The old words the result returns: a single-word verb's word, a
    /// COMMIT_WORDS's word per operation (0 if unused), none for a COMMIT.
    pub olds: [Signal<Out, Bits<64>>; WORD_OPS],

    lane_old: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_sum: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_op: [Signal<Local, Bits<64>>; LINE_WORDS],
    lane_eq: [Signal<Local, Bit>; LINE_WORDS],
    lane_meq: [Signal<Local, Bit>; LINE_WORDS],
    lane_new: [Signal<Local, Bits<64>>; LINE_WORDS],
    op_old: [Signal<Local, Bits<64>>; WORD_OPS],
    old: Signal<Local, Bits<64>>,
    o0: Signal<Local, Bits<64>>,
    o1: Signal<Local, Bits<64>>,
    o2: Signal<Local, Bits<64>>,
    o3: Signal<Local, Bits<64>>,
    // A masked add's field tops (o1), or none for a plain add.
    add_mask: Signal<Local, Bits<64>>,
    eq: Signal<Local, Bit>,
    meq: Signal<Local, Bit>,
    differ_bits: Join<LINE_WORDS, 1, LINE_WORDS>,
    new_words: Join<LINE_WORDS, 64, 512>,
    c_zero64: Constant<Bits<64>>,
    c_zero8: Constant<Bits<LINE_WORDS>>,
}

impl LineExecute {
    pub fn new() -> Self {
        Self {
            old_line: Default::default(),
            operands: Default::default(),
            cmp: Default::default(),
            cmask: Default::default(),
            lane: Default::default(),
            sel_op: Default::default(),
            sel_beat: Default::default(),
            is_cas: Default::default(),
            is_fadd: Default::default(),
            is_swap: Default::default(),
            is_mcas: Default::default(),
            multi: Default::default(),
            words: Default::default(),
            restore: Default::default(),
            undo_line: Default::default(),
            op_word: Default::default(),
            op_used: Default::default(),
            new_line: Default::default(),
            differ: Default::default(),
            failed: Default::default(),
            olds: Default::default(),
            lane_old: Default::default(),
            lane_sum: Default::default(),
            lane_op: Default::default(),
            lane_eq: Default::default(),
            lane_meq: Default::default(),
            lane_new: Default::default(),
            op_old: Default::default(),
            old: Default::default(),
            o0: Default::default(),
            o1: Default::default(),
            o2: Default::default(),
            o3: Default::default(),
            add_mask: Default::default(),
            eq: Default::default(),
            meq: Default::default(),
            differ_bits: Default::default(),
            new_words: Default::default(),
            c_zero64: c(0),
            c_zero8: c(0),
        }
    }
}

impl Default for LineExecute {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for LineExecute {
    #[hdl_gen]
    fn update(&mut self) {
        self.old.next = self.c_zero64.val();
        for i in 0..LINE_WORDS {
            self.lane_old[i].next = self.old_line.val().get_bits::<64>(i * 64);
            if self.lane.val().index() == i {
                self.old.next = self.lane_old[i].val();
            }
            self.differ_bits.i[i].next = (self.cmask.val().get_bit(i)
                & (self.lane_old[i].val() != self.cmp.val().get_bits::<64>(i * 64)))
            .into();
        }
        self.differ.next = self.differ_bits.o.val();
        self.o0.next = self.operands.val().get_bits::<64>(64);
        self.o1.next = self.operands.val().get_bits::<64>(128);
        self.o2.next = self.operands.val().get_bits::<64>(192);
        self.o3.next = self.operands.val().get_bits::<64>(256);
        // Fields: clear their top bits so no carry leaves a field, then fix
        // the top bits up (pendulum_layout::atomic::masked_add); a plain
        // add is a masked add with no field tops.
        self.add_mask.next = self.o1.val();
        if self.is_fadd.val() {
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
            self.lane_op[i].next = self.lane_sum[i].val();
            if self.is_cas.val() {
                self.lane_op[i].next = self.o1.val();
            } else if self.is_swap.val() {
                self.lane_op[i].next = self.o0.val();
            } else if self.is_mcas.val() {
                self.lane_op[i].next =
                    (self.lane_old[i].val() & !self.o3.val()) | (self.o1.val() & self.o3.val());
            }
            if self.lane.val().index() == i {
                self.eq.next = self.lane_eq[i].val();
                self.meq.next = self.lane_meq[i].val();
            }
        }
        self.failed.next = false;
        if self.restore.val() {
            // A rollback compares nothing.
        } else if self.multi.val() {
            self.failed.next = self.differ_bits.o.val() != self.c_zero8.val();
        } else {
            self.failed.next =
                (self.is_cas.val() & !self.eq.val()) | (self.is_mcas.val() & !self.meq.val());
        }

        for j in 0..WORD_OPS {
            self.op_old[j].next = self.c_zero64.val();
            for i in 0..LINE_WORDS {
                if self.op_used[j].val() & (self.op_word[j].val().index() == i) {
                    self.op_old[j].next = self.lane_old[i].val();
                }
            }
            self.olds[j].next = self.c_zero64.val();
            if self.words.val() {
                self.olds[j].next = self.op_old[j].val();
            }
        }
        if !self.multi.val() {
            self.olds[0].next = self.old.val();
        }

        for i in 0..LINE_WORDS {
            self.lane_new[i].next = self.lane_old[i].val();
            if self.restore.val() {
                self.lane_new[i].next = self.undo_line.val().get_bits::<64>(i * 64);
            } else if self.sel_beat.val().get_bit(i) {
                self.lane_new[i].next = self.operands.val().get_bits::<64>(i * 64);
            } else if self.sel_op.val().get_bit(i) {
                self.lane_new[i].next = self.lane_op[i].val();
            }
            self.new_words.i[i].next = self.lane_new[i].val();
        }
        self.new_line.next = self.new_words.o.val();
    }
}
