use crate::stream::{StreamSource, ZeroExtend};
use crate::types::{DmaReadReq, TxRunInfo};
use pendulum_layout::params::{DMA_READ_MAX_BYTES, PIPES, PIPE_BITS, SLOT_BITS, TX_CPL_FIFO_DEPTH_LOG2};
use rust_hdl::prelude::*;

/// TX fetcher: reads what software posted on each TX pipe (from the NIC's
/// fetch position up to the tail software rang) with large DMA reads.
///
/// It serves one pipe at a time, from where it stopped up to the tail rung
/// when it started (a "run"); software rings only after whole frames, so a
/// run ends on a frame boundary and runs of different pipes never split a
/// frame. Requests are up to `DMA_READ_MAX_BYTES`, never cross the end of the
/// ring, and are issued only while the completion FIFO has room for all
/// their beats (credits), so completions never back up into the link.
/// Each request also leaves a `TxRunInfo` for the framer (`info_push`).
///
/// 1 request per cycle at most; latency 0 from a doorbell to a request.
#[derive(LogicBlock)]
pub struct TxFetcher {
    pub clock: Signal<In, Clock>,
    pub tx_base: [Signal<In, Bits<64>>; PIPES],
    pub tx_mask: [Signal<In, Bits<SLOT_BITS>>; PIPES],
    pub tx_enable: [Signal<In, Bit>; PIPES],
    pub tx_tail: [Signal<In, Bits<SLOT_BITS>>; PIPES],
    pub m_req: StreamSource<DmaReadReq>,
    /// One pulse per accepted request, with its run info (into the framer's FIFO).
    pub info_push: Signal<Out, Bit>,
    pub info: Signal<Out, TxRunInfo>,
    /// The framer's info FIFO has room (the credits already guarantee it).
    pub info_ready: Signal<In, Bit>,
    /// The framer consumed one completion beat: one credit back.
    pub beat_consumed: Signal<In, Bit>,

    fetched: [DFF<Bits<SLOT_BITS>>; PIPES],
    active: DFF<Bit>,
    cur: DFF<Bits<PIPE_BITS>>,
    run_tail: DFF<Bits<SLOT_BITS>>,
    visit: DFF<Bits<PIPE_BITS>>,
    // Beats requested and not yet consumed by the framer.
    credits_used: DFF<Bits<16>>,

    sel_base: Signal<Local, Bits<64>>,
    sel_mask: Signal<Local, Bits<SLOT_BITS>>,
    sel_fetched: Signal<Local, Bits<SLOT_BITS>>,
    sel_enable: Signal<Local, Bit>,
    pending: Signal<Local, Bits<SLOT_BITS>>,
    to_end: Signal<Local, Bits<SLOT_BITS>>,
    n: Signal<Local, Bits<SLOT_BITS>>,
    issue: Signal<Local, Bit>,
    fetched64: ZeroExtend<SLOT_BITS, 64>,
    pipe8: ZeroExtend<PIPE_BITS, 8>,
    one_pipe: Constant<Bits<PIPE_BITS>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    max_beats: Constant<Bits<16>>,
    credit_limit: Constant<Bits<16>>,
    beat_shift: Constant<Bits<16>>,
}

impl TxFetcher {
    pub fn new() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            tx_base: Default::default(),
            tx_mask: Default::default(),
            tx_enable: Default::default(),
            tx_tail: Default::default(),
            m_req: Default::default(),
            info_push: Default::default(),
            info: Default::default(),
            info_ready: Default::default(),
            beat_consumed: Default::default(),
            fetched: Default::default(),
            active: Default::default(),
            cur: Default::default(),
            run_tail: Default::default(),
            visit: Default::default(),
            credits_used: Default::default(),
            sel_base: Default::default(),
            sel_mask: Default::default(),
            sel_fetched: Default::default(),
            sel_enable: Default::default(),
            pending: Default::default(),
            to_end: Default::default(),
            n: Default::default(),
            issue: Default::default(),
            fetched64: Default::default(),
            pipe8: Default::default(),
            one_pipe: Constant::new(1u64.into()),
            one16: c16(1),
            zero16: c16(0),
            max_beats: c16((DMA_READ_MAX_BYTES as usize / pendulum_layout::BEAT_BYTES) as u64),
            credit_limit: c16(1 << TX_CPL_FIFO_DEPTH_LOG2),
            beat_shift: c16(pendulum_layout::BEAT_BYTES_LOG2 as u64),
        }
    }
}

impl Default for TxFetcher {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for TxFetcher {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, active, cur, run_tail, visit, credits_used);
        for i in 0..PIPES {
            self.fetched[i].clock.next = self.clock.val();
            self.fetched[i].d.next = self.fetched[i].q.val();
        }
        self.sel_base.next = self.tx_base[0].val();
        self.sel_mask.next = self.tx_mask[0].val();
        self.sel_fetched.next = self.fetched[0].q.val();
        self.sel_enable.next = self.tx_enable[0].val();
        for i in 0..PIPES {
            if self.cur.q.val().index() == i {
                self.sel_base.next = self.tx_base[i].val();
                self.sel_mask.next = self.tx_mask[i].val();
                self.sel_fetched.next = self.fetched[i].q.val();
                self.sel_enable.next = self.tx_enable[i].val();
            }
        }

        // Start a run on the pipe visited this cycle if it has posted data.
        if !self.active.q.val() {
            self.visit.d.next = self.visit.q.val() + self.one_pipe.val();
            for i in 0..PIPES {
                if (self.visit.q.val().index() == i)
                    & self.tx_enable[i].val()
                    & (self.tx_tail[i].val() != self.fetched[i].q.val())
                {
                    self.active.d.next = true;
                    self.cur.d.next = self.visit.q.val();
                    self.run_tail.d.next = self.tx_tail[i].val();
                }
            }
        }

        // Size of the next read: what is left of the run, at most one request,
        // and never past the end of the ring.
        self.pending.next = (self.run_tail.q.val() - self.sel_fetched.val()) & self.sel_mask.val();
        self.to_end.next = (self.sel_mask.val() - self.sel_fetched.val()) + self.one16.val();
        self.n.next = self.pending.val();
        if self.n.val() > self.max_beats.val() {
            self.n.next = self.max_beats.val();
        }
        if self.n.val() > self.to_end.val() {
            self.n.next = self.to_end.val();
        }
        self.fetched64.i.next = self.sel_fetched.val();
        self.pipe8.i.next = self.cur.q.val();
        self.m_req.data.next.addr = self.sel_base.val() + (self.fetched64.o.val() << 6);
        self.m_req.data.next.len = self.n.val() << self.beat_shift.val();
        self.m_req.data.next.tag = self.pipe8.o.val();
        self.m_req.valid.next = self.active.q.val()
            & self.info_ready.val()
            & self.sel_enable.val()
            & (self.n.val() != self.zero16.val())
            & ((self.credits_used.q.val() + self.n.val()) <= self.credit_limit.val());
        self.issue.next = self.m_req.valid.val() & self.m_req.ready.val();
        self.info.next.pipe = self.cur.q.val();
        self.info.next.run_tail = self.run_tail.q.val();
        self.info_push.next = self.issue.val();

        self.credits_used.d.next = self.credits_used.q.val();
        if self.issue.val() {
            self.credits_used.d.next = self.credits_used.q.val() + self.n.val();
            if self.beat_consumed.val() {
                self.credits_used.d.next = self.credits_used.q.val() + self.n.val() - self.one16.val();
            }
            for i in 0..PIPES {
                if self.cur.q.val().index() == i {
                    self.fetched[i].d.next = (self.sel_fetched.val() + self.n.val()) & self.sel_mask.val();
                }
            }
            if self.n.val() == self.pending.val() {
                self.active.d.next = false;
            }
        } else if self.beat_consumed.val() {
            self.credits_used.d.next = self.credits_used.q.val() - self.one16.val();
        }
        // A run on a pipe that was disabled, or that has nothing left, ends.
        if self.active.q.val() & (!self.sel_enable.val() | (self.pending.val() == self.zero16.val())) {
            self.active.d.next = false;
        }
        for i in 0..PIPES {
            if !self.tx_enable[i].val() {
                self.fetched[i].d.next = self.zero16.val();
            }
        }
    }
}
