use crate::stream::{Concat, StreamSource, ZeroExtend};
use crate::types::DmaWrite;
use pendulum_layout::params::{PIPES, PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// Notification writer: tells software a pipe's new tail by writing a 16-byte
/// record (`pendulum_layout::notif`) into the pipe's notification buffer.
///
/// Reactive (Ensō): at most one notification outstanding per pipe; the pipe is
/// re-armed when software writes its head. Everything that arrives meanwhile
/// is covered by the next notification, which carries the latest tail. With
/// `per_packet` set it notifies whenever the tail moved (the baseline).
///
/// Pipes are visited round-robin, one per cycle. A record is formed and
/// registered in one cycle and waits on `m_dma.ready`; it is issued only after
/// the tail it carries was advanced, i.e. after the frame's last ring write
/// was accepted, and the host port keeps writes in order, so data is in
/// memory before the notification that covers it. Ring writes pass a
/// register stage (a skid buffer) before they meet notifications at the DMA
/// arbiter, so a record also waits until the beats that stage held when the
/// record was formed (`ahead`, at most 2) have left it (`ahead_drain`).
#[derive(LogicBlock)]
pub struct NotifWriter {
    pub clock: Signal<In, Clock>,
    pub tail: [Signal<In, Bits<SLOT_BITS>>; PIPES],
    pub enable: [Signal<In, Bit>; PIPES],
    pub notif_base: [Signal<In, Bits<64>>; PIPES],
    pub head_written: [Signal<In, Bit>; PIPES],
    pub per_packet: Signal<In, Bit>,
    /// Ring-write beats accepted from the RX engine and still in the register
    /// stage before the DMA arbiter (0 where no such stage exists).
    pub ahead: Signal<In, Bits<2>>,
    /// One of those beats went on to the arbiter this cycle.
    pub ahead_drain: Signal<In, Bit>,
    pub m_dma: StreamSource<DmaWrite>,
    /// One-cycle pulse per notification formed.
    pub ev_notification: Signal<Out, Bit>,

    sent_tail: [DFF<Bits<SLOT_BITS>>; PIPES],
    seq: [DFF<Bits<32>>; PIPES],
    armed: [DFF<Bit>; PIPES],
    visit: DFF<Bits<PIPE_BITS>>,
    out_valid: DFF<Bit>,
    out_addr: DFF<Bits<64>>,
    out_rec: DFF<Bits<128>>,
    // Beats of ring data still ahead of the record in `out_*`.
    held_back: DFF<Bits<2>>,

    wants: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    sel_tail: Signal<Local, Bits<SLOT_BITS>>,
    sel_seq: Signal<Local, Bits<32>>,
    sel_base: Signal<Local, Bits<64>>,
    tail32: ZeroExtend<SLOT_BITS, 32>,
    pipe32: ZeroExtend<PIPE_BITS, 64>,
    // Record: {reserved 32, pipe 32, seq 32, tail 32}, tail at byte 0.
    seq_tail: Concat<32, 32, 64>,
    rec: Concat<64, 64, 128>,
    rec512: ZeroExtend<128, 512>,
    one_visit: Constant<Bits<PIPE_BITS>>,
    one32: Constant<Bits<32>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    zero16: Constant<Bits<SLOT_BITS>>,
    zero32: Constant<Bits<32>>,
    rec_strb: Constant<Bits<64>>,
}

impl NotifWriter {
    pub fn new() -> Self {
        assert_eq!(pendulum_layout::notif::BYTES, 16);
        assert_eq!(pendulum_layout::notif::TAIL.lsb, 0);
        assert_eq!(pendulum_layout::notif::SEQ.lsb, 32);
        assert_eq!(pendulum_layout::notif::PIPE.lsb, 64);
        Self {
            clock: Default::default(),
            tail: Default::default(),
            enable: Default::default(),
            notif_base: Default::default(),
            head_written: Default::default(),
            per_packet: Default::default(),
            ahead: Default::default(),
            ahead_drain: Default::default(),
            m_dma: Default::default(),
            ev_notification: Default::default(),
            sent_tail: Default::default(),
            seq: Default::default(),
            armed: Default::default(),
            visit: Default::default(),
            out_valid: Default::default(),
            out_addr: Default::default(),
            out_rec: Default::default(),
            held_back: Default::default(),
            wants: Default::default(),
            load: Default::default(),
            sel_tail: Default::default(),
            sel_seq: Default::default(),
            sel_base: Default::default(),
            tail32: Default::default(),
            pipe32: Default::default(),
            seq_tail: Default::default(),
            rec: Default::default(),
            rec512: Default::default(),
            one_visit: Constant::new(1u64.into()),
            one32: Constant::new(1u64.into()),
            zero2: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            rec_strb: Constant::new(((1u64 << pendulum_layout::notif::BYTES) - 1).into()),
        }
    }
}

impl Default for NotifWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for NotifWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, visit, out_valid, out_addr, out_rec, held_back);
        for i in 0..PIPES {
            self.sent_tail[i].clock.next = self.clock.val();
            self.seq[i].clock.next = self.clock.val();
            self.armed[i].clock.next = self.clock.val();
            self.sent_tail[i].d.next = self.sent_tail[i].q.val();
            self.seq[i].d.next = self.seq[i].q.val();
            self.armed[i].d.next = self.armed[i].q.val();
            if self.head_written[i].val() {
                self.armed[i].d.next = true;
            }
        }
        self.m_dma.valid.next = self.out_valid.q.val() & (self.held_back.q.val() == self.zero2.val());
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

        // The pipe visited this cycle.
        self.visit.d.next = self.visit.q.val() + self.one_visit.val();
        self.wants.next = false;
        self.sel_tail.next = self.tail[0].val();
        self.sel_seq.next = self.seq[0].q.val();
        self.sel_base.next = self.notif_base[0].val();
        for i in 0..PIPES {
            if self.visit.q.val().index() == i {
                self.sel_tail.next = self.tail[i].val();
                self.sel_seq.next = self.seq[i].q.val();
                self.sel_base.next = self.notif_base[i].val();
                self.wants.next = self.enable[i].val()
                    & (self.tail[i].val() != self.sent_tail[i].q.val())
                    & (self.armed[i].q.val() | self.per_packet.val());
            }
        }
        self.load.next = self.wants.val()
            & (!self.out_valid.q.val() | (self.m_dma.ready.val() & self.m_dma.valid.val()));
        self.tail32.i.next = self.sel_tail.val();
        self.pipe32.i.next = self.visit.q.val();
        self.seq_tail.hi.next = self.sel_seq.val() + self.one32.val();
        self.seq_tail.lo.next = self.tail32.o.val();
        self.rec.hi.next = self.pipe32.o.val();
        self.rec.lo.next = self.seq_tail.o.val();
        self.ev_notification.next = self.load.val();
        if self.load.val() {
            self.out_valid.d.next = true;
            self.out_addr.d.next = self.sel_base.val();
            self.out_rec.d.next = self.rec.o.val();
            self.held_back.d.next = self.ahead.val();
            if self.ahead_drain.val() {
                self.held_back.d.next = self.ahead.val() - self.one2.val();
            }
            for i in 0..PIPES {
                if self.visit.q.val().index() == i {
                    self.sent_tail[i].d.next = self.sel_tail.val();
                    self.seq[i].d.next = self.sel_seq.val() + self.one32.val();
                    // Forming a notification wins over a re-arm in the same
                    // cycle: software has not seen this one yet.
                    self.armed[i].d.next = false;
                }
            }
        }
        // A disabled pipe starts over: nothing sent, sequence 0, armed.
        for i in 0..PIPES {
            if !self.enable[i].val() {
                self.sent_tail[i].d.next = self.zero16.val();
                self.seq[i].d.next = self.zero32.val();
                self.armed[i].d.next = true;
            }
        }
    }
}
