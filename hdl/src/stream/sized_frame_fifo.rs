use super::{FrameSum, StreamFifo, StreamSink, StreamSource};
use crate::reset::SDFF;
use crate::types::{EthBeat, FrameTag, SizedBeat};
use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::BEAT_BYTES;
use rust_hdl::prelude::*;

/// The most beats a frame of the MTU takes.
const MAX_BEATS: u64 = MAX_FRAME_BYTES.div_ceil(BEAT_BYTES as u32) as u64;

/// Store-and-forward FIFO of `2^N` Ethernet beats that hands out each frame
/// with its length in bytes on every beat: a frame's beats leave only once
/// its last beat is in, so its length is known at its first. (The v2 ring
/// format, `pendulum_layout::ring`, writes the length in a header in front
/// of the frame, so the RX engine needs it before the frame's first byte.)
///
/// Beats go into one `StreamFifo`, each frame's length into another, a
/// cycle after its last beat (counting the last beat's bytes takes that
/// cycle); the output offers beats while a length waits, so only whole
/// frames leave. `2^N` must hold a frame of the MTU (checked in `new()`), so
/// the writer never waits for a frame that cannot end. A frame over the
/// MTU is cut at the MTU's beat count, handed out with length 0, and the
/// rest of its beats are taken and dropped: a bad frame never blocks the
/// ones behind it. Each frame also carries `stamp`: the value of `now` in
/// the cycle its first beat went in (the RX timestamp,
/// `pendulum_layout::ring::TIMESTAMP`), and `sum`, the sum of its bytes
/// (`FrameSum`, for the TCP/UDP checksum check).
///
/// Latency: a frame's first beat leaves 6 cycles after its last beat went
/// in (length count and the sum's three stages, then the length FIFO's
/// write and registered read); 1 beat/cycle in and out. `s.ready` is low only
/// while the FIFO is full.
#[derive(LogicBlock)]
pub struct SizedFrameFifo<const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<EthBeat>,
    pub m: StreamSource<SizedBeat>,
    /// The time to stamp a first beat with (the free-running cycle counter).
    pub now: Signal<In, Bits<64>>,
    beats: StreamFifo<EthBeat, N, NP1>,
    lens: StreamFifo<FrameTag, N, NP1>,
    // The stamp of the frame being written, from its first beat.
    w_stamp: SDFF<Bits<64>>,
    cur_stamp: Signal<Local, Bits<64>>,
    p_stamp: SDFF<Bits<64>>,
    // Beats of the frame being written so far; the rest of an over-long
    // frame is being dropped.
    w_beats: SDFF<Bits<16>>,
    w_drop: SDFF<Bit>,
    // A frame's last beat went in last cycle: its beats, last keep, and
    // whether it was cut short.
    p_valid: SDFF<Bit>,
    p_beats: SDFF<Bits<16>>,
    p_keep: SDFF<Bits<64>>,
    p_cut: SDFF<Bit>,
    cut_here: Signal<Local, Bit>,
    // The frame's sum, and its tag two cycles after the length count, when
    // the sum is done.
    frame_sum: FrameSum,
    q_valid: SDFF<Bit>,
    q_len: SDFF<Bits<16>>,
    q_stamp: SDFF<Bits<64>>,
    r_valid: SDFF<Bit>,
    r_len: SDFF<Bits<16>>,
    r_stamp: SDFF<Bits<64>>,
    push: Signal<Local, Bit>,
    tail_bytes: Signal<Local, Bits<16>>,
    byte_count: [Constant<Bits<16>>; 64],
    max_beats: Constant<Bits<16>>,
    one: Constant<Bits<16>>,
    zero: Constant<Bits<16>>,
}

impl<const N: usize, const NP1: usize> SizedFrameFifo<N, NP1> {
    pub fn new() -> Self {
        assert_eq!(NP1, N + 1, "SizedFrameFifo: NP1 must be N + 1");
        assert!(
            (1u64 << N) >= MAX_BEATS,
            "SizedFrameFifo: 2^{N} beats cannot hold a frame of the MTU ({MAX_BEATS} beats)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            now: Default::default(),
            beats: StreamFifo::new(),
            lens: StreamFifo::new(),
            w_stamp: Default::default(),
            cur_stamp: Default::default(),
            p_stamp: Default::default(),
            w_beats: Default::default(),
            w_drop: Default::default(),
            p_valid: Default::default(),
            p_beats: Default::default(),
            p_keep: Default::default(),
            p_cut: Default::default(),
            cut_here: Default::default(),
            frame_sum: FrameSum::new(),
            q_valid: Default::default(),
            q_len: Default::default(),
            q_stamp: Default::default(),
            r_valid: Default::default(),
            r_len: Default::default(),
            r_stamp: Default::default(),
            push: Default::default(),
            tail_bytes: Default::default(),
            byte_count: std::array::from_fn(|k| Constant::new(((k + 1) as u64).into())),
            max_beats: Constant::new(MAX_BEATS.into()),
            one: Constant::new(1u64.into()),
            zero: Constant::new(0u64.into()),
        }
    }
}

impl<const N: usize, const NP1: usize> Default for SizedFrameFifo<N, NP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NP1: usize> Logic for SizedFrameFifo<N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_stamp, p_stamp, w_beats, w_drop, p_valid, p_beats, p_keep, p_cut,
            q_valid, q_len, q_stamp, r_valid, r_len, r_stamp
        );
        self.r_valid.reset.next = self.reset.val();
        self.r_len.reset.next = self.reset.val();
        self.r_stamp.reset.next = self.reset.val();
        self.q_valid.reset.next = self.reset.val();
        self.q_len.reset.next = self.reset.val();
        self.q_stamp.reset.next = self.reset.val();
        self.frame_sum.clock.next = self.clock.val();
        self.frame_sum.reset.next = self.reset.val();
        self.w_stamp.reset.next = self.reset.val();
        self.p_stamp.reset.next = self.reset.val();
        self.w_beats.reset.next = self.reset.val();
        self.w_drop.reset.next = self.reset.val();
        self.p_valid.reset.next = self.reset.val();
        self.p_beats.reset.next = self.reset.val();
        self.p_keep.reset.next = self.reset.val();
        self.p_cut.reset.next = self.reset.val();
        self.beats.clock.next = self.clock.val();
        self.beats.reset.next = self.reset.val();
        self.lens.clock.next = self.clock.val();
        self.lens.reset.next = self.reset.val();

        // ---- In: beats to the beat FIFO; the rest of a cut frame dropped ----
        self.cut_here.next = (self.w_beats.q.val() + self.one.val()) == self.max_beats.val();
        self.beats.s.data.next = self.s.data.val();
        if self.cut_here.val() {
            self.beats.s.data.next.last = true;
        }
        self.beats.s.valid.next =
            self.s.valid.val() & self.lens.s.ready.val() & !self.w_drop.q.val();
        // (The length FIFO is never full, as below; its ready is honoured all
        // the same.)
        self.s.ready.next =
            (self.beats.s.ready.val() & self.lens.s.ready.val()) | self.w_drop.q.val();
        self.push.next = self.s.valid.val()
            & self.beats.s.ready.val()
            & self.lens.s.ready.val()
            & !self.w_drop.q.val();
        self.p_valid.d.next = false;
        self.cur_stamp.next = self.w_stamp.q.val();
        if self.w_beats.q.val() == self.zero.val() {
            self.cur_stamp.next = self.now.val();
        }
        if self.push.val() {
            self.w_stamp.d.next = self.cur_stamp.val();
            self.p_stamp.d.next = self.cur_stamp.val();
            self.w_beats.d.next = self.w_beats.q.val() + self.one.val();
            if self.s.data.val().last | self.cut_here.val() {
                self.w_beats.d.next = self.zero.val();
                self.p_valid.d.next = true;
                self.p_beats.d.next = self.w_beats.q.val() + self.one.val();
                self.p_keep.d.next = self.s.data.val().keep;
                self.p_cut.d.next = !self.s.data.val().last;
                self.w_drop.d.next = !self.s.data.val().last;
            }
        }
        self.frame_sum.data.next = self.s.data.val().data;
        self.frame_sum.keep.next = self.s.data.val().keep;
        self.frame_sum.take.next = self.push.val();
        self.frame_sum.first.next = self.w_beats.q.val() == self.zero.val();
        self.frame_sum.last.next = self.s.data.val().last | self.cut_here.val();
        if self.w_drop.q.val() & self.s.valid.val() & self.s.data.val().last {
            self.w_drop.d.next = false;
        }

        // ---- The frame's length, a cycle after its last beat ----
        // (keep is contiguous from byte 0: the last beat's bytes are one
        // more than its highest set bit.)
        self.tail_bytes.next = self.zero.val();
        for k in 0..64 {
            if self.p_keep.q.val().get_bit(k) {
                self.tail_bytes.next = self.byte_count[k].val();
            }
        }
        self.q_valid.d.next = self.p_valid.q.val();
        self.q_len.d.next = ((self.p_beats.q.val() - self.one.val()) << 6) + self.tail_bytes.val();
        if self.p_cut.q.val() {
            self.q_len.d.next = self.zero.val();
        }
        self.q_stamp.d.next = self.p_stamp.q.val();
        self.r_valid.d.next = self.q_valid.q.val();
        self.r_len.d.next = self.q_len.q.val();
        self.r_stamp.d.next = self.q_stamp.q.val();
        self.lens.s.data.next.len = self.r_len.q.val();
        self.lens.s.data.next.stamp = self.r_stamp.q.val();
        self.lens.s.data.next.sum = self.frame_sum.sum.val();
        // (Never full: it holds no more lengths than the beat FIFO frames.
        // The frame's sum is done in the same cycle as its tag: `done` and
        // `r_valid` are one signal by their latencies.)
        self.lens.s.valid.next = self.r_valid.q.val() & self.frame_sum.done.val();

        // ---- Out: whole frames, each beat with its frame's length ----
        self.m.valid.next = self.beats.m.valid.val() & self.lens.m.valid.val();
        self.m.data.next.data = self.beats.m.data.val().data;
        self.m.data.next.keep = self.beats.m.data.val().keep;
        self.m.data.next.last = self.beats.m.data.val().last;
        self.m.data.next.len = self.lens.m.data.val().len;
        self.m.data.next.stamp = self.lens.m.data.val().stamp;
        self.m.data.next.sum = self.lens.m.data.val().sum;
        self.beats.m.ready.next = self.m.ready.val() & self.lens.m.valid.val();
        self.lens.m.ready.next =
            self.m.ready.val() & self.beats.m.valid.val() & self.beats.m.data.val().last;
    }
}
