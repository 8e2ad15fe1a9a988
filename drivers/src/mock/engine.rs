//! The fake card's datapath (with a MAC or an atomic unit): the rings as
//! the card serves them, in format v2 (`pendulum_layout::ring`).
//!
//! - RX: an entry (header, then the body padded to a unit) is written at
//!   the pipe's tail only if `entry_units(len) <= mask - used` (one unit
//!   stays empty), else it is dropped and counted (DROP_RING_FULL); the
//!   header's timestamp is the card's clock. The tail is published (TAIL,
//!   then a notification) after the entry is written. Notifications are
//!   reactive: one per arming (a HEAD write or NOTIF_PREFETCH), or one per
//!   entry with CTRL_PER_PACKET_NOTIF.
//! - TX: a doorbell's entries are read by their headers from the pipe's
//!   head. An entry of length 0 or over `MAX_FRAME_BYTES` is dropped and
//!   counted (TX_DROPS, TX_DROP_MALFORMED) and exactly its
//!   `entry_units(len)` units are skipped; one running past the rung tail
//!   is dropped with everything up to the tail. The others go to what the
//!   pipe is bound to: the MAC (frames), or the atomic unit, which may
//!   refuse an entry (dropped and counted the same way). A pipe bound to
//!   the ACP link, or a frame pipe of a card without a MAC, is not served
//!   (a test writes its completions). The completion record is written each
//!   time the head crosses a multiple of `TX_COMPL_UNITS` and when it
//!   reaches the rung tail.
//! - TX stamps: on a frame pipe enabled with `TX_CTRL_STAMPS`, a frame sent
//!   whose entry's FLAGS has `tx_flags::STAMP` gets a stamp record
//!   (`pendulum_layout::tx_stamp`: the card's clock, moved on by one for
//!   it, the entry's unit and LEN, DONE 1) in the slot of its entry's first
//!   unit, as it is sent. A dropped entry gets none. With
//!   [`FakeCard::hold_tx_stamps`] the records wait in the card until
//!   [`FakeCard::release_tx_stamps`], so a test sees the head pass an
//!   entry before its stamp comes, as it may on the NIC.

use std::collections::HashMap;

use super::{put_u32, FakeCard};
use pendulum_layout::params::{MAX_FRAME_BYTES, TX_COMPL_UNITS};
use pendulum_layout::ring::{entry_units, tx_flags, EntryHeader, HEADER_BYTES, UNIT_BYTES};
use pendulum_layout::{global, pipe, pipe_page, tx_compl, tx_stamp, Reg, PAGE_BYTES};

/// The rings' state, per pipe while it is enabled.
#[derive(Default)]
pub(super) struct Engine {
    rx: HashMap<usize, RxState>,
    tx: HashMap<usize, TxState>,
    /// Stamp records held back ([`FakeCard::hold_tx_stamps`]), oldest
    /// first: (bus address, record).
    held_stamps: Vec<(u64, [u8; tx_stamp::BYTES])>,
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

#[derive(Clone, Copy)]
struct TxState {
    head: u32,
    /// Completion records written since the pipe was enabled.
    seq: u32,
    bound: Bound,
    /// TX_CTRL_STAMPS: frames that ask get a stamp record.
    stamps: bool,
}

/// What a TX pipe's entries are (TX_CTRL).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Frames,
    Link,
    Atomic,
}

/// Adds `n` to a 64-bit global counter's low word, or a 32-bit pipe
/// counter (the fake's counts stay small).
pub(super) fn count(card: &mut FakeCard, reg: Reg, n: u32) {
    let c = card.regs.entry(reg.offset).or_default();
    *c = c.wrapping_add(n);
}

/// The page offset of pipe `p`'s register `reg`.
fn at(p: usize, reg: Reg) -> Reg {
    Reg {
        offset: pipe_page(p) + reg.offset,
        ..reg
    }
}

impl FakeCard {
    /// The card forgets the rings' state (a reset).
    pub(super) fn engine_reset(&mut self) {
        if let Some(e) = self.engine.as_mut() {
            e.rx.clear();
            e.tx.clear();
            e.held_stamps.clear();
        }
    }

    /// A register write, as the datapath sees it.
    pub(super) fn engine_write(&mut self, offset: u32, value: u32) {
        let Some(e) = self.engine.as_mut() else {
            return;
        };
        if offset < PAGE_BYTES {
            return;
        }
        let p = (offset / PAGE_BYTES - 1) as usize;
        let reg = offset % PAGE_BYTES;
        if reg == pipe::CTRL.offset {
            // Enabling starts the ring (head = tail = 0) and the sequence.
            if value & pipe::CTRL_ENABLE != 0 {
                let fresh = RxState {
                    armed: true,
                    ..Default::default()
                };
                e.rx.insert(p, fresh);
            } else {
                e.rx.remove(&p);
            }
            self.regs.insert(at(p, pipe::TAIL).offset, 0);
        } else if reg == pipe::HEAD.offset || reg == pipe::NOTIF_PREFETCH.offset {
            if let Some(s) = e.rx.get_mut(&p) {
                if reg == pipe::HEAD.offset {
                    s.head = value;
                }
                s.armed = true;
            }
            self.notify(p);
        } else if reg == pipe::TX_CTRL.offset {
            if value & pipe::CTRL_ENABLE != 0 {
                let bound = if value & pipe::TX_CTRL_ATOMIC != 0 {
                    Bound::Atomic
                } else if value & pipe::TX_CTRL_ACP != 0 {
                    Bound::Link
                } else {
                    Bound::Frames
                };
                let fresh = TxState {
                    head: 0,
                    seq: 0,
                    bound,
                    stamps: value & pipe::TX_CTRL_STAMPS != 0,
                };
                e.tx.insert(p, fresh);
            } else {
                e.tx.remove(&p);
            }
            self.regs.insert(at(p, pipe::TX_HEAD).offset, 0);
        } else if reg == pipe::TX_TAIL.offset {
            self.doorbell(p, value);
        }
    }

    /// Time passes (a `relax`): every pipe that may notify does.
    pub(super) fn engine_run(&mut self) {
        let Some(e) = self.engine.as_ref() else {
            return;
        };
        let mut pipes: Vec<usize> = e.rx.keys().copied().collect();
        pipes.sort_unstable();
        for p in pipes {
            self.notify(p);
        }
    }

    /// The base and bytes of pipe `p`'s ring (`tx`: its TX ring).
    fn ring(&self, p: usize, tx: bool) -> (u64, u32) {
        let (lo, hi, bytes) = if tx {
            (
                pipe::TX_RING_BASE_LO,
                pipe::TX_RING_BASE_HI,
                pipe::TX_RING_BYTES,
            )
        } else {
            (pipe::RING_BASE_LO, pipe::RING_BASE_HI, pipe::RING_BYTES)
        };
        let page = pipe_page(p);
        let base = self.iova_at(page + lo.offset, page + hi.offset);
        (base, self.last_write(page + bytes.offset))
    }

    /// The card's RX engine offers pipe `p` an entry: `header` (its length
    /// `body.len()`; the timestamp is the card's, taken here) and `body`.
    /// Returns whether it was written; otherwise it was dropped and counted
    /// (DROP_PIPE_OFF, or DROP_RING_FULL when it does not fit).
    pub(super) fn rx_entry(&mut self, p: usize, header: EntryHeader, body: &[u8]) -> bool {
        debug_assert_eq!(usize::from(header.len), body.len());
        self.clock += 1;
        let header = EntryHeader {
            timestamp: self.clock,
            ..header
        };
        let Some(mut s) = self.engine.as_ref().and_then(|e| e.rx.get(&p)).copied() else {
            count(self, global::DROP_PIPE_OFF, 1);
            return false;
        };
        let (base, ring_bytes) = self.ring(p, false);
        let mask = ring_bytes / UNIT_BYTES as u32 - 1;
        let need = entry_units(header.len.into());
        // One unit stays empty, so a full ring is not mistaken for an empty one.
        if need > mask - (s.tail.wrapping_sub(s.head) & mask) {
            count(self, global::DROP_RING_FULL, 1);
            count(self, at(p, pipe::DROP_RING_FULL), 1);
            return false;
        }
        self.ring_write(base, ring_bytes, s.tail, &header.to_bytes());
        self.ring_write(base, ring_bytes, (s.tail + 1) & mask, body);
        s.tail = (s.tail + need) & mask;
        if let Some(e) = self.engine.as_mut() {
            e.rx.insert(p, s);
        }
        // Published once the entry is written.
        self.regs.insert(at(p, pipe::TAIL).offset, s.tail);
        count(self, at(p, pipe::RX_FRAMES), 1);
        self.notify(p);
        true
    }

    /// Announces pipe `p`'s tail if it moved and the pipe may notify.
    fn notify(&mut self, p: usize) {
        let per_packet = self.regs.get(&global::CTRL.offset).copied().unwrap_or(0)
            & global::CTRL_PER_PACKET_NOTIF
            != 0;
        let Some(s) = self.engine.as_ref().and_then(|e| e.rx.get(&p)).copied() else {
            return;
        };
        if (s.armed || per_packet) && s.announced != s.tail {
            let (seq, tail) = (s.seq + 1, s.tail);
            // A full notification buffer holds the record back to a later call.
            if self.post(p, seq, tail) {
                if let Some(s) = self.engine.as_mut().and_then(|e| e.rx.get_mut(&p)) {
                    (s.seq, s.announced, s.armed) = (seq, tail, false);
                }
                count(self, global::NOTIFICATIONS, 1);
            }
        }
    }

    /// TX pipe `p` rang `tail`: its entries go where it is bound.
    fn doorbell(&mut self, p: usize, tail: u32) {
        let Some(s) = self.engine.as_ref().and_then(|e| e.tx.get(&p)).copied() else {
            return;
        };
        match s.bound {
            Bound::Frames if self.mac.is_some() => {
                self.tx_entries(p, s, tail, |card, frame| {
                    card.mac_send(p, frame);
                    true
                });
            }
            Bound::Atomic if self.atomic_mem.is_some() => {
                self.tx_entries(p, s, tail, |card, entry| card.atomic_request(entry));
            }
            _ => {}
        }
    }

    /// Reads TX pipe `p`'s entries from its head (state `s`) to `tail` by
    /// their headers, hands each well-formed one to `serve` (false: refused,
    /// so dropped), drops the malformed ones, and writes the completion
    /// records.
    fn tx_entries(
        &mut self,
        p: usize,
        mut s: TxState,
        tail: u32,
        mut serve: impl FnMut(&mut Self, &[u8]) -> bool,
    ) {
        let (base, ring_bytes) = self.ring(p, true);
        let mask = ring_bytes / UNIT_BYTES as u32 - 1;
        let tail = tail & mask;
        let start = s.head;
        while s.head != tail {
            let from = s.head;
            let left = tail.wrapping_sub(from) & mask;
            let rec = self.ring_read(base, ring_bytes, from, HEADER_BYTES as u32);
            let header = EntryHeader::from_bytes(&rec.try_into().expect("a header"));
            let len = header.len;
            let units = entry_units(len.into());
            let taken = if units > left {
                // Running past the tail: everything up to it goes.
                s.head = tail;
                false
            } else {
                s.head = (from + units) & mask;
                let ok = len != 0 && u32::from(len) <= MAX_FRAME_BYTES;
                ok && {
                    let body = self.ring_read(base, ring_bytes, (from + 1) & mask, len.into());
                    serve(self, &body)
                }
            };
            let stamp = s.stamps && s.bound == Bound::Frames && header.flags & tx_flags::STAMP != 0;
            if taken && stamp {
                self.tx_stamp(p, from, len);
            }
            if !taken {
                count(self, global::TX_DROP_MALFORMED, 1);
                count(self, at(p, pipe::TX_DROPS), 1);
            }
            let crossed = from / TX_COMPL_UNITS != s.head / TX_COMPL_UNITS;
            if crossed && s.head != tail {
                s.seq += 1;
                self.tx_complete(p, s.head, s.seq);
            }
        }
        if s.head != start {
            s.seq += 1;
            self.tx_complete(p, s.head, s.seq);
        }
        self.regs.insert(at(p, pipe::TX_HEAD).offset, s.head);
        if let Some(e) = self.engine.as_mut() {
            e.tx.insert(p, s);
        }
    }

    /// Writes TX pipe `p`'s completion record: its head, sequence `seq`.
    fn tx_complete(&mut self, p: usize, head: u32, seq: u32) {
        let page = pipe_page(p);
        let at = self.iova_at(
            page + pipe::TX_COMPL_BASE_LO.offset,
            page + pipe::TX_COMPL_BASE_HI.offset,
        );
        let mut rec = [0u8; tx_compl::BYTES];
        put_u32(&mut rec, tx_compl::HEAD, head);
        put_u32(&mut rec, tx_compl::SEQ, seq);
        put_u32(&mut rec, tx_compl::PIPE, p as u32);
        put_u32(&mut rec, tx_compl::COUNT, seq);
        self.host_write(at, &rec);
        count(self, global::TX_COMPLETIONS, 1);
    }

    /// Stamps the frame of TX pipe `p`'s entry at unit `unit` (`len` bytes)
    /// as it leaves: the clock moves on by one, so stamps increase, and the
    /// record goes to the entry's slot after the completion record, or
    /// waits in the card while [`FakeCard::hold_tx_stamps`] is set.
    fn tx_stamp(&mut self, p: usize, unit: u32, len: u16) {
        self.clock += 1;
        let page = pipe_page(p);
        let base = self.iova_at(
            page + pipe::TX_COMPL_BASE_LO.offset,
            page + pipe::TX_COMPL_BASE_HI.offset,
        );
        let rec = tx_stamp::record(self.clock, unit, len, 1);
        let at = base + tx_stamp::offset(unit);
        match self.engine.as_mut() {
            Some(e) if self.hold_tx_stamps => e.held_stamps.push((at, rec)),
            _ => self.host_write(at, &rec),
        }
    }

    /// Writes the stamp records held back while
    /// [`FakeCard::hold_tx_stamps`] was set, oldest first, and returns how
    /// many. (It does not clear `hold_tx_stamps`: stamps of frames sent
    /// later are held until the next call.)
    pub fn release_tx_stamps(&mut self) -> usize {
        let held = self
            .engine
            .as_mut()
            .map(|e| std::mem::take(&mut e.held_stamps))
            .unwrap_or_default();
        for (at, rec) in &held {
            self.host_write(*at, rec);
        }
        held.len()
    }

    /// Writes `bytes` into the ring at `base` from unit `unit` on, wrapping.
    fn ring_write(&mut self, base: u64, ring_bytes: u32, unit: u32, bytes: &[u8]) {
        let at = unit as usize * UNIT_BYTES;
        let first = bytes.len().min(ring_bytes as usize - at);
        self.host_write(base + at as u64, &bytes[..first]);
        self.host_write(base, &bytes[first..]);
    }

    /// `len` bytes of the ring at `base` from unit `unit` on, wrapping.
    fn ring_read(&mut self, base: u64, ring_bytes: u32, unit: u32, len: u32) -> Vec<u8> {
        let at = unit * UNIT_BYTES as u32;
        let len = len.min(ring_bytes) as usize;
        let first = len.min((ring_bytes - at) as usize);
        let mut out = self.host_mut(base + at as u64, first).to_vec();
        out.extend_from_slice(self.host_mut(base, len - first));
        out
    }
}
