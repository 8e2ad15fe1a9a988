use crate::stream::{Concat, StreamFifo, StreamSource, ZeroExtend};
use crate::types::DmaWrite;
use pendulum_layout::params::{PIPES, PIPE_BITS, SLOT_BITS, TX_PIPES, TX_PIPE_BITS};
use rust_hdl::prelude::*;

/// Notification writer: tells software a pipe's new tail by writing a 16-byte
/// record (`pendulum_layout::notif`) into the pipe's notification buffer.
///
/// Reactive (Ensō): at most one notification outstanding per pipe; the pipe is
/// re-armed when software writes its head (or asks for a prefetch). Everything
/// that arrives meanwhile is covered by the next notification, which carries
/// the latest tail. With `per_packet` set it notifies whenever the tail moved
/// (the baseline).
///
/// Generic over the number of pipes it serves (`P = 2^PB`; `PB1 = PB + 1`
/// sizes its queues, as stable Rust cannot add const generics):
/// [`RxNotifWriter`] for every RX pipe, [`TxComplWriter`] for the TX pipes'
/// completion records, so the TX side carries no state for RX-only pipes.
///
/// Event-driven, so its cost does not grow with the number of pipes: the
/// datapath reports each tail move (`moved`), the register file each re-arm
/// and each switch on or off (`rearm`, `restart`). A pipe that then needs a
/// record joins one of two queues (moved while armed, or re-armed with
/// something unannounced), at most once; the queues are popped one pipe per
/// cycle. Each pipe's latest tail and sequence number live in block RAM, and
/// four bits of flags per pipe in registers (armed, tail moved since the last
/// record, queued, no record since the restart).
///
/// Latency: a move is announced 4 cycles after it is reported (input
/// register 1, queue 2, RAM read 1), then the record waits on `m_dma.ready`. A record is formed only
/// after the move it carries was reported, i.e. after the frame's last ring
/// write was accepted, and the host port keeps writes in order, so data is in
/// memory before the notification that covers it. Ring writes pass a register
/// stage (a skid buffer) before they meet notifications at the DMA arbiter, so
/// a record also waits until the beats that stage held when the record was
/// formed (`ahead`, at most 2) have left it (`ahead_drain`).
/// The RX notification writer: one record stream for every RX pipe.
pub type RxNotifWriter = NotifWriter<PIPES, PIPE_BITS, { PIPE_BITS + 1 }>;
/// The TX completion writer: one completion record stream per TX pipe.
pub type TxComplWriter = NotifWriter<TX_PIPES, TX_PIPE_BITS, { TX_PIPE_BITS + 1 }>;

#[derive(LogicBlock)]
pub struct NotifWriter<const P: usize, const PB: usize, const PB1: usize> {
    pub clock: Signal<In, Clock>,
    /// A pipe's tail moved to `moved_tail` (RX: a frame was published; TX:
    /// the head passed what was sent). One move per cycle at most.
    pub moved: Signal<In, Bit>,
    pub moved_pipe: Signal<In, Bits<PB>>,
    pub moved_tail: Signal<In, Bits<SLOT_BITS>>,
    /// Software re-armed a pipe's notification (a head write or a prefetch).
    pub rearm: Signal<In, Bit>,
    pub rearm_pipe: Signal<In, Bits<PB>>,
    /// A pipe was switched on or off: it starts over (nothing to announce,
    /// armed, and its next record has sequence 1). Wins over the other events
    /// for that pipe in the same cycle. `restart_base` is the address of its
    /// notification buffer (which software can change only while the pipe
    /// is off, so this is the one place it is needed).
    pub restart: Signal<In, Bit>,
    pub restart_pipe: Signal<In, Bits<PB>>,
    pub restart_base: Signal<In, Bits<64>>,
    pub per_packet: Signal<In, Bit>,
    /// Ring-write beats accepted from the RX engine and still in the register
    /// stage before the DMA arbiter (0 where no such stage exists).
    pub ahead: Signal<In, Bits<2>>,
    /// One of those beats went on to the arbiter this cycle.
    pub ahead_drain: Signal<In, Bit>,
    pub m_dma: StreamSource<DmaWrite>,
    /// One-cycle pulse per notification formed.
    pub ev_notification: Signal<Out, Bit>,

    // The input events, one cycle late.
    in_moved: DFF<Bit>,
    in_moved_pipe: DFF<Bits<PB>>,
    in_moved_tail: DFF<Bits<SLOT_BITS>>,
    in_rearm: DFF<Bit>,
    in_rearm_pipe: DFF<Bits<PB>>,
    in_restart: DFF<Bit>,
    in_restart_pipe: DFF<Bits<PB>>,
    in_restart_base: DFF<Bits<64>>,
    // Per-pipe flags, bit p for pipe p.
    armed: DFF<Bits<P>>,
    // The tail moved since the last record was formed.
    dirty: DFF<Bits<P>>,
    // The pipe is in one of the queues.
    queued: DFF<Bits<P>>,
    // No record since the restart: the next one has sequence 1.
    fresh: DFF<Bits<P>>,
    // Per-pipe latest tail and last sequence number sent.
    tail_ram: RAM<Bits<SLOT_BITS>, PB>,
    seq_ram: RAM<Bits<32>, PB>,
    // Per-pipe notification buffer address, from the last restart. (A record
    // is formed only for a pipe with a move since its restart, i.e. at least
    // a cycle after it, so the read always sees the write: no forwarding.)
    base_ram: RAM<Bits<64>, PB>,
    // A pipe is in at most one queue at a time, so each holds every pipe.
    moved_q: StreamFifo<Bits<PB>, PB, PB1>,
    rearm_q: StreamFifo<Bits<PB>, PB, PB1>,
    // Form stage: the pipe popped; the RAMs are read for it (and re-read
    // while it waits, so they stay current).
    f_valid: DFF<Bit>,
    f_pipe: DFF<Bits<PB>>,
    // Writes the RAMs took last cycle, which a read in that cycle missed.
    lm_valid: DFF<Bit>,
    lm_pipe: DFF<Bits<PB>>,
    lm_tail: DFF<Bits<SLOT_BITS>>,
    prev_valid: DFF<Bit>,
    prev_pipe: DFF<Bits<PB>>,
    prev_seq: DFF<Bits<32>>,
    out_valid: DFF<Bit>,
    out_addr: DFF<Bits<64>>,
    out_rec: DFF<Bits<128>>,
    // Beats of ring data still ahead of the record in `out_*`.
    held_back: DFF<Bits<2>>,

    // One-hot masks of this cycle's events.
    moved_bit: Signal<Local, Bits<P>>,
    rearm_bit: Signal<Local, Bits<P>>,
    restart_bit: Signal<Local, Bits<P>>,
    pop_bit: Signal<Local, Bits<P>>,
    form_bit: Signal<Local, Bits<P>>,
    same: Signal<Local, Bit>,
    moved_push: Signal<Local, Bit>,
    rearm_push: Signal<Local, Bit>,
    push_bits: Signal<Local, Bits<P>>,
    pop_rearm: Signal<Local, Bit>,
    pop_moved: Signal<Local, Bit>,
    pop_pipe: Signal<Local, Bits<PB>>,
    next_f_pipe: Signal<Local, Bits<PB>>,
    stage_free: Signal<Local, Bit>,
    wants: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    cur_tail: Signal<Local, Bits<SLOT_BITS>>,
    cur_seq: Signal<Local, Bits<32>>,
    new_seq: Signal<Local, Bits<32>>,
    tail32: ZeroExtend<SLOT_BITS, 32>,
    pipe32: ZeroExtend<PB, 64>,
    // Record: {reserved 32, pipe 32, seq 32, tail 32}, tail at byte 0.
    seq_tail: Concat<32, 32, 64>,
    rec: Concat<64, 64, 128>,
    rec512: ZeroExtend<128, 512>,
    one_pipe: Constant<Bits<P>>,
    zero_pipes: Constant<Bits<P>>,
    one32: Constant<Bits<32>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    rec_strb: Constant<Bits<64>>,
}

impl<const P: usize, const PB: usize, const PB1: usize> NotifWriter<P, PB, PB1> {
    pub fn new() -> Self {
        assert_eq!(pendulum_layout::notif::BYTES, 16);
        assert_eq!(pendulum_layout::notif::TAIL.lsb, 0);
        assert_eq!(pendulum_layout::notif::SEQ.lsb, 32);
        assert_eq!(pendulum_layout::notif::PIPE.lsb, 64);
        // The queues hold 2^PB pipes each: every pipe, once.
        assert_eq!(1 << PB, P);
        assert_eq!(PB + 1, PB1);
        Self {
            clock: Default::default(),
            moved: Default::default(),
            moved_pipe: Default::default(),
            moved_tail: Default::default(),
            rearm: Default::default(),
            rearm_pipe: Default::default(),
            restart: Default::default(),
            restart_pipe: Default::default(),
            restart_base: Default::default(),
            per_packet: Default::default(),
            ahead: Default::default(),
            ahead_drain: Default::default(),
            m_dma: Default::default(),
            ev_notification: Default::default(),
            in_moved: Default::default(),
            in_moved_pipe: Default::default(),
            in_moved_tail: Default::default(),
            in_rearm: Default::default(),
            in_rearm_pipe: Default::default(),
            in_restart: Default::default(),
            in_restart_pipe: Default::default(),
            in_restart_base: Default::default(),
            armed: Default::default(),
            dirty: Default::default(),
            queued: Default::default(),
            fresh: Default::default(),
            tail_ram: Default::default(),
            seq_ram: Default::default(),
            base_ram: Default::default(),
            moved_q: StreamFifo::new(),
            rearm_q: StreamFifo::new(),
            f_valid: Default::default(),
            f_pipe: Default::default(),
            lm_valid: Default::default(),
            lm_pipe: Default::default(),
            lm_tail: Default::default(),
            prev_valid: Default::default(),
            prev_pipe: Default::default(),
            prev_seq: Default::default(),
            out_valid: Default::default(),
            out_addr: Default::default(),
            out_rec: Default::default(),
            held_back: Default::default(),
            moved_bit: Default::default(),
            rearm_bit: Default::default(),
            restart_bit: Default::default(),
            pop_bit: Default::default(),
            form_bit: Default::default(),
            same: Default::default(),
            moved_push: Default::default(),
            rearm_push: Default::default(),
            push_bits: Default::default(),
            pop_rearm: Default::default(),
            pop_moved: Default::default(),
            pop_pipe: Default::default(),
            next_f_pipe: Default::default(),
            stage_free: Default::default(),
            wants: Default::default(),
            load: Default::default(),
            cur_tail: Default::default(),
            cur_seq: Default::default(),
            new_seq: Default::default(),
            tail32: Default::default(),
            pipe32: Default::default(),
            seq_tail: Default::default(),
            rec: Default::default(),
            rec512: Default::default(),
            one_pipe: Constant::new(1u64.into()),
            zero_pipes: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero2: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            rec_strb: Constant::new(((1u64 << pendulum_layout::notif::BYTES) - 1).into()),
        }
    }
}

impl<const P: usize, const PB: usize, const PB1: usize> Default for NotifWriter<P, PB, PB1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: usize, const PB: usize, const PB1: usize> Logic for NotifWriter<P, PB, PB1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_moved,
            in_moved_pipe,
            in_moved_tail,
            in_rearm,
            in_rearm_pipe,
            in_restart,
            in_restart_pipe,
            in_restart_base,
            armed,
            dirty,
            queued,
            fresh,
            f_valid,
            f_pipe,
            lm_valid,
            lm_pipe,
            lm_tail,
            prev_valid,
            prev_pipe,
            prev_seq,
            out_valid,
            out_addr,
            out_rec,
            held_back
        );
        self.moved_q.clock.next = self.clock.val();
        self.rearm_q.clock.next = self.clock.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();
        self.seq_ram.read_clock.next = self.clock.val();
        self.seq_ram.write_clock.next = self.clock.val();
        self.base_ram.read_clock.next = self.clock.val();
        self.base_ram.write_clock.next = self.clock.val();
        self.base_ram.write_enable.next = self.in_restart.q.val();
        self.base_ram.write_address.next = self.in_restart_pipe.q.val();
        self.base_ram.write_data.next = self.in_restart_base.q.val();

        // Every event is registered on the way in (the same delay for all, so
        // their order holds): the datapath and the register file drive them
        // from deep logic, which would otherwise run on into the per-pipe
        // flag decode here.
        self.in_moved.d.next = self.moved.val();
        self.in_moved_pipe.d.next = self.moved_pipe.val();
        self.in_moved_tail.d.next = self.moved_tail.val();
        self.in_rearm.d.next = self.rearm.val();
        self.in_rearm_pipe.d.next = self.rearm_pipe.val();
        self.in_restart.d.next = self.restart.val();
        self.in_restart_pipe.d.next = self.restart_pipe.val();
        self.in_restart_base.d.next = self.restart_base.val();

        // ---- Output: the record formed, once the ring data ahead has left ----
        self.m_dma.valid.next =
            self.out_valid.q.val() & (self.held_back.q.val() == self.zero2.val());
        if (self.held_back.q.val() != self.zero2.val()) & self.ahead_drain.val() {
            self.held_back.d.next = self.held_back.q.val() - self.one2.val();
        }
        self.m_dma.data.next.addr = self.out_addr.q.val();
        self.m_dma.data.next.data = self.rec512.o.val();
        self.m_dma.data.next.strb = self.rec_strb.val();
        self.m_dma.data.next.last = true;
        self.rec512.i.next = self.out_rec.q.val();
        if self.m_dma.ready.val() & self.m_dma.valid.val() {
            self.out_valid.d.next = false;
        }

        // ---- Events ----
        self.moved_bit.next = self.zero_pipes.val();
        if self.in_moved.q.val() {
            self.moved_bit.next = self.one_pipe.val() << self.in_moved_pipe.q.val();
        }
        self.rearm_bit.next = self.zero_pipes.val();
        if self.in_rearm.q.val() {
            self.rearm_bit.next = self.one_pipe.val() << self.in_rearm_pipe.q.val();
        }
        self.restart_bit.next = self.zero_pipes.val();
        if self.in_restart.q.val() {
            self.restart_bit.next = self.one_pipe.val() << self.in_restart_pipe.q.val();
        }
        // Every move is kept: its tail in RAM (and for one cycle in lm_*,
        // which a RAM read in this cycle misses).
        self.tail_ram.write_enable.next = self.in_moved.q.val();
        self.tail_ram.write_address.next = self.in_moved_pipe.q.val();
        self.tail_ram.write_data.next = self.in_moved_tail.q.val();
        self.lm_valid.d.next = self.in_moved.q.val();
        self.lm_pipe.d.next = self.in_moved_pipe.q.val();
        self.lm_tail.d.next = self.in_moved_tail.q.val();

        // ---- Queues: pop one pipe when the form stage frees ----
        self.pop_rearm.next = false;
        self.pop_moved.next = false;
        self.pop_pipe.next = self.moved_q.m.data.val();
        if self.rearm_q.m.valid.val() {
            self.pop_pipe.next = self.rearm_q.m.data.val();
        }
        self.pop_bit.next = self.zero_pipes.val();
        if self.stage_free.val() {
            if self.rearm_q.m.valid.val() {
                self.pop_rearm.next = true;
            } else if self.moved_q.m.valid.val() {
                self.pop_moved.next = true;
            }
        }
        if self.pop_rearm.val() | self.pop_moved.val() {
            self.pop_bit.next = self.one_pipe.val() << self.pop_pipe.val();
        }
        self.rearm_q.m.ready.next = self.pop_rearm.val();
        self.moved_q.m.ready.next = self.pop_moved.val();

        // A pipe joins a queue when it moved while armed (or per-packet), or
        // was re-armed with a move unannounced; at most once (a pipe leaving
        // a queue this cycle may join again), never while restarting.
        self.same.next = self.in_moved.q.val()
            & self.in_rearm.q.val()
            & (self.in_moved_pipe.q.val() == self.in_rearm_pipe.q.val());
        // (The queues cannot fill: a pipe is in one at most once. Were one
        // full, the pipe would stay unqueued and its next event retry.)
        self.moved_push.next = self.in_moved.q.val()
            & self.moved_q.s.ready.val()
            & (self
                .armed
                .q
                .val()
                .get_bit(self.in_moved_pipe.q.val().index())
                | self.per_packet.val()
                | self.same.val())
            & (!self
                .queued
                .q
                .val()
                .get_bit(self.in_moved_pipe.q.val().index())
                | self
                    .pop_bit
                    .val()
                    .get_bit(self.in_moved_pipe.q.val().index()))
            & !self
                .restart_bit
                .val()
                .get_bit(self.in_moved_pipe.q.val().index());
        self.rearm_push.next = self.in_rearm.q.val()
            & self.rearm_q.s.ready.val()
            & !self.same.val()
            & self
                .dirty
                .q
                .val()
                .get_bit(self.in_rearm_pipe.q.val().index())
            & (!self
                .queued
                .q
                .val()
                .get_bit(self.in_rearm_pipe.q.val().index())
                | self
                    .pop_bit
                    .val()
                    .get_bit(self.in_rearm_pipe.q.val().index()))
            & !self
                .restart_bit
                .val()
                .get_bit(self.in_rearm_pipe.q.val().index());
        self.moved_q.s.data.next = self.in_moved_pipe.q.val();
        self.moved_q.s.valid.next = self.moved_push.val();
        self.rearm_q.s.data.next = self.in_rearm_pipe.q.val();
        self.rearm_q.s.valid.next = self.rearm_push.val();

        // ---- Form stage ----
        self.wants.next = self.f_valid.q.val()
            & self.dirty.q.val().get_bit(self.f_pipe.q.val().index())
            & (self.armed.q.val().get_bit(self.f_pipe.q.val().index()) | self.per_packet.val());
        self.load.next = self.wants.val()
            & (!self.out_valid.q.val() | (self.m_dma.ready.val() & self.m_dma.valid.val()));
        // A popped pipe with nothing (left) to announce frees the stage at once.
        self.stage_free.next = !self.f_valid.q.val() | !self.wants.val() | self.load.val();
        self.next_f_pipe.next = self.f_pipe.q.val();
        if self.pop_rearm.val() | self.pop_moved.val() {
            self.next_f_pipe.next = self.pop_pipe.val();
        }
        if self.stage_free.val() {
            self.f_valid.d.next = self.pop_rearm.val() | self.pop_moved.val();
        }
        self.f_pipe.d.next = self.next_f_pipe.val();
        self.tail_ram.read_address.next = self.next_f_pipe.val();
        self.seq_ram.read_address.next = self.next_f_pipe.val();
        self.base_ram.read_address.next = self.next_f_pipe.val();
        self.cur_tail.next = self.tail_ram.read_data.val();
        if self.lm_valid.q.val() & (self.lm_pipe.q.val() == self.f_pipe.q.val()) {
            self.cur_tail.next = self.lm_tail.q.val();
        }
        self.cur_seq.next = self.seq_ram.read_data.val();
        if self.prev_valid.q.val() & (self.prev_pipe.q.val() == self.f_pipe.q.val()) {
            self.cur_seq.next = self.prev_seq.q.val();
        }
        if self.fresh.q.val().get_bit(self.f_pipe.q.val().index()) {
            self.cur_seq.next = self.zero32.val();
        }
        self.new_seq.next = self.cur_seq.val() + self.one32.val();
        self.tail32.i.next = self.cur_tail.val();
        self.pipe32.i.next = self.f_pipe.q.val();
        self.seq_tail.hi.next = self.new_seq.val();
        self.seq_tail.lo.next = self.tail32.o.val();
        self.rec.hi.next = self.pipe32.o.val();
        self.rec.lo.next = self.seq_tail.o.val();
        self.seq_ram.write_enable.next = self.load.val();
        self.seq_ram.write_address.next = self.f_pipe.q.val();
        self.seq_ram.write_data.next = self.new_seq.val();
        self.prev_valid.d.next = self.load.val();
        self.prev_pipe.d.next = self.f_pipe.q.val();
        self.prev_seq.d.next = self.new_seq.val();
        self.ev_notification.next = self.load.val();
        self.form_bit.next = self.zero_pipes.val();
        if self.load.val() {
            self.form_bit.next = self.one_pipe.val() << self.f_pipe.q.val();
            self.out_valid.d.next = true;
            self.out_addr.d.next = self.base_ram.read_data.val();
            self.out_rec.d.next = self.rec.o.val();
            self.held_back.d.next = self.ahead.val();
            if self.ahead_drain.val() {
                self.held_back.d.next = self.ahead.val() - self.one2.val();
            }
        }

        // ---- Flags ----
        // A move after the read this record used stays unannounced (dirty);
        // forming a record wins over a re-arm in the same cycle (software has
        // not seen this record yet); a restart wins over everything.
        self.dirty.d.next = ((self.dirty.q.val() & !self.form_bit.val()) | self.moved_bit.val())
            & !self.restart_bit.val();
        self.armed.d.next = ((self.armed.q.val() | self.rearm_bit.val()) & !self.form_bit.val())
            | self.restart_bit.val();
        self.fresh.d.next = (self.fresh.q.val() & !self.form_bit.val()) | self.restart_bit.val();
        self.push_bits.next = self.zero_pipes.val();
        if self.moved_push.val() {
            self.push_bits.next = self.moved_bit.val();
        }
        if self.rearm_push.val() {
            self.push_bits.next = self.rearm_bit.val();
        }
        if self.moved_push.val() & self.rearm_push.val() {
            self.push_bits.next = self.moved_bit.val() | self.rearm_bit.val();
        }
        self.queued.d.next = (self.queued.q.val() & !self.pop_bit.val()) | self.push_bits.val();
    }
}
