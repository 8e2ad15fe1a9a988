//! A card made of plain memory, for the driver's tests and benchmarks
//! (feature `test-utils`): registers are a map that records every write,
//! DMA regions are vectors, and nothing moves unless the caller says so
//! (the card's part is done by explicit calls). It plays the NIC's part of the
//! notification buffers (`post`), with their room check, so the driver's
//! reading and its NBUF_HEAD writes can be checked, and of a reset of the
//! card (`reset`, or `reset_at_relax` for one in the middle of a wait).
//! Data rings are in the card's format (v2, `pendulum_layout::ring`):
//! [`FakeCard::write_entry`] writes an RX entry as the card would.
//!
//! With [`FakeCard::with_mac`] it also has an Ethernet port (`mac.rs`), and
//! with [`FakeCard::with_atomics`] an atomic unit (`atomic.rs`); either
//! brings the datapath that serves the rings (`engine.rs`): RX entries
//! written with the card's room check and reactive notifications, TX
//! entries read by their headers, completion records, TX stamps.

use std::collections::HashMap;

mod atomic;
mod engine;
mod mac;

use crate::{Card, DmaRegion, DmaView, DmaViewMut, RegionKind, Result};
use pendulum_layout::ring::{EntryHeader, UNIT_BYTES};
use pendulum_layout::{
    global, notif, pipe, pipe_page, tx_compl, RegError, IDENTITY, LAST_REG_ERROR_CAUSE_SHIFT,
    PAGE_BYTES, VERSION,
};

/// The largest frame the fake card takes (CAP_MAX_FRAME): the layout's.
pub const MAX_FRAME_BYTES: u32 = pendulum_layout::params::MAX_FRAME_BYTES;

/// A notification buffer as the card sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct FakeNbuf {
    pub base: u64,
    pub bytes: u32,
    pub on: bool,
    /// Records written since switched on.
    pub count: u32,
    /// NBUF_HEAD.
    pub head: u32,
}

#[derive(Default)]
pub struct FakeCard {
    pub regs: HashMap<u32, u32>,
    pub writes: Vec<(u32, u32)>,
    pub regions: Vec<(RegionKind, Vec<u8>)>,
    /// Writes of a nonzero value to these offsets are refused with the cause
    /// given, as the card would (REG_ERRORS and LAST_REG_ERROR).
    pub refuse: HashMap<u32, RegError>,
    pub nbufs: HashMap<usize, FakeNbuf>,
    /// Offsets read, oldest first.
    pub reads: Vec<u32>,
    /// Calls to `relax` so far.
    pub relaxes: u64,
    /// The card resets itself in the `relax` call that brings `relaxes` to
    /// this value.
    pub reset_at_relax: Option<u64>,
    /// When set, reads and writes are counted (`reg_reads`, `reg_writes`)
    /// but not recorded in `reads` and `writes`: a benchmark that rings
    /// millions of doorbells neither grows them nor times their growth.
    /// `last_write` (and so the atomic unit) sees no write made meanwhile.
    pub quiet: bool,
    /// Register reads and writes so far, recorded or not.
    pub reg_reads: u64,
    pub reg_writes: u64,
    /// The atomic unit's memory (64-bit words), when the card has one
    /// (`with_atomics`).
    pub atomic_mem: Option<Vec<u64>>,
    /// While set, TX stamp records wait in the card (taken, with their
    /// cycle, as the frames are sent) instead of being written, until
    /// [`FakeCard::release_tx_stamps`]: the card's head passes an entry
    /// before its stamp comes, as it may on the NIC.
    pub hold_tx_stamps: bool,
    /// DMA writes the card made outside every region (a misprogrammed
    /// address, or a completion area too short for its stamp slots): an
    /// IOMMU would refuse them, so the fake drops and counts them.
    pub dma_faults: u64,
    /// The regions allocated mirrored.
    mirrored: Vec<usize>,
    /// The card's cycle counter (CYCLES): it moves on by one at each
    /// `relax`, at each RX ring entry the card stamps and at each TX frame
    /// it writes a stamp for, so timestamps increase from one entry to the
    /// next. 0 after a reset.
    clock: u64,
    /// The datapath that serves the rings, when the card has a MAC or an
    /// atomic unit (it reads the rings' registers from `writes`, so leave
    /// `quiet` off).
    engine: Option<Box<engine::Engine>>,
    /// The Ethernet port, when made `with_mac`.
    mac: Option<Box<mac::FakeMac>>,
}

impl FakeCard {
    /// 4 pipes, 4 TX pipes, 64 notification buffers.
    pub fn new() -> Self {
        Self::with(4, 4, 64)
    }

    pub fn with(pipes: u32, tx_pipes: u32, notif_bufs: u32) -> Self {
        let mut c = Self::default();
        c.regs.insert(global::IDENTITY.offset, IDENTITY);
        c.regs.insert(global::VERSION.offset, VERSION);
        c.regs.insert(global::CAP_PIPES.offset, pipes);
        c.regs.insert(global::CAP_TX_PIPES.offset, tx_pipes);
        c.regs.insert(global::CAP_NOTIF_BUFS.offset, notif_bufs);
        c.regs.insert(global::CAP_MAX_FRAME.offset, MAX_FRAME_BYTES);
        c
    }

    /// A synchronous reset: every register returns to its power-up value as
    /// the layout gives it (identity, version and capabilities stay; every
    /// other register the fake holds, SESSION, REG_ERRORS and CTRL among
    /// them, reads 0) and every notification buffer is off. Host memory is
    /// the host's, so the DMA regions stay as they are.
    pub fn reset(&mut self) {
        let identity = [global::IDENTITY, global::VERSION, global::NEXT];
        let fixed = |o: &u32| {
            global::ALL
                .iter()
                .chain(global::FLOW)
                .filter(|r| r.name.starts_with("CAP_") || identity.contains(r))
                .any(|r| r.offset == *o)
        };
        self.regs.retain(|o, _| fixed(o));
        self.nbufs.clear();
        self.clock = 0;
        self.engine_reset();
        self.mac_reset();
    }

    /// The card's cycle counter: what CYCLES reads, and the timestamp the
    /// last stamped entry got.
    pub fn cycle(&self) -> u64 {
        self.clock
    }

    /// A card with an atomic unit of `words` 64-bit words, which runs the
    /// requests (verbs, one-slot and three-slot commits:
    /// `pendulum_layout::atomic::execute_request`) on a TX pipe bound to it
    /// as soon as their doorbell is rung: each result is one entry (64
    /// bytes, a commit's 128) in ATOMIC_RX_PIPE's ring, and the TX
    /// completion record moves past the requests (`atomic.rs`).
    pub fn with_atomics(words: usize) -> Self {
        let mut c = Self::with(8, 4, 2);
        c.regs
            .insert(global::CAP_ATOMIC_BYTES.offset, 8 * words as u32);
        c.atomic_mem = Some(vec![0; words]);
        c.engine.get_or_insert_with(Box::default);
        c
    }

    /// The value last written to `offset` (0 if none).
    pub fn last_write(&self, offset: u32) -> u32 {
        self.writes
            .iter()
            .rev()
            .find(|(o, _)| *o == offset)
            .map_or(0, |(_, v)| *v)
    }

    /// A 64-bit bus address from the two registers that hold it.
    fn iova_at(&self, lo: u32, hi: u32) -> u64 {
        (self.last_write(hi) as u64) << 32 | self.last_write(lo) as u64
    }

    /// Writes `bytes` at bus address `iova`, into both copies of a
    /// mirrored region.
    /// A write that falls outside every region is dropped and counted in
    /// `dma_faults`, as an IOMMU would refuse it.
    fn host_write(&mut self, iova: u64, bytes: &[u8]) {
        let id = ((iova >> 32) as usize).wrapping_sub(1);
        let off = (iova & 0xFFFF_FFFF) as usize;
        let Some((_, region)) = self.regions.get_mut(id) else {
            self.dma_faults += 1;
            return;
        };
        let Some(dst) = region.get_mut(off..off + bytes.len()) else {
            self.dma_faults += 1;
            return;
        };
        dst.copy_from_slice(bytes);
        let half = region.len() / 2;
        if self.mirrored.contains(&id) && off + bytes.len() <= half {
            region[half + off..half + off + bytes.len()].copy_from_slice(bytes);
        }
    }

    /// What SESSION holds.
    pub fn session(&self) -> u32 {
        self.regs.get(&global::SESSION.offset).copied().unwrap_or(0)
    }

    /// Values written to `offset`, oldest first.
    pub fn writes_to(&self, offset: u32) -> Vec<u32> {
        self.writes
            .iter()
            .filter(|(o, _)| *o == offset)
            .map(|(_, v)| *v)
            .collect()
    }

    /// The `n`th region of `kind` allocated.
    pub fn region(&mut self, kind: RegionKind, n: usize) -> &mut Vec<u8> {
        &mut self
            .regions
            .iter_mut()
            .filter(|(k, _)| *k == kind)
            .nth(n)
            .expect("region")
            .1
    }

    /// Writes a TX completion record (`head` a unit), as the card would,
    /// into the `n`th notification region.
    pub fn complete(&mut self, n: usize, head: u32, seq: u32) {
        let rec = self.region(RegionKind::Notification, n);
        put_u32(rec, tx_compl::HEAD, head);
        put_u32(rec, tx_compl::SEQ, seq);
    }

    /// The bytes at bus address `iova` (regions sit at (id + 1) << 32).
    pub fn host_mut(&mut self, iova: u64, len: usize) -> &mut [u8] {
        let id = (iova >> 32) as usize - 1;
        let off = (iova & 0xFFFF_FFFF) as usize;
        &mut self.regions[id].1[off..off + len]
    }

    /// The NIC writes an RX entry (`header`, then `frame`) into a data ring
    /// at unit `unit` (modulo the ring's units), as the card does: wrapping
    /// at the ring's end, into both copies of a mirrored ring, the padding
    /// after the frame untouched. Returns the unit after the entry (modulo
    /// the ring's units): the tail to announce. `header.len` may differ
    /// from `frame.len()`, to write an entry the card never would.
    pub fn write_entry(
        &mut self,
        ring: &DmaRegion,
        unit: u32,
        header: &EntryHeader,
        frame: &[u8],
    ) -> u32 {
        let units = (ring.len / UNIT_BYTES) as u32;
        self.write_ring(ring, unit, &header.to_bytes());
        self.write_ring(ring, (unit + 1) % units, frame);
        (unit + pendulum_layout::ring::entry_units(header.len.into())) % units
    }

    /// The NIC writes `bytes` into a data ring from unit `unit` on
    /// (modulo the ring's units), wrapping at the end of the ring and into
    /// both copies of a mirrored one (raw: headers are the caller's).
    pub fn write_ring(&mut self, ring: &DmaRegion, unit: u32, bytes: &[u8]) {
        let mem = &mut self.regions[ring.id].1;
        let off = unit as usize * UNIT_BYTES % ring.len;
        let first = bytes.len().min(ring.len - off);
        let (head, rest) = bytes.split_at(first);
        let copies = if ring.mirrored { 2 } else { 1 };
        for c in 0..copies {
            let base = c * ring.len;
            mem[base + off..base + off + first].copy_from_slice(head);
            mem[base..base + rest.len()].copy_from_slice(rest);
        }
    }

    /// The NIC announces pipe `p`'s `tail` with sequence `seq` in its
    /// notification buffer; false when the buffer is off or has no room
    /// (the record waits in the card).
    pub fn post(&mut self, p: usize, seq: u32, tail: u32) -> bool {
        let cap = self.regs[&global::CAP_NOTIF_BUFS.offset] as usize;
        self.post_raw(p % cap, p as u32, seq, tail)
    }

    /// Writes the next record of buffer `b` with any PIPE field.
    pub fn post_raw(&mut self, b: usize, p: u32, seq: u32, tail: u32) -> bool {
        let nb = self.nbufs.get(&b).copied().unwrap_or_default();
        let records = nb.bytes / notif::BYTES as u32;
        if !nb.on || nb.count.wrapping_sub(nb.head) >= records {
            return false;
        }
        let slot = (nb.count % records) as u64;
        let count = nb.count.wrapping_add(1);
        let rec = self.host_mut(nb.base + slot * notif::BYTES as u64, notif::BYTES);
        for (f, v) in [(notif::TAIL, tail), (notif::SEQ, seq), (notif::PIPE, p)] {
            put_u32(rec, f, v);
        }
        put_u32(rec, notif::COUNT, count);
        self.nbufs.get_mut(&b).unwrap().count = count;
        true
    }

    /// Buffer `b` as the card sees it.
    pub fn nbuf(&self, b: usize) -> FakeNbuf {
        self.nbufs.get(&b).copied().unwrap_or_default()
    }

    /// Applies a write to the notification buffer registers.
    fn nbuf_write(&mut self, offset: u32, value: u32) {
        if offset < PAGE_BYTES {
            return;
        }
        let b = (offset / PAGE_BYTES - 1) as usize;
        let off = offset - pipe_page(b);
        let nbuf_regs = [
            pipe::NBUF_BASE_LO,
            pipe::NBUF_BASE_HI,
            pipe::NBUF_BYTES,
            pipe::NBUF_CTRL,
            pipe::NBUF_HEAD,
        ];
        // Doorbells (HEAD, TX_TAIL) stay off the map: benchmarks time them.
        if !nbuf_regs.iter().any(|r| r.offset == off) {
            return;
        }
        let nb = self.nbufs.entry(b).or_default();
        match off {
            o if o == pipe::NBUF_BASE_LO.offset => {
                nb.base = nb.base & !0xFFFF_FFFF | value as u64;
            }
            o if o == pipe::NBUF_BASE_HI.offset => {
                nb.base = nb.base & 0xFFFF_FFFF | (value as u64) << 32;
            }
            o if o == pipe::NBUF_BYTES.offset => nb.bytes = value,
            o if o == pipe::NBUF_CTRL.offset => {
                let on = value & pipe::NBUF_CTRL_ON != 0;
                if on && !nb.on {
                    nb.count = 0;
                    nb.head = 0;
                }
                nb.on = on;
            }
            o if o == pipe::NBUF_HEAD.offset => nb.head = value,
            _ => {}
        }
    }

    /// Why the card refuses writing `value` at `offset`, if it does: as the
    /// test asked (`refuse`), or enabling a pipe whose notification buffer
    /// is off, as the card does.
    fn refusal(&self, offset: u32, value: u32) -> Option<RegError> {
        if value == 0 {
            return None;
        }
        if let Some(cause) = self.refuse.get(&offset) {
            return Some(*cause);
        }
        let enables_pipe = offset >= PAGE_BYTES
            && offset % PAGE_BYTES == pipe::CTRL.offset
            && value & pipe::CTRL_ENABLE != 0;
        if !enables_pipe {
            return None;
        }
        let p = (offset / PAGE_BYTES - 1) as usize;
        let cap = self.regs[&global::CAP_NOTIF_BUFS.offset] as usize;
        let buf_on = cap > 0 && self.nbuf(p % cap).on;
        (!buf_on).then_some(RegError::NotifBufOff)
    }
}

impl Card for FakeCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.reg_reads += 1;
        if !self.quiet {
            self.reads.push(offset);
        }
        if offset == global::CYCLES.offset {
            return Ok(self.clock as u32);
        }
        if offset == global::CYCLES.offset + 4 {
            return Ok((self.clock >> 32) as u32);
        }
        Ok(self.regs.get(&offset).copied().unwrap_or(0))
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.reg_writes += 1;
        if !self.quiet {
            self.writes.push((offset, value));
        }
        if let Some(cause) = self.refusal(offset, value) {
            *self.regs.entry(global::REG_ERRORS.offset).or_default() += 1;
            self.regs.insert(
                global::LAST_REG_ERROR.offset,
                (cause as u32) << LAST_REG_ERROR_CAUSE_SHIFT | offset,
            );
            return Ok(());
        }
        // The global page's read-write registers keep what is written.
        if [global::CTRL, global::SCRATCH, global::SESSION]
            .iter()
            .any(|r| r.offset == offset)
        {
            self.regs.insert(offset, value);
        }
        self.nbuf_write(offset, value);
        self.mac_write(offset, value);
        self.engine_write(offset, value);
        Ok(())
    }
    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        let view = if mirrored { 2 * len } else { len };
        self.regions.push((kind, vec![0; view]));
        if mirrored {
            self.mirrored.push(self.regions.len() - 1);
        }
        // Far apart and aligned, like a real IOMMU would hand them out.
        let iova = (self.regions.len() as u64) << 32;
        Ok(DmaRegion {
            id: self.regions.len() - 1,
            iova,
            len,
            mirrored,
        })
    }
    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        // The fake writes its memory only through `&mut self`.
        DmaView::from_slice(&self.regions[region.id].1)
    }
    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        DmaViewMut::from_slice(&mut self.regions[region.id].1)
    }
    fn relax(&mut self) {
        self.relaxes += 1;
        self.clock += 1;
        if self.reset_at_relax == Some(self.relaxes) {
            self.reset();
        }
        self.mac_run();
        self.engine_run();
    }
}

/// Writes `v` into the 32-bit field `f` of a little-endian record.
fn put_u32(rec: &mut [u8], f: notif::Field, v: u32) {
    debug_assert!(f.width == 32 && f.lsb % 8 == 0, "a whole 32-bit field");
    let at = f.lsb / 8;
    rec[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
