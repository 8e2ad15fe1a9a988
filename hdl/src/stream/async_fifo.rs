use super::{StreamSink, StreamSource};
use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// Dual-clock first-word-fall-through FIFO of `2^N` words: the only way a
/// stream crosses between unrelated clocks (the MAC's and the core's).
///
/// Each side counts in binary and publishes its pointer in Gray code from a
/// register, so at most one bit changes per clock and the other side, which
/// samples it through two flip-flops (`*_meta` then `*_sync`, named so the
/// constraint files can mark them `ASYNC_REG`), sees either the old or the
/// new pointer, never a mix. Full and empty are decided on Gray pointers with
/// one extra bit (Cummings, "Simulation and Synthesis Techniques for
/// Asynchronous FIFO Design", SNUG 2002): empty when equal, full when the two
/// top bits differ and the rest are equal. `NP1` must be `N + 1`, `N >= 1`;
/// checked in `new()`.
///
/// Latency: a word written on an `s_clock` edge is offered on `m` 2 to 3
/// `m_clock` cycles later (two synchronizer flops, plus up to one cycle of
/// phase). A word taken from `m` frees its slot for `s` 2 to 3 `s_clock`
/// cycles later, so `s.ready` is pessimistic, never optimistic.
/// Throughput: 1 word/cycle on each side while neither full nor empty; keep
/// `2^N` above the round trip (about 6 cycles of the slower clock) for full rate.
#[derive(LogicBlock)]
pub struct AsyncStreamFifo<T: Synth, const N: usize, const NP1: usize> {
    /// Clock of the writing side.
    pub s_clock: Signal<In, Clock>,
    /// Synchronous reset on `s_clock`; hold it together with `m_reset` (their
    /// windows must overlap, in either order of release).
    pub s_reset: Signal<In, Bit>,
    /// Words in, on `s_clock`; `ready` is low while (possibly) full.
    pub s: StreamSink<T>,
    /// Clock of the reading side.
    pub m_clock: Signal<In, Clock>,
    /// Synchronous reset on `m_clock` (see `s_reset`).
    pub m_reset: Signal<In, Bit>,
    /// Words out, oldest first, on `m_clock`.
    pub m: StreamSource<T>,
    ram: RAM<T, N>,
    // Write side (s_clock).
    wr_bin: SDFF<Bits<NP1>>,
    wr_gray: SDFF<Bits<NP1>>,
    rd_gray_meta: SDFF<Bits<NP1>>,
    rd_gray_sync: SDFF<Bits<NP1>>,
    wr_next: Signal<Local, Bits<NP1>>,
    push: Signal<Local, Bit>,
    // Read side (m_clock).
    rd_bin: SDFF<Bits<NP1>>,
    rd_gray: SDFF<Bits<NP1>>,
    wr_gray_meta: SDFF<Bits<NP1>>,
    wr_gray_sync: SDFF<Bits<NP1>>,
    rd_next: Signal<Local, Bits<NP1>>,
    pop: Signal<Local, Bit>,
    one: Constant<Bits<NP1>>,
    // The two top bits set: a Gray pointer exactly 2^N ahead differs in these.
    top_two: Constant<Bits<NP1>>,
}

impl<T: Synth, const N: usize, const NP1: usize> AsyncStreamFifo<T, N, NP1> {
    pub fn new() -> Self {
        assert!(N >= 1, "AsyncStreamFifo: N must be at least 1");
        assert_eq!(NP1, N + 1, "AsyncStreamFifo: NP1 must be N + 1");
        Self {
            s_clock: Default::default(),
            s_reset: Default::default(),
            s: Default::default(),
            m_clock: Default::default(),
            m_reset: Default::default(),
            m: Default::default(),
            ram: Default::default(),
            wr_bin: Default::default(),
            wr_gray: Default::default(),
            rd_gray_meta: Default::default(),
            rd_gray_sync: Default::default(),
            wr_next: Default::default(),
            push: Default::default(),
            rd_bin: Default::default(),
            rd_gray: Default::default(),
            wr_gray_meta: Default::default(),
            wr_gray_sync: Default::default(),
            rd_next: Default::default(),
            pop: Default::default(),
            one: Constant::new(1u64.into()),
            top_two: Constant::new((3u64 << (N - 1)).into()),
        }
    }
}

impl<T: Synth, const N: usize, const NP1: usize> Default for AsyncStreamFifo<T, N, NP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const N: usize, const NP1: usize> Logic for AsyncStreamFifo<T, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        // Write side.
        self.wr_bin.clock.next = self.s_clock.val();
        self.wr_bin.reset.next = self.s_reset.val();
        self.wr_gray.clock.next = self.s_clock.val();
        self.wr_gray.reset.next = self.s_reset.val();
        self.rd_gray_meta.clock.next = self.s_clock.val();
        self.rd_gray_meta.reset.next = self.s_reset.val();
        self.rd_gray_sync.clock.next = self.s_clock.val();
        self.rd_gray_sync.reset.next = self.s_reset.val();
        self.ram.write_clock.next = self.s_clock.val();
        self.rd_gray_meta.d.next = self.rd_gray.q.val();
        self.rd_gray_sync.d.next = self.rd_gray_meta.q.val();
        self.s.ready.next =
            self.wr_gray.q.val() != (self.rd_gray_sync.q.val() ^ self.top_two.val());
        self.push.next = self.s.valid.val()
            & (self.wr_gray.q.val() != (self.rd_gray_sync.q.val() ^ self.top_two.val()));
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wr_bin.q.val().get_bits::<N>(0);
        self.ram.write_data.next = self.s.data.val();
        self.wr_next.next = self.wr_bin.q.val();
        if self.push.val() {
            self.wr_next.next = self.wr_bin.q.val() + self.one.val();
        }
        self.wr_bin.d.next = self.wr_next.val();
        self.wr_gray.d.next = self.wr_next.val() ^ (self.wr_next.val() >> self.one.val());

        // Read side.
        self.rd_bin.clock.next = self.m_clock.val();
        self.rd_bin.reset.next = self.m_reset.val();
        self.rd_gray.clock.next = self.m_clock.val();
        self.rd_gray.reset.next = self.m_reset.val();
        self.wr_gray_meta.clock.next = self.m_clock.val();
        self.wr_gray_meta.reset.next = self.m_reset.val();
        self.wr_gray_sync.clock.next = self.m_clock.val();
        self.wr_gray_sync.reset.next = self.m_reset.val();
        self.ram.read_clock.next = self.m_clock.val();
        self.wr_gray_meta.d.next = self.wr_gray.q.val();
        self.wr_gray_sync.d.next = self.wr_gray_meta.q.val();
        self.m.valid.next = self.rd_gray.q.val() != self.wr_gray_sync.q.val();
        self.pop.next = self.m.ready.val() & (self.rd_gray.q.val() != self.wr_gray_sync.q.val());
        self.rd_next.next = self.rd_bin.q.val();
        if self.pop.val() {
            self.rd_next.next = self.rd_bin.q.val() + self.one.val();
        }
        self.rd_bin.d.next = self.rd_next.val();
        self.rd_gray.d.next = self.rd_next.val() ^ (self.rd_next.val() >> self.one.val());
        // The RAM read is registered: address the word that will be at the head next cycle.
        // The synchronized write pointer lags the RAM write by two flops, so the word is there.
        self.ram.read_address.next = self.rd_next.val().get_bits::<N>(0);
        self.m.data.next = self.ram.read_data.val();
    }
}
