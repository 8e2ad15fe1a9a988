//! The fake card's Ethernet port (opt in: [`FakeCard::with_mac`]), so code
//! written against [`EthernetPort`] runs on the mock card too, without
//! Verilator: injected frames are steered as the card steers them (flow
//! table, fallback pipes by RSS hash, default pipe, all from
//! `pendulum_layout::flow`), checked by the frame-length rule
//! (`pendulum_layout::frame`) and written into their pipe's ring, one at
//! each `relax`, with reactive notifications; TX doorbells send the frames
//! rung at once and write the completion record. Counted in the global
//! counters the driver reads (`Device::counters`).
//!
//! It plays the card's rules, not its timing: a frame per `relax`, TX at
//! once, and `cycles` counts `relax` calls.

use std::collections::{HashMap, VecDeque};

use super::FakeCard;
use crate::{Error, EthernetPort, Result};
use pendulum_layout::flow::{fallback_pipe, FlowKey, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::frame::{frame_len_from_header, slots_for, wire_len_matches};
use pendulum_layout::{global, params, pipe, pipe_page, BEAT_BYTES, PAGE_BYTES};

/// The MAC side and the datapath state of the fake card.
#[derive(Default)]
pub(super) struct FakeMac {
    /// Injected frames not yet taken in, oldest first.
    rx_queue: VecDeque<Vec<u8>>,
    /// Frames sent on Ethernet TX and not yet collected.
    sent: Vec<Vec<u8>>,
    /// Per RX pipe, while enabled.
    rx: HashMap<usize, RxState>,
    /// Per TX pipe: its head (slot) and completion sequence, while enabled.
    tx: HashMap<usize, (u32, u32)>,
    /// Flow table slot → (key words, pipe).
    flows: HashMap<u32, ([u32; 10], usize)>,
}

#[derive(Clone, Copy, Default)]
struct RxState {
    head: u32,
    tail: u32,
    seq: u32,
    /// The tail the last notification carried.
    announced: u32,
    /// A notification may be sent (re-armed by a head write or a prefetch).
    armed: bool,
}

/// What [`Error::NoTestPort`] says of a fake card made without a MAC.
const NO_MAC: &str =
    "this FakeCard: it has no Ethernet port; make it with FakeCard::new().with_mac()";

/// Adds `n` to a 64-bit counter's low word (the fake's counts stay small).
fn count(card: &mut FakeCard, reg: pendulum_layout::Reg, n: u32) {
    let c = card.regs.entry(reg.offset).or_default();
    *c = c.wrapping_add(n);
}

impl FakeCard {
    /// This card with an Ethernet port ([`EthernetPort`]) and a flow table
    /// of the built shape.
    pub fn with_mac(mut self) -> Self {
        let shape = (params::FLOW_WAYS as u32) << 16 | (1u32 << params::FLOW_BUCKET_BITS);
        self.regs.insert(global::CAP_FLOW_TABLE.offset, shape);
        self.mac = Some(Box::default());
        self
    }

    /// The card forgets its datapath state (a reset); queued frames wait.
    pub(super) fn mac_reset(&mut self) {
        if let Some(mac) = self.mac.as_mut() {
            mac.rx.clear();
            mac.tx.clear();
            mac.flows.clear();
        }
    }

    /// A register write, as the datapath sees it.
    pub(super) fn mac_write(&mut self, offset: u32, value: u32) {
        let Some(mut mac) = self.mac.take() else {
            return;
        };
        if offset == global::FLOW_WRITE.offset {
            let slot = value & !WRITE_VALID;
            if value & WRITE_VALID != 0 {
                let words = std::array::from_fn(|k| {
                    self.last_write(global::FLOW_KEY0.offset + 4 * k as u32)
                });
                let p = self.last_write(global::FLOW_PIPE.offset) as usize;
                mac.flows.insert(slot, (words, p));
            } else {
                mac.flows.remove(&slot);
            }
        } else if offset >= PAGE_BYTES {
            let p = (offset / PAGE_BYTES - 1) as usize;
            let reg = offset % PAGE_BYTES;
            if reg == pipe::CTRL.offset {
                if value & pipe::CTRL_ENABLE != 0 {
                    // Enabling starts the ring and the sequence at 0.
                    let fresh = RxState {
                        armed: true,
                        ..Default::default()
                    };
                    mac.rx.insert(p, fresh);
                } else {
                    mac.rx.remove(&p);
                }
            } else if reg == pipe::HEAD.offset || reg == pipe::NOTIF_PREFETCH.offset {
                if let Some(s) = mac.rx.get_mut(&p) {
                    if reg == pipe::HEAD.offset {
                        s.head = value;
                    }
                    s.armed = true;
                }
                self.notify(&mut mac, p);
            } else if reg == pipe::TX_CTRL.offset {
                let frames = value & pipe::CTRL_ENABLE != 0
                    && value & (pipe::TX_CTRL_ACP | pipe::TX_CTRL_ATOMIC) == 0;
                if frames {
                    mac.tx.insert(p, (0, 0));
                } else {
                    mac.tx.remove(&p);
                }
            } else if reg == pipe::TX_TAIL.offset {
                self.send(&mut mac, p, value);
            }
        }
        self.mac = Some(mac);
    }

    /// Time passes (a `relax`): the next queued frame enters the card.
    pub(super) fn mac_run(&mut self) {
        let Some(mut mac) = self.mac.take() else {
            return;
        };
        if let Some(f) = mac.rx_queue.pop_front() {
            self.receive(&mut mac, &f);
        }
        let pipes: Vec<usize> = mac.rx.keys().copied().collect();
        for p in pipes {
            self.notify(&mut mac, p);
        }
        self.mac = Some(mac);
    }

    /// One frame in, in the card's order: steered (IP frames counted as
    /// hits or misses), then refused as malformed when its headers give no
    /// length (or one over the largest frame), else for its pipe being off,
    /// else for want of room, else as malformed when its wire length
    /// disagrees (`hdl/src/enso/rx.rs`); else written after its pipe's tail.
    fn receive(&mut self, mac: &mut FakeMac, frame: &[u8]) {
        let p = match FlowKey::from_frame(frame) {
            None => self.last_write(global::FLOW_DEFAULT_PIPE.offset) as usize,
            Some(key) => {
                let words = key.words();
                match mac.flows.values().find(|(w, _)| *w == words) {
                    Some(&(_, p)) => {
                        count(self, global::FLOW_HITS, 1);
                        p
                    }
                    None => {
                        count(self, global::FLOW_MISSES, 1);
                        let v = self.last_write(global::FLOW_FALLBACK.offset);
                        let log2 = (v >> FALLBACK_COUNT_LOG2_SHIFT) & 0x1F;
                        fallback_pipe(key.hash(), (v & 0xFFFF) as usize, log2)
                    }
                }
            }
        };
        let max = self.regs[&global::CAP_MAX_FRAME.offset];
        let Some(len) = frame_len_from_header(frame).filter(|&n| n <= max) else {
            return count(self, global::DROP_MALFORMED, 1);
        };
        let Some(mut s) = mac.rx.get(&p).copied() else {
            return count(self, global::DROP_PIPE_OFF, 1);
        };
        let page = pipe_page(p);
        let base = self.iova_at(
            page + pipe::RING_BASE_LO.offset,
            page + pipe::RING_BASE_HI.offset,
        );
        let ring_bytes = self.last_write(page + pipe::RING_BYTES.offset);
        let slots = ring_bytes / BEAT_BYTES as u32;
        let used = s.tail.wrapping_sub(s.head) % slots;
        // One slot stays empty, so a full ring is not mistaken for an empty one.
        if used + slots_for(len) > slots - 1 {
            return count(self, global::DROP_RING_FULL, 1);
        }
        if !wire_len_matches(len, frame.len() as u32) {
            return count(self, global::DROP_MALFORMED, 1);
        }
        self.ring_write(base, ring_bytes, s.tail, &frame[..len as usize]);
        s.tail = (s.tail + slots_for(len)) % slots;
        mac.rx.insert(p, s);
        count(self, global::RX_FRAMES, 1);
        count(self, global::RX_BYTES, len);
        self.notify(mac, p);
    }

    /// Announces pipe `p`'s tail if it moved and the pipe may notify.
    fn notify(&mut self, mac: &mut FakeMac, p: usize) {
        let per_packet = self.regs.get(&global::CTRL.offset).copied().unwrap_or(0)
            & global::CTRL_PER_PACKET_NOTIF
            != 0;
        let Some(s) = mac.rx.get_mut(&p) else {
            return;
        };
        if (s.armed || per_packet) && s.announced != s.tail {
            let (seq, tail) = (s.seq + 1, s.tail);
            // A full notification buffer holds the record back to a later call.
            if self.post(p, seq, tail) {
                let s = mac.rx.get_mut(&p).expect("pipe state");
                (s.seq, s.announced, s.armed) = (seq, tail, false);
                count(self, global::NOTIFICATIONS, 1);
            }
        }
    }

    /// TX pipe `p` rang `tail`: its frames go out, or, from a frame the rule
    /// cannot delimit, everything up to the tail is dropped.
    fn send(&mut self, mac: &mut FakeMac, p: usize, tail: u32) {
        let Some(&(mut head, seq)) = mac.tx.get(&p) else {
            return;
        };
        let page = pipe_page(p);
        let base = self.iova_at(
            page + pipe::TX_RING_BASE_LO.offset,
            page + pipe::TX_RING_BASE_HI.offset,
        );
        let ring_bytes = self.last_write(page + pipe::TX_RING_BYTES.offset);
        let slots = ring_bytes / BEAT_BYTES as u32;
        let max = self.regs[&global::CAP_MAX_FRAME.offset];
        while head != tail {
            let waiting = tail.wrapping_sub(head) % slots;
            let start = head * BEAT_BYTES as u32;
            let header = self.ring_read(base, ring_bytes, start, BEAT_BYTES as u32);
            match frame_len_from_header(&header) {
                Some(n) if n <= max && slots_for(n) <= waiting => {
                    let frame = self.ring_read(base, ring_bytes, start, n);
                    mac.sent.push(frame);
                    count(self, global::TX_FRAMES, 1);
                    count(self, global::TX_BYTES, n);
                    head = (head + slots_for(n)) % slots;
                }
                _ => {
                    count(self, global::TX_DROP_MALFORMED, 1);
                    head = tail;
                }
            }
        }
        let seq = seq + 1;
        mac.tx.insert(p, (head, seq));
        let compl = self.iova_at(
            page + pipe::TX_COMPL_BASE_LO.offset,
            page + pipe::TX_COMPL_BASE_HI.offset,
        );
        let mut rec = [0u8; 8];
        rec[..4].copy_from_slice(&head.to_le_bytes());
        rec[4..].copy_from_slice(&seq.to_le_bytes());
        self.host_write(compl, &rec);
        count(self, global::TX_COMPLETIONS, 1);
    }

    /// Writes `bytes` into the ring at `base` from byte `at` on, wrapping.
    fn ring_write(&mut self, base: u64, ring_bytes: u32, slot: u32, bytes: &[u8]) {
        let at = slot as usize * BEAT_BYTES;
        let first = bytes.len().min(ring_bytes as usize - at);
        self.host_write(base + at as u64, &bytes[..first]);
        self.host_write(base, &bytes[first..]);
    }

    /// `len` bytes of the ring at `base` from byte `at` on, wrapping.
    fn ring_read(&mut self, base: u64, ring_bytes: u32, at: u32, len: u32) -> Vec<u8> {
        let len = len.min(ring_bytes) as usize;
        let first = len.min((ring_bytes - at) as usize);
        let mut out = self.host_mut(base + at as u64, first).to_vec();
        out.extend_from_slice(self.host_mut(base, len - first));
        out
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
