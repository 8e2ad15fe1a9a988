//! Two simulated NICs whose ACP ports are joined by the link model: the
//! testbench for the ACP link (`shared/ACP.md`). Each NIC has its own host
//! memory and PCIe model; both advance one cycle at a time together.

/// The two ends of the pair are the two ends of the link model.
pub use crate::models::acp_link::Side;
use crate::models::{AcpLinkModel, LinkFaults, RegionId};
pub use crate::nic_sim::{SCHEDULED_WRITE_SPACING_CYCLES, SCHEDULE_GUARD_CYCLES};
use crate::{NicSim, SimConfig};
use pendulum_driver::{Card, DmaRegion, DmaView, DmaViewMut, Error, RegionKind, Result};
use std::cell::RefCell;
use std::rc::Rc;

/// Called with (cycle, sender, record) for every record put on the wire.
pub type WireTap = Box<dyn FnMut(u64, Side, &[u8; 64])>;
/// Says whether a side's physical layer takes a record at a cycle.
pub type PhyReady = Box<dyn FnMut(u64, Side) -> bool>;

/// NIC A and NIC B, ACP port to ACP port.
pub struct NicPair {
    pub a: NicSim,
    pub b: NicSim,
    pub link: AcpLinkModel,
    /// Called with (cycle, sender, record) for every record put on the wire
    /// (for measurements; off by default).
    pub wire_tap: Option<WireTap>,
    /// Whether each side's physical layer takes a record this cycle (a
    /// stalled slot delays that side's records; default: always).
    pub phy_ready: Option<PhyReady>,
}

impl NicPair {
    /// Two NICs set up alike by `cfg`, joined by a link with `faults`.
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

    /// Advances `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Cycles simulated so far (the same on both NICs and the link).
    pub fn cycle(&self) -> u64 {
        self.a.cycle()
    }

    /// Presents a register write at `side`'s MMIO port at exactly cycle
    /// `at_cycle` (see [`NicSim::schedule_mmio_write`]: host register
    /// operations on that side wait during the [`SCHEDULE_GUARD_CYCLES`]
    /// before it). The link model's one-sided faults are on [`NicPair::link`]
    /// (`los_now`, `drop_now`, `replay_now`, `damage_next`), by the same [`Side`].
    /// Errors: `at_cycle` is past, or closer than
    /// [`SCHEDULED_WRITE_SPACING_CYCLES`] to another write scheduled on that side.
    pub fn schedule_write(
        &mut self,
        side: Side,
        at_cycle: u64,
        addr: u32,
        value: u32,
    ) -> std::result::Result<(), String> {
        self.side(side).schedule_mmio_write(at_cycle, addr, value)
    }

    /// The NIC at `side`.
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
    /// The driver's card for the NIC at `side` of a shared pair (another
    /// handle on it, e.g. to open the card again after a reset).
    pub fn new(pair: Rc<RefCell<NicPair>>, side: Side) -> Self {
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

    /// A view that outlives the `RefCell` borrow it was made under: the
    /// other card of the pair may step both NICs while it lives, and the
    /// NIC then writes this memory by DMA. So the view holds a raw pointer,
    /// not a slice, and reads through atomic loads (`DmaView`).
    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        let id = self.regions[region.id];
        let raw = match self.side {
            Side::A => self.pair.borrow().a.mem.region_ptr(id),
            Side::B => self.pair.borrow().b.mem.region_ptr(id),
        };
        let Some((ptr, len)) = raw else {
            return DmaView::from_slice(&[]);
        };
        // SAFETY: the bytes stay allocated while the pair lives (the model
        // never moves or frees a region), and the view borrows `self`, whose
        // `Rc` keeps the pair alive. Steps of the pair (through either card)
        // write them only in `HostMemory::dma_write`, through raw pointers
        // that leave this one valid, and only bytes a NIC writes by DMA,
        // which excludes frames it announced and has not had back (the bytes
        // `DmaView::announced` may hand out). Within this crate no slice of a
        // pair's memory is taken (`HostMemory::region_mut` is crate-private and
        // used only on a `SimCard`'s), and the testbench is single-threaded,
        // so the view's atomic loads race with nothing.
        unsafe { DmaView::from_raw(ptr, len) }
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        let id = self.regions[region.id];
        let raw = self
            .pair
            .borrow_mut()
            .side(self.side)
            .mem
            .region_ptr_mut(id);
        let Some((ptr, len)) = raw else {
            return DmaViewMut::from_slice(&mut []);
        };
        // SAFETY: as in `dma`: allocated while the pair lives, which the
        // borrowed `self` keeps alive; no slice of it exists (a `dma` view
        // of this card would need `&self`, excluded by `&mut self`). Steps
        // run by the other card meanwhile write only bytes the NIC writes by
        // DMA, and the driver writes only a TX ring's free slots, which the
        // NIC does not write.
        unsafe { DmaViewMut::from_raw(ptr, len) }
    }

    fn relax(&mut self) {
        let mut p = self.pair.borrow_mut();
        let n = p.a.cfg.poll_interval_cycles;
        p.run(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::acp::{BYTE_OPCODE, OP_ENTANGLE};
    use pendulum_layout::global::{LINK_CTRL, LINK_CTRL_RESET, SCRATCH};
    use std::sync::{Arc, Mutex};

    /// One-way latency of the link in these tests, cycles.
    const LINK_LATENCY_CYCLES: u32 = 10;
    /// Cycles run before anything is scheduled.
    const WARM_UP_CYCLES: u64 = 500;
    /// Host register writes on the same port, arriving at the NIC around the
    /// scheduled write (from this many cycles before it to as many after).
    const HOST_WRITES_AROUND: u64 = 3;
    /// Bytes 16..20 of an ENTANGLE record: the sender's incarnation, drawn
    /// again at every reset of its link state.
    const INCARNATION: std::ops::Range<usize> = 16..20;

    /// What a run that resets B's link at a scheduled cycle saw.
    struct ResetRun {
        at_cycle: u64,
        /// (cycle, offset, value) of every register write B's port accepted.
        accepted: Vec<(u64, u32, u32)>,
        /// The cycle B's first ENTANGLE record with a new incarnation
        /// entered the wire.
        new_incarnation_cycle: u64,
        late: u64,
    }

    /// Schedules a LINK_CTRL reset on B `lead_cycles` after the warm-up,
    /// with host writes to SCRATCH on B arriving around it.
    fn reset_b_after(lead_cycles: u64) -> ResetRun {
        let mut p = NicPair::new(
            SimConfig::default(),
            LinkFaults {
                latency: LINK_LATENCY_CYCLES,
                ..Default::default()
            },
        );
        let accepted = Arc::new(Mutex::new(Vec::new()));
        let acc = accepted.clone();
        p.b.mmio_write_tap = Some(Box::new(move |c, a, v| acc.lock().unwrap().push((c, a, v))));
        let incarnations = Rc::new(RefCell::new(Vec::new()));
        let inc = incarnations.clone();
        p.wire_tap = Some(Box::new(move |c, side, r| {
            if side == Side::B && r[BYTE_OPCODE] == OP_ENTANGLE {
                inc.borrow_mut().push((c, r[INCARNATION].to_vec()));
            }
        }));
        p.run(WARM_UP_CYCLES);
        let at_cycle = p.cycle() + lead_cycles;
        p.schedule_write(Side::B, at_cycle, LINK_CTRL.offset, LINK_CTRL_RESET)
            .unwrap();
        let pcie_cycles = p.b.cfg.pcie.one_way_latency_cycles;
        let host_writes = at_cycle - HOST_WRITES_AROUND - pcie_cycles
            ..=at_cycle + HOST_WRITES_AROUND - pcie_cycles;
        while p.cycle() < at_cycle + lead_cycles {
            let now = p.cycle();
            if host_writes.contains(&now) {
                p.b.mmio_write(SCRATCH.offset, now as u32);
            }
            p.step();
        }
        let incarnations = incarnations.borrow();
        // (The first records, before B drew its first incarnation, carry 0.)
        let (_, old) = incarnations
            .iter()
            .rfind(|(c, _)| *c < at_cycle)
            .expect("B sent no ENTANGLE record before the reset");
        let new_incarnation_cycle = incarnations
            .iter()
            .find(|(c, i)| *c >= at_cycle && i != old)
            .expect("B never drew a new incarnation")
            .0;
        let late = p.b.scheduled_writes_late();
        let accepted = accepted.lock().unwrap().clone();
        ResetRun {
            at_cycle,
            accepted,
            new_incarnation_cycle,
            late,
        }
    }

    #[test]
    fn a_scheduled_write_is_accepted_at_exactly_its_cycle() {
        // Two lead times 13 cycles apart: not a multiple of the period at
        // which the NICs redraw colliding nonces (17 cycles in this build),
        // so a reset that acted on such a rotation would show two delays.
        const LEADS: [u64; 2] = [200, 213];
        let runs = LEADS.map(reset_b_after);
        for r in &runs {
            let resets: Vec<_> = r
                .accepted
                .iter()
                .filter(|&&(_, a, _)| a == LINK_CTRL.offset)
                .collect();
            assert_eq!(
                resets,
                vec![&(r.at_cycle, LINK_CTRL.offset, LINK_CTRL_RESET)]
            );
            assert_eq!(r.late, 0);
            // The host's writes all went through, in order, none at that cycle.
            let host: Vec<_> = r
                .accepted
                .iter()
                .filter(|&&(_, a, _)| a == SCRATCH.offset)
                .collect();
            assert_eq!(
                host.len() as u64,
                2 * HOST_WRITES_AROUND + 1,
                "{:?}",
                r.accepted
            );
            assert!(host.windows(2).all(|w| w[0].0 < w[1].0 && w[0].2 < w[1].2));
            assert!(host.iter().all(|&&(c, _, _)| c != r.at_cycle));
        }
        // Seen from the wire, the reset acts a fixed number of cycles after
        // the cycle asked for.
        let delays = runs
            .each_ref()
            .map(|r| r.new_incarnation_cycle - r.at_cycle);
        assert_eq!(delays[0], delays[1], "reset seen at delays {delays:?}");
    }

    #[test]
    fn a_write_cannot_be_scheduled_in_the_past_or_too_close_to_another() {
        let mut p = NicPair::new(SimConfig::default(), LinkFaults::default());
        p.run(10);
        let now = p.cycle();
        assert!(p
            .schedule_write(Side::A, now - 1, SCRATCH.offset, 1)
            .is_err());
        assert!(p.schedule_write(Side::A, now, SCRATCH.offset, 1).is_ok());
        let later = now + 50;
        p.schedule_write(Side::A, later, SCRATCH.offset, 2).unwrap();
        for too_close in [later - 1, later, later + 1] {
            assert!(p
                .schedule_write(Side::A, too_close, SCRATCH.offset, 3)
                .is_err());
        }
        assert!(p
            .schedule_write(
                Side::A,
                later + SCHEDULED_WRITE_SPACING_CYCLES,
                SCRATCH.offset,
                4
            )
            .is_ok());
        assert!(
            p.schedule_write(Side::B, later, SCRATCH.offset, 5).is_ok(),
            "each side has its own port"
        );
        assert_eq!(p.a.scheduled_writes_pending(), 3);
        p.run(60);
        assert_eq!(
            (p.a.scheduled_writes_pending(), p.a.scheduled_writes_late()),
            (0, 0)
        );
    }
}
