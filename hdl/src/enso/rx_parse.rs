use super::frame_len::{ETHERTYPE_BIT, LENS_BIT};
use super::FrameLenParser;
use crate::stream::{SkidBuffer, StreamSink, StreamSource};
use crate::types::{EthBeat, RxBeat};
use pendulum_layout::params::{MIN_FRAME_BYTES, PIPE_BITS};
use rust_hdl::prelude::*;

/// RX parse stage: reads each frame's length from the headers on its first
/// beat (by the rule of `pendulum_layout::frame`) and checks every
/// last beat's byte count against that length, then registers the beat with
/// its results. Splitting this from the RX engine keeps the parse and the
/// ring-room check in different cycles.
///
/// Latency 1 cycle; 1 beat/cycle; stalls only on `m.ready`.
#[derive(LogicBlock)]
pub struct RxParse {
    pub clock: Signal<In, Clock>,
    pub s: StreamSink<EthBeat>,
    pub m: StreamSource<RxBeat>,

    in_frame: DFF<Bit>,
    frame_len: DFF<Bits<16>>,
    hdr: FrameLenParser,
    out: SkidBuffer<RxBeat>,
    data: Signal<Local, Bits<512>>,
    keep: Signal<Local, Bits<64>>,
    sop: Signal<Local, Bit>,
    len: Signal<Local, Bits<16>>,
    len6: Signal<Local, Bits<6>>,
    keep_shift: Signal<Local, Bits<6>>,
    at_ethertype: Constant<Bits<9>>,
    at_lens: Constant<Bits<9>>,
    no_pipe: Constant<Bits<PIPE_BITS>>,
    all_keep: Constant<Bits<64>>,
    min_keep: Constant<Bits<64>>,
    min_frame: Constant<Bits<16>>,
    one6: Constant<Bits<6>>,
}

impl RxParse {
    pub fn new() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            s: Default::default(),
            m: Default::default(),
            in_frame: Default::default(),
            frame_len: Default::default(),
            hdr: FrameLenParser::new(),
            out: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            sop: Default::default(),
            len: Default::default(),
            len6: Default::default(),
            keep_shift: Default::default(),
            at_ethertype: Constant::new(ETHERTYPE_BIT.into()),
            at_lens: Constant::new(LENS_BIT.into()),
            no_pipe: Constant::new(0u64.into()),
            all_keep: Constant::new(u64::MAX.into()),
            min_keep: Constant::new(((1u64 << MIN_FRAME_BYTES) - 1).into()),
            min_frame: c16(MIN_FRAME_BYTES as u64),
            one6: Constant::new(1u64.into()),
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
        dff_setup!(self, clock, in_frame, frame_len);
        self.out.clock.next = self.clock.val();
        self.data.next = self.s.data.val().data;
        self.keep.next = self.s.data.val().keep;
        self.sop.next = !self.in_frame.q.val();
        self.hdr.ethertype.next = self
            .data
            .val()
            .get_bits::<16>(self.at_ethertype.val().index());
        self.hdr.lens.next = self.data.val().get_bits::<32>(self.at_lens.val().index());
        self.len.next = self.frame_len.q.val();
        if self.sop.val() {
            self.len.next = self.hdr.len.val();
        }
        // The keep a last beat must have: bytes 0..=(len - 1) mod 64. The shift
        // is 63 - ((len - 1) mod 64), which is the 6-bit complement: only the
        // length's low 6 bits are involved, so this stays a few LUTs deep.
        self.len6.next = self.len.val().get_bits::<6>(0);
        self.keep_shift.next = !(self.len6.val() - self.one6.val());

        self.out.s.data.next.data = self.data.val();
        self.out.s.data.next.keep = self.keep.val();
        self.out.s.data.next.last = self.s.data.val().last;
        self.out.s.data.next.sop = self.sop.val();
        self.out.s.data.next.pipe = self.no_pipe.val();
        self.out.s.data.next.len = self.hdr.len.val();
        self.out.s.data.next.slots = self.hdr.slots.val();
        self.out.s.data.next.len_known = self.hdr.known.val() & !self.hdr.too_big.val();
        self.out.s.data.next.keep_ok = (self.keep.val()
            == (self.all_keep.val() >> self.keep_shift.val()))
            | ((self.len.val() < self.min_frame.val()) & (self.keep.val() == self.min_keep.val()));
        self.out.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.out.s.ready.val();
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();

        if self.s.valid.val() & self.out.s.ready.val() {
            self.in_frame.d.next = !self.s.data.val().last;
            if self.sop.val() {
                self.frame_len.d.next = self.hdr.len.val();
            }
        }
    }
}
