use super::{FirstBeat, RxFlagsParser};
use crate::reset::SDFF;
use crate::stream::{SkidBuffer, StreamFifo, StreamSink, StreamSource};
use crate::types::RxBeat;
use rust_hdl::prelude::*;

/// log2 of the flags queue's depth: it must hold a FLAGS value for every
/// first beat between the intake's fork and this join (the flow director
/// holds at most 7 beats: five stages and its output skid), so the flags
/// parser never waits on it and the fork never waits on the parser.
const QUEUE_LOG2: usize = 4;

/// RX flags merge: computes each frame's FLAGS (`RxFlagsParser`) beside the
/// flow director, from the first beats the intake forks off (`s_first`),
/// and ORs them into the frame's first beat as it leaves the flow director
/// (`s`, whose FLAGS hold FLOW_HIT), in order: one FLAGS value per first
/// beat. A first beat waits here until its FLAGS are ready: the parser
/// takes eight cycles (its TCP/UDP checksum check's), the flow director
/// five, so a first beat that reaches the join at once waits three.
///
/// The parser holds its stages on the queue's ready a cycle late
/// (`room`), so the queue's pointer compare and the parser's stage enables
/// do not share a cycle: by the count above, the queue never holds more
/// than 7 of its 16, so a ready a cycle old is the same ready.
///
/// The joined beats leave through a skid buffer, so the queue's empty
/// check, the RX arbiter's grant and the queue's pop do not share a cycle.
///
/// Latency 1 on `s`; 1 beat/cycle.
#[derive(LogicBlock)]
pub struct RxFlagsMerge {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s_first: StreamSink<FirstBeat>,
    pub s: StreamSink<RxBeat>,
    pub m: StreamSource<RxBeat>,

    parser: RxFlagsParser,
    queue: StreamFifo<Bits<16>, QUEUE_LOG2, { QUEUE_LOG2 + 1 }>,
    room: SDFF<Bit>,
    out: SkidBuffer<RxBeat>,
    sop: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
}

impl RxFlagsMerge {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_first: Default::default(),
            s: Default::default(),
            m: Default::default(),
            parser: RxFlagsParser::new(),
            queue: StreamFifo::new(),
            room: Default::default(),
            out: Default::default(),
            sop: Default::default(),
            go: Default::default(),
        }
    }
}

impl Default for RxFlagsMerge {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxFlagsMerge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, room);
        self.room.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.parser.clock.next = self.clock.val();
        self.parser.reset.next = self.reset.val();
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.parser.s.data.next = self.s_first.data.val();
        self.parser.s.valid.next = self.s_first.valid.val();
        self.s_first.ready.next = self.parser.s.ready.val();
        self.queue.s.data.next = self.parser.m.data.val();
        self.queue.s.valid.next = self.parser.m.valid.val() & self.room.q.val();
        self.room.d.next = self.queue.s.ready.val();
        self.parser.m.ready.next = self.room.q.val();

        self.sop.next = self.s.data.val().sop;
        self.go.next = !self.sop.val() | self.queue.m.valid.val();
        self.out.s.data.next = self.s.data.val();
        if self.sop.val() {
            self.out.s.data.next.flags = self.s.data.val().flags | self.queue.m.data.val();
        }
        self.out.s.valid.next = self.s.valid.val() & self.go.val();
        self.s.ready.next = self.out.s.ready.val() & self.go.val();
        self.queue.m.ready.next = self.s.valid.val() & self.sop.val() & self.out.s.ready.val();
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();
    }
}
