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
/// Each pipe's ring (base, size, on/off), head and tail live in block RAM,
/// so nothing here grows with the number of pipes but the RAMs and one bit
/// per pipe (`tail_zero`). A beat waits one cycle in a lookup register while
/// the RAMs are read for its pipe (and re-read while it stalls, so they stay
/// current); a write the RAMs took in the cycle of that read is forwarded.
/// The register file reports what changes: a pipe switched on or off with
/// its ring (`restart`), and each head write (`head_wr`).
///
/// Latency 1 cycle (the lookup register); 1 beat/cycle; stalls only on
/// `m_dma.ready`, and `s_eth.ready` is `m_dma.ready` or an empty lookup
/// register, never the room check.
#[derive(LogicBlock)]
pub struct RxEngine {
    pub clock: Signal<In, Clock>,
    /// Frames from the MAC, through the parse stage.
    pub s_eth: StreamSink<RxBeat>,
    /// Ring writes to host memory.
    pub m_dma: StreamSource<DmaWrite>,
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
    /// One-cycle events for the counters (see `mmio::RxEvents`).
    pub ev_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_frame_bytes: Signal<Out, Bits<16>>,
    /// With `ev_frame`: the pipe's new tail (the slot after the frame; the
    /// register file's TAIL and the notification writer's move).
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
    // The lookup register: the beat being decided on, its pipe's RAM entries
    // read in the cycle it arrived.
    l_valid: DFF<Bit>,
    l_beat: DFF<RxBeat>,
    take: Signal<Local, Bit>,
    rd_pipe: Signal<Local, Bits<PIPE_BITS>>,
    // Per-pipe state: ring base, mask and on/off as of the last restart; head; tail.
    base_ram: RAM<Bits<64>, PIPE_BITS>,
    mask_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    enable_ram: RAM<Bit, PIPE_BITS>,
    head_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    tail_ram: RAM<Bits<SLOT_BITS>, PIPE_BITS>,
    // Bit p: pipe p restarted since its tail was last written (its tail is 0).
    // Restarts and tail writes of different pipes share a cycle, and a RAM
    // takes one write.
    tail_zero: DFF<Bits<PIPES>>,
    restart_bit: Signal<Local, Bits<PIPES>>,
    publish_bit: Signal<Local, Bits<PIPES>>,
    // Writes the RAMs took last cycle, which a read in that cycle missed.
    // (The register file's events share one pipe, `cfg_pipe`.)
    fw_cfg_pipe: DFF<Bits<PIPE_BITS>>,
    fw_cfg: DFF<Bit>,
    fw_base: DFF<Bits<64>>,
    fw_mask: DFF<Bits<SLOT_BITS>>,
    fw_enable: DFF<Bit>,
    fw_head: DFF<Bit>,
    fw_head_value: DFF<Bits<SLOT_BITS>>,
    fw_tail: DFF<Bit>,
    fw_tail_pipe: DFF<Bits<PIPE_BITS>>,
    fw_tail_value: DFF<Bits<SLOT_BITS>>,
    publish: Signal<Local, Bit>,
    // This cycle's restart is for the frame's pipe: the frame is dropped.
    kill: Signal<Local, Bit>,
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
    // The ring state of the pipe a first beat names, from the RAMs (or a
    // forwarded write), selected by the beat's own pipe field.
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
    one_pipe: Constant<Bits<PIPES>>,
    zero_pipes: Constant<Bits<PIPES>>,
}

impl RxEngine {
    pub fn new() -> Self {
        let c16 = |v: u32| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            s_eth: Default::default(),
            m_dma: Default::default(),
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
            writing: Default::default(),
            overrun: Default::default(),
            pipe: Default::default(),
            beat: Default::default(),
            frame_len: Default::default(),
            frame_beats: Default::default(),
            l_valid: Default::default(),
            l_beat: Default::default(),
            take: Default::default(),
            rd_pipe: Default::default(),
            // Every pipe starts off (its RAM entries zero, also on a board).
            base_ram: (0..PIPES).map(|_| Bits::<64>::default()).into(),
            mask_ram: (0..PIPES).map(|_| Bits::<SLOT_BITS>::default()).into(),
            enable_ram: (0..PIPES).map(|_| false).into(),
            head_ram: (0..PIPES).map(|_| Bits::<SLOT_BITS>::default()).into(),
            tail_ram: (0..PIPES).map(|_| Bits::<SLOT_BITS>::default()).into(),
            tail_zero: Default::default(),
            restart_bit: Default::default(),
            publish_bit: Default::default(),
            fw_cfg: Default::default(),
            fw_cfg_pipe: Default::default(),
            fw_base: Default::default(),
            fw_mask: Default::default(),
            fw_enable: Default::default(),
            fw_head: Default::default(),
            fw_head_value: Default::default(),
            fw_tail: Default::default(),
            fw_tail_pipe: Default::default(),
            fw_tail_value: Default::default(),
            publish: Default::default(),
            kill: Default::default(),
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
            one_pipe: Constant::new(1u64.into()),
            zero_pipes: Constant::new(0u64.into()),
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
            f_live,
            l_valid,
            l_beat,
            tail_zero,
            fw_cfg,
            fw_cfg_pipe,
            fw_base,
            fw_mask,
            fw_enable,
            fw_head,
            fw_head_value,
            fw_tail,
            fw_tail_pipe,
            fw_tail_value
        );
        self.base_ram.read_clock.next = self.clock.val();
        self.base_ram.write_clock.next = self.clock.val();
        self.mask_ram.read_clock.next = self.clock.val();
        self.mask_ram.write_clock.next = self.clock.val();
        self.enable_ram.read_clock.next = self.clock.val();
        self.enable_ram.write_clock.next = self.clock.val();
        self.head_ram.read_clock.next = self.clock.val();
        self.head_ram.write_clock.next = self.clock.val();
        self.tail_ram.read_clock.next = self.clock.val();
        self.tail_ram.write_clock.next = self.clock.val();

        // ---- Lookup register ----
        // A new beat may enter when the register is empty or the DMA port
        // takes; the one beat that leaves without a write (a drop) while the
        // port is stalled leaves a bubble, which keeps the room check out of
        // `s_eth.ready`.
        self.s_eth.ready.next = !self.l_valid.q.val() | self.m_dma.ready.val();
        self.rd_pipe.next = self.l_beat.q.val().pipe;
        if self.s_eth.valid.val() & self.s_eth.ready.val() {
            self.l_beat.d.next = self.s_eth.data.val();
            self.rd_pipe.next = self.s_eth.data.val().pipe;
        }
        self.base_ram.read_address.next = self.rd_pipe.val();
        self.mask_ram.read_address.next = self.rd_pipe.val();
        self.enable_ram.read_address.next = self.rd_pipe.val();
        self.head_ram.read_address.next = self.rd_pipe.val();
        self.tail_ram.read_address.next = self.rd_pipe.val();

        // ---- Writes from the register file ----
        self.base_ram.write_enable.next = self.restart.val();
        self.base_ram.write_address.next = self.cfg_pipe.val();
        self.base_ram.write_data.next = self.restart_base.val();
        self.mask_ram.write_enable.next = self.restart.val();
        self.mask_ram.write_address.next = self.cfg_pipe.val();
        self.mask_ram.write_data.next = self.restart_mask.val();
        self.enable_ram.write_enable.next = self.restart.val();
        self.enable_ram.write_address.next = self.cfg_pipe.val();
        self.enable_ram.write_data.next = self.restart_enable.val();
        self.head_ram.write_enable.next = self.head_wr.val();
        self.head_ram.write_address.next = self.cfg_pipe.val();
        self.head_ram.write_data.next = self.head.val();
        self.fw_cfg.d.next = self.restart.val();
        self.fw_cfg_pipe.d.next = self.cfg_pipe.val();
        self.fw_base.d.next = self.restart_base.val();
        self.fw_mask.d.next = self.restart_mask.val();
        self.fw_enable.d.next = self.restart_enable.val();
        self.fw_head.d.next = self.head_wr.val();
        self.fw_head_value.d.next = self.head.val();

        // ---- This beat ----
        self.beat_data.next = self.l_beat.q.val().data;
        self.beat_keep.next = self.l_beat.q.val().keep;
        self.beat_last.next = self.l_beat.q.val().last;
        self.sop.next = self.l_beat.q.val().sop;
        self.keep_ok.next = self.l_beat.q.val().keep_ok;

        // The frame's pipe, length and size: parsed now on the first beat,
        // remembered after.
        self.cur_pipe.next = self.pipe.q.val();
        self.cur_len.next = self.frame_len.q.val();
        self.cur_beats.next = self.frame_beats.q.val();
        if self.sop.val() {
            self.cur_pipe.next = self.l_beat.q.val().pipe;
            self.cur_len.next = self.l_beat.q.val().len;
            self.cur_beats.next = self.l_beat.q.val().slots;
        }
        // The first beat's pipe: RAM, or the write the RAM missed.
        self.sop_base.next = self.base_ram.read_data.val();
        self.sop_mask.next = self.mask_ram.read_data.val();
        self.sop_enable.next = self.enable_ram.read_data.val();
        if self.fw_cfg.q.val() & (self.fw_cfg_pipe.q.val() == self.l_beat.q.val().pipe) {
            self.sop_base.next = self.fw_base.q.val();
            self.sop_mask.next = self.fw_mask.q.val();
            self.sop_enable.next = self.fw_enable.q.val();
        }
        self.sop_head.next = self.head_ram.read_data.val();
        if self.fw_head.q.val() & (self.fw_cfg_pipe.q.val() == self.l_beat.q.val().pipe) {
            self.sop_head.next = self.fw_head_value.q.val();
        }
        self.sop_tail.next = self.tail_ram.read_data.val();
        if self.fw_tail.q.val() & (self.fw_tail_pipe.q.val() == self.l_beat.q.val().pipe) {
            self.sop_tail.next = self.fw_tail_value.q.val();
        }
        if self
            .tail_zero
            .q
            .val()
            .get_bit(self.l_beat.q.val().pipe.index())
        {
            self.sop_tail.next = self.zero16.val();
        }
        // Later beats use the ring as it was at the first (f_*).
        self.sel_base.next = self.f_base.q.val();
        self.sel_mask.next = self.f_mask.q.val();
        self.sel_tail.next = self.f_tail.q.val();
        if self.sop.val() {
            self.sel_base.next = self.sop_base.val();
            self.sel_mask.next = self.sop_mask.val();
            self.sel_tail.next = self.sop_tail.val();
        }
        // The frame stays live while its pipe is neither switched off nor
        // restarted (off and on again) after its first beat.
        self.kill.next = self.restart.val() & (self.cfg_pipe.val() == self.cur_pipe.val());
        self.frame_live.next = self.f_live.q.val() & !self.kill.val();
        if self.sop.val() {
            self.frame_live.next = self.sop_enable.val() & !self.kill.val();
        }
        if self.kill.val() {
            self.f_live.d.next = false;
        }
        // One slot always stays empty so that a full ring differs from an empty one.
        self.free_slots.next = self.sop_mask.val()
            - ((self.sop_tail.val() - self.sop_head.val()) & self.sop_mask.val());

        self.cur_writing.next = self.writing.q.val();
        if self.sop.val() {
            self.cur_writing.next = self.l_beat.q.val().len_known
                & self.sop_enable.val()
                & (self.l_beat.q.val().slots <= self.free_slots.val());
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
        self.addr_blk.next =
            self.sel_base.val().get_bits::<2>(6) + self.slot.val().get_bits::<2>(0);
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
        self.m_dma.valid.next = self.l_valid.q.val() & self.cur_writing.val() & self.in_ring.val();
        self.take.next = self.l_valid.q.val();
        if self.cur_writing.val() & self.in_ring.val() {
            self.take.next = self.l_valid.q.val() & self.m_dma.ready.val();
        }
        self.accept.next = self.take.val();
        self.l_valid.d.next = (self.l_valid.q.val() & !self.take.val())
            | (self.s_eth.valid.val() & self.s_eth.ready.val());

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
        self.publish.next = false;

        if self.accept.val() {
            self.f_live.d.next = self.frame_live.val();
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
                if !self.l_beat.q.val().len_known {
                    self.ev_drop_malformed.next = true;
                } else if !self.sop_enable.val() {
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
            if self.beat_last.val() && self.cur_writing.val() {
                if !self.frame_live.val() {
                    // Its pipe went off mid-frame: written, never published, counted.
                    self.ev_drop_pipe_off.next = true;
                } else if self.wire_ok.val() {
                    self.ev_frame.next = true;
                    self.publish.next = true;
                } else {
                    self.ev_drop_malformed.next = true;
                }
            }
        }
        // A published frame moves its pipe's tail. (Never in the cycle its
        // pipe restarts: `kill` makes the frame not live.)
        self.tail_ram.write_enable.next = self.publish.val();
        self.tail_ram.write_address.next = self.cur_pipe.val();
        self.tail_ram.write_data.next = self.new_tail.val();
        self.fw_tail.d.next = self.publish.val();
        self.fw_tail_pipe.d.next = self.cur_pipe.val();
        self.fw_tail_value.d.next = self.new_tail.val();
        self.restart_bit.next = self.zero_pipes.val();
        if self.restart.val() {
            self.restart_bit.next = self.one_pipe.val() << self.cfg_pipe.val();
        }
        self.publish_bit.next = self.zero_pipes.val();
        if self.publish.val() {
            self.publish_bit.next = self.one_pipe.val() << self.cur_pipe.val();
        }
        self.tail_zero.d.next =
            (self.tail_zero.q.val() & !self.publish_bit.val()) | self.restart_bit.val();
    }
}
