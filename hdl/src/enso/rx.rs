use crate::stream::{StreamSink, StreamSource, ZeroExtend};
use crate::types::{DmaWrite, RxBeat};
use pendulum_layout::params::{PIPES, PIPE_BITS, SLOT_BITS};
use rust_hdl::prelude::*;

/// Ensō RX engine: writes each frame's beats, one 64-byte DMA write per beat,
/// into its pipe's data ring right after the pipe's tail, and advances the
/// tail once the whole frame has gone out.
///
/// The frame's pipe and length come with its first beat from the parse stage
/// (`RxParse`), so room in the ring is checked before the first write: a frame that does not fit is dropped whole and counted, and nothing
/// already in the ring is touched. A frame whose length is unknown, over the
/// MTU, or not what its header says is dropped and counted; its beats may have
/// been written past the tail, where software never looks.
///
/// Latency 0 (combinational from `s_eth` to `m_dma`); 1 beat/cycle; stalls
/// only on `m_dma.ready`.
#[derive(LogicBlock)]
pub struct RxEngine {
    pub clock: Signal<In, Clock>,
    /// Frames from the MAC, through the parse stage.
    pub s_eth: StreamSink<RxBeat>,
    /// Ring writes to host memory.
    pub m_dma: StreamSource<DmaWrite>,
    pub ring_base: [Signal<In, Bits<64>>; PIPES],
    pub ring_mask: [Signal<In, Bits<SLOT_BITS>>; PIPES],
    pub enable: [Signal<In, Bit>; PIPES],
    pub head: [Signal<In, Bits<SLOT_BITS>>; PIPES],
    /// Slot after the last complete frame, per pipe; 0 while the pipe is off.
    pub tail: [Signal<Out, Bits<SLOT_BITS>>; PIPES],
    /// One-cycle events for the counters (see `mmio::RxEvents`).
    pub ev_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_frame_bytes: Signal<Out, Bits<16>>,
    /// With `ev_frame`: the pipe's new tail (the notification writer's move).
    pub ev_tail: Signal<Out, Bits<SLOT_BITS>>,
    pub ev_drop_ring_full: Signal<Out, Bit>,
    pub ev_drop_malformed: Signal<Out, Bit>,
    pub ev_drop_pipe_off: Signal<Out, Bit>,

    // Frame state, kept from the first beat to the last.
    writing: DFF<Bit>,
    overrun: DFF<Bit>,
    pipe: DFF<Bits<PIPE_BITS>>,
    beat: DFF<Bits<16>>,
    frame_len: DFF<Bits<16>>,
    frame_beats: DFF<Bits<16>>,
    tail_r: [DFF<Bits<SLOT_BITS>>; PIPES],
    // The ring a frame is written into, as it was at the frame's first beat:
    // software may disable the pipe or change its ring meanwhile, and the
    // frame's remaining writes must stay where its first went (and a write
    // of several beats contiguous).
    f_base: DFF<Bits<64>>,
    f_mask: DFF<Bits<SLOT_BITS>>,
    f_tail: DFF<Bits<SLOT_BITS>>,
    // The frame's pipe has stayed enabled since its first beat.
    f_live: DFF<Bit>,
    frame_live: Signal<Local, Bit>,

    // This beat.
    beat_data: Signal<Local, Bits<512>>,
    beat_keep: Signal<Local, Bits<64>>,
    beat_last: Signal<Local, Bit>,
    sop: Signal<Local, Bit>,
    keep_ok: Signal<Local, Bit>,
    cur_pipe: Signal<Local, Bits<PIPE_BITS>>,
    cur_len: Signal<Local, Bits<16>>,
    cur_beats: Signal<Local, Bits<16>>,
    cur_writing: Signal<Local, Bit>,
    sel_base: Signal<Local, Bits<64>>,
    sel_mask: Signal<Local, Bits<SLOT_BITS>>,
    sel_tail: Signal<Local, Bits<SLOT_BITS>>,
    sel_enable: Signal<Local, Bit>,
    // The ring state of the pipe a first beat names, selected by the beat's
    // own (registered) pipe field rather than through `cur_pipe`: the room
    // check is the deepest logic here, and this keeps it one mux shallower.
    sop_base: Signal<Local, Bits<64>>,
    sop_mask: Signal<Local, Bits<SLOT_BITS>>,
    sop_head: Signal<Local, Bits<SLOT_BITS>>,
    sop_tail: Signal<Local, Bits<SLOT_BITS>>,
    sop_enable: Signal<Local, Bit>,
    free_slots: Signal<Local, Bits<SLOT_BITS>>,
    in_ring: Signal<Local, Bit>,
    slot: Signal<Local, Bits<SLOT_BITS>>,
    slot64: ZeroExtend<SLOT_BITS, 64>,
    dma_addr: Signal<Local, Bits<64>>,
    wire_ok: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    // The tail after this frame, if it is published.
    new_tail: Signal<Local, Bits<SLOT_BITS>>,

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
            s_eth: Default::default(),
            m_dma: Default::default(),
            ring_base: Default::default(),
            ring_mask: Default::default(),
            enable: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_frame_bytes: Default::default(),
            ev_tail: Default::default(),
            ev_drop_ring_full: Default::default(),
            ev_drop_malformed: Default::default(),
            ev_drop_pipe_off: Default::default(),
            writing: Default::default(),
            overrun: Default::default(),
            pipe: Default::default(),
            beat: Default::default(),
            frame_len: Default::default(),
            frame_beats: Default::default(),
            tail_r: Default::default(),
            f_base: Default::default(),
            f_mask: Default::default(),
            f_tail: Default::default(),
            f_live: Default::default(),
            frame_live: Default::default(),
            beat_data: Default::default(),
            beat_keep: Default::default(),
            beat_last: Default::default(),
            sop: Default::default(),
            keep_ok: Default::default(),
            cur_pipe: Default::default(),
            cur_len: Default::default(),
            cur_beats: Default::default(),
            cur_writing: Default::default(),
            sel_base: Default::default(),
            sel_mask: Default::default(),
            sel_tail: Default::default(),
            sel_enable: Default::default(),
            sop_base: Default::default(),
            sop_mask: Default::default(),
            sop_head: Default::default(),
            sop_tail: Default::default(),
            sop_enable: Default::default(),
            free_slots: Default::default(),
            in_ring: Default::default(),
            slot: Default::default(),
            slot64: Default::default(),
            dma_addr: Default::default(),
            wire_ok: Default::default(),
            accept: Default::default(),
            new_tail: Default::default(),
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
            writing,
            overrun,
            pipe,
            beat,
            frame_len,
            frame_beats,
            f_base,
            f_mask,
            f_tail,
            f_live
        );
        for i in 0..PIPES {
            self.tail_r[i].clock.next = self.clock.val();
            self.tail_r[i].d.next = self.tail_r[i].q.val();
            if !self.enable[i].val() {
                self.tail_r[i].d.next = self.zero16.val();
            }
            self.tail[i].next = self.tail_r[i].q.val();
        }
        self.beat_data.next = self.s_eth.data.val().data;
        self.beat_keep.next = self.s_eth.data.val().keep;
        self.beat_last.next = self.s_eth.data.val().last;
        self.sop.next = self.s_eth.data.val().sop;
        self.keep_ok.next = self.s_eth.data.val().keep_ok;

        // The frame's pipe, length and size: parsed now on the first beat,
        // remembered after.
        self.cur_pipe.next = self.pipe.q.val();
        self.cur_len.next = self.frame_len.q.val();
        self.cur_beats.next = self.frame_beats.q.val();
        if self.sop.val() {
            self.cur_pipe.next = self.s_eth.data.val().pipe;
            self.cur_len.next = self.s_eth.data.val().len;
            self.cur_beats.next = self.s_eth.data.val().slots;
        }
        self.sop_base.next = self.ring_base[0].val();
        self.sop_mask.next = self.ring_mask[0].val();
        self.sop_head.next = self.head[0].val();
        self.sop_tail.next = self.tail_r[0].q.val();
        self.sop_enable.next = self.enable[0].val();
        for i in 0..PIPES {
            if self.s_eth.data.val().pipe.index() == i {
                self.sop_base.next = self.ring_base[i].val();
                self.sop_mask.next = self.ring_mask[i].val();
                self.sop_head.next = self.head[i].val();
                self.sop_tail.next = self.tail_r[i].q.val();
                self.sop_enable.next = self.enable[i].val();
            }
        }
        // Later beats use the ring as it was at the first (f_*), and whether
        // the frame's pipe is still enabled.
        self.sel_base.next = self.f_base.q.val();
        self.sel_mask.next = self.f_mask.q.val();
        self.sel_tail.next = self.f_tail.q.val();
        self.sel_enable.next = self.enable[0].val();
        for i in 0..PIPES {
            if self.pipe.q.val().index() == i {
                self.sel_enable.next = self.enable[i].val();
            }
        }
        if self.sop.val() {
            self.sel_base.next = self.sop_base.val();
            self.sel_mask.next = self.sop_mask.val();
            self.sel_tail.next = self.sop_tail.val();
            self.sel_enable.next = self.sop_enable.val();
        }
        self.frame_live.next = self.sel_enable.val() & (self.sop.val() | self.f_live.q.val());
        self.f_live.d.next = self.frame_live.val();
        // One slot always stays empty so that a full ring differs from an empty one.
        self.free_slots.next = self.sop_mask.val()
            - ((self.sop_tail.val() - self.sop_head.val()) & self.sop_mask.val());

        self.cur_writing.next = self.writing.q.val();
        if self.sop.val() {
            self.cur_writing.next = self.s_eth.data.val().len_known
                & self.sop_enable.val()
                & (self.s_eth.data.val().slots <= self.free_slots.val());
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
        self.dma_addr.next = self.sel_base.val() + (self.slot64.o.val() << 6);
        self.m_dma.data.next.addr = self.dma_addr.val();
        self.addr_blk.next = self.sel_base.val().get_bits::<2>(6) + self.slot.val().get_bits::<2>(0);
        // A write (one TLP) ends with the frame's data, at a 256-byte boundary,
        // or where the ring wraps.
        self.m_dma.data.next.last = self.beat_last.val()
            | ((self.beat.q.val() + self.one16.val()) == self.cur_beats.val())
            | (self.addr_blk.val() == self.block_end.val())
            | (self.slot.val() == self.sel_mask.val());
        if self.sop.val() {
            self.m_dma.data.next.last = self.beat_last.val()
                | (self.cur_beats.val() == self.one16.val())
                | (self.addr_blk.val() == self.block_end.val())
                | (self.slot.val() == self.sel_mask.val());
        }
        self.m_dma.data.next.data = self.beat_data.val();
        self.m_dma.data.next.strb = self.beat_keep.val();
        self.m_dma.valid.next =
            self.s_eth.valid.val() & self.cur_writing.val() & self.in_ring.val();
        self.s_eth.ready.next = true;
        if self.cur_writing.val() & self.in_ring.val() {
            self.s_eth.ready.next = self.m_dma.ready.val();
        }
        self.accept.next = self.s_eth.valid.val() & self.s_eth.ready.val();

        // Does the frame end as its header said: as many beats, and the last
        // beat's bytes (checked by the parse stage)?
        self.wire_ok.next = (self.beat.q.val() + self.one16.val() == self.cur_beats.val())
            & !self.overrun.q.val()
            & self.keep_ok.val();
        if self.sop.val() {
            self.wire_ok.next = (self.cur_beats.val() == self.one16.val()) & self.keep_ok.val();
        }

        // Events.
        self.ev_pipe.next = self.cur_pipe.val();
        self.ev_frame.next = false;
        self.ev_frame_bytes.next = self.cur_len.val();
        self.new_tail.next = (self.sel_tail.val() + self.cur_beats.val()) & self.sel_mask.val();
        self.ev_tail.next = self.new_tail.val();
        self.ev_drop_ring_full.next = false;
        self.ev_drop_malformed.next = false;
        self.ev_drop_pipe_off.next = false;

        if self.accept.val() {
            if self.sop.val() {
                self.pipe.d.next = self.cur_pipe.val();
                self.f_base.d.next = self.sel_base.val();
                self.f_mask.d.next = self.sel_mask.val();
                self.f_tail.d.next = self.sel_tail.val();
                self.frame_len.d.next = self.cur_len.val();
                self.frame_beats.d.next = self.cur_beats.val();
                self.writing.d.next = self.cur_writing.val();
                self.overrun.d.next = false;
                self.beat.d.next = self.one16.val();
                // A frame refused at its first beat is counted once, here.
                if !self.s_eth.data.val().len_known {
                    self.ev_drop_malformed.next = true;
                } else if !self.sel_enable.val() {
                    self.ev_drop_pipe_off.next = true;
                } else if !self.cur_writing.val() {
                    self.ev_drop_ring_full.next = true;
                }
            } else {
                self.beat.d.next = self.beat.q.val() + self.one16.val();
                if !self.in_ring.val() {
                    self.overrun.d.next = true;
                }
            }
            if self.beat_last.val() {
                if self.cur_writing.val() {
                    if !self.frame_live.val() {
                        // Its pipe went off mid-frame: written, never published, counted.
                        self.ev_drop_pipe_off.next = true;
                    } else if self.wire_ok.val() {
                        self.ev_frame.next = true;
                        for i in 0..PIPES {
                            if self.cur_pipe.val().index() == i {
                                self.tail_r[i].d.next = self.new_tail.val();
                            }
                        }
                    } else {
                        self.ev_drop_malformed.next = true;
                    }
                }
            }
        }
        // Disabling a pipe mid-frame abandons the frame (its writes finish in
        // the ring it started in, contiguous; it is counted, not published);
        // the tail stays 0.
        for i in 0..PIPES {
            if !self.enable[i].val() {
                self.tail_r[i].d.next = self.zero16.val();
            }
        }
    }
}
