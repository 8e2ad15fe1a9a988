//! RX pipes reserved for the atomic unit's results and the link's
//! messages (ATOMIC_RX_PIPE, LINK_RX_PIPE), which no Ethernet frame may
//! be steered to.

use super::Device;
use crate::{Card, Error, Reservation, Result, SteeringConflict};
use pendulum_layout::{global, Reg};

impl<C: Card> Device<C> {
    /// Frees the pipes a previous owner reserved (ATOMIC_RX_PIPE and
    /// LINK_RX_PIPE with RX_PIPE_RESERVED), as after power-up: its atomic
    /// unit and link are not this Device's, and a reserved pipe 0 would
    /// refuse the default pipe below.
    pub(super) fn release_reservations(&mut self) -> Result<()> {
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
    pub(super) fn refuse_reserved(&self, pipe: usize) -> Result<()> {
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
}
