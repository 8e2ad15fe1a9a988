//! Transmit pipes: software appends ring entries (format v2, a 16-byte
//! header and the frame, `pendulum_layout::ring`) and rings a doorbell; the
//! card reads them by DMA, sends them and reports its new head in a
//! completion record, and, for a frame that asks, the cycle it left in a
//! TX stamp.

use std::collections::VecDeque;

use crate::dropped::DropGuard;
use crate::{Card, Device, DmaRegion, DmaViewMut, Error, Result, RxPipe};
use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::ring::{entry_units, tx_flags, UNIT_BYTES};
use pendulum_layout::{pipe, pipe_page, tx_compl, tx_stamp};

mod stamps;
pub use stamps::TxStamp;

// `TxPipe::poll` reads a completion record's HEAD and SEQ in one 64-bit load.
const _: () = assert!(
    tx_compl::HEAD.lsb + tx_compl::HEAD.width <= 64
        && tx_compl::SEQ.lsb + tx_compl::SEQ.width <= 64
);

/// A transmit pipe: a data ring where software places entries back to back,
/// each a 16-byte header stating the frame's length and the frame padded to
/// 16-byte units (the layout the RX side uses; positions count units), and
/// a completion record where the card announces how far it has sent.
///
/// Close it with [`Device::close_tx_pipe`]; a pipe dropped instead is
/// closed (disabled on the card) by the Device's next call.
#[derive(Debug)]
pub struct TxPipe {
    index: usize,
    ring: DmaRegion,
    compl: DmaRegion,
    units: u32,
    /// `units - 1`: positions wrap with a mask (ring sizes are powers of
    /// two), not a division.
    mask: u32,
    /// Software's position: entries are appended here (unit).
    tail: u32,
    /// The card's position as last reported: units before it are free (unit).
    head: u32,
    last_seq: u32,
    /// Set when the ring is an RX pipe's ring (that pipe's index): frames are
    /// posted where they were received, never copied in.
    over_rx: Option<usize>,
    /// The completion area has a stamp slot per ring unit
    /// (`tx_stamp::area_bytes`), as [`Device::open_tx_pipe`] makes it, so
    /// [`TxPipe::send_stamped`] may ask for stamps.
    stamps: bool,
    /// Entries posted asking for a stamp whose stamp has not been taken
    /// yet, oldest first: (first unit, LEN). The card may write a stamp
    /// after its head has passed the entry, so the units from the oldest
    /// of them on are not reused until it is taken.
    pending: VecDeque<(u32, u16)>,
    /// Closes the pipe when it is dropped without [`Device::close_tx_pipe`].
    guard: DropGuard,
}

impl TxPipe {
    pub(crate) fn new(index: usize, ring: DmaRegion, compl: DmaRegion, guard: DropGuard) -> Self {
        let units = (ring.len / UNIT_BYTES) as u32;
        debug_assert!(units.is_power_of_two(), "ring sizes are powers of two");
        let stamps = compl.len >= tx_stamp::area_bytes(ring.len as u32);
        Self {
            index,
            ring,
            compl,
            units,
            mask: units - 1,
            tail: 0,
            head: 0,
            last_seq: 0,
            over_rx: None,
            stamps,
            pending: VecDeque::new(),
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
    /// unit `end` (the `end_unit` of an RX batch or of a frame in it), with
    /// one doorbell: the card's RX entries are TX entries as they are (it
    /// reads only their length and FLAGS' `tx_flags::STAMP`, which RX
    /// entries never have; their other flags, hash and timestamp are
    /// ignored). For a pipe opened over `rx` with
    /// [`Device::open_tx_pipe_over`]; edit frames in place first if they
    /// should change (not their length). Free the RX units only once this
    /// pipe's head has passed them. `end` beyond what `rx` has announced is
    /// [`Error::BadSendThrough`], another RX pipe [`Error::TxOverRx`];
    /// nothing is posted then. (`end` inside an entry is not checked here:
    /// the card would drop that entry as running past the tail.)
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
        if end >= self.units || step > received {
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

    /// Ring size in 16-byte units.
    pub fn ring_units(&self) -> u32 {
        self.units
    }

    /// Software's tail (unit): the doorbell value after the last send.
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// The card's TX head (unit) as last read from the completion record.
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

    /// Units not yet handed back: from the card's head, or from the oldest
    /// entry whose stamp is pending when that is further back from the tail
    /// (the head may have passed it, but its stamp slot may still be
    /// written, and the slot belongs to the unit the entry starts at).
    fn used_units(&self) -> u32 {
        let from_head = self.tail.wrapping_sub(self.head) & self.mask;
        match self.pending.front() {
            Some(&(unit, _)) => from_head.max(self.tail.wrapping_sub(unit) & self.mask),
            None => from_head,
        }
    }

    /// Units available without polling: one unit stays empty so a full ring
    /// is not mistaken for an empty one (the card refuses a tail that
    /// reaches its head).
    fn free_now(&self) -> u32 {
        self.units - 1 - self.used_units()
    }

    /// Units (16 bytes each) free for new entries: the ring minus what the
    /// card has not finished, minus one unit kept empty. Refreshes the
    /// card's head from the completion record first. A frame of `len` bytes
    /// takes `pendulum_layout::ring::entry_units(len)` of them. Units from
    /// the oldest entry whose stamp is pending on are not free, even once
    /// the head has passed them: take the stamps ([`TxPipe::stamps`]) to
    /// free them.
    pub fn free_units<C: Card>(&mut self, dev: &Device<C>) -> u32 {
        self.poll(dev);
        self.free_now()
    }

    /// Largest frame this pipe can ever hold: the card's limit (and the
    /// format's), or what the ring minus its empty unit holds when that is
    /// smaller.
    fn max_frame_bytes<C: Card>(&self, dev: &Device<C>) -> u32 {
        let ring = (self.units - 2) * UNIT_BYTES as u32;
        dev.max_frame_bytes().min(MAX_FRAME_BYTES).min(ring)
    }

    /// The ring to write, checked to be mapped whole.
    fn ring_mut<'c, C: Card>(&self, dev: &'c mut Device<C>) -> Result<DmaViewMut<'c>> {
        let ring_bytes = self.units as usize * UNIT_BYTES;
        let ring = dev.card_mut().dma_mut(&self.ring);
        if ring.len() < ring_bytes {
            return Err(Error::dma(format!(
                "TX ring of pipe {} maps {} bytes, {ring_bytes} expected; the card's DMA memory is broken",
                self.index,
                ring.len()
            )));
        }
        Ok(ring)
    }

    /// Posted doorbell: tells the card entries end before `self.tail`. No
    /// readback in the fast path; a refused tail shows up in REG_ERRORS.
    ///
    /// The release fence keeps the entries' writes (plain stores into DMA
    /// memory) before the doorbell, so the card never reads a unit before
    /// software has written it.
    fn ring_doorbell<C: Card>(&self, dev: &mut Device<C>) -> Result<()> {
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        dev.write(pipe_page(self.index) + pipe::TX_TAIL.offset, self.tail)
    }

    /// Appends frames as ring entries back to back (header: the frame's
    /// length, flags, hash and timestamp 0) and rings the doorbell once.
    /// Returns how many frames were queued: it stops at the first frame that
    /// does not fit (0 if none fit; a full ring is not an error, retry after
    /// completions). Any EtherType goes: the card delimits a frame by its
    /// entry's length, not by its headers.
    ///
    /// Every length is checked first: a frame of 0 bytes or longer than the
    /// card's largest frame (or than the ring can ever hold) is
    /// [`Error::BadFrameLength`], naming its index in `frames`, and nothing
    /// is queued (the card would drop it alone, but a caller that counts
    /// what was queued would lose track).
    ///
    /// A call that queues nothing counts as an idle poll: a loop that waits
    /// for room learns of a reset of the card within
    /// [`crate::POLLS_PER_RESET_CHECK`] calls ([`Error::CardReset`]).
    pub fn send<C: Card>(&mut self, dev: &mut Device<C>, frames: &[&[u8]]) -> Result<usize> {
        self.check_own_ring()?;
        self.check_lengths(dev, frames)?;
        self.append(dev, frames, 0, |f: &&[u8]| *f)
    }

    /// [`Error::BadFrameLength`] for the first frame of `frames` that is
    /// empty or longer than [`TxPipe::max_frame_bytes`].
    fn check_lengths<C: Card>(&self, dev: &Device<C>, frames: &[&[u8]]) -> Result<()> {
        let max = self.max_frame_bytes(dev);
        match frames
            .iter()
            .enumerate()
            .find(|(_, f)| f.is_empty() || f.len() > max as usize)
        {
            Some((index, bad)) => Err(Error::BadFrameLength {
                index,
                len: bad.len(),
                max,
            }),
            None => Ok(()),
        }
    }

    /// Appends one entry per item (its bytes from `body`, each 1 to 65,535
    /// bytes long: callers checked; its header's FLAGS `flags`), as many as
    /// fit, and rings the doorbell once; an idle poll when none fit.
    /// Returns how many were queued. With `tx_flags::STAMP` in `flags`,
    /// each entry's stamp slot is cleared and the entry is pending.
    fn append<C: Card, T, B: AsRef<[u8]>>(
        &mut self,
        dev: &mut Device<C>,
        items: &[T],
        flags: u16,
        body: impl Fn(&T) -> B,
    ) -> Result<usize> {
        self.poll(dev);
        let mut free = self.free_now();
        let (units, mut tail) = (self.units, self.tail);
        let stamped = flags & tx_flags::STAMP != 0;
        let already_pending = self.pending.len();
        let mut ring = self.ring_mut(dev)?;
        let mut queued = 0;
        for item in items {
            let b = body(item);
            let b = b.as_ref();
            let len = b.len() as u16;
            let need = entry_units(len.into());
            if need > free {
                break;
            }
            if stamped {
                self.pending.push_back((tail, len));
            }
            tail = put_entry(&mut ring, units, tail, len, flags, b);
            free -= need;
            queued += 1;
        }
        if let Err(e) = self.clear_stamp_slots(dev, already_pending) {
            // Nothing is posted: the tail stays, so the entries are not.
            self.pending.truncate(already_pending);
            return Err(e);
        }
        self.tail = tail;
        if queued > 0 {
            self.ring_doorbell(dev)?;
        } else {
            dev.idle_poll()?;
        }
        Ok(queued)
    }

    /// Raw form for tests: copies `bytes` (whole ring units, entry headers
    /// included, as the caller made them) into the ring at the tail
    /// (wrapping), advances the tail by `ceil(len / 16)` units and rings the
    /// doorbell, without looking at the contents. [`Error::TxRingFull`] if
    /// the bytes do not fit now (an idle poll, as for [`TxPipe::send`]);
    /// empty `bytes` do nothing.
    pub fn send_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.check_own_ring()?;
        if bytes.is_empty() {
            return Ok(());
        }
        let need = u32::try_from(bytes.len().div_ceil(UNIT_BYTES)).unwrap_or(u32::MAX);
        self.reserve(dev, need)?;
        let (units, tail) = (self.units, self.tail);
        put(&mut self.ring_mut(dev)?, units, tail, bytes);
        self.tail = (tail + need) & self.mask;
        self.ring_doorbell(dev)
    }

    /// Raw form for tests: posts one entry whose header states
    /// `body.len()` bytes, whatever that is (0, or over the largest frame,
    /// which the card drops and counts; at most 65,535, what the header
    /// holds, else [`Error::BadFrameLength`]), and `body` as it is: a frame,
    /// or a message or verb for a pipe bound to the link or the atomic
    /// unit. [`Error::TxRingFull`] as for [`TxPipe::send_raw`].
    pub fn send_raw_entry<C: Card>(&mut self, dev: &mut Device<C>, body: &[u8]) -> Result<()> {
        self.check_own_ring()?;
        let Ok(len) = u16::try_from(body.len()) else {
            return Err(Error::BadFrameLength {
                index: 0,
                len: body.len(),
                max: u16::MAX.into(),
            });
        };
        self.reserve(dev, entry_units(len.into()))?;
        let (units, tail) = (self.units, self.tail);
        self.tail = put_entry(&mut self.ring_mut(dev)?, units, tail, len, 0, body);
        self.ring_doorbell(dev)
    }

    /// Ok when `need` units are free now (after a poll); else an idle poll
    /// and [`Error::TxRingFull`].
    fn reserve<C: Card>(&mut self, dev: &mut Device<C>, need: u32) -> Result<()> {
        self.poll(dev);
        let free = self.free_now();
        if need > free {
            dev.idle_poll()?;
            return Err(Error::TxRingFull {
                pipe: self.index,
                need_units: need,
                free_units: free,
            });
        }
        Ok(())
    }

    /// For pipes carrying messages of whole 64-byte slots (ACP messages,
    /// atomic verbs and commits): queues as many of `items` as fit, each
    /// made into its slots by `slots` and posted as one ring entry (64
    /// bytes, or 192 for a commit), with one doorbell; returns how many were
    /// queued (0 when full: an idle poll, as for [`TxPipe::send`]).
    pub fn send_slots<C: Card, T, S: AsRef<[u8]>>(
        &mut self,
        dev: &mut Device<C>,
        items: &[T],
        slots: impl Fn(&T) -> S,
    ) -> Result<usize> {
        self.check_own_ring()?;
        self.append(dev, items, 0, |item| {
            let s = slots(item);
            debug_assert!(
                !s.as_ref().is_empty() && s.as_ref().len() % 64 == 0,
                "messages are whole slots"
            );
            s
        })
    }

    /// True when the card reports every posted entry done (its head, as last
    /// reported, equals the tail). Refreshes the head first. Stamps asked
    /// for may still be on their way: the head moves when the card has read
    /// an entry, before its frame leaves ([`TxPipe::stamps_pending`]).
    pub fn idle<C: Card>(&mut self, dev: &Device<C>) -> bool {
        self.poll(dev);
        self.head == self.tail
    }

    /// Polls until idle ([`TxPipe::idle`]: stamps may still be pending), at
    /// most `max_polls` times (relaxing the card between polls). Returns
    /// whether the pipe became idle. A reset of the card (or a card that
    /// stops answering) ends the wait early, within
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

/// Writes an entry (a header stating `len` bytes and FLAGS `flags`, then
/// `body`) at unit `at`, wrapping at the ring's end; returns the unit after
/// it. Hash and timestamp are 0: the card reads only the length and
/// `tx_flags`. The padding after the body is left as it was: the card
/// skips it.
#[inline]
fn put_entry(
    ring: &mut DmaViewMut<'_>,
    units: u32,
    at: u32,
    len: u16,
    flags: u16,
    body: &[u8],
) -> u32 {
    // A header is one whole unit, so it never wraps: one copy of a known
    // size (the compiler writes it in place).
    let header = crate::entry::tx_header_flags(len, flags);
    ring.copy_from(at as usize * UNIT_BYTES, &header);
    put(ring, units, (at + 1) & (units - 1), body);
    (at + entry_units(len.into())) & (units - 1)
}

/// Copies `bytes` into the ring from unit `at` on, the part past the ring's
/// end at unit 0 (the first copy only, as [`Card::dma_mut`] asks). The ring
/// is mapped whole ([`TxPipe::ring_mut`]) and callers checked that the bytes
/// fit it, so both copies land.
#[inline]
fn put(ring: &mut DmaViewMut<'_>, units: u32, at: u32, bytes: &[u8]) {
    let ring_bytes = units as usize * UNIT_BYTES;
    let off = at as usize * UNIT_BYTES;
    let first = bytes.len().min(ring_bytes - off);
    ring.copy_from(off, &bytes[..first]);
    if first < bytes.len() {
        ring.copy_from(0, &bytes[first..]);
    }
}
