use crate::models::{EthSink, EthSource, HostMemory, MmioOp, Pacing, PcieConfig, PcieModel};
use crate::verilated::{PortDir, VerilatedNic, PORTS};
use pendulum_driver::EthernetPort;
use std::collections::VecDeque;
use std::path::PathBuf;

/// Cycles before a scheduled register write during which the PCIe model's
/// register operations wait, so that the MMIO port is free and the NIC's
/// write path ready at the write's cycle. An operation the port took
/// before then is accepted within 4 cycles (a read: accepted, decoded,
/// answered; a write: accepted, checked, applied, and a cycle more after a
/// pipe is switched on or off).
pub const SCHEDULE_GUARD_CYCLES: u64 = 8;

/// Fewest cycles between two scheduled register writes: the NIC accepts a
/// register write at most every third cycle, and one cycle later after a
/// write that switches a pipe on or off (`wr_check`, `wr_apply`,
/// `restart_wait` in `hdl/src/mmio/regs.rs`).
pub const SCHEDULED_WRITE_SPACING_CYCLES: u64 = 4;

/// Called with (cycle, address, data, byte enables) for every DMA write beat
/// the host port accepts. `Send`, so a `NicSim` (and so a `SimCard`) can
/// move into another thread.
pub type DmaTap = Box<dyn FnMut(u64, u64, &[u8; 64], u64) + Send>;

/// Called with (cycle, register offset, value) for every register write the
/// NIC's MMIO port accepts. `Send`, as [`DmaTap`].
pub type MmioWriteTap = Box<dyn FnMut(u64, u32, u32) + Send>;

/// A register write to present at the MMIO port at a given cycle.
#[derive(Clone, Copy, Debug)]
struct ScheduledWrite {
    at_cycle: u64,
    addr: u32,
    value: u32,
}

/// How a simulated NIC is set up.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub pcie: PcieConfig,
    pub pacing: Pacing,
    /// How fast the MAC takes frames from the NIC's TX port.
    pub tx_pacing: Pacing,
    /// Write an FST waveform here (off by default: it slows the run down a lot).
    pub waveform: Option<PathBuf>,
    /// Cycles the host waits for a register read before giving up.
    pub mmio_timeout_cycles: u64,
    /// Cycles `relax` advances (the host's polling interval).
    pub poll_interval_cycles: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            pcie: PcieConfig::default(),
            pacing: Pacing::Unpaced,
            tx_pacing: Pacing::Unpaced,
            waveform: std::env::var_os("PENDULUM_WAVE").map(PathBuf::from),
            mmio_timeout_cycles: 100_000,
            poll_interval_cycles: 8,
        }
    }
}

/// One Verilated NIC with host memory, the PCIe link and the MAC side,
/// advanced a clock cycle at a time.
///
/// Each cycle: drive inputs, settle with the clock low, sample every
/// valid/ready handshake, raise the clock, then let the models move.
pub struct NicSim {
    pub nic: VerilatedNic,
    pub mem: HostMemory,
    pub pcie: PcieModel,
    pub eth: EthSource,
    /// The MAC's TX side: frames the NIC sent.
    pub eth_tx: EthSink,
    /// When set, the cycle each frame's first beat entered the NIC, oldest
    /// first (for latency measurements; off by default).
    pub arrivals: Option<std::collections::VecDeque<u64>>,
    eth_in_frame: bool,
    /// When set, the cycle each frame's first beat left the NIC for the MAC,
    /// oldest first (TX stamps are checked against it; off by default).
    pub departures: Option<std::collections::VecDeque<u64>>,
    eth_tx_in_frame: bool,
    pub cfg: SimConfig,
    cycle: u64,
    /// Register operation at the NIC's MMIO port, waiting for ready.
    mmio_pending: Option<MmioOp>,
    dma_data: [u8; 64],
    tracing: bool,
    /// Input values a test holds on ports by hand, by port index.
    forced: Vec<Option<Vec<u8>>>,
    /// A model stops driving its interface while any of its inputs is forced.
    eth_detached: bool,
    /// Some port is forced (also one no model drives, like `reset` or the
    /// ACP port's).
    any_forced: bool,
    dma_detached: bool,
    mmio_detached: bool,
    eth_tx_detached: bool,
    rd_detached: bool,
    tx_data: [u8; 64],
    /// ACP port: the record the link presents this cycle, and signal presence.
    pub acp_in: Option<[u8; 64]>,
    pub acp_up: bool,
    /// ACP port: the record the NIC sent in the last cycle (taken by the link model).
    pub acp_out: Option<[u8; 64]>,
    /// ACP port: whether the physical layer takes a record this cycle.
    pub acp_tx_ready: bool,
    /// What a board's RX clock crossing would report as frames it dropped
    /// (`eth_rx_overflow_drops`). The simulated MAC is never refused, so 0
    /// unless a test sets it.
    pub rx_overflow_drops: u32,
    /// Called with (cycle, address, data, byte enables) for every DMA write
    /// beat the host port accepts (for measurements; off by default).
    pub dma_tap: Option<DmaTap>,
    /// Called for every register write the MMIO port accepts (off by default).
    pub mmio_write_tap: Option<MmioWriteTap>,
    /// Writes [`NicSim::schedule_mmio_write`] will present, soonest first.
    scheduled_writes: VecDeque<ScheduledWrite>,
    /// The cycle the write pending at the MMIO port was scheduled for, if it was.
    pending_scheduled_cycle: Option<u64>,
    /// Scheduled writes the NIC accepted later than their cycle.
    scheduled_writes_late: u64,
    /// The core's `reset` input; [`NicSim::reset_card`] drives it.
    pub reset: bool,
    /// `reset` in the cycle before this one (its release cycle is the first
    /// without it).
    reset_last: bool,
    /// DMA requests, frames and records the NIC presented while reset was
    /// held or in the cycle it was released (must stay 0).
    outputs_in_reset: u64,
}

impl NicSim {
    pub fn new(cfg: SimConfig) -> Self {
        let mut nic = VerilatedNic::new();
        let mut tracing = false;
        if let Some(path) = &cfg.waveform {
            match nic.trace_open(path) {
                Ok(()) => tracing = true,
                Err(e) => eprintln!("pendulum-testbench: no waveform: {e}"),
            }
        }
        nic.set_clock(false);
        nic.eval();
        Self {
            nic,
            mem: HostMemory::new(),
            pcie: PcieModel::new(cfg.pcie.clone()),
            eth: EthSource::new(cfg.pacing),
            eth_tx: EthSink::new(cfg.tx_pacing),
            arrivals: None,
            eth_in_frame: false,
            departures: None,
            eth_tx_in_frame: false,
            cfg,
            cycle: 0,
            mmio_pending: None,
            dma_data: [0; 64],
            tracing,
            forced: vec![None; PORTS.len()],
            eth_detached: false,
            any_forced: false,
            dma_detached: false,
            mmio_detached: false,
            eth_tx_detached: false,
            rd_detached: false,
            tx_data: [0; 64],
            acp_in: None,
            acp_up: false,
            acp_out: None,
            acp_tx_ready: true,
            rx_overflow_drops: 0,
            dma_tap: None,
            mmio_write_tap: None,
            scheduled_writes: VecDeque::new(),
            pending_scheduled_cycle: None,
            scheduled_writes_late: 0,
            reset: false,
            reset_last: false,
            outputs_in_reset: 0,
        }
    }

    /// Index of a port of the top, by name.
    pub fn port_index(name: &str) -> Option<usize> {
        PORTS.iter().position(|p| p.name == name)
    }

    /// Holds input port `idx` at `value` (little-endian bytes) from the next
    /// cycle on, until released. The model that drives the port's interface
    /// (`eth_rx_*`, `eth_tx_*`, `dma_wr_*`, `dma_rd_*`, `mmio_*`) stops driving it meanwhile.
    pub fn force(&mut self, idx: usize, value: &[u8]) -> Result<(), String> {
        let p = PORTS
            .get(idx)
            .ok_or_else(|| format!("no port with index {idx}"))?;
        if p.dir != PortDir::Input {
            return Err(format!(
                "{} is an output of the NIC; only inputs can be driven",
                p.name
            ));
        }
        if p.name == "clock" {
            return Err("the clock is driven by the harness; step the simulation instead".into());
        }
        let mut v = value.to_vec();
        v.resize(p.width.div_ceil(8), 0);
        self.forced[idx] = Some(v);
        self.update_detached();
        Ok(())
    }

    /// Lets the model drive port `idx` again.
    pub fn release(&mut self, idx: usize) {
        if let Some(f) = self.forced.get_mut(idx) {
            *f = None;
        }
        self.update_detached();
    }

    fn update_detached(&mut self) {
        let any = |prefix: &str| {
            PORTS
                .iter()
                .zip(&self.forced)
                .any(|(p, f)| f.is_some() && p.name.starts_with(prefix))
        };
        self.eth_detached = any("eth_rx_");
        self.dma_detached = any("dma_wr_");
        self.mmio_detached = any("mmio_");
        self.eth_tx_detached = any("eth_tx_");
        self.rd_detached = any("dma_rd_");
        self.any_forced = self.forced.iter().any(Option::is_some);
    }

    /// The value on port `idx` now (little-endian bytes).
    pub fn peek(&self, idx: usize) -> Option<Vec<u8>> {
        let p = PORTS.get(idx)?;
        let mut v = vec![0u8; p.width.div_ceil(8)];
        self.nic.get_port(idx, &mut v).then_some(v)
    }

    /// Cycles simulated so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Advances one clock cycle.
    pub fn step(&mut self) {
        let now = self.cycle;
        if self.mmio_pending.is_none() && !self.mmio_detached {
            self.mmio_pending = self.next_mmio_op(now);
        }
        let n = &mut self.nic;

        // Inputs for this cycle.
        let eth_offer = if self.eth_detached {
            None
        } else {
            self.eth.current(now)
        };
        let mut eth_last = false;
        let eth_valid = match eth_offer {
            Some(b) => {
                eth_last = b.last;
                n.set_eth_rx_tdata(&b.data);
                n.set_eth_rx_tkeep(b.keep);
                n.set_eth_rx_tlast(b.last as u64);
                true
            }
            None => false,
        };
        n.set_eth_rx_tvalid(eth_valid as u64);
        let dma_ready = !self.dma_detached && self.pcie.can_accept_write();
        n.set_dma_wr_ready(dma_ready as u64);
        let (wr, rd) = match self.mmio_pending {
            Some(MmioOp::Write { addr, value }) => {
                n.set_mmio_wr_addr(addr as u64);
                n.set_mmio_wr_data(value as u64);
                (true, false)
            }
            Some(MmioOp::Read { addr }) => {
                n.set_mmio_rd_addr(addr as u64);
                (false, true)
            }
            None => (false, false),
        };
        n.set_mmio_wr_valid(wr as u64);
        n.set_mmio_rd_valid(rd as u64);
        n.set_mmio_rsp_ready(1);
        let tx_ready = !self.eth_tx_detached && self.eth_tx.ready(now);
        n.set_eth_tx_tready(tx_ready as u64);
        let rd_ready = !self.rd_detached && self.pcie.can_accept_read();
        n.set_dma_rd_req_ready(rd_ready as u64);
        let cpl_valid = match (self.rd_detached, self.pcie.completion_beat(now)) {
            (false, Some(b)) => {
                n.set_dma_rd_cpl_data(&b.data);
                n.set_dma_rd_cpl_last(b.last as u64);
                true
            }
            _ => false,
        };
        n.set_dma_rd_cpl_valid(cpl_valid as u64);
        match &self.acp_in {
            Some(r) => {
                n.set_acp_rx_data(r);
                n.set_acp_rx_valid(1);
            }
            None => n.set_acp_rx_valid(0),
        }
        n.set_acp_link_up(self.acp_up as u64);
        n.set_acp_tx_ready(self.acp_tx_ready as u64);
        n.set_eth_rx_overflow_drops(self.rx_overflow_drops as u64);
        n.set_reset(self.reset as u64);
        // Forced ports are rare; the hot loop skips them when there are none.
        if self.any_forced {
            for (idx, f) in self.forced.iter().enumerate() {
                if let Some(v) = f {
                    n.set_port(idx, v);
                }
            }
        }
        n.set_clock(false);
        n.eval();
        if self.tracing {
            n.trace_dump(2 * now);
        }

        // While reset is held, and in the cycle it is released, nothing may
        // leave the core.
        if (self.reset || self.reset_last)
            && (n.dma_wr_valid() != 0
                || n.dma_rd_req_valid() != 0
                || n.eth_tx_tvalid() != 0
                || n.acp_tx_valid() != 0
                || n.mmio_rsp_valid() != 0)
        {
            self.outputs_in_reset += 1;
        }
        self.reset_last = self.reset;

        // Handshakes.
        if eth_valid {
            if n.eth_rx_tready() != 0 {
                if !self.eth_in_frame {
                    if let Some(a) = self.arrivals.as_mut() {
                        a.push_back(now);
                    }
                }
                self.eth_in_frame = !eth_last;
                self.eth.accept(now);
            } else {
                self.eth.note_stall();
            }
        }
        if dma_ready && n.dma_wr_valid() != 0 {
            n.dma_wr_data(&mut self.dma_data);
            if let Some(tap) = self.dma_tap.as_mut() {
                tap(now, n.dma_wr_addr(), &self.dma_data, n.dma_wr_strb());
            }
            self.pcie.push_write(
                now,
                n.dma_wr_addr(),
                &self.dma_data,
                n.dma_wr_strb(),
                n.dma_wr_last() != 0,
            );
        }
        if tx_ready && n.eth_tx_tvalid() != 0 {
            if !self.eth_tx_in_frame {
                if let Some(d) = self.departures.as_mut() {
                    d.push_back(now);
                }
            }
            self.eth_tx_in_frame = n.eth_tx_tlast() == 0;
            n.eth_tx_tdata(&mut self.tx_data);
            self.eth_tx
                .accept(now, &self.tx_data, n.eth_tx_tkeep(), n.eth_tx_tlast() != 0);
        }
        if rd_ready && n.dma_rd_req_valid() != 0 {
            self.pcie.push_read(
                now,
                n.dma_rd_req_addr(),
                n.dma_rd_req_len() as u32,
                n.dma_rd_req_tag() as u8,
            );
        }
        if cpl_valid && n.dma_rd_cpl_ready() != 0 {
            self.pcie.pop_completion_beat(now);
        }
        let mut accepted_write = None;
        if wr && n.mmio_wr_ready() != 0 {
            if let Some(MmioOp::Write { addr, value }) = self.mmio_pending.take() {
                accepted_write = Some((addr, value));
            }
        }
        if rd && n.mmio_rd_ready() != 0 {
            self.mmio_pending = None;
        }
        if !self.mmio_detached && n.mmio_rsp_valid() != 0 {
            self.pcie
                .push_mmio_completion(now, n.mmio_rsp_data() as u32);
        }
        self.acp_out = None;
        if self.acp_tx_ready && n.acp_tx_valid() != 0 {
            let mut r = [0u8; 64];
            n.acp_tx_data(&mut r);
            self.acp_out = Some(r);
        }

        n.set_clock(true);
        n.eval();
        if self.tracing {
            n.trace_dump(2 * now + 1);
        }
        if let Some((addr, value)) = accepted_write {
            self.note_write_accepted(now, addr, value);
        }
        self.pcie.tick(now, &mut self.mem);
        self.cycle += 1;
    }

    /// Resets the card as a board does: the core's `reset` is held for
    /// `hold_cycles` cycles (at least 1) from now, with the PCIe block and
    /// the MAC (see [`NicSim::assert_reset`]).
    pub fn reset_card(&mut self, hold_cycles: u64) {
        self.assert_reset();
        self.run(hold_cycles.max(1));
        self.release_reset();
    }

    /// Raises the core's `reset` from the next cycle on, until
    /// [`NicSim::release_reset`], and resets the PCIe block and the MAC with
    /// it, as a board's reset does: DMA reads in flight, register operations
    /// on the link or waiting at the port, a write TLP cut short and the
    /// Ethernet frames in progress (both ways) are dropped (see
    /// `PcieModel::reset_link`). Queued Ethernet frames wait: the core
    /// answers and takes nothing until it has cleared its tables,
    /// `RESET_CLEAR_CYCLES` after the release.
    pub fn assert_reset(&mut self) {
        self.pcie.reset_link();
        self.mmio_pending = None;
        self.pending_scheduled_cycle = None;
        self.scheduled_writes.clear();
        self.eth.reset_mac();
        self.eth_tx.reset_mac();
        self.eth_in_frame = false;
        self.eth_tx_in_frame = false;
        self.acp_out = None;
        self.reset = true;
    }

    /// Lowers the core's `reset` from the next cycle on.
    pub fn release_reset(&mut self) {
        self.reset = false;
    }

    /// Cycles in which the core presented a DMA request, an Ethernet frame,
    /// an ACP record or a register answer while its reset was held or in the
    /// cycle it was released. A correct core keeps this at 0.
    pub fn outputs_in_reset(&self) -> u64 {
        self.outputs_in_reset
    }

    /// Advances `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Runs until the MAC side has sent everything and the link is quiet, or
    /// `max_cycles` pass. Returns whether it drained.
    pub fn drain(&mut self, max_cycles: u64) -> bool {
        let end = self.cycle + max_cycles;
        while self.cycle < end {
            if self.eth.queued_frames() == 0 && self.pcie.idle() && self.mmio_pending.is_none() {
                // A few more cycles let the last notification leave the NIC.
                self.run(64);
                if self.pcie.idle() {
                    return true;
                }
            }
            self.step();
        }
        false
    }

    /// Presents a register write straight at the NIC's MMIO port at cycle
    /// `at_cycle` (this cycle at the earliest), as if the host had posted it
    /// one PCIe latency earlier; the PCIe model's counters do not see it.
    /// Register operations from the PCIe model wait while a scheduled write
    /// is due within [`SCHEDULE_GUARD_CYCLES`], so the port is free and the
    /// NIC accepts the write at exactly `at_cycle` (unless a test forces the
    /// MMIO ports; [`NicSim::scheduled_writes_late`] counts any miss).
    /// Errors: `at_cycle` is past, or closer than
    /// [`SCHEDULED_WRITE_SPACING_CYCLES`] to another scheduled write.
    pub fn schedule_mmio_write(
        &mut self,
        at_cycle: u64,
        addr: u32,
        value: u32,
    ) -> Result<(), String> {
        if at_cycle < self.cycle {
            return Err(format!(
                "register write at {addr:#x} scheduled for cycle {at_cycle}, which is past (now {})",
                self.cycle
            ));
        }
        let i = self
            .scheduled_writes
            .partition_point(|w| w.at_cycle <= at_cycle);
        let too_close =
            |w: &ScheduledWrite| w.at_cycle.abs_diff(at_cycle) < SCHEDULED_WRITE_SPACING_CYCLES;
        let neighbours = [i.checked_sub(1), Some(i)];
        if let Some(w) = neighbours
            .into_iter()
            .flatten()
            .filter_map(|j| self.scheduled_writes.get(j))
            .find(|w| too_close(w))
        {
            return Err(format!(
                "register write at {addr:#x} scheduled for cycle {at_cycle}, within {SCHEDULED_WRITE_SPACING_CYCLES} cycles of the one at {:#x} for cycle {}",
                w.addr, w.at_cycle
            ));
        }
        self.scheduled_writes.insert(
            i,
            ScheduledWrite {
                at_cycle,
                addr,
                value,
            },
        );
        Ok(())
    }

    /// Scheduled register writes the NIC accepted later than their cycle.
    pub fn scheduled_writes_late(&self) -> u64 {
        self.scheduled_writes_late
    }

    /// Scheduled register writes not yet presented at the MMIO port.
    pub fn scheduled_writes_pending(&self) -> usize {
        self.scheduled_writes.len()
    }

    /// The register operation to present at the MMIO port at cycle `now`: a
    /// scheduled write whose cycle has come, else the PCIe model's next one
    /// unless a scheduled write is due within [`SCHEDULE_GUARD_CYCLES`].
    fn next_mmio_op(&mut self, now: u64) -> Option<MmioOp> {
        if let Some(&w) = self.scheduled_writes.front() {
            if w.at_cycle <= now {
                self.scheduled_writes.pop_front();
                self.pending_scheduled_cycle = Some(w.at_cycle);
                return Some(MmioOp::Write {
                    addr: w.addr,
                    value: w.value,
                });
            }
            if w.at_cycle - now <= SCHEDULE_GUARD_CYCLES {
                return None;
            }
        }
        self.pcie.pop_mmio_at_nic(now)
    }

    /// Bookkeeping for a register write the NIC accepted at cycle `now`.
    fn note_write_accepted(&mut self, now: u64, addr: u32, value: u32) {
        if let Some(at_cycle) = self.pending_scheduled_cycle.take() {
            if at_cycle != now {
                self.scheduled_writes_late += 1;
            }
        }
        if let Some(tap) = self.mmio_write_tap.as_mut() {
            tap(now, addr, value);
        }
    }

    /// Posts a register write from the host (it reaches the NIC one PCIe latency later).
    pub fn mmio_write(&mut self, addr: u32, value: u32) {
        self.pcie.push_mmio_write(self.cycle, addr, value);
    }

    /// Reads a register from the host: a PCIe round trip of simulated time.
    pub fn mmio_read(&mut self, addr: u32) -> Result<u32, String> {
        self.pcie.push_mmio_read(self.cycle, addr);
        let deadline = self.cycle + self.cfg.mmio_timeout_cycles;
        while self.cycle < deadline {
            if let Some(v) = self.pcie.pop_completion_at_host(self.cycle) {
                return Ok(v);
            }
            self.step();
        }
        Err(format!(
            "register read at {addr:#x} got no completion within {} cycles",
            self.cfg.mmio_timeout_cycles
        ))
    }
}

/// The MAC side as the driver's test cards offer it: the in-process
/// [`SimCard`](crate::SimCard) and `pendulum-sim serve` (the `sim:` card)
/// both call these, so the two cannot move different frames.
impl EthernetPort for NicSim {
    fn inject(&mut self, frames: &[Vec<u8>]) -> pendulum_driver::Result<()> {
        for f in frames {
            self.eth.push(f.clone());
        }
        Ok(())
    }

    fn collect(&mut self) -> pendulum_driver::Result<Vec<Vec<u8>>> {
        Ok(self.eth_tx.take_frames())
    }

    fn drain(&mut self, max_cycles: u64) -> pendulum_driver::Result<bool> {
        Ok(NicSim::drain(self, max_cycles))
    }

    fn cycles(&mut self) -> pendulum_driver::Result<u64> {
        Ok(self.cycle())
    }
}

impl Drop for NicSim {
    fn drop(&mut self) {
        if self.tracing {
            self.nic.trace_close();
        }
    }
}
