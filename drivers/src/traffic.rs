//! Traffic on a test card's Ethernet port: one set of calls to feed frames
//! into the card's Ethernet RX and collect what it sent on its Ethernet TX,
//! whichever card it is, so a test or an example written against
//! `Device<C>` with `C: Card + EthernetPort` runs unchanged on the Verilated
//! NIC in process (`pendulum_testbench::SimCard`), on the simulator process
//! (`sim:`, [`SimClientCard`](crate::SimClientCard), and so
//! [`AnyCard`](crate::AnyCard)) and on the mock card (`mock::FakeCard` made
//! `with_mac`, feature `test-utils`).
//!
//! A real card's Ethernet port is a wire: [`AnyCard`](crate::AnyCard) opened
//! on a PCIe card answers every call with
//! [`Error::NoTestPort`](crate::Error::NoTestPort), as does a `FakeCard`
//! made without a MAC.

use crate::Result;

/// The Ethernet port of a card that software can drive: the MAC side of a
/// simulated card.
///
/// Simulated time moves only when the card is used (a register read, a
/// [`Card::relax`](crate::Card::relax), [`EthernetPort::drain`]), so
/// injected frames enter the card while the application polls for them, as
/// they would arrive from the wire.
pub trait EthernetPort {
    /// Queues `frames` on the MAC's RX side, in order, behind any still
    /// queued; each enters the card whole as simulated time advances.
    fn inject(&mut self, frames: &[Vec<u8>]) -> Result<()>;

    /// Takes the frames the card has sent on its Ethernet TX port since the
    /// last call, oldest first (a frame still on its way out waits for the
    /// next call).
    fn collect(&mut self) -> Result<Vec<Vec<u8>>>;

    /// Lets the card run until every injected frame has entered it and its
    /// host link is quiet, at most `max_cycles` clock cycles. Returns whether
    /// it got there. Frames the card then sends are waiting for
    /// [`EthernetPort::collect`] once the TX pipes are idle
    /// ([`TxPipe::wait_idle`](crate::TxPipe::wait_idle)) and this returned true.
    fn drain(&mut self, max_cycles: u64) -> Result<bool>;

    /// Clock cycles the card has run (the same run takes the same cycles on
    /// every simulated card).
    fn cycles(&mut self) -> Result<u64>;
}
