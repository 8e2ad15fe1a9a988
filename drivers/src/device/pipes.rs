//! Opening and closing RX and TX pipes, including the pipes dropped without
//! `close_*`.

use super::Device;
use crate::dropped::{DropGuard, Dropped};
use crate::pipe::RxPipe;
use crate::tx::TxPipe;
use crate::{Card, DmaRegion, Error, RegionKind, Result};
use pendulum_layout::{self as layout, pipe, pipe_page};

impl<C: Card> Device<C> {
    /// The checks [`Device::open_rx_pipe`] and [`Device::open_tx_pipe`] make
    /// before touching the card, for a pair of them.
    pub(crate) fn check_pipe_pair(&self, rx: usize, tx: usize, ring_bytes: u32) -> Result<()> {
        self.check_pipe_request(rx, ring_bytes, false)?;
        self.check_pipe_request(tx, ring_bytes, true)
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
        self.write_checked_all(&[
            (page + pipe::RING_BASE_LO.offset, ring.iova as u32),
            (page + pipe::RING_BASE_HI.offset, (ring.iova >> 32) as u32),
            (page + pipe::RING_BYTES.offset, ring_bytes),
            (page + pipe::CTRL.offset, pipe::CTRL_ENABLE),
        ])?;
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
    /// completion area, and enables it with TX stamps on
    /// ([`TxPipe::send_stamped`]). The TX pipe is independent of the RX pipe
    /// with the same index (it shares only the register page).
    ///
    /// The completion area holds the completion record and a 16-byte stamp
    /// slot per ring unit (`pendulum_layout::tx_stamp::area_bytes`): the
    /// card writes a stamp where its entry starts, and an entry may start
    /// at any unit, so the slots cost as much memory as the ring itself.
    /// Frames sent without asking for a stamp ([`TxPipe::send`]) get none
    /// and cost nothing more.
    pub fn open_tx_pipe(&mut self, index: usize, ring_bytes: u32) -> Result<TxPipe> {
        self.open_tx_pipe_with(index, ring_bytes, true)
    }

    /// [`Device::open_tx_pipe`] without TX stamps: the completion record
    /// alone. For the pipes bound to the ACP link or the atomic unit, which
    /// carry messages and verbs, not frames, and rewrite TX_CTRL to bind
    /// them.
    pub(crate) fn open_tx_pipe_unstamped(
        &mut self,
        index: usize,
        ring_bytes: u32,
    ) -> Result<TxPipe> {
        self.open_tx_pipe_with(index, ring_bytes, false)
    }

    /// Opens TX pipe `index` over a fresh ring, with stamp slots and
    /// TX_CTRL_STAMPS when `stamps`.
    fn open_tx_pipe_with(&mut self, index: usize, ring_bytes: u32, stamps: bool) -> Result<TxPipe> {
        self.close_dropped()?;
        self.check_pipe_request(index, ring_bytes, true)?;
        // Not mirrored: the card reads entries by DMA, and software splits
        // an entry that wraps, so one copy is enough.
        let ring = self
            .card
            .alloc_dma(ring_bytes as usize, RegionKind::DataRing, false)?;
        let (compl_bytes, ctrl) = if stamps {
            (
                layout::tx_stamp::area_bytes(ring_bytes),
                pipe::CTRL_ENABLE | pipe::TX_CTRL_STAMPS,
            )
        } else {
            (layout::tx_compl::BYTES, pipe::CTRL_ENABLE)
        };
        let compl = self
            .card
            .alloc_dma(compl_bytes, RegionKind::Notification, false)?;
        self.program_tx_pipe(index, &ring, &compl, ctrl)?;
        let guard = DropGuard::new(&self.dropped, Dropped::Tx(index));
        Ok(TxPipe::new(index, ring, compl, guard))
    }

    /// Sets up TX pipe `index` to send straight out of RX pipe `rx`'s ring
    /// (zero copy, Ensō-style echo): the TX ring *is* the RX ring, and the
    /// card's RX entries are valid TX entries, so frames received there are
    /// sent by posting their end unit ([`TxPipe::send_through`]), optionally
    /// after editing them in place, and the RX units are freed once the TX
    /// head has passed them ([`RxPipe::free`] up to [`TxPipe::head`]). Open
    /// it right after `rx`, before frames arrive, so both rings start at
    /// unit 0. Only the completion record is allocated: no TX stamps, as
    /// the pipe sends only what `rx` received.
    pub fn open_tx_pipe_over(&mut self, index: usize, rx: &RxPipe) -> Result<TxPipe> {
        self.close_dropped()?;
        let ring = *rx.ring_region();
        let ring_bytes = ring.len as u32;
        self.check_pipe_request(index, ring_bytes, true)?;
        let compl =
            self.card
                .alloc_dma(layout::tx_compl::BYTES, RegionKind::Notification, false)?;
        self.program_tx_pipe(index, &ring, &compl, pipe::CTRL_ENABLE)?;
        let guard = DropGuard::new(&self.dropped, Dropped::Tx(index));
        Ok(TxPipe::new_over_rx(index, ring, compl, rx.index(), guard))
    }

    /// Writes a TX pipe's ring and completion area and enables it by
    /// writing `ctrl` (CTRL_ENABLE, and TX_CTRL_STAMPS when `compl` has the
    /// stamp slots) to TX_CTRL.
    fn program_tx_pipe(
        &mut self,
        index: usize,
        ring: &DmaRegion,
        compl: &DmaRegion,
        ctrl: u32,
    ) -> Result<()> {
        let page = pipe_page(index);
        // Start from a disabled pipe: configuration is refused while enabled.
        self.write_checked_all(&[
            (page + pipe::TX_CTRL.offset, 0),
            (page + pipe::TX_RING_BASE_LO.offset, ring.iova as u32),
            (
                page + pipe::TX_RING_BASE_HI.offset,
                (ring.iova >> 32) as u32,
            ),
            (page + pipe::TX_RING_BYTES.offset, ring.len as u32),
            (page + pipe::TX_COMPL_BASE_LO.offset, compl.iova as u32),
            (
                page + pipe::TX_COMPL_BASE_HI.offset,
                (compl.iova >> 32) as u32,
            ),
            (page + pipe::TX_CTRL.offset, ctrl),
        ])?;
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
}
