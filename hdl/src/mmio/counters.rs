use super::RegRead;
use crate::reset::SDFF;
use crate::stream::ZeroExtend;
use pendulum_layout::params::{MMIO_ADDR_BITS, TX_PIPE_BITS};
use pendulum_layout::{global, Counter};
use rust_hdl::prelude::*;

pub(super) const COUNTERS: usize = Counter::ALL.len();
const OFF_BITS: usize = pendulum_layout::PAGE_BYTES_LOG2 as usize;
const PAGE_BITS: usize = MMIO_ADDR_BITS - OFF_BITS;
// The two byte counters add a frame's length; `update` names them by index.
const _: () = assert!(Counter::RxBytes as usize == 1 && Counter::TxBytes as usize == 7);
const _: () = assert!(Counter::TxFrames as usize == 6 && Counter::TxDropMalformed as usize == 8);
const _: () = assert!(COUNTERS == global::COUNTERS.len());

/// The global 64-bit counters (`pendulum_layout::Counter`, registers
/// `global::COUNTERS`), the free-running cycle counter (`global::CYCLES`),
/// and their part of a register read.
///
/// `event[k]` counts counter k (`Counter::ALL[k]`): the event is registered
/// and counted a cycle after the datapath reports it, so the datapath's event
/// logic and the 64-bit adders are in different cycles. No register read can
/// see the lag. The byte counters (RX_BYTES, TX_BYTES) add `rx_frame_bytes`
/// and `tx_frame_bytes` instead of one.
///
/// Reads come on `rd` (`RegRead`): `rd.take` with `rd.addr` as the register
/// file accepts a read; the cycle after, `rd.data` and `rd.hit` answer it from this block's registers
/// only (so the register file's one always block never reads back an answer
/// that depends on its own signals). Reading a counter's LO half latches its
/// HI half, which a read of HI answers.
///
/// Also gives the TX engine's per-pipe events as registered here
/// (`tx_frame`, `tx_drop`, `tx_pipe`), for the TX pipes' own counters.
#[derive(LogicBlock)]
pub struct GlobalCounters {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// One-cycle pulses, one per counter, in the order of `Counter::ALL`.
    pub event: [Signal<In, Bit>; COUNTERS],
    pub rx_frame_bytes: Signal<In, Bits<16>>,
    pub tx_frame_bytes: Signal<In, Bits<16>>,
    pub tx_pipe_in: Signal<In, Bits<TX_PIPE_BITS>>,
    /// TX_FRAMES and TX_DROP_MALFORMED's events of `tx_pipe`, a cycle late.
    pub tx_frame: Signal<Out, Bit>,
    pub tx_drop: Signal<Out, Bit>,
    pub tx_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    /// CYCLES: the NIC's hardware time, for the RX timestamps.
    pub cycles_now: Signal<Out, Bits<64>>,
    /// Register reads from `RegFile` (`RegRead`).
    pub rd: RegRead,

    counters: [SDFF<Bits<64>>; COUNTERS],
    /// Cycles since reset (CYCLES): the NIC's hardware time.
    cycles: SDFF<Bits<64>>,
    ev_r: [SDFF<Bit>; COUNTERS],
    ev_rx_bytes: SDFF<Bits<16>>,
    ev_tx_pipe: SDFF<Bits<TX_PIPE_BITS>>,
    ev_tx_bytes: SDFF<Bits<16>>,
    frame_bytes64: ZeroExtend<16, 64>,
    tx_bytes64: ZeroExtend<16, 64>,
    // The read being answered, and its address.
    rd_v: SDFF<Bit>,
    rd_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    rd_page: Signal<Local, Bits<PAGE_BITS>>,
    rd_off: Signal<Local, Bits<OFF_BITS>>,
    // Reading a counter's LO half latches its HI half here.
    hi_latch: SDFF<Bits<32>>,
    cnt_lo_off: [Constant<Bits<OFF_BITS>>; COUNTERS],
    cnt_hi_off: [Constant<Bits<OFF_BITS>>; COUNTERS],
    cyc_lo_off: Constant<Bits<OFF_BITS>>,
    cyc_hi_off: Constant<Bits<OFF_BITS>>,
    one64: Constant<Bits<64>>,
    zero32: Constant<Bits<32>>,
    page0: Constant<Bits<PAGE_BITS>>,
    off_bits: Constant<Bits<5>>,
}

impl Default for GlobalCounters {
    fn default() -> Self {
        Self {
            cycles_now: Default::default(),
            clock: Default::default(),
            rd: Default::default(),
            reset: Default::default(),
            event: Default::default(),
            rx_frame_bytes: Default::default(),
            tx_frame_bytes: Default::default(),
            tx_pipe_in: Default::default(),
            tx_frame: Default::default(),
            tx_drop: Default::default(),
            tx_pipe: Default::default(),
            counters: Default::default(),
            cycles: Default::default(),
            ev_r: Default::default(),
            ev_rx_bytes: Default::default(),
            ev_tx_pipe: Default::default(),
            ev_tx_bytes: Default::default(),
            frame_bytes64: Default::default(),
            tx_bytes64: Default::default(),
            rd_v: Default::default(),
            rd_addr_r: Default::default(),
            rd_page: Default::default(),
            rd_off: Default::default(),
            hi_latch: Default::default(),
            cnt_lo_off: std::array::from_fn(|k| {
                Constant::new((global::COUNTERS[k].offset as u64).into())
            }),
            cnt_hi_off: std::array::from_fn(|k| {
                Constant::new(((global::COUNTERS[k].offset + 4) as u64).into())
            }),
            cyc_lo_off: Constant::new((global::CYCLES.offset as u64).into()),
            cyc_hi_off: Constant::new(((global::CYCLES.offset + 4) as u64).into()),
            one64: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            page0: Constant::new(0u64.into()),
            off_bits: Constant::new((OFF_BITS as u64).into()),
        }
    }
}

impl Logic for GlobalCounters {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..COUNTERS {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].reset.next = self.reset.val();
            self.counters[k].d.next = self.counters[k].q.val();
            self.ev_r[k].clock.next = self.clock.val();
            self.ev_r[k].reset.next = self.reset.val();
        }
        dff_setup!(
            self,
            clock,
            ev_rx_bytes,
            ev_tx_pipe,
            ev_tx_bytes,
            rd_v,
            rd_addr_r,
            hi_latch,
            cycles
        );
        self.cycles.reset.next = self.reset.val();
        self.cycles.d.next = self.cycles.q.val() + self.one64.val();
        self.cycles_now.next = self.cycles.q.val();
        self.ev_rx_bytes.reset.next = self.reset.val();
        self.ev_tx_pipe.reset.next = self.reset.val();
        self.ev_tx_bytes.reset.next = self.reset.val();
        self.rd_v.reset.next = self.reset.val();
        self.rd_addr_r.reset.next = self.reset.val();
        self.hi_latch.reset.next = self.reset.val();

        for k in 0..COUNTERS {
            self.ev_r[k].d.next = self.event[k].val();
        }
        self.ev_rx_bytes.d.next = self.rx_frame_bytes.val();
        self.ev_tx_pipe.d.next = self.tx_pipe_in.val();
        self.ev_tx_bytes.d.next = self.tx_frame_bytes.val();
        for k in 0..COUNTERS {
            if self.ev_r[k].q.val() {
                self.counters[k].d.next = self.counters[k].q.val() + self.one64.val();
            }
        }
        // The two byte counters add the frame's length instead of one.
        self.frame_bytes64.i.next = self.ev_rx_bytes.q.val();
        if self.ev_r[1].q.val() {
            self.counters[1].d.next = self.counters[1].q.val() + self.frame_bytes64.o.val();
        }
        self.tx_bytes64.i.next = self.ev_tx_bytes.q.val();
        if self.ev_r[7].q.val() {
            self.counters[7].d.next = self.counters[7].q.val() + self.tx_bytes64.o.val();
        }
        self.tx_frame.next = self.ev_r[6].q.val();
        self.tx_drop.next = self.ev_r[8].q.val();
        self.tx_pipe.next = self.ev_tx_pipe.q.val();

        // ---- Reads ----
        // The register file accepts a read in cycle t and answers from
        // rd_data in t + 1; so does this block, from its copy of the address.
        self.rd_v.d.next = self.rd.take.val();
        if self.rd.take.val() {
            self.rd_addr_r.d.next = self.rd.addr.val();
        }
        self.rd_page.next = self
            .rd_addr_r
            .q
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.rd_off.next = self.rd_addr_r.q.val().get_bits::<OFF_BITS>(0);
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.rd_page.val() == self.page0.val() {
            for k in 0..COUNTERS {
                if self.rd_off.val() == self.cnt_lo_off[k].val() {
                    self.rd.data.next =
                        self.rd.data.val() | self.counters[k].q.val().get_bits::<32>(0);
                    self.rd.hit.next = true;
                }
                if self.rd_off.val() == self.cnt_hi_off[k].val() {
                    self.rd.data.next = self.rd.data.val() | self.hi_latch.q.val();
                    self.rd.hit.next = true;
                }
            }
            if self.rd_off.val() == self.cyc_lo_off.val() {
                self.rd.data.next = self.rd.data.val() | self.cycles.q.val().get_bits::<32>(0);
                self.rd.hit.next = true;
            }
            if self.rd_off.val() == self.cyc_hi_off.val() {
                self.rd.data.next = self.rd.data.val() | self.hi_latch.q.val();
                self.rd.hit.next = true;
            }
        }
        if self.rd_v.q.val() {
            for k in 0..COUNTERS {
                if (self.rd_page.val() == self.page0.val())
                    & (self.rd_off.val() == self.cnt_lo_off[k].val())
                {
                    self.hi_latch.d.next = self.counters[k].q.val().get_bits::<32>(32);
                }
            }
            if (self.rd_page.val() == self.page0.val())
                & (self.rd_off.val() == self.cyc_lo_off.val())
            {
                self.hi_latch.d.next = self.cycles.q.val().get_bits::<32>(32);
            }
        }
    }
}
