//! The card's counters: [`Counters`], read in one pass, the 64-bit counter
//! reads under it and the hardware clock.

use super::Device;
use crate::{Card, Result};
use pendulum_layout::{global, Counter, Reg};

/// The card's global counters, read in one pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub rx_frames: u64,
    pub rx_bytes: u64,
    pub drop_ring_full: u64,
    pub drop_malformed: u64,
    pub drop_pipe_off: u64,
    pub notifications: u64,
    /// Frames sent on the Ethernet TX port.
    pub tx_frames: u64,
    /// Bytes of those frames.
    pub tx_bytes: u64,
    /// TX data dropped as malformed (no length, over the MTU, past the tail).
    pub tx_drop_malformed: u64,
    /// TX completion records written.
    pub tx_completions: u64,
    /// IP frames steered by a flow table entry.
    pub flow_hits: u64,
    /// IP frames that missed the flow table and went to a fallback pipe.
    pub flow_misses: u64,
    /// Register writes the card refused.
    pub reg_errors: u32,
    /// Frames dropped whole before the core, at the board's RX clock
    /// crossing (its FIFO was full; 32-bit, wraps). Not in [`Self::drops`].
    pub rx_overflow_drops: u32,
}

impl Counters {
    /// Received frames the core dropped, for any reason (TX drops are in
    /// `tx_drop_malformed`; frames lost before the core in `rx_overflow_drops`).
    pub fn drops(&self) -> u64 {
        self.drop_ring_full + self.drop_malformed + self.drop_pipe_off
    }
}

impl<C: Card> Device<C> {
    /// Reads a 64-bit counter (LO first: that latches HI).
    pub fn read64(&mut self, lo: Reg) -> Result<u64> {
        let l = self.read(lo.offset)? as u64;
        let h = self.read(lo.offset + 4)? as u64;
        Ok(h << 32 | l)
    }

    /// The card's hardware time: core clock cycles since its last reset
    /// (`CYCLES`; 4 ns a cycle at 250 MHz). Two reads are ordered, so the
    /// difference of two calls is the cycles between their register reads
    /// (the in-process `mock::FakeCard` counts a cycle per `relax` and per
    /// ring entry it stamps).
    pub fn cycles(&mut self) -> Result<u64> {
        self.read64(global::CYCLES)
    }

    pub fn counters(&mut self) -> Result<Counters> {
        Ok(Counters {
            rx_frames: self.read64(Counter::RxFrames.reg())?,
            rx_bytes: self.read64(Counter::RxBytes.reg())?,
            drop_ring_full: self.read64(Counter::DropRingFull.reg())?,
            drop_malformed: self.read64(Counter::DropMalformed.reg())?,
            drop_pipe_off: self.read64(Counter::DropPipeOff.reg())?,
            notifications: self.read64(Counter::Notifications.reg())?,
            tx_frames: self.read64(Counter::TxFrames.reg())?,
            tx_bytes: self.read64(Counter::TxBytes.reg())?,
            tx_drop_malformed: self.read64(Counter::TxDropMalformed.reg())?,
            tx_completions: self.read64(Counter::TxCompletions.reg())?,
            flow_hits: self.read64(Counter::FlowHits.reg())?,
            flow_misses: self.read64(Counter::FlowMisses.reg())?,
            reg_errors: self.read(global::REG_ERRORS.offset)?,
            rx_overflow_drops: self.read(global::RX_OVERFLOW_DROPS.offset)?,
        })
    }
}
