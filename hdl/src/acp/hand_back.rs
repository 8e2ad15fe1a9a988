use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamFifo, StreamSource, ZeroExtend};
use crate::types::AcpMsg;
use pendulum_layout::acp::message;
use pendulum_layout::params::{
    ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ACP_MSG_FIFO_DEPTH_LOG2 as MF,
};
use rust_hdl::prelude::*;

const _: () = assert!(
    K + 1 < 1 << MF,
    "the message FIFO must hold a commit from every channel"
);

/// Width of the FIFO's fill count, 0..=depth.
const MF1: usize = MF + 1;
/// A proven verb result waiting to go up: its channel and result buffer.
const RQ: usize = CB + 1;

/// What `AcpLink` hands its host (`m_msg`), through one FIFO: payloads the
/// peer delivered, results of our verbs whose delivery was proven, and our
/// payloads handed back (not delivered, or in doubt).
///
/// A delivery is pushed the cycle it is decided and never waits: `room` is
/// low (and the link stores no new offer) unless the FIFO has room for a
/// commit from every channel and one more (a move may deliver and store).
///
/// In a cycle with no delivery and room to spare, it pushes first a proven
/// verb result, then a payload handed back:
/// - **Results** come in order of proof: `proven` names the channel and
///   result buffer the cycle a verb is confirmed, and a queue of K entries
///   holds them (a channel has at most one result waiting: it confirms no
///   other verb until its result is taken). The queue's head is staged
///   (`result_ch` addresses the result RAMs, whose reads are registered),
///   read into a skid buffer (`took_result`: the channel may confirm its
///   next verb) and pushed from there. A verb's result used to wait for
///   the scanner below to pass its channel, which held every channel to
///   one verb per K cycles.
/// - **Payloads handed back** after flushes, which touch many channels at
///   once, are found by a scanner that visits one channel a cycle (`scan`;
///   `scan_next` addresses the payload RAMs) and pushes that channel's
///   payload as `took_return`.
///
/// `m_msg` leaves through a skid buffer, so the host side's `ready`
/// reaches only registers.
#[derive(LogicBlock)]
pub struct HandBack {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A payload the peer delivered, this cycle.
    pub deliver: Signal<In, Bit>,
    pub deliver_channel: Signal<In, Bits<CB>>,
    pub deliver_payload: Signal<In, Bits<448>>,
    /// The FIFO can take a commit from every channel.
    pub room: Signal<Out, Bit>,
    /// The channel scanned, and the next one.
    pub scan: Signal<Out, Bits<CB>>,
    pub scan_next: Signal<Out, Bits<CB>>,
    /// A verb of `proven_ch` was confirmed this cycle; its result waits in
    /// result buffer `proven_buf`.
    pub proven: Signal<In, Bit>,
    pub proven_ch: Signal<In, Bits<CB>>,
    pub proven_buf: Signal<In, Bit>,
    /// The channel whose result is staged next cycle: it addresses both
    /// result buffers' RAMs (`result` is their read a cycle later).
    pub result_ch: Signal<Out, Bits<CB>>,
    /// Channel `scan`: a payload to hand back, and whether it is in doubt.
    pub returning: Signal<In, Bit>,
    pub in_doubt: Signal<In, Bit>,
    /// The payload handed back is one of our verbs, not a message.
    pub returning_verb: Signal<In, Bit>,
    /// RAM reads a cycle ago: our payload at `scan_next`, the result of
    /// `took_result_ch` from buffer `took_result_buf`.
    pub ret_payload: Signal<In, Bits<448>>,
    pub result: Signal<In, Bits<384>>,
    /// Channel `took_result_ch`'s result was read from result buffer
    /// `took_result_buf` and is on its way up (the staged one: `result_ch`
    /// may already address the next); channel `scan`'s payload was pushed.
    pub took_result: Signal<Out, Bit>,
    pub took_result_ch: Signal<Out, Bits<CB>>,
    pub took_result_buf: Signal<Out, Bit>,
    pub took_return: Signal<Out, Bit>,
    pub m_msg: StreamSource<AcpMsg>,

    scan_ptr: SDFF<Bits<CB>>,
    used: SDFF<Bits<MF1>>,
    proven_q: StreamFifo<Bits<RQ>, CB, RQ>,
    staged: SDFF<Bit>,
    staged_ch: SDFF<Bits<CB>>,
    staged_buf: SDFF<Bit>,
    /// The proof, registered before the queue: `proven` comes out of the
    /// channel machine's decision, deep enough already.
    proven_r: SDFF<Bit>,
    proven_entry_r: SDFF<Bits<RQ>>,
    stage: Signal<Local, Bit>,
    proven_entry: Signal<Local, Bits<RQ>>,
    /// Results read, on their way to the message FIFO.
    results: SkidBuffer<AcpMsg>,
    fifo: StreamFifo<AcpMsg, MF, { MF + 1 }>,
    out: SkidBuffer<AcpMsg>,
    spare: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    result448: ZeroExtend<384, 448>,
    scan8: ZeroExtend<CB, 8>,
    staged8: ZeroExtend<CB, 8>,
    proven_wide: ZeroExtend<CB, RQ>,
    c_one_rq: Constant<Bits<RQ>>,
    deliver8: ZeroExtend<CB, 8>,
    c_one_cb: Constant<Bits<CB>>,
    c_one_used: Constant<Bits<MF1>>,
    c_room_max: Constant<Bits<MF1>>,
    c_kind_delivered: Constant<Bits<8>>,
    c_kind_verb_result: Constant<Bits<8>>,
    c_kind_not_delivered: Constant<Bits<8>>,
    c_kind_in_doubt: Constant<Bits<8>>,
    c_kind_verb_not_delivered: Constant<Bits<8>>,
    c_kind_verb_in_doubt: Constant<Bits<8>>,
}

impl Default for HandBack {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            deliver: Default::default(),
            deliver_channel: Default::default(),
            deliver_payload: Default::default(),
            room: Default::default(),
            scan: Default::default(),
            scan_next: Default::default(),
            proven: Default::default(),
            proven_ch: Default::default(),
            proven_buf: Default::default(),
            result_ch: Default::default(),
            returning: Default::default(),
            in_doubt: Default::default(),
            returning_verb: Default::default(),
            ret_payload: Default::default(),
            result: Default::default(),
            took_result: Default::default(),
            took_result_ch: Default::default(),
            took_result_buf: Default::default(),
            took_return: Default::default(),
            m_msg: Default::default(),
            scan_ptr: Default::default(),
            used: Default::default(),
            proven_q: StreamFifo::new(),
            staged: Default::default(),
            staged_ch: Default::default(),
            staged_buf: Default::default(),
            proven_r: Default::default(),
            proven_entry_r: Default::default(),
            stage: Default::default(),
            proven_entry: Default::default(),
            results: Default::default(),
            fifo: StreamFifo::new(),
            out: Default::default(),
            spare: Default::default(),
            push: Default::default(),
            push_ok: Default::default(),
            pop: Default::default(),
            result448: Default::default(),
            scan8: Default::default(),
            staged8: Default::default(),
            proven_wide: Default::default(),
            c_one_rq: c(1),
            deliver8: Default::default(),
            c_one_cb: c(1),
            c_one_used: c(1),
            // A store needs room for a commit from every channel, and for
            // the delivery the same move may make (DELIVER_STORE: the
            // delivered payload's reserved place is taken this cycle, the
            // stored one's next): used + K + 1 <= depth.
            c_room_max: c(((1 << MF) - K - 1) as u64),
            c_kind_delivered: c(message::KIND_DELIVERED as u64),
            c_kind_verb_result: c(message::KIND_VERB_RESULT as u64),
            c_kind_not_delivered: c(message::KIND_NOT_DELIVERED as u64),
            c_kind_in_doubt: c(message::KIND_IN_DOUBT as u64),
            c_kind_verb_not_delivered: c(message::KIND_VERB_NOT_DELIVERED as u64),
            c_kind_verb_in_doubt: c(message::KIND_VERB_IN_DOUBT as u64),
        }
    }
}

impl Logic for HandBack {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            scan_ptr,
            used,
            staged,
            staged_ch,
            staged_buf,
            proven_r,
            proven_entry_r
        );
        self.scan_ptr.reset.next = self.reset.val();
        self.used.reset.next = self.reset.val();
        self.staged.reset.next = self.reset.val();
        self.staged_ch.reset.next = self.reset.val();
        self.staged_buf.reset.next = self.reset.val();
        self.proven_r.reset.next = self.reset.val();
        self.proven_entry_r.reset.next = self.reset.val();
        self.proven_q.clock.next = self.clock.val();
        self.proven_q.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.results.clock.next = self.clock.val();
        self.results.reset.next = self.reset.val();
        self.room.next = self.used.q.val() <= self.c_room_max.val();

        // A delivery first.
        self.deliver8.i.next = self.deliver_channel.val();
        self.fifo.s.data.next.kind = self.c_kind_delivered.val();
        self.fifo.s.data.next.channel = self.deliver8.o.val();
        self.fifo.s.data.next.payload = self.deliver_payload.val();
        self.push.next = self.deliver.val();

        // Proven results, in order: queued at the proof (a channel has at
        // most one waiting, so K entries never fill), then staged. The
        // result RAMs' reads are registered: they address the staged
        // channel, or the one being staged, so the staged result is read. A
        // result written at the proof is in the RAM before the queue shows
        // its entry (three cycles), so no read meets its own channel's write.
        // The staged result leaves through a skid buffer, whose `ready` is
        // a register: a delivery (late in the cycle) then delays only the
        // push below, never the queue's pop or the RAMs' read address.
        self.spare.next = !self.deliver.val() & (self.used.q.val() < self.c_room_max.val());
        self.took_result.next = self.staged.q.val() & self.results.s.ready.val();
        self.proven_wide.i.next = self.proven_ch.val();
        // An entry: the channel above, the buffer in bit 0.
        self.proven_entry.next = self.proven_wide.o.val() << 1;
        if self.proven_buf.val() {
            self.proven_entry.next = (self.proven_wide.o.val() << 1) | self.c_one_rq.val();
        }
        self.proven_r.d.next = self.proven.val();
        self.proven_entry_r.d.next = self.proven_entry.val();
        self.proven_q.s.data.next = self.proven_entry_r.q.val();
        // (The queue holds each channel once at most: it is never full.)
        self.proven_q.s.valid.next = self.proven_r.q.val() & self.proven_q.s.ready.val();
        self.stage.next =
            self.proven_q.m.valid.val() & (!self.staged.q.val() | self.took_result.val());
        self.proven_q.m.ready.next = self.stage.val();
        self.result_ch.next = self.staged_ch.q.val();
        self.took_result_ch.next = self.staged_ch.q.val();
        self.took_result_buf.next = self.staged_buf.q.val();
        if self.stage.val() {
            self.staged.d.next = true;
            self.staged_ch.d.next = self.proven_q.m.data.val().get_bits::<CB>(1);
            self.staged_buf.d.next = self.proven_q.m.data.val().get_bit(0);
            self.result_ch.next = self.proven_q.m.data.val().get_bits::<CB>(1);
        } else if self.took_result.val() {
            self.staged.d.next = false;
        }

        // The scanner: one channel a cycle. The RAM reads are registered:
        // they address the channel scanned next cycle.
        self.scan.next = self.scan_ptr.q.val();
        self.scan_next.next = self.scan_ptr.q.val() + self.c_one_cb.val();
        self.scan_ptr.d.next = self.scan_ptr.q.val() + self.c_one_cb.val();
        self.result448.i.next = self.result.val();
        self.scan8.i.next = self.scan_ptr.q.val();
        self.staged8.i.next = self.staged_ch.q.val();
        self.results.s.valid.next = self.staged.q.val();
        self.results.s.data.next.kind = self.c_kind_verb_result.val();
        self.results.s.data.next.channel = self.staged8.o.val();
        self.results.s.data.next.payload = self.result448.o.val();
        self.results.m.ready.next = self.spare.val();
        self.took_return.next = false;
        if self.results.m.valid.val() & self.spare.val() {
            self.push.next = true;
            self.fifo.s.data.next = self.results.m.data.val();
        } else if self.returning.val() & self.spare.val() {
            self.push.next = true;
            self.took_return.next = true;
            self.fifo.s.data.next.channel = self.scan8.o.val();
            self.fifo.s.data.next.payload = self.ret_payload.val();
            self.fifo.s.data.next.kind = self.c_kind_not_delivered.val();
            if self.in_doubt.val() {
                self.fifo.s.data.next.kind = self.c_kind_in_doubt.val();
            }
            if self.returning_verb.val() {
                self.fifo.s.data.next.kind = self.c_kind_verb_not_delivered.val();
                if self.in_doubt.val() {
                    self.fifo.s.data.next.kind = self.c_kind_verb_in_doubt.val();
                }
            }
        }
        self.fifo.s.valid.next = self.push.val();

        // Out through a skid buffer.
        self.out.s.data.next = self.fifo.m.data.val();
        self.out.s.valid.next = self.fifo.m.valid.val();
        self.fifo.m.ready.next = self.out.s.ready.val();
        self.m_msg.data.next = self.out.m.data.val();
        self.m_msg.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m_msg.ready.val();
        self.pop.next = self.fifo.m.valid.val() & self.out.s.ready.val();
        // `push` never meets a full FIFO (a store reserves room for every
        // channel's commit); counting by the handshake keeps `used` exact regardless.
        self.push_ok.next = self.push.val() & self.fifo.s.ready.val();
        if self.push_ok.val() & !self.pop.val() {
            self.used.d.next = self.used.q.val() + self.c_one_used.val();
        }
        if self.pop.val() & !self.push_ok.val() {
            self.used.d.next = self.used.q.val() - self.c_one_used.val();
        }
    }
}
