use crate::mmio::RxRingUser;
use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource, ZeroExtend};
use crate::types::{DmaWrite, RxBeat};
use pendulum_layout::params::{PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// Ensō RX engine: writes each frame's beats, one 64-byte DMA write per beat,
/// into its pipe's data ring right after the pipe's tail, and advances the
/// tail once the whole frame has gone out.
///
/// The frame's pipe and length come with its first beat from the parse stage
/// (`RxParse`), so room in the ring is checked before the first write: a
/// frame that does not fit is dropped whole and counted, and nothing already
/// in the ring is touched. A frame whose length is unknown, over the MTU, or
/// not what its header says is dropped and counted; its beats may have been
/// written past the tail, where software never looks.
///
/// Each pipe's ring (base, size, on/off), head and tail are
/// `mmio::RxPipeState`'s: this block reads them (`ring`, a cycle later)
/// and writes the tail, its one writer. The register
/// file also reports each change it makes (a pipe switched on or off with
/// its ring, `restart`; each head write, `head_wr`), which this block
/// forwards to the beats whose state was read before it; and it tells the
/// register file and the notification writer, in one ordered event stream
/// (`ev_*`), each tail it publishes and each restart it applied.
///
/// Three register stages, so that no path runs from a RAM read through the
/// room check to the DMA port (250 MHz at 1,024 pipes):
/// - `i_*` (in): the beat from the parse stage; its pipe addresses the RAMs.
/// - `l_*` (lookup): the RAMs' data for the beat's pipe, with the writes the
///   read missed forwarded (the register file's of the read's cycle, from
///   `rc_*`/`hw_*`; `RxPipeState` forwards the tail); re-read while the beat
///   waits.
/// - `d_*` (decide): the ring state as the lookup stage left it, corrected
///   for the tail the frame ahead published as this beat moved in
///   (`d_same_pub`); the room check and the write happen here.
///
/// The register file's events enter through a register (`rc_*`, `hw_*`) and
/// are applied a cycle after they are reported. No frame leaves the decide
/// stage in a cycle a restart is applied (so the restart and a publish never
/// share the tail RAM's one write port, and a restart never shares a cycle
/// with a publish in `ev_*`); a frame that started on the restarted pipe is
/// dropped at its last beat, counted, and never published.
///
/// Latency 3 cycles (in, lookup, decide); 1 beat/cycle; stalls only on
/// `m_dma.ready` and for a cycle per restart, and `s_eth.ready` never
/// depends on the room check. Events (`ev_*`) leave through a register, a
/// cycle after the decision.
#[derive(LogicBlock)]
pub struct RxEngine {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Frames from the MAC, through the parse stage.
    pub s_eth: StreamSink<RxBeat>,
    /// Ring writes to host memory.
    pub m_dma: StreamSource<DmaWrite>,
    /// The pipes' ring state (`mmio::RxPipeState`): pipe `ring.addr`'s, a
    /// cycle later, with the tail written in the read's cycle forwarded; and
    /// the tail writes (each published frame's new tail, and 0 as a restart
    /// is applied).
    pub ring: RxRingUser,
    /// The pipe the register file's events below are about.
    pub cfg_pipe: Signal<In, Bits<PIPE_BITS>>,
    /// One-cycle pulse: the pipe was switched on or off. It starts over (tail
    /// 0; a frame on its way to it is dropped, counted) with this ring:
    /// base, size in slots minus one, and whether it is on. (A ring can only
    /// change while its pipe is off, so these are all the engine needs.)
    pub restart: Signal<In, Bit>,
    pub restart_base: Signal<In, Bits<64>>,
    pub restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<In, Bit>,
    /// One-cycle pulse: the pipe's head is now `head` (software freed
    /// slots, or the pipe was switched on: 0).
    pub head_wr: Signal<In, Bit>,
    pub head: Signal<In, Bits<SLOT_BITS>>,
    /// Events, from a register (see `mmio::RxEvents`): about pipe `ev_pipe`.
    pub ev_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_frame_bytes: Signal<Out, Bits<16>>,
    /// With `ev_frame`: the pipe's new tail (the slot after the frame; the
    /// register file's TAIL and the notification writer's move).
    pub ev_tail: Signal<Out, Bits<SLOT_BITS>>,
    pub ev_drop_ring_full: Signal<Out, Bit>,
    pub ev_drop_malformed: Signal<Out, Bit>,
    pub ev_drop_pipe_off: Signal<Out, Bit>,
    /// A restart applied here (tail 0, this ring size and on/off), in order
    /// with the tails published: never in the same cycle as `ev_frame`, and
    /// no `ev_frame` for the old ring comes after it.
    pub ev_restart: Signal<Out, Bit>,
    pub ev_restart_mask: Signal<Out, Bits<SLOT_BITS>>,
    pub ev_restart_enable: Signal<Out, Bit>,

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
    // The beat's pipe is the one the frame ahead of it published (if it did)
    // in the cycle the beat moved in.
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
    overrun: SDFF<Bit>,
    pipe: SDFF<Bits<PIPE_BITS>>,
    beat: SDFF<Bits<16>>,
    frame_len: SDFF<Bits<16>>,
    frame_beats: SDFF<Bits<16>>,
    // The ring a frame is written into, as it was at the frame's first beat:
    // software may disable the pipe or change its ring meanwhile, and the
    // frame's remaining writes must stay where its first went (and a write
    // of several beats contiguous).
    f_base: SDFF<Bits<64>>,
    f_mask: SDFF<Bits<SLOT_BITS>>,
    f_tail: SDFF<Bits<SLOT_BITS>>,
    // The frame's pipe has not restarted since its first beat.
    f_live: SDFF<Bit>,
    frame_live: Signal<Local, Bit>,
    publish: Signal<Local, Bit>,

    // This beat.
    sop: Signal<Local, Bit>,
    cur_pipe: Signal<Local, Bits<PIPE_BITS>>,
    cur_len: Signal<Local, Bits<16>>,
    cur_beats: Signal<Local, Bits<16>>,
    cur_writing: Signal<Local, Bit>,
    sel_base: Signal<Local, Bits<64>>,
    sel_mask: Signal<Local, Bits<SLOT_BITS>>,
    sel_tail: Signal<Local, Bits<SLOT_BITS>>,
    sop_tail: Signal<Local, Bits<SLOT_BITS>>,
    in_ring: Signal<Local, Bit>,
    slot: Signal<Local, Bits<SLOT_BITS>>,
    slot64: ZeroExtend<SLOT_BITS, 64>,
    wire_ok: Signal<Local, Bit>,
    // The tail after this frame, if it is published.
    new_tail: Signal<Local, Bits<SLOT_BITS>>,

    // Events, registered.
    e_pipe: SDFF<Bits<PIPE_BITS>>,
    e_frame: SDFF<Bit>,
    e_bytes: SDFF<Bits<16>>,
    e_tail: SDFF<Bits<SLOT_BITS>>,
    e_full: SDFF<Bit>,
    e_malformed: SDFF<Bit>,
    e_off: SDFF<Bit>,
    e_restart: SDFF<Bit>,
    e_mask: SDFF<Bits<SLOT_BITS>>,
    e_enable: SDFF<Bit>,

    // Address bits 7..6 of the last 64-byte block of a 256-byte block.
    block_end: Constant<Bits<2>>,
    // Address bits 7..6 of this beat, from the base's and the slot's alone
    // (bits 5..0 of both addends are 0, so no carry enters): the end of a
    // 256-byte block is then known without waiting for the 64-bit sum.
    addr_blk: Signal<Local, Bits<2>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
}

impl RxEngine {
    pub fn new() -> Self {
        let c16 = |v: u32| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_eth: Default::default(),
            m_dma: Default::default(),
            ring: Default::default(),
            cfg_pipe: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            head_wr: Default::default(),
            head: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_frame_bytes: Default::default(),
            ev_tail: Default::default(),
            ev_drop_ring_full: Default::default(),
            ev_drop_malformed: Default::default(),
            ev_drop_pipe_off: Default::default(),
            ev_restart: Default::default(),
            ev_restart_mask: Default::default(),
            ev_restart_enable: Default::default(),
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
            overrun: Default::default(),
            pipe: Default::default(),
            beat: Default::default(),
            frame_len: Default::default(),
            frame_beats: Default::default(),
            f_base: Default::default(),
            f_mask: Default::default(),
            f_tail: Default::default(),
            f_live: Default::default(),
            frame_live: Default::default(),
            publish: Default::default(),
            sop: Default::default(),
            cur_pipe: Default::default(),
            cur_len: Default::default(),
            cur_beats: Default::default(),
            cur_writing: Default::default(),
            sel_base: Default::default(),
            sel_mask: Default::default(),
            sel_tail: Default::default(),
            sop_tail: Default::default(),
            in_ring: Default::default(),
            slot: Default::default(),
            slot64: Default::default(),
            wire_ok: Default::default(),
            new_tail: Default::default(),
            e_pipe: Default::default(),
            e_frame: Default::default(),
            e_bytes: Default::default(),
            e_tail: Default::default(),
            e_full: Default::default(),
            e_malformed: Default::default(),
            e_off: Default::default(),
            e_restart: Default::default(),
            e_mask: Default::default(),
            e_enable: Default::default(),
            block_end: Constant::new(3u64.into()),
            addr_blk: Default::default(),
            one16: c16(1),
            zero16: c16(0),
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
            overrun,
            pipe,
            beat,
            frame_len,
            frame_beats,
            f_base,
            f_mask,
            f_tail,
            f_live,
            e_pipe,
            e_frame,
            e_bytes,
            e_tail,
            e_full,
            e_malformed,
            e_off,
            e_restart,
            e_mask,
            e_enable
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
        self.overrun.reset.next = self.reset.val();
        self.pipe.reset.next = self.reset.val();
        self.beat.reset.next = self.reset.val();
        self.frame_len.reset.next = self.reset.val();
        self.frame_beats.reset.next = self.reset.val();
        self.f_base.reset.next = self.reset.val();
        self.f_mask.reset.next = self.reset.val();
        self.f_tail.reset.next = self.reset.val();
        self.f_live.reset.next = self.reset.val();
        self.e_pipe.reset.next = self.reset.val();
        self.e_frame.reset.next = self.reset.val();
        self.e_bytes.reset.next = self.reset.val();
        self.e_tail.reset.next = self.reset.val();
        self.e_full.reset.next = self.reset.val();
        self.e_malformed.reset.next = self.reset.val();
        self.e_off.reset.next = self.reset.val();
        self.e_restart.reset.next = self.reset.val();
        self.e_mask.reset.next = self.reset.val();
        self.e_enable.reset.next = self.reset.val();

        // ---- The register file's events, a cycle late ----
        self.rc_v.d.next = self.restart.val();
        self.rc_pipe.d.next = self.cfg_pipe.val();
        self.rc_base.d.next = self.restart_base.val();
        self.rc_mask.d.next = self.restart_mask.val();
        self.rc_enable.d.next = self.restart_enable.val();
        self.hw_v.d.next = self.head_wr.val();
        self.hw_value.d.next = self.head.val();

        // ---- Handshakes ----
        // The decide stage takes a beat when it is empty or its beat leaves;
        // a beat leaves whenever the DMA port is ready (written or dropped),
        // except in a cycle a restart is applied or its room check is being
        // made again (`d_refresh`).
        self.d_leaves.next = self.d_valid.q.val()
            & self.m_dma.ready.val()
            & !self.rc_v.q.val()
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
            self.l_tail.next = self.zero16.val();
        }
        if self.l_hw.val() {
            self.l_head.next = self.hw_value.q.val();
        }

        // ---- Decide ----
        self.sop.next = self.d_beat.q.val().sop;
        // The frame's pipe, length and size: from the first beat, remembered after.
        self.cur_pipe.next = self.pipe.q.val();
        self.cur_len.next = self.frame_len.q.val();
        self.cur_beats.next = self.frame_beats.q.val();
        if self.sop.val() {
            self.cur_pipe.next = self.d_beat.q.val().pipe;
            self.cur_len.next = self.d_beat.q.val().len;
            self.cur_beats.next = self.d_beat.q.val().slots;
        }
        // The first beat's tail: the lookup's, or what the frame ahead published
        // last cycle (its event registers, `e_frame`/`e_tail`).
        self.sop_tail.next = self.d_tail.q.val();
        if self.e_frame.q.val() & self.d_same_pub.q.val() {
            self.sop_tail.next = self.e_tail.q.val();
        }
        // Later beats use the ring as it was at the first (f_*).
        self.sel_base.next = self.f_base.q.val();
        self.sel_mask.next = self.f_mask.q.val();
        self.sel_tail.next = self.f_tail.q.val();
        if self.sop.val() {
            self.sel_base.next = self.d_base.q.val();
            self.sel_mask.next = self.d_mask.q.val();
            self.sel_tail.next = self.sop_tail.val();
        }
        // The tail after this frame, if it is published.
        self.new_tail.next = (self.sel_tail.val() + self.cur_beats.val()) & self.sel_mask.val();
        // A beat moving in takes the lookup's state; one that stays keeps its
        // own up to date with the register file's events for its pipe.
        // The room check, a cycle ahead (one slot always stays empty so that
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
            self.d_same_pub.d.next = self.l_beat.q.val().pipe == self.cur_pipe.val();
            self.d_fits.d.next = self.l_beat.q.val().slots
                <= (self.l_mask.val()
                    - ((self.l_tail.val() - self.l_head.val()) & self.l_mask.val()));
        } else if self.d_valid.q.val() & !self.d_leaves.val() {
            self.d_tail.d.next = self.sop_tail.val();
            self.d_same_pub.d.next = false;
            self.d_fits.d.next = self.d_beat.q.val().slots
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
                self.d_tail.d.next = self.zero16.val();
                self.d_refresh.d.next = true;
            }
        }
        self.d_fits_pub.d.next = self.l_beat.q.val().slots
            <= (self.l_mask.val()
                - ((self.new_tail.val() - self.l_head.val()) & self.l_mask.val()));
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
        if self.e_frame.q.val() & self.d_same_pub.q.val() {
            self.d_free.next = self.d_fits_pub.q.val();
        }
        self.cur_writing.next = self.writing.q.val();
        if self.sop.val() {
            self.cur_writing.next =
                self.d_beat.q.val().len_known & self.d_enable.q.val() & self.d_free.val();
        }

        // Where this beat goes: the slot `beat` places after the tail.
        self.in_ring.next = self.beat.q.val() < self.cur_beats.val();
        if self.sop.val() {
            self.in_ring.next = true;
        }
        // Later beats from the frame's own registers, a first beat from its
        // pipe's tail: two short paths rather than one through both muxes.
        self.slot.next = (self.f_tail.q.val() + self.beat.q.val()) & self.f_mask.q.val();
        if self.sop.val() {
            self.slot.next = self.sop_tail.val();
        }
        self.slot64.i.next = self.slot.val();
        self.m_dma.data.next.addr = self.sel_base.val() + (self.slot64.o.val() << 6);
        self.addr_blk.next =
            self.sel_base.val().get_bits::<2>(6) + self.slot.val().get_bits::<2>(0);
        // A write (one TLP) ends with the frame's data, at a 256-byte boundary,
        // or where the ring wraps.
        self.m_dma.data.next.last = self.d_beat.q.val().last
            | ((self.beat.q.val() + self.one16.val()) == self.cur_beats.val())
            | (self.addr_blk.val() == self.block_end.val())
            | (self.slot.val() == self.sel_mask.val());
        if self.sop.val() {
            self.m_dma.data.next.last = self.d_beat.q.val().last
                | (self.cur_beats.val() == self.one16.val())
                | (self.addr_blk.val() == self.block_end.val())
                | (self.slot.val() == self.sel_mask.val());
        }
        self.m_dma.data.next.data = self.d_beat.q.val().data;
        self.m_dma.data.next.strb = self.d_beat.q.val().keep;
        self.m_dma.valid.next = self.d_valid.q.val()
            & !self.rc_v.q.val()
            & !self.d_refresh.q.val()
            & self.cur_writing.val()
            & self.in_ring.val();

        // Does the frame end as its header said: as many beats, and the last
        // beat's bytes (checked by the parse stage)?
        self.wire_ok.next = (self.beat.q.val() + self.one16.val() == self.cur_beats.val())
            & !self.overrun.q.val()
            & self.d_beat.q.val().keep_ok;
        if self.sop.val() {
            self.wire_ok.next =
                (self.cur_beats.val() == self.one16.val()) & self.d_beat.q.val().keep_ok;
        }

        // Events (registered below).
        self.e_pipe.d.next = self.cur_pipe.val();
        self.e_bytes.d.next = self.cur_len.val();
        self.e_tail.d.next = self.new_tail.val();
        self.e_frame.d.next = false;
        self.e_full.d.next = false;
        self.e_malformed.d.next = false;
        self.e_off.d.next = false;
        self.publish.next = false;
        if self.d_leaves.val() {
            if self.sop.val() {
                self.pipe.d.next = self.cur_pipe.val();
                self.f_base.d.next = self.sel_base.val();
                self.f_mask.d.next = self.sel_mask.val();
                self.f_tail.d.next = self.sel_tail.val();
                self.f_live.d.next = self.frame_live.val();
                self.frame_len.d.next = self.cur_len.val();
                self.frame_beats.d.next = self.cur_beats.val();
                self.writing.d.next = self.cur_writing.val();
                self.overrun.d.next = false;
                self.beat.d.next = self.one16.val();
                // A frame refused at its first beat is counted once, here.
                if !self.d_beat.q.val().len_known {
                    self.e_malformed.d.next = true;
                } else if !self.d_enable.q.val() {
                    self.e_off.d.next = true;
                } else if !self.cur_writing.val() {
                    self.e_full.d.next = true;
                }
            } else {
                self.beat.d.next = self.beat.q.val() + self.one16.val();
                if !self.in_ring.val() {
                    self.overrun.d.next = true;
                }
            }
            if self.d_beat.q.val().last && self.cur_writing.val() {
                if !self.frame_live.val() {
                    // Its pipe restarted mid-frame: written, never published, counted.
                    self.e_off.d.next = true;
                } else if self.wire_ok.val() {
                    self.e_frame.d.next = true;
                    self.publish.next = true;
                } else {
                    self.e_malformed.d.next = true;
                }
            }
        }
        // A published frame moves its pipe's tail; a restart sets it to 0
        // (never in the same cycle: no frame leaves then).
        self.ring.tail_wr.next = self.publish.val() | self.rc_v.q.val();
        self.ring.tail_pipe.next = self.cur_pipe.val();
        self.ring.tail_value.next = self.new_tail.val();
        if self.rc_v.q.val() {
            self.ring.tail_pipe.next = self.rc_pipe.q.val();
            self.ring.tail_value.next = self.zero16.val();
        }
        // The restart, in order with the tails.
        self.e_restart.d.next = self.rc_v.q.val();
        self.e_mask.d.next = self.rc_mask.q.val();
        self.e_enable.d.next = self.rc_enable.q.val();
        if self.rc_v.q.val() {
            self.e_pipe.d.next = self.rc_pipe.q.val();
        }
        self.ev_pipe.next = self.e_pipe.q.val();
        self.ev_frame.next = self.e_frame.q.val();
        self.ev_frame_bytes.next = self.e_bytes.q.val();
        self.ev_tail.next = self.e_tail.q.val();
        self.ev_drop_ring_full.next = self.e_full.q.val();
        self.ev_drop_malformed.next = self.e_malformed.q.val();
        self.ev_drop_pipe_off.next = self.e_off.q.val();
        self.ev_restart.next = self.e_restart.q.val();
        self.ev_restart_mask.next = self.e_mask.q.val();
        self.ev_restart_enable.next = self.e_enable.q.val();
    }
}
