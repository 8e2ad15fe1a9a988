//! A batch of received ring entries (format v2, `pendulum_layout::ring`),
//! walked from the head to the announced tail: each entry's 16-byte header
//! is read with atomic loads and checked before its frame is handed out.

use crate::{entry, DmaView, Error, Result};
use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::ring::{entry_units, EntryHeader, HEADER_BYTES, UNIT_BYTES};

/// One received frame: its entry's header (length, flags, hash, the card's
/// timestamp) and its bytes, borrowed from the ring without copying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxFrame<'d> {
    /// The ring unit the entry's header is at.
    pub unit: u32,
    /// The unit after the entry: [`crate::RxPipe::free`] up to it hands this
    /// frame and those before it back.
    pub end_unit: u32,
    /// The header the card wrote: `len` is `bytes.len()`; the flags
    /// (`header.l3()`, `header.l4_csum_ok()`, ...), the flow's RSS hash and
    /// the card's cycle counter at the frame's first beat.
    pub header: EntryHeader,
    /// The frame, FCS excluded (joined across the ring's end: the ring is
    /// mapped twice).
    pub bytes: &'d [u8],
}

/// Entries between a pipe's head and its announced tail, borrowed from the
/// ring without copying.
///
/// Handing out plain slices of a ring the card writes is sound because of
/// the order of reads: the batch is made from a tail that a notification
/// record announced, read with acquire ordering before the batch exists
/// ([`crate::DmaView::load_u32_acquire`]), so every byte read through the
/// batch was written by the card before; and the card writes those units
/// again only once they are freed, which [`crate::RxPipe::free`] does through
/// `&mut Device`, impossible while the batch borrows the device. The view
/// covers only the announced units, never the rest of the ring, which the
/// card may be writing meanwhile; every header is read once, with atomic
/// loads, and checked against that view before its frame's bytes are.
pub struct RxBatch<'d> {
    /// The announced units from `start` on, contiguous (the ring is mapped
    /// twice), and nothing else; empty when the card's mapping of the ring
    /// is too short, which the walk reports as a corrupt ring.
    span: DmaView<'d>,
    pipe: usize,
    start: u32,
    end: u32,
    /// The ring's units minus 1 (see [`crate::RxPipe`]).
    mask: u32,
}

impl<'d> RxBatch<'d> {
    /// The batch of `pipe` from unit `start` to `end`, whose units `span`
    /// holds. Only [`crate::RxPipe`] makes one, from its head and a tail a
    /// notification announced: the soundness of [`RxBatch::iter`] rests on
    /// `span` holding nothing else.
    pub(super) fn new(span: DmaView<'d>, pipe: usize, start: u32, end: u32, mask: u32) -> Self {
        Self {
            span,
            pipe,
            start,
            end,
            mask,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The unit after the batch: pass it to [`crate::RxPipe::free`].
    pub fn end_unit(&self) -> u32 {
        self.end
    }

    /// Ring units (16 bytes each) the batch occupies, headers and padding
    /// included.
    pub fn units(&self) -> u32 {
        self.end.wrapping_sub(self.start) & self.mask
    }

    /// The frames in ring order, each with its entry's header. An entry the
    /// card could not have written (a length of 0 or over
    /// `MAX_FRAME_BYTES`, or one running past the announced tail) is
    /// [`Error::CorruptRing`] at its unit, and the walk ends there: nothing
    /// after it can be found.
    pub fn iter(&self) -> RxFrames<'d> {
        RxFrames {
            span: self.span,
            pipe: self.pipe,
            start: self.start,
            mask: self.mask,
            units: self.units(),
            at: 0,
        }
    }
}

/// The frames of an [`RxBatch`] ([`RxBatch::iter`]).
pub struct RxFrames<'d> {
    /// The batch's.
    span: DmaView<'d>,
    pipe: usize,
    start: u32,
    mask: u32,
    units: u32,
    /// Units from the batch's start to the next header (the span is
    /// contiguous, so the walk needs no wrapping but for the units it
    /// reports); past `units` once an error was yielded.
    at: u32,
}

impl<'d> Iterator for RxFrames<'d> {
    type Item = Result<RxFrame<'d>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.units {
            return None;
        }
        let at = self.at;
        let left = self.units - at;
        let off = at as usize * UNIT_BYTES;
        // The header is read once, with two atomic loads (it is 8-byte
        // aligned: rings are aligned to their size, and units are 16
        // bytes), and checked before its frame is touched.
        let words = match (self.span.load_u64(off), self.span.load_u64(off + 8)) {
            (Some(lo), Some(hi)) => [lo, hi],
            _ => return Some(Err(self.fail(unreadable(&self.span)))),
        };
        let header = entry::from_words(words);
        let len = u32::from(header.len);
        if len == 0 || len > MAX_FRAME_BYTES {
            return Some(Err(self.fail(bad_length(header.len))));
        }
        let units = entry_units(len);
        if units > left {
            return Some(Err(self.fail(overruns(header.len, units, left))));
        }
        let Some(bytes) = frame_bytes(&self.span, off + HEADER_BYTES, len as usize) else {
            return Some(Err(self.fail("its frame is outside the mapped ring".into())));
        };
        self.at = at + units;
        Some(Ok(RxFrame {
            unit: (self.start + at) & self.mask,
            end_unit: (self.start + self.at) & self.mask,
            header,
            bytes,
        }))
    }
}

impl std::iter::FusedIterator for RxFrames<'_> {}

impl RxFrames<'_> {
    /// The entry at the walk's position is corrupt (`what`): the error, and
    /// the walk ends.
    #[cold]
    fn fail(&mut self, what: String) -> Error {
        let unit = (self.start + self.at) & self.mask;
        self.at = u32::MAX;
        Error::CorruptRing {
            pipe: self.pipe,
            unit,
            what,
        }
    }
}

/// `len` bytes of `span` from byte `off`, as a plain slice.
#[allow(unsafe_code)]
#[inline]
fn frame_bytes<'d>(span: &DmaView<'d>, off: usize, len: usize) -> Option<&'d [u8]> {
    // SAFETY: `span` holds only units a notification announced (read with
    // acquire ordering before the batch was made), which the card does not
    // write again until software frees them (`RxPipe::free`, through
    // `&mut Device`), and the driver never writes an RX ring (a TX pipe over
    // it only posts what is there; `dma_mut` needs `&mut Device` too). Every
    // `RxBatch` borrows the Device for `'d`, and so does this slice, so none
    // of that can happen while it lives. `announced` checks the bounds.
    unsafe { span.announced(off..off + len) }
}

#[cold]
fn unreadable(span: &DmaView<'_>) -> String {
    format!(
        "its header cannot be read: {} bytes of the announced units are mapped, or the ring is not 8-byte aligned",
        span.len()
    )
}

#[cold]
fn bad_length(len: u16) -> String {
    format!("its header states {len} bytes (1 to {MAX_FRAME_BYTES} allowed)")
}

#[cold]
fn overruns(len: u16, units: u32, left: u32) -> String {
    format!(
        "its header states {len} bytes, an entry of {units} units, but only {left} are announced from there on"
    )
}
