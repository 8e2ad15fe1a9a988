use crate::konst as k;
use crate::reset::{zero_ram, Clear, SDFF};
use crate::stream::{StreamFifo, StreamSource, ZeroExtend};
use crate::types::{DmaReadReq, TxReadInfo};
use pendulum_layout::params::{
    DMA_BOUNDARY_BYTES, DMA_READ_MAX_BYTES, SLOT_BITS, TX_CPL_FIFO_DEPTH_LOG2, TX_PIPES,
    TX_PIPE_BITS,
};
use rust_hdl::prelude::*;

/// TX fetcher: reads what software posted on each TX pipe (from the NIC's
/// fetch position up to the tail software rang) with large DMA reads.
///
/// Pipes are served in the order software rang them: a doorbell
/// (`doorbell`, from `TxRegs`) queues its pipe unless it is queued already
/// (a FIFO of pipe numbers, each pipe in it at most once), so 64 pipes cost
/// no scan and no pipe waits behind more than one run of each other pipe.
/// A pipe taken from the queue has its ring read from `TxRegs`' fetcher
/// copy (`fe_addr`, one cycle) and its fetch position from this block's RAM
/// (`fetched`, the one copy of it), and its run starts if it is on and
/// has posted data.
///
/// It serves one pipe at a time, from where it stopped up to the tail rung
/// when it started (a "run"); software rings only after whole frames, so a
/// run ends on a frame boundary and runs of different pipes never split a
/// frame. Requests are up to `DMA_READ_MAX_BYTES`, never cross the end of the
/// ring nor a 4 KiB boundary of their host address (`DMA_BOUNDARY_BYTES`,
/// which PCIe and AXI forbid a request to cross; the ring base need only be
/// 64-byte aligned, so a ring's pages may start anywhere in it), and are
/// issued only while the completion FIFO has room for all their beats
/// (credits), so completions never back up into the link. Each request
/// also leaves a `TxReadInfo` for the ring unpacker (`info_push`).
///
/// A request is as long as it may be: min(run left, to the ring's end, to
/// the next 4 KiB boundary, `DMA_READ_MAX_BYTES`). A full request never
/// crosses a boundary that it does not start on (boundaries are a whole
/// number of full requests apart), so a run costs one extra request per
/// boundary it crosses at most.
///
/// For timing, the slots left in the run, the slots to the ring's end, the
/// slots to the next 4 KiB boundary, the smallest of them, "room for a full
/// request" and the credits coming back are kept in registers, and requests
/// leave from an output register: no path runs from the fetch position
/// through the request arithmetic to the port, and the next request's size
/// is one LUT from registers.
///
/// A pipe switched on or off (`restart`, taken a cycle late) has its fetch
/// position set to 0, and a run on it ends.
///
/// 1 request per cycle at most. From a doorbell (`TxRegs`' apply cycle) to
/// its first request on `m_req`, with the fetcher idle and the queue empty:
/// 6 cycles (doorbell register, ring read, start, the run's lines, the
/// first request's size, output register; such a doorbell passes the
/// queue). The next pipe is taken as a run's last request is made, so three
/// idle cycles (the ring read, the run's lines, the sizing) separate
/// one run's last request from the next run's first, as with 4 pipes in
/// flip-flops; the fetch position written in that cycle is forwarded to the
/// read.
#[derive(LogicBlock)]
pub struct TxFetcher {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep: every fetch position is set to 0.
    pub clear: Clear<TX_PIPE_BITS>,
    /// Software rang pipe `doorbell_pipe` (from `TxRegs`).
    pub doorbell: Signal<In, Bit>,
    pub doorbell_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    /// Pipe `restart_pipe` was switched on or off (from `TxRegs`).
    pub restart: Signal<In, Bit>,
    pub restart_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    /// Each TX pipe's on bit.
    pub tx_enable: Signal<In, Bits<TX_PIPES>>,
    /// `TxRegs`' fetcher port: pipe `fe_addr`'s ring, a cycle later.
    pub fe_addr: Signal<Out, Bits<TX_PIPE_BITS>>,
    pub fe_base: Signal<In, Bits<64>>,
    pub fe_mask: Signal<In, Bits<SLOT_BITS>>,
    pub fe_tail: Signal<In, Bits<SLOT_BITS>>,
    pub m_req: StreamSource<DmaReadReq>,
    /// One pulse per request formed, with its run info (into the framer's FIFO).
    pub info_push: Signal<Out, Bit>,
    pub info: Signal<Out, TxReadInfo>,
    /// The framer's info FIFO has room. The credits already guarantee it
    /// (a read holds a line at least, and no more lines than the FIFOs hold
    /// are ever out), so it is taken a cycle late (`info_ok`), off the path
    /// from the FIFO's pointers to the request logic.
    pub info_ready: Signal<In, Bit>,
    /// The framer consumed one completion beat: one credit back.
    pub beat_consumed: Signal<In, Bit>,

    // Each pipe's fetch position: the unit after its last run (the tail
    // that run went to).
    fetched: RAM<Bits<SLOT_BITS>, TX_PIPE_BITS>,
    // The pipes rung and not yet taken, in order; a bit per pipe in it.
    rung: StreamFifo<Bits<TX_PIPE_BITS>, TX_PIPE_BITS, { TX_PIPE_BITS + 1 }>,
    queued: SDFF<Bits<TX_PIPES>>,
    db_r: SDFF<Bit>,
    db_pipe_r: SDFF<Bits<TX_PIPE_BITS>>,
    rs_r: SDFF<Bit>,
    rs_pipe_r: SDFF<Bits<TX_PIPE_BITS>>,
    push: Signal<Local, Bit>,
    // A push last cycle (the queue shows it a cycle later).
    pushed: SDFF<Bit>,
    db_new: Signal<Local, Bit>,
    can_take: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    bypass: Signal<Local, Bit>,
    take_pipe: Signal<Local, Bits<TX_PIPE_BITS>>,
    last_load: Signal<Local, Bit>,
    // The fetch positions' last write, for a read made in its cycle.
    fw_v: SDFF<Bit>,
    fw_pipe: SDFF<Bits<TX_PIPE_BITS>>,
    fw_value: SDFF<Bits<SLOT_BITS>>,
    db_bit: Signal<Local, Bits<TX_PIPES>>,
    take_bit: Signal<Local, Bits<TX_PIPES>>,
    // A pipe taken from the queue whose ring is being read.
    lk_v: SDFF<Bit>,
    lk_pipe: SDFF<Bits<TX_PIPE_BITS>>,
    lk_go: Signal<Local, Bit>,
    active: SDFF<Bit>,
    cur: SDFF<Bits<TX_PIPE_BITS>>,
    // The run's ring (its size in units and in lines, minus one) and the
    // next line to read.
    cur_base: SDFF<Bits<64>>,
    cur_mask: SDFF<Bits<SLOT_BITS>>,
    cur_lmask: SDFF<Bits<SLOT_BITS>>,
    cur_fetched: SDFF<Bits<SLOT_BITS>>,
    // The run in units: where it starts, how long it is, where it ends
    // (the tail rung), and whether its first read is still to be made.
    run_unit: SDFF<Bits<SLOT_BITS>>,
    run_units: SDFF<Bits<SLOT_BITS>>,
    run_tail: SDFF<Bits<SLOT_BITS>>,
    first: SDFF<Bit>,
    // Lines of the run not yet requested, and lines from the next one to
    // the end of the ring (the run's lines: from the one holding its first
    // unit to the one holding its last).
    left: SDFF<Bits<SLOT_BITS>>,
    to_end: SDFF<Bits<SLOT_BITS>>,
    // Slots from the fetch position to the next 4 KiB boundary of its
    // address (1 to a page), and from the ring's slot 0 to its first one
    // (where the fetch position lands when it wraps).
    to_page: SDFF<Bits<SLOT_BITS>>,
    page_first: SDFF<Bits<SLOT_BITS>>,
    // min(left, to_end); min(left, to_end, to_page), the next request's size
    // unless it is a full one; whether it is a full request or more; and
    // whether those hold for this run yet (not in the cycle it starts).
    span: SDFF<Bits<SLOT_BITS>>,
    reach: SDFF<Bits<SLOT_BITS>>,
    // (Whether it is a full request: each of the three compared with the
    // largest request into its own register, ANDed where it is used, so the
    // compares end at a register and the AND joins the size mux's LUT.)
    big_left: SDFF<Bit>,
    big_end: SDFF<Bit>,
    big_page: SDFF<Bit>,
    big: Signal<Local, Bit>,
    sized: SDFF<Bit>,
    // Beats requested and not yet consumed by the framer, and whether a
    // request of the largest size still fits (decided a cycle ahead).
    credits_used: SDFF<Bits<16>>,
    room: SDFF<Bit>,
    info_ok: SDFF<Bit>,
    // `beat_consumed`, a cycle late: it comes out of the framer's accept
    // logic, and a credit returned late only holds requests back.
    consumed: SDFF<Bit>,
    out_valid: SDFF<Bit>,
    out_addr: SDFF<Bits<64>>,
    out_len: SDFF<Bits<16>>,
    out_tag: SDFF<Bits<8>>,

    lk_fetched: Signal<Local, Bits<SLOT_BITS>>,
    // The run's size, worked out a cycle after it starts (`prepped`).
    prepped: SDFF<Bit>,
    pr_units: Signal<Local, Bits<SLOT_BITS>>,
    pr_line: Signal<Local, Bits<SLOT_BITS>>,
    pr_extra: Signal<Local, Bits<SLOT_BITS>>,
    three: Constant<Bits<SLOT_BITS>>,
    n: Signal<Local, Bits<SLOT_BITS>>,
    left_after: Signal<Local, Bits<SLOT_BITS>>,
    span_after: Signal<Local, Bits<SLOT_BITS>>,
    load: Signal<Local, Bit>,
    used_next: Signal<Local, Bits<16>>,
    fetched64: ZeroExtend<SLOT_BITS, 64>,
    pipe8: ZeroExtend<TX_PIPE_BITS, 8>,
    one_bit: Constant<Bits<TX_PIPES>>,
    no_bits: Constant<Bits<TX_PIPES>>,
    one16: Constant<Bits<16>>,
    // The largest request in lines, and 1 and 0, as wide as a ring position.
    max_lines: Constant<Bits<SLOT_BITS>>,
    one_pos: Constant<Bits<SLOT_BITS>>,
    zero_pos: Constant<Bits<SLOT_BITS>>,
    room_limit: Constant<Bits<16>>,
    beat_shift: Constant<Bits<16>>,
    // Slots in a 4 KiB page, and that minus one (the slot within a page).
    page_slots: Constant<Bits<SLOT_BITS>>,
    page_mask: Constant<Bits<SLOT_BITS>>,
}

impl TxFetcher {
    pub fn new() -> Self {
        let max_beats = (DMA_READ_MAX_BYTES as usize / pendulum_layout::BEAT_BYTES) as u64;
        let page_slots = (DMA_BOUNDARY_BYTES as usize / pendulum_layout::BEAT_BYTES) as u64;
        // A full request fits between two boundaries a whole number of times,
        // so only a request that starts off that grid is ever cut short.
        assert_eq!(page_slots % max_beats, 0);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            doorbell: Default::default(),
            doorbell_pipe: Default::default(),
            restart: Default::default(),
            restart_pipe: Default::default(),
            tx_enable: Default::default(),
            fe_addr: Default::default(),
            fe_base: Default::default(),
            fe_mask: Default::default(),
            fe_tail: Default::default(),
            prepped: Default::default(),
            pr_units: Default::default(),
            pr_line: Default::default(),
            pr_extra: Default::default(),
            three: k(3),
            cur_lmask: Default::default(),
            run_unit: Default::default(),
            run_units: Default::default(),
            run_tail: Default::default(),
            first: Default::default(),
            m_req: Default::default(),
            info_push: Default::default(),
            info: Default::default(),
            info_ready: Default::default(),
            beat_consumed: Default::default(),
            // Fetch positions start at 0, also on a board.
            fetched: zero_ram(),
            rung: StreamFifo::new(),
            queued: Default::default(),
            db_r: Default::default(),
            db_pipe_r: Default::default(),
            rs_r: Default::default(),
            rs_pipe_r: Default::default(),
            push: Default::default(),
            pushed: Default::default(),
            db_new: Default::default(),
            can_take: Default::default(),
            take: Default::default(),
            bypass: Default::default(),
            take_pipe: Default::default(),
            last_load: Default::default(),
            fw_v: Default::default(),
            fw_pipe: Default::default(),
            fw_value: Default::default(),
            db_bit: Default::default(),
            take_bit: Default::default(),
            lk_v: Default::default(),
            lk_pipe: Default::default(),
            lk_go: Default::default(),
            active: Default::default(),
            cur: Default::default(),
            cur_base: Default::default(),
            cur_mask: Default::default(),
            cur_fetched: Default::default(),
            left: Default::default(),
            to_end: Default::default(),
            to_page: Default::default(),
            page_first: Default::default(),
            span: Default::default(),
            reach: Default::default(),
            big_left: Default::default(),
            big_end: Default::default(),
            big_page: Default::default(),
            big: Default::default(),
            sized: Default::default(),
            credits_used: Default::default(),
            room: Default::default(),
            info_ok: Default::default(),
            consumed: Default::default(),
            out_valid: Default::default(),
            out_addr: Default::default(),
            out_len: Default::default(),
            out_tag: Default::default(),
            lk_fetched: Default::default(),
            n: Default::default(),
            left_after: Default::default(),
            span_after: Default::default(),
            load: Default::default(),
            used_next: Default::default(),
            fetched64: Default::default(),
            pipe8: Default::default(),
            one_bit: Constant::new(1u64.into()),
            no_bits: Constant::new(0u64.into()),
            one16: k(1),
            max_lines: k(max_beats),
            one_pos: k(1),
            zero_pos: k(0),
            // A full-size request fits while at most (capacity - max) beats are out.
            room_limit: k((1u64 << TX_CPL_FIFO_DEPTH_LOG2) - max_beats),
            beat_shift: k(pendulum_layout::BEAT_BYTES_LOG2 as u64),
            page_slots: k(page_slots),
            page_mask: k(page_slots - 1),
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
        dff_setup!(
            self,
            clock,
            queued,
            pushed,
            fw_v,
            fw_pipe,
            fw_value,
            db_r,
            db_pipe_r,
            rs_r,
            rs_pipe_r,
            lk_v,
            lk_pipe,
            active,
            cur,
            cur_base,
            cur_mask,
            cur_lmask,
            cur_fetched,
            run_unit,
            run_units,
            run_tail,
            first,
            left,
            to_end,
            to_page,
            page_first,
            span,
            reach,
            big_left,
            big_end,
            big_page,
            sized,
            prepped,
            credits_used,
            room,
            info_ok,
            consumed,
            out_valid,
            out_addr,
            out_len,
            out_tag
        );
        self.queued.reset.next = self.reset.val();
        self.pushed.reset.next = self.reset.val();
        self.fw_v.reset.next = self.reset.val();
        self.fw_pipe.reset.next = self.reset.val();
        self.fw_value.reset.next = self.reset.val();
        self.db_r.reset.next = self.reset.val();
        self.db_pipe_r.reset.next = self.reset.val();
        self.rs_r.reset.next = self.reset.val();
        self.rs_pipe_r.reset.next = self.reset.val();
        self.lk_v.reset.next = self.reset.val();
        self.lk_pipe.reset.next = self.reset.val();
        self.active.reset.next = self.reset.val();
        self.cur.reset.next = self.reset.val();
        self.cur_base.reset.next = self.reset.val();
        self.cur_mask.reset.next = self.reset.val();
        self.cur_lmask.reset.next = self.reset.val();
        self.run_unit.reset.next = self.reset.val();
        self.run_units.reset.next = self.reset.val();
        self.run_tail.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.cur_fetched.reset.next = self.reset.val();
        self.left.reset.next = self.reset.val();
        self.to_end.reset.next = self.reset.val();
        self.to_page.reset.next = self.reset.val();
        self.page_first.reset.next = self.reset.val();
        self.span.reset.next = self.reset.val();
        self.reach.reset.next = self.reset.val();
        self.big_left.reset.next = self.reset.val();
        self.big_end.reset.next = self.reset.val();
        self.big_page.reset.next = self.reset.val();
        self.sized.reset.next = self.reset.val();
        self.prepped.reset.next = self.reset.val();
        self.credits_used.reset.next = self.reset.val();
        self.room.reset.next = self.reset.val();
        self.info_ok.reset.next = self.reset.val();
        self.info_ok.d.next = self.info_ready.val();
        self.consumed.reset.next = self.reset.val();
        self.out_valid.reset.next = self.reset.val();
        self.out_addr.reset.next = self.reset.val();
        self.out_len.reset.next = self.reset.val();
        self.out_tag.reset.next = self.reset.val();
        self.fetched.read_clock.next = self.clock.val();
        self.fetched.write_clock.next = self.clock.val();
        self.rung.clock.next = self.clock.val();
        self.rung.reset.next = self.reset.val();

        // ---- A run's start: the taken pipe's ring and fetch position ----
        // (The pipe is taken below, once this cycle's request is known.)
        // The fetch position as read, or as written in the cycle of the read.
        self.lk_fetched.next = self.fetched.read_data.val();
        if self.fw_v.q.val() & (self.fw_pipe.q.val() == self.lk_pipe.q.val()) {
            self.lk_fetched.next = self.fw_value.q.val();
        }
        // It starts if the pipe is on (and was not switched as it was read)
        // and has posted data.
        self.lk_go.next = self.lk_v.q.val()
            & self.tx_enable.val().get_bit(self.lk_pipe.q.val().index())
            & !(self.rs_r.q.val() & (self.rs_pipe_r.q.val() == self.lk_pipe.q.val()))
            & (self.fe_tail.val() != self.lk_fetched.val());
        if self.lk_go.val() {
            self.active.d.next = true;
            self.prepped.d.next = false;
            self.sized.d.next = false;
            self.first.d.next = true;
            self.cur.d.next = self.lk_pipe.q.val();
            self.cur_base.d.next = self.fe_base.val();
            self.cur_mask.d.next = self.fe_mask.val();
            self.cur_lmask.d.next = self.fe_mask.val() >> 2;
            self.run_unit.d.next = self.lk_fetched.val();
            self.run_tail.d.next = self.fe_tail.val();
        }
        // In the cycle after a run starts, from registers (the fetch
        // position comes from a RAM read): the run in units, and the lines
        // that hold it: from the line of its first unit, ceil((first unit
        // mod 4 + units) / 4) of them (summed in two parts so that a run of
        // a whole 1 MiB ring does not wrap).
        self.pr_units.next =
            (self.run_tail.q.val() - self.run_unit.q.val()) & self.cur_mask.q.val();
        self.pr_line.next = self.run_unit.q.val() >> 2;
        self.pr_extra.next = ((self.run_unit.q.val() & self.three.val())
            + (self.pr_units.val() & self.three.val())
            + self.three.val())
            >> 2;
        if self.active.q.val() & !self.prepped.q.val() {
            self.prepped.d.next = true;
            self.cur_fetched.d.next = self.pr_line.val();
            self.run_units.d.next = self.pr_units.val();
            self.left.d.next = (self.pr_units.val() >> 2) + self.pr_extra.val();
            self.to_end.d.next = (self.cur_lmask.q.val() - self.pr_line.val()) + self.one_pos.val();
            // Address bits 11..6 are the line within a page; bits 5..0 of
            // the base are 0 (64-byte aligned).
            self.to_page.d.next = self.page_slots.val()
                - ((self.cur_base.q.val().get_bits::<SLOT_BITS>(6) + self.pr_line.val())
                    & self.page_mask.val());
            self.page_first.d.next = self.page_slots.val()
                - (self.cur_base.q.val().get_bits::<SLOT_BITS>(6) & self.page_mask.val());
        }

        // In the cycle after that, the span and reach of its first read
        // (the three compares side by side, then one mux).
        if self.active.q.val() & self.prepped.q.val() & !self.sized.q.val() {
            self.sized.d.next = true;
            self.span.d.next = self.left.q.val();
            self.reach.d.next = self.left.q.val();
            if self.to_end.q.val() < self.left.q.val() {
                self.span.d.next = self.to_end.q.val();
                self.reach.d.next = self.to_end.q.val();
            }
            if (self.to_page.q.val() < self.left.q.val())
                & (self.to_page.q.val() < self.to_end.q.val())
            {
                self.reach.d.next = self.to_page.q.val();
            }
        }
        // Size of the next read: what is left of the run, at most one request,
        // and never past the end of the ring or a 4 KiB boundary.
        self.n.next = self.reach.q.val();
        self.big.next = self.big_left.q.val() & self.big_end.q.val() & self.big_page.q.val();
        if self.big.val() {
            self.n.next = self.max_lines.val();
        }
        // (No request in the cycle a switch is taken: the switch has the
        // fetch positions' write port.)
        self.load.next = self.active.q.val()
            & self.sized.q.val()
            & !self.rs_r.q.val()
            & self.room.q.val()
            & self.info_ok.q.val()
            & (!self.out_valid.q.val() | self.m_req.ready.val());
        self.last_load.next = self.load.val() & (self.n.val() == self.left.q.val());

        // ---- The queue of rung pipes, and the pipe taken next ----
        // Doorbells and switches are taken a cycle late, from registers.
        self.db_r.d.next = self.doorbell.val();
        self.db_pipe_r.d.next = self.doorbell_pipe.val();
        self.rs_r.d.next = self.restart.val();
        self.rs_pipe_r.d.next = self.restart_pipe.val();
        self.db_bit.next = self.one_bit.val() << self.db_pipe_r.q.val();
        self.db_new.next =
            self.db_r.q.val() & !self.queued.q.val().get_bit(self.db_pipe_r.q.val().index());
        // A pipe is taken when nothing is between the queue and a run (the
        // cycle after a run's last request: taking it in that request's
        // cycle put the run-end compare, the take and the RAM's read
        // address in one cycle, 9 levels in the core): the queue's head, or
        // with the queue empty (nothing in it, nothing pushed last cycle,
        // which it shows a cycle late) a doorbell that just came, past the
        // queue.
        self.can_take.next = !self.lk_v.q.val() & !self.active.q.val();
        self.take.next = self.rung.m.valid.val() & self.can_take.val();
        self.bypass.next = self.db_new.val()
            & !self.rung.m.valid.val()
            & !self.pushed.q.val()
            & self.can_take.val();
        self.take_pipe.next = self.rung.m.data.val();
        if self.bypass.val() {
            self.take_pipe.next = self.db_pipe_r.q.val();
        }
        // (The queue holds each pipe once at most: it is never full.)
        self.push.next = self.db_new.val() & !self.bypass.val() & self.rung.s.ready.val();
        self.pushed.d.next = self.push.val();
        self.rung.s.valid.next = self.push.val();
        self.rung.s.data.next = self.db_pipe_r.q.val();
        self.rung.m.ready.next = self.take.val();
        self.take_bit.next = self.no_bits.val();
        if self.take.val() {
            self.take_bit.next = self.one_bit.val() << self.rung.m.data.val();
        }
        self.queued.d.next = self.queued.q.val() & !self.take_bit.val();
        if self.push.val() {
            self.queued.d.next = (self.queued.q.val() & !self.take_bit.val()) | self.db_bit.val();
        }
        self.fe_addr.next = self.take_pipe.val();
        self.fetched.read_address.next = self.take_pipe.val();
        self.lk_v.d.next = self.take.val() | self.bypass.val();
        self.lk_pipe.d.next = self.take_pipe.val();

        // The output register.
        self.m_req.valid.next = self.out_valid.q.val();
        self.m_req.data.next.addr = self.out_addr.q.val();
        self.m_req.data.next.len = self.out_len.q.val();
        self.m_req.data.next.tag = self.out_tag.q.val();
        if self.m_req.ready.val() {
            self.out_valid.d.next = false;
        }
        self.fetched64.i.next = self.cur_fetched.q.val();
        self.pipe8.i.next = self.cur.q.val();
        self.info.next.pipe = self.cur.q.val();
        self.info.next.run_start = self.first.q.val();
        self.info.next.unit = self.run_unit.q.val();
        self.info.next.run_units = self.run_units.q.val();
        self.info.next.run_end = self.last_load.val();
        self.info.next.mask = self.cur_mask.q.val();
        self.info_push.next = self.load.val();

        self.used_next.next = self.credits_used.q.val();
        self.left_after.next = self.left.q.val() - self.n.val();
        self.span_after.next = self.span.q.val() - self.n.val();
        // The pipe's next run starts at this one's tail, written as its last
        // read is made.
        self.fetched.write_enable.next = self.last_load.val();
        self.fetched.write_address.next = self.cur.q.val();
        self.fetched.write_data.next = self.run_tail.q.val();
        if self.load.val() {
            self.out_valid.d.next = true;
            self.out_addr.d.next = self.cur_base.q.val() + (self.fetched64.o.val() << 6);
            self.out_len.d.next = self.n.val().get_bits::<16>(0) << self.beat_shift.val();
            self.out_tag.d.next = self.pipe8.o.val();
            self.used_next.next = self.credits_used.q.val() + self.n.val().get_bits::<16>(0);
            self.first.d.next = false;
            self.cur_fetched.d.next =
                (self.cur_fetched.q.val() + self.n.val()) & self.cur_lmask.q.val();
            self.left.d.next = self.left_after.val();
            self.to_end.d.next = self.to_end.q.val() - self.n.val();
            self.to_page.d.next = self.to_page.q.val() - self.n.val();
            self.span.d.next = self.span_after.val();
            self.reach.d.next = self.reach.q.val() - self.n.val();
            if self.n.val() == self.to_page.q.val() {
                // At a 4 KiB boundary: a whole page is ahead.
                self.to_page.d.next = self.page_slots.val();
                self.reach.d.next = self.span_after.val();
                if self.span_after.val() > self.page_slots.val() {
                    self.reach.d.next = self.page_slots.val();
                }
            }
            if self.n.val() == self.to_end.q.val() {
                // Wrapped to slot 0: the whole ring is ahead, so only the
                // run's end and the ring's first boundary limit the reach.
                self.to_end.d.next = self.cur_lmask.q.val() + self.one_pos.val();
                self.to_page.d.next = self.page_first.q.val();
                self.span.d.next = self.left_after.val();
                self.reach.d.next = self.left_after.val();
                if self.page_first.q.val() < self.left_after.val() {
                    self.reach.d.next = self.page_first.q.val();
                }
            }
            if self.n.val() == self.left.q.val() {
                self.active.d.next = false;
            }
        }
        self.consumed.d.next = self.beat_consumed.val();
        if self.consumed.q.val() {
            self.credits_used.d.next = self.used_next.val() - self.one16.val();
        } else {
            self.credits_used.d.next = self.used_next.val();
        }
        self.room.d.next = self.credits_used.d.val() <= self.room_limit.val();
        // min(left, to_end, to_page) >= max, from the three side by side.
        self.big_left.d.next = self.left.d.val() >= self.max_lines.val();
        self.big_end.d.next = self.to_end.d.val() >= self.max_lines.val();
        self.big_page.d.next = self.to_page.d.val() >= self.max_lines.val();
        // A switched pipe starts over at slot 0, and a run on it ends.
        if self.rs_r.q.val() {
            self.fetched.write_enable.next = true;
            self.fetched.write_address.next = self.rs_pipe_r.q.val();
            self.fetched.write_data.next = self.zero_pos.val();
            if self.active.q.val() & (self.rs_pipe_r.q.val() == self.cur.q.val()) {
                self.active.d.next = false;
            }
        }
        if self.clear.active.val() {
            self.fetched.write_enable.next = true;
            self.fetched.write_address.next = self.clear.addr.val();
            self.fetched.write_data.next = self.zero_pos.val();
        }
        // The write the RAM's read in this cycle misses, for the next.
        self.fw_v.d.next = self.fetched.write_enable.val();
        self.fw_pipe.d.next = self.fetched.write_address.val();
        self.fw_value.d.next = self.fetched.write_data.val();
    }
}
