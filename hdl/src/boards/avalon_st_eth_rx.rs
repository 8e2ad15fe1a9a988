use super::ByteReverse;
use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// Frames from the E-tile 100GE MAC's Avalon-ST RX client (512 bits) in the
/// core's AXI-Stream shape, on the MAC's clock.
///
/// Avalon-ST puts the first byte on the wire in `rx_data[511:504]` and counts
/// `rx_empty` unused bytes from the least significant end of the last beat;
/// AXI-Stream puts it in `tdata[7:0]` with `tkeep` contiguous from byte 0.
/// So the 64 bytes are reversed and `tkeep = all ones >> rx_empty` on the
/// beat with `rx_endofpacket` (all ones on the others). A frame starts on the
/// beat after an end of packet, so `startofpacket` is not needed. The MAC's
/// error flags (`o_rx_error`: FCS, malformed, length) are not looked at: the
/// frame is passed like any other, because the core's port has no error
/// input and its RX engine's own length checks count what is malformed; the
/// CMAC tops do the same with `rx_axis_tuser`.
///
/// There is no ready on either side: the MAC never waits, and the top drops
/// (and flags) a beat its crossing FIFO cannot take.
/// Latency 1 cycle (one register stage); 1 beat/cycle.
#[derive(LogicBlock)]
pub struct AvalonStEthRx {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    // Avalon-ST source of the MAC (o_rx_*).
    pub rx_data: Signal<In, Bits<512>>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_endofpacket: Signal<In, Bit>,
    pub rx_empty: Signal<In, Bits<6>>,
    // AXI-Stream beats to the crossing FIFO.
    pub m_tdata: Signal<Out, Bits<512>>,
    pub m_tkeep: Signal<Out, Bits<64>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    reverse: ByteReverse<64, 512>,
    tdata: SDFF<Bits<512>>,
    tkeep: SDFF<Bits<64>>,
    tlast: SDFF<Bit>,
    tvalid: SDFF<Bit>,
    all_keep: Constant<Bits<64>>,
}

impl AvalonStEthRx {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_endofpacket: Default::default(),
            rx_empty: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            reverse: Default::default(),
            tdata: Default::default(),
            tkeep: Default::default(),
            tlast: Default::default(),
            tvalid: Default::default(),
            all_keep: Constant::new(u64::MAX.into()),
        }
    }
}

impl Default for AvalonStEthRx {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AvalonStEthRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tdata, tkeep, tlast, tvalid);
        self.tdata.reset.next = self.reset.val();
        self.tkeep.reset.next = self.reset.val();
        self.tlast.reset.next = self.reset.val();
        self.tvalid.reset.next = self.reset.val();
        self.reverse.i.next = self.rx_data.val();
        self.tdata.d.next = self.reverse.o.val();
        self.tkeep.d.next = self.all_keep.val();
        if self.rx_endofpacket.val() {
            self.tkeep.d.next = self.all_keep.val() >> self.rx_empty.val();
        }
        self.tlast.d.next = self.rx_endofpacket.val();
        self.tvalid.d.next = self.rx_valid.val();
        self.m_tdata.next = self.tdata.q.val();
        self.m_tkeep.next = self.tkeep.q.val();
        self.m_tlast.next = self.tlast.q.val();
        self.m_tvalid.next = self.tvalid.q.val();
    }
}
