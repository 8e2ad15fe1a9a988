//! Pipes dropped without being closed, for their [`crate::Device`] to close.
//!
//! A pipe does not hold its Device: every call takes the Device as an
//! argument, so a batch can borrow it while other pipes are polled, and a
//! pipe costs no lock or reference count on the fast path. So a pipe's `Drop`
//! cannot write the card itself. It records its index in the Device's
//! [`DropList`] instead, and the Device disables the pipe on its next call
//! that reaches the card (every register access, and the start of every
//! `open_*`, so the index can be opened again at once).
//!
//! Until then the card may still write the pipe's ring, which is safe: DMA
//! regions live as long as the card, never only as long as a pipe. The list
//! sits behind an `Arc` and a mutex, not an `Rc`, so pipes stay `Send`;
//! dropping a pipe is rare, and a register access pays one relaxed load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A pipe as it is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    Rx(usize),
    Tx(usize),
}

/// The pipes dropped since the Device last looked.
#[derive(Debug, Default)]
pub(crate) struct DropList {
    /// Set when `pipes` may be non-empty, so the Device's check costs one load.
    pending: AtomicBool,
    pipes: Mutex<Vec<Dropped>>,
}

impl DropList {
    fn push(&self, pipe: Dropped) {
        // A poisoned lock only means a panic elsewhere while it was held; a
        // `Vec` push cannot leave the list half-changed.
        self.pipes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(pipe);
        self.pending.store(true, Ordering::Release);
    }

    /// No pipe was dropped since the last [`DropList::take`]: one load.
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.pending.load(Ordering::Relaxed)
    }

    /// The pipes dropped since the last call. A pipe dropped meanwhile is in
    /// this list or the next.
    pub fn take(&self) -> Vec<Dropped> {
        self.pending.store(false, Ordering::Relaxed);
        std::mem::take(&mut *self.pipes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Held by a pipe: puts it on its Device's [`DropList`] when dropped, unless
/// the pipe was closed ([`DropGuard::disarm`]).
#[derive(Debug)]
pub(crate) struct DropGuard {
    list: Option<Arc<DropList>>,
    pipe: Dropped,
}

impl DropGuard {
    pub fn new(list: &Arc<DropList>, pipe: Dropped) -> Self {
        Self {
            list: Some(list.clone()),
            pipe,
        }
    }

    /// The pipe was closed: nothing to do when it is dropped.
    pub fn disarm(&mut self) {
        self.list = None;
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if let Some(list) = self.list.take() {
            list.push(self.pipe);
        }
    }
}
