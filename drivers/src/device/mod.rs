//! An opened Pendulum card: the [`Device`] struct, opening it, and what it
//! knows of the card's shape. Its other methods live in the child modules,
//! one concern each.

mod counters;
mod notifications;
mod pipes;
mod registers;
mod reservation;
mod reset;
mod steering;

pub use counters::Counters;
pub use reset::POLLS_PER_RESET_CHECK;

use crate::dropped::DropList;
use crate::flow::FlowTable;
use crate::notif::{NotifBufs, DEFAULT_NOTIF_BUF_BYTES};
use crate::{Card, Error, Result};
use pendulum_layout::{self as layout, global};
use std::cell::RefCell;
use std::sync::Arc;

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
}
