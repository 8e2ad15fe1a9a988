use crate::dropped::{DropGuard, DropList, Dropped};
use crate::flow::FlowTable;
use crate::notif::{Newest, NotifBufs, DEFAULT_NOTIF_BUF_BYTES};
use crate::pipe::RxPipe;
use crate::random::host_random;
use crate::tx::TxPipe;
use crate::{Card, DmaRegion, Error, RegionKind, Reservation, Result, SteeringConflict};
use pendulum_layout::flow::{FlowKey, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::{self as layout, global, pipe, pipe_page, Counter, Reg, RegError};
use std::cell::RefCell;
use std::sync::Arc;

/// The card's global counters, read in one pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub rx_frames: u64,
    pub rx_bytes: u64,
    pub drop_ring_full: u64,
    pub drop_malformed: u64,
    pub drop_pipe_off: u64,
    pub notifications: u64,
    /// Frames sent on the Ethernet TX port.
    pub tx_frames: u64,
    /// Bytes of those frames.
    pub tx_bytes: u64,
    /// TX data dropped as malformed (no length, over the MTU, past the tail).
    pub tx_drop_malformed: u64,
    /// TX completion records written.
    pub tx_completions: u64,
    /// IP frames steered by a flow table entry.
    pub flow_hits: u64,
    /// IP frames that missed the flow table and went to a fallback pipe.
    pub flow_misses: u64,
    /// Register writes the card refused.
    pub reg_errors: u32,
    /// Frames dropped whole before the core, at the board's RX clock
    /// crossing (its FIFO was full; 32-bit, wraps). Not in [`Self::drops`].
    pub rx_overflow_drops: u32,
}

impl Counters {
    /// Received frames the core dropped, for any reason (TX drops are in
    /// `tx_drop_malformed`; frames lost before the core in `rx_overflow_drops`).
    pub fn drops(&self) -> u64 {
        self.drop_ring_full + self.drop_malformed + self.drop_pipe_off
    }
}

/// Polls that found nothing new, and [`Device::relax`] calls, between two
/// reads of SESSION: a loop that waits on a card reset under it gets
/// [`Error::CardReset`] after at most this many. One register read per this
/// many idle polls costs nothing worth measuring; polls that find frames
/// read no register at all.
pub const POLLS_PER_RESET_CHECK: u32 = 2048;

/// An opened Pendulum card.
///
/// A reset of the card returns every register to its power-up value: the
/// pipes, notification buffers and flow bindings this Device set up are gone
/// from the card. The Device notices it through SESSION, which holds a token
/// written at open and reads 0 after a reset ([`Device::check_card`]); it
/// looks in every wait loop, in polls that find nothing new (once every
/// [`POLLS_PER_RESET_CHECK`]), and before reporting a refused write, a
/// corrupt ring or a card that does not answer. From then on every call that
/// would touch the card fails with [`Error::CardReset`]: drop the Device and
/// open the card again.
pub struct Device<C: Card> {
    card: C,
    pipes: usize,
    max_frame_bytes: u32,
    pipe_open: Vec<bool>,
    /// TX pipes are separate from RX pipes of the same index; there are
    /// fewer of them (CAP_TX_PIPES).
    tx_open: Vec<bool>,
    flows: FlowTable,
    /// The consumer side of the notification buffers. RX pipes poll through
    /// `&Device` (so a batch can borrow the ring while other pipes are
    /// polled), and reading a buffer moves its read position: hence a
    /// `RefCell`, borrowed only inside the methods below, never across calls.
    notif: RefCell<NotifBufs>,
    /// Size of the notification buffers switched on from now on.
    notif_buf_bytes: u32,
    /// The token written to SESSION at open; `None` when the card did not
    /// keep it (a bitstream older than the register): resets then go unseen.
    session: Option<u32>,
    /// Set when SESSION was found changed: every later call that would touch
    /// the card fails with [`Error::CardReset`] without touching it.
    reset_seen: bool,
    /// Idle polls since SESSION was last read.
    idle_polls: u32,
    /// The (RX, TX) pipes of the open [`crate::Atomics`], if one is open:
    /// there is one per Device, since the card has one ATOMIC_RX_PIPE.
    pub(crate) atomics_open: Option<(usize, usize)>,
    /// The (RX, TX) pipes of the open [`crate::Link`], if one is open.
    pub(crate) link_open: Option<(usize, usize)>,
    /// FLOW_DEFAULT_PIPE as this Device set it.
    default_pipe: usize,
    /// Pipes dropped without `close_*`, closed at the next call that
    /// reaches the card ([`Device::close_dropped`]).
    dropped: Arc<DropList>,
}

impl<C: Card> Device<C> {
    /// Opens the card: checks its identity and register-map version first.
    pub fn open(mut card: C) -> Result<Self> {
        let id = card.read32(global::IDENTITY.offset)?;
        if id != layout::IDENTITY {
            return Err(Error::NotPendulum {
                found: id,
                expected: layout::IDENTITY,
            });
        }
        let version = card.read32(global::VERSION.offset)?;
        let (major, minor) = ((version >> 16) as u16, version as u16);
        if major != layout::VERSION_MAJOR {
            return Err(Error::VersionMismatch {
                card_major: major,
                card_minor: minor,
                driver_major: layout::VERSION_MAJOR,
            });
        }
        let pipes = card.read32(global::CAP_PIPES.offset)? as usize;
        let tx_pipes = card.read32(global::CAP_TX_PIPES.offset)? as usize;
        let notif_bufs = card.read32(global::CAP_NOTIF_BUFS.offset)? as usize;
        let max_frame_bytes = card.read32(global::CAP_MAX_FRAME.offset)?;
        let shape = card.read32(global::CAP_FLOW_TABLE.offset)?;
        let (ways, buckets) = ((shape >> 16) as usize, (shape & 0xFFFF) as usize);
        let mut dev = Self {
            card,
            pipes,
            max_frame_bytes,
            pipe_open: vec![false; pipes],
            tx_open: vec![false; tx_pipes],
            flows: FlowTable::new(ways, buckets),
            notif: RefCell::new(NotifBufs::new(pipes, notif_bufs)),
            notif_buf_bytes: DEFAULT_NOTIF_BUF_BYTES,
            session: None,
            reset_seen: false,
            idle_polls: 0,
            atomics_open: None,
            link_open: None,
            default_pipe: 0,
            dropped: Arc::default(),
        };
        // First, so a reset at any later point of the open is seen.
        dev.claim_session()?;
        dev.release_reservations()?;
        dev.reset_steering()?;
        Ok(dev)
    }

    /// Writes a fresh token to SESSION and reads it back. The token is never
    /// 0 (a reset), never all ones (a card off the bus) and never what
    /// SESSION held before, so a driver that opened the card earlier sees
    /// it change too.
    fn claim_session(&mut self) -> Result<()> {
        let before = self.read(global::SESSION.offset)?;
        let token = loop {
            let t = host_random();
            if ![0, u32::MAX, before].contains(&t) {
                break t;
            }
        };
        self.write(global::SESSION.offset, token)?;
        // A bitstream older than SESSION refuses the write and reads 0.
        let kept = self.read(global::SESSION.offset)? == token;
        self.session = kept.then_some(token);
        Ok(())
    }

    /// Whether this Device can see a reset of the card: false on a bitstream
    /// older than the SESSION register.
    pub fn detects_resets(&self) -> bool {
        self.session.is_some()
    }

    /// Reads SESSION: [`Error::CardReset`] if it no longer holds the token
    /// written at open, because the card was reset (or another driver opened
    /// it). Once seen, that sticks: every later call that would touch the
    /// card fails with it, without touching the card. The driver calls this
    /// itself where a reset would show (see [`Device`]); an application may
    /// call it whenever it wants to know. One register read.
    pub fn check_card(&mut self) -> Result<()> {
        self.not_reset()?;
        self.close_dropped()?;
        self.idle_polls = 0;
        let Some(token) = self.session else {
            return Ok(());
        };
        let now = self.card.read32(global::SESSION.offset)?;
        if now == token {
            return Ok(());
        }
        // A card that dropped off the bus reads all ones: not a reset, and
        // its identity says so (a PCIe card reports it as NoResponse).
        let id = self.card.read32(global::IDENTITY.offset)?;
        if id != layout::IDENTITY {
            return Err(Error::NoResponse(format!(
                "SESSION reads {now:#010x} and IDENTITY {id:#010x}: the card no longer answers as a Pendulum card (link down, or bitstream unloaded)"
            )));
        }
        self.reset_seen = true;
        Err(Error::CardReset)
    }

    /// [`Error::CardReset`] if a reset was seen; no register access.
    pub(crate) fn not_reset(&self) -> Result<()> {
        if self.reset_seen {
            return Err(Error::CardReset);
        }
        Ok(())
    }

    /// Counts a poll that found nothing new; every
    /// [`POLLS_PER_RESET_CHECK`]th reads SESSION ([`Device::check_card`]).
    pub(crate) fn idle_poll(&mut self) -> Result<()> {
        self.not_reset()?;
        self.idle_polls += 1;
        if self.idle_polls >= POLLS_PER_RESET_CHECK {
            return self.check_card();
        }
        Ok(())
    }

    /// Lets the card go on between polls ([`Card::relax`]), counted as an
    /// idle poll: a loop that waits on the card through this gets
    /// [`Error::CardReset`] within [`POLLS_PER_RESET_CHECK`] calls if the
    /// card is reset under it. Use it where a loop would call
    /// `card_mut().relax()`, in particular around [`RxPipe::recv`],
    /// [`RxPipe::has_data`] and [`Device::next_pipe_with_data`], which poll
    /// through `&Device` and cannot look at the card themselves.
    pub fn relax(&mut self) -> Result<()> {
        self.not_reset()?;
        self.close_dropped()?;
        self.card.relax();
        self.idle_poll()
    }

    /// `e` (a refused write, a corrupt ring, no answer), unless a reset
    /// explains it better: then [`Error::CardReset`]. Reads SESSION.
    pub(crate) fn blame_reset(&mut self, e: Error) -> Error {
        match self.check_card() {
            Ok(()) => e,
            Err(reset) => reset,
        }
    }

    /// Frees the pipes a previous owner reserved (ATOMIC_RX_PIPE and
    /// LINK_RX_PIPE with RX_PIPE_RESERVED), as after power-up: its atomic
    /// unit and link are not this Device's, and a reserved pipe 0 would
    /// refuse the default pipe below.
    fn release_reservations(&mut self) -> Result<()> {
        for reg in [global::ATOMIC_RX_PIPE, global::LINK_RX_PIPE] {
            let v = self.read(reg.offset)?;
            if v & global::RX_PIPE_RESERVED != 0 {
                self.write_checked(reg.offset, v & global::RX_PIPE_MASK)?;
            }
        }
        Ok(())
    }

    /// What pipe `pipe` is reserved for, if this Device reserved it.
    pub fn reserved_for(&self, pipe: usize) -> Option<Reservation> {
        if self.atomics_open.map(|(rx, _)| rx) == Some(pipe) {
            Some(Reservation::AtomicResults)
        } else if self.link_open.map(|(rx, _)| rx) == Some(pipe) {
            Some(Reservation::LinkMessages)
        } else {
            None
        }
    }

    /// [`Error::PipeReserved`] if `pipe` is reserved.
    fn refuse_reserved(&self, pipe: usize) -> Result<()> {
        match self.reserved_for(pipe) {
            Some(by) => Err(Error::PipeReserved { pipe, by }),
            None => Ok(()),
        }
    }

    /// Reserves RX pipe `pipe` for `by` on the card (the register `reg`,
    /// ATOMIC_RX_PIPE or LINK_RX_PIPE), after checking that no Ethernet
    /// frame is steered to it: it is not the default pipe and no bound flow
    /// names it. Misses of the fallback range skip it on the card.
    pub(crate) fn reserve_rx_pipe(&mut self, reg: Reg, pipe: usize, by: Reservation) -> Result<()> {
        let conflict = if pipe == self.default_pipe {
            Some(SteeringConflict::DefaultPipe)
        } else {
            match self.flows.bound_to(pipe) {
                0 => None,
                n => Some(SteeringConflict::BoundFlows(n)),
            }
        };
        if let Some(conflict) = conflict {
            return Err(Error::CannotReserve { pipe, by, conflict });
        }
        self.write_checked(reg.offset, pipe as u32 | global::RX_PIPE_RESERVED)
    }

    /// Frees a pipe [`Device::reserve_rx_pipe`] reserved (it stays the
    /// register's pipe).
    pub(crate) fn release_rx_pipe(&mut self, reg: Reg, pipe: usize) -> Result<()> {
        self.write_checked(reg.offset, pipe as u32)
    }

    /// The checks [`Device::open_rx_pipe`] and [`Device::open_tx_pipe`] make
    /// before touching the card, for a pair of them.
    pub(crate) fn check_pipe_pair(&self, rx: usize, tx: usize, ring_bytes: u32) -> Result<()> {
        self.check_pipe_request(rx, ring_bytes, false)?;
        self.check_pipe_request(tx, ring_bytes, true)
    }

    /// Empties the flow table and sends misses over all pipes and non-IP
    /// frames to pipe 0, as after power-up: the table is the driver's to
    /// fill, and a previous owner's entries would steer to pipes this one
    /// never opened.
    fn reset_steering(&mut self) -> Result<()> {
        for s in 0..self.flows.len() {
            self.write(global::FLOW_WRITE.offset, s as u32)?;
        }
        self.write_checked(global::FLOW_DEFAULT_PIPE.offset, 0)?;
        self.default_pipe = 0;
        self.set_fallback_pipes(0, self.pipes)
    }

    /// Steers `key`'s frames to `pipe` (replacing any earlier binding of the
    /// key). [`Error::FlowTableFull`] when every slot the key can occupy is
    /// taken; [`Error::PipeReserved`] for the atomic unit's or the link's
    /// RX pipe.
    pub fn bind_flow(&mut self, key: FlowKey, pipe: usize) -> Result<()> {
        if pipe >= self.pipes {
            return Err(Error::NoSuchPipe {
                pipe,
                pipes: self.pipes,
            });
        }
        self.refuse_reserved(pipe)?;
        let slot = self.flows.place(&key)?;
        for (k, w) in key.words().iter().enumerate() {
            self.write(global::FLOW_KEY0.offset + 4 * k as u32, *w)?;
        }
        self.write_checked(global::FLOW_PIPE.offset, pipe as u32)?;
        self.write_checked(global::FLOW_WRITE.offset, WRITE_VALID | slot as u32)?;
        self.flows.set(slot, Some((key, pipe)));
        Ok(())
    }

    /// Removes `key`'s binding; its frames go to the fallback pipes again.
    /// False if it was not bound.
    pub fn unbind_flow(&mut self, key: FlowKey) -> Result<bool> {
        let Some(slot) = self.flows.find(&key) else {
            return Ok(false);
        };
        self.write_checked(global::FLOW_WRITE.offset, slot as u32)?;
        self.flows.set(slot, None);
        Ok(true)
    }

    /// The pipe `key` is bound to, if any.
    pub fn flow_pipe(&self, key: &FlowKey) -> Option<usize> {
        self.flows.pipe_of(key)
    }

    /// Flows bound, and the table's size.
    pub fn flows_bound(&self) -> (usize, usize) {
        (self.flows.installed(), self.flows.len())
    }

    /// Frames that are not IPv4 or IPv6 go to `pipe`; not the atomic
    /// unit's or the link's RX pipe ([`Error::PipeReserved`]).
    pub fn set_default_pipe(&mut self, pipe: usize) -> Result<()> {
        if pipe >= self.pipes {
            return Err(Error::NoSuchPipe {
                pipe,
                pipes: self.pipes,
            });
        }
        self.refuse_reserved(pipe)?;
        self.write_checked(global::FLOW_DEFAULT_PIPE.offset, pipe as u32)?;
        self.default_pipe = pipe;
        Ok(())
    }

    /// The pipe frames that are not IPv4 or IPv6 go to.
    pub fn default_pipe(&self) -> usize {
        self.default_pipe
    }

    /// IP frames that miss the flow table go to pipes `first..first + count`
    /// by their RSS hash (`count` a power of two). The card skips the atomic
    /// unit's and the link's RX pipes inside the range
    /// (`pendulum_layout::flow::steer`); a range of nothing but those is
    /// [`Error::PipeReserved`].
    pub fn set_fallback_pipes(&mut self, first: usize, count: usize) -> Result<()> {
        if !count.is_power_of_two() || first + count > self.pipes {
            return Err(Error::BadFallback {
                first,
                count,
                pipes: self.pipes,
            });
        }
        if let Some(by) = (first..first + count)
            .map(|p| self.reserved_for(p))
            .collect::<Option<Vec<_>>>()
        {
            return Err(Error::PipeReserved {
                pipe: first,
                by: by[0],
            });
        }
        let v = (first as u32) | count.trailing_zeros() << FALLBACK_COUNT_LOG2_SHIFT;
        self.write_checked(global::FLOW_FALLBACK.offset, v)
    }

    pub fn card(&self) -> &C {
        &self.card
    }

    pub fn card_mut(&mut self) -> &mut C {
        &mut self.card
    }

    pub fn into_card(self) -> C {
        self.card
    }

    /// Number of RX pipes the card has.
    pub fn pipes(&self) -> usize {
        self.pipes
    }

    /// Number of TX pipes the card has (pipes 0..tx_pipes() have a TX side).
    pub fn tx_pipes(&self) -> usize {
        self.tx_open.len()
    }

    /// Largest frame the card accepts, bytes.
    pub fn max_frame_bytes(&self) -> u32 {
        self.max_frame_bytes
    }

    /// Reads a 32-bit register ([`Error::CardReset`] once a reset was seen).
    pub fn read(&mut self, offset: u32) -> Result<u32> {
        self.not_reset()?;
        self.close_dropped()?;
        self.card.read32(offset)
    }

    /// Writes a 32-bit register without checking whether the card took it
    /// ([`Error::CardReset`] once a reset was seen).
    pub fn write(&mut self, offset: u32, value: u32) -> Result<()> {
        self.not_reset()?;
        self.close_dropped()?;
        self.card.write32(offset, value)
    }

    /// Closes the pipes dropped without `close_*` since the last call (see
    /// [`crate::RxPipe`]): each is disabled on the card (a posted write of 0
    /// to its CTRL or TX_CTRL, as `close_*` writes) and may be opened again;
    /// an [`crate::Atomics`] whose pipe was dropped is closed too. Every
    /// register access, [`Device::relax`] and every `open_*` calls this
    /// first, so a dropped pipe stays enabled only until the Device's next
    /// call that reaches the card. After a reset of
    /// the card nothing is written (the reset disabled the pipes).
    #[inline]
    pub fn close_dropped(&mut self) -> Result<()> {
        if self.dropped.is_empty() {
            return Ok(());
        }
        self.close_dropped_now()
    }

    /// [`Device::close_dropped`] once a pipe was dropped: off the fast path.
    #[cold]
    fn close_dropped_now(&mut self) -> Result<()> {
        for pipe in self.dropped.take() {
            let (i, reg, open) = match pipe {
                Dropped::Rx(i) => (i, pipe::CTRL, &mut self.pipe_open),
                Dropped::Tx(i) => (i, pipe::TX_CTRL, &mut self.tx_open),
            };
            if let Some(o) = open.get_mut(i) {
                *o = false;
            }
            if let Some((rx, tx)) = self.atomics_open {
                if pipe == Dropped::Rx(rx) || pipe == Dropped::Tx(tx) {
                    self.atomics_open = None;
                }
            }
            if !self.reset_seen {
                self.card.write32(pipe_page(i) + reg.offset, 0)?;
            }
        }
        Ok(())
    }

    /// Reads a 64-bit counter (LO first: that latches HI).
    pub fn read64(&mut self, lo: Reg) -> Result<u64> {
        let l = self.read(lo.offset)? as u64;
        let h = self.read(lo.offset + 4)? as u64;
        Ok(h << 32 | l)
    }

    /// The card's hardware time: core clock cycles since its last reset
    /// (`CYCLES`; 4 ns a cycle at 250 MHz). Two reads are ordered, so the
    /// difference of two calls is the cycles between their register reads
    /// (the in-process [`crate::mock::FakeCard`] has no clock and reads 0).
    pub fn cycles(&mut self) -> Result<u64> {
        self.read64(global::CYCLES)
    }

    pub fn counters(&mut self) -> Result<Counters> {
        Ok(Counters {
            rx_frames: self.read64(Counter::RxFrames.reg())?,
            rx_bytes: self.read64(Counter::RxBytes.reg())?,
            drop_ring_full: self.read64(Counter::DropRingFull.reg())?,
            drop_malformed: self.read64(Counter::DropMalformed.reg())?,
            drop_pipe_off: self.read64(Counter::DropPipeOff.reg())?,
            notifications: self.read64(Counter::Notifications.reg())?,
            tx_frames: self.read64(Counter::TxFrames.reg())?,
            tx_bytes: self.read64(Counter::TxBytes.reg())?,
            tx_drop_malformed: self.read64(Counter::TxDropMalformed.reg())?,
            tx_completions: self.read64(Counter::TxCompletions.reg())?,
            flow_hits: self.read64(Counter::FlowHits.reg())?,
            flow_misses: self.read64(Counter::FlowMisses.reg())?,
            reg_errors: self.read(global::REG_ERRORS.offset)?,
            rx_overflow_drops: self.read(global::RX_OVERFLOW_DROPS.offset)?,
        })
    }

    /// The last refused register write: its byte address and cause code.
    pub fn last_reg_error(&mut self) -> Result<(u32, u32)> {
        let v = self.read(global::LAST_REG_ERROR.offset)?;
        Ok((v & 0xFF_FFFF, v >> layout::LAST_REG_ERROR_CAUSE_SHIFT))
    }

    /// Writes a register and confirms the card accepted it; a refusal comes
    /// back as [`Error::RegisterRefused`] with the card's reason, or as
    /// [`Error::CardReset`] when the card was reset: a reset forgets what the
    /// driver set up (and zeroes REG_ERRORS), which is why writes are refused.
    pub fn write_checked(&mut self, offset: u32, value: u32) -> Result<()> {
        let before = self.read(global::REG_ERRORS.offset)?;
        self.write(offset, value)?;
        // The read is ordered behind the write, so it sees the write's outcome.
        let after = self.read(global::REG_ERRORS.offset)?;
        if after == before {
            return Ok(());
        }
        self.check_card()?;
        let (addr, code) = self.last_reg_error()?;
        Err(match RegError::from_code(code) {
            Some(cause) => Error::RegisterRefused { addr, cause },
            None => Error::RegisterRefusedUnknown { addr, code },
        })
    }

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
    /// [`POLLS_PER_RESET_CHECK`]).
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
    fn switch_on_notif_buf(&mut self, b: usize) -> Result<()> {
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
        self.write_checked(page + pipe::NBUF_CTRL.offset, 0)?;
        self.write_checked(page + pipe::NBUF_BASE_LO.offset, region.iova as u32)?;
        self.write_checked(page + pipe::NBUF_BASE_HI.offset, (region.iova >> 32) as u32)?;
        self.write_checked(page + pipe::NBUF_BYTES.offset, bytes)?;
        self.write_checked(page + pipe::NBUF_CTRL.offset, pipe::NBUF_CTRL_ON)?;
        self.notif.get_mut().switched_on(b, region);
        Ok(())
    }

    /// Sets up pipe `index` with a fresh ring of `ring_bytes` and enables
    /// it; its notification buffer (`index` mod [`Device::notif_bufs`]) is
    /// switched on first if no pipe opened before uses it.
    pub fn open_rx_pipe(&mut self, index: usize, ring_bytes: u32) -> Result<RxPipe> {
        self.close_dropped()?;
        self.check_pipe_request(index, ring_bytes, false)?;
        if self.notif.get_mut().cap() == 0 {
            return Err(Error::NoNotifBufs);
        }
        let buf = self.notif.get_mut().buf_of(index);
        self.switch_on_notif_buf(buf)?;
        let ring = self
            .card
            .alloc_dma(ring_bytes as usize, RegionKind::DataRing, true)?;
        let page = pipe_page(index);
        // Start from a disabled pipe: configuration is refused while enabled.
        self.write_checked(page + pipe::CTRL.offset, 0)?;
        // Records from the pipe's earlier life (opened before, or by another
        // driver) must not pass for new frames: with the pipe off (the
        // checked write has reached the card), read them and forget them.
        // Enabled again, the pipe numbers its records from 1.
        self.service_notif_buf(buf)?;
        self.notif.get_mut().forget(index);
        self.write_checked(page + pipe::RING_BASE_LO.offset, ring.iova as u32)?;
        self.write_checked(page + pipe::RING_BASE_HI.offset, (ring.iova >> 32) as u32)?;
        self.write_checked(page + pipe::RING_BYTES.offset, ring_bytes)?;
        self.write_checked(page + pipe::CTRL.offset, pipe::CTRL_ENABLE)?;
        self.pipe_open[index] = true;
        let guard = DropGuard::new(&self.dropped, Dropped::Rx(index));
        Ok(RxPipe::new(index, ring, buf, guard))
    }

    /// Disables a pipe; frames for it are then dropped and counted. (If
    /// this fails, the pipe is closed as a dropped one, at the next call.)
    pub fn close_rx_pipe(&mut self, mut pipe: RxPipe) -> Result<()> {
        self.write_checked(pipe_page(pipe.index()) + pipe::CTRL.offset, 0)?;
        self.pipe_open[pipe.index()] = false;
        pipe.disarm();
        Ok(())
    }

    /// The checks shared by RX and TX pipes (`tx` says which), before
    /// anything is allocated.
    fn check_pipe_request(&self, index: usize, ring_bytes: u32, tx: bool) -> Result<()> {
        use pendulum_layout::params::{RING_MAX_BYTES, RING_MIN_BYTES};
        self.not_reset()?;
        let open = if tx { &self.tx_open } else { &self.pipe_open };
        if index >= open.len() {
            return Err(if tx {
                Error::NoSuchTxPipe {
                    pipe: index,
                    tx_pipes: open.len(),
                }
            } else {
                Error::NoSuchPipe {
                    pipe: index,
                    pipes: open.len(),
                }
            });
        }
        if open[index] {
            return Err(Error::PipeInUse(index));
        }
        if !ring_bytes.is_power_of_two() || !(RING_MIN_BYTES..=RING_MAX_BYTES).contains(&ring_bytes)
        {
            return Err(Error::BadRingSize {
                bytes: ring_bytes,
                min: RING_MIN_BYTES,
                max: RING_MAX_BYTES,
            });
        }
        Ok(())
    }

    /// Sets up TX pipe `index` with a fresh ring of `ring_bytes` and its
    /// completion record, and enables it. The TX pipe is independent of the
    /// RX pipe with the same index (it shares only the register page).
    pub fn open_tx_pipe(&mut self, index: usize, ring_bytes: u32) -> Result<TxPipe> {
        self.close_dropped()?;
        self.check_pipe_request(index, ring_bytes, true)?;
        // Not mirrored: the card reads frames by DMA, and software splits a
        // frame that wraps, so one copy is enough.
        let ring = self
            .card
            .alloc_dma(ring_bytes as usize, RegionKind::DataRing, false)?;
        let compl =
            self.card
                .alloc_dma(layout::tx_compl::BYTES, RegionKind::Notification, false)?;
        self.program_tx_pipe(index, &ring, &compl)?;
        let guard = DropGuard::new(&self.dropped, Dropped::Tx(index));
        Ok(TxPipe::new(index, ring, compl, guard))
    }

    /// Sets up TX pipe `index` to send straight out of RX pipe `rx`'s ring
    /// (zero copy, Ensō-style echo): the TX ring *is* the RX ring, so frames
    /// received there are sent by posting their end slot
    /// ([`TxPipe::send_through`]), optionally after editing them in place, and
    /// the RX slots are freed once the TX head has passed them
    /// ([`RxPipe::free`] up to [`TxPipe::head`]). Open it right after `rx`,
    /// before frames arrive, so both rings start at slot 0. Only the
    /// completion record is allocated.
    pub fn open_tx_pipe_over(&mut self, index: usize, rx: &RxPipe) -> Result<TxPipe> {
        self.close_dropped()?;
        let ring = *rx.ring_region();
        let ring_bytes = ring.len as u32;
        self.check_pipe_request(index, ring_bytes, true)?;
        let compl =
            self.card
                .alloc_dma(layout::tx_compl::BYTES, RegionKind::Notification, false)?;
        self.program_tx_pipe(index, &ring, &compl)?;
        let guard = DropGuard::new(&self.dropped, Dropped::Tx(index));
        Ok(TxPipe::new_over_rx(index, ring, compl, rx.index(), guard))
    }

    /// Writes a TX pipe's ring and completion record and enables it.
    fn program_tx_pipe(&mut self, index: usize, ring: &DmaRegion, compl: &DmaRegion) -> Result<()> {
        let page = pipe_page(index);
        // Start from a disabled pipe: configuration is refused while enabled.
        self.write_checked(page + pipe::TX_CTRL.offset, 0)?;
        self.write_checked(page + pipe::TX_RING_BASE_LO.offset, ring.iova as u32)?;
        self.write_checked(
            page + pipe::TX_RING_BASE_HI.offset,
            (ring.iova >> 32) as u32,
        )?;
        self.write_checked(page + pipe::TX_RING_BYTES.offset, ring.len as u32)?;
        self.write_checked(page + pipe::TX_COMPL_BASE_LO.offset, compl.iova as u32)?;
        self.write_checked(
            page + pipe::TX_COMPL_BASE_HI.offset,
            (compl.iova >> 32) as u32,
        )?;
        self.write_checked(page + pipe::TX_CTRL.offset, pipe::CTRL_ENABLE)?;
        self.tx_open[index] = true;
        Ok(())
    }

    /// Disables a TX pipe. Frames posted and not yet sent are abandoned:
    /// call [`TxPipe::wait_idle`] first to let them go out.
    pub fn close_tx_pipe(&mut self, mut tx: TxPipe) -> Result<()> {
        self.write_checked(pipe_page(tx.index()) + pipe::TX_CTRL.offset, 0)?;
        self.tx_open[tx.index()] = false;
        tx.disarm();
        Ok(())
    }
}
