use super::frame_len::{ETHERTYPE_BIT, HEAD_BIT, HEAD_BITS};
use super::FrameLenParser;
use crate::stream::{SkidBuffer, StreamSink, StreamSource};
use crate::types::{CplBeat, TxBeat};
use rust_hdl::prelude::*;

/// TX parse stage: reads every completion beat as if a frame started there
/// (length by the rule of `pendulum_layout::frame`, and its last beat's
/// keep) and as if it were a message slot (its kind byte), and registers
/// the beat with the result. The framer knows which beats start frames or
/// are slots and uses the result only there; doing the parse a cycle early
/// keeps it out of the framer's path from the beat to its ready.
///
/// Latency 1 cycle; 1 beat/cycle; stalls only on `m.ready`.
#[derive(LogicBlock)]
pub struct TxParse {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<CplBeat>,
    pub m: StreamSource<TxBeat>,

    hdr: FrameLenParser,
    out: SkidBuffer<TxBeat>,
    data: Signal<Local, Bits<512>>,
    all_keep: Constant<Bits<64>>,
    kind_send: Constant<Bits<8>>,
    kind_send_verb: Constant<Bits<8>>,
    kind_verb: Constant<Bits<8>>,
    op_commit: Constant<Bits<8>>,
    at_ethertype: Constant<Bits<9>>,
    at_head: Constant<Bits<9>>,
}

impl TxParse {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            hdr: FrameLenParser::new(),
            out: Default::default(),
            data: Default::default(),
            all_keep: Constant::new(u64::MAX.into()),
            kind_send: Constant::new((pendulum_layout::acp::message::KIND_SEND as u64).into()),
            kind_send_verb: Constant::new(
                (pendulum_layout::acp::message::KIND_SEND_VERB as u64).into(),
            ),
            kind_verb: Constant::new((pendulum_layout::atomic::KIND_VERB as u64).into()),
            op_commit: Constant::new((pendulum_layout::atomic::op::COMMIT as u64).into()),
            at_ethertype: Constant::new(ETHERTYPE_BIT.into()),
            at_head: Constant::new(HEAD_BIT.into()),
        }
    }
}

impl Default for TxParse {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for TxParse {
    #[hdl_gen]
    fn update(&mut self) {
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.data.next = self.s.data.val().data;
        self.hdr.ethertype.next = self
            .data
            .val()
            .get_bits::<16>(self.at_ethertype.val().index());
        self.hdr.head.next = self
            .data
            .val()
            .get_bits::<HEAD_BITS>(self.at_head.val().index());
        self.out.s.data.next.data = self.data.val();
        self.out.s.data.next.last = self.s.data.val().last;
        self.out.s.data.next.len = self.hdr.len.val();
        self.out.s.data.next.slots = self.hdr.slots.val();
        self.out.s.data.next.len_known = self.hdr.known.val() & !self.hdr.too_big.val();
        // Only the length's low 6 bits, so each keep bit is one LUT.
        self.out.s.data.next.last_keep = self.all_keep.val() >> self.hdr.last_shift.val();
        self.out.s.data.next.kind_send = self.data.val().get_bits::<8>(0) == self.kind_send.val();
        self.out.s.data.next.kind_send_verb =
            self.data.val().get_bits::<8>(0) == self.kind_send_verb.val();
        self.out.s.data.next.kind_verb = self.data.val().get_bits::<8>(0) == self.kind_verb.val();
        self.out.s.data.next.op_commit = self.data.val().get_bits::<8>(8) == self.op_commit.val();
        self.out.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.out.s.ready.val();
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();
    }
}
