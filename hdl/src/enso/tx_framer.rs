use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamSink, StreamSource};
use crate::types::{AcpSend, EthBeat, SlotBeat, TxBeat, TxRunInfo};
use pendulum_layout::params::{SLOT_BITS, TX_PIPES, TX_PIPE_BITS};
use rust_hdl::prelude::*;

/// TX framer: turns the byte stream read from a TX ring back into frames on
/// the Ethernet TX port, and moves each pipe's TX head past what it finished.
///
/// A frame's length comes from its first beat's headers
/// (`pendulum_layout::frame`, read by the `TxParse` stage in front). Data that cannot be a frame (no length rule,
/// over the MTU, or running past the tail software rang) is dropped up to that
/// tail and counted once; the engine goes on with the next run. Frames are
/// checked before their first beat goes out, so the MAC never sees a part.
///
/// The framer keeps no per-pipe state: each read's info entry brings its
/// ring slot and mask (a read that starts outside a frame starts at the
/// pipe's head, since runs end on frame boundaries), and one register holds
/// the head of the pipe being framed. The head moves and events are
/// registered: `moved`, `new_head`, `old_head` and the `ev_*`
/// pulses come the cycle after the beat that caused them; `TxRegs` keeps
/// each pipe's head from them.
///
/// Latency 0 (1 on `m_acp`, registered there: the link's ready comes from
/// its channel scan; 1 for the head moves and events); 1 beat/cycle; stalls
/// only on `m_eth.ready`.
#[derive(LogicBlock)]
pub struct TxFramer {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Read completions, in request order, through the parse stage.
    pub s_cpl: StreamSink<TxBeat>,
    /// One entry per read request (popped on its last beat).
    pub s_info: StreamSink<TxRunInfo>,
    pub m_eth: StreamSource<EthBeat>,
    /// Payloads of messages from pipes bound to the ACP link: each 64-byte
    /// slot is one message, `pendulum_layout::acp::message` (header byte 0
    /// must be KIND_SEND, else the slot is dropped and counted).
    /// (KIND_SEND_VERB marks a remote atomic verb.)
    pub m_acp: StreamSource<AcpSend>,
    pub acp_bound: Signal<In, Bits<TX_PIPES>>,
    /// Verb slots of pipes bound to the atomic unit (byte 0 must be
    /// `pendulum_layout::atomic::KIND_VERB`, else dropped and counted). A
    /// commit header brings its two line slots with it (`first` clear on
    /// them); a commit the rung tail cuts short is dropped to that tail and
    /// counted, so its lines are never taken for verbs.
    pub m_atomic: StreamSource<SlotBeat>,
    pub atomic_bound: Signal<In, Bits<TX_PIPES>>,
    /// Each TX pipe's on bit.
    pub tx_enable: Signal<In, Bits<TX_PIPES>>,
    /// One-cycle pulse: pipe `ev_pipe`'s head moved from `old_head` to
    /// `new_head` (the slot after the last frame sent or dropped).
    /// `next_ev_pipe` is the pipe of the next cycle's `ev_pipe` (for a RAM
    /// read that must start a cycle ahead).
    pub moved: Signal<Out, Bit>,
    pub new_head: Signal<Out, Bits<SLOT_BITS>>,
    pub old_head: Signal<Out, Bits<SLOT_BITS>>,
    pub next_ev_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,

    /// A completion beat was consumed (one credit back to the fetcher).
    pub beat_consumed: Signal<Out, Bit>,
    pub ev_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_frame_bytes: Signal<Out, Bits<16>>,
    pub ev_drop_malformed: Signal<Out, Bit>,

    in_frame: SDFF<Bit>,
    dropping: SDFF<Bit>,
    beats_left: SDFF<Bits<16>>,
    frame_len: SDFF<Bits<16>>,
    frame_slots: SDFF<Bits<16>>,
    /// Line slots of a commit still to pass to the atomic unit.
    commit_left: SDFF<Bits<2>>,
    // The head of the pipe being framed (valid within a read, and from a
    // frame's start to its end).
    head_r: SDFF<Bits<SLOT_BITS>>,
    // Slots of the run from the next beat on, once a beat of the current
    // read was taken (`mid_read`); a read's first beat takes the count from
    // its info entry. Counting beats instead of subtracting the head from
    // the run's tail keeps an adder out of the path to every ready.
    rem_r: SDFF<Bits<SLOT_BITS>>,
    mid_read: SDFF<Bit>,
    /// Keep of the last beat of the frame in progress (from the parse
    /// stage, at its first beat).
    frame_keep: SDFF<Bits<64>>,
    /// Message slots to the link, registered both ways.
    acp_out: SkidBuffer<AcpSend>,
    // The outputs for head moves and events, registered (the consumers'
    // compares would otherwise follow the accept logic in the same cycle).
    moved_r: SDFF<Bit>,
    new_head_r: SDFF<Bits<SLOT_BITS>>,
    old_head_r: SDFF<Bits<SLOT_BITS>>,
    ev_pipe_r: SDFF<Bits<TX_PIPE_BITS>>,
    ev_frame_r: SDFF<Bit>,
    ev_frame_bytes_r: SDFF<Bits<16>>,
    ev_drop_r: SDFF<Bit>,

    beat_data: Signal<Local, Bits<512>>,
    tx_pipe: Signal<Local, Bits<TX_PIPE_BITS>>,
    sel_mask: Signal<Local, Bits<SLOT_BITS>>,
    sel_head: Signal<Local, Bits<SLOT_BITS>>,
    head_moves: Signal<Local, Bit>,
    head_next: Signal<Local, Bits<SLOT_BITS>>,
    sel_enable: Signal<Local, Bit>,
    sel_bound: Signal<Local, Bit>,
    sel_atomic: Signal<Local, Bit>,
    slot_msg: Signal<Local, Bit>,
    acp_emit: Signal<Local, Bit>,
    acp_kind_ok: Signal<Local, Bit>,
    atomic_emit: Signal<Local, Bit>,
    atomic_kind_ok: Signal<Local, Bit>,
    commit_hdr: Signal<Local, Bit>,
    commit_line: Signal<Local, Bit>,
    slot_kind_ok: Signal<Local, Bit>,
    acp_verb: Signal<Local, Bit>,
    commit_slots: Constant<Bits<SLOT_BITS>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    remaining: Signal<Local, Bits<SLOT_BITS>>,
    /// The frame starting here has more slots than the run has left (both
    /// candidates for `remaining` compared, then one chosen).
    over_run: Signal<Local, Bit>,
    commit_over_run: Signal<Local, Bit>,
    cur_len: Signal<Local, Bits<16>>,
    emit: Signal<Local, Bit>,
    last_beat: Signal<Local, Bit>,
    frame_last: Signal<Local, Bit>,
    start_last: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    all_keep: Constant<Bits<64>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
}

impl TxFramer {
    pub fn new() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_cpl: Default::default(),
            s_info: Default::default(),
            m_eth: Default::default(),
            m_acp: Default::default(),
            acp_bound: Default::default(),
            m_atomic: Default::default(),
            atomic_bound: Default::default(),
            sel_bound: Default::default(),
            sel_atomic: Default::default(),
            slot_msg: Default::default(),
            acp_emit: Default::default(),
            acp_kind_ok: Default::default(),
            atomic_emit: Default::default(),
            atomic_kind_ok: Default::default(),
            commit_hdr: Default::default(),
            commit_line: Default::default(),
            commit_slots: Constant::new((pendulum_layout::atomic::COMMIT_SLOTS as u64).into()),
            zero2: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            two2: Constant::new(2u64.into()),
            commit_left: Default::default(),
            slot_kind_ok: Default::default(),
            acp_verb: Default::default(),
            tx_enable: Default::default(),
            moved: Default::default(),
            new_head: Default::default(),
            old_head: Default::default(),
            next_ev_pipe: Default::default(),
            beat_consumed: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_frame_bytes: Default::default(),
            ev_drop_malformed: Default::default(),
            in_frame: Default::default(),
            dropping: Default::default(),
            beats_left: Default::default(),
            frame_len: Default::default(),
            frame_slots: Default::default(),
            head_r: Default::default(),
            rem_r: Default::default(),
            mid_read: Default::default(),
            frame_keep: Default::default(),
            acp_out: Default::default(),
            moved_r: Default::default(),
            new_head_r: Default::default(),
            old_head_r: Default::default(),
            ev_pipe_r: Default::default(),
            ev_frame_r: Default::default(),
            ev_frame_bytes_r: Default::default(),
            ev_drop_r: Default::default(),
            beat_data: Default::default(),
            tx_pipe: Default::default(),
            sel_mask: Default::default(),
            sel_head: Default::default(),
            head_moves: Default::default(),
            head_next: Default::default(),
            sel_enable: Default::default(),
            remaining: Default::default(),
            over_run: Default::default(),
            commit_over_run: Default::default(),
            cur_len: Default::default(),
            emit: Default::default(),
            last_beat: Default::default(),
            frame_last: Default::default(),
            start_last: Default::default(),
            bad: Default::default(),
            accept: Default::default(),
            all_keep: Constant::new(u64::MAX.into()),
            one16: c16(1),
            zero16: c16(0),
        }
    }
}

impl Default for TxFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for TxFramer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_frame,
            dropping,
            beats_left,
            frame_len,
            frame_slots,
            commit_left,
            rem_r,
            mid_read,
            frame_keep,
            head_r,
            moved_r,
            new_head_r,
            old_head_r,
            ev_pipe_r,
            ev_frame_r,
            ev_frame_bytes_r,
            ev_drop_r
        );
        self.in_frame.reset.next = self.reset.val();
        self.dropping.reset.next = self.reset.val();
        self.beats_left.reset.next = self.reset.val();
        self.frame_len.reset.next = self.reset.val();
        self.frame_slots.reset.next = self.reset.val();
        self.commit_left.reset.next = self.reset.val();
        self.rem_r.reset.next = self.reset.val();
        self.mid_read.reset.next = self.reset.val();
        self.frame_keep.reset.next = self.reset.val();
        self.head_r.reset.next = self.reset.val();
        self.moved_r.reset.next = self.reset.val();
        self.new_head_r.reset.next = self.reset.val();
        self.old_head_r.reset.next = self.reset.val();
        self.ev_pipe_r.reset.next = self.reset.val();
        self.ev_frame_r.reset.next = self.reset.val();
        self.ev_frame_bytes_r.reset.next = self.reset.val();
        self.ev_drop_r.reset.next = self.reset.val();
        self.acp_out.clock.next = self.clock.val();
        self.acp_out.reset.next = self.reset.val();
        self.beat_data.next = self.s_cpl.data.val().data;
        self.sel_mask.next = self.s_info.data.val().mask;
        // A read's first beat outside a frame is at the pipe's head.
        self.sel_head.next = self.head_r.q.val();
        if !self.in_frame.q.val() & !self.mid_read.q.val() {
            self.sel_head.next = self.s_info.data.val().slot;
        }
        self.tx_pipe.next = self.s_info.data.val().pipe;
        self.sel_enable.next = self.tx_enable.val().get_bit(self.tx_pipe.val().index());
        self.sel_bound.next = self.acp_bound.val().get_bit(self.tx_pipe.val().index());
        self.sel_atomic.next = self.atomic_bound.val().get_bit(self.tx_pipe.val().index());
        // Slots of this run not yet finished, counting the one in this beat
        // (wherever it is used, the head is at this beat's slot).
        self.remaining.next = self.s_info.data.val().run_left;
        self.over_run.next = self.s_cpl.data.val().slots > self.s_info.data.val().run_left;
        self.commit_over_run.next = self.s_info.data.val().run_left < self.commit_slots.val();
        if self.mid_read.q.val() {
            self.remaining.next = self.rem_r.q.val();
            self.over_run.next = self.s_cpl.data.val().slots > self.rem_r.q.val();
            self.commit_over_run.next = self.rem_r.q.val() < self.commit_slots.val();
        }

        // What this beat is: part of a frame going out, or data to drop.
        self.bad.next = false;
        self.emit.next = false;
        self.acp_emit.next = false;
        self.atomic_emit.next = false;
        // (The parse stage read the kind byte.)
        self.acp_verb.next = self.s_cpl.data.val().kind_send_verb;
        self.acp_kind_ok.next = self.s_cpl.data.val().kind_send | self.acp_verb.val();
        self.atomic_kind_ok.next = self.s_cpl.data.val().kind_verb;
        self.commit_hdr.next = self.atomic_kind_ok.val() & self.s_cpl.data.val().op_commit;
        // A commit's compare or write line: passed on as it is, whatever its byte 0.
        self.commit_line.next = self.commit_left.q.val() != self.zero2.val();
        // A pipe bound to the link or the atomic unit carries 64-byte slots, not frames.
        self.slot_msg.next = self.sel_bound.val() | self.sel_atomic.val();
        self.slot_kind_ok.next = (self.sel_bound.val() & self.acp_kind_ok.val())
            | (!self.sel_bound.val() & (self.atomic_kind_ok.val() | self.commit_line.val()));
        self.cur_len.next = self.frame_len.q.val();
        self.frame_last.next = self.beats_left.q.val() == self.one16.val();
        self.start_last.next = self.s_cpl.data.val().slots == self.one16.val();
        self.last_beat.next = self.frame_last.val();
        if self.in_frame.q.val() {
            self.emit.next = self.sel_enable.val();
        } else if !self.dropping.q.val() & self.sel_bound.val() {
            // A message slot for the ACP link, not a frame.
            self.acp_emit.next = self.sel_enable.val() & self.acp_kind_ok.val();
        } else if !self.dropping.q.val() & self.sel_atomic.val() {
            // A verb slot for the atomic unit; a commit needs all its slots in this run.
            self.bad.next =
                !self.commit_line.val() & self.commit_hdr.val() & self.commit_over_run.val();
            self.atomic_emit.next =
                self.sel_enable.val() & self.slot_kind_ok.val() & !self.bad.val();
        } else if !self.dropping.q.val() {
            self.cur_len.next = self.s_cpl.data.val().len;
            self.last_beat.next = self.start_last.val();
            self.bad.next = !self.s_cpl.data.val().len_known
                | (self.s_cpl.data.val().slots == self.zero16.val())
                | self.over_run.val();
            self.emit.next = self.sel_enable.val() & !self.bad.val();
        }

        // Keep: every byte, except on a frame's last beat: its length mod 64.
        // Both candidates are registers (the parse stage's, or the one kept
        // from the frame's first beat), chosen by `in_frame` rather than by
        // the beat's decoded kind, so that keep stays a few LUTs deep.
        self.m_eth.data.next.data = self.beat_data.val();
        self.m_eth.data.next.keep = self.all_keep.val();
        if self.in_frame.q.val() {
            self.m_eth.data.next.last = self.frame_last.val();
            if self.frame_last.val() {
                self.m_eth.data.next.keep = self.frame_keep.q.val();
            }
        } else {
            self.m_eth.data.next.last = self.start_last.val();
            if self.start_last.val() {
                self.m_eth.data.next.keep = self.s_cpl.data.val().last_keep;
            }
        }
        self.m_eth.valid.next = self.s_cpl.valid.val() & self.s_info.valid.val() & self.emit.val();
        self.acp_out.s.data.next.payload = self.beat_data.val().get_bits::<448>(64);
        self.acp_out.s.data.next.verb = self.acp_verb.val();
        self.acp_out.s.valid.next =
            self.s_cpl.valid.val() & self.s_info.valid.val() & self.acp_emit.val();
        self.m_acp.data.next = self.acp_out.m.data.val();
        self.m_acp.valid.next = self.acp_out.m.valid.val();
        self.acp_out.m.ready.next = self.m_acp.ready.val();
        self.s_cpl.ready.next = self.s_info.valid.val();
        if self.emit.val() {
            self.s_cpl.ready.next = self.s_info.valid.val() & self.m_eth.ready.val();
        }
        if self.acp_emit.val() {
            self.s_cpl.ready.next = self.s_info.valid.val() & self.acp_out.s.ready.val();
        }
        self.m_atomic.data.next.data = self.beat_data.val();
        self.m_atomic.data.next.first = !self.commit_line.val();
        self.m_atomic.data.next.last = (self.commit_left.q.val() == self.one2.val())
            | (!self.commit_line.val() & !self.commit_hdr.val());
        self.m_atomic.valid.next =
            self.s_cpl.valid.val() & self.s_info.valid.val() & self.atomic_emit.val();
        if self.atomic_emit.val() {
            self.s_cpl.ready.next = self.s_info.valid.val() & self.m_atomic.ready.val();
        }
        self.accept.next = self.s_cpl.valid.val() & self.s_cpl.ready.val();
        if self.accept.val() {
            self.rem_r.d.next = self.remaining.val() - self.one16.val();
            self.mid_read.d.next = !self.s_cpl.data.val().last;
        }
        self.beat_consumed.next = self.accept.val();
        self.s_info.ready.next = self.accept.val() & self.s_cpl.data.val().last;

        self.ev_pipe_r.d.next = self.tx_pipe.val();
        self.ev_frame_r.d.next = false;
        self.ev_frame_bytes_r.d.next = self.cur_len.val();
        self.ev_drop_r.d.next = false;
        // The head moves one slot, or past a whole frame on its last beat
        // (chosen apart from `accept`: `new_head` counts only with `moved`).
        self.head_moves.next = false;
        self.head_next.next = (self.sel_head.val() + self.one16.val()) & self.sel_mask.val();
        if self.in_frame.q.val() & self.frame_last.val() {
            self.head_next.next =
                (self.sel_head.val() + self.frame_slots.q.val()) & self.sel_mask.val();
        }
        if self.accept.val() & self.sel_enable.val() {
            if self.in_frame.q.val() {
                self.beats_left.d.next = self.beats_left.q.val() - self.one16.val();
                if self.last_beat.val() {
                    self.in_frame.d.next = false;
                    self.ev_frame_r.d.next = true;
                    self.head_moves.next = true;
                }
            } else if self.dropping.q.val() {
                // Skip to the tail that was rung; each slot is free once passed.
                self.head_moves.next = true;
                if self.remaining.val() == self.one16.val() {
                    self.dropping.d.next = false;
                }
            } else if self.bad.val() {
                self.ev_drop_r.d.next = true;
                self.head_moves.next = true;
                if self.remaining.val() > self.one16.val() {
                    self.dropping.d.next = true;
                }
            } else if self.slot_msg.val() {
                // One message or verb per slot (a commit's lines follow its
                // header), passed on or, without its kind byte, dropped.
                self.ev_drop_r.d.next = !self.slot_kind_ok.val();
                self.head_moves.next = true;
                if self.commit_line.val() {
                    self.commit_left.d.next = self.commit_left.q.val() - self.one2.val();
                } else if self.sel_atomic.val() & self.commit_hdr.val() {
                    self.commit_left.d.next = self.two2.val();
                }
            } else if self.last_beat.val() {
                // A one-beat frame.
                self.ev_frame_r.d.next = true;
                self.head_moves.next = true;
            } else {
                self.in_frame.d.next = true;
                self.frame_len.d.next = self.s_cpl.data.val().len;
                self.frame_slots.d.next = self.s_cpl.data.val().slots;
                self.frame_keep.d.next = self.s_cpl.data.val().last_keep;
                self.beats_left.d.next = self.s_cpl.data.val().slots - self.one16.val();
            }
        }
        self.moved_r.d.next = self.head_moves.val();
        self.new_head_r.d.next = self.head_next.val();
        self.old_head_r.d.next = self.sel_head.val();
        self.moved.next = self.moved_r.q.val();
        self.new_head.next = self.new_head_r.q.val();
        self.old_head.next = self.old_head_r.q.val();
        self.next_ev_pipe.next = self.tx_pipe.val();
        self.ev_pipe.next = self.ev_pipe_r.q.val();
        self.ev_frame.next = self.ev_frame_r.q.val();
        self.ev_frame_bytes.next = self.ev_frame_bytes_r.q.val();
        self.ev_drop_malformed.next = self.ev_drop_r.q.val();
        self.head_r.d.next = self.sel_head.val();
        if self.head_moves.val() {
            self.head_r.d.next = self.head_next.val();
        }
        // A pipe switched off mid-frame abandons it.
        if self.accept.val() & !self.sel_enable.val() {
            self.in_frame.d.next = false;
            self.dropping.d.next = false;
            self.commit_left.d.next = self.zero2.val();
        }
    }
}
