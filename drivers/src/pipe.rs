//! Receive pipes: the card writes ring entries (format v2) back to back and
//! announces its tail; software walks them and hands units back.

mod batch;

pub use batch::{RxBatch, RxFrame, RxFrames};

use crate::dropped::DropGuard;
use crate::{Card, Device, DmaRegion, DmaView, Error, Result};
use pendulum_layout::ring::UNIT_BYTES;
use pendulum_layout::{pipe, pipe_page};

/// A receive pipe: a data ring the card fills with entries back to back,
/// each a 16-byte header and a frame padded to 16-byte units
/// (`pendulum_layout::ring`); positions count those units. The card
/// announces the ring's new tail in a notification buffer it shares with
/// other pipes (index mod [`Device::notif_bufs`]); the [`Device`] reads
/// those buffers and keeps each pipe's newest record.
///
/// Close it with [`Device::close_rx_pipe`]; a pipe dropped instead is
/// closed (disabled on the card) by the Device's next call.
#[derive(Debug)]
pub struct RxPipe {
    index: usize,
    ring: DmaRegion,
    /// The notification buffer this pipe reports into.
    buf: usize,
    units: u32,
    /// `units - 1`: ring sizes are powers of two ([`Device`] checks them),
    /// so positions wrap with a mask. A division per frame (`% units`) was
    /// most of the cost of walking a batch (the `driver` bench).
    mask: u32,
    /// Software's position (unit): units before it are free for the card.
    head: u32,
    /// The newest tail the card has announced (unit).
    tail: u32,
    last_seq: u32,
    /// Closes the pipe when it is dropped without [`Device::close_rx_pipe`].
    guard: DropGuard,
}

impl RxPipe {
    pub(crate) fn new(index: usize, ring: DmaRegion, buf: usize, guard: DropGuard) -> Self {
        let units = (ring.len / UNIT_BYTES) as u32;
        debug_assert!(units.is_power_of_two(), "ring sizes are powers of two");
        Self {
            index,
            ring,
            buf,
            units,
            mask: units - 1,
            head: 0,
            tail: 0,
            last_seq: 0,
            guard,
        }
    }

    /// The pipe is closed: dropping it does nothing more.
    pub(crate) fn disarm(&mut self) {
        self.guard.disarm();
    }

    /// The data ring's DMA region (a TX pipe may send straight out of it:
    /// [`Device::open_tx_pipe_over`]).
    pub fn ring_region(&self) -> &DmaRegion {
        &self.ring
    }

    pub fn index(&self) -> usize {
        self.index
    }

    /// Software's position in the ring (16-byte unit).
    pub fn head(&self) -> u32 {
        self.head
    }

    /// The newest tail the card has announced (16-byte unit): entries end
    /// before it.
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// Ring size in 16-byte units.
    pub fn ring_units(&self) -> u32 {
        self.units
    }

    /// Reads the pipe's notification buffer, then [`RxPipe::has_data_drained`].
    fn poll<C: Card>(&mut self, dev: &Device<C>) -> bool {
        dev.drain_notif_buf(self.buf);
        self.has_data_drained(dev)
    }

    /// Takes the newest record the device has read for this pipe (its tail
    /// only when the sequence number moved, so a record seen before is not
    /// mistaken for progress); true when frames wait.
    pub(crate) fn has_data_drained<C: Card>(&mut self, dev: &Device<C>) -> bool {
        let newest = dev.newest_notif(self.index);
        if newest.seq != self.last_seq {
            self.last_seq = newest.seq;
            self.tail = newest.tail & self.mask;
        }
        self.tail != self.head
    }

    /// Steers the flow `key` to this pipe (see [`Device::bind_flow`]).
    pub fn bind<C: Card>(&self, dev: &mut Device<C>, key: crate::FlowKey) -> Result<()> {
        dev.bind_flow(key, self.index)
    }

    /// Whether frames wait in this pipe (reads its notification buffer only;
    /// the ring is not touched). It reads no register, so it cannot see a
    /// reset of the card: call [`Device::relax`] when it finds nothing.
    pub fn has_data<C: Card>(&mut self, dev: &Device<C>) -> bool {
        self.poll(dev)
    }

    /// The frames received and not yet freed, without copying (non-blocking;
    /// empty when nothing is new). It reads no register, so it cannot see a
    /// reset of the card: a loop on it calls [`Device::relax`] when the
    /// batch is empty, or uses [`RxPipe::recv_checked`].
    pub fn recv<'d, C: Card>(&mut self, dev: &'d Device<C>) -> RxBatch<'d> {
        self.poll(dev);
        self.batch(dev)
    }

    /// [`RxPipe::recv`] that can fail: [`Error::CardReset`] once the card is
    /// known to have been reset, and an empty batch counts as an idle poll,
    /// so a loop on this learns of a reset within
    /// [`crate::POLLS_PER_RESET_CHECK`] polls. A batch with frames costs no
    /// register access. The batch keeps `dev` borrowed; [`RxPipe::recv`]
    /// lets batches of several pipes be held at once.
    pub fn recv_checked<'d, C: Card>(&mut self, dev: &'d mut Device<C>) -> Result<RxBatch<'d>> {
        dev.not_reset()?;
        if !self.poll(dev) {
            dev.idle_poll()?;
        }
        Ok(self.batch(dev))
    }

    /// The entries between software's head and the announced tail.
    fn batch<'d, C: Card>(&self, dev: &'d Device<C>) -> RxBatch<'d> {
        let off = self.head as usize * UNIT_BYTES;
        let len = (self.tail.wrapping_sub(self.head) & self.mask) as usize * UNIT_BYTES;
        // The announced units only (contiguous: the ring is mapped twice); a
        // mapping too short for them gives an empty view, which the walk
        // reports as a corrupt ring.
        let span = dev
            .card()
            .dma(&self.ring)
            .subview(off..off + len)
            .unwrap_or(DmaView::from_slice(&[]));
        RxBatch::new(span, self.index, self.head, self.tail, self.mask)
    }

    /// For pipes carrying one 64-byte slot per entry (the ACP link's
    /// messages): decodes every slot waiting with `decode` (an `Err` names
    /// what is wrong with a slot: the ring is then reported corrupt at its
    /// entry, as is an entry of another length), then frees them. Otherwise
    /// as [`RxPipe::take_records`].
    pub fn take_slots<C: Card, T>(
        &mut self,
        dev: &mut Device<C>,
        mut decode: impl FnMut(&[u8]) -> std::result::Result<T, String>,
    ) -> Result<Vec<T>> {
        self.take_records(dev, |entry| {
            if entry.len() != SLOT_BYTES {
                return Err(format!(
                    "an entry of {} bytes where a {SLOT_BYTES}-byte slot was expected",
                    entry.len()
                ));
            }
            decode(entry)
        })
    }

    /// For pipes carrying one record per ring entry (the card writes each
    /// record as one entry, so it is announced whole: the atomic unit's
    /// results, 64 bytes or a commit's 128): `decode` gets each entry's
    /// bytes and returns its record. Every record waiting is decoded, then
    /// their entries are freed.
    ///
    /// Nothing waiting counts as an idle poll: a loop on this learns of a
    /// reset of the card within [`crate::POLLS_PER_RESET_CHECK`] calls. An
    /// entry that does not decode is a corrupt ring, unless the card was
    /// reset: then [`Error::CardReset`].
    pub fn take_records<C: Card, T>(
        &mut self,
        dev: &mut Device<C>,
        mut decode: impl FnMut(&[u8]) -> std::result::Result<T, String>,
    ) -> Result<Vec<T>> {
        dev.not_reset()?;
        let (decoded, end) = {
            let batch = self.recv(dev);
            let pipe = self.index;
            let decoded: Result<Vec<T>> = batch
                .iter()
                .map(|f| {
                    let f = f?;
                    decode(f.bytes).map_err(|what| Error::CorruptRing {
                        pipe,
                        unit: f.unit,
                        what,
                    })
                })
                .collect();
            (decoded, batch.end_unit())
        };
        let out = decoded.map_err(|e| dev.blame_reset(e))?;
        if out.is_empty() {
            // Nothing to free (which would report the notifications read).
            dev.service_notif_buf(self.buf)?;
            dev.idle_poll()?;
        } else {
            self.free(dev, end)?;
        }
        Ok(out)
    }

    /// Polls until frames are waiting, at most `max_polls` times (relaxing the
    /// card between polls). Returns whether frames are waiting. Each poll
    /// also reports the notifications read (NBUF_HEAD) when due, so a card
    /// held back by a full notification buffer goes on.
    ///
    /// A reset of the card (or a card that stops answering) ends the wait
    /// early, within [`crate::POLLS_PER_RESET_CHECK`] polls, with false; the
    /// next call that returns a `Result` says why ([`Error::CardReset`]
    /// sticks), as does [`Device::check_card`].
    pub fn wait<C: Card>(&mut self, dev: &mut Device<C>, max_polls: u64) -> bool {
        for _ in 0..max_polls {
            if self.poll_and_report(dev) {
                return true;
            }
            if dev.relax().is_err() {
                return false;
            }
        }
        self.poll_and_report(dev)
    }

    fn poll_and_report<C: Card>(&mut self, dev: &mut Device<C>) -> bool {
        let waiting = self.poll(dev);
        // `wait` reports no errors: a card that stopped answering fails the
        // next `free`, which writes a register too.
        let _ = dev.report_notif_reads(self.buf);
        waiting
    }

    /// Notification prefetch: asks the card for this pipe's next notification
    /// now (NOTIF_PREFETCH), without freeing anything, so frames that arrive
    /// while the application still works on its batch are announced at once
    /// instead of after [`RxPipe::free`] re-arms the notification. Call it
    /// when a batch is taken, before working on it.
    /// (A posted write: the card cannot refuse it, so nothing waits for it.)
    pub fn prefetch<C: Card>(&mut self, dev: &mut Device<C>) -> Result<()> {
        dev.write(pipe_page(self.index) + pipe::NOTIF_PREFETCH.offset, 1)?;
        dev.service_notif_buf(self.buf)
    }

    /// Hands units up to `to` back to the card (the `end_unit` of a batch,
    /// or of any frame in it). This also re-arms the pipe's notification,
    /// and reports the notifications read when due (see
    /// [`Device::poll_notifications`]).
    ///
    /// `to` outside the units held is [`Error::BadFree`]; a unit inside an
    /// entry is [`Error::FreeInsideFrame`]. Either way nothing changes. The
    /// announced tail (a batch's `end_unit`) is taken as it is; any other
    /// unit is checked by walking the entries' headers from the head, as
    /// [`RxBatch::iter`] does (an entry the card could not have written is
    /// [`Error::CorruptRing`] there).
    pub fn free<C: Card>(&mut self, dev: &mut Device<C>, to: u32) -> Result<()> {
        let held = self.tail.wrapping_sub(self.head) & self.mask;
        let step = to.wrapping_sub(self.head) & self.mask;
        if to >= self.units || step > held {
            return Err(Error::BadFree {
                pipe: self.index,
                to,
                head: self.head,
                tail: self.tail,
            });
        }
        if to != self.tail {
            self.check_entry_end(dev, to).map_err(|e| match e {
                Error::CorruptRing { .. } => dev.blame_reset(e),
                e => e,
            })?;
        }
        dev.write(pipe_page(self.index) + pipe::HEAD.offset, to)?;
        self.head = to;
        dev.service_notif_buf(self.buf)
    }

    /// Ok when an entry ends at `to` (between the head and the tail, not the
    /// tail): walks the entries from the head.
    fn check_entry_end<C: Card>(&self, dev: &Device<C>, to: u32) -> Result<()> {
        let steps = to.wrapping_sub(self.head) & self.mask;
        if steps == 0 {
            return Ok(());
        }
        for frame in self.batch(dev).iter() {
            let frame = frame?;
            let end = frame.end_unit.wrapping_sub(self.head) & self.mask;
            if end == steps {
                return Ok(());
            }
            if end > steps {
                return Err(Error::FreeInsideFrame {
                    pipe: self.index,
                    to,
                    frame_start: frame.unit,
                    frame_end: frame.end_unit,
                });
            }
        }
        // Not reached: the entries cover every unit up to the tail, and `to`
        // is before it, so the walk returned above (or failed). No panic on
        // what the card wrote, though.
        Err(Error::CorruptRing {
            pipe: self.index,
            unit: to,
            what: "no entry ends at or after it before the tail".into(),
        })
    }
}

/// Bytes of a message slot: an ACP message, an atomic verb or result.
const SLOT_BYTES: usize = pendulum_layout::atomic::SLOT_BYTES;
const _: () = assert!(SLOT_BYTES == pendulum_layout::acp::RECORD_BYTES);
