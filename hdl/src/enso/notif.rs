use super::notif_buffers::NotifBuffers;
use super::notif_queues::NotifQueues;
use crate::reset::{Clear, SDFF};
use crate::stream::{Concat, StreamSource, ZeroExtend};
use crate::types::DmaWrite;
use pendulum_layout::params::{
    NOTIF_BUFS, NOTIF_BUF_BITS, PIPES, PIPE_BITS, SLOT_BITS, TX_PIPES, TX_PIPE_BITS,
};
use rust_hdl::prelude::*;

/// The RX notification writer: every RX pipe, into NOTIF_BUFS shared buffers.
pub type RxNotifWriter =
    NotifWriter<PIPES, PIPE_BITS, { PIPE_BITS + 1 }, NOTIF_BUFS, NOTIF_BUF_BITS>;
/// The TX completion writer: one completion record per TX pipe (each pipe its
/// own one-record buffer).
pub type TxComplWriter =
    NotifWriter<TX_PIPES, TX_PIPE_BITS, { TX_PIPE_BITS + 1 }, TX_PIPES, TX_PIPE_BITS>;

/// Notification writer: tells software a pipe's new tail by writing a 16-byte
/// record (`pendulum_layout::notif`) into the pipe's notification buffer.
///
/// Notification buffers (Ensō's): `B = 2^BB` rings of records in host
/// memory; pipe p writes into buffer p mod B (its low BB bits), so software
/// polls one buffer for all the pipes it owns. Each buffer's n-th record
/// (from 0, since it was switched on) goes to slot n mod records and carries
/// COUNT = n + 1. Software reports how far it has read (`head`); a record
/// is written only while the buffer has room (count - head < records).
/// Without room, or with the buffer off, the pipe goes to a retry queue
/// (popped when the other queues are empty) and stays unannounced, so its
/// next record carries its newest tail: nothing is lost, and a full buffer
/// holds back only its own pipes. A buffer of one record (`cfg_mask` 0) is
/// rewritten in place and never full (the TX completion records).
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
/// record joins a queue ([`super::NotifQueues`]: moved while armed, or
/// re-armed with something unannounced; at most once; a third queue holds
/// pipes waiting for room in their buffer), and the queues give one pipe
/// per cycle, through a register of their own (a skid buffer, so neither
/// their pop nor the read stage's RAM address waits on the other's
/// handshake: 250 MHz). Each pipe's latest tail and sequence number live in
/// block RAM, and three bits of flags per pipe in registers here (armed,
/// tail moved since the last record, no record since the restart).
///
/// A pipe from the queues passes two stages, one cycle each at least: the
/// read stage (its RAM words, with the writes the read missed, into
/// registers) and the form stage, which decides from registers only
/// (250 MHz: no decision waits on a RAM read) whether to form a record,
/// send the pipe to retry, or drop it, and reads the pipe's flags then, so
/// a pipe on its way through the stages needs no queueing for events
/// meanwhile. The form stage holds its pipe (even one that will form no
/// record) while the output register is full, and the read stage holds its
/// pipe behind it; so 1 record per cycle while `m_dma` takes them.
///
/// Latency: a move is announced 6 cycles after it is reported (input
/// register 1, queue 2, the queues' output 1, read stage 1, form stage 1),
/// then the record waits on `m_dma.ready`. A record is formed only after
/// the move it carries was reported, i.e. after the frame's last ring write
/// was accepted, and the host port keeps writes in order, so data is in
/// memory before the notification that covers it. Ring writes pass a register
/// stage (a skid buffer) before they meet notifications at the DMA arbiter, so
/// a record also waits until the beats that stage held when the record was
/// formed (`ahead`, at most 2) have left it (`ahead_drain`).
#[derive(LogicBlock)]
pub struct NotifWriter<
    const P: usize,
    const PB: usize,
    const PB1: usize,
    const B: usize,
    const BB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): this block's RAMs
    /// are zeroed one entry a cycle while it is active.
    pub clear: Clear<PB>,
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
    /// for that pipe in the same cycle.
    pub restart: Signal<In, Bit>,
    pub restart_pipe: Signal<In, Bits<PB>>,
    /// A notification buffer was switched on (`cfg_on`, with its address and
    /// records minus one) or off. Switching on starts its count and head at 0.
    pub cfg: Signal<In, Bit>,
    pub cfg_buf: Signal<In, Bits<BB>>,
    pub cfg_on: Signal<In, Bit>,
    pub cfg_base: Signal<In, Bits<64>>,
    pub cfg_mask: Signal<In, Bits<32>>,
    /// Software has read a buffer's records up to COUNT `head`.
    pub head: Signal<In, Bit>,
    pub head_buf: Signal<In, Bits<BB>>,
    pub head_count: Signal<In, Bits<32>>,
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
    in_moved: SDFF<Bit>,
    in_moved_pipe: SDFF<Bits<PB>>,
    in_moved_tail: SDFF<Bits<SLOT_BITS>>,
    in_rearm: SDFF<Bit>,
    in_rearm_pipe: SDFF<Bits<PB>>,
    in_restart: SDFF<Bit>,
    in_restart_pipe: SDFF<Bits<PB>>,
    // Per-pipe flags, bit p for pipe p.
    armed: SDFF<Bits<P>>,
    // The tail moved since the last record was formed.
    dirty: SDFF<Bits<P>>,
    // No record since the restart: the next one has sequence 1.
    fresh: SDFF<Bits<P>>,
    // Per-pipe latest tail and last sequence number sent.
    tail_ram: RAM<Bits<SLOT_BITS>, PB>,
    seq_ram: RAM<Bits<32>, PB>,
    // Per buffer: what software set (`NotifBuffers`), and the records
    // written here.
    bufs: NotifBuffers<B, BB>,
    bcount_ram: RAM<Bits<32>, BB>,
    // The pipes waiting to be looked at, in the order they go.
    queues: NotifQueues<P, PB, PB1>,
    // Read stage: the pipe popped; the RAMs are read for it (and re-read
    // while it waits, so they stay current).
    f1_valid: SDFF<Bit>,
    f1_pipe: SDFF<Bits<PB>>,
    // Form stage: the pipe, and its state as read, brought up to date with
    // every write since except the record formed last cycle (`prev_*`,
    // applied here where `c_same_*` say it was this pipe's or buffer's).
    f2_valid: SDFF<Bit>,
    f2_pipe: SDFF<Bits<PB>>,
    c_tail: SDFF<Bits<SLOT_BITS>>,
    c_seq: SDFF<Bits<32>>,
    c_same_pipe: SDFF<Bit>,
    c_count: SDFF<Bits<32>>,
    // The buffer starts over (count 0), and a switch-on last cycle wins over
    // the record formed last cycle.
    c_bfresh: SDFF<Bit>,
    c_same_buf: SDFF<Bit>,
    c_head: SDFF<Bits<32>>,
    c_base: SDFF<Bits<64>>,
    c_mask: SDFF<Bits<32>>,
    c_mask_zero: SDFF<Bit>,
    c_on: SDFF<Bit>,
    // Writes the RAMs took last cycle, which a read in that cycle missed.
    lm_valid: SDFF<Bit>,
    lm_pipe: SDFF<Bits<PB>>,
    lm_tail: SDFF<Bits<SLOT_BITS>>,
    prev_valid: SDFF<Bit>,
    prev_pipe: SDFF<Bits<PB>>,
    prev_seq: SDFF<Bits<32>>,
    prev_buf: SDFF<Bits<BB>>,
    prev_count: SDFF<Bits<32>>,
    out_valid: SDFF<Bit>,
    out_addr: SDFF<Bits<64>>,
    out_rec: SDFF<Bits<128>>,
    // Beats of ring data still ahead of the record in `out_*`.
    held_back: SDFF<Bits<2>>,

    // One-hot masks of this cycle's events.
    moved_bit: Signal<Local, Bits<P>>,
    rearm_bit: Signal<Local, Bits<P>>,
    restart_bit: Signal<Local, Bits<P>>,
    form_bit: Signal<Local, Bits<P>>,
    // Read stage: the state read, with the writes the read missed.
    f1_buf: Signal<Local, Bits<BB>>,
    r_tail: Signal<Local, Bits<SLOT_BITS>>,
    r_seq: Signal<Local, Bits<32>>,
    r_count: Signal<Local, Bits<32>>,
    // Form stage.
    f2_buf: Signal<Local, Bits<BB>>,
    out_free: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    f1_free: Signal<Local, Bit>,
    cur_count: Signal<Local, Bits<32>>,
    new_count: Signal<Local, Bits<32>>,
    room: Signal<Local, Bit>,
    wants: Signal<Local, Bit>,
    leave: Signal<Local, Bit>,
    blocked: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    slot64: ZeroExtend<32, 64>,
    next_f1_pipe: Signal<Local, Bits<PB>>,
    next_f1_buf: Signal<Local, Bits<BB>>,
    new_seq: Signal<Local, Bits<32>>,
    tail32: ZeroExtend<SLOT_BITS, 32>,
    pipe32: ZeroExtend<PB, 32>,
    // Record: {count 32, pipe 32, seq 32, tail 32}, tail at byte 0.
    seq_tail: Concat<32, 32, 64>,
    count_pipe: Concat<32, 32, 64>,
    rec: Concat<64, 64, 128>,
    rec512: ZeroExtend<128, 512>,
    one_pipe: Constant<Bits<P>>,
    zero_pipes: Constant<Bits<P>>,
    rec_shift: Constant<Bits<3>>,
    one32: Constant<Bits<32>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    zero_slot: Constant<Bits<SLOT_BITS>>,
    rec_strb: Constant<Bits<64>>,
}

impl<const P: usize, const PB: usize, const PB1: usize, const B: usize, const BB: usize>
    NotifWriter<P, PB, PB1, B, BB>
{
    pub fn new() -> Self {
        assert_eq!(pendulum_layout::notif::BYTES, 16);
        assert_eq!(pendulum_layout::notif::TAIL.lsb, 0);
        assert_eq!(pendulum_layout::notif::SEQ.lsb, 32);
        assert_eq!(pendulum_layout::notif::PIPE.lsb, 64);
        assert_eq!(pendulum_layout::notif::COUNT.lsb, 96);
        // Buffer b serves the pipes whose low BB bits are b.
        assert_eq!(1 << BB, B);
        assert!(BB <= PB);
        // The queues hold 2^PB pipes each: every pipe, once.
        assert_eq!(1 << PB, P);
        assert_eq!(PB + 1, PB1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            moved: Default::default(),
            moved_pipe: Default::default(),
            moved_tail: Default::default(),
            rearm: Default::default(),
            rearm_pipe: Default::default(),
            restart: Default::default(),
            restart_pipe: Default::default(),
            cfg: Default::default(),
            cfg_buf: Default::default(),
            cfg_on: Default::default(),
            cfg_base: Default::default(),
            cfg_mask: Default::default(),
            head: Default::default(),
            head_buf: Default::default(),
            head_count: Default::default(),
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
            armed: Default::default(),
            dirty: Default::default(),
            fresh: Default::default(),
            tail_ram: Default::default(),
            seq_ram: Default::default(),
            bufs: NotifBuffers::new(),
            bcount_ram: Default::default(),
            queues: NotifQueues::new(),
            f1_valid: Default::default(),
            f1_pipe: Default::default(),
            f2_valid: Default::default(),
            f2_pipe: Default::default(),
            c_tail: Default::default(),
            c_seq: Default::default(),
            c_same_pipe: Default::default(),
            c_count: Default::default(),
            c_bfresh: Default::default(),
            c_same_buf: Default::default(),
            c_head: Default::default(),
            c_base: Default::default(),
            c_mask: Default::default(),
            c_mask_zero: Default::default(),
            c_on: Default::default(),
            lm_valid: Default::default(),
            lm_pipe: Default::default(),
            lm_tail: Default::default(),
            prev_valid: Default::default(),
            prev_pipe: Default::default(),
            prev_seq: Default::default(),
            prev_buf: Default::default(),
            prev_count: Default::default(),
            out_valid: Default::default(),
            out_addr: Default::default(),
            out_rec: Default::default(),
            held_back: Default::default(),
            moved_bit: Default::default(),
            rearm_bit: Default::default(),
            restart_bit: Default::default(),
            form_bit: Default::default(),
            f1_buf: Default::default(),
            r_tail: Default::default(),
            r_seq: Default::default(),
            r_count: Default::default(),
            f2_buf: Default::default(),
            out_free: Default::default(),
            advance: Default::default(),
            f1_free: Default::default(),
            cur_count: Default::default(),
            new_count: Default::default(),
            room: Default::default(),
            wants: Default::default(),
            leave: Default::default(),
            blocked: Default::default(),
            load: Default::default(),
            slot64: Default::default(),
            next_f1_pipe: Default::default(),
            next_f1_buf: Default::default(),
            new_seq: Default::default(),
            tail32: Default::default(),
            pipe32: Default::default(),
            seq_tail: Default::default(),
            count_pipe: Default::default(),
            rec: Default::default(),
            rec512: Default::default(),
            one_pipe: Constant::new(1u64.into()),
            zero_pipes: Constant::new(0u64.into()),
            rec_shift: Constant::new(4u64.into()),
            one32: Constant::new(1u64.into()),
            zero2: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            zero_slot: Constant::new(0u64.into()),
            rec_strb: Constant::new(((1u64 << pendulum_layout::notif::BYTES) - 1).into()),
        }
    }
}

impl<const P: usize, const PB: usize, const PB1: usize, const B: usize, const BB: usize> Default
    for NotifWriter<P, PB, PB1, B, BB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: usize, const PB: usize, const PB1: usize, const B: usize, const BB: usize> Logic
    for NotifWriter<P, PB, PB1, B, BB>
{
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
            armed,
            dirty,
            fresh,
            f1_valid,
            f1_pipe,
            f2_valid,
            f2_pipe,
            c_tail,
            c_seq,
            c_same_pipe,
            c_count,
            c_bfresh,
            c_same_buf,
            c_head,
            c_base,
            c_mask,
            c_mask_zero,
            c_on,
            lm_valid,
            lm_pipe,
            lm_tail,
            prev_valid,
            prev_pipe,
            prev_seq,
            prev_buf,
            prev_count,
            out_valid,
            out_addr,
            out_rec,
            held_back
        );
        self.in_moved.reset.next = self.reset.val();
        self.in_moved_pipe.reset.next = self.reset.val();
        self.in_moved_tail.reset.next = self.reset.val();
        self.in_rearm.reset.next = self.reset.val();
        self.in_rearm_pipe.reset.next = self.reset.val();
        self.in_restart.reset.next = self.reset.val();
        self.in_restart_pipe.reset.next = self.reset.val();
        self.armed.reset.next = self.reset.val();
        self.dirty.reset.next = self.reset.val();
        self.fresh.reset.next = self.reset.val();
        self.f1_valid.reset.next = self.reset.val();
        self.f1_pipe.reset.next = self.reset.val();
        self.f2_valid.reset.next = self.reset.val();
        self.f2_pipe.reset.next = self.reset.val();
        self.c_tail.reset.next = self.reset.val();
        self.c_seq.reset.next = self.reset.val();
        self.c_same_pipe.reset.next = self.reset.val();
        self.c_count.reset.next = self.reset.val();
        self.c_bfresh.reset.next = self.reset.val();
        self.c_same_buf.reset.next = self.reset.val();
        self.c_head.reset.next = self.reset.val();
        self.c_base.reset.next = self.reset.val();
        self.c_mask.reset.next = self.reset.val();
        self.c_mask_zero.reset.next = self.reset.val();
        self.c_on.reset.next = self.reset.val();
        self.lm_valid.reset.next = self.reset.val();
        self.lm_pipe.reset.next = self.reset.val();
        self.lm_tail.reset.next = self.reset.val();
        self.prev_valid.reset.next = self.reset.val();
        self.prev_pipe.reset.next = self.reset.val();
        self.prev_seq.reset.next = self.reset.val();
        self.prev_buf.reset.next = self.reset.val();
        self.prev_count.reset.next = self.reset.val();
        self.out_valid.reset.next = self.reset.val();
        self.out_addr.reset.next = self.reset.val();
        self.out_rec.reset.next = self.reset.val();
        self.held_back.reset.next = self.reset.val();
        self.queues.clock.next = self.clock.val();
        self.queues.reset.next = self.reset.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();
        self.seq_ram.read_clock.next = self.clock.val();
        self.seq_ram.write_clock.next = self.clock.val();
        self.bcount_ram.read_clock.next = self.clock.val();
        self.bcount_ram.write_clock.next = self.clock.val();

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

        // ---- Buffers (`NotifBuffers`): switched on or off, software's head ----
        self.bufs.clock.next = self.clock.val();
        self.bufs.reset.next = self.reset.val();
        self.bufs.clear.active.next = self.clear.active.val();
        self.bufs.clear.addr.next = self.clear.addr.val().get_bits::<BB>(0);
        self.bufs.cfg.next = self.cfg.val();
        self.bufs.cfg_buf.next = self.cfg_buf.val();
        self.bufs.cfg_on.next = self.cfg_on.val();
        self.bufs.cfg_base.next = self.cfg_base.val();
        self.bufs.cfg_mask.next = self.cfg_mask.val();
        self.bufs.head.next = self.head.val();
        self.bufs.head_buf.next = self.head_buf.val();
        self.bufs.head_count.next = self.head_count.val();

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
        // The output register is free for a record this cycle.
        self.out_free.next = !self.out_valid.q.val()
            | (self.m_dma.ready.val() & (self.held_back.q.val() == self.zero2.val()));

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

        // ---- Queues (`NotifQueues`): the pipes to look at ----
        // A pipe wants a look when it moved while armed (or per-packet), or
        // was re-armed with a move unannounced. A queued pipe, or one on its
        // way through the queues' output and the read and form stages, will
        // be looked at after this event anyway.
        self.queues.moved.next = self.in_moved.q.val();
        self.queues.moved_pipe.next = self.in_moved_pipe.q.val();
        self.queues.moved_armed.next = self
            .armed
            .q
            .val()
            .get_bit(self.in_moved_pipe.q.val().index())
            | self.per_packet.val();
        self.queues.rearm.next = self.in_rearm.q.val();
        self.queues.rearm_pipe.next = self.in_rearm_pipe.q.val();
        self.queues.moved_bit.next = self.moved_bit.val();
        self.queues.rearm_bit.next = self.rearm_bit.val();
        self.queues.rearm_dirty.next = self
            .dirty
            .q
            .val()
            .get_bit(self.in_rearm_pipe.q.val().index());
        self.queues.restart.next = self.in_restart.q.val();
        self.queues.restart_pipe.next = self.in_restart_pipe.q.val();

        // ---- Read stage: the RAMs' words for f1_pipe ----
        // It takes the chosen pipe when it frees. The form stage frees when
        // its pipe leaves, which it does whenever the output register is free
        // (forming a record, or not); so this depends on registers and
        // `m_dma.ready` only, not on the decision.
        self.advance.next = !self.f2_valid.q.val() | self.out_free.val();
        self.f1_free.next = !self.f1_valid.q.val() | self.advance.val();
        self.queues.m.ready.next = self.f1_free.val();
        self.next_f1_pipe.next = self.f1_pipe.q.val();
        if self.f1_free.val() {
            self.f1_valid.d.next = self.queues.m.valid.val();
            if self.queues.m.valid.val() {
                self.next_f1_pipe.next = self.queues.m.data.val();
            }
        }
        self.f1_pipe.d.next = self.next_f1_pipe.val();
        self.next_f1_buf.next = self.next_f1_pipe.val().get_bits::<BB>(0);
        self.tail_ram.read_address.next = self.next_f1_pipe.val();
        self.seq_ram.read_address.next = self.next_f1_pipe.val();
        self.bcount_ram.read_address.next = self.next_f1_buf.val();
        self.bufs.read_next.next = self.next_f1_buf.val();
        // The pipe's buffer: its low bits.
        self.f1_buf.next = self.f1_pipe.q.val().get_bits::<BB>(0);
        // What the RAMs hold now: the words read, with last cycle's writes
        // (which the read missed) and this cycle's (register inputs only).
        // The record the form stage forms this cycle is left to it.
        self.r_tail.next = self.tail_ram.read_data.val();
        if self.lm_valid.q.val() & (self.lm_pipe.q.val() == self.f1_pipe.q.val()) {
            self.r_tail.next = self.lm_tail.q.val();
        }
        if self.in_moved.q.val() & (self.in_moved_pipe.q.val() == self.f1_pipe.q.val()) {
            self.r_tail.next = self.in_moved_tail.q.val();
        }
        self.r_seq.next = self.seq_ram.read_data.val();
        if self.prev_valid.q.val() & (self.prev_pipe.q.val() == self.f1_pipe.q.val()) {
            self.r_seq.next = self.prev_seq.q.val();
        }
        self.r_count.next = self.bcount_ram.read_data.val();
        if self.prev_valid.q.val() & (self.prev_buf.q.val() == self.f1_buf.val()) {
            self.r_count.next = self.prev_count.q.val();
        }
        self.bufs.read.next = self.f1_buf.val();

        // ---- Form stage: decide, from registers, for f2_pipe ----
        self.f2_buf.next = self.f2_pipe.q.val().get_bits::<BB>(0);
        self.bufs.hold.next = self.f2_buf.val();
        // The state as of this cycle: the record formed last cycle, if it
        // was this pipe's (or buffer's), unless the buffer was switched since.
        // (Each sum from its register, then one chosen: the choice and the
        // restart flag's select by pipe do not wait for a carry.)
        self.new_seq.next = self.c_seq.q.val() + self.one32.val();
        if self.prev_valid.q.val() & self.c_same_pipe.q.val() {
            self.new_seq.next = self.prev_seq.q.val() + self.one32.val();
        }
        self.cur_count.next = self.c_count.q.val();
        if self.c_bfresh.q.val() {
            self.cur_count.next = self.zero32.val();
        }
        if self.prev_valid.q.val() & self.c_same_buf.q.val() {
            self.cur_count.next = self.prev_count.q.val();
        }
        self.new_count.next = self.c_count.q.val() + self.one32.val();
        if self.c_bfresh.q.val() {
            self.new_count.next = self.one32.val();
        }
        if self.prev_valid.q.val() & self.c_same_buf.q.val() {
            self.new_count.next = self.prev_count.q.val() + self.one32.val();
        }
        // Room: fewer records unread than the buffer holds (a one-record
        // buffer is rewritten in place, always).
        self.room.next = self.c_on.q.val()
            & (self.c_mask_zero.q.val()
                | ((self.cur_count.val() - self.c_head.q.val()) <= self.c_mask.q.val()));
        // The flags are read now, so they count every event until now.
        self.wants.next = self.dirty.q.val().get_bit(self.f2_pipe.q.val().index())
            & (self.armed.q.val().get_bit(self.f2_pipe.q.val().index()) | self.per_packet.val());
        self.leave.next = self.f2_valid.q.val() & self.out_free.val();
        self.load.next = self.leave.val() & self.wants.val() & self.room.val();
        self.blocked.next = self.leave.val() & self.wants.val() & !self.room.val();
        // Sequence numbers restart at 1 after a restart (read now as well).
        if self.fresh.q.val().get_bit(self.f2_pipe.q.val().index()) {
            self.new_seq.next = self.one32.val();
        }

        // The form stage takes the read stage's pipe when it frees; else its
        // pipe stays, its state brought up to date with this cycle's events
        // (no record is formed while it stays).
        if self.advance.val() {
            self.f2_valid.d.next = self.f1_valid.q.val();
            self.f2_pipe.d.next = self.f1_pipe.q.val();
            self.c_tail.d.next = self.r_tail.val();
            self.c_seq.d.next = self.r_seq.val();
            self.c_same_pipe.d.next = self.f1_pipe.q.val() == self.f2_pipe.q.val();
            self.c_count.d.next = self.r_count.val();
            self.c_bfresh.d.next = self.bufs.read_fresh.val();
            self.c_same_buf.d.next =
                (self.f1_buf.val() == self.f2_buf.val()) & !self.bufs.read_cfg.val();
            self.c_head.d.next = self.bufs.read_head.val();
            self.c_base.d.next = self.bufs.read_base.val();
            self.c_mask.d.next = self.bufs.read_mask.val();
            self.c_mask_zero.d.next = self.bufs.read_mask.val() == self.zero32.val();
            self.c_on.d.next = self.bufs.read_on.val();
        } else {
            if self.in_moved.q.val() & (self.in_moved_pipe.q.val() == self.f2_pipe.q.val()) {
                self.c_tail.d.next = self.in_moved_tail.q.val();
            }
            self.c_seq.d.next = self.prev_seq.q.val();
            if !(self.prev_valid.q.val() & self.c_same_pipe.q.val()) {
                self.c_seq.d.next = self.c_seq.q.val();
            }
            self.c_same_pipe.d.next = false;
            self.c_count.d.next = self.cur_count.val();
            self.c_bfresh.d.next = self.bufs.hold_cfg.val();
            self.c_same_buf.d.next = false;
            if self.bufs.hold_head_set.val() {
                self.c_head.d.next = self.bufs.hold_head.val();
            }
            if self.bufs.hold_cfg.val() {
                self.c_base.d.next = self.bufs.cfg_now_base.val();
                self.c_mask.d.next = self.bufs.cfg_now_mask.val();
                self.c_mask_zero.d.next = self.bufs.cfg_now_mask.val() == self.zero32.val();
                self.c_on.d.next = self.bufs.cfg_now_on.val();
            }
        }

        // A blocked pipe retries later, unless an event queued it again (or
        // it is on its way through the stages again).
        self.queues.blocked.next = self.blocked.val();
        self.queues.blocked_pipe.next = self.f2_pipe.q.val();
        self.tail32.i.next = self.c_tail.q.val();
        self.pipe32.i.next = self.f2_pipe.q.val();
        self.seq_tail.hi.next = self.new_seq.val();
        self.seq_tail.lo.next = self.tail32.o.val();
        self.count_pipe.hi.next = self.new_count.val();
        self.count_pipe.lo.next = self.pipe32.o.val();
        self.rec.hi.next = self.count_pipe.o.val();
        self.rec.lo.next = self.seq_tail.o.val();
        self.seq_ram.write_enable.next = self.load.val();
        self.seq_ram.write_address.next = self.f2_pipe.q.val();
        self.seq_ram.write_data.next = self.new_seq.val();
        self.bcount_ram.write_enable.next = self.load.val();
        self.bcount_ram.write_address.next = self.f2_buf.val();
        self.bcount_ram.write_data.next = self.new_count.val();
        self.prev_valid.d.next = self.load.val();
        self.prev_pipe.d.next = self.f2_pipe.q.val();
        self.prev_seq.d.next = self.new_seq.val();
        self.prev_buf.d.next = self.f2_buf.val();
        self.prev_count.d.next = self.new_count.val();
        self.ev_notification.next = self.load.val();
        // The record's slot: base + (count mod records) x 16.
        self.slot64.i.next = self.cur_count.val() & self.c_mask.q.val();
        self.form_bit.next = self.zero_pipes.val();
        self.bufs.formed.next = self.load.val();
        self.bufs.formed_buf.next = self.f2_buf.val();
        if self.load.val() {
            self.form_bit.next = self.one_pipe.val() << self.f2_pipe.q.val();
            self.out_valid.d.next = true;
            self.out_addr.d.next =
                self.c_base.q.val() + (self.slot64.o.val() << self.rec_shift.val());
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
        // A reset's sweep zeroes every pipe's and buffer's entry.
        if self.clear.active.val() {
            self.tail_ram.write_enable.next = true;
            self.tail_ram.write_address.next = self.clear.addr.val();
            self.tail_ram.write_data.next = self.zero_slot.val();
            self.seq_ram.write_enable.next = true;
            self.seq_ram.write_address.next = self.clear.addr.val();
            self.seq_ram.write_data.next = self.zero32.val();
            self.bcount_ram.write_enable.next = true;
            self.bcount_ram.write_address.next = self.clear.addr.val().get_bits::<BB>(0);
            self.bcount_ram.write_data.next = self.zero32.val();
        }
    }
}
