use crate::models::{HostMemory, RegionId, RegionKind as MemKind};
use crate::{NicSim, SimConfig};
use pendulum_driver::{
    Card, DmaRegion, DmaView, DmaViewMut, Error, EthernetPort, RegionKind, Result,
};

/// The simulated card: the Verilated NIC behind the driver's [`Card`] trait.
/// Register accesses and polling advance simulated time.
pub struct SimCard {
    pub sim: NicSim,
    regions: Vec<RegionId>,
}

impl SimCard {
    pub fn new(cfg: SimConfig) -> Self {
        Self {
            sim: NicSim::new(cfg),
            regions: Vec::new(),
        }
    }
}

/// A driver DMA region in a simulated host's memory; `regions` maps the
/// driver's region numbers to the memory model's.
pub(crate) fn alloc_region(
    mem: &mut HostMemory,
    regions: &mut Vec<RegionId>,
    len: usize,
    kind: RegionKind,
    mirrored: bool,
) -> Result<DmaRegion> {
    if len == 0 {
        return Err(Error::Dma {
            what: "cannot allocate an empty region".into(),
            source: None,
        });
    }
    let kind = match kind {
        RegionKind::DataRing => MemKind::DataRing,
        RegionKind::Notification => MemKind::Notification,
        RegionKind::Other => MemKind::Other,
    };
    let (id, iova) = mem.alloc(len, kind, mirrored);
    regions.push(id);
    Ok(DmaRegion {
        id: regions.len() - 1,
        iova,
        len,
        mirrored,
    })
}

impl Card for SimCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.sim.mmio_read(offset).map_err(Error::NoResponse)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.sim.mmio_write(offset, value);
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        alloc_region(&mut self.sim.mem, &mut self.regions, len, kind, mirrored)
    }

    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        // The NIC writes host memory only while it steps, which takes `&mut self`.
        DmaView::from_slice(self.sim.mem.region(self.regions[region.id]))
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        DmaViewMut::from_slice(self.sim.mem.region_mut(self.regions[region.id]))
    }

    fn relax(&mut self) {
        let n = self.sim.cfg.poll_interval_cycles;
        self.sim.run(n);
    }
}

/// The MAC of this card's [`NicSim`]: the same code serves the `sim:` card
/// in `pendulum-sim serve` (`server.rs`), so both cards move the same frames.
impl EthernetPort for SimCard {
    fn inject(&mut self, frames: &[Vec<u8>]) -> Result<()> {
        self.sim.inject(frames)
    }

    fn collect(&mut self) -> Result<Vec<Vec<u8>>> {
        self.sim.collect()
    }

    fn drain(&mut self, max_cycles: u64) -> Result<bool> {
        EthernetPort::drain(&mut self.sim, max_cycles)
    }

    fn cycles(&mut self) -> Result<u64> {
        self.sim.cycles()
    }
}
