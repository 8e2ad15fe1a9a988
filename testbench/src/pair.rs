//! Two simulated NICs whose ACP ports are joined by the link model: the
//! testbench for the ACP link (`shared/ACP.md`). Each NIC has its own host
//! memory and PCIe model; both advance one cycle at a time together.

/// The two ends of the pair are the two ends of the link model.
pub use crate::models::acp_link::Side;
use crate::models::{AcpLinkModel, LinkFaults, RegionId};
use crate::{NicSim, SimConfig};
use pendulum_driver::{Card, DmaRegion, Error, RegionKind, Result};
use std::cell::RefCell;
use std::rc::Rc;

/// NIC A and NIC B, ACP port to ACP port.
pub struct NicPair {
    pub a: NicSim,
    pub b: NicSim,
    pub link: AcpLinkModel,
    /// Called with (cycle, sender, record) for every record put on the wire
    /// (for measurements; off by default).
    pub wire_tap: Option<Box<dyn FnMut(u64, Side, &[u8; 64])>>,
    /// Whether each side's physical layer takes a record this cycle (a
    /// stalled slot delays that side's records; default: always).
    pub phy_ready: Option<Box<dyn FnMut(u64, Side) -> bool>>,
}

impl NicPair {
    pub fn new(cfg: SimConfig, faults: LinkFaults) -> Self {
        let mut b_cfg = cfg.clone();
        // One waveform file per NIC.
        b_cfg.waveform = cfg.waveform.as_ref().map(|p| p.with_extension("b.fst"));
        Self {
            a: NicSim::new(cfg),
            b: NicSim::new(b_cfg),
            link: AcpLinkModel::new(faults),
            wire_tap: None,
            phy_ready: None,
        }
    }

    /// One cycle: the link carries what each NIC sent last cycle, then both NICs step.
    pub fn step(&mut self) {
        let (a_out, b_out) = (self.a.acp_out.take(), self.b.acp_out.take());
        if let Some(tap) = self.wire_tap.as_mut() {
            let now = self.a.cycle();
            if let Some(r) = &a_out {
                tap(now, Side::A, r);
            }
            if let Some(r) = &b_out {
                tap(now, Side::B, r);
            }
        }
        let out = self.link.step(a_out, b_out);
        self.a.acp_in = out.a_rx;
        self.a.acp_up = out.a_up;
        self.b.acp_in = out.b_rx;
        self.b.acp_up = out.b_up;
        if let Some(ready) = self.phy_ready.as_mut() {
            let now = self.a.cycle();
            self.a.acp_tx_ready = ready(now, Side::A);
            self.b.acp_tx_ready = ready(now, Side::B);
        }
        self.a.step();
        self.b.step();
    }

    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    pub fn cycle(&self) -> u64 {
        self.a.cycle()
    }

    pub fn side(&mut self, side: Side) -> &mut NicSim {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// Splits the pair into one driver [`Card`] per NIC; register accesses
    /// and polling on either advance both.
    pub fn into_cards(self) -> (PairCard, PairCard) {
        let pair = Rc::new(RefCell::new(self));
        (
            PairCard::new(pair.clone(), Side::A),
            PairCard::new(pair, Side::B),
        )
    }
}

/// One NIC of a [`NicPair`] as the driver's [`Card`].
pub struct PairCard {
    pub pair: Rc<RefCell<NicPair>>,
    side: Side,
    regions: Vec<RegionId>,
}

impl PairCard {
    fn new(pair: Rc<RefCell<NicPair>>, side: Side) -> Self {
        Self {
            pair,
            side,
            regions: Vec::new(),
        }
    }
}

impl Card for PairCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        let mut p = self.pair.borrow_mut();
        let side = self.side;
        let now = p.cycle();
        let timeout = p.side(side).cfg.mmio_timeout_cycles;
        p.side(side).pcie.push_mmio_read(now, offset);
        for _ in 0..timeout {
            let now = p.cycle();
            if let Some(v) = p.side(side).pcie.pop_completion_at_host(now) {
                return Ok(v);
            }
            p.step();
        }
        Err(Error::NoResponse(format!(
            "register read at {offset:#x} got no completion within {timeout} cycles"
        )))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        let mut p = self.pair.borrow_mut();
        let side = self.side;
        let now = p.cycle();
        p.side(side).pcie.push_mmio_write(now, offset, value);
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        let mut p = self.pair.borrow_mut();
        crate::sim_card::alloc_region(
            &mut p.side(self.side).mem,
            &mut self.regions,
            len,
            kind,
            mirrored,
        )
    }

    fn dma(&self, region: &DmaRegion) -> &[u8] {
        let p = self.pair.borrow();
        let mem = match self.side {
            Side::A => &p.a.mem,
            Side::B => &p.b.mem,
        };
        let s = mem.region(self.regions[region.id]);
        // SAFETY: the region's bytes live in a heap allocation owned by the
        // host-memory model, which never moves or frees a region while the
        // pair exists; this card keeps the pair alive (Rc), and the testbench
        // is single-threaded, so no step runs while the caller holds the slice
        // (stepping needs `&mut self` on a card, which the borrow forbids).
        unsafe { std::slice::from_raw_parts(s.as_ptr(), s.len()) }
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> &mut [u8] {
        let mut p = self.pair.borrow_mut();
        let s = p.side(self.side).mem.region_mut(self.regions[region.id]);
        // SAFETY: as in `dma`; `&mut self` makes this the only borrow through this card.
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr(), s.len()) }
    }

    fn relax(&mut self) {
        let mut p = self.pair.borrow_mut();
        let n = p.a.cfg.poll_interval_cycles;
        p.run(n);
    }
}
