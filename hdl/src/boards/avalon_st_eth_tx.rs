use super::ByteReverse;
use crate::reset::SDFF;
use crate::stream::{Join, SkidBuffer};
use rust_hdl::prelude::*;

/// One beat as the MAC's Avalon-ST TX client takes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
struct AvalonStBeat {
    data: Bits<512>,
    empty: Bits<6>,
    sop: Bit,
    eop: Bit,
}

/// Frames in the core's AXI-Stream shape onto the E-tile 100GE MAC's
/// Avalon-ST TX client (512 bits), on the MAC's clock.
///
/// The 64 bytes are reversed (AXI-Stream's first byte is `tdata[7:0]`,
/// Avalon-ST's is `tx_data[511:504]`); on a last beat `tx_empty` is the
/// number of bytes not kept, `64 - popcount(tkeep)` (0 on the others, which
/// keep every byte); and
/// `tx_startofpacket` marks the first beat after a last beat. `tkeep` must be
/// contiguous from byte 0 and not empty (the core's contract), so the last
/// byte kept is the one-hot `tkeep & !(tkeep >> 1)`, and `tx_empty` is 63
/// minus its index: bit b of `tx_empty` is set when that index has bit b clear.
///
/// The MAC takes a beat when `tx_valid && tx_ready` (ready latency 0: set so
/// in the IP). A skid buffer registers the outputs for the MAC clock
/// (402.83 MHz); it adds no gap inside a frame whose beats arrive without
/// one, which the crossing in front (`AsyncFrameFifo`) guarantees, as the MAC
/// requires `tx_valid` held from start to end of packet.
/// Latency 1 cycle; 1 beat/cycle; stalls only on `tx_ready`.
#[derive(LogicBlock)]
pub struct AvalonStEthTx {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    // AXI-Stream beats from the crossing FIFO.
    pub s_tdata: Signal<In, Bits<512>>,
    pub s_tkeep: Signal<In, Bits<64>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    // Avalon-ST sink of the MAC (i_tx_*, o_tx_ready).
    pub tx_data: Signal<Out, Bits<512>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_startofpacket: Signal<Out, Bit>,
    pub tx_endofpacket: Signal<Out, Bit>,
    pub tx_empty: Signal<Out, Bits<6>>,
    pub tx_ready: Signal<In, Bit>,
    reverse: ByteReverse<64, 512>,
    last_byte: Signal<Local, Bits<64>>,
    empty_bits: Join<6, 1, 6>,
    // Bytes whose index has bit b clear (b = 0..5).
    index_bit_clear: [Constant<Bits<64>>; 6],
    // A beat of a frame has been sent and its last has not.
    mid_frame: SDFF<Bit>,
    out: SkidBuffer<AvalonStBeat>,
    one: Constant<Bits<64>>,
}

impl AvalonStEthTx {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_startofpacket: Default::default(),
            tx_endofpacket: Default::default(),
            tx_empty: Default::default(),
            tx_ready: Default::default(),
            reverse: Default::default(),
            last_byte: Default::default(),
            empty_bits: Default::default(),
            index_bit_clear: std::array::from_fn(|b| {
                let mask = (0..64)
                    .filter(|k| k & (1 << b) == 0)
                    .fold(0u64, |m, k| m | (1 << k));
                Constant::new(mask.into())
            }),
            mid_frame: Default::default(),
            out: Default::default(),
            one: Constant::new(1u64.into()),
        }
    }
}

impl Default for AvalonStEthTx {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AvalonStEthTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid_frame);
        self.mid_frame.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.reverse.i.next = self.s_tdata.val();
        self.last_byte.next = self.s_tkeep.val() & !(self.s_tkeep.val() >> self.one.val());
        for b in 0..6 {
            self.empty_bits.i[b].next = (self.last_byte.val() & self.index_bit_clear[b].val())
                .any()
                .into();
        }
        self.out.s.data.next.data = self.reverse.o.val();
        // A beat that is not last keeps all 64 bytes, so this is 0 there.
        self.out.s.data.next.empty = self.empty_bits.o.val();
        self.out.s.data.next.sop = !self.mid_frame.q.val();
        self.out.s.data.next.eop = self.s_tlast.val();
        self.out.s.valid.next = self.s_tvalid.val();
        self.s_tready.next = self.out.s.ready.val();
        if self.s_tvalid.val() & self.out.s.ready.val() {
            self.mid_frame.d.next = !self.s_tlast.val();
        }
        self.tx_data.next = self.out.m.data.val().data;
        self.tx_empty.next = self.out.m.data.val().empty;
        self.tx_startofpacket.next = self.out.m.data.val().sop;
        self.tx_endofpacket.next = self.out.m.data.val().eop;
        self.tx_valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.tx_ready.val();
    }
}
