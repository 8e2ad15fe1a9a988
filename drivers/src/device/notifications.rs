//! Notification buffers: switching them on, reading them, telling the card
//! how far the driver read (NBUF_HEAD), and finding pipes with frames.

use super::Device;
use crate::notif::Newest;
use crate::pipe::RxPipe;
use crate::{Card, Error, RegionKind, Result};
use pendulum_layout::{global, pipe, pipe_page};

impl<C: Card> Device<C> {
    /// The next of `pipes` with frames waiting, looking round-robin from
    /// position `after + 1` (pass the last one served, so no pipe starves),
    /// or `None` when all are empty. Reads each notification buffer in use
    /// once, then only the driver's per-pipe state: the cost per pipe does
    /// not touch host memory. It reads no register, so it cannot see a reset
    /// of the card: call [`Device::relax`] when it finds nothing.
    pub fn next_pipe_with_data(&self, pipes: &mut [RxPipe], after: usize) -> Option<usize> {
        self.notif.borrow_mut().drain_all(&self.card);
        let n = pipes.len();
        (1..=n)
            .map(|k| (after + k) % n)
            .find(|&i| pipes[i].has_data_drained(self))
    }

    /// Notify after every frame (the per-packet baseline) instead of reactively.
    pub fn set_per_packet_notifications(&mut self, on: bool) -> Result<()> {
        let v = if on { global::CTRL_PER_PACKET_NOTIF } else { 0 };
        self.write_checked(global::CTRL.offset, v)
    }

    /// Number of notification buffers the card has (CAP_NOTIF_BUFS): RX pipe
    /// p reports into buffer p mod this.
    pub fn notif_bufs(&self) -> usize {
        self.notif.borrow().cap()
    }

    /// Size of the notification buffers switched on from now on (a power of
    /// two from 4 KiB to 2 MiB; 4 KiB, 256 records, by default). A buffer is
    /// switched on when the first pipe that reports into it is opened, and
    /// keeps its size. Larger buffers let the card run further ahead of a
    /// host that reads seldom, as with per-packet notifications.
    pub fn set_notif_buf_bytes(&mut self, bytes: u32) -> Result<()> {
        use pendulum_layout::params::{RING_MAX_BYTES, RING_MIN_BYTES};
        if !bytes.is_power_of_two() || !(RING_MIN_BYTES..=RING_MAX_BYTES).contains(&bytes) {
            return Err(Error::BadNotifBufSize {
                bytes,
                min: RING_MIN_BYTES,
                max: RING_MAX_BYTES,
            });
        }
        self.notif_buf_bytes = bytes;
        Ok(())
    }

    /// Notification records the driver ignored because their pipe does not
    /// report into the buffer they were found in (a corrupt buffer; 0 on a
    /// sound card).
    pub fn notif_records_ignored(&self) -> u64 {
        self.notif.borrow().ignored()
    }

    /// Reads every notification buffer in use and tells the card how far it
    /// got (NBUF_HEAD) where that is due.
    ///
    /// NBUF_HEAD is a register write, and register writes are what limits
    /// the frame rate, so the driver writes it lazily: only when the records
    /// read since the last write reach half the buffer, and only from calls
    /// that hold `&mut Device` anyway ([`RxPipe::free`],
    /// [`RxPipe::prefetch`], [`RxPipe::wait`], [`RxPipe::take_records`] and
    /// [`RxPipe::take_slots`], [`Device::open_rx_pipe`] and this one). After
    /// each of those calls the card sees the buffer less than half full of
    /// records software has read.
    ///
    /// That is enough never to deadlock. With reactive notifications (the
    /// default) a pipe has at most one record outstanding until software
    /// re-arms it, and it re-arms it only through `free` or `prefetch`,
    /// which read the buffer and report as well. So after the last such call
    /// the card can have written at most one record per pipe sharing the
    /// buffer (CAP_PIPES / CAP_NOTIF_BUFS of them: 16 on the 1,024-pipe
    /// build) on top of fewer than half a buffer already read (128 of 256
    /// records by default): it never runs out of room. And were a buffer
    /// ever full (per-packet notifications, or a card with more pipes per
    /// buffer), the card only holds records back
    /// (each pipe's newest tail goes out once there is room), while every
    /// record it did write is in memory: the next read finds the whole
    /// buffer read, so the next of these calls reports it. A loop that polls
    /// only with `&Device` ([`RxPipe::has_data`], [`RxPipe::recv`],
    /// [`Device::next_pipe_with_data`]) reaches one as soon as it frees what
    /// it was told about, or when it calls this.
    ///
    /// A call that finds no new record counts as an idle poll (see
    /// [`POLLS_PER_RESET_CHECK`](super::POLLS_PER_RESET_CHECK)).
    pub fn poll_notifications(&mut self) -> Result<()> {
        self.not_reset()?;
        let before = self.notif.get_mut().records_read();
        self.notif.get_mut().drain_all(&self.card);
        if self.notif.get_mut().records_read() == before {
            self.idle_poll()?;
        }
        for i in 0..self.notif.get_mut().in_use().len() {
            let b = self.notif.get_mut().in_use()[i];
            self.report_notif_reads(b)?;
        }
        Ok(())
    }

    /// Reads notification buffer `b`'s new records (see [`RxPipe::poll`]).
    pub(crate) fn drain_notif_buf(&self, b: usize) {
        self.notif.borrow_mut().drain(b, &self.card);
    }

    /// The newest notification read for `pipe`.
    pub(crate) fn newest_notif(&self, pipe: usize) -> Newest {
        self.notif.borrow().newest(pipe)
    }

    /// Writes buffer `b`'s NBUF_HEAD if it is due (see
    /// [`Device::poll_notifications`]). A posted write: the card accepts any
    /// value, so nothing waits for it.
    pub(crate) fn report_notif_reads(&mut self, b: usize) -> Result<()> {
        let Some(head) = self.notif.get_mut().head_due(b) else {
            return Ok(());
        };
        self.write(pipe_page(b) + pipe::NBUF_HEAD.offset, head)?;
        self.notif.get_mut().head_written(b, head);
        Ok(())
    }

    /// Reads buffer `b` and writes its NBUF_HEAD if due.
    pub(crate) fn service_notif_buf(&mut self, b: usize) -> Result<()> {
        self.notif.get_mut().drain(b, &self.card);
        self.report_notif_reads(b)
    }

    /// Switches on notification buffer `b` with fresh memory, unless this
    /// driver did already.
    pub(super) fn switch_on_notif_buf(&mut self, b: usize) -> Result<()> {
        if self.notif.get_mut().is_on(b) {
            return Ok(());
        }
        let bytes = self.notif_buf_bytes;
        // Zeroed: COUNT 0 is never a record the driver waits for.
        let region = self
            .card
            .alloc_dma(bytes as usize, RegionKind::Notification, false)?;
        let page = pipe_page(b);
        // Off first: base and size are refused while it is on, and a previous
        // owner of the card may have left it on. Switching on starts the
        // card's record count and NBUF_HEAD at 0.
        self.write_checked_all(&[
            (page + pipe::NBUF_CTRL.offset, 0),
            (page + pipe::NBUF_BASE_LO.offset, region.iova as u32),
            (page + pipe::NBUF_BASE_HI.offset, (region.iova >> 32) as u32),
            (page + pipe::NBUF_BYTES.offset, bytes),
            (page + pipe::NBUF_CTRL.offset, pipe::NBUF_CTRL_ON),
        ])?;
        self.notif.get_mut().switched_on(b, region);
        Ok(())
    }
}
