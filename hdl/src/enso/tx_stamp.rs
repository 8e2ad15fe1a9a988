use crate::konst as k;
use crate::lut_ram::LutRam;
use crate::reset::SDFF;
use crate::stream::{Concat, SkidBuffer, StreamFifo, StreamSink, StreamSource, ZeroExtend};
use crate::types::{DmaWrite, TxStampEvent};
use pendulum_layout::params::{SLOT_BITS, TX_PIPE_BITS};
use pendulum_layout::{tx_compl, tx_stamp};
use rust_hdl::prelude::*;

/// Stamps waiting for the DMA write port: 16. A stamp is taken at the MAC
/// port only while there is room (the port waits otherwise), so none is
/// lost; 16 cover the port's turns between the ring writes and records
/// it shares with, which are a few beats each.
const QUEUE_BITS: usize = 4;

// The record, as the block builds it: CYCLES, then ENTRY (a unit, zero
// extended), LEN and DONE, each where the layout puts it.
const _: () = assert!(
    tx_stamp::BYTES == 16
        && tx_stamp::CYCLES.lsb == 0
        && tx_stamp::CYCLES.width == 64
        && tx_stamp::ENTRY.lsb == 64
        && tx_stamp::ENTRY.width == 32
        && tx_stamp::LEN.lsb == 96
        && tx_stamp::LEN.width == 16
        && tx_stamp::DONE.lsb == 112
        && tx_stamp::DONE.width == 16
        && tx_stamp::offset(0) == tx_compl::BYTES as u64
        && tx_stamp::offset(1) - tx_stamp::offset(0) == 16
);

/// TX stamp writer: for each frame that asked for a stamp
/// (`pendulum_layout::tx_stamp`), writes its 16-byte stamp record into the
/// slot of its entry, `TX_COMPL_BASE + 16 + 16 × entry`, with one DMA write.
///
/// `s` takes a stamp as the frame's first beat leaves for the MAC (the core
/// lets the beat go only with `s.ready`, so a stamp is never dropped); the
/// stamps queue in a FIFO, and each then takes its pipe's slot base from a
/// LUT-RAM the restarts fill (`cfg`: TX pipe `cfg_pipe` was switched, its
/// completion record at `cfg_base`), and goes out on `m_dma` through a skid
/// buffer. The base is that of the pipe's last switch: software cannot move
/// the record while the pipe is on (TX_COMPL_BASE is refused then).
///
/// Latency from `s` to `m_dma` 4 cycles (FIFO 2, the slot's address 1, the
/// skid 1); one stamp a cycle.
#[derive(LogicBlock)]
pub struct TxStampWriter {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    pub cfg: Signal<In, Bit>,
    pub cfg_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    pub cfg_base: Signal<In, Bits<64>>,
    pub s: StreamSink<TxStampEvent>,
    pub m_dma: StreamSource<DmaWrite>,

    queue: StreamFifo<TxStampEvent, QUEUE_BITS, { QUEUE_BITS + 1 }>,
    // Each pipe's first slot's address: its completion record's + 16.
    slot0: LutRam<Bits<64>, TX_PIPE_BITS>,
    // The stamp on its way out: its slot's base and offset, and its record.
    held: SDFF<Bit>,
    base: SDFF<Bits<64>>,
    offset: SDFF<Bits<64>>,
    record: SDFF<Bits<128>>,
    out: SkidBuffer<DmaWrite>,
    take: Signal<Local, Bit>,
    ev: Signal<Local, TxStampEvent>,
    // entry × 16, then as 64 bits.
    entry_x16: Concat<SLOT_BITS, 4, { SLOT_BITS + 4 }>,
    offset64: ZeroExtend<{ SLOT_BITS + 4 }, 64>,
    entry32: ZeroExtend<SLOT_BITS, 32>,
    len_done: Concat<16, 16, 32>,
    hi64: Concat<32, 32, 64>,
    rec: Concat<64, 64, 128>,
    rec512: ZeroExtend<128, 512>,
    zero4: Constant<Bits<4>>,
    done: Constant<Bits<16>>,
    record_bytes: Constant<Bits<64>>,
    strb: Constant<Bits<64>>,
}

impl Default for TxStampWriter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            cfg_pipe: Default::default(),
            cfg_base: Default::default(),
            s: Default::default(),
            m_dma: Default::default(),
            queue: StreamFifo::new(),
            slot0: Default::default(),
            held: Default::default(),
            base: Default::default(),
            offset: Default::default(),
            record: Default::default(),
            out: Default::default(),
            take: Default::default(),
            ev: Default::default(),
            entry_x16: Default::default(),
            offset64: Default::default(),
            entry32: Default::default(),
            len_done: Default::default(),
            hi64: Default::default(),
            rec: Default::default(),
            rec512: Default::default(),
            zero4: k(0),
            done: k(1),
            record_bytes: k(tx_compl::BYTES as u64),
            strb: k((1u64 << tx_stamp::BYTES) - 1),
        }
    }
}

impl Logic for TxStampWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, base, offset, record);
        self.held.reset.next = self.reset.val();
        self.base.reset.next = self.reset.val();
        self.offset.reset.next = self.reset.val();
        self.record.reset.next = self.reset.val();
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // Each pipe's slot base, set as the pipe switches.
        self.slot0.write_clock.next = self.clock.val();
        self.slot0.write_enable.next = self.cfg.val();
        self.slot0.write_address.next = self.cfg_pipe.val();
        self.slot0.write_data.next = self.cfg_base.val() + self.record_bytes.val();

        self.queue.s.data.next = self.s.data.val();
        self.queue.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.queue.s.ready.val();

        // The queue's head moves into the held stage when that is free or
        // going out this cycle.
        self.ev.next = self.queue.m.data.val();
        self.slot0.read_address.next = self.ev.val().pipe;
        self.take.next = self.queue.m.valid.val() & (!self.held.q.val() | self.out.s.ready.val());
        self.queue.m.ready.next = self.take.val();
        self.held.d.next = self.take.val() | (self.held.q.val() & !self.out.s.ready.val());
        self.entry_x16.hi.next = self.ev.val().entry;
        self.entry_x16.lo.next = self.zero4.val();
        self.offset64.i.next = self.entry_x16.o.val();
        self.entry32.i.next = self.ev.val().entry;
        self.len_done.hi.next = self.done.val();
        self.len_done.lo.next = self.ev.val().len;
        self.hi64.hi.next = self.len_done.o.val();
        self.hi64.lo.next = self.entry32.o.val();
        self.rec.hi.next = self.hi64.o.val();
        self.rec.lo.next = self.ev.val().cycles;
        if self.take.val() {
            self.base.d.next = self.slot0.read_data.val();
            self.offset.d.next = self.offset64.o.val();
            self.record.d.next = self.rec.o.val();
        }

        // Out: the slot's address (the add is between registers).
        self.rec512.i.next = self.record.q.val();
        self.out.s.data.next.addr = self.base.q.val() + self.offset.q.val();
        self.out.s.data.next.data = self.rec512.o.val();
        self.out.s.data.next.strb = self.strb.val();
        self.out.s.data.next.last = true;
        self.out.s.valid.next = self.held.q.val();
        self.m_dma.data.next = self.out.m.data.val();
        self.m_dma.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m_dma.ready.val();
    }
}
