use crate::konst as k;
use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamSink, StreamSource};
use crate::types::{AcpSend, SlotBeat, TxEntryBeat, TxEthBeat};
use pendulum_layout::params::{SLOT_BITS, TX_PIPES, TX_PIPE_BITS};
use rust_hdl::prelude::*;

/// Bytes of a message slot (`pendulum_layout::acp::message`, and an atomic
/// verb's slot).
const SLOT_BYTES: u64 = 64;

/// TX entry framer: the v2 ring format's framer. It takes the entries the
/// ring unpacker (`RingUnpacker`) found, already aligned and checked against
/// their run, and sends each where its pipe's binding says: Ethernet frames
/// to the MAC, messages to the ACP link, verbs to the atomic unit. It moves
/// each pipe's TX head past every entry it finished, sent or dropped.
///
/// Each entry is decided at its first beat, and its later beats follow:
/// - a `bad` entry (length 0 or over the MTU, or past the tail rung) is
///   dropped and counted;
/// - on a pipe bound to the ACP link, an entry must be one 64-byte message
///   whose byte 0 is KIND_SEND or KIND_SEND_VERB
///   (`pendulum_layout::acp::message`);
/// - on a pipe bound to the atomic unit, one verb: 64 bytes with byte 0
///   KIND_VERB (`pendulum_layout::atomic`), or a commit's three slots (192
///   bytes, byte 1 COMMIT), passed on as slots, `first` on the header's;
/// - else it is an Ethernet frame, whatever its EtherType: the length is
///   the header's, so nothing parses the frame.
///
/// Anything else is dropped and counted, alone: the entries behind it go.
/// A pipe that is off has its entries consumed without a head move (its
/// restart sets the head anyway); a pipe switched off while one of its
/// frames is leaving finishes that frame, whose bytes are here already.
/// A frame whose run was cut short (`abort`: its pipe restarted while it
/// was read) ends at once, its last beat the unpacker's filler: the MAC
/// port has no error flag to abort a frame with, so it leaves short, and
/// it is counted as dropped. A commit cut short stops: the atomic unit
/// refuses it, with a result, when the next verb comes.
///
/// A frame that asks for a TX stamp (`TxEntryBeat::stamp`) on a pipe with
/// stamps on (`stamps_on`, TX_CTRL_STAMPS) leaves with `stamp` set on its
/// first beat, and its pipe, entry and length beside it, for the stamp
/// writer at the MAC port (`TxStampWriter`).
///
/// Head moves and events are registered: `moved`, `new_head`, `old_head`
/// and the `ev_*` pulses come the cycle after the beat that caused them
/// (`next_ev_pipe` is the pipe of the next cycle's `ev_pipe`, for a RAM
/// read that must start a cycle ahead).
///
/// Latency 0 (1 on `m_acp`, registered there); 1 beat/cycle; stalls only
/// on its outputs' ready.
#[derive(LogicBlock)]
pub struct TxEntryFramer {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<TxEntryBeat>,
    pub m_eth: StreamSource<TxEthBeat>,
    pub m_acp: StreamSource<AcpSend>,
    pub acp_bound: Signal<In, Bits<TX_PIPES>>,
    pub m_atomic: StreamSource<SlotBeat>,
    pub atomic_bound: Signal<In, Bits<TX_PIPES>>,
    /// Each TX pipe's on bit.
    pub tx_enable: Signal<In, Bits<TX_PIPES>>,
    /// Each TX pipe's stamps bit (TX_CTRL_STAMPS).
    pub stamps_on: Signal<In, Bits<TX_PIPES>>,
    /// One-cycle pulse: pipe `ev_pipe`'s head moved from `old_head` to
    /// `new_head` (past the entry just finished).
    pub moved: Signal<Out, Bit>,
    pub new_head: Signal<Out, Bits<SLOT_BITS>>,
    pub old_head: Signal<Out, Bits<SLOT_BITS>>,
    pub next_ev_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    pub ev_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    /// An Ethernet frame of `ev_frame_bytes` left whole.
    pub ev_frame: Signal<Out, Bit>,
    pub ev_frame_bytes: Signal<Out, Bits<16>>,
    /// An entry was dropped.
    pub ev_drop_malformed: Signal<Out, Bit>,

    // The entry in progress goes to the MAC, or to the atomic unit, or
    // nowhere (dropped, or its pipe was off); it moves its pipe's head when
    // done.
    to_eth: SDFF<Bit>,
    to_atomic: SDFF<Bit>,
    moves: SDFF<Bit>,
    acp_out: SkidBuffer<AcpSend>,
    moved_r: SDFF<Bit>,
    new_head_r: SDFF<Bits<SLOT_BITS>>,
    old_head_r: SDFF<Bits<SLOT_BITS>>,
    ev_pipe_r: SDFF<Bits<TX_PIPE_BITS>>,
    ev_frame_r: SDFF<Bit>,
    ev_frame_bytes_r: SDFF<Bits<16>>,
    ev_drop_r: SDFF<Bit>,

    beat: Signal<Local, TxEntryBeat>,
    data: Signal<Local, Bits<512>>,
    len: Signal<Local, Bits<16>>,
    pipe: Signal<Local, Bits<TX_PIPE_BITS>>,
    en: Signal<Local, Bit>,
    bound: Signal<Local, Bit>,
    atomic: Signal<Local, Bit>,
    kind_acp: Signal<Local, Bit>,
    kind_verb: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    msg_ok: Signal<Local, Bit>,
    verb_ok: Signal<Local, Bit>,
    // This beat, as decided (at a first beat) or followed (later beats).
    go_eth: Signal<Local, Bit>,
    go_acp: Signal<Local, Bit>,
    go_atomic: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    move_head: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    kind_send: Constant<Bits<8>>,
    kind_send_verb: Constant<Bits<8>>,
    kind_verb_c: Constant<Bits<8>>,
    op_commit: Constant<Bits<8>>,
    slot_len: Constant<Bits<16>>,
    commit_len: Constant<Bits<16>>,
}

impl TxEntryFramer {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m_eth: Default::default(),
            m_acp: Default::default(),
            acp_bound: Default::default(),
            m_atomic: Default::default(),
            atomic_bound: Default::default(),
            tx_enable: Default::default(),
            stamps_on: Default::default(),
            moved: Default::default(),
            new_head: Default::default(),
            old_head: Default::default(),
            next_ev_pipe: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_frame_bytes: Default::default(),
            ev_drop_malformed: Default::default(),
            to_eth: Default::default(),
            to_atomic: Default::default(),
            moves: Default::default(),
            acp_out: Default::default(),
            moved_r: Default::default(),
            new_head_r: Default::default(),
            old_head_r: Default::default(),
            ev_pipe_r: Default::default(),
            ev_frame_r: Default::default(),
            ev_frame_bytes_r: Default::default(),
            ev_drop_r: Default::default(),
            beat: Default::default(),
            data: Default::default(),
            len: Default::default(),
            pipe: Default::default(),
            en: Default::default(),
            bound: Default::default(),
            atomic: Default::default(),
            kind_acp: Default::default(),
            kind_verb: Default::default(),
            commit: Default::default(),
            msg_ok: Default::default(),
            verb_ok: Default::default(),
            go_eth: Default::default(),
            go_acp: Default::default(),
            go_atomic: Default::default(),
            drop: Default::default(),
            move_head: Default::default(),
            accept: Default::default(),
            kind_send: k(pendulum_layout::acp::message::KIND_SEND.into()),
            kind_send_verb: k(pendulum_layout::acp::message::KIND_SEND_VERB.into()),
            kind_verb_c: k(pendulum_layout::atomic::KIND_VERB.into()),
            op_commit: k(pendulum_layout::atomic::op::COMMIT.into()),
            slot_len: k(SLOT_BYTES),
            commit_len: k(pendulum_layout::atomic::COMMIT_SLOTS as u64 * SLOT_BYTES),
        }
    }
}

impl Default for TxEntryFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for TxEntryFramer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            to_eth,
            to_atomic,
            moves,
            moved_r,
            new_head_r,
            old_head_r,
            ev_pipe_r,
            ev_frame_r,
            ev_frame_bytes_r,
            ev_drop_r
        );
        self.to_eth.reset.next = self.reset.val();
        self.to_atomic.reset.next = self.reset.val();
        self.moves.reset.next = self.reset.val();
        self.moved_r.reset.next = self.reset.val();
        self.new_head_r.reset.next = self.reset.val();
        self.old_head_r.reset.next = self.reset.val();
        self.ev_pipe_r.reset.next = self.reset.val();
        self.ev_frame_r.reset.next = self.reset.val();
        self.ev_frame_bytes_r.reset.next = self.reset.val();
        self.ev_drop_r.reset.next = self.reset.val();
        self.acp_out.clock.next = self.clock.val();
        self.acp_out.reset.next = self.reset.val();

        self.beat.next = self.s.data.val();
        self.data.next = self.beat.val().data;
        self.pipe.next = self.beat.val().pipe;
        self.len.next = self.beat.val().len;
        self.en.next = self.tx_enable.val().get_bit(self.pipe.val().index());
        self.bound.next = self.acp_bound.val().get_bit(self.pipe.val().index());
        self.atomic.next = self.atomic_bound.val().get_bit(self.pipe.val().index());
        self.kind_acp.next = (self.data.val().get_bits::<8>(0) == self.kind_send.val())
            | (self.data.val().get_bits::<8>(0) == self.kind_send_verb.val());
        self.kind_verb.next = self.data.val().get_bits::<8>(0) == self.kind_verb_c.val();
        self.commit.next = self.data.val().get_bits::<8>(8) == self.op_commit.val();
        self.msg_ok.next = self.kind_acp.val() & (self.len.val() == self.slot_len.val());
        self.verb_ok.next = self.kind_verb.val() & (self.len.val() == self.slot_len.val());
        if self.commit.val() {
            self.verb_ok.next = self.kind_verb.val() & (self.len.val() == self.commit_len.val());
        }

        // Where this beat goes: decided at an entry's first beat, followed after.
        self.go_eth.next = self.to_eth.q.val();
        self.go_acp.next = false;
        // A commit cut short does not pass its filler on: the unit refuses
        // a commit whose lines stop coming when the next verb arrives.
        self.go_atomic.next = self.to_atomic.q.val() & !self.beat.val().abort;
        // Counted as a drop (once, at its first beat).
        self.drop.next = false;
        if self.beat.val().sop {
            self.go_eth.next = false;
            self.go_atomic.next = false;
            if self.en.val() & !self.beat.val().bad {
                if self.bound.val() {
                    self.go_acp.next = self.msg_ok.val();
                } else if self.atomic.val() {
                    self.go_atomic.next = self.verb_ok.val();
                } else {
                    self.go_eth.next = true;
                }
            }
            self.drop.next =
                self.en.val() & !self.go_eth.val() & !self.go_acp.val() & !self.go_atomic.val();
        }

        self.m_eth.data.next.data = self.data.val();
        self.m_eth.data.next.keep = self.beat.val().keep;
        self.m_eth.data.next.last = self.beat.val().last;
        self.m_eth.data.next.stamp = self.beat.val().sop
            & self.beat.val().stamp
            & self.stamps_on.val().get_bit(self.pipe.val().index());
        self.m_eth.data.next.pipe = self.pipe.val();
        self.m_eth.data.next.entry = self.beat.val().start;
        self.m_eth.data.next.len = self.len.val();
        self.m_eth.valid.next = self.s.valid.val() & self.go_eth.val();
        self.acp_out.s.data.next.payload = self.data.val().get_bits::<448>(64);
        self.acp_out.s.data.next.verb =
            self.data.val().get_bits::<8>(0) == self.kind_send_verb.val();
        self.acp_out.s.valid.next = self.s.valid.val() & self.go_acp.val();
        self.m_acp.data.next = self.acp_out.m.data.val();
        self.m_acp.valid.next = self.acp_out.m.valid.val();
        self.acp_out.m.ready.next = self.m_acp.ready.val();
        self.m_atomic.data.next.data = self.data.val();
        self.m_atomic.data.next.first = self.beat.val().sop;
        self.m_atomic.data.next.last = self.beat.val().last;
        self.m_atomic.valid.next = self.s.valid.val() & self.go_atomic.val();
        self.s.ready.next = true;
        if self.go_eth.val() {
            self.s.ready.next = self.m_eth.ready.val();
        }
        if self.go_acp.val() {
            self.s.ready.next = self.acp_out.s.ready.val();
        }
        if self.go_atomic.val() {
            self.s.ready.next = self.m_atomic.ready.val();
        }
        self.accept.next = self.s.valid.val() & self.s.ready.val();

        // The entry's head move and events, at its last beat.
        self.move_head.next = self.moves.q.val();
        if self.beat.val().sop {
            self.move_head.next = self.en.val();
        }
        self.moved_r.d.next = false;
        self.ev_frame_r.d.next = false;
        self.ev_drop_r.d.next = false;
        self.ev_pipe_r.d.next = self.pipe.val();
        self.new_head_r.d.next = self.beat.val().end;
        self.old_head_r.d.next = self.beat.val().start;
        self.ev_frame_bytes_r.d.next = self.len.val();
        if self.accept.val() {
            if self.beat.val().sop {
                self.to_eth.d.next = self.go_eth.val();
                self.to_atomic.d.next = self.go_atomic.val();
                self.moves.d.next = self.move_head.val();
                self.ev_drop_r.d.next = self.drop.val();
            }
            if self.beat.val().last {
                self.to_eth.d.next = false;
                self.to_atomic.d.next = false;
                self.moved_r.d.next = self.move_head.val();
                // A frame cut short is counted as dropped, not as sent.
                self.ev_frame_r.d.next = self.go_eth.val() & !self.beat.val().abort;
                if self.beat.val().abort & (self.to_eth.q.val() | self.to_atomic.q.val()) {
                    self.ev_drop_r.d.next = true;
                }
            }
        }
        self.moved.next = self.moved_r.q.val();
        self.new_head.next = self.new_head_r.q.val();
        self.old_head.next = self.old_head_r.q.val();
        self.next_ev_pipe.next = self.pipe.val();
        self.ev_pipe.next = self.ev_pipe_r.q.val();
        self.ev_frame.next = self.ev_frame_r.q.val();
        self.ev_frame_bytes.next = self.ev_frame_bytes_r.q.val();
        self.ev_drop_malformed.next = self.ev_drop_r.q.val();
    }
}
