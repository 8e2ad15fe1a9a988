use super::FirstBeat;
use crate::konst as k;
use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamSink, StreamSource, ZeroExtend};
use crate::types::{RxBeat, SizedBeat};
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// RX intake: turns the store-and-forward FIFO's beats (each with its
/// frame's length and first-beat stamp, `stream::SizedFrameFifo`) into the
/// RX path's beats: it marks each frame's first beat, fills in the ring
/// entry's LEN and TIMESTAMP and the entry's size in units
/// (`pendulum_layout::ring::entry_units`), and hands every first beat to
/// the flags parser as well (`m_first`, from the EtherType on), so the
/// FLAGS are ready when the frame has been steered (`RxFlagsMerge`).
///
/// A beat leaves only when both outputs that want it take it (a fork).
/// Latency 0 on `m`; 1 on `m_first`, which leaves through a skid buffer:
/// the flags parser's first stage is as deep as a stage may be, and the
/// FIFO's length comes from a block-RAM read. 1 beat/cycle.
#[derive(LogicBlock)]
pub struct RxIntake {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: StreamSink<SizedBeat>,
    /// Every beat, for the flow director (`pipe` 0, FLAGS and HASH 0).
    pub m: StreamSource<RxBeat>,
    /// Every first beat, for the flags parser.
    pub m_first: StreamSource<FirstBeat>,

    first: SkidBuffer<FirstBeat>,
    in_frame: SDFF<Bit>,
    sop: Signal<Local, Bit>,
    // The frame's units: its header's one and ceil(len / 16).
    data_units: Signal<Local, Bits<16>>,
    units: ZeroExtend<16, SLOT_BITS>,
    // (A copy: a part of a struct's field is a part-select of a
    // part-select, which Yosys refuses.)
    keep: Signal<Local, Bits<64>>,
    data: Signal<Local, Bits<512>>,
    // u + 1: the units up to and including unit u.
    units_upto: [Constant<Bits<4>>; 4],
    fifteen: Constant<Bits<16>>,
    one: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    no_pipe: Constant<Bits<PIPE_BITS>>,
}

impl RxIntake {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_first: Default::default(),
            first: Default::default(),
            in_frame: Default::default(),
            sop: Default::default(),
            data_units: Default::default(),
            units: Default::default(),
            keep: Default::default(),
            data: Default::default(),
            units_upto: std::array::from_fn(|u| k(u as u64 + 1)),
            fifteen: k(15),
            one: k(1),
            zero16: k(0),
            zero32: k(0),
            no_pipe: k(0),
        }
    }
}

impl Default for RxIntake {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxIntake {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame);
        self.first.clock.next = self.clock.val();
        self.first.reset.next = self.reset.val();
        self.in_frame.reset.next = self.reset.val();
        self.sop.next = !self.in_frame.q.val();
        self.keep.next = self.s.data.val().keep;
        self.data.next = self.s.data.val().data;

        self.data_units.next = (self.s.data.val().len + self.fifteen.val()) >> 4;
        self.units.i.next = self.data_units.val() + self.one.val();
        self.m.data.next.data = self.data.val();
        // The beat's units: its keep is contiguous from byte 0 (all of it
        // is read, so no bit of the port is left unused).
        self.m.data.next.beat_units = self.units_upto[0].val();
        for u in 0..4 {
            if self.keep.val().get_bits::<16>(16 * u) != self.zero16.val() {
                self.m.data.next.beat_units = self.units_upto[u].val();
            }
        }
        self.m.data.next.last = self.s.data.val().last;
        self.m.data.next.sop = self.sop.val();
        self.m.data.next.pipe = self.no_pipe.val();
        self.m.data.next.units = self.units.o.val();
        self.m.data.next.len = self.s.data.val().len;
        self.m.data.next.flags = self.zero16.val();
        self.m.data.next.hash = self.zero32.val();
        self.m.data.next.stamp = self.s.data.val().stamp;
        // Bytes 12..64: the MAC addresses are no flag's business.
        self.first.s.data.next.data = self.data.val().get_bits::<416>(96);
        self.first.s.data.next.len = self.s.data.val().len;
        self.first.s.data.next.sum = self.s.data.val().sum;
        self.m_first.data.next = self.first.m.data.val();
        self.m_first.valid.next = self.first.m.valid.val();
        self.first.m.ready.next = self.m_first.ready.val();

        // The fork: a first beat leaves when both take it, a later one when
        // the flow director does.
        self.m.valid.next = self.s.valid.val() & (!self.sop.val() | self.first.s.ready.val());
        self.first.s.valid.next = self.s.valid.val() & self.sop.val() & self.m.ready.val();
        self.s.ready.next = self.m.ready.val() & (!self.sop.val() | self.first.s.ready.val());
        if self.s.valid.val() & self.s.ready.val() {
            self.in_frame.d.next = !self.s.data.val().last;
        }
    }
}
