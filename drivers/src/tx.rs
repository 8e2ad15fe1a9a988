//! Transmit pipes: software appends frames to a data ring and rings a
//! doorbell; the card reads them by DMA, sends them and reports its new head
//! in a completion record.

use crate::dropped::DropGuard;
use crate::{Card, Device, DmaRegion, Error, Result, RxPipe};
use pendulum_layout::frame::{self, slots_for};
use pendulum_layout::{pipe, pipe_page, tx_compl, BEAT_BYTES};

// `TxPipe::poll` reads a completion record's HEAD and SEQ in one 64-bit load.
const _: () = assert!(
    tx_compl::HEAD.lsb + tx_compl::HEAD.width <= 64
        && tx_compl::SEQ.lsb + tx_compl::SEQ.width <= 64
);

/// A transmit pipe: a data ring where software places frames back to back,
/// each starting on a 64-byte slot (the layout the RX side uses, so a frame
/// needs no descriptor), and a completion record where the card announces how
/// far it has sent.
///
/// Close it with [`Device::close_tx_pipe`]; a pipe dropped instead is
/// closed (disabled on the card) by the Device's next call.
#[derive(Debug)]
pub struct TxPipe {
    index: usize,
    ring: DmaRegion,
    compl: DmaRegion,
    slots: u32,
    /// `slots - 1`: positions wrap with a mask (ring sizes are powers of
    /// two), not a division.
    mask: u32,
    /// Software's position: frames are appended here (slot).
    tail: u32,
    /// The card's position as last reported: slots before it are free (slot).
    head: u32,
    last_seq: u32,
    /// Set when the ring is an RX pipe's ring (that pipe's index): frames are
    /// posted where they were received, never copied in.
    over_rx: Option<usize>,
    /// Closes the pipe when it is dropped without [`Device::close_tx_pipe`].
    guard: DropGuard,
}

impl TxPipe {
    pub(crate) fn new(index: usize, ring: DmaRegion, compl: DmaRegion, guard: DropGuard) -> Self {
        let slots = (ring.len / BEAT_BYTES) as u32;
        debug_assert!(slots.is_power_of_two(), "ring sizes are powers of two");
        Self {
            index,
            ring,
            compl,
            slots,
            mask: slots - 1,
            tail: 0,
            head: 0,
            last_seq: 0,
            over_rx: None,
            guard,
        }
    }

    /// The pipe is closed: dropping it does nothing more.
    pub(crate) fn disarm(&mut self) {
        self.guard.disarm();
    }

    pub(crate) fn new_over_rx(
        index: usize,
        ring: DmaRegion,
        compl: DmaRegion,
        rx: usize,
        guard: DropGuard,
    ) -> Self {
        let mut pipe = Self::new(index, ring, compl, guard);
        pipe.over_rx = Some(rx);
        pipe
    }

    /// Refuses copying into a ring that belongs to an RX pipe.
    fn check_own_ring(&self) -> Result<()> {
        match self.over_rx {
            Some(rx) => Err(Error::TxOverRx {
                pipe: self.index,
                rx,
            }),
            None => Ok(()),
        }
    }

    /// Zero copy: sends the frames `rx` received from this pipe's tail up to
    /// slot `end` (the `end_slot` of an RX batch, or any frame boundary
    /// before it), with one doorbell. For a pipe opened over `rx` with
    /// [`Device::open_tx_pipe_over`]; edit frames in place first if they
    /// should change. Free the RX slots only once this pipe's head has passed
    /// them. `end` beyond what `rx` has announced is [`Error::BadSendThrough`],
    /// another RX pipe [`Error::TxOverRx`]; nothing is posted then.
    pub fn send_through<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        rx: &RxPipe,
        end: u32,
    ) -> Result<()> {
        if self.over_rx != Some(rx.index()) {
            return Err(Error::TxOverRx {
                pipe: self.index,
                rx: rx.index(),
            });
        }
        let step = end.wrapping_sub(self.tail) & self.mask;
        let received = rx.tail().wrapping_sub(self.tail) & self.mask;
        if end >= self.slots || step > received {
            return Err(Error::BadSendThrough {
                pipe: self.index,
                end,
                tail: self.tail,
                rx_tail: rx.tail(),
            });
        }
        if step == 0 {
            return Ok(());
        }
        self.tail = end;
        self.ring_doorbell(dev)
    }

    /// The pipe's index (its register page).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Ring size in 64-byte slots.
    pub fn ring_slots(&self) -> u32 {
        self.slots
    }

    /// Software's tail (slot): the doorbell value after the last send.
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// The card's TX head (slot) as last read from the completion record.
    pub fn head(&self) -> u32 {
        self.head
    }

    /// Reads the completion record; takes its head only when the sequence
    /// number moved, so a record not yet written (sequence 0) or rewritten
    /// with the same head is not mistaken for progress.
    ///
    /// HEAD and SEQ are read together in one 64-bit load with acquire
    /// ordering, so they belong to one record even when the card writes the
    /// next one meanwhile.
    fn poll<C: Card>(&mut self, dev: &Device<C>) {
        let Some(rec) = dev.card().dma(&self.compl).load_u64_acquire(0) else {
            return;
        };
        let rec = rec.to_le_bytes();
        let seq = tx_compl::SEQ.read(&rec) as u32;
        if seq != self.last_seq {
            self.last_seq = seq;
            self.head = tx_compl::HEAD.read(&rec) as u32 & self.mask;
        }
    }

    /// Slots not yet handed back by the card.
    fn used_slots(&self) -> u32 {
        self.tail.wrapping_sub(self.head) & self.mask
    }

    /// Slots available to `send` without polling: one slot stays empty so a
    /// full ring is not mistaken for an empty one (the card refuses a tail
    /// that reaches its head).
    fn free_now(&self) -> u32 {
        self.slots - 1 - self.used_slots()
    }

    /// Slots free for new frames: the ring minus what the NIC has not
    /// finished, minus one slot kept empty. Refreshes the NIC's head from
    /// the completion record first.
    pub fn free_slots<C: Card>(&mut self, dev: &Device<C>) -> u32 {
        self.poll(dev);
        self.free_now()
    }

    /// Largest frame this pipe can ever hold: the card's limit, or the ring
    /// minus its empty slot when that is smaller.
    fn max_frame_bytes<C: Card>(&self, dev: &Device<C>) -> u32 {
        dev.max_frame_bytes()
            .min((self.slots - 1) * BEAT_BYTES as u32)
    }

    /// Copies `bytes` into the ring from slot `self.tail` on, wrapping at the
    /// end of the ring (split copy), and moves the tail past them.
    fn place<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        let ring_bytes = self.slots as usize * BEAT_BYTES;
        let mut ring = dev.card_mut().dma_mut(&self.ring);
        let mapped = ring.len();
        if mapped < ring_bytes {
            return Err(Error::dma(format!(
                "TX ring of pipe {} maps {mapped} bytes, {ring_bytes} expected; the card's DMA memory is broken",
                self.index
            )));
        }
        let off = self.tail as usize * BEAT_BYTES;
        let first = bytes.len().min(ring_bytes - off);
        // Both fit: `off < ring_bytes <= mapped`, and the rest wraps to the
        // start (callers checked that the frame fits the ring).
        ring.copy_from(off, &bytes[..first]);
        ring.copy_from(0, &bytes[first..]);
        self.tail = (self.tail + slots_for(bytes.len() as u32)) & self.mask;
        Ok(())
    }

    /// Posted doorbell: tells the card frames end before `self.tail`. No
    /// readback in the fast path; a refused tail shows up in REG_ERRORS.
    ///
    /// The release fence keeps the frames' writes (plain stores into DMA
    /// memory) before the doorbell, so the card never reads a slot before
    /// software has written it.
    fn ring_doorbell<C: Card>(&self, dev: &mut Device<C>) -> Result<()> {
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        dev.write(pipe_page(self.index) + pipe::TX_TAIL.offset, self.tail)
    }

    /// Appends frames back to back (each starting on a 64-byte slot) and
    /// rings the doorbell once. Returns how many frames were queued: it stops
    /// at the first frame that does not fit (0 if none fit; a full ring is not
    /// an error, retry after completions).
    ///
    /// A frame shorter than 1 byte or longer than the card's largest frame (or
    /// than the ring can ever hold) is [`Error::BadFrame`], and one whose end
    /// the card cannot find from its header (an EtherType other than IPv4,
    /// IPv6 or ARP, or a header length other than the frame's, padding to
    /// the 60-byte minimum aside) is [`Error::UndelimitedFrame`]; then
    /// nothing is queued. (The card finds each frame's end from its header,
    /// so it would drop such a frame and the frames behind it in the same
    /// doorbell; [`TxPipe::send_raw`] still posts any bytes, for tests.)
    ///
    /// A call that queues nothing counts as an idle poll: a loop that waits
    /// for room learns of a reset of the card within
    /// [`crate::POLLS_PER_RESET_CHECK`] calls ([`Error::CardReset`]).
    pub fn send<C: Card>(&mut self, dev: &mut Device<C>, frames: &[&[u8]]) -> Result<usize> {
        self.check_own_ring()?;
        let max = self.max_frame_bytes(dev);
        if let Some(bad) = frames
            .iter()
            .find(|f| f.is_empty() || f.len() > max as usize)
        {
            return Err(Error::BadFrame {
                len: bad.len(),
                max,
            });
        }
        for (index, f) in frames.iter().enumerate() {
            let header_len = frame::frame_len_from_header(f);
            if !header_len.is_some_and(|h| frame::wire_len_matches(h, f.len() as u32)) {
                return Err(Error::UndelimitedFrame {
                    index,
                    len: f.len(),
                    header_len,
                });
            }
        }
        self.poll(dev);
        let mut free = self.free_now();
        let mut queued = 0;
        for frame in frames {
            let need = slots_for(frame.len() as u32);
            if need > free {
                break;
            }
            self.place(dev, frame)?;
            free -= need;
            queued += 1;
        }
        if queued > 0 {
            self.ring_doorbell(dev)?;
        } else {
            dev.idle_poll()?;
        }
        Ok(queued)
    }

    /// Raw form for tests: copies `bytes` into the ring at the tail
    /// (wrapping), advances the tail by `ceil(len / 64)` slots and rings the
    /// doorbell, without looking at the contents. [`Error::TxRingFull`] if
    /// the bytes do not fit now (an idle poll, as for [`TxPipe::send`]);
    /// empty `bytes` do nothing.
    pub fn send_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.check_own_ring()?;
        if bytes.is_empty() {
            return Ok(());
        }
        self.poll(dev);
        let need = u32::try_from(bytes.len()).map_or(u32::MAX, slots_for);
        let free = self.free_now();
        if need > free {
            dev.idle_poll()?;
            return Err(Error::TxRingFull {
                pipe: self.index,
                need_slots: need,
                free_slots: free,
            });
        }
        self.place(dev, bytes)?;
        self.ring_doorbell(dev)
    }

    /// For pipes carrying messages of whole 64-byte slots (ACP messages,
    /// atomic verbs and commits): queues as many of `items` as fit whole,
    /// each made into its slots by `slots`, with one doorbell (so a message
    /// of several slots is never split across doorbells); returns how many
    /// were queued (0 when full: an idle poll, as for [`TxPipe::send`]).
    pub fn send_slots<C: Card, T, S: AsRef<[u8]>>(
        &mut self,
        dev: &mut Device<C>,
        items: &[T],
        slots: impl Fn(&T) -> S,
    ) -> Result<usize> {
        let room = self.free_slots(dev) as usize * BEAT_BYTES;
        let mut bytes = Vec::new();
        let mut n = 0;
        for item in items {
            let s = slots(item);
            let s = s.as_ref();
            debug_assert!(
                !s.is_empty() && s.len() % BEAT_BYTES == 0,
                "messages are whole slots"
            );
            if bytes.len() + s.len() > room {
                break;
            }
            bytes.extend_from_slice(s);
            n += 1;
        }
        if n == 0 {
            dev.idle_poll()?;
        }
        self.send_raw(dev, &bytes)?;
        Ok(n)
    }

    /// True when the card reports every posted slot done (its head, as last
    /// reported, equals the tail). Refreshes the head first.
    pub fn idle<C: Card>(&mut self, dev: &Device<C>) -> bool {
        self.poll(dev);
        self.head == self.tail
    }

    /// Polls until idle, at most `max_polls` times (relaxing the card between
    /// polls). Returns whether the pipe became idle. A reset of the card (or
    /// a card that stops answering) ends the wait early, within
    /// [`crate::POLLS_PER_RESET_CHECK`] polls, with false; the next call that
    /// returns a `Result` says why, as does [`Device::check_card`].
    pub fn wait_idle<C: Card>(&mut self, dev: &mut Device<C>, max_polls: u64) -> bool {
        for _ in 0..max_polls {
            if self.idle(dev) {
                return true;
            }
            if dev.relax().is_err() {
                return false;
            }
        }
        self.idle(dev)
    }
}
