use crate::{DmaView, DmaViewMut, Result};

/// What a region of DMA memory is used for. A card may account for traffic
/// by kind (the simulated card splits PCIe bytes into data and metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    DataRing,
    Notification,
    Other,
}

/// A block of host memory the card can reach by DMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaRegion {
    /// The card's handle for the region.
    pub id: usize,
    /// Bus address the card writes to.
    pub iova: u64,
    /// Length in bytes.
    pub len: usize,
    /// When set, the bytes are mapped twice back to back, so `len` bytes
    /// starting anywhere in the first copy can be read as one slice (Ensō's
    /// trick for frames that wrap past the end of a ring).
    pub mirrored: bool,
}

/// A Pendulum card: register access and DMA-able memory.
pub trait Card {
    /// Reads the 32-bit register at byte offset `offset` of the BAR.
    fn read32(&mut self, offset: u32) -> Result<u32>;
    /// Writes the 32-bit register at byte offset `offset` of the BAR (posted).
    fn write32(&mut self, offset: u32, value: u32) -> Result<()>;
    /// Allocates zeroed DMA memory aligned to its length rounded up to a power of two.
    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion>;
    /// The bytes of a region (2 × `len` when mirrored), which the card may
    /// write at any time: a [`DmaView`], read with atomic loads, so no plain
    /// slice of memory the card is writing escapes (empty for a region the
    /// card does not know).
    fn dma(&self, region: &DmaRegion) -> DmaView<'_>;
    /// The whole view of a region for software to write (2 × `len` when
    /// mirrored), e.g. frames to send.
    ///
    /// The card reads the first `len` bytes; for a mirrored region, writes to
    /// the second copy are not guaranteed to reach them. So software writes
    /// into the first `len` bytes only, splitting a frame that wraps past the
    /// end of a ring into two copies. A [`DmaViewMut`], not a `&mut [u8]`:
    /// the card may read (or, for an RX ring, write) the region meanwhile.
    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_>;
    /// Called between polls of host memory. A real card spins; the simulated
    /// card advances simulated time.
    fn relax(&mut self);
}
