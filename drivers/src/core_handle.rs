//! One core's share of a [`Device`]: [`CoreHandle`] (its doc says what a
//! handle owns and why the handles share the device behind a mutex).

use crate::{Card, Counters, Device, Error, FlowKey, Result, RxBatch, RxPipe, TxPipe};
use std::sync::{Arc, Mutex, MutexGuard};

/// One core's share of a [`Device`]: its notification buffer, its RX and
/// TX pipes and its flows. Made by [`Device::split`]; move each into its
/// own thread.
///
/// One handle per core, as Ensō's and DPDK's users give each core its own
/// queues: [`Device::split`] turns a device into `n` [`CoreHandle`]s, one
/// per thread, and handle `k` owns
///
/// - notification buffer `k`,
/// - the RX pipes that report into it: p ≡ k (mod CAP_NOTIF_BUFS), so 16 of
///   the 1,024 pipes with 64 buffers (the card sends pipe p's notifications
///   to buffer p mod CAP_NOTIF_BUFS, so a core that owns its buffer owns
///   exactly these pipes),
/// - the TX pipes t ≡ k (mod n) (TX pipe `k` among them; TX pipes report
///   into a completion record of their own, so any split works),
/// - the flows bound to its RX pipes.
///
/// A handle refuses, with [`Error::NotThisCore`] and without touching the
/// card, any pipe or flow it does not own, so cores never poll, free or
/// steer each other's pipes.
///
/// # Why a mutex
///
/// The handles share the [`Device`] behind an `Arc<Mutex<..>>`, and every
/// call locks it for the length of that call only (a wait locks once per
/// poll, so the other cores go on between polls). That is sound with no
/// `unsafe` and keeps `Device` as it is: its pipe calls take `&mut Device`,
/// and the card, the flow table and the register writes that must not
/// interleave (a checked write reads REG_ERRORS before and after) are shared
/// by all cores however the pipes are divided. In the common case each core
/// touches only its own pipes, so the lock is uncontended: an atomic
/// compare-and-swap to take it and an atomic swap to release it (not yet
/// measured beside the rest of a call). A lock-free split (each core
/// holding its own register page and notification buffer outright) would
/// need the card's shared state behind its own lock anyway, and is left
/// for when a measurement shows the mutex costs something.
///
/// A handle is [`Send`] when the card is (`Mutex<Device<C>>` is shared
/// between threads only if `Device<C>` may move between them): the
/// simulated cards and the mock card are.
pub struct CoreHandle<C: Card> {
    core: usize,
    cores: usize,
    notif_bufs: usize,
    /// The card's RX and TX pipes, so a pipe it lacks is named as such.
    pipes: usize,
    tx_pipes: usize,
    dev: Arc<Mutex<Device<C>>>,
}

impl<C: Card> Device<C> {
    /// Splits the device into `cores` per-core handles, handle `k` owning
    /// notification buffer `k`, RX pipes p ≡ k (mod [`Device::notif_bufs`])
    /// and TX pipes t ≡ k (mod `cores`). Pipes opened before the split (an
    /// [`crate::Atomics`]' pipes, say) stay open and cannot be opened again
    /// through a handle.
    ///
    /// [`Error::BadCoreCount`] unless 1 ≤ `cores` ≤ the card's notification
    /// buffers and TX pipes (64 each on the current card).
    pub fn split(self, cores: usize) -> Result<Vec<CoreHandle<C>>> {
        self.not_reset()?;
        let (notif_bufs, tx_pipes) = (self.notif_bufs(), self.tx_pipes());
        if cores == 0 || cores > notif_bufs.min(tx_pipes) {
            return Err(Error::BadCoreCount {
                cores,
                notif_bufs,
                tx_pipes,
            });
        }
        let pipes = self.pipes();
        let dev = Arc::new(Mutex::new(self));
        Ok((0..cores)
            .map(|core| CoreHandle {
                core,
                cores,
                notif_bufs,
                pipes,
                tx_pipes,
                dev: Arc::clone(&dev),
            })
            .collect())
    }
}

impl<C: Card> CoreHandle<C> {
    /// This handle's core number, from 0.
    pub fn core(&self) -> usize {
        self.core
    }

    /// How many handles the device was split into.
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// The notification buffer this core owns (its core number).
    pub fn notif_buf(&self) -> usize {
        self.core
    }

    /// The core that owns RX pipe `pipe`, if any: the owner of its
    /// notification buffer (`pipe` mod CAP_NOTIF_BUFS), when that buffer
    /// went to a core.
    pub fn rx_owner(&self, pipe: usize) -> Option<usize> {
        Some(pipe % self.notif_bufs).filter(|&b| b < self.cores)
    }

    /// The core that owns TX pipe `pipe`.
    pub fn tx_owner(&self, pipe: usize) -> usize {
        pipe % self.cores
    }

    /// [`Error::NotThisCore`] unless this core owns RX pipe `pipe`
    /// ([`Error::NoSuchPipe`] if the card has no such pipe).
    fn check_rx(&self, pipe: usize) -> Result<()> {
        if pipe >= self.pipes {
            return Err(Error::NoSuchPipe {
                pipe,
                pipes: self.pipes,
            });
        }
        let owner = self.rx_owner(pipe);
        if owner == Some(self.core) {
            return Ok(());
        }
        Err(Error::NotThisCore {
            core: self.core,
            what: "RX pipe",
            index: pipe,
            owner,
        })
    }

    /// [`Error::NotThisCore`] unless this core owns TX pipe `pipe`
    /// ([`Error::NoSuchTxPipe`] if the card has no such TX pipe).
    fn check_tx(&self, pipe: usize) -> Result<()> {
        if pipe >= self.tx_pipes {
            return Err(Error::NoSuchTxPipe {
                pipe,
                tx_pipes: self.tx_pipes,
            });
        }
        let owner = self.tx_owner(pipe);
        if owner == self.core {
            return Ok(());
        }
        Err(Error::NotThisCore {
            core: self.core,
            what: "TX pipe",
            index: pipe,
            owner: Some(owner),
        })
    }

    /// The device, for the length of one call.
    fn lock(&self) -> Result<MutexGuard<'_, Device<C>>> {
        self.dev.lock().map_err(|_| Error::CorePanicked)
    }

    /// [`Device::open_rx_pipe`] for a pipe this core owns.
    pub fn open_rx_pipe(&self, index: usize, ring_bytes: u32) -> Result<RxPipe> {
        self.check_rx(index)?;
        self.lock()?.open_rx_pipe(index, ring_bytes)
    }

    /// [`Device::open_tx_pipe`] for a pipe this core owns.
    pub fn open_tx_pipe(&self, index: usize, ring_bytes: u32) -> Result<TxPipe> {
        self.check_tx(index)?;
        self.lock()?.open_tx_pipe(index, ring_bytes)
    }

    /// [`Device::open_tx_pipe_over`] for a TX and an RX pipe this core owns.
    pub fn open_tx_pipe_over(&self, index: usize, rx: &RxPipe) -> Result<TxPipe> {
        self.check_tx(index)?;
        self.check_rx(rx.index())?;
        self.lock()?.open_tx_pipe_over(index, rx)
    }

    /// [`Device::close_rx_pipe`] for a pipe this core owns.
    pub fn close_rx_pipe(&self, rx: RxPipe) -> Result<()> {
        self.check_rx(rx.index())?;
        self.lock()?.close_rx_pipe(rx)
    }

    /// [`Device::close_tx_pipe`] for a pipe this core owns.
    pub fn close_tx_pipe(&self, tx: TxPipe) -> Result<()> {
        self.check_tx(tx.index())?;
        self.lock()?.close_tx_pipe(tx)
    }

    /// Steers `key` to `rx` ([`Device::bind_flow`]). A key bound to a pipe
    /// of another core stays there: [`Error::NotThisCore`] (that core
    /// unbinds it first).
    pub fn bind_flow(&self, key: FlowKey, rx: &RxPipe) -> Result<()> {
        self.check_rx(rx.index())?;
        let mut dev = self.lock()?;
        self.check_flow(&*dev, &key)?;
        dev.bind_flow(key, rx.index())
    }

    /// Removes `key`'s binding ([`Device::unbind_flow`]) if it steers to a
    /// pipe of this core; a key of another core is [`Error::NotThisCore`].
    /// False if it was not bound.
    pub fn unbind_flow(&self, key: FlowKey) -> Result<bool> {
        let mut dev = self.lock()?;
        self.check_flow(&*dev, &key)?;
        dev.unbind_flow(key)
    }

    /// Ok unless `key` is bound to a pipe this core does not own.
    fn check_flow(&self, dev: &Device<C>, key: &FlowKey) -> Result<()> {
        match dev.flow_pipe(key) {
            Some(p) if self.rx_owner(p) != Some(self.core) => Err(Error::NotThisCore {
                core: self.core,
                what: "the flow steered to RX pipe",
                index: p,
                owner: self.rx_owner(p),
            }),
            _ => Ok(()),
        }
    }

    /// Hands `rx`'s waiting frames to `f` ([`RxPipe::recv_checked`]: an
    /// empty batch counts as an idle poll) and returns what `f` returns. The
    /// device stays locked while `f` runs, so `f` should copy or look, not
    /// wait: free the batch afterwards with [`CoreHandle::free`].
    pub fn recv_with<R>(&self, rx: &mut RxPipe, f: impl FnOnce(&RxBatch<'_>) -> R) -> Result<R> {
        self.check_rx(rx.index())?;
        let mut dev = self.lock()?;
        let batch = rx.recv_checked(&mut *dev)?;
        Ok(f(&batch))
    }

    /// [`RxPipe::free`] on a pipe this core owns.
    pub fn free(&self, rx: &mut RxPipe, to: u32) -> Result<()> {
        self.check_rx(rx.index())?;
        rx.free(&mut *self.lock()?, to)
    }

    /// Polls `rx` until frames wait, at most `max_polls` times, letting the
    /// card go on between polls ([`RxPipe::wait`]). The device is locked
    /// for each poll, not for the wait, and the thread yields after a poll
    /// that found nothing, so the other cores go on meanwhile. Returns
    /// whether frames wait; a reset of the card is [`Error::CardReset`].
    pub fn wait(&self, rx: &mut RxPipe, max_polls: u64) -> Result<bool> {
        self.check_rx(rx.index())?;
        for _ in 0..max_polls {
            {
                let mut dev = self.lock()?;
                // One poll: reads the buffer, reports it when due.
                if rx.wait(&mut *dev, 0) {
                    return Ok(true);
                }
                dev.relax()?;
            }
            std::thread::yield_now();
        }
        Ok(rx.wait(&mut *self.lock()?, 0))
    }

    /// [`TxPipe::send`] on a pipe this core owns: queues as many of
    /// `frames` as fit, with one doorbell, and returns how many.
    pub fn send(&self, tx: &mut TxPipe, frames: &[&[u8]]) -> Result<usize> {
        self.check_tx(tx.index())?;
        tx.send(&mut *self.lock()?, frames)
    }

    /// [`TxPipe::send_stamped`] on a pipe this core owns: queues as many
    /// of `frames` as fit, each asking for a TX stamp, and returns how many.
    pub fn send_stamped(&self, tx: &mut TxPipe, frames: &[&[u8]]) -> Result<usize> {
        self.check_tx(tx.index())?;
        tx.send_stamped(&mut *self.lock()?, frames)
    }

    /// [`TxPipe::stamps`] on a pipe this core owns: pushes the TX stamps
    /// that have come onto `out`, in send order, and returns how many.
    pub fn stamps(&self, tx: &mut TxPipe, out: &mut Vec<crate::TxStamp>) -> Result<usize> {
        self.check_tx(tx.index())?;
        tx.stamps(&*self.lock()?, out)
    }

    /// [`TxPipe::send_through`] (zero copy) on pipes this core owns.
    pub fn send_through(&self, tx: &mut TxPipe, rx: &RxPipe, end: u32) -> Result<()> {
        self.check_tx(tx.index())?;
        self.check_rx(rx.index())?;
        tx.send_through(&mut *self.lock()?, rx, end)
    }

    /// Polls `tx` until the card has sent everything posted, at most
    /// `max_polls` times ([`TxPipe::wait_idle`]), locking per poll as
    /// [`CoreHandle::wait`] does. Returns whether it became idle.
    pub fn wait_idle(&self, tx: &mut TxPipe, max_polls: u64) -> Result<bool> {
        self.check_tx(tx.index())?;
        for _ in 0..max_polls {
            {
                let mut dev = self.lock()?;
                if tx.wait_idle(&mut *dev, 0) {
                    return Ok(true);
                }
                dev.relax()?;
            }
            std::thread::yield_now();
        }
        Ok(tx.wait_idle(&mut *self.lock()?, 0))
    }

    /// Lets the card go on ([`Device::relax`]), then yields the thread.
    pub fn relax(&self) -> Result<()> {
        self.lock()?.relax()?;
        std::thread::yield_now();
        Ok(())
    }

    /// The card's global counters ([`Device::counters`]), shared by all cores.
    pub fn counters(&self) -> Result<Counters> {
        self.lock()?.counters()
    }

    /// [`Device::check_card`].
    pub fn check_card(&self) -> Result<()> {
        self.lock()?.check_card()
    }

    /// Runs `f` on the card itself, with the device locked: for a test
    /// card's Ethernet port ([`crate::EthernetPort`]), say. What `f` does to
    /// registers bypasses the ownership checks.
    pub fn with_card<R>(&self, f: impl FnOnce(&mut C) -> R) -> Result<R> {
        Ok(f(self.lock()?.card_mut()))
    }

    /// The [`Device`] back, when this is the last handle of the split (the
    /// others were dropped); otherwise the handle back. Pipes stay as they
    /// are. If a core panicked while holding the device, its state may be
    /// half updated.
    pub fn into_device(self) -> std::result::Result<Device<C>, Self> {
        let Self { dev, .. } = self;
        match Arc::try_unwrap(dev) {
            Ok(m) => Ok(m.into_inner().unwrap_or_else(|p| p.into_inner())),
            Err(dev) => Err(Self { dev, ..self }),
        }
    }
}

impl<C: Card> std::fmt::Debug for CoreHandle<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreHandle")
            .field("core", &self.core)
            .field("cores", &self.cores)
            .field("notif_bufs", &self.notif_bufs)
            .finish_non_exhaustive()
    }
}
