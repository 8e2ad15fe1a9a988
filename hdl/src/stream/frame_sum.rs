use super::ZeroExtend;
use crate::konst as k;
use crate::reset::SDFF;
use crate::word_sum::WordSum;
use rust_hdl::prelude::*;

/// Frame sum: the sum of a frame's bytes from byte 12 on (past the MAC
/// addresses) as 16-bit little-endian words (byte 2k low, 2k + 1 high;
/// bytes outside `keep` count 0), carries not folded, for the RX path's
/// TCP/UDP checksum check (`enso::RxL4Check`). A ones'-complement sum of
/// byte-swapped words is the byte swap of the sum, so the check can work
/// in either order.
///
/// Beats come in as they go into the store-and-forward FIFO (`take`, with
/// `first` and `last`); the frame's sum is on `sum` while `done` is high,
/// 3 cycles after its last beat went in. Stage 1 registers each beat's 32
/// words, masked (the input comes from a port, and a mask and an adder
/// tree behind it would be as deep as a stage may be), stage 2 sums them
/// four at a time, stage 3 sums those four at a time, and the running sum
/// adds the beat's two halves. A frame is at most `MAX_FRAME_BYTES` (under
/// 2^14 words), so 32 bits never overflow.
#[derive(LogicBlock)]
pub struct FrameSum {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// A beat's bytes and which of them are the frame's.
    pub data: Signal<In, Bits<512>>,
    pub keep: Signal<In, Bits<64>>,
    pub take: Signal<In, Bit>,
    pub first: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub done: Signal<Out, Bit>,
    pub sum: Signal<Out, Bits<32>>,

    w: [Signal<Local, Bits<16>>; 32],
    // ---- Stage 1: the masked words ----
    s0_w: [SDFF<Bits<16>>; 32],
    s0_take: SDFF<Bit>,
    s0_last: SDFF<Bit>,
    // ---- Stage 2: eight sums of four words ----
    // (Named, not an array: hdl_gen cannot index an array port of a child
    // in an array.)
    q0: WordSum<4, 16, 18>,
    q1: WordSum<4, 16, 18>,
    q2: WordSum<4, 16, 18>,
    q3: WordSum<4, 16, 18>,
    q4: WordSum<4, 16, 18>,
    q5: WordSum<4, 16, 18>,
    q6: WordSum<4, 16, 18>,
    q7: WordSum<4, 16, 18>,
    s1_part: [SDFF<Bits<18>>; 8],
    s1_take: SDFF<Bit>,
    s1_last: SDFF<Bit>,
    // ---- Stage 3: two sums of four ----
    h0: WordSum<4, 18, 20>,
    h1: WordSum<4, 18, 20>,
    s2_half: [SDFF<Bits<20>>; 2],
    s2_take: SDFF<Bit>,
    s2_last: SDFF<Bit>,
    // ---- The running sum of the frame's beats before this one ----
    acc: SDFF<Bits<32>>,
    e0: ZeroExtend<20, 32>,
    e1: ZeroExtend<20, 32>,
    low_byte: Constant<Bits<16>>,
    high_byte: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
}

impl FrameSum {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            take: Default::default(),
            first: Default::default(),
            last: Default::default(),
            done: Default::default(),
            sum: Default::default(),
            w: Default::default(),
            s0_w: Default::default(),
            s0_take: Default::default(),
            s0_last: Default::default(),
            q0: Default::default(),
            q1: Default::default(),
            q2: Default::default(),
            q3: Default::default(),
            q4: Default::default(),
            q5: Default::default(),
            q6: Default::default(),
            q7: Default::default(),
            s1_part: Default::default(),
            s1_take: Default::default(),
            s1_last: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            s2_half: Default::default(),
            s2_take: Default::default(),
            s2_last: Default::default(),
            acc: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            low_byte: k(0x00FF),
            high_byte: k(0xFF00),
            zero16: k(0),
            zero32: k(0),
        }
    }
}

impl Default for FrameSum {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for FrameSum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s0_take, s0_last, s1_take, s1_last, s2_take, s2_last, acc);
        self.s0_take.reset.next = self.reset.val();
        self.s0_last.reset.next = self.reset.val();
        for j in 0..32 {
            self.s0_w[j].clock.next = self.clock.val();
            self.s0_w[j].reset.next = self.reset.val();
            self.s0_w[j].d.next = self.s0_w[j].q.val();
        }
        self.s1_take.reset.next = self.reset.val();
        self.s1_last.reset.next = self.reset.val();
        self.s2_take.reset.next = self.reset.val();
        self.s2_last.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        for g in 0..8 {
            self.s1_part[g].clock.next = self.clock.val();
            self.s1_part[g].reset.next = self.reset.val();
            self.s1_part[g].d.next = self.s1_part[g].q.val();
        }
        for g in 0..2 {
            self.s2_half[g].clock.next = self.clock.val();
            self.s2_half[g].reset.next = self.reset.val();
            self.s2_half[g].d.next = self.s2_half[g].q.val();
        }

        // ---- Stage 1: the words, masked by keep (and the MAC addresses) ----
        for j in 0..32 {
            self.w[j].next = self.data.val().get_bits::<16>(16 * j);
            if !self.keep.val().get_bit(2 * j) {
                self.w[j].next = self.w[j].val() & self.high_byte.val();
            }
            if !self.keep.val().get_bit(2 * j + 1) {
                self.w[j].next = self.w[j].val() & self.low_byte.val();
            }
        }
        for j in 0..6 {
            if self.first.val() {
                self.w[j].next = self.zero16.val();
            }
        }
        self.s0_take.d.next = self.take.val();
        self.s0_last.d.next = self.take.val() & self.last.val();
        if self.take.val() {
            for j in 0..32 {
                self.s0_w[j].d.next = self.w[j].val();
            }
        }

        // ---- Stage 2 ----
        for j in 0..4 {
            self.q0.i[j].next = self.s0_w[j].q.val();
            self.q1.i[j].next = self.s0_w[4 + j].q.val();
            self.q2.i[j].next = self.s0_w[8 + j].q.val();
            self.q3.i[j].next = self.s0_w[12 + j].q.val();
            self.q4.i[j].next = self.s0_w[16 + j].q.val();
            self.q5.i[j].next = self.s0_w[20 + j].q.val();
            self.q6.i[j].next = self.s0_w[24 + j].q.val();
            self.q7.i[j].next = self.s0_w[28 + j].q.val();
        }
        self.s1_take.d.next = self.s0_take.q.val();
        self.s1_last.d.next = self.s0_last.q.val();
        if self.s0_take.q.val() {
            self.s1_part[0].d.next = self.q0.o.val();
            self.s1_part[1].d.next = self.q1.o.val();
            self.s1_part[2].d.next = self.q2.o.val();
            self.s1_part[3].d.next = self.q3.o.val();
            self.s1_part[4].d.next = self.q4.o.val();
            self.s1_part[5].d.next = self.q5.o.val();
            self.s1_part[6].d.next = self.q6.o.val();
            self.s1_part[7].d.next = self.q7.o.val();
        }

        // ---- Stage 3 ----
        for j in 0..4 {
            self.h0.i[j].next = self.s1_part[j].q.val();
            self.h1.i[j].next = self.s1_part[4 + j].q.val();
        }
        self.s2_take.d.next = self.s1_take.q.val();
        self.s2_last.d.next = self.s1_last.q.val();
        if self.s1_take.q.val() {
            self.s2_half[0].d.next = self.h0.o.val();
            self.s2_half[1].d.next = self.h1.o.val();
        }

        // ---- The frame so far, with this beat ----
        self.e0.i.next = self.s2_half[0].q.val();
        self.e1.i.next = self.s2_half[1].q.val();
        self.sum.next = self.acc.q.val() + self.e0.o.val() + self.e1.o.val();
        if self.s2_take.q.val() {
            self.acc.d.next = self.sum.val();
            if self.s2_last.q.val() {
                self.acc.d.next = self.zero32.val();
            }
        }
        self.done.next = self.s2_last.q.val();
    }
}
