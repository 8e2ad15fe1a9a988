//! The fake card's Ethernet port (opt in: [`FakeCard::with_mac`]), so code
//! written against [`EthernetPort`] runs on the mock card too, without
//! Verilator: injected frames are steered as the card steers them (flow
//! table, fallback pipes by RSS hash, default pipe, all from
//! `pendulum_layout::flow`), refused when empty or over the largest frame,
//! and written into their pipe's ring as v2 entries (`engine.rs`), one at
//! each `relax`, with the header the card writes
//! (`pendulum_layout::ring::rx_header`: length, flags, hash, timestamp);
//! TX doorbells send the entries rung at once, whatever their EtherType,
//! and write the completion record. Counted in the global counters the
//! driver reads (`Device::counters`).
//!
//! It plays the card's rules, not its timing: a frame per `relax`, TX at
//! once, and `cycles` counts `relax` calls.

use std::collections::VecDeque;

use super::engine::count;
use super::FakeCard;
use crate::{Error, EthernetPort, Result};
use pendulum_layout::flow::{fallback_pipe, FlowKey, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::ring::rx_header;
use pendulum_layout::{global, params, pipe, pipe_page};
use std::collections::HashMap;

/// The MAC side of the fake card.
#[derive(Default)]
pub(super) struct FakeMac {
    /// Injected frames not yet taken in, oldest first.
    rx_queue: VecDeque<Vec<u8>>,
    /// Frames sent on Ethernet TX and not yet collected.
    sent: Vec<Vec<u8>>,
    /// Flow table slot → (key words, pipe).
    flows: HashMap<u32, ([u32; 10], usize)>,
}

/// What [`Error::NoTestPort`] says of a fake card made without a MAC.
const NO_MAC: &str =
    "this FakeCard: it has no Ethernet port; make it with FakeCard::new().with_mac()";

impl FakeCard {
    /// This card with an Ethernet port ([`EthernetPort`]) and a flow table
    /// of the built shape.
    pub fn with_mac(mut self) -> Self {
        let shape = (params::FLOW_WAYS as u32) << 16 | (1u32 << params::FLOW_BUCKET_BITS);
        self.regs.insert(global::CAP_FLOW_TABLE.offset, shape);
        self.mac = Some(Box::default());
        self.engine.get_or_insert_with(Box::default);
        self
    }

    /// The card forgets its flow table (a reset); queued frames wait.
    pub(super) fn mac_reset(&mut self) {
        if let Some(mac) = self.mac.as_mut() {
            mac.flows.clear();
        }
    }

    /// A register write, as the flow table sees it.
    pub(super) fn mac_write(&mut self, offset: u32, value: u32) {
        if self.mac.is_none() || offset != global::FLOW_WRITE.offset {
            return;
        }
        let slot = value & !WRITE_VALID;
        let entry = (value & WRITE_VALID != 0).then(|| {
            let words =
                std::array::from_fn(|k| self.last_write(global::FLOW_KEY0.offset + 4 * k as u32));
            (words, self.last_write(global::FLOW_PIPE.offset) as usize)
        });
        if let Some(mac) = self.mac.as_mut() {
            match entry {
                Some(e) => mac.flows.insert(slot, e),
                None => mac.flows.remove(&slot),
            };
        }
    }

    /// Time passes (a `relax`): the next queued frame enters the card.
    pub(super) fn mac_run(&mut self) {
        if let Some(f) = self.mac.as_mut().and_then(|m| m.rx_queue.pop_front()) {
            self.receive(&f);
        }
    }

    /// One frame in, in the card's order: steered (IP frames counted as
    /// hits or misses), then refused as malformed when empty or over the
    /// largest frame, else written into its pipe's ring with its header
    /// (or dropped there: pipe off, ring full).
    fn receive(&mut self, frame: &[u8]) {
        let Some(mac) = self.mac.as_ref() else {
            return;
        };
        let (p, hit) = match FlowKey::from_frame(frame) {
            None => (
                self.last_write(global::FLOW_DEFAULT_PIPE.offset) as usize,
                false,
            ),
            Some(key) => {
                let words = key.words();
                match mac.flows.values().find(|(w, _)| *w == words) {
                    Some(&(_, p)) => {
                        count(self, global::FLOW_HITS, 1);
                        (p, true)
                    }
                    None => {
                        count(self, global::FLOW_MISSES, 1);
                        let v = self.last_write(global::FLOW_FALLBACK.offset);
                        let log2 = (v >> FALLBACK_COUNT_LOG2_SHIFT) & 0x1F;
                        (
                            fallback_pipe(key.hash(), (v & 0xFFFF) as usize, log2),
                            false,
                        )
                    }
                }
            }
        };
        let max = self.regs[&global::CAP_MAX_FRAME.offset].min(params::MAX_FRAME_BYTES);
        if frame.is_empty() || frame.len() > max as usize {
            return count(self, global::DROP_MALFORMED, 1);
        }
        // The timestamp is the engine's, at the frame's first beat.
        if self.rx_entry(p, rx_header(frame, hit, 0), frame) {
            count(self, global::RX_FRAMES, 1);
            count(self, global::RX_BYTES, frame.len() as u32);
        }
    }

    /// A TX entry of frame pipe `p` leaves on Ethernet.
    pub(super) fn mac_send(&mut self, p: usize, frame: &[u8]) {
        if let Some(mac) = self.mac.as_mut() {
            mac.sent.push(frame.to_vec());
        }
        count(self, global::TX_FRAMES, 1);
        count(self, global::TX_BYTES, frame.len() as u32);
        let frames = pipe_page(p) + pipe::TX_FRAMES.offset;
        *self.regs.entry(frames).or_default() += 1;
    }
}

/// Frames enter at `relax` (and `drain`); a card made without
/// [`FakeCard::with_mac`] has no port and says so.
impl EthernetPort for FakeCard {
    fn inject(&mut self, frames: &[Vec<u8>]) -> Result<()> {
        let mac = self.mac.as_mut().ok_or(Error::NoTestPort {
            what: "inject frames",
            card: NO_MAC,
        })?;
        mac.rx_queue.extend(frames.iter().cloned());
        Ok(())
    }

    fn collect(&mut self) -> Result<Vec<Vec<u8>>> {
        let mac = self.mac.as_mut().ok_or(Error::NoTestPort {
            what: "collect frames",
            card: NO_MAC,
        })?;
        Ok(std::mem::take(&mut mac.sent))
    }

    /// Relaxes until every injected frame is in, at most `max_cycles` times.
    fn drain(&mut self, max_cycles: u64) -> Result<bool> {
        for _ in 0..max_cycles {
            let mac = self.mac.as_ref().ok_or(Error::NoTestPort {
                what: "drain the Ethernet port",
                card: NO_MAC,
            })?;
            if mac.rx_queue.is_empty() {
                return Ok(true);
            }
            crate::Card::relax(self);
        }
        Ok(self.mac.as_ref().is_some_and(|m| m.rx_queue.is_empty()))
    }

    fn cycles(&mut self) -> Result<u64> {
        Ok(self.relaxes)
    }
}
