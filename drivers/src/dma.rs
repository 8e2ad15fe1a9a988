//! DMA memory as the driver reads it: a view that never lets a plain `&[u8]`
//! of memory the card may write escape (in the spirit of rust-vmm's
//! `VolatileSlice`, written for this driver's few needs).
//!
//! The card writes host memory behind the compiler's back. A `&[u8]` of such
//! memory promises the compiler that the bytes do not change while it lives,
//! and plain loads may be merged, repeated or moved before the load that
//! told software the bytes were ready. So records the card writes
//! (notification records, TX completion records) are read here with atomic
//! loads, and the word that says a record is valid (a notification's COUNT,
//! a completion's SEQ) with acquire ordering: every read that follows it in
//! program order sees the bytes the card wrote before the record.
//!
//! Ring entries are different: once a notification read with acquire has
//! announced them, the card does not write their units again until
//! software frees them ([`crate::RxPipe::free`], which needs `&mut Device`).
//! Their headers are still read with atomic loads ([`DmaView::load_u64`]),
//! each once, so a header is checked and used as one value; a frame's bytes
//! may then be seen as a plain `&[u8]` ([`DmaView::announced`], `unsafe`:
//! its caller vouches for that), which is what lets [`crate::RxBatch`] hand
//! frames out without copying.
//!
//! On x86-64 an acquire load is a plain load (the compiler keeps the order);
//! on AArch64 it orders later loads after it in the inner shareable domain,
//! which covers DMA-coherent memory on the servers this driver targets.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// A bounded view of DMA memory the card may write at any time: loads go
/// through atomic (or volatile) accesses, and a plain slice comes out only for
/// bytes the card has announced ([`DmaView::announced`]).
///
/// Every access checks its bounds and returns `None` outside the view, so an
/// offset that came from the device cannot read past a region.
#[derive(Clone, Copy)]
pub struct DmaView<'a> {
    ptr: *const u8,
    len: usize,
    /// Borrows the memory for `'a`, as a slice of cells would: shared, and
    /// possibly written by others meanwhile.
    _mem: PhantomData<&'a [std::cell::UnsafeCell<u8>]>,
}

impl std::fmt::Debug for DmaView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DmaView")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<'a> DmaView<'a> {
    /// A view of memory nobody else writes while it is borrowed (a card made
    /// of plain memory, or one whose device only runs during calls that
    /// take `&mut` of the card).
    pub fn from_slice(bytes: &'a [u8]) -> Self {
        Self {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
            _mem: PhantomData,
        }
    }

    /// A view of `len` bytes at `ptr` that a device (or another thread) may
    /// write at any time.
    ///
    /// # Safety
    /// For all of `'a`: `ptr..ptr + len` stays mapped and readable; nothing in
    /// this process holds a `&mut` to any of it or writes it other than with
    /// atomic stores (a device's DMA writes are outside the process and may
    /// come at any time); and bytes handed out by [`DmaView::announced`] are
    /// not written while the slice lives.
    pub unsafe fn from_raw(ptr: *const u8, len: usize) -> Self {
        Self {
            ptr,
            len,
            _mem: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes `range` of this view, or `None` when it reaches past it.
    pub fn subview(&self, range: Range<usize>) -> Option<DmaView<'a>> {
        if range.start > range.end || range.end > self.len {
            return None;
        }
        Some(Self {
            // `wrapping_add` keeps this safe code; the bound was checked above.
            ptr: self.ptr.wrapping_add(range.start),
            len: range.end - range.start,
            _mem: PhantomData,
        })
    }

    /// Pointer to `size` bytes at `offset`, when they lie inside the view and
    /// are aligned to `size` (atomic loads need natural alignment).
    fn word_ptr(&self, offset: usize, size: usize) -> Option<*const u8> {
        let end = offset.checked_add(size)?;
        let p = self.ptr.wrapping_add(offset);
        (end <= self.len && (p as usize) % size == 0).then_some(p)
    }

    /// The little-endian 32-bit word at `offset`, one atomic load with no
    /// ordering (`None` when outside the view or not 4-byte aligned).
    pub fn load_u32(&self, offset: usize) -> Option<u32> {
        let p = self.word_ptr(offset, 4)?;
        // SAFETY: `p` is inside the view and 4-byte aligned (`word_ptr`), and
        // the view's memory is readable for `'a` (`from_slice` borrows it,
        // `from_raw`'s caller promised it). Writers use atomic stores or
        // DMA, so an atomic load is no data race. A relaxed load is allowed
        // on read-only memory too (a `from_slice` view).
        let v = unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Ordering::Relaxed);
        Some(u32::from_le(v))
    }

    /// [`DmaView::load_u32`] with acquire ordering: no read that follows in
    /// program order is done before it. Read a record's valid word with this
    /// first, then the rest of the record.
    pub fn load_u32_acquire(&self, offset: usize) -> Option<u32> {
        let v = self.load_u32(offset)?;
        // A relaxed load followed by an acquire fence orders like an acquire
        // load, and stays allowed on read-only memory.
        fence(Ordering::Acquire);
        Some(v)
    }

    /// The `N` little-endian 32-bit words from `offset` (4-byte aligned),
    /// a record whose word `valid` says whether the rest is written: that
    /// one is loaded first, with acquire ordering, the others after it. One
    /// bounds check for the record (a notification buffer is read a record
    /// per poll). `None` when the record is not inside the view or `valid`
    /// is not one of its words.
    #[inline]
    pub fn load_record_acquire<const N: usize>(
        &self,
        offset: usize,
        valid: usize,
    ) -> Option<[u32; N]> {
        let p = self.word_ptr(offset, 4)?;
        if offset.checked_add(4 * N)? > self.len || valid >= N {
            return None;
        }
        let load = |i: usize| {
            // SAFETY: as in `load_u32`: word `i < N` of the record is inside
            // the view (checked above) and 4-byte aligned (`p` is).
            let w = unsafe { AtomicU32::from_ptr(p.wrapping_add(4 * i) as *mut u32) };
            u32::from_le(w.load(Ordering::Relaxed))
        };
        let mut words = [0; N];
        words[valid] = load(valid);
        fence(Ordering::Acquire);
        for (i, w) in words.iter_mut().enumerate() {
            if i != valid {
                *w = load(i);
            }
        }
        Some(words)
    }

    /// The little-endian 64-bit word at `offset`, one atomic load with no
    /// ordering (`None` when outside the view or not 8-byte aligned): half
    /// of a ring entry's header, behind the acquire load that announced it.
    #[inline]
    pub fn load_u64(&self, offset: usize) -> Option<u64> {
        let p = self.word_ptr(offset, 8)?;
        // SAFETY: as in `load_u32`, for 8 aligned bytes inside the view.
        let v = unsafe { AtomicU64::from_ptr(p as *mut u64) }.load(Ordering::Relaxed);
        Some(u64::from_le(v))
    }

    /// [`DmaView::load_u64`] with acquire ordering: a record of two 32-bit
    /// fields read at once.
    pub fn load_u64_acquire(&self, offset: usize) -> Option<u64> {
        let v = self.load_u64(offset)?;
        // As in `load_u32_acquire`.
        fence(Ordering::Acquire);
        Some(v)
    }

    /// Copies `out.len()` bytes from `offset` into `out`, with volatile reads
    /// (the compiler neither drops nor merges them); `None`, copying nothing,
    /// when they reach past the view. The bytes are as they were at each
    /// read: copy only what an acquire load announced.
    pub fn copy_to(&self, offset: usize, out: &mut [u8]) -> Option<()> {
        let end = offset.checked_add(out.len())?;
        if end > self.len {
            return None;
        }
        for (i, b) in out.iter_mut().enumerate() {
            let p = self.ptr.wrapping_add(offset + i);
            // SAFETY: `p` is inside the view (checked above), which is
            // readable for `'a`; a byte needs no alignment.
            *b = unsafe { std::ptr::read_volatile(p) };
        }
        Some(())
    }

    /// The bytes `range` as a plain slice, for as long as the view's borrow
    /// lasts (`None` when it reaches past the view).
    ///
    /// # Safety
    /// Nothing writes these bytes while the slice lives: for a data ring,
    /// the card announced them with a notification read with acquire
    /// ordering (`load_u32_acquire`), and software does not hand them back
    /// (free them) or write them while the slice lives.
    pub unsafe fn announced(&self, range: Range<usize>) -> Option<&'a [u8]> {
        let v = self.subview(range)?;
        // SAFETY: the bytes are inside the view, readable for `'a`, and the
        // caller promises no one writes them while the slice lives.
        Some(unsafe { std::slice::from_raw_parts(v.ptr, v.len) })
    }

    /// A copy of the whole view (tests and tools; see [`DmaView::copy_to`]).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0; self.len];
        self.copy_to(0, &mut out);
        out
    }
}

/// A bounded view of DMA memory for software to write (frames to send), that
/// the card may read, or write elsewhere, meanwhile: writes go through raw
/// pointers, so no `&mut [u8]` of memory the card shares escapes. Every
/// write checks its bounds and does nothing outside the view.
///
/// The writes are plain (not volatile): the card reads them only after a
/// doorbell, and [`crate::TxPipe`] puts a release fence before each doorbell
/// so they are done by then.
pub struct DmaViewMut<'a> {
    ptr: *mut u8,
    len: usize,
    /// Borrows the memory exclusively for software's side for `'a`.
    _mem: PhantomData<&'a mut [std::cell::UnsafeCell<u8>]>,
}

impl std::fmt::Debug for DmaViewMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DmaViewMut")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<'a> DmaViewMut<'a> {
    /// A view of memory only this borrow reaches (a card made of plain
    /// memory, or one whose device runs only during calls that take `&mut`
    /// of the card).
    pub fn from_slice(bytes: &'a mut [u8]) -> Self {
        Self {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
            _mem: PhantomData,
        }
    }

    /// A view of `len` bytes at `ptr` that a device (or another thread) may
    /// read, or write, at any time.
    ///
    /// # Safety
    /// For all of `'a`: `ptr..ptr + len` stays mapped and writable; no `&mut`
    /// to any of it exists in this process, nor a shared reference that is
    /// used across a write through the view; and no one else writes the
    /// bytes software writes through the view (a device's DMA, outside the
    /// process, writes other bytes).
    pub unsafe fn from_raw(ptr: *mut u8, len: usize) -> Self {
        Self {
            ptr,
            len,
            _mem: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `bytes` into the view from `offset`; `None`, writing nothing,
    /// when they reach past it.
    #[inline]
    pub fn copy_from(&mut self, offset: usize, bytes: &[u8]) -> Option<()> {
        let end = offset.checked_add(bytes.len())?;
        if end > self.len {
            return None;
        }
        // SAFETY: `offset..end` is inside the view (checked above), which is
        // writable and reached by no other reference for `'a`; `bytes` is
        // ordinary memory, so it cannot overlap it.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(offset), bytes.len()) };
        Some(())
    }

    /// Sets `len` bytes from `offset` to `value` (`None`, writing nothing,
    /// past the view).
    pub fn fill(&mut self, offset: usize, len: usize, value: u8) -> Option<()> {
        let end = offset.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: as in `copy_from`.
        unsafe { std::ptr::write_bytes(self.ptr.add(offset), value, len) };
        Some(())
    }

    /// The same memory to read (see [`DmaView`]), for as long as this view
    /// is borrowed.
    pub fn as_view(&self) -> DmaView<'_> {
        DmaView {
            ptr: self.ptr,
            len: self.len,
            _mem: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_copies_stay_inside_the_view() {
        let mut mem = [0u64; 3];
        let v = DmaView::from_slice(bytemuck_u8(&mut mem));
        assert_eq!(v.len(), 24);
        assert_eq!(v.load_u32(24), None, "past the end");
        assert_eq!(v.load_u32(2), None, "misaligned");
        assert_eq!(v.load_u64_acquire(17), None, "misaligned");
        assert_eq!(v.load_u64(20), None, "past the end");
        assert!(v.subview(20..25).is_none());
        let (start, end) = (5, 4);
        assert!(v.subview(start..end).is_none(), "a reversed range");
        let mut out = [0u8; 8];
        assert_eq!(v.copy_to(20, &mut out), None, "past the end");
        assert_eq!(out, [0; 8], "nothing copied");
        assert_eq!(v.subview(0..24).unwrap().len(), 24);
        assert!(v.copy_to(16, &mut out).is_some());
    }

    #[test]
    fn words_read_little_endian() {
        let words: [u64; 2] = [0x0000_0002_0000_0001, 0];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        // Copy into 8-aligned memory.
        let mut aligned = vec![0u64; 2];
        let mut dst = DmaViewMut::from_slice(bytemuck_u8(&mut aligned));
        dst.copy_from(0, &bytes).unwrap();
        let v = dst.as_view();
        assert_eq!(v.load_u32_acquire(0), Some(1));
        assert_eq!(v.load_u32(4), Some(2));
        assert_eq!(v.load_u64_acquire(0), Some(0x0000_0002_0000_0001));
        assert_eq!(v.load_u64(0), Some(0x0000_0002_0000_0001));
        assert_eq!(dst.copy_from(10, &[0; 7]), None, "past the end");
        assert_eq!(dst.as_view().to_vec(), bytes, "nothing written");
    }

    /// The bytes of `words`: 8-byte aligned memory.
    fn bytemuck_u8(words: &mut [u64]) -> &mut [u8] {
        let len = words.len() * 8;
        // SAFETY: a `u64` slice is `len` initialized bytes, any value is a valid `u8`.
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, len) }
    }
}
