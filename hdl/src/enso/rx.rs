use crate::konst as k;
use crate::mmio::RxRingUser;
use crate::reset::SDFF;
use crate::stream::{Concat, Join, StreamFifo, StreamSink, StreamSource};
use crate::types::{PackItem, RxBeat, RxEvent};
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// Bits of a line's place in a ring (a line is 64 bytes, four units).
const LINE_BITS: usize = SLOT_BITS - 2;

/// Ensō RX engine: decides, frame by frame, whether and where each frame
/// goes into its pipe's data ring, and hands its beats to the ring packer
/// (`RingPacker`) as one ring entry (`pendulum_layout::ring`: a header
/// unit, then the frame) at the pipe's tail, which it then advances by the
/// entry's units.
///
/// The frame's pipe, length, entry size and header fields come with its
/// first beat from the stages before, so room in the ring is checked before
/// anything is written: a frame that does not fit is dropped whole and
/// counted, and nothing already in the ring is touched. A frame cut for
/// being over the MTU (LEN 0) is dropped and counted.
///
/// Each pipe's ring (base, size, on/off), head and tail are
/// `mmio::RxPipeState`'s: this block reads them (`ring`, a cycle later)
/// and writes the tail, its one writer. The register file also reports
/// each change it makes (a pipe switched on or off with its ring,
/// `restart`; each head write, `head_wr`), which this block forwards to the
/// beats whose state was read before it. Every event (a published frame
/// with its pipe's new tail, a drop, a restart applied) rides an item to
/// the packer, which reports it once the entry's bytes have gone out, so
/// the register file and the notification writer see the events in order
/// and never a tail before its data.
///
/// Three register stages, so that no path runs from a RAM read through the
/// room check to the packer (250 MHz at 1,024 pipes):
/// - `i_*` (in): the beat from the parse stage; its pipe addresses the RAMs.
/// - `l_*` (lookup): the RAMs' data for the beat's pipe, with the writes the
///   read missed forwarded (the register file's of the read's cycle, from
///   `rc_*`/`hw_*`; `RxPipeState` forwards the tail); re-read while the beat
///   waits.
/// - `d_*` (decide): the ring state as the lookup stage left it, corrected
///   for the tail the frame ahead published as this beat moved in
///   (`d_same_pub`); the room check and the item happen here.
///
/// The register file's events enter through a register (`rc_*`, `hw_*`) and
/// are applied a cycle after they are reported. No frame leaves the decide
/// stage in a cycle a restart is applied (so the restart and a publish never
/// share the tail RAM's one write port); a frame that started on the
/// restarted pipe is dropped at its last beat, counted, and never
/// published. The restart's event waits in a queue (`rq`) for the packer,
/// and no beat leaves the decide stage while it waits, so it reaches the
/// packer after every item decided before it and before every item after.
/// `restart_busy` is high while a restart is applied or queued: the core
/// takes no register write then, so the queue (3 deep: a write takes 3
/// cycles to become a restart here) never overflows.
///
/// Latency 3 cycles (in, lookup, decide); 1 beat/cycle; stalls only on
/// `m.ready`, for a cycle per restart, and while a restart's event waits.
/// `s_eth.ready` never depends on the room check.
#[derive(LogicBlock)]
pub struct RxEngine {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Frames from the MAC and the on-card sources, each with its pipe.
    pub s_eth: StreamSink<RxBeat>,
    /// Entries' beats and the events, to the ring packer.
    pub m: StreamSource<PackItem>,
    /// The pipes' ring state (`mmio::RxPipeState`): pipe `ring.addr`'s, a
    /// cycle later, with the tail written in the read's cycle forwarded; and
    /// the tail writes (each published frame's new tail, and 0 as a restart
    /// is applied).
    pub ring: RxRingUser,
    /// The pipe the register file's events below are about.
    pub cfg_pipe: Signal<In, Bits<PIPE_BITS>>,
    /// One-cycle pulse: the pipe was switched on or off. It starts over (tail
    /// 0; a frame on its way to it is dropped, counted) with this ring:
    /// base, size in units minus one, and whether it is on. (A ring can only
    /// change while its pipe is off, so these are all the engine needs.)
    pub restart: Signal<In, Bit>,
    pub restart_base: Signal<In, Bits<64>>,
    pub restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<In, Bit>,
    /// One-cycle pulse: the pipe's head is now `head` (software freed
    /// units, or the pipe was switched on: 0).
    pub head_wr: Signal<In, Bit>,
    pub head: Signal<In, Bits<SLOT_BITS>>,
    /// A restart is being applied or waits to reach the packer: hold
    /// register writes.
    pub restart_busy: Signal<Out, Bit>,

    // The register file's events, a cycle late: restart (`rc_*`), head write (`hw_*`).
    rc_v: SDFF<Bit>,
    rc_pipe: SDFF<Bits<PIPE_BITS>>,
    rc_base: SDFF<Bits<64>>,
    rc_mask: SDFF<Bits<SLOT_BITS>>,
    rc_enable: SDFF<Bit>,
    hw_v: SDFF<Bit>,
    hw_value: SDFF<Bits<SLOT_BITS>>,
    // Whether the lookup stage's pipe is the one this cycle's register-file
    // events are for: compared a cycle ahead, against the pipe the RAMs read
    // (`rd_pipe`), which the lookup stage then holds.
    m_rc: SDFF<Bit>,

    // ---- In ----
    i_valid: SDFF<Bit>,
    i_beat: SDFF<RxBeat>,
    i_moves: Signal<Local, Bit>,
    rd_pipe: Signal<Local, Bits<PIPE_BITS>>,
    // ---- Lookup ----
    l_valid: SDFF<Bit>,
    l_beat: SDFF<RxBeat>,
    l_moves: Signal<Local, Bit>,
    l_rc: Signal<Local, Bit>,
    l_hw: Signal<Local, Bit>,
    l_base: Signal<Local, Bits<64>>,
    l_mask: Signal<Local, Bits<SLOT_BITS>>,
    l_enable: Signal<Local, Bit>,
    l_head: Signal<Local, Bits<SLOT_BITS>>,
    l_tail: Signal<Local, Bits<SLOT_BITS>>,
    // ---- Decide ----
    d_valid: SDFF<Bit>,
    d_beat: SDFF<RxBeat>,
    d_base: SDFF<Bits<64>>,
    d_mask: SDFF<Bits<SLOT_BITS>>,
    d_enable: SDFF<Bit>,
    d_head: SDFF<Bits<SLOT_BITS>>,
    d_tail: SDFF<Bits<SLOT_BITS>>,
    // The frame ahead of the beat published, in the cycle the beat moved
    // in, a frame of the beat's pipe (whose tail the read missed).
    d_same_pub: SDFF<Bit>,
    d_free: Signal<Local, Bit>,
    // The room check for the beat in the decide stage, made as it moved in
    // (or stayed): on its state, and on its state with the tail published in
    // that cycle; and the state it is made on.
    d_fits: SDFF<Bit>,
    d_fits_pub: SDFF<Bit>,
    d_refresh: SDFF<Bit>,
    d_leaves: Signal<Local, Bit>,

    // Frame state, kept from the first beat to the last.
    writing: SDFF<Bit>,
    pipe: SDFF<Bits<PIPE_BITS>>,
    frame_len: SDFF<Bits<16>>,
    frame_units: SDFF<Bits<SLOT_BITS>>,
    // The ring a frame is written into, as it was at the frame's first
    // beat: its entry's end is the first beat's tail plus its units.
    f_mask: SDFF<Bits<SLOT_BITS>>,
    f_tail: SDFF<Bits<SLOT_BITS>>,
    // The frame's pipe has not restarted since its first beat.
    f_live: SDFF<Bit>,
    frame_live: Signal<Local, Bit>,
    publish: Signal<Local, Bit>,
    // The last entry published went to pipe `pub_pipe`, and no restart came
    // after it: an entry of that pipe starts where it ended (`cont`).
    pub_ok: SDFF<Bit>,
    pub_pipe: SDFF<Bits<PIPE_BITS>>,
    // The tail the last published entry left (`d_same_pub`).
    pub_tail: SDFF<Bits<SLOT_BITS>>,

    // This beat.
    sop: Signal<Local, Bit>,
    cur_pipe: Signal<Local, Bits<PIPE_BITS>>,
    cur_len: Signal<Local, Bits<16>>,
    cur_units: Signal<Local, Bits<SLOT_BITS>>,
    cur_writing: Signal<Local, Bit>,
    sel_mask: Signal<Local, Bits<SLOT_BITS>>,
    sel_tail: Signal<Local, Bits<SLOT_BITS>>,
    sop_tail: Signal<Local, Bits<SLOT_BITS>>,
    // The tail after this frame, if it is published.
    new_tail: Signal<Local, Bits<SLOT_BITS>>,
    // The beat's units of frame bytes (4 except on a last beat).
    // (A copy of the beat's field: a part of a struct's field is a
    // part-select of a part-select, which Yosys refuses.)
    stamp: Signal<Local, Bits<64>>,
    // The entry's header unit: LEN and FLAGS, HASH, TIMESTAMP.
    len_flags: Concat<16, 16, 32>,
    header: Join<4, 32, 128>,
    ev: Signal<Local, RxEvent>,
    item_v: Signal<Local, Bit>,

    // Restart events on their way to the packer (`restart_busy`).
    rq: StreamFifo<RxEvent, 2, 3>,
    rq_count: SDFF<Bits<2>>,
    rq_full: SDFF<Bit>,
    rq_push: Signal<Local, Bit>,
    rq_pop: Signal<Local, Bit>,
    rq_wait: Signal<Local, Bit>,

    zero_units: Constant<Bits<SLOT_BITS>>,
    zero16: Constant<Bits<16>>,
    one2: Constant<Bits<2>>,
    zero2: Constant<Bits<2>>,
    u0: Constant<Bits<4>>,
}

impl RxEngine {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_eth: Default::default(),
            m: Default::default(),
            ring: Default::default(),
            cfg_pipe: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            head_wr: Default::default(),
            head: Default::default(),
            restart_busy: Default::default(),
            rc_v: Default::default(),
            rc_pipe: Default::default(),
            rc_base: Default::default(),
            rc_mask: Default::default(),
            rc_enable: Default::default(),
            hw_v: Default::default(),
            hw_value: Default::default(),
            m_rc: Default::default(),
            i_valid: Default::default(),
            i_beat: Default::default(),
            i_moves: Default::default(),
            rd_pipe: Default::default(),
            l_valid: Default::default(),
            l_beat: Default::default(),
            l_moves: Default::default(),
            l_rc: Default::default(),
            l_hw: Default::default(),
            l_base: Default::default(),
            l_mask: Default::default(),
            l_enable: Default::default(),
            l_head: Default::default(),
            l_tail: Default::default(),
            d_valid: Default::default(),
            d_beat: Default::default(),
            d_base: Default::default(),
            d_mask: Default::default(),
            d_enable: Default::default(),
            d_head: Default::default(),
            d_tail: Default::default(),
            d_same_pub: Default::default(),
            d_free: Default::default(),
            d_fits: Default::default(),
            d_fits_pub: Default::default(),
            d_refresh: Default::default(),
            d_leaves: Default::default(),
            writing: Default::default(),
            pipe: Default::default(),
            frame_len: Default::default(),
            frame_units: Default::default(),
            f_mask: Default::default(),
            f_tail: Default::default(),
            f_live: Default::default(),
            frame_live: Default::default(),
            publish: Default::default(),
            pub_ok: Default::default(),
            pub_pipe: Default::default(),
            pub_tail: Default::default(),
            sop: Default::default(),
            cur_pipe: Default::default(),
            cur_len: Default::default(),
            cur_units: Default::default(),
            cur_writing: Default::default(),
            sel_mask: Default::default(),
            sel_tail: Default::default(),
            sop_tail: Default::default(),
            new_tail: Default::default(),
            stamp: Default::default(),
            len_flags: Default::default(),
            header: Default::default(),
            ev: Default::default(),
            item_v: Default::default(),
            rq: StreamFifo::new(),
            rq_count: Default::default(),
            rq_full: Default::default(),
            rq_push: Default::default(),
            rq_pop: Default::default(),
            rq_wait: Default::default(),
            zero_units: k(0),
            zero16: k(0),
            one2: k(1),
            zero2: k(0),
            u0: k(0),
        }
    }
}

impl Default for RxEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rc_v,
            rc_pipe,
            rc_base,
            rc_mask,
            rc_enable,
            hw_v,
            hw_value,
            m_rc,
            i_valid,
            i_beat,
            l_valid,
            l_beat,
            d_valid,
            d_beat,
            d_base,
            d_mask,
            d_enable,
            d_head,
            d_tail,
            d_same_pub,
            d_fits,
            d_fits_pub,
            d_refresh,
            writing,
            pipe,
            frame_len,
            frame_units,
            f_mask,
            f_tail,
            f_live,
            pub_ok,
            pub_pipe,
            pub_tail,
            rq_count,
            rq_full
        );
        self.rc_v.reset.next = self.reset.val();
        self.rc_pipe.reset.next = self.reset.val();
        self.rc_base.reset.next = self.reset.val();
        self.rc_mask.reset.next = self.reset.val();
        self.rc_enable.reset.next = self.reset.val();
        self.hw_v.reset.next = self.reset.val();
        self.hw_value.reset.next = self.reset.val();
        self.m_rc.reset.next = self.reset.val();
        self.i_valid.reset.next = self.reset.val();
        self.i_beat.reset.next = self.reset.val();
        self.l_valid.reset.next = self.reset.val();
        self.l_beat.reset.next = self.reset.val();
        self.d_valid.reset.next = self.reset.val();
        self.d_beat.reset.next = self.reset.val();
        self.d_base.reset.next = self.reset.val();
        self.d_mask.reset.next = self.reset.val();
        self.d_enable.reset.next = self.reset.val();
        self.d_head.reset.next = self.reset.val();
        self.d_tail.reset.next = self.reset.val();
        self.d_same_pub.reset.next = self.reset.val();
        self.d_fits.reset.next = self.reset.val();
        self.d_fits_pub.reset.next = self.reset.val();
        self.d_refresh.reset.next = self.reset.val();
        self.writing.reset.next = self.reset.val();
        self.pipe.reset.next = self.reset.val();
        self.frame_len.reset.next = self.reset.val();
        self.frame_units.reset.next = self.reset.val();
        self.f_mask.reset.next = self.reset.val();
        self.f_tail.reset.next = self.reset.val();
        self.f_live.reset.next = self.reset.val();
        self.pub_ok.reset.next = self.reset.val();
        self.pub_pipe.reset.next = self.reset.val();
        self.pub_tail.reset.next = self.reset.val();
        self.rq_count.reset.next = self.reset.val();
        self.rq_full.reset.next = self.reset.val();
        self.rq.clock.next = self.clock.val();
        self.rq.reset.next = self.reset.val();

        // ---- The register file's events, a cycle late ----
        self.rc_v.d.next = self.restart.val();
        self.rc_pipe.d.next = self.cfg_pipe.val();
        self.rc_base.d.next = self.restart_base.val();
        self.rc_mask.d.next = self.restart_mask.val();
        self.rc_enable.d.next = self.restart_enable.val();
        self.hw_v.d.next = self.head_wr.val();
        self.hw_value.d.next = self.head.val();

        // ---- Restart events, queued for the packer ----
        // A restart's event goes in as it is applied and out to the packer
        // ahead of any beat; `rq_count` counts the queue's events from the
        // push on (the FIFO shows one two cycles after it goes in).
        self.rq_push.next = self.rc_v.q.val();
        self.rq.s.valid.next = self.rq_push.val();
        self.rq.s.data.next.pipe = self.rc_pipe.q.val();
        self.rq.s.data.next.frame = false;
        self.rq.s.data.next.bytes = self.zero16.val();
        self.rq.s.data.next.tail = self.zero_units.val();
        self.rq.s.data.next.full = false;
        self.rq.s.data.next.malformed = false;
        self.rq.s.data.next.off = false;
        self.rq.s.data.next.restart = true;
        self.rq.s.data.next.mask = self.rc_mask.q.val();
        self.rq.s.data.next.enable = self.rc_enable.q.val();
        self.rq_pop.next = self.rq.m.valid.val() & self.m.ready.val();
        self.rq.m.ready.next = self.m.ready.val();
        self.rq_count.d.next = self.rq_count.q.val();
        if self.rq_push.val() & !self.rq_pop.val() {
            self.rq_count.d.next = self.rq_count.q.val() + self.one2.val();
        }
        if !self.rq_push.val() & self.rq_pop.val() {
            self.rq_count.d.next = self.rq_count.q.val() - self.one2.val();
        }
        self.rq_wait.next = self.rq_count.q.val() != self.zero2.val();
        // The queue is never full (at most 3 of its 4 entries, as above); its
        // full flag is registered as a guard (`rq_full`), since
        // `restart_busy` gates every register write and the FIFO's pointer
        // compare (a carry chain) in front of the register file's write
        // acceptance made that path 9 levels deep.
        self.rq_full.d.next = !self.rq.s.ready.val();
        self.restart_busy.next = self.rc_v.q.val() | self.rq_wait.val() | self.rq_full.q.val();

        // ---- Handshakes ----
        // The decide stage takes a beat when it is empty or its beat leaves;
        // a beat leaves whenever the packer is ready (written or dropped),
        // except in a cycle a restart is applied or waits, or the beat's
        // room check is being made again (`d_refresh`).
        self.d_leaves.next = self.d_valid.q.val()
            & self.m.ready.val()
            & !self.rc_v.q.val()
            & !self.rq_wait.val()
            & !self.d_refresh.q.val();
        self.l_moves.next = self.l_valid.q.val() & (!self.d_valid.q.val() | self.d_leaves.val());
        self.i_moves.next = self.i_valid.q.val() & (!self.l_valid.q.val() | self.l_moves.val());
        self.s_eth.ready.next = !self.i_valid.q.val() | !self.l_valid.q.val() | self.l_moves.val();
        if self.s_eth.valid.val() & self.s_eth.ready.val() {
            self.i_beat.d.next = self.s_eth.data.val();
        }
        self.i_valid.d.next = (self.i_valid.q.val() & !self.i_moves.val())
            | (self.s_eth.valid.val() & self.s_eth.ready.val());
        if self.i_moves.val() {
            self.l_beat.d.next = self.i_beat.q.val();
        }
        self.l_valid.d.next = (self.l_valid.q.val() & !self.l_moves.val()) | self.i_moves.val();
        self.d_valid.d.next = (self.d_valid.q.val() & !self.d_leaves.val()) | self.l_moves.val();

        // ---- Lookup: the RAMs read the pipe of the beat they will hold ----
        self.rd_pipe.next = self.l_beat.q.val().pipe;
        if self.i_moves.val() {
            self.rd_pipe.next = self.i_beat.q.val().pipe;
        }
        self.ring.addr.next = self.rd_pipe.val();
        // The state read, then the register file's events of the read's cycle
        // (a restart writes tail 0 and never shares a cycle with a publish;
        // this cycle's publish is taken in the decide stage).
        self.m_rc.d.next = self.cfg_pipe.val() == self.rd_pipe.val();
        self.l_rc.next = self.rc_v.q.val() & self.m_rc.q.val();
        self.l_hw.next = self.hw_v.q.val() & self.m_rc.q.val();
        self.l_base.next = self.ring.base.val();
        self.l_mask.next = self.ring.mask.val();
        self.l_enable.next = self.ring.enable.val();
        self.l_head.next = self.ring.head.val();
        self.l_tail.next = self.ring.tail.val();
        if self.l_rc.val() {
            self.l_base.next = self.rc_base.q.val();
            self.l_mask.next = self.rc_mask.q.val();
            self.l_enable.next = self.rc_enable.q.val();
            self.l_tail.next = self.zero_units.val();
        }
        if self.l_hw.val() {
            self.l_head.next = self.hw_value.q.val();
        }

        // ---- Decide ----
        self.sop.next = self.d_beat.q.val().sop;
        // The frame's pipe, length and size: from the first beat, remembered after.
        self.cur_pipe.next = self.pipe.q.val();
        self.cur_len.next = self.frame_len.q.val();
        self.cur_units.next = self.frame_units.q.val();
        if self.sop.val() {
            self.cur_pipe.next = self.d_beat.q.val().pipe;
            self.cur_len.next = self.d_beat.q.val().len;
            self.cur_units.next = self.d_beat.q.val().units;
        }
        // The first beat's tail: the lookup's, or what the frame ahead published
        // as this beat moved in (`d_same_pub`, `pub_tail`).
        self.sop_tail.next = self.d_tail.q.val();
        if self.d_same_pub.q.val() {
            self.sop_tail.next = self.pub_tail.q.val();
        }
        // Later beats use the ring as it was at the first (f_*).
        self.sel_mask.next = self.f_mask.q.val();
        self.sel_tail.next = self.f_tail.q.val();
        if self.sop.val() {
            self.sel_mask.next = self.d_mask.q.val();
            self.sel_tail.next = self.sop_tail.val();
        }
        // The tail after this frame, if it is published.
        self.new_tail.next = (self.sel_tail.val() + self.cur_units.val()) & self.sel_mask.val();
        // A restart of the frame's pipe after its first beat: the frame is
        // dropped at its last beat (no frame leaves in that cycle).
        if self.rc_v.q.val() & (self.rc_pipe.q.val() == self.cur_pipe.val()) {
            self.f_live.d.next = false;
        }
        self.frame_live.next = self.f_live.q.val();
        if self.sop.val() {
            self.frame_live.next = self.d_enable.q.val();
        }
        self.d_free.next = self.d_fits.q.val();
        if self.d_same_pub.q.val() {
            self.d_free.next = self.d_fits_pub.q.val();
        }
        self.cur_writing.next = self.writing.q.val();
        if self.sop.val() {
            self.cur_writing.next = (self.d_beat.q.val().len != self.zero16.val())
                & self.d_enable.q.val()
                & self.d_free.val();
        }

        // The frame is published as its last beat leaves.
        self.publish.next = self.d_leaves.val()
            & self.d_beat.q.val().last
            & self.cur_writing.val()
            & self.frame_live.val();
        // A beat moving in takes the lookup's state; one that stays keeps its
        // own up to date with the register file's events for its pipe.
        // The room check, a cycle ahead (one unit always stays empty so that
        // a full ring differs from an empty one). A beat moving in gets it on
        // its state, and on its state with the tail the frame now deciding
        // will publish (used if it does, for the same pipe: `d_same_pub`).
        // A beat that stays gets it again on its own state; an event for its
        // pipe updates that state and holds the beat a cycle more
        // (`d_refresh`), so the check is made again on it.
        self.d_refresh.d.next = false;
        if self.l_moves.val() {
            self.d_beat.d.next = self.l_beat.q.val();
            self.d_base.d.next = self.l_base.val();
            self.d_enable.d.next = self.l_enable.val();
            self.d_mask.d.next = self.l_mask.val();
            self.d_head.d.next = self.l_head.val();
            self.d_tail.d.next = self.l_tail.val();
            self.d_same_pub.d.next =
                (self.l_beat.q.val().pipe == self.cur_pipe.val()) & self.publish.val();
            self.d_fits.d.next = self.l_beat.q.val().units
                <= (self.l_mask.val()
                    - ((self.l_tail.val() - self.l_head.val()) & self.l_mask.val()));
        } else if self.d_valid.q.val() & !self.d_leaves.val() {
            self.d_tail.d.next = self.sop_tail.val();
            self.d_same_pub.d.next = false;
            self.d_fits.d.next = self.d_beat.q.val().units
                <= (self.d_mask.q.val()
                    - ((self.sop_tail.val() - self.d_head.q.val()) & self.d_mask.q.val()));
            if self.hw_v.q.val() & (self.rc_pipe.q.val() == self.cur_pipe.val()) {
                self.d_head.d.next = self.hw_value.q.val();
                self.d_refresh.d.next = true;
            }
            if self.rc_v.q.val() & (self.rc_pipe.q.val() == self.cur_pipe.val()) {
                self.d_base.d.next = self.rc_base.q.val();
                self.d_enable.d.next = self.rc_enable.q.val();
                self.d_mask.d.next = self.rc_mask.q.val();
                self.d_tail.d.next = self.zero_units.val();
                self.d_refresh.d.next = true;
            }
        }
        self.d_fits_pub.d.next = self.l_beat.q.val().units
            <= (self.l_mask.val()
                - ((self.new_tail.val() - self.l_head.val()) & self.l_mask.val()));
        // ---- The item ----
        self.stamp.next = self.d_beat.q.val().stamp;
        self.len_flags.lo.next = self.d_beat.q.val().len;
        self.len_flags.hi.next = self.d_beat.q.val().flags;
        self.header.i[0].next = self.len_flags.o.val();
        self.header.i[1].next = self.d_beat.q.val().hash;
        self.header.i[2].next = self.stamp.val().get_bits::<32>(0);
        self.header.i[3].next = self.stamp.val().get_bits::<32>(32);
        self.m.data.next.data = self.d_beat.q.val().data;
        self.m.data.next.units = self.d_beat.q.val().beat_units;
        self.m.data.next.sop = self.sop.val();
        self.m.data.next.last = self.d_beat.q.val().last;
        self.m.data.next.header = self.header.o.val();
        self.m.data.next.base = self.d_base.q.val();
        self.m.data.next.line_mask = self.d_mask.q.val().get_bits::<LINE_BITS>(2);
        self.m.data.next.start = self.sop_tail.val();
        self.m.data.next.cont =
            self.pub_ok.q.val() & (self.pub_pipe.q.val() == self.cur_pipe.val());

        // Events.
        self.ev.next.pipe = self.cur_pipe.val();
        self.ev.next.frame = false;
        self.ev.next.bytes = self.cur_len.val();
        self.ev.next.tail = self.new_tail.val();
        self.ev.next.full = false;
        self.ev.next.malformed = false;
        self.ev.next.off = false;
        self.ev.next.restart = false;
        self.ev.next.mask = self.zero_units.val();
        self.ev.next.enable = false;
        self.item_v.next = self.cur_writing.val();
        if self.sop.val() {
            // A frame refused at its first beat is counted once, here, by an
            // item with only that event.
            if self.d_beat.q.val().len == self.zero16.val() {
                self.ev.next.malformed = true;
            } else if !self.d_enable.q.val() {
                self.ev.next.off = true;
            } else if !self.cur_writing.val() {
                self.ev.next.full = true;
            }
            if !self.cur_writing.val() {
                self.item_v.next = true;
                self.m.data.next.units = self.u0.val();
                self.m.data.next.sop = false;
                self.m.data.next.last = false;
            }
        }
        if self.d_beat.q.val().last & self.cur_writing.val() {
            if !self.frame_live.val() {
                // Its pipe restarted mid-frame: not published, counted.
                self.ev.next.off = true;
            } else {
                self.ev.next.frame = true;
            }
        }
        self.m.data.next.ev = self.ev.val();
        self.m.valid.next = self.d_valid.q.val()
            & !self.rc_v.q.val()
            & !self.rq_wait.val()
            & !self.d_refresh.q.val()
            & self.item_v.val();
        // A waiting restart's event goes first, alone.
        if self.rq_wait.val() {
            self.m.data.next.units = self.u0.val();
            self.m.data.next.sop = false;
            self.m.data.next.last = false;
            self.m.data.next.ev = self.rq.m.data.val();
            self.m.valid.next = self.rq.m.valid.val();
        }

        // ---- Frame state ----
        if self.d_leaves.val() & self.sop.val() {
            self.pipe.d.next = self.cur_pipe.val();
            self.f_mask.d.next = self.sel_mask.val();
            self.f_tail.d.next = self.sel_tail.val();
            self.f_live.d.next = self.frame_live.val();
            self.frame_len.d.next = self.cur_len.val();
            self.frame_units.d.next = self.cur_units.val();
            self.writing.d.next = self.cur_writing.val();
        }
        // The last published entry (`d_same_pub` and `cont`), forgotten at
        // every restart and every entry abandoned.
        if self.publish.val() {
            self.pub_tail.d.next = self.new_tail.val();
            self.pub_ok.d.next = true;
            self.pub_pipe.d.next = self.cur_pipe.val();
        } else if self.d_leaves.val() & self.d_beat.q.val().last & self.cur_writing.val() {
            self.pub_ok.d.next = false;
        }
        if self.rc_v.q.val() {
            self.pub_ok.d.next = false;
        }
        // A published frame moves its pipe's tail; a restart sets it to 0
        // (never in the same cycle: no frame leaves then).
        self.ring.tail_wr.next = self.publish.val() | self.rc_v.q.val();
        self.ring.tail_pipe.next = self.cur_pipe.val();
        self.ring.tail_value.next = self.new_tail.val();
        if self.rc_v.q.val() {
            self.ring.tail_pipe.next = self.rc_pipe.q.val();
            self.ring.tail_value.next = self.zero_units.val();
        }
    }
}
