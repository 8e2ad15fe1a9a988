use super::{AsyncStreamFifo, StreamSink, StreamSource};
use crate::reset::SDFF;
use crate::types::EthBeat;
use rust_hdl::prelude::*;

/// Dual-clock FIFO of `2^N` Ethernet beats that lets a frame out only once
/// its last beat is in: once `m.valid` rises for a frame's first beat it
/// stays high until that frame's last beat is taken. For a MAC that must not
/// see a gap inside a frame (CMAC: PG203, TX underflow corrupts the frame;
/// E-tile: valid held from start to end of packet) fed from a slower clock.
///
/// An [`AsyncStreamFifo`] carries the beats. Beside it the write side counts
/// frames completed (a beat with `last` written) and publishes the count in
/// Gray code, as the FIFO publishes its pointers: it changes by at most one
/// per `s_clock` cycle, so `frames_gray_meta`/`frames_gray_sync` see the old
/// count or the new one. The read side counts frames it has finished and
/// offers beats only while the two counts differ. The count is written on the
/// same `s_clock` edge as the FIFO's write pointer but crosses through its own
/// flip-flops, which may resolve one `m_clock` cycle earlier than the
/// pointer's; `frames_gray_seen`, one more register, waits that cycle out, so
/// every beat of a counted frame is visible when the count is.
///
/// Frames must be at most `2^N` beats: a longer one fills the FIFO before its
/// last beat is in and is never released (the tops check the core's largest
/// frame against `N`). `NP1` must be `N + 1`, `N >= 1`; checked in `new()`.
///
/// Latency: a frame's first beat is offered 3 to 4 `m_clock` cycles after its
/// last beat is written (plus the time to write the frame).
/// Throughput: 1 beat/cycle on each side, as [`AsyncStreamFifo`], once a
/// frame is complete.
#[derive(LogicBlock)]
pub struct AsyncFrameFifo<const N: usize, const NP1: usize> {
    /// Clock of the writing side.
    pub s_clock: Signal<In, Clock>,
    /// Synchronous reset on `s_clock`; hold it together with `m_reset` (their
    /// windows must overlap, in either order of release).
    pub s_reset: Signal<In, Bit>,
    /// Beats in, on `s_clock`; `ready` is low while (possibly) full.
    pub s: StreamSink<EthBeat>,
    /// Clock of the reading side.
    pub m_clock: Signal<In, Clock>,
    /// Synchronous reset on `m_clock` (see `s_reset`).
    pub m_reset: Signal<In, Bit>,
    /// Beats out, on `m_clock`, whole frames at a time.
    pub m: StreamSource<EthBeat>,
    fifo: AsyncStreamFifo<EthBeat, N, NP1>,
    // Write side (s_clock): frames completed.
    frames_bin: SDFF<Bits<NP1>>,
    frames_gray: SDFF<Bits<NP1>>,
    frames_next: Signal<Local, Bits<NP1>>,
    // Read side (m_clock): the write side's count, and frames finished here.
    frames_gray_meta: SDFF<Bits<NP1>>,
    frames_gray_sync: SDFF<Bits<NP1>>,
    frames_gray_seen: SDFF<Bits<NP1>>,
    done_bin: SDFF<Bits<NP1>>,
    done_gray: SDFF<Bits<NP1>>,
    done_next: Signal<Local, Bits<NP1>>,
    frame_ready: Signal<Local, Bit>,
    one: Constant<Bits<NP1>>,
}

impl<const N: usize, const NP1: usize> AsyncFrameFifo<N, NP1> {
    pub fn new() -> Self {
        assert!(N >= 1, "AsyncFrameFifo: N must be at least 1");
        assert_eq!(NP1, N + 1, "AsyncFrameFifo: NP1 must be N + 1");
        Self {
            s_clock: Default::default(),
            s_reset: Default::default(),
            s: Default::default(),
            m_clock: Default::default(),
            m_reset: Default::default(),
            m: Default::default(),
            fifo: AsyncStreamFifo::new(),
            frames_bin: Default::default(),
            frames_gray: Default::default(),
            frames_next: Default::default(),
            frames_gray_meta: Default::default(),
            frames_gray_sync: Default::default(),
            frames_gray_seen: Default::default(),
            done_bin: Default::default(),
            done_gray: Default::default(),
            done_next: Default::default(),
            frame_ready: Default::default(),
            one: Constant::new(1u64.into()),
        }
    }

    /// Beats the FIFO holds, so the largest frame it can pass.
    pub const DEPTH_BEATS: usize = 1 << N;
}

impl<const N: usize, const NP1: usize> Default for AsyncFrameFifo<N, NP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NP1: usize> Logic for AsyncFrameFifo<N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        self.fifo.s_clock.next = self.s_clock.val();
        self.fifo.s_reset.next = self.s_reset.val();
        self.fifo.m_clock.next = self.m_clock.val();
        self.fifo.m_reset.next = self.m_reset.val();

        // Write side.
        self.frames_bin.clock.next = self.s_clock.val();
        self.frames_bin.reset.next = self.s_reset.val();
        self.frames_gray.clock.next = self.s_clock.val();
        self.frames_gray.reset.next = self.s_reset.val();
        self.fifo.s.data.next = self.s.data.val();
        self.fifo.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.fifo.s.ready.val();
        self.frames_next.next = self.frames_bin.q.val();
        if self.s.valid.val() & self.fifo.s.ready.val() & self.s.data.val().last {
            self.frames_next.next = self.frames_bin.q.val() + self.one.val();
        }
        self.frames_bin.d.next = self.frames_next.val();
        self.frames_gray.d.next =
            self.frames_next.val() ^ (self.frames_next.val() >> self.one.val());

        // Read side.
        self.frames_gray_meta.clock.next = self.m_clock.val();
        self.frames_gray_meta.reset.next = self.m_reset.val();
        self.frames_gray_sync.clock.next = self.m_clock.val();
        self.frames_gray_sync.reset.next = self.m_reset.val();
        self.frames_gray_seen.clock.next = self.m_clock.val();
        self.frames_gray_seen.reset.next = self.m_reset.val();
        self.done_bin.clock.next = self.m_clock.val();
        self.done_bin.reset.next = self.m_reset.val();
        self.done_gray.clock.next = self.m_clock.val();
        self.done_gray.reset.next = self.m_reset.val();
        self.frames_gray_meta.d.next = self.frames_gray.q.val();
        self.frames_gray_sync.d.next = self.frames_gray_meta.q.val();
        self.frames_gray_seen.d.next = self.frames_gray_sync.q.val();
        // A frame not yet finished here is wholly in the FIFO: offer its beats.
        self.frame_ready.next = self.frames_gray_seen.q.val() != self.done_gray.q.val();
        self.m.data.next = self.fifo.m.data.val();
        self.m.valid.next = self.fifo.m.valid.val() & self.frame_ready.val();
        self.fifo.m.ready.next = self.m.ready.val() & self.frame_ready.val();
        self.done_next.next = self.done_bin.q.val();
        if self.fifo.m.valid.val()
            & self.frame_ready.val()
            & self.m.ready.val()
            & self.fifo.m.data.val().last
        {
            self.done_next.next = self.done_bin.q.val() + self.one.val();
        }
        self.done_bin.d.next = self.done_next.val();
        self.done_gray.d.next = self.done_next.val() ^ (self.done_next.val() >> self.one.val());
    }
}
