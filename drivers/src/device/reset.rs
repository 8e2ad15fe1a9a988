//! Seeing a reset of the card: the SESSION token written at open, and the
//! checks of it in idle polls, waits and before reporting an error.

use super::Device;
use crate::random::host_random;
use crate::{Card, Error, Result};
use pendulum_layout::{self as layout, global};

/// Polls that found nothing new, and [`Device::relax`] calls, between two
/// reads of SESSION: a loop that waits on a card reset under it gets
/// [`Error::CardReset`] after at most this many. One register read per this
/// many idle polls costs nothing worth measuring; polls that find frames
/// read no register at all.
pub const POLLS_PER_RESET_CHECK: u32 = 2048;

impl<C: Card> Device<C> {
    /// Writes a fresh token to SESSION and reads it back. The token is never
    /// 0 (a reset), never all ones (a card off the bus) and never what
    /// SESSION held before, so a driver that opened the card earlier sees
    /// it change too.
    pub(super) fn claim_session(&mut self) -> Result<()> {
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
    /// `card_mut().relax()`, in particular around [`RxPipe::recv`](crate::pipe::RxPipe::recv),
    /// [`RxPipe::has_data`](crate::pipe::RxPipe::has_data) and [`Device::next_pipe_with_data`], which poll
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
}
