//! The consumer side of the notification buffers (Ensō's): rings of 16-byte
//! records in host memory, each shared by the RX pipes p with
//! p mod CAP_NOTIF_BUFS = b. The NIC writes a buffer's n-th record (from 0,
//! since the buffer was switched on) at slot n mod records with
//! COUNT = n + 1; software reads records in order while each slot's COUNT is
//! the one it expects next, and keeps each pipe's newest (sequence, tail).
//!
//! Software reports how far it has read through NBUF_HEAD; the NIC writes a
//! record only while (records written − NBUF_HEAD) < records, and otherwise
//! holds it back (nothing is lost: the pipe's newest tail goes out once there
//! is room). NBUF_HEAD costs a register write, so it is written lazily: only
//! when the records read since the last write reach half the buffer
//! ([`NotifBufs::head_due`]). Why this never deadlocks is explained at
//! [`crate::Device::poll_notifications`].

use crate::{Card, DmaRegion};
use pendulum_layout::notif;

/// Default size of a notification buffer: one page, 256 records.
pub(crate) const DEFAULT_NOTIF_BUF_BYTES: u32 = 4096;

/// The newest notification read for one pipe. Sequence 0 means none since
/// the pipe was (re)opened: the NIC numbers a pipe's records from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Newest {
    pub seq: u32,
    pub tail: u32,
}

/// Byte offset of a 32-bit record field, for a 32-bit load.
pub(crate) const fn word(f: notif::Field) -> usize {
    assert!(
        f.width == 32 && f.lsb % 32 == 0,
        "a whole aligned 32-bit word"
    );
    f.lsb / 8
}

const RECORD_WORDS: usize = notif::BYTES / 4;
const COUNT_AT: usize = word(notif::COUNT);
const PIPE_AT: usize = word(notif::PIPE);
const SEQ_AT: usize = word(notif::SEQ);
const TAIL_AT: usize = word(notif::TAIL);

/// One buffer, as software reads it.
#[derive(Debug)]
struct Buf {
    region: DmaRegion,
    /// Records the ring holds (a power of two).
    records: u32,
    /// COUNT the next record will carry (1 after the buffer is switched on).
    next_count: u32,
    /// The value last written to NBUF_HEAD: the COUNT of the last record
    /// reported as read (0 after the buffer is switched on).
    head_reported: u32,
}

impl Buf {
    /// Records read and not yet reported through NBUF_HEAD.
    fn unreported(&self) -> u32 {
        self.next_count
            .wrapping_sub(1)
            .wrapping_sub(self.head_reported)
    }
}

/// Every notification buffer the driver has switched on, and per pipe the
/// newest record read.
#[derive(Debug)]
pub(crate) struct NotifBufs {
    /// The card's CAP_NOTIF_BUFS (0 on a card without them).
    cap: usize,
    /// Indexed by buffer; only buffers below the pipe count can be reached
    /// (pipe p uses p mod cap), so no more are kept whatever the card claims.
    bufs: Vec<Option<Buf>>,
    /// The buffers switched on, so draining all of them skips the rest.
    in_use: Vec<usize>,
    /// Indexed by pipe.
    newest: Vec<Newest>,
    /// Records whose PIPE is not a pipe of the buffer they were in.
    ignored: u64,
    /// Records read from all buffers, so a caller can tell a poll that
    /// found nothing new.
    read: u64,
}

impl NotifBufs {
    pub fn new(pipes: usize, cap: usize) -> Self {
        Self {
            cap,
            bufs: (0..cap.min(pipes)).map(|_| None).collect(),
            in_use: Vec::new(),
            newest: vec![Newest::default(); pipes],
            ignored: 0,
            read: 0,
        }
    }

    /// The card's number of notification buffers.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The buffer pipe `pipe` reports into (`cap` must not be 0).
    pub fn buf_of(&self, pipe: usize) -> usize {
        pipe % self.cap
    }

    pub fn is_on(&self, b: usize) -> bool {
        matches!(self.bufs.get(b), Some(Some(_)))
    }

    /// Records that buffer `b` was just switched on over `region` (zeroed
    /// memory), so its first record will carry COUNT 1.
    pub fn switched_on(&mut self, b: usize, region: DmaRegion) {
        let records = (region.len / notif::BYTES) as u32;
        self.bufs[b] = Some(Buf {
            region,
            records,
            next_count: 1,
            head_reported: 0,
        });
        if !self.in_use.contains(&b) {
            self.in_use.push(b);
        }
    }

    /// Reads buffer `b`'s new records into the per-pipe newest records.
    /// Reads at most one lap, so a card that keeps writing cannot hold the
    /// caller here.
    pub fn drain<C: Card>(&mut self, b: usize, card: &C) {
        let Some(Some(buf)) = self.bufs.get_mut(b) else {
            return;
        };
        let mem = card.dma(&buf.region);
        for _ in 0..buf.records {
            let slot = (buf.next_count.wrapping_sub(1) % buf.records) as usize;
            let at = slot * notif::BYTES;
            // COUNT first, with acquire ordering: the card writes a record in
            // one DMA write, so once COUNT is the one expected, the record's
            // other words (read after it) are this record's, and so are the
            // frames its TAIL announces (read later still).
            let Some(rec) = mem.load_record_acquire::<RECORD_WORDS>(at, COUNT_AT / 4) else {
                return;
            };
            if rec[COUNT_AT / 4] != buf.next_count {
                return;
            }
            let field = |f: usize| rec[f / 4];
            buf.next_count = buf.next_count.wrapping_add(1);
            self.read += 1;
            // The PIPE field comes from the device: a record for a pipe that
            // does not exist, or that reports into another buffer, means the
            // buffer is corrupt. Count it and go on.
            let pipe = field(PIPE_AT) as usize;
            match self.newest.get_mut(pipe) {
                Some(n) if pipe % self.cap == b => {
                    *n = Newest {
                        seq: field(SEQ_AT),
                        tail: field(TAIL_AT),
                    }
                }
                _ => self.ignored += 1,
            }
        }
    }

    /// Drains every buffer switched on.
    pub fn drain_all<C: Card>(&mut self, card: &C) {
        for i in 0..self.in_use.len() {
            self.drain(self.in_use[i], card);
        }
    }

    pub fn newest(&self, pipe: usize) -> Newest {
        self.newest.get(pipe).copied().unwrap_or_default()
    }

    /// Forgets what was read for `pipe` (it is being reopened: its next
    /// record has sequence 1 again).
    pub fn forget(&mut self, pipe: usize) {
        if let Some(n) = self.newest.get_mut(pipe) {
            *n = Newest::default();
        }
    }

    /// The NBUF_HEAD value to write for buffer `b` now, if one is due: when
    /// the records read since the last write reach half the buffer. So after
    /// any call that writes it, the NIC sees the buffer less than half full
    /// of records software has read.
    pub fn head_due(&self, b: usize) -> Option<u32> {
        let buf = self.bufs.get(b)?.as_ref()?;
        (buf.unreported() >= buf.records / 2).then(|| buf.next_count.wrapping_sub(1))
    }

    /// Records that NBUF_HEAD of buffer `b` now holds `head`.
    pub fn head_written(&mut self, b: usize, head: u32) {
        if let Some(Some(buf)) = self.bufs.get_mut(b) {
            buf.head_reported = head;
        }
    }

    /// The buffers switched on.
    pub fn in_use(&self) -> &[usize] {
        &self.in_use
    }

    /// Records ignored because their PIPE does not belong in their buffer.
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    /// Records read from all buffers since the driver opened the card.
    pub fn records_read(&self) -> u64 {
        self.read
    }
}
