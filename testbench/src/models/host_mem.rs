//! Host memory as the NIC sees it across PCIe: a handful of regions at bus
//! addresses (IOVAs), surrounded by unmapped space so that a DMA engine that
//! computes a wrong address is caught instead of silently corrupting a
//! neighbouring ring.
//!
//! The bytes live in the process ([`HostMemory::new`]) or in a file another
//! process maps too ([`HostMemory::with_shared_file`]): that is how
//! `pendulum-sim serve` shares host memory with the application.

use memmap2::MmapMut;
use std::fs::File;

/// What a region holds; PCIe traffic is accounted per kind so the testbench
/// can report how much of the link goes to packet data versus bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// A receive data ring: frame bytes.
    DataRing,
    /// A notification ring (or any metadata the NIC writes back).
    Notification,
    /// Anything else the host exposes to the NIC.
    Other,
}

/// Handle of a region returned by [`HostMemory::alloc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionId(pub usize);

/// A DMA write the model refused.
#[derive(Debug, thiserror::Error)]
pub enum MemError {
    /// At least one strobed byte lies outside every region.
    #[error("DMA write to unmapped bus address {iova:#x}")]
    Unmapped {
        /// Bus address of the refused write (as issued, not the offending byte).
        iova: u64,
    },
    /// The shared host-memory file has no room for the region.
    #[error("host memory is full: {need} bytes asked, {free} of {total} free; give the simulator more (`--mem-bytes`)")]
    Full {
        need: usize,
        free: usize,
        total: usize,
    },
}

/// First bus address handed out; well above 4 GiB so that a DMA engine that
/// truncates addresses to 32 bits writes into unmapped space.
const BASE_IOVA: u64 = 0x1_0000_0000;
/// Unmapped gap between regions, so running off the end of one is caught.
const GUARD_BYTES: u64 = 4096;

struct Region {
    iova: u64,
    len_bytes: usize,
    kind: RegionKind,
    mirrored: bool,
    store: Store,
}

/// Where a region's bytes are: `len_bytes`, or `2 * len_bytes` when mirrored.
enum Store {
    Heap(Vec<u8>),
    /// At `offset` in the shared file.
    Shared {
        offset: usize,
        view_bytes: usize,
    },
}

/// A file mapped by this process and by the application.
struct SharedFile {
    map: MmapMut,
    /// Bytes handed out so far (regions are never freed).
    used: usize,
}

fn bytes_of<'a>(store: &Store, shared: &'a Option<SharedFile>, heap: &'a [u8]) -> &'a [u8] {
    match (store, shared) {
        (Store::Shared { offset, view_bytes }, Some(s)) => &s.map[*offset..*offset + *view_bytes],
        _ => heap,
    }
}

impl Region {
    fn end_iova(&self) -> u64 {
        self.iova + self.len_bytes as u64
    }
}

/// Host memory regions the NIC may DMA into.
pub struct HostMemory {
    /// Sorted by `iova` because allocation only moves upwards; `RegionId` is
    /// the index.
    regions: Vec<Region>,
    next_iova: u64,
    stray_writes: u64,
    /// Consecutive DMA writes almost always hit the same ring.
    last_hit: usize,
    shared: Option<SharedFile>,
}

impl Default for HostMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl HostMemory {
    /// Empty memory; the first region is placed at 0x1_0000_0000.
    pub fn new() -> Self {
        Self {
            regions: Vec::new(),
            next_iova: BASE_IOVA,
            stray_writes: 0,
            last_hit: 0,
            shared: None,
        }
    }

    /// Empty memory whose regions live in `file` (its whole current length),
    /// which other processes may map to see and write the same bytes.
    /// Regions are placed in the file from offset 0 on, page aligned.
    pub fn with_shared_file(file: &File) -> std::io::Result<Self> {
        // SAFETY: the application process maps this file too. The simulator
        // and the application take turns (the application waits for each
        // reply), so the bytes never change under a live slice of this
        // process; the file's length is fixed before it is shared.
        let map = unsafe { MmapMut::map_mut(file)? };
        Ok(Self {
            shared: Some(SharedFile { map, used: 0 }),
            ..Self::new()
        })
    }

    /// Offset of the region's bytes in the shared file (`None` for in-process memory).
    pub fn region_file_offset(&self, id: RegionId) -> Option<u64> {
        match self.regions[id.0].store {
            Store::Shared { offset, .. } => Some(offset as u64),
            Store::Heap(_) => None,
        }
    }

    /// Like [`alloc`](Self::alloc), but fails instead of panicking when a
    /// shared file has no room left.
    pub fn try_alloc(
        &mut self,
        len_bytes: usize,
        kind: RegionKind,
        mirrored: bool,
    ) -> Result<(RegionId, u64), MemError> {
        let view_bytes = if mirrored { 2 * len_bytes } else { len_bytes };
        let store = match &mut self.shared {
            None => Store::Heap(vec![0; view_bytes]),
            Some(s) => {
                let offset = s.used.next_multiple_of(4096);
                let total = s.map.len();
                if offset
                    .checked_add(view_bytes)
                    .map_or(true, |end| end > total)
                {
                    return Err(MemError::Full {
                        need: view_bytes,
                        free: total.saturating_sub(offset),
                        total,
                    });
                }
                s.used = offset + view_bytes;
                // Fresh bytes of a file that was just created are zero; zero
                // them anyway in case the file was reused.
                s.map[offset..offset + view_bytes].fill(0);
                Store::Shared { offset, view_bytes }
            }
        };
        let align = (len_bytes.next_power_of_two() as u64).max(4096);
        let iova = self.next_iova.next_multiple_of(align);
        self.next_iova = iova + len_bytes as u64 + GUARD_BYTES;
        self.regions.push(Region {
            iova,
            len_bytes,
            kind,
            mirrored,
            store,
        });
        Ok((RegionId(self.regions.len() - 1), iova))
    }

    /// Allocates a zeroed region of `len_bytes` and returns its handle and bus
    /// address. The address is aligned to `max(4096, len_bytes.next_power_of_two())`
    /// so rings are naturally aligned, as the hardware assumes.
    ///
    /// `mirrored`: the region's bytes are visible twice back to back (like
    /// Ensō's double mapping of a ring), so a frame that wraps past the end
    /// of a ring can still be read as one contiguous slice. DMA writes only
    /// target the first `len_bytes` addresses; the model copies each write
    /// into the mirror half too.
    ///
    /// Panics if the memory is a shared file without room (see [`try_alloc`](Self::try_alloc)).
    pub fn alloc(&mut self, len_bytes: usize, kind: RegionKind, mirrored: bool) -> (RegionId, u64) {
        match self.try_alloc(len_bytes, kind, mirrored) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// Index of the region whose mapped bytes contain `iova`.
    fn find(&self, iova: u64) -> Option<usize> {
        let hit = |i: usize| {
            let r: &Region = &self.regions[i];
            (r.iova..r.end_iova()).contains(&iova)
        };
        if self.last_hit < self.regions.len() && hit(self.last_hit) {
            return Some(self.last_hit);
        }
        // Regions are disjoint and sorted, so only the last one starting at or
        // below `iova` can contain it.
        let i = self
            .regions
            .partition_point(|r| r.iova <= iova)
            .checked_sub(1)?;
        hit(i).then_some(i)
    }

    /// Applies a DMA write of `data` (up to 64 bytes; later bytes are
    /// ignored because the strobe cannot select them) at bus address `iova`;
    /// byte k is written only if bit k of `strb` is set.
    ///
    /// A write touching any strobed byte outside every region is refused
    /// whole, counted in [`stray_writes`](Self::stray_writes), and returns
    /// `Err(MemError::Unmapped)`. A write with no strobed byte is judged by
    /// `iova` alone. Never panics.
    pub fn dma_write(&mut self, iova: u64, data: &[u8], strb: u64) -> Result<RegionKind, MemError> {
        let n = data.len().min(64);
        let strb = if n == 64 {
            strb
        } else {
            strb & ((1u64 << n) - 1)
        };
        let (first, last) = if strb == 0 {
            (0, 0)
        } else {
            (
                strb.trailing_zeros() as u64,
                63 - strb.leading_zeros() as u64,
            )
        };
        let region = iova
            .checked_add(first)
            .zip(iova.checked_add(last))
            .and_then(|(lo, hi)| {
                let i = self.find(lo)?;
                (hi < self.regions[i].end_iova()).then_some(i)
            });
        let Some(i) = region else {
            self.stray_writes += 1;
            return Err(MemError::Unmapped { iova });
        };
        self.last_hit = i;
        let Some((base, view_bytes)) = self.region_ptr_mut(RegionId(i)) else {
            return Err(MemError::Unmapped { iova });
        };
        let r = &self.regions[i];
        // Bytes are written through the region's raw pointer, never through a
        // `&mut [u8]` of the region: a driver's view of the region
        // (`region_ptr`, held by a `PairCard` while the peer NIC steps this
        // one) stays valid across the write.
        let put = |off: usize, byte: u8| {
            if off < view_bytes {
                // SAFETY: `off` lies inside the region's view (checked), whose
                // bytes live as long as `self`. No `&mut` of them exists
                // (`&mut self`), and the only shared slices that can be alive
                // are a driver's frames the NIC announced and has not had
                // back (`DmaView::announced`), which the NIC, and so this
                // write, does not touch.
                unsafe { base.add(off).write(byte) };
            }
        };
        // Offset of the first strobed byte; `iova` itself may lie below the
        // region when the leading bytes are not strobed.
        let first_off = (iova + first - r.iova) as usize;
        let first = first as usize;
        let mut bits = strb;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let off = first_off + k - first;
            put(off, data[k]);
            if r.mirrored {
                put(off + r.len_bytes, data[k]);
            }
        }
        Ok(r.kind)
    }

    /// The first byte of the region's view (`2 * len` bytes when mirrored)
    /// and the view's length, made without a reference to the bytes, so the
    /// pointer stays valid across the model's own DMA writes (which go
    /// through [`HostMemory::region_ptr_mut`]'s pointer: `Vec::as_ptr`,
    /// `as_mut_ptr` and `MmapMut::as_ptr` promise not to invalidate one
    /// another). Read only, as long as `self` lives: a region's bytes are
    /// never moved or freed (its `Vec` or the file mapping is never resized).
    pub fn region_ptr(&self, id: RegionId) -> Option<(*const u8, usize)> {
        match (&self.regions.get(id.0)?.store, &self.shared) {
            (Store::Heap(v), _) => Some((v.as_ptr(), v.len())),
            (Store::Shared { offset, view_bytes }, Some(s)) => {
                Some((s.map.as_ptr().wrapping_add(*offset), *view_bytes))
            }
            (Store::Shared { .. }, None) => None,
        }
    }

    /// [`HostMemory::region_ptr`] for writing.
    pub fn region_ptr_mut(&mut self, id: RegionId) -> Option<(*mut u8, usize)> {
        match (&mut self.regions.get_mut(id.0)?.store, &mut self.shared) {
            (Store::Heap(v), _) => Some((v.as_mut_ptr(), v.len())),
            (Store::Shared { offset, view_bytes }, Some(s)) => {
                Some((s.map.as_mut_ptr().wrapping_add(*offset), *view_bytes))
            }
            (Store::Shared { .. }, None) => None,
        }
    }

    /// The region's bytes as the host sees them: `2 * len` bytes when mirrored.
    /// Crate-private, as is [`HostMemory::region_mut`]: a `PairCard` reads
    /// and writes its NIC's memory through raw pointers while the other NIC
    /// steps, which a slice held meanwhile would make unsound; inside this
    /// crate only a [`crate::SimCard`] (and the models' unit tests) take
    /// slices, of memory no pair shares.
    pub(crate) fn region(&self, id: RegionId) -> &[u8] {
        let r = &self.regions[id.0];
        match &r.store {
            Store::Heap(v) => v,
            store => bytes_of(store, &self.shared, &[]),
        }
    }

    /// Mutable view of the region, for the host side (e.g. zeroing a ring).
    /// Writes here are not mirrored: the caller sees the raw view.
    pub(crate) fn region_mut(&mut self, id: RegionId) -> &mut [u8] {
        match (&mut self.regions[id.0].store, &mut self.shared) {
            (Store::Heap(v), _) => v,
            (Store::Shared { offset, view_bytes }, Some(s)) => {
                &mut s.map[*offset..*offset + *view_bytes]
            }
            (Store::Shared { .. }, None) => &mut [],
        }
    }

    /// Bus address of the region's first byte.
    /// Copies `len` bytes at bus address `iova`, if one region holds them all.
    pub fn read(&self, iova: u64, len: usize) -> Option<Vec<u8>> {
        (0..self.regions.len()).map(RegionId).find_map(|id| {
            let base = self.region_iova(id);
            let off = iova.checked_sub(base)? as usize;
            (off + len <= self.region_len(id)).then(|| self.region(id)[off..off + len].to_vec())
        })
    }

    pub fn region_iova(&self, id: RegionId) -> u64 {
        self.regions[id.0].iova
    }

    /// Mapped length of the region in bytes (not doubled by mirroring).
    pub fn region_len(&self, id: RegionId) -> usize {
        self.regions[id.0].len_bytes
    }

    /// Kind of the region mapping `iova`, or `None` if it is unmapped.
    pub fn kind_of(&self, iova: u64) -> Option<RegionKind> {
        self.find(iova).map(|i| self.regions[i].kind)
    }

    /// DMA writes refused because they touched unmapped bytes.
    pub fn stray_writes(&self) -> u64 {
        self.stray_writes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_is_aligned_with_guard_gaps() {
        let mut m = HostMemory::new();
        let (a, ia) = m.alloc(100, RegionKind::Other, false);
        let (b, ib) = m.alloc(64 << 10, RegionKind::DataRing, true);
        let (_, ic) = m.alloc(4096, RegionKind::Notification, false);
        assert_eq!(ia, 0x1_0000_0000);
        assert_eq!(ib % (64 << 10), 0);
        assert!(ib >= ia + 100 + 4096);
        assert!(ic >= ib + (64 << 10) + 4096 && ic % 4096 == 0);
        assert_eq!(m.region_len(b), 64 << 10);
        assert_eq!(m.region(b).len(), 128 << 10);
        assert_eq!(m.region(a).len(), 100);
        assert_eq!(m.kind_of(ib + 5), Some(RegionKind::DataRing));
        assert_eq!(m.kind_of(ib + (64 << 10)), None);
        assert_eq!(m.kind_of(ia - 1), None);
        assert_eq!(m.kind_of(0), None);
    }

    #[test]
    fn mirror_and_strobes() {
        let mut m = HostMemory::new();
        let (r, iova) = m.alloc(4096, RegionKind::DataRing, true);
        let data: Vec<u8> = (1..=64).collect();
        // Only the even bytes.
        let strb = 0x5555_5555_5555_5555;
        assert_eq!(
            m.dma_write(iova + 4032, &data, strb).unwrap(),
            RegionKind::DataRing
        );
        let view = m.region(r);
        for k in 0..64 {
            let want = if k % 2 == 0 { data[k] } else { 0 };
            assert_eq!(view[4032 + k], want);
            assert_eq!(view[4096 + 4032 + k], want);
        }
        // A short slice ignores strobe bits beyond its length.
        m.dma_write(iova, &[9, 9], u64::MAX).unwrap();
        assert_eq!(&m.region(r)[..3], &[9, 9, 0]);
    }

    #[test]
    fn shared_file_holds_the_regions() {
        let path = std::env::temp_dir().join(format!("pendulum-hostmem-{}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        file.set_len(16384).unwrap();
        let mut m = HostMemory::with_shared_file(&file).unwrap();
        let (r, iova) = m.alloc(4096, RegionKind::DataRing, true);
        assert_eq!(m.region_file_offset(r), Some(0));
        m.dma_write(iova + 4032, &[7; 64], u64::MAX).unwrap();
        assert_eq!(m.region(r).len(), 8192);
        assert_eq!(m.region(r)[4096 + 4032], 7);
        // Another mapping of the file (the application's) sees the same bytes.
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(&on_disk[4032..4096], &[7; 64]);
        assert_eq!(&on_disk[4096 + 4032..4096 + 4096], &[7; 64]);
        let (n, _) = m.alloc(100, RegionKind::Notification, false);
        assert_eq!(m.region_file_offset(n), Some(8192));
        assert!(matches!(
            m.try_alloc(8192, RegionKind::Other, false),
            Err(MemError::Full { .. })
        ));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn stray_writes_are_refused_whole() {
        let mut m = HostMemory::new();
        let (r, iova) = m.alloc(4096, RegionKind::DataRing, true);
        let data = [0xAA; 64];
        // Straddles the end of the ring: refused, nothing written, even into the mirror.
        assert!(matches!(
            m.dma_write(iova + 4064, &data, u64::MAX),
            Err(MemError::Unmapped { .. })
        ));
        assert!(m.region(r).iter().all(|&b| b == 0));
        // Strobes that keep the write inside the ring make it legal.
        m.dma_write(iova + 4064, &data, 0xFFFF_FFFF).unwrap();
        assert!(m.dma_write(iova + 4096, &data, 1).is_err());
        assert!(m.dma_write(u64::MAX - 3, &data, u64::MAX).is_err());
        assert!(m.dma_write(0, &data, 0).is_err());
        assert_eq!(m.stray_writes(), 4);
    }
}
