use super::StreamSource;
use crate::reset::SDFF;
use crate::types::EthBeat;
use rust_hdl::prelude::*;

/// Dual-clock FIFO of `2^N` Ethernet beats for a writer that cannot be held
/// back (a MAC's RX): it keeps or drops whole frames. A frame is committed
/// when its last beat is written; a frame one of whose beats finds no room is
/// dropped whole (the write pointer goes back to the frame's start and the
/// rest of its beats, up to and including its last, are ignored) and counted.
/// The reader sees only frames that went in intact, never a truncated or a
/// merged one. A frame that starts while the FIFO is full is dropped whole.
///
/// The write side keeps two pointers: `wr_bin`, where the next beat goes,
/// and `start_bin`, the start of the frame being written (the end of the
/// committed frames). Room is decided on `wr_bin` against the reader's
/// pointer, published in Gray code and sampled through two flip-flops
/// (`rd_gray_meta`/`rd_gray_sync`), as in [`super::AsyncStreamFifo`]. The
/// committed pointer jumps by a whole frame, so it is not published as a
/// pointer (a Gray code is safe only one step at a time); instead, as in
/// [`super::AsyncFrameFifo`], the writer counts committed frames (at most one
/// per `s_clock` cycle) and publishes the count in Gray code
/// (`frames_gray_meta`/`frames_gray_sync`). The reader offers beats while it
/// has finished fewer frames than that count: the beats from its pointer up
/// to the next `last` are a committed frame, so what lies past them (a
/// frame being written, or a dropped frame's beats, later overwritten) is
/// never offered. The beats of a counted frame were written on the same
/// `s_clock` edge as the count or before, so the two synchronizer flops
/// already cover the registered RAM read.
///
/// Dropped frames are counted on `s_clock` in 32 bits (wrapping), one at most
/// per cycle, so the count too crosses in Gray code
/// (`drops_gray_meta`/`drops_gray_sync`): the reader sees the old or the new
/// count, never a mix, converts it back to binary and registers it on
/// `m_drops`. A pulse or handshake synchronizer would lose or have to queue
/// drops closer together than its round trip; a Gray counter cannot.
///
/// Frames must be at most `2^N` beats; a longer one never fits and is always
/// dropped (the tops check the core's largest frame against `N`). `NP1` must
/// be `N + 1`, `N >= 1`; checked in `new()`.
///
/// Latency: a frame's first beat is offered 2 to 3 `m_clock` cycles after its
/// last beat is written (plus the time to write the frame); `m_drops` counts
/// a drop 3 to 4 `m_clock` cycles after the beat that found no room.
/// Throughput: the writer is never stalled (1 beat/cycle); the reader takes
/// 1 beat/cycle while committed frames wait, across frame boundaries too.
#[derive(LogicBlock)]
pub struct AsyncFrameDropFifo<const N: usize, const NP1: usize> {
    /// Clock of the writing side.
    pub s_clock: Signal<In, Clock>,
    /// Synchronous reset on `s_clock`; hold it together with `m_reset` (their
    /// windows must overlap, in either order of release).
    pub s_reset: Signal<In, Bit>,
    /// Beats in, on `s_clock`. No ready: every valid beat is taken, kept or
    /// dropped with its frame.
    pub s_data: Signal<In, EthBeat>,
    pub s_valid: Signal<In, Bit>,
    /// Clock of the reading side.
    pub m_clock: Signal<In, Clock>,
    /// Synchronous reset on `m_clock` (see `s_reset`).
    pub m_reset: Signal<In, Bit>,
    /// Whole frames out, oldest first, on `m_clock`.
    pub m: StreamSource<EthBeat>,
    /// Frames dropped since power-up (wraps at 2^32), on `m_clock`.
    pub m_drops: Signal<Out, Bits<32>>,
    ram: RAM<EthBeat, N>,
    // Write side (s_clock).
    wr_bin: SDFF<Bits<NP1>>,
    wr_gray: SDFF<Bits<NP1>>,
    start_bin: SDFF<Bits<NP1>>,
    // The rest of a dropped frame is being ignored.
    dropping: SDFF<Bit>,
    rd_gray_meta: SDFF<Bits<NP1>>,
    rd_gray_sync: SDFF<Bits<NP1>>,
    frames_bin: SDFF<Bits<NP1>>,
    frames_gray: SDFF<Bits<NP1>>,
    drops_bin: SDFF<Bits<32>>,
    drops_gray: SDFF<Bits<32>>,
    room: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    drop_now: Signal<Local, Bit>,
    wr_next: Signal<Local, Bits<NP1>>,
    frames_next: Signal<Local, Bits<NP1>>,
    drops_next: Signal<Local, Bits<32>>,
    // Read side (m_clock).
    rd_bin: SDFF<Bits<NP1>>,
    rd_gray: SDFF<Bits<NP1>>,
    frames_gray_meta: SDFF<Bits<NP1>>,
    frames_gray_sync: SDFF<Bits<NP1>>,
    done_bin: SDFF<Bits<NP1>>,
    done_gray: SDFF<Bits<NP1>>,
    drops_gray_meta: SDFF<Bits<32>>,
    drops_gray_sync: SDFF<Bits<32>>,
    drops_out: SDFF<Bits<32>>,
    frame_ready: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    rd_next: Signal<Local, Bits<NP1>>,
    done_next: Signal<Local, Bits<NP1>>,
    // Gray to binary, by prefix XOR in five steps (bit i = XOR of bits 31..i).
    drops_x1: Signal<Local, Bits<32>>,
    drops_x2: Signal<Local, Bits<32>>,
    drops_x4: Signal<Local, Bits<32>>,
    drops_x8: Signal<Local, Bits<32>>,
    one: Constant<Bits<NP1>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    four32: Constant<Bits<32>>,
    eight32: Constant<Bits<32>>,
    sixteen32: Constant<Bits<32>>,
    // The two top bits set: a Gray pointer exactly 2^N ahead differs in these.
    top_two: Constant<Bits<NP1>>,
}

impl<const N: usize, const NP1: usize> AsyncFrameDropFifo<N, NP1> {
    pub fn new() -> Self {
        assert!(N >= 1, "AsyncFrameDropFifo: N must be at least 1");
        assert_eq!(NP1, N + 1, "AsyncFrameDropFifo: NP1 must be N + 1");
        Self {
            s_clock: Default::default(),
            s_reset: Default::default(),
            s_data: Default::default(),
            s_valid: Default::default(),
            m_clock: Default::default(),
            m_reset: Default::default(),
            m: Default::default(),
            m_drops: Default::default(),
            ram: Default::default(),
            wr_bin: Default::default(),
            wr_gray: Default::default(),
            start_bin: Default::default(),
            dropping: Default::default(),
            rd_gray_meta: Default::default(),
            rd_gray_sync: Default::default(),
            frames_bin: Default::default(),
            frames_gray: Default::default(),
            drops_bin: Default::default(),
            drops_gray: Default::default(),
            room: Default::default(),
            push: Default::default(),
            drop_now: Default::default(),
            wr_next: Default::default(),
            frames_next: Default::default(),
            drops_next: Default::default(),
            rd_bin: Default::default(),
            rd_gray: Default::default(),
            frames_gray_meta: Default::default(),
            frames_gray_sync: Default::default(),
            done_bin: Default::default(),
            done_gray: Default::default(),
            drops_gray_meta: Default::default(),
            drops_gray_sync: Default::default(),
            drops_out: Default::default(),
            frame_ready: Default::default(),
            pop: Default::default(),
            rd_next: Default::default(),
            done_next: Default::default(),
            drops_x1: Default::default(),
            drops_x2: Default::default(),
            drops_x4: Default::default(),
            drops_x8: Default::default(),
            one: Constant::new(1u64.into()),
            one32: Constant::new(1u64.into()),
            two32: Constant::new(2u64.into()),
            four32: Constant::new(4u64.into()),
            eight32: Constant::new(8u64.into()),
            sixteen32: Constant::new(16u64.into()),
            top_two: Constant::new((3u64 << (N - 1)).into()),
        }
    }

    /// Beats the FIFO holds, so the largest frame it can pass.
    pub const DEPTH_BEATS: usize = 1 << N;
}

impl<const N: usize, const NP1: usize> Default for AsyncFrameDropFifo<N, NP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NP1: usize> Logic for AsyncFrameDropFifo<N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        // Write side.
        self.wr_bin.clock.next = self.s_clock.val();
        self.wr_bin.reset.next = self.s_reset.val();
        self.wr_gray.clock.next = self.s_clock.val();
        self.wr_gray.reset.next = self.s_reset.val();
        self.start_bin.clock.next = self.s_clock.val();
        self.start_bin.reset.next = self.s_reset.val();
        self.dropping.clock.next = self.s_clock.val();
        self.dropping.reset.next = self.s_reset.val();
        self.rd_gray_meta.clock.next = self.s_clock.val();
        self.rd_gray_meta.reset.next = self.s_reset.val();
        self.rd_gray_sync.clock.next = self.s_clock.val();
        self.rd_gray_sync.reset.next = self.s_reset.val();
        self.frames_bin.clock.next = self.s_clock.val();
        self.frames_bin.reset.next = self.s_reset.val();
        self.frames_gray.clock.next = self.s_clock.val();
        self.frames_gray.reset.next = self.s_reset.val();
        self.drops_bin.clock.next = self.s_clock.val();
        self.drops_bin.reset.next = self.s_reset.val();
        self.drops_gray.clock.next = self.s_clock.val();
        self.drops_gray.reset.next = self.s_reset.val();
        self.ram.write_clock.next = self.s_clock.val();
        self.rd_gray_meta.d.next = self.rd_gray.q.val();
        self.rd_gray_sync.d.next = self.rd_gray_meta.q.val();
        self.room.next = self.wr_gray.q.val() != (self.rd_gray_sync.q.val() ^ self.top_two.val());
        self.push.next = self.s_valid.val() & !self.dropping.q.val() & self.room.val();
        // The first beat of this frame to find no room drops the frame.
        self.drop_now.next = self.s_valid.val() & !self.dropping.q.val() & !self.room.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wr_bin.q.val().get_bits::<N>(0);
        self.ram.write_data.next = self.s_data.val();
        self.wr_next.next = self.wr_bin.q.val();
        self.frames_next.next = self.frames_bin.q.val();
        self.drops_next.next = self.drops_bin.q.val();
        self.start_bin.d.next = self.start_bin.q.val();
        self.dropping.d.next = self.dropping.q.val();
        if self.push.val() {
            self.wr_next.next = self.wr_bin.q.val() + self.one.val();
            if self.s_data.val().last {
                self.start_bin.d.next = self.wr_bin.q.val() + self.one.val();
                self.frames_next.next = self.frames_bin.q.val() + self.one.val();
            }
        }
        if self.drop_now.val() {
            self.wr_next.next = self.start_bin.q.val();
            self.drops_next.next = self.drops_bin.q.val() + self.one32.val();
            self.dropping.d.next = !self.s_data.val().last;
        }
        if self.s_valid.val() & self.dropping.q.val() & self.s_data.val().last {
            self.dropping.d.next = false;
        }
        self.wr_bin.d.next = self.wr_next.val();
        self.wr_gray.d.next = self.wr_next.val() ^ (self.wr_next.val() >> self.one.val());
        self.frames_bin.d.next = self.frames_next.val();
        self.frames_gray.d.next =
            self.frames_next.val() ^ (self.frames_next.val() >> self.one.val());
        self.drops_bin.d.next = self.drops_next.val();
        self.drops_gray.d.next =
            self.drops_next.val() ^ (self.drops_next.val() >> self.one32.val());

        // Read side.
        self.rd_bin.clock.next = self.m_clock.val();
        self.rd_bin.reset.next = self.m_reset.val();
        self.rd_gray.clock.next = self.m_clock.val();
        self.rd_gray.reset.next = self.m_reset.val();
        self.frames_gray_meta.clock.next = self.m_clock.val();
        self.frames_gray_meta.reset.next = self.m_reset.val();
        self.frames_gray_sync.clock.next = self.m_clock.val();
        self.frames_gray_sync.reset.next = self.m_reset.val();
        self.done_bin.clock.next = self.m_clock.val();
        self.done_bin.reset.next = self.m_reset.val();
        self.done_gray.clock.next = self.m_clock.val();
        self.done_gray.reset.next = self.m_reset.val();
        self.drops_gray_meta.clock.next = self.m_clock.val();
        self.drops_gray_meta.reset.next = self.m_reset.val();
        self.drops_gray_sync.clock.next = self.m_clock.val();
        self.drops_gray_sync.reset.next = self.m_reset.val();
        self.drops_out.clock.next = self.m_clock.val();
        self.drops_out.reset.next = self.m_reset.val();
        self.ram.read_clock.next = self.m_clock.val();
        self.frames_gray_meta.d.next = self.frames_gray.q.val();
        self.frames_gray_sync.d.next = self.frames_gray_meta.q.val();
        // A frame counted but not finished here is wholly in the RAM.
        self.frame_ready.next = self.frames_gray_sync.q.val() != self.done_gray.q.val();
        self.m.valid.next = self.frame_ready.val();
        self.pop.next = self.m.ready.val() & self.frame_ready.val();
        self.rd_next.next = self.rd_bin.q.val();
        self.done_next.next = self.done_bin.q.val();
        if self.pop.val() {
            self.rd_next.next = self.rd_bin.q.val() + self.one.val();
            if self.ram.read_data.val().last {
                self.done_next.next = self.done_bin.q.val() + self.one.val();
            }
        }
        self.rd_bin.d.next = self.rd_next.val();
        self.rd_gray.d.next = self.rd_next.val() ^ (self.rd_next.val() >> self.one.val());
        self.done_bin.d.next = self.done_next.val();
        self.done_gray.d.next = self.done_next.val() ^ (self.done_next.val() >> self.one.val());
        // The RAM read is registered: address the beat that will be at the head next cycle.
        self.ram.read_address.next = self.rd_next.val().get_bits::<N>(0);
        self.m.data.next = self.ram.read_data.val();

        // The drop count, back to binary.
        self.drops_gray_meta.d.next = self.drops_gray.q.val();
        self.drops_gray_sync.d.next = self.drops_gray_meta.q.val();
        self.drops_x1.next =
            self.drops_gray_sync.q.val() ^ (self.drops_gray_sync.q.val() >> self.one32.val());
        self.drops_x2.next = self.drops_x1.val() ^ (self.drops_x1.val() >> self.two32.val());
        self.drops_x4.next = self.drops_x2.val() ^ (self.drops_x2.val() >> self.four32.val());
        self.drops_x8.next = self.drops_x4.val() ^ (self.drops_x4.val() >> self.eight32.val());
        self.drops_out.d.next = self.drops_x8.val() ^ (self.drops_x8.val() >> self.sixteen32.val());
        self.m_drops.next = self.drops_out.q.val();
    }
}
