use super::frame_len::{ETHERTYPE_BIT, HEAD_BIT, HEAD_BITS};
use super::FrameLenParser;
use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamSink, StreamSource};
use crate::types::{EthBeat, RxBeat};
use pendulum_layout::params::{MIN_FRAME_BYTES, PIPE_BITS};
use rust_hdl::prelude::*;

/// A beat between the parse stage's two halves: what the headers said, and
/// the two facts the last-beat check needs, worked out from the length while
/// it is fresh.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
struct ParsedBeat {
    data: Bits<512>,
    keep: Bits<64>,
    last: Bit,
    sop: Bit,
    len: Bits<16>,
    slots: Bits<16>,
    len_known: Bit,
    /// 63 - ((len - 1) mod 64): how far a full keep shifts right to give the
    /// keep of this frame's last beat.
    keep_shift: Bits<6>,
    /// Shorter than the minimum frame: its last beat may carry padding.
    short: Bit,
}

/// RX parse stage: reads each frame's length from the headers on its first
/// beat (by the rule of `pendulum_layout::frame`) and checks every
/// last beat's byte count against that length. Two registered halves: the
/// header parse, then the last-beat check, so neither the parse, nor the
/// check, nor the RX engine's ring-room check share a cycle.
///
/// Latency 2 cycles; 1 beat/cycle; stalls only on `m.ready`.
#[derive(LogicBlock)]
pub struct RxParse {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<EthBeat>,
    pub m: StreamSource<RxBeat>,

    in_frame: SDFF<Bit>,
    hdr: FrameLenParser,
    parsed: SkidBuffer<ParsedBeat>,
    // The second half's copy of the frame's last-beat facts, from its first beat.
    frame_shift: SDFF<Bits<6>>,
    frame_short: SDFF<Bit>,
    out: SkidBuffer<RxBeat>,
    data: Signal<Local, Bits<512>>,
    sop: Signal<Local, Bit>,
    short: Signal<Local, Bit>,
    at_ethertype: Constant<Bits<9>>,
    at_head: Constant<Bits<9>>,
    no_pipe: Constant<Bits<PIPE_BITS>>,
    all_keep: Constant<Bits<64>>,
    min_keep: Constant<Bits<64>>,
    min_frame: Constant<Bits<16>>,
}

impl RxParse {
    pub fn new() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            in_frame: Default::default(),
            hdr: FrameLenParser::new(),
            parsed: Default::default(),
            frame_shift: Default::default(),
            frame_short: Default::default(),
            out: Default::default(),
            data: Default::default(),
            sop: Default::default(),
            short: Default::default(),
            at_ethertype: Constant::new(ETHERTYPE_BIT.into()),
            at_head: Constant::new(HEAD_BIT.into()),
            no_pipe: Constant::new(0u64.into()),
            all_keep: Constant::new(u64::MAX.into()),
            min_keep: Constant::new(((1u64 << MIN_FRAME_BYTES) - 1).into()),
            min_frame: c16(MIN_FRAME_BYTES as u64),
        }
    }
}

impl Default for RxParse {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, frame_shift, frame_short);
        self.in_frame.reset.next = self.reset.val();
        self.frame_shift.reset.next = self.reset.val();
        self.frame_short.reset.next = self.reset.val();
        self.parsed.clock.next = self.clock.val();
        self.parsed.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // First half: the headers.
        self.data.next = self.s.data.val().data;
        self.sop.next = !self.in_frame.q.val();
        self.hdr.ethertype.next = self
            .data
            .val()
            .get_bits::<16>(self.at_ethertype.val().index());
        self.hdr.head.next = self
            .data
            .val()
            .get_bits::<HEAD_BITS>(self.at_head.val().index());
        self.short.next = self.hdr.len.val() < self.min_frame.val();
        self.parsed.s.data.next.data = self.data.val();
        self.parsed.s.data.next.keep = self.s.data.val().keep;
        self.parsed.s.data.next.last = self.s.data.val().last;
        self.parsed.s.data.next.sop = self.sop.val();
        self.parsed.s.data.next.len = self.hdr.len.val();
        self.parsed.s.data.next.slots = self.hdr.slots.val();
        self.parsed.s.data.next.len_known = self.hdr.known.val() & !self.hdr.too_big.val();
        self.parsed.s.data.next.keep_shift = self.hdr.last_shift.val();
        self.parsed.s.data.next.short = self.short.val();
        self.parsed.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.parsed.s.ready.val();
        if self.s.valid.val() & self.parsed.s.ready.val() {
            self.in_frame.d.next = !self.s.data.val().last;
        }

        // Second half: a last beat's byte count against the frame's length
        // (its first beat's facts, kept here; a one-beat frame uses its own).
        self.out.s.data.next.data = self.parsed.m.data.val().data;
        self.out.s.data.next.keep = self.parsed.m.data.val().keep;
        self.out.s.data.next.last = self.parsed.m.data.val().last;
        self.out.s.data.next.sop = self.parsed.m.data.val().sop;
        self.out.s.data.next.pipe = self.no_pipe.val();
        self.out.s.data.next.len = self.parsed.m.data.val().len;
        self.out.s.data.next.slots = self.parsed.m.data.val().slots;
        self.out.s.data.next.len_known = self.parsed.m.data.val().len_known;
        if self.parsed.m.data.val().sop {
            self.out.s.data.next.keep_ok = (self.parsed.m.data.val().keep
                == (self.all_keep.val() >> self.parsed.m.data.val().keep_shift))
                | (self.parsed.m.data.val().short
                    & (self.parsed.m.data.val().keep == self.min_keep.val()));
        } else {
            self.out.s.data.next.keep_ok = (self.parsed.m.data.val().keep
                == (self.all_keep.val() >> self.frame_shift.q.val()))
                | (self.frame_short.q.val()
                    & (self.parsed.m.data.val().keep == self.min_keep.val()));
        }
        self.out.s.valid.next = self.parsed.m.valid.val();
        self.parsed.m.ready.next = self.out.s.ready.val();
        if self.parsed.m.valid.val() & self.out.s.ready.val() & self.parsed.m.data.val().sop {
            self.frame_shift.d.next = self.parsed.m.data.val().keep_shift;
            self.frame_short.d.next = self.parsed.m.data.val().short;
        }
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();
    }
}
