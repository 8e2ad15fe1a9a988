use crate::dropped::DropGuard;
use crate::{Card, Device, DmaRegion, Error, Result};
use pendulum_layout::frame::{frame_len_from_header, slots_for};
use pendulum_layout::{pipe, pipe_page, BEAT_BYTES};

/// A receive pipe: a data ring the card fills with frames back to back. The
/// card announces the ring's new tail in a notification buffer it shares
/// with other pipes (index mod [`Device::notif_bufs`]); the [`Device`] reads
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
    slots: u32,
    /// `slots - 1`: ring sizes are powers of two ([`Device`] checks them),
    /// so positions wrap with a mask. A division per frame (`% slots`) was
    /// most of the cost of walking a batch (the `driver` bench).
    mask: u32,
    /// Software's position: slots before it are free for the card.
    head: u32,
    /// The newest tail the card has announced.
    tail: u32,
    last_seq: u32,
    /// Closes the pipe when it is dropped without [`Device::close_rx_pipe`].
    guard: DropGuard,
}

impl RxPipe {
    pub(crate) fn new(index: usize, ring: DmaRegion, buf: usize, guard: DropGuard) -> Self {
        let slots = (ring.len / BEAT_BYTES) as u32;
        debug_assert!(slots.is_power_of_two(), "ring sizes are powers of two");
        Self {
            index,
            ring,
            buf,
            slots,
            mask: slots - 1,
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

    /// Software's position in the ring (slot).
    pub fn head(&self) -> u32 {
        self.head
    }

    /// The newest tail the card has announced (slot): frames end before it.
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// Ring size in 64-byte slots.
    pub fn ring_slots(&self) -> u32 {
        self.slots
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

    /// The frames between software's head and the announced tail.
    fn batch<'d, C: Card>(&self, dev: &'d Device<C>) -> RxBatch<'d> {
        RxBatch {
            bytes: self.announced(dev, self.head, self.tail),
            pipe: self.index,
            start: self.head,
            end: self.tail,
            mask: self.mask,
        }
    }

    /// The ring's bytes from slot `from` up to slot `to`, both between the
    /// head and the announced tail, as one slice (the ring is mapped twice,
    /// so a span that wraps is still contiguous); empty when the card's view
    /// of the ring is too short, which the callers then report as a
    /// corrupt ring.
    #[allow(unsafe_code)]
    fn announced<'d, C: Card>(&self, dev: &'d Device<C>, from: u32, to: u32) -> &'d [u8] {
        debug_assert!(
            (from.wrapping_sub(self.head) & self.mask)
                <= (self.tail.wrapping_sub(self.head) & self.mask)
                && (to.wrapping_sub(from) & self.mask)
                    <= (self.tail.wrapping_sub(from) & self.mask),
            "a span inside what is announced"
        );
        let off = (from & self.mask) as usize * BEAT_BYTES;
        let len = (to.wrapping_sub(from) & self.mask) as usize * BEAT_BYTES;
        // SAFETY: the slots from the head to `self.tail` were announced by a
        // notification record read with acquire ordering (`NotifBufs::drain`,
        // before `self.tail` took its value), so the card wrote them before
        // and every read of the slice comes after. The card writes none of
        // them again until software frees them (`RxPipe::free`, which needs
        // `&mut Device`), and the driver never writes an RX ring (a TX pipe
        // over it only posts what is there; `dma_mut` needs `&mut Device`
        // too): the slice borrows `dev`, so none of that can happen while it
        // lives. Both copies of a mirrored ring are the same memory, so the
        // span may pass the end of the first copy.
        unsafe { dev.card().dma(&self.ring).announced(off..off + len) }.unwrap_or(&[])
    }

    /// For pipes carrying fixed 64-byte slots: decodes every slot waiting
    /// with `decode` (an `Err` names what is wrong with a slot: the ring is
    /// then reported corrupt at it), then frees them.
    pub fn take_slots<C: Card, T>(
        &mut self,
        dev: &mut Device<C>,
        mut decode: impl FnMut(&[u8]) -> std::result::Result<T, String>,
    ) -> Result<Vec<T>> {
        self.take_records(dev, |rest| {
            decode(&rest[..BEAT_BYTES]).map(|item| (item, 1))
        })
    }

    /// For pipes carrying records of one or more whole 64-byte slots (the
    /// card writes each record as one frame, so it is announced whole):
    /// `decode` gets the bytes from a record's first slot to the end of what
    /// is waiting and returns the record and how many slots it took. Every
    /// record waiting is decoded, then their slots are freed.
    ///
    /// Nothing waiting counts as an idle poll: a loop on this learns of a
    /// reset of the card within [`crate::POLLS_PER_RESET_CHECK`] calls. A
    /// record that does not decode is a corrupt ring, unless the card was
    /// reset: then [`Error::CardReset`].
    pub fn take_records<C: Card, T>(
        &mut self,
        dev: &mut Device<C>,
        decode: impl FnMut(&[u8]) -> std::result::Result<(T, u32), String>,
    ) -> Result<Vec<T>> {
        dev.not_reset()?;
        let (decoded, end) = {
            let batch = self.recv(dev);
            (self.decode_records(&batch, decode), batch.end_slot())
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

    /// Every record of `batch`, or the ring is corrupt where one fails.
    fn decode_records<T>(
        &self,
        batch: &RxBatch<'_>,
        mut decode: impl FnMut(&[u8]) -> std::result::Result<(T, u32), String>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(batch.slots() as usize);
        let mut k = 0;
        while k < batch.slots() {
            let rest = batch.raw_from(k);
            let corrupt = |what| Error::CorruptRing {
                pipe: self.index,
                slot: (self.head + k) & self.mask,
                what,
            };
            let (item, used) = decode(rest).map_err(corrupt)?;
            if used == 0 || used > batch.slots() - k {
                return Err(corrupt(format!(
                    "a record of {used} slots where {} are waiting",
                    batch.slots() - k
                )));
            }
            out.push(item);
            k += used;
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

    /// Hands slots up to `to` back to the card (the `end_slot` of a batch, or
    /// any frame boundary before it). This also re-arms the pipe's
    /// notification, and reports the notifications read when due (see
    /// [`Device::poll_notifications`]).
    ///
    /// `to` outside the slots held is [`Error::BadFree`]; a slot inside a
    /// frame is [`Error::FreeInsideFrame`]. Either way nothing changes. The
    /// announced tail (a batch's `end_slot`) is taken as it is; any other
    /// slot is checked by walking the frames' headers from the head, as
    /// [`RxBatch::iter`] does (a header that gives no length there is
    /// [`Error::CorruptRing`]).
    pub fn free<C: Card>(&mut self, dev: &mut Device<C>, to: u32) -> Result<()> {
        let held = self.tail.wrapping_sub(self.head) & self.mask;
        let step = to.wrapping_sub(self.head) & self.mask;
        if to >= self.slots || step > held {
            return Err(Error::BadFree {
                pipe: self.index,
                to,
                head: self.head,
                tail: self.tail,
            });
        }
        if to != self.tail {
            self.check_frame_end(dev, to).map_err(|e| match e {
                Error::CorruptRing { .. } => dev.blame_reset(e),
                e => e,
            })?;
        }
        dev.write(pipe_page(self.index) + pipe::HEAD.offset, to)?;
        self.head = to;
        dev.service_notif_buf(self.buf)
    }

    /// Ok when a frame ends at `to` (between the head and the tail): walks
    /// the frames from the head.
    fn check_frame_end<C: Card>(&self, dev: &Device<C>, to: u32) -> Result<()> {
        let held = self.announced(dev, self.head, self.tail);
        let held_slots = self.tail.wrapping_sub(self.head) & self.mask;
        let steps = to.wrapping_sub(self.head) & self.mask;
        // Slots from the head: the walk needs no wrapping (see `announced`).
        let mut at = 0;
        while at != steps {
            let slot = |at: u32| (self.head + at) & self.mask;
            let frame_slots = frame_slots_at(held, at, held_slots - at)
                .ok_or_else(|| corrupt_at(self.index, slot(at), held_slots - at))?;
            if steps - at < frame_slots {
                return Err(Error::FreeInsideFrame {
                    pipe: self.index,
                    to,
                    frame_start: slot(at),
                    frame_end: slot(at + frame_slots),
                });
            }
            at += frame_slots;
        }
        Ok(())
    }
}

/// The length of the frame at slot `at` of `held` (announced slots, from
/// the head on), from its header, unless that does not give a frame of 1 to
/// `left` slots (what is announced from there on).
#[inline]
fn frame_len_at(held: &[u8], at: u32, left: u32) -> Option<u32> {
    let off = at as usize * BEAT_BYTES;
    held.get(off..off + BEAT_BYTES)
        .and_then(frame_len_from_header)
        .filter(|len| (1..=left).contains(&slots_for(*len)))
}

/// Slots of the frame at slot `at` of `held` (see [`frame_len_at`]).
#[inline]
fn frame_slots_at(held: &[u8], at: u32, left: u32) -> Option<u32> {
    frame_len_at(held, at, left).map(slots_for)
}

/// The ring of `pipe` is corrupt at `slot`: no frame length there fits.
#[cold]
fn corrupt_at(pipe: usize, slot: u32, left: u32) -> Error {
    Error::CorruptRing {
        pipe,
        slot,
        what: format!("no frame length that fits the {left} slots announced"),
    }
}

/// Frames between a pipe's head and its announced tail, borrowed from the
/// ring without copying.
///
/// Handing out plain slices of a ring the card writes is sound because of
/// the order of reads: the batch is made from a tail that a notification
/// record announced, read with acquire ordering before the batch exists
/// ([`crate::DmaView::load_u32_acquire`]), so every byte read through the
/// batch was written by the card before; and the card writes those slots
/// again only once they are freed, which [`RxPipe::free`] does through
/// `&mut Device`, impossible while the batch borrows the device. The slice
/// covers only the announced slots, never the rest of the ring, which the
/// card may be writing meanwhile.
pub struct RxBatch<'d> {
    /// The announced slots, from `start` on (contiguous: the ring is mapped
    /// twice).
    bytes: &'d [u8],
    pipe: usize,
    start: u32,
    end: u32,
    /// The ring's slots minus 1 (see [`RxPipe`]).
    mask: u32,
}

impl<'d> RxBatch<'d> {
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The slot after the batch: pass it to [`RxPipe::free`].
    pub fn end_slot(&self) -> u32 {
        self.end
    }

    /// Slots the batch occupies.
    pub fn slots(&self) -> u32 {
        self.end.wrapping_sub(self.start) & self.mask
    }

    /// The bytes from slot `k` of the batch to its end, in one slice (the
    /// ring is mapped twice, so a span that wraps is still contiguous).
    pub fn raw_from(&self, k: u32) -> &'d [u8] {
        self.bytes.get(k as usize * BEAT_BYTES..).unwrap_or(&[])
    }

    /// The batch's 64-byte slots in ring order, unparsed (for pipes that
    /// carry fixed-size messages, such as the ACP link's).
    pub fn raw_slots(&self) -> impl Iterator<Item = &'d [u8]> + '_ {
        self.bytes.chunks_exact(BEAT_BYTES)
    }

    /// The frames in ring order. A frame whose header does not give a length
    /// that fits the batch is reported as a corrupt ring, not skipped.
    pub fn iter(&self) -> impl Iterator<Item = Result<&'d [u8]>> + '_ {
        // Slots from the batch's start: the bytes are contiguous, so the walk
        // needs no wrapping.
        let slots = self.slots();
        let mut at = 0;
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed || at == slots {
                return None;
            }
            let off = at as usize * BEAT_BYTES;
            let Some(len) = frame_len_at(self.bytes, at, slots - at) else {
                failed = true;
                let slot = (self.start + at) & self.mask;
                return Some(Err(corrupt_at(self.pipe, slot, slots - at)));
            };
            at += slots_for(len);
            Some(Ok(&self.bytes[off..off + len as usize]))
        })
    }
}
