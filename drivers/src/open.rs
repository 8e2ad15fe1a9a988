//! One string picks the card: an application opens the simulated card first
//! and the real one later without changing its code.
//!
//! | address | card |
//! |---|---|
//! | `0000:03:00.0` or `03:00.0` | the PCIe device at that address ([`PciCard`]) |
//! | `pci:10ee:903f` | the first PCIe device with that vendor and device id |
//! | `sim:/path/to/socket` | the simulator process `pendulum-sim serve --socket /path/to/socket` ([`SimClientCard`]) |

use crate::{
    Card, Device, DmaRegion, DmaView, DmaViewMut, Error, EthernetPort, PciCard, RegionKind, Result,
    SimClientCard,
};

/// Either kind of card, chosen at run time by [`open`].
pub enum AnyCard {
    Pci(PciCard),
    Sim(SimClientCard),
}

impl AnyCard {
    /// Connects to the card at `address` without opening it as a [`Device`]
    /// (no identity check yet).
    pub fn connect(address: &str) -> Result<Self> {
        let address = address.trim();
        if let Some(path) = address.strip_prefix("sim:") {
            if path.is_empty() {
                return Err(Error::BadAddress(address.to_string()));
            }
            return SimClientCard::connect(path).map(AnyCard::Sim);
        }
        PciCard::open(address).map(AnyCard::Pci)
    }

    /// The simulator client, when this is the simulated card.
    pub fn as_sim(&mut self) -> Option<&mut SimClientCard> {
        match self {
            AnyCard::Sim(s) => Some(s),
            AnyCard::Pci(_) => None,
        }
    }

    /// Fails if the card has stopped answering (see [`SimClientCard::check`]).
    /// A polling loop that only calls `relax` should call this now and then.
    pub fn check(&self) -> Result<()> {
        match self {
            AnyCard::Sim(s) => s.check(),
            AnyCard::Pci(_) => Ok(()),
        }
    }
}

/// Opens the card at `address` (see the module documentation) and checks its
/// identity and register-map version before anything else.
pub fn open(address: &str) -> Result<Device<AnyCard>> {
    Device::open(AnyCard::connect(address)?)
}

impl Card for AnyCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        match self {
            AnyCard::Pci(c) => c.read32(offset),
            AnyCard::Sim(c) => c.read32(offset),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        match self {
            AnyCard::Pci(c) => c.write32(offset, value),
            AnyCard::Sim(c) => c.write32(offset, value),
        }
    }

    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        match self {
            AnyCard::Pci(c) => c.alloc_dma(len, kind, mirrored),
            AnyCard::Sim(c) => c.alloc_dma(len, kind, mirrored),
        }
    }

    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        match self {
            AnyCard::Pci(c) => c.dma(region),
            AnyCard::Sim(c) => c.dma(region),
        }
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        match self {
            AnyCard::Pci(c) => c.dma_mut(region),
            AnyCard::Sim(c) => c.dma_mut(region),
        }
    }

    fn relax(&mut self) {
        match self {
            AnyCard::Pci(c) => c.relax(),
            AnyCard::Sim(c) => c.relax(),
        }
    }
}

/// What [`Error::NoTestPort`] says of a PCIe card.
const PCI_PORT: &str = "a PCIe card: its Ethernet port is a wire, not a simulated MAC, and frames come from and go to the network (open a simulated card, sim:/path or in process, to inject and collect them)";

/// The simulator process's MAC; a PCIe card's Ethernet port is a wire, so
/// there every call is [`Error::NoTestPort`].
impl EthernetPort for AnyCard {
    fn inject(&mut self, frames: &[Vec<u8>]) -> Result<()> {
        match self {
            AnyCard::Sim(c) => c.inject(frames),
            AnyCard::Pci(_) => Err(Error::NoTestPort {
                what: "inject frames",
                card: PCI_PORT,
            }),
        }
    }

    fn collect(&mut self) -> Result<Vec<Vec<u8>>> {
        match self {
            AnyCard::Sim(c) => c.collect(),
            AnyCard::Pci(_) => Err(Error::NoTestPort {
                what: "collect frames",
                card: PCI_PORT,
            }),
        }
    }

    fn drain(&mut self, max_cycles: u64) -> Result<bool> {
        match self {
            AnyCard::Sim(c) => c.drain(max_cycles),
            AnyCard::Pci(_) => Err(Error::NoTestPort {
                what: "drain the Ethernet port",
                card: PCI_PORT,
            }),
        }
    }

    fn cycles(&mut self) -> Result<u64> {
        match self {
            AnyCard::Sim(c) => c.cycles(),
            AnyCard::Pci(_) => Err(Error::NoTestPort {
                what: "count simulated cycles",
                card: PCI_PORT,
            }),
        }
    }
}
