use crate::reset::SDFF;
use crate::stream::{Join, SkidBuffer, StreamSink, StreamSource, ZeroExtend};
use crate::types::{DmaWrite, PackItem, RxEvent};
use pendulum_layout::params::SLOT_BITS;
use rust_hdl::prelude::*;

/// Bits of a line's place in a ring (a line is 64 bytes, four units).
const LINE_BITS: usize = SLOT_BITS - 2;

/// Ring packer: writes ring entries (a 16-byte header unit, then the frame,
/// padded to whole units; `pendulum_layout::ring`) back to back into host
/// memory as 64-byte lines, and reports each published entry once every
/// byte of it has gone to the DMA port.
///
/// Entries start on any unit, so a line may hold the end of one entry and
/// the start of the next. The packer keeps the line being filled (the
/// *residue*: its units, which of them are still unwritten, and where it
/// goes) and fills it from the next beat, shifted by the residue's units (a
/// 4:1 choice per unit). A line goes out when it is full; a partly filled
/// one waits for the next entry of the same ring, so that back-to-back
/// entries share lines and PCIe writes, and goes out alone (with byte
/// enables for its unwritten units only) when the input has nothing this
/// cycle, or the next entry goes elsewhere. An entry's event (`ev.frame`)
/// goes out with the line that holds its last unit (`park` while that line
/// waits), so software never sees a tail before its data.
///
/// Consecutive lines of one ring form one PCIe write (`last` ends it) up to
/// a 256-byte block's end or the ring's end; a write ends early where the
/// next line is not yet known. To know that from registers, lines leave
/// through two output registers (`o2_*`, then `o1_*` on the port): a line's
/// `last` is settled by the line behind it, so it may fall (never rise)
/// while the line waits for `m_dma.ready`; consumers take it only as the
/// line moves.
///
/// Whether an entry continues the residue is the producer's to say
/// (`cont`: it knows each pipe's tail); the packer forgets the residue's
/// ring at every restart and abandoned entry. Entries of the RX path are
/// at least 5 units (60-byte frames), so at most one entry ends in a line
/// that is not yet full.
///
/// Items with events alone (a frame dropped before its first write, a
/// restart) pass in order; a restart first writes out the residue, so an
/// entry's event goes before its pipe's restart's. The last
/// beat of an abandoned entry (`last` without `ev.frame`: malformed, or its
/// pipe restarted) is not written, and neither is what of that entry still
/// waits in the residue: nothing past the tail needs to be.
///
/// Latency: 3 cycles from an item to its line on the port (input skid,
/// `o2`, `o1`) when the line fills; 1 beat/cycle in, 1 line/cycle out
/// (a beat with its header unit can make more than one line, so the input
/// waits a cycle then).
#[derive(LogicBlock)]
pub struct RingPacker {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Entries' beats and events, in order.
    pub s: StreamSink<PackItem>,
    /// Line writes to host memory.
    pub m_dma: StreamSource<DmaWrite>,
    /// Events, registered, a cycle after the line that completes a frame's
    /// entry moved (flags are one-cycle pulses).
    pub ev: Signal<Out, RxEvent>,

    inp: SkidBuffer<PackItem>,
    it: Signal<Local, PackItem>,
    // The item's events (hdl_gen reads one level of a struct's fields).
    iev: Signal<Local, RxEvent>,
    it_data: Signal<Local, Bits<512>>,
    it_start: Signal<Local, Bits<SLOT_BITS>>,
    it_lmask: Signal<Local, Bits<LINE_BITS>>,
    in_v: Signal<Local, Bit>,

    // ---- The residue: the line being filled ----
    res: [SDFF<Bits<128>>; 4],
    // Units not yet written to host memory.
    dirty: [SDFF<Bit>; 4],
    // Units filled, from unit 0 (4: a full line waits to go out).
    fill: SDFF<Bits<4>>,
    // Where it goes: line `lpos` of the ring at `base` of `lmask + 1` lines.
    lpos: SDFF<Bits<LINE_BITS>>,
    lmask: SDFF<Bits<LINE_BITS>>,
    base: SDFF<Bits<64>>,
    // The residue's line follows the last line emitted, in one ring.
    adj: SDFF<Bit>,
    // The residue ends where the last published entry given ended, so an
    // entry that continues it (`cont`) fills it on.
    live: SDFF<Bit>,
    // The residue holds the last unit of a published entry: its event.
    park: SDFF<Bit>,
    park_ev: SDFF<RxEvent>,

    // ---- This cycle ----
    dirty_any: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    place: Signal<Local, Bit>,
    fresh: Signal<Local, Bit>,
    use_in: Signal<Local, Bit>,
    flush_first: Signal<Local, Bit>,
    ends_entry: Signal<Local, Bit>,
    cur_f: Signal<Local, Bits<4>>,
    cur_lpos: Signal<Local, Bits<LINE_BITS>>,
    cur_lmask: Signal<Local, Bits<LINE_BITS>>,
    cur_base: Signal<Local, Bits<64>>,
    u: Signal<Local, Bits<4>>,
    t: Signal<Local, Bits<4>>,
    t_res: Signal<Local, Bits<4>>,
    t_in: Signal<Local, Bits<4>>,
    t4: Signal<Local, Bits<4>>,
    ge4: Signal<Local, Bit>,
    t_is4: Signal<Local, Bit>,
    // The item's units in order (the header first on a first beat).
    v: [Signal<Local, Bits<128>>; 5],
    // The residue's units, then the item's: units 0..4 (`w`) and 4..8 (`hi`).
    w: [Signal<Local, Bits<128>>; 4],
    hi: [Signal<Local, Bits<128>>; 4],
    p_go: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    emit_placed: Signal<Local, Bit>,
    emit_flush: Signal<Local, Bit>,
    emit_ev: Signal<Local, RxEvent>,
    // A beat taken beside a full residue going out.
    take_beside: Signal<Local, Bit>,
    ev_only: Signal<Local, Bit>,
    unit_on: [Signal<Local, Bit>; 4],
    line: Join<4, 128, 512>,
    strb: Join<4, 16, 64>,
    lpos64: ZeroExtend<LINE_BITS, 64>,
    addr_blk: Signal<Local, Bits<2>>,

    // ---- Output entries: o2, then o1 on the port ----
    o2_valid: SDFF<Bit>,
    o2_line: SDFF<Bit>,
    o2_addr: SDFF<Bits<64>>,
    o2_data: SDFF<Bits<512>>,
    o2_strb: SDFF<Bits<64>>,
    o2_end: SDFF<Bit>,
    o2_cont: SDFF<Bit>,
    o2_ev: SDFF<RxEvent>,
    o1_valid: SDFF<Bit>,
    o1_line: SDFF<Bit>,
    o1_addr: SDFF<Bits<64>>,
    o1_data: SDFF<Bits<512>>,
    o1_strb: SDFF<Bits<64>>,
    o1_end: SDFF<Bit>,
    o1_ev: SDFF<RxEvent>,
    o1_leaves: Signal<Local, Bit>,
    o1_offered: SDFF<Bit>,
    hold: Signal<Local, Bit>,
    o2_moves: Signal<Local, Bit>,
    e_ev: SDFF<RxEvent>,

    k0: Constant<Bits<4>>,
    k1: Constant<Bits<4>>,
    k2: Constant<Bits<4>>,
    k3: Constant<Bits<4>>,
    k4: Constant<Bits<4>>,
    blk_last: Constant<Bits<2>>,
    one_line: Constant<Bits<LINE_BITS>>,
    ones16: Constant<Bits<16>>,
    zeros16: Constant<Bits<16>>,
}

impl RingPacker {
    pub fn new() -> Self {
        let k = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m_dma: Default::default(),
            ev: Default::default(),
            inp: Default::default(),
            it: Default::default(),
            iev: Default::default(),
            it_data: Default::default(),
            it_start: Default::default(),
            it_lmask: Default::default(),
            in_v: Default::default(),
            res: Default::default(),
            dirty: Default::default(),
            fill: Default::default(),
            lpos: Default::default(),
            lmask: Default::default(),
            base: Default::default(),
            adj: Default::default(),
            live: Default::default(),
            park: Default::default(),
            park_ev: Default::default(),
            dirty_any: Default::default(),
            full: Default::default(),
            place: Default::default(),
            fresh: Default::default(),
            use_in: Default::default(),
            flush_first: Default::default(),
            ends_entry: Default::default(),
            cur_f: Default::default(),
            cur_lpos: Default::default(),
            cur_lmask: Default::default(),
            cur_base: Default::default(),
            u: Default::default(),
            t: Default::default(),
            t_res: Default::default(),
            t_in: Default::default(),
            t4: Default::default(),
            ge4: Default::default(),
            t_is4: Default::default(),
            v: Default::default(),
            w: Default::default(),
            hi: Default::default(),
            p_go: Default::default(),
            emit: Default::default(),
            emit_placed: Default::default(),
            emit_flush: Default::default(),
            emit_ev: Default::default(),
            take_beside: Default::default(),
            ev_only: Default::default(),
            unit_on: Default::default(),
            line: Default::default(),
            strb: Default::default(),
            lpos64: Default::default(),
            addr_blk: Default::default(),
            o2_valid: Default::default(),
            o2_line: Default::default(),
            o2_addr: Default::default(),
            o2_data: Default::default(),
            o2_strb: Default::default(),
            o2_end: Default::default(),
            o2_cont: Default::default(),
            o2_ev: Default::default(),
            o1_valid: Default::default(),
            o1_line: Default::default(),
            o1_addr: Default::default(),
            o1_data: Default::default(),
            o1_strb: Default::default(),
            o1_end: Default::default(),
            o1_ev: Default::default(),
            o1_leaves: Default::default(),
            o1_offered: Default::default(),
            hold: Default::default(),
            o2_moves: Default::default(),
            e_ev: Default::default(),
            k0: k(0),
            k1: k(1),
            k2: k(2),
            k3: k(3),
            k4: k(4),
            blk_last: Constant::new(3u64.into()),
            one_line: Constant::new(1u64.into()),
            ones16: Constant::new(0xFFFFu64.into()),
            zeros16: Constant::new(0u64.into()),
        }
    }
}

impl Default for RingPacker {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RingPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, fill, lpos, lmask, base, adj, live, park, park_ev, o2_valid, o2_line,
            o2_addr, o2_data, o2_strb, o2_end, o2_cont, o2_ev, o1_valid, o1_line, o1_addr, o1_data,
            o1_strb, o1_end, o1_ev, o1_offered, e_ev
        );
        self.o1_offered.reset.next = self.reset.val();
        self.fill.reset.next = self.reset.val();
        self.lpos.reset.next = self.reset.val();
        self.lmask.reset.next = self.reset.val();
        self.base.reset.next = self.reset.val();
        self.adj.reset.next = self.reset.val();
        self.live.reset.next = self.reset.val();
        self.park.reset.next = self.reset.val();
        self.park_ev.reset.next = self.reset.val();
        self.o2_valid.reset.next = self.reset.val();
        self.o2_line.reset.next = self.reset.val();
        self.o2_addr.reset.next = self.reset.val();
        self.o2_data.reset.next = self.reset.val();
        self.o2_strb.reset.next = self.reset.val();
        self.o2_end.reset.next = self.reset.val();
        self.o2_cont.reset.next = self.reset.val();
        self.o2_ev.reset.next = self.reset.val();
        self.o1_valid.reset.next = self.reset.val();
        self.o1_line.reset.next = self.reset.val();
        self.o1_addr.reset.next = self.reset.val();
        self.o1_data.reset.next = self.reset.val();
        self.o1_strb.reset.next = self.reset.val();
        self.o1_end.reset.next = self.reset.val();
        self.o1_ev.reset.next = self.reset.val();
        self.e_ev.reset.next = self.reset.val();
        for q in 0..4 {
            self.res[q].clock.next = self.clock.val();
            self.res[q].reset.next = self.reset.val();
            self.res[q].d.next = self.res[q].q.val();
            self.dirty[q].clock.next = self.clock.val();
            self.dirty[q].reset.next = self.reset.val();
            self.dirty[q].d.next = self.dirty[q].q.val();
        }
        self.inp.clock.next = self.clock.val();
        self.inp.reset.next = self.reset.val();
        self.inp.s.data.next = self.s.data.val();
        self.inp.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.inp.s.ready.val();
        self.it.next = self.inp.m.data.val();
        self.in_v.next = self.inp.m.valid.val();
        self.iev.next = self.it.val().ev;
        self.it_data.next = self.it.val().data;
        self.it_start.next = self.it.val().start;
        self.it_lmask.next = self.it.val().line_mask;

        // ---- What the item is ----
        self.dirty_any.next = self.dirty[0].q.val()
            | self.dirty[1].q.val()
            | self.dirty[2].q.val()
            | self.dirty[3].q.val();
        self.full.next = self.fill.q.val() == self.k4.val();
        // Its units are written: a beat of an entry, but not the last beat
        // of an abandoned one.
        self.place.next =
            (self.it.val().units != self.k0.val()) & !(self.it.val().last & !self.iev.val().frame);
        self.ends_entry.next = self.it.val().last & self.iev.val().frame;
        // A first beat that does not continue the residue's ring where its
        // last entry ended starts a residue of its own.
        self.fresh.next = self.it.val().sop & !(self.it.val().cont & self.live.q.val());
        self.use_in.next = self.fresh.val() & !self.dirty_any.val();
        // A line whose successor is on its way (a later beat of the entry
        // filling the residue behind it, or a full residue) waits for it
        // rather than end its write early; once offered, it stays offered.
        self.hold.next = !self.o1_offered.q.val()
            & !self.o2_valid.q.val()
            & self.adj.q.val()
            & ((self.in_v.val() & self.place.val() & !self.fresh.val()) | self.full.val());
        // ---- Output handshakes ----
        self.o1_leaves.next = self.o1_valid.q.val()
            & (!self.o1_line.q.val() | (self.m_dma.ready.val() & !self.hold.val()));
        self.o2_moves.next =
            self.o2_valid.q.val() & (!self.o1_valid.q.val() | self.o1_leaves.val());
        self.p_go.next = !self.o2_valid.q.val() | self.o2_moves.val();

        // ---- Where the item's units go ----
        // (A full residue's fill, 4, reads as 0: a beat taken beside it
        // starts the next line.)
        self.cur_f.next = self.fill.q.val() & self.k3.val();
        self.cur_lpos.next = self.lpos.q.val();
        self.cur_lmask.next = self.lmask.q.val();
        self.cur_base.next = self.base.q.val();
        if self.use_in.val() {
            self.cur_f.next = self.it_start.val().get_bits::<4>(0) & self.k3.val();
            self.cur_lpos.next = self.it_start.val().get_bits::<LINE_BITS>(2);
            self.cur_lmask.next = self.it_lmask.val();
            self.cur_base.next = self.it.val().base;
        }
        self.u.next = self.it.val().units;
        if self.it.val().sop {
            self.u.next = self.it.val().units + self.k1.val();
        }
        // (Both sums at once, then one chosen: `use_in` comes late.)
        self.t_res.next = (self.fill.q.val() & self.k3.val()) + self.u.val();
        self.t_in.next = (self.it_start.val().get_bits::<4>(0) & self.k3.val()) + self.u.val();
        self.t.next = self.t_res.val();
        if self.use_in.val() {
            self.t.next = self.t_in.val();
        }
        // (Compared before the choice too: an entry's event rides the line
        // when it ends at the line's end, t = 4.)
        self.ge4.next = self.t_res.val() >= self.k4.val();
        self.t_is4.next = self.t_res.val() == self.k4.val();
        if self.use_in.val() {
            self.ge4.next = self.t_in.val() >= self.k4.val();
            self.t_is4.next = self.t_in.val() == self.k4.val();
        }
        self.t4.next = self.t.val() - self.k4.val();
        // The residue goes out first when its entry's ring is left, before
        // any restart (a restart of its pipe must follow its entry's event),
        // and before a one-beat entry too short to fill the line would end
        // in it beside a parked one (the RX path's frames are all 60 bytes
        // or more, 5 units, so this is a guard).
        self.flush_first.next = self.dirty_any.val()
            & ((self.place.val() & self.fresh.val())
                | self.iev.val().restart
                | (self.park.q.val()
                    & self.ends_entry.val()
                    & self.it.val().sop
                    & (self.it.val().units < self.k4.val())));

        // The item's units: a first beat's header, then its data.
        self.v[0].next = self.it_data.val().get_bits::<128>(0);
        self.v[1].next = self.it_data.val().get_bits::<128>(128);
        self.v[2].next = self.it_data.val().get_bits::<128>(256);
        self.v[3].next = self.it_data.val().get_bits::<128>(384);
        self.v[4].next = self.it_data.val().get_bits::<128>(384);
        if self.it.val().sop {
            self.v[0].next = self.it.val().header;
            self.v[1].next = self.it_data.val().get_bits::<128>(0);
            self.v[2].next = self.it_data.val().get_bits::<128>(128);
            self.v[3].next = self.it_data.val().get_bits::<128>(256);
        }
        // Line unit q: the residue's below `cur_f`, else the item's q - cur_f.
        self.w[0].next = self.res[0].q.val();
        if self.cur_f.val() == self.k0.val() {
            self.w[0].next = self.v[0].val();
        }
        self.w[1].next = self.res[1].q.val();
        if self.cur_f.val() == self.k0.val() {
            self.w[1].next = self.v[1].val();
        } else if self.cur_f.val() == self.k1.val() {
            self.w[1].next = self.v[0].val();
        }
        self.w[2].next = self.res[2].q.val();
        if self.cur_f.val() == self.k0.val() {
            self.w[2].next = self.v[2].val();
        } else if self.cur_f.val() == self.k1.val() {
            self.w[2].next = self.v[1].val();
        } else if self.cur_f.val() == self.k2.val() {
            self.w[2].next = self.v[0].val();
        }
        self.w[3].next = self.v[0].val();
        if self.cur_f.val() == self.k0.val() {
            self.w[3].next = self.v[3].val();
        } else if self.cur_f.val() == self.k1.val() {
            self.w[3].next = self.v[2].val();
        } else if self.cur_f.val() == self.k2.val() {
            self.w[3].next = self.v[1].val();
        }
        // Units 4..8 (the next line's 0..4): the item's 4 + q - cur_f.
        self.hi[0].next = self.v[1].val();
        if self.cur_f.val() == self.k0.val() {
            self.hi[0].next = self.v[4].val();
        } else if self.cur_f.val() == self.k1.val() {
            self.hi[0].next = self.v[3].val();
        } else if self.cur_f.val() == self.k2.val() {
            self.hi[0].next = self.v[2].val();
        }
        self.hi[1].next = self.v[2].val();
        if self.cur_f.val() == self.k1.val() {
            self.hi[1].next = self.v[4].val();
        } else if self.cur_f.val() == self.k2.val() {
            self.hi[1].next = self.v[3].val();
        }
        self.hi[2].next = self.v[3].val();
        if self.cur_f.val() == self.k2.val() {
            self.hi[2].next = self.v[4].val();
        }
        self.hi[3].next = self.v[4].val();

        // ---- What goes out this cycle ----
        // The line: the residue as it is (full, or flushed), or filled from
        // the item (`emit_placed`).
        self.emit.next = false;
        self.emit_placed.next = false;
        self.emit_flush.next = false;
        self.take_beside.next = false;
        self.ev_only.next = false;
        self.emit_ev.next = self.iev.val();
        self.emit_ev.next.frame = false;
        self.emit_ev.next.full = false;
        self.emit_ev.next.malformed = false;
        self.emit_ev.next.off = false;
        self.emit_ev.next.restart = false;
        self.inp.m.ready.next = false;
        if self.p_go.val() {
            if self.full.val() {
                // A full residue (a first beat filled more than a line).
                self.emit.next = true;
                self.fill.d.next = self.k0.val();
                self.lpos.d.next = (self.lpos.q.val() + self.one_line.val()) & self.lmask.q.val();
                self.adj.d.next = true;
                for q in 0..4 {
                    self.dirty[q].d.next = false;
                }
                // A later beat of the entry that does not fill the next line
                // goes in beside it, starting that line (an 81-96-byte
                // frame's second beat: the input need not wait a cycle).
                if self.in_v.val()
                    & self.place.val()
                    & !self.fresh.val()
                    & !self.flush_first.val()
                    & !self.ge4.val()
                {
                    self.inp.m.ready.next = true;
                    self.take_beside.next = true;
                    self.fill.d.next = self.t.val();
                    for q in 0..4 {
                        self.res[q].d.next = self.w[q].val();
                    }
                    self.dirty[0].d.next = self.t.val() > self.k0.val();
                    self.dirty[1].d.next = self.t.val() > self.k1.val();
                    self.dirty[2].d.next = self.t.val() > self.k2.val();
                    self.dirty[3].d.next = self.t.val() > self.k3.val();
                    if self.ends_entry.val() {
                        self.live.d.next = true;
                    }
                }
            } else if self.in_v.val() & self.flush_first.val() {
                self.emit.next = true;
                self.emit_flush.next = true;
            } else if self.in_v.val() & self.place.val() {
                self.inp.m.ready.next = true;
                if self.ge4.val() {
                    self.emit.next = true;
                    self.emit_placed.next = true;
                    self.fill.d.next = self.t4.val();
                    self.lpos.d.next =
                        (self.cur_lpos.val() + self.one_line.val()) & self.cur_lmask.val();
                    self.adj.d.next = true;
                    for q in 0..4 {
                        self.res[q].d.next = self.hi[q].val();
                    }
                    self.dirty[0].d.next = self.t4.val() > self.k0.val();
                    self.dirty[1].d.next = self.t4.val() > self.k1.val();
                    self.dirty[2].d.next = self.t4.val() > self.k2.val();
                    self.dirty[3].d.next = self.t4.val() > self.k3.val();
                    // The entry ends on this line: its event goes with it.
                    if self.ends_entry.val() & self.t_is4.val() {
                        self.emit_ev.next = self.iev.val();
                    }
                    self.park.d.next = self.ends_entry.val() & !self.t_is4.val();
                    self.park_ev.d.next = self.iev.val();
                } else {
                    self.fill.d.next = self.t.val();
                    self.lpos.d.next = self.cur_lpos.val();
                    self.adj.d.next = self.adj.q.val() & !self.use_in.val();
                    for q in 0..4 {
                        self.res[q].d.next = self.w[q].val();
                    }
                    self.dirty[0].d.next = self.dirty[0].q.val()
                        | ((self.cur_f.val() <= self.k0.val()) & (self.t.val() > self.k0.val()));
                    self.dirty[1].d.next = self.dirty[1].q.val()
                        | ((self.cur_f.val() <= self.k1.val()) & (self.t.val() > self.k1.val()));
                    self.dirty[2].d.next = self.dirty[2].q.val()
                        | ((self.cur_f.val() <= self.k2.val()) & (self.t.val() > self.k2.val()));
                    self.dirty[3].d.next = self.dirty[3].q.val()
                        | ((self.cur_f.val() <= self.k3.val()) & (self.t.val() > self.k3.val()));
                    if self.ends_entry.val() {
                        self.park.d.next = true;
                        self.park_ev.d.next = self.iev.val();
                    }
                }
                if self.use_in.val() {
                    self.base.d.next = self.it.val().base;
                    self.lmask.d.next = self.it_lmask.val();
                }
                if self.ends_entry.val() {
                    self.live.d.next = true;
                }
            } else if self.in_v.val() {
                // Events alone, or an abandoned entry's last beat.
                self.inp.m.ready.next = true;
                self.ev_only.next = true;
                self.emit_ev.next = self.iev.val();
                if (self.it.val().units != self.k0.val()) & !self.it.val().sop {
                    // What of the abandoned entry waits in the residue.
                    self.live.d.next = false;
                    for q in 0..4 {
                        self.dirty[q].d.next = false;
                    }
                }
                if self.iev.val().restart {
                    self.live.d.next = false;
                }
            } else if self.dirty_any.val() {
                // Nothing in: the residue goes out as it is.
                self.emit.next = true;
                self.emit_flush.next = true;
            }
        }
        // A residue going out as it is carries its parked event; a flushed one
        // stays the line being filled, its units now written.
        if self.emit.val() & !self.emit_placed.val() & self.park.q.val() {
            self.emit_ev.next = self.park_ev.q.val();
        }
        if self.emit_placed.val() & self.park.q.val() {
            self.emit_ev.next = self.park_ev.q.val();
        }
        if self.emit.val() & !self.emit_placed.val() {
            self.park.d.next = false;
        }
        if self.take_beside.val() & self.ends_entry.val() {
            self.park.d.next = true;
            self.park_ev.d.next = self.iev.val();
        }
        if self.emit_flush.val() {
            self.adj.d.next = false;
            for q in 0..4 {
                self.dirty[q].d.next = false;
            }
        }

        // The line's units and byte enables.
        for q in 0..4 {
            self.unit_on[q].next = self.dirty[q].q.val();
            self.line.i[q].next = self.res[q].q.val();
        }
        if self.emit_placed.val() {
            for q in 0..4 {
                self.line.i[q].next = self.w[q].val();
            }
            self.unit_on[0].next = self.dirty[0].q.val() | (self.cur_f.val() <= self.k0.val());
            self.unit_on[1].next = self.dirty[1].q.val() | (self.cur_f.val() <= self.k1.val());
            self.unit_on[2].next = self.dirty[2].q.val() | (self.cur_f.val() <= self.k2.val());
            self.unit_on[3].next = true;
        }
        for q in 0..4 {
            self.strb.i[q].next = self.zeros16.val();
            if self.unit_on[q].val() {
                self.strb.i[q].next = self.ones16.val();
            }
        }
        self.lpos64.i.next = self.cur_lpos.val();
        self.addr_blk.next =
            self.cur_base.val().get_bits::<2>(6) + self.cur_lpos.val().get_bits::<2>(0);

        // ---- o2: what P produced ----
        if self.o2_moves.val() {
            self.o2_valid.d.next = false;
        }
        if self.p_go.val() {
            self.o2_valid.d.next = self.emit.val() | self.ev_only.val();
            self.o2_line.d.next = self.emit.val();
            self.o2_addr.d.next = self.cur_base.val() + (self.lpos64.o.val() << 6);
            self.o2_data.d.next = self.line.o.val();
            self.o2_strb.d.next = self.strb.o.val();
            self.o2_end.d.next = self.emit_flush.val()
                | (self.addr_blk.val() == self.blk_last.val())
                | (self.cur_lpos.val() == self.cur_lmask.val());
            self.o2_cont.d.next = self.adj.q.val() & !self.use_in.val();
            self.o2_ev.d.next = self.emit_ev.val();
        }
        // ---- o1: on the port ----
        if self.o1_leaves.val() {
            self.o1_valid.d.next = false;
        }
        if self.o2_moves.val() {
            self.o1_valid.d.next = true;
            self.o1_line.d.next = self.o2_line.q.val();
            self.o1_addr.d.next = self.o2_addr.q.val();
            self.o1_data.d.next = self.o2_data.q.val();
            self.o1_strb.d.next = self.o2_strb.q.val();
            self.o1_end.d.next = self.o2_end.q.val();
            self.o1_ev.d.next = self.o2_ev.q.val();
        }
        self.m_dma.valid.next = self.o1_valid.q.val() & self.o1_line.q.val() & !self.hold.val();
        self.o1_offered.d.next = self.m_dma.valid.val() & !self.m_dma.ready.val();
        self.m_dma.data.next.addr = self.o1_addr.q.val();
        self.m_dma.data.next.data = self.o1_data.q.val();
        self.m_dma.data.next.strb = self.o1_strb.q.val();
        self.m_dma.data.next.last = self.o1_end.q.val()
            | !(self.o2_valid.q.val() & self.o2_line.q.val() & self.o2_cont.q.val());
        // Events, a cycle after their entry moved.
        self.e_ev.d.next = self.o1_ev.q.val();
        if !self.o1_leaves.val() {
            self.e_ev.d.next.frame = false;
            self.e_ev.d.next.full = false;
            self.e_ev.d.next.malformed = false;
            self.e_ev.d.next.off = false;
            self.e_ev.d.next.restart = false;
        }
        self.ev.next = self.e_ev.q.val();
    }
}
