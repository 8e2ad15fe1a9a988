//! `pendulum_sim._native`: the Rust testbench (Verilated NIC, models, driver)
//! seen from Python. The cocotb-style layer (`pendulum_sim/__init__.py`) sits
//! on top; everything per cycle stays in Rust.

use pendulum_driver::{Atomics, Device, Error as DriverErr, RxPipe, TxPipe};
use pendulum_testbench::models::{Pacing, PcieConfig, RegionKind};
use pendulum_testbench::verilated::{PortDir, PORTS};
use pendulum_testbench::{NicSim, SimCard, SimConfig};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;

create_exception!(
    _native,
    SimulationEnded,
    PyRuntimeError,
    "The simulation was closed; make a new one."
);
create_exception!(
    _native,
    DriverError,
    PyRuntimeError,
    "The driver reported an error (the message says what to do)."
);

fn driver_err(e: DriverErr) -> PyErr {
    DriverError::new_err(e.to_string())
}

/// The card as a raw model, or opened by the driver (which then owns it).
// One per Python object: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Card {
    Raw(SimCard),
    Device {
        dev: Device<SimCard>,
        pipes: Vec<Option<RxPipe>>,
        tx: Vec<Option<TxPipe>>,
        atomics: Option<Atomics>,
    },
}

impl Card {
    fn sim(&self) -> &NicSim {
        match self {
            Card::Raw(c) => &c.sim,
            Card::Device { dev, .. } => &dev.card().sim,
        }
    }
    fn sim_mut(&mut self) -> &mut NicSim {
        match self {
            Card::Raw(c) => &mut c.sim,
            Card::Device { dev, .. } => &mut dev.card_mut().sim,
        }
    }
}

/// One simulated Pendulum NIC with host memory, PCIe and the MAC side.
#[pyclass(unsendable)]
struct Sim {
    card: Option<Card>,
    read_pending: bool,
}

fn port(name: &str) -> PyResult<usize> {
    NicSim::port_index(name).ok_or_else(|| PyKeyError::new_err(name.to_string()))
}

impl Sim {
    fn card(&self) -> PyResult<&Card> {
        self.card
            .as_ref()
            .ok_or_else(|| SimulationEnded::new_err("the simulation has ended"))
    }
    fn card_mut(&mut self) -> PyResult<&mut Card> {
        self.card
            .as_mut()
            .ok_or_else(|| SimulationEnded::new_err("the simulation has ended"))
    }
    fn device(&mut self) -> PyResult<(&mut Device<SimCard>, &mut Vec<Option<RxPipe>>)> {
        match self.card_mut()? {
            Card::Device { dev, pipes, .. } => Ok((dev, pipes)),
            Card::Raw(_) => Err(DriverError::new_err("open the device first (open_device)")),
        }
    }
    fn tx_pipe(&mut self, index: usize) -> PyResult<(&mut Device<SimCard>, &mut TxPipe)> {
        match self.card_mut()? {
            Card::Device { dev, tx, .. } => match tx.get_mut(index).and_then(|t| t.as_mut()) {
                Some(t) => Ok((dev, t)),
                None => Err(DriverError::new_err(format!("TX pipe {index} is not open"))),
            },
            Card::Raw(_) => Err(DriverError::new_err("open the device first (open_device)")),
        }
    }
}

#[pymethods]
impl Sim {
    #[new]
    #[pyo3(signature = (waveform=None, pcie_latency_cycles=100, pacing_gbps=None, poll_interval_cycles=8))]
    fn new(
        waveform: Option<PathBuf>,
        pcie_latency_cycles: u64,
        pacing_gbps: Option<f64>,
        poll_interval_cycles: u64,
    ) -> PyResult<Self> {
        if let Some(g) = pacing_gbps {
            if !(g > 0.0 && g.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "pacing_gbps must be a positive rate, not {g}"
                )));
            }
        }
        let cfg = SimConfig {
            pcie: PcieConfig {
                one_way_latency_cycles: pcie_latency_cycles,
                ..PcieConfig::default()
            },
            pacing: pacing_gbps.map_or(Pacing::Unpaced, |gbps| Pacing::LineRate {
                gbps,
                clock_mhz: 250.0,
            }),
            waveform,
            poll_interval_cycles: poll_interval_cycles.max(1),
            ..SimConfig::default()
        };
        Ok(Self {
            card: Some(Card::Raw(SimCard::new(cfg))),
            read_pending: false,
        })
    }

    /// Every port of the top as (name, "input"|"output", width in bits).
    #[staticmethod]
    fn ports() -> Vec<(&'static str, &'static str, usize)> {
        PORTS
            .iter()
            .map(|p| {
                (
                    p.name,
                    if p.dir == PortDir::Input {
                        "input"
                    } else {
                        "output"
                    },
                    p.width,
                )
            })
            .collect()
    }

    /// Everything `pendulum_sim.layout` exports, from pendulum-layout (the
    /// definition the HDL and the driver use): register offsets
    /// ("global": every global-page register, the link, atomic, flow and
    /// counter blocks included; "pipe"), bit fields and alignments ("bits"),
    /// atomic opcodes and statuses ("op", "status"), register-refusal causes
    /// ("reg_error": name -> (code, meaning)), build parameters ("params"),
    /// the ring format ("ring": "unit_bytes", "header_bytes", the header's
    /// fields as name -> (byte offset, bytes), and "flags": name -> mask
    /// or (bit, width) for the two-bit fields, with "nic_flags"), and the
    /// constants "page_bytes", "identity", "version",
    /// "last_reg_error_cause_shift", "flow_key_words", "beat_bytes"; and
    /// the TX stamp record ("tx_stamp").
    #[staticmethod]
    fn layout(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        use pendulum_layout::{atomic, global, params, pipe, RegError};
        let d = PyDict::new(py);
        let g = PyDict::new(py);
        for r in global::ALL
            .iter()
            .chain(global::LINK)
            .chain(global::FLOW)
            .chain(global::COUNTERS)
            .chain(global::TIME)
        {
            g.set_item(r.name, r.offset)?;
        }
        let p = PyDict::new(py);
        for r in pipe::ALL {
            p.set_item(r.name, r.offset)?;
        }
        let bits = PyDict::new(py);
        for (name, v) in global::BITS {
            bits.set_item(name, v)?;
        }
        for (name, v) in pipe::BITS {
            bits.set_item(name, v)?;
        }
        let ops = PyDict::new(py);
        for (code, name) in atomic::op::NAMES.iter().enumerate() {
            if *name != "?" {
                ops.set_item(name, code)?;
            }
        }
        let status = PyDict::new(py);
        for (name, v) in atomic::status::ALL {
            status.set_item(name, v)?;
        }
        let errors = PyDict::new(py);
        for e in RegError::ALL {
            errors.set_item(format!("{e:?}"), (e as u32, e.describe()))?;
        }
        let par = PyDict::new(py);
        for (name, v) in params::ALL {
            par.set_item(name, v)?;
        }
        d.set_item("global", g)?;
        d.set_item("pipe", p)?;
        d.set_item("bits", bits)?;
        d.set_item("op", ops)?;
        d.set_item("status", status)?;
        d.set_item("reg_error", errors)?;
        d.set_item("params", par)?;
        d.set_item("page_bytes", pendulum_layout::PAGE_BYTES)?;
        d.set_item("identity", pendulum_layout::IDENTITY)?;
        d.set_item("version", pendulum_layout::VERSION)?;
        d.set_item(
            "last_reg_error_cause_shift",
            pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT,
        )?;
        d.set_item("flow_key_words", global::FLOW_KEY_WORDS)?;
        d.set_item("beat_bytes", pendulum_layout::BEAT_BYTES)?;
        d.set_item("ring", ring_layout(py)?)?;
        d.set_item("tx_stamp", tx_stamp_layout(py)?)?;
        Ok(d)
    }

    /// The byte address of pipe `pipe`'s register page
    /// (`pendulum_layout::pipe_page`).
    #[staticmethod]
    fn pipe_page(pipe: usize) -> u32 {
        pendulum_layout::pipe_page(pipe)
    }

    /// A well-formed IPv4/UDP frame of `length` bytes for `pipe`, carrying `seq`
    /// (the generator the Rust tests use).
    #[staticmethod]
    #[pyo3(signature = (length, pipe=0, seq=0))]
    fn udp_frame<'py>(
        py: Python<'py>,
        length: usize,
        pipe: usize,
        seq: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        if !(42..=9728).contains(&length) {
            return Err(PyValueError::new_err(format!(
                "an IPv4/UDP frame here is 42 to 9728 bytes, not {length}"
            )));
        }
        if pipe >= pendulum_layout::params::PIPES {
            return Err(PyValueError::new_err(format!(
                "pipe {pipe}: the simulated card has pipes 0..{}",
                pendulum_layout::params::PIPES
            )));
        }
        Ok(PyBytes::new(
            py,
            &pendulum_testbench::models::ipv4_udp_frame(seq, length, pipe, seq ^ 0x5eed),
        ))
    }

    /// Cycles simulated so far.
    fn cycle(&self) -> PyResult<u64> {
        Ok(self.card()?.sim().cycle())
    }

    /// Advances `cycles` clock cycles, all in Rust.
    fn step(&mut self, cycles: u64) -> PyResult<()> {
        self.card_mut()?.sim_mut().run(cycles);
        Ok(())
    }

    /// The value on a port as little-endian bytes.
    fn get<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let idx = port(name)?;
        let v = self
            .card()?
            .sim()
            .peek(idx)
            .ok_or_else(|| PyKeyError::new_err(name.to_string()))?;
        Ok(PyBytes::new(py, &v))
    }

    /// Holds an input port at a value (little-endian bytes) until released.
    fn force(&mut self, name: &str, value: &[u8]) -> PyResult<()> {
        let idx = port(name)?;
        self.card_mut()?
            .sim_mut()
            .force(idx, value)
            .map_err(PyValueError::new_err)
    }

    /// Hands a forced port back to its model.
    fn release(&mut self, name: &str) -> PyResult<()> {
        let idx = port(name)?;
        self.card_mut()?.sim_mut().release(idx);
        Ok(())
    }

    /// Ends the simulation (closes the waveform); later calls raise SimulationEnded.
    fn close(&mut self) {
        self.card = None;
    }

    fn closed(&self) -> bool {
        self.card.is_none()
    }

    // ---- The MAC side ----

    /// Queues a frame to be sent into eth_rx.
    fn eth_send(&mut self, frame: &[u8]) -> PyResult<()> {
        if frame.is_empty() {
            return Err(PyValueError::new_err("an Ethernet frame cannot be empty"));
        }
        self.card_mut()?.sim_mut().eth.push(frame.to_vec());
        Ok(())
    }

    /// Frames the NIC sent on eth_tx since the last call (taken from the MAC model).
    fn eth_tx_take<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let frames = self.card_mut()?.sim_mut().eth_tx.take_frames();
        Ok(frames.iter().map(|f| PyBytes::new(py, f)).collect())
    }

    /// (frames received, bytes received, protocol errors) on the MAC's TX side.
    fn eth_tx_stats(&self) -> PyResult<(u64, u64, u64)> {
        let e = &self.card()?.sim().eth_tx;
        Ok((e.frames_received(), e.bytes_received(), e.protocol_errors()))
    }

    /// (frames queued, frames sent, bytes sent, stall cycles).
    fn eth_stats(&self) -> PyResult<(usize, u64, u64, u64)> {
        let e = &self.card()?.sim().eth;
        Ok((
            e.queued_frames(),
            e.frames_sent(),
            e.bytes_sent(),
            e.stall_cycles(),
        ))
    }

    // ---- Host memory and PCIe ----

    /// Allocates host memory the NIC can write: returns (region id, bus address).
    #[pyo3(signature = (length, kind="other", mirrored=false))]
    fn mem_alloc(&mut self, length: usize, kind: &str, mirrored: bool) -> PyResult<(usize, u64)> {
        let kind = match kind {
            "data" => RegionKind::DataRing,
            "notification" => RegionKind::Notification,
            "other" => RegionKind::Other,
            k => {
                return Err(PyValueError::new_err(format!(
                    "kind must be 'data', 'notification' or 'other', not {k:?}"
                )))
            }
        };
        if length == 0 {
            return Err(PyValueError::new_err("length must be positive"));
        }
        let (id, iova) = self.card_mut()?.sim_mut().mem.alloc(length, kind, mirrored);
        Ok((id.0, iova))
    }

    /// Reads host memory at a bus address.
    fn mem_read<'py>(
        &self,
        py: Python<'py>,
        iova: u64,
        length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.card()?.sim().mem.read(iova, length).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no host memory region holds {length} bytes at {iova:#x}"
            ))
        })?;
        Ok(PyBytes::new(py, &v))
    }

    /// PCIe model counters.
    fn pcie_counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.card()?.sim().pcie.counters().clone();
        let d = PyDict::new(py);
        d.set_item("dma_writes", c.dma_writes)?;
        d.set_item("data_bytes", c.data_bytes)?;
        d.set_item("metadata_bytes", c.metadata_bytes)?;
        d.set_item("mmio_bytes", c.mmio_bytes)?;
        d.set_item("stray_writes", c.stray_writes)?;
        Ok(d)
    }

    /// Posts a register write (it reaches the NIC one PCIe latency later).
    fn mmio_write(&mut self, addr: u32, value: u32) -> PyResult<()> {
        self.card_mut()?.sim_mut().mmio_write(addr, value);
        Ok(())
    }

    /// Sends a register read; poll for its value with `mmio_read_poll`.
    fn mmio_read_start(&mut self, addr: u32) -> PyResult<()> {
        if self.read_pending {
            return Err(PyRuntimeError::new_err(
                "a register read is already in flight",
            ));
        }
        let sim = self.card_mut()?.sim_mut();
        let now = sim.cycle();
        sim.pcie.push_mmio_read(now, addr);
        self.read_pending = true;
        Ok(())
    }

    /// The value of the read in flight, once its completion has arrived.
    fn mmio_read_poll(&mut self) -> PyResult<Option<u32>> {
        let sim = self.card_mut()?.sim_mut();
        let now = sim.cycle();
        let v = sim.pcie.pop_completion_at_host(now);
        if v.is_some() {
            self.read_pending = false;
        }
        Ok(v)
    }

    // ---- The driver (runs simulated time while it works, as a CPU would) ----

    /// Opens the card with the Rust driver (checks identity and version).
    fn open_device(&mut self) -> PyResult<()> {
        let card = self
            .card
            .take()
            .ok_or_else(|| SimulationEnded::new_err("the simulation has ended"))?;
        match card {
            Card::Raw(c) => match Device::open(c) {
                Ok(dev) => {
                    let n = dev.pipes();
                    self.card = Some(Card::Device {
                        dev,
                        pipes: (0..n).map(|_| None).collect(),
                        tx: (0..n).map(|_| None).collect(),
                        atomics: None,
                    });
                    Ok(())
                }
                Err(e) => Err(driver_err(e)),
            },
            d => {
                self.card = Some(d);
                Err(DriverError::new_err("the device is already open"))
            }
        }
    }

    /// The NIC's CYCLES counter, its hardware time, read through the driver
    /// (`Device::cycles`): the clock of RX timestamps and TX stamps.
    fn nic_cycles(&mut self) -> PyResult<u64> {
        let (dev, _) = self.device()?;
        dev.cycles().map_err(driver_err)
    }

    /// Global counters as a dict.
    fn counters<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (dev, _) = self.device()?;
        let c = dev.counters().map_err(driver_err)?;
        let d = PyDict::new(py);
        d.set_item("rx_frames", c.rx_frames)?;
        d.set_item("rx_bytes", c.rx_bytes)?;
        d.set_item("drop_ring_full", c.drop_ring_full)?;
        d.set_item("drop_malformed", c.drop_malformed)?;
        d.set_item("drop_pipe_off", c.drop_pipe_off)?;
        d.set_item("notifications", c.notifications)?;
        d.set_item("tx_frames", c.tx_frames)?;
        d.set_item("tx_bytes", c.tx_bytes)?;
        d.set_item("tx_drop_malformed", c.tx_drop_malformed)?;
        d.set_item("tx_completions", c.tx_completions)?;
        d.set_item("flow_hits", c.flow_hits)?;
        d.set_item("flow_misses", c.flow_misses)?;
        d.set_item("reg_errors", c.reg_errors)?;
        d.set_item("rx_overflow_drops", c.rx_overflow_drops)?;
        Ok(d)
    }

    /// Steers the flow (IP addresses as 4 or 16 bytes, protocol, ports) to
    /// pipe `pipe` through the flow director's exact-match table.
    fn bind_flow(
        &mut self,
        pipe: usize,
        src: Vec<u8>,
        dst: Vec<u8>,
        proto: u8,
        sport: u16,
        dport: u16,
    ) -> PyResult<()> {
        use pendulum_layout::flow::FlowKey;
        let key = match (src.len(), dst.len()) {
            (4, 4) => FlowKey::v4(
                src[..].try_into().unwrap(),
                dst[..].try_into().unwrap(),
                proto,
                sport,
                dport,
            ),
            (16, 16) => FlowKey::v6(
                src[..].try_into().unwrap(),
                dst[..].try_into().unwrap(),
                proto,
                sport,
                dport,
            ),
            _ => {
                return Err(PyValueError::new_err(
                    "addresses must both be 4 bytes (IPv4) or both 16 (IPv6)",
                ))
            }
        };
        let (dev, _) = self.device()?;
        dev.bind_flow(key, pipe).map_err(driver_err)
    }

    /// Writes a register and raises DriverError with the card's reason if it is refused.
    fn write_checked(&mut self, addr: u32, value: u32) -> PyResult<()> {
        let (dev, _) = self.device()?;
        dev.write_checked(addr, value).map_err(driver_err)
    }

    fn set_per_packet_notifications(&mut self, on: bool) -> PyResult<()> {
        let (dev, _) = self.device()?;
        dev.set_per_packet_notifications(on).map_err(driver_err)
    }

    /// Opens RX pipe `index` with a ring of `ring_bytes`.
    fn open_rx_pipe(&mut self, index: usize, ring_bytes: u32) -> PyResult<()> {
        let (dev, pipes) = self.device()?;
        let p = dev.open_rx_pipe(index, ring_bytes).map_err(driver_err)?;
        pipes[index] = Some(p);
        Ok(())
    }

    /// Binds TX pipe `tx` to the atomic unit and RX pipe `rx` to its results.
    fn open_atomics(&mut self, rx: usize, tx: usize, ring_bytes: u32) -> PyResult<()> {
        match self.card_mut()? {
            Card::Device { dev, atomics, .. } => {
                *atomics = Some(dev.open_atomics(rx, tx, ring_bytes).map_err(driver_err)?);
                Ok(())
            }
            Card::Raw(_) => Err(DriverError::new_err("open the device first (open_device)")),
        }
    }

    /// Runs one atomic verb (`pendulum_layout::atomic::op`) and waits for it:
    /// (status, old value). A refused verb raises DriverError.
    fn atomic(&mut self, op: u8, addr: u32, operands: [u64; 4]) -> PyResult<(u8, u64)> {
        match self.card_mut()? {
            Card::Device {
                dev,
                atomics: Some(at),
                ..
            } => {
                let r = at.run(dev, op, addr, operands).map_err(driver_err)?;
                Ok((r.status, r.old))
            }
            _ => Err(DriverError::new_err(
                "open the atomic unit first (open_atomics)",
            )),
        }
    }

    /// Runs one multi-word commit on the 64-byte line at `addr` and waits
    /// for it: (wrote, the line's eight words as they were). A refused
    /// commit raises DriverError.
    fn commit(
        &mut self,
        addr: u32,
        compare_mask: u8,
        compare: [u64; 8],
        write_mask: u8,
        write: [u64; 8],
    ) -> PyResult<(bool, [u64; 8])> {
        match self.card_mut()? {
            Card::Device {
                dev,
                atomics: Some(at),
                ..
            } => at
                .commit(dev, addr, compare_mask, compare, write_mask, write)
                .map_err(driver_err),
            _ => Err(DriverError::new_err(
                "open the atomic unit first (open_atomics)",
            )),
        }
    }

    /// Opens TX pipe `index` with a ring of `ring_bytes`.
    fn open_tx_pipe(&mut self, index: usize, ring_bytes: u32) -> PyResult<()> {
        match self.card_mut()? {
            Card::Device { dev, tx, .. } => {
                let p = dev.open_tx_pipe(index, ring_bytes).map_err(driver_err)?;
                tx[index] = Some(p);
                Ok(())
            }
            Card::Raw(_) => Err(DriverError::new_err("open the device first (open_device)")),
        }
    }

    /// Queues frames on TX pipe `index` (one doorbell); returns how many fit.
    fn tx_send(&mut self, index: usize, frames: Vec<Vec<u8>>) -> PyResult<usize> {
        let (dev, t) = self.tx_pipe(index)?;
        let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
        t.send(dev, &refs).map_err(driver_err)
    }

    /// Queues frames on TX pipe `index` asking a TX stamp for each
    /// (`TxPipe::send_stamped`); returns how many fit.
    fn tx_send_stamped(&mut self, index: usize, frames: Vec<Vec<u8>>) -> PyResult<usize> {
        let (dev, t) = self.tx_pipe(index)?;
        let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
        t.send_stamped(dev, &refs).map_err(driver_err)
    }

    /// The TX stamps that have come on pipe `index`, in send order, as
    /// (entry, len, cycles) tuples (`TxPipe::stamps`).
    fn tx_stamps(&mut self, index: usize) -> PyResult<Vec<(u32, u16, u64)>> {
        let (dev, t) = self.tx_pipe(index)?;
        let mut out = Vec::new();
        t.stamps(dev, &mut out).map_err(driver_err)?;
        Ok(out.iter().map(|s| (s.entry, s.len, s.cycles)).collect())
    }

    /// Polls until TX pipe `index` has finished everything posted; False if it did not in `max_polls`.
    fn tx_wait_idle(&mut self, index: usize, max_polls: u64) -> PyResult<bool> {
        let (dev, t) = self.tx_pipe(index)?;
        Ok(t.wait_idle(dev, max_polls))
    }

    /// Polls pipe `index` up to `max_polls` times; True when frames wait.
    fn rx_wait(&mut self, index: usize, max_polls: u64) -> PyResult<bool> {
        let (dev, pipes) = self.device()?;
        let p = pipes
            .get_mut(index)
            .and_then(|p| p.as_mut())
            .ok_or_else(|| DriverError::new_err(format!("pipe {index} is not open")))?;
        Ok(p.wait(dev, max_polls))
    }

    /// The frames waiting on pipe `index` (copied into bytes), then frees them.
    fn rx_recv<'py>(
        &mut self,
        py: Python<'py>,
        index: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        Ok(self
            .rx_recv_entries(py, index)?
            .into_iter()
            .map(|(frame, ..)| frame)
            .collect())
    }

    /// The frames waiting on pipe `index` with their ring headers, as
    /// (frame, flags, hash, timestamp) tuples (`layout.RING` names the
    /// FLAGS bits), then frees them.
    #[allow(clippy::type_complexity)]
    fn rx_recv_entries<'py>(
        &mut self,
        py: Python<'py>,
        index: usize,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, u16, u32, u64)>> {
        let (dev, pipes) = self.device()?;
        let p = pipes
            .get_mut(index)
            .and_then(|p| p.as_mut())
            .ok_or_else(|| DriverError::new_err(format!("pipe {index} is not open")))?;
        let (entries, end) = {
            let batch = p.recv(dev);
            let entries = batch
                .iter()
                .map(|f| {
                    f.map(|f| {
                        let h = f.header;
                        (PyBytes::new(py, f.bytes), h.flags, h.hash, h.timestamp)
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(driver_err)?;
            (entries, batch.end_unit())
        };
        p.free(dev, end).map_err(driver_err)?;
        Ok(entries)
    }
}

/// `layout()["ring"]`: the v2 ring format (`pendulum_layout::ring`).
fn ring_layout(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use pendulum_layout::ring::{self, flags};
    let r = PyDict::new(py);
    r.set_item("unit_bytes", ring::UNIT_BYTES)?;
    r.set_item("header_bytes", ring::HEADER_BYTES)?;
    let fields = PyDict::new(py);
    for (name, f) in [
        ("LEN", ring::LEN),
        ("FLAGS", ring::FLAGS),
        ("HASH", ring::HASH),
        ("TIMESTAMP", ring::TIMESTAMP),
    ] {
        fields.set_item(name, (f.lsb / 8, f.width / 8))?;
    }
    r.set_item("fields", fields)?;
    let fl = PyDict::new(py);
    for (name, f) in [("TAGS", flags::TAGS), ("L3", flags::L3), ("L4", flags::L4)] {
        fl.set_item(name, (f.lsb, f.width))?;
    }
    for (name, m) in [
        ("IP4_CSUM_OK", flags::IP4_CSUM_OK),
        ("L4_CSUM_OK", flags::L4_CSUM_OK),
        ("FLOW_HIT", flags::FLOW_HIT),
        ("FRAGMENT", flags::FRAGMENT),
    ] {
        fl.set_item(name, m)?;
    }
    r.set_item("flags", fl)?;
    r.set_item("nic_flags", flags::NIC_FLAGS)?;
    let tx = PyDict::new(py);
    tx.set_item("STAMP", ring::tx_flags::STAMP)?;
    r.set_item("tx_flags", tx)?;
    Ok(r)
}

/// `layout()["tx_stamp"]`: the TX stamp record (`pendulum_layout::tx_stamp`):
/// "bytes", the fields as name -> (byte offset, bytes), and "first_slot",
/// the first slot's offset from TX_COMPL_BASE.
fn tx_stamp_layout(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use pendulum_layout::tx_stamp;
    let t = PyDict::new(py);
    t.set_item("bytes", tx_stamp::BYTES)?;
    t.set_item("first_slot", tx_stamp::offset(0))?;
    let fields = PyDict::new(py);
    for (name, f) in [
        ("CYCLES", tx_stamp::CYCLES),
        ("ENTRY", tx_stamp::ENTRY),
        ("LEN", tx_stamp::LEN),
        ("DONE", tx_stamp::DONE),
    ] {
        fields.set_item(name, (f.lsb / 8, f.width / 8))?;
    }
    t.set_item("fields", fields)?;
    Ok(t)
}

/// The short git revision of the working tree, `-dirty` when tracked files
/// differ from it (`pendulum_testbench::git_rev`): what the benches record
/// beside their figures.
#[pyfunction]
fn git_rev() -> String {
    pendulum_testbench::git_rev()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sim>()?;
    m.add("SimulationEnded", m.py().get_type::<SimulationEnded>())?;
    m.add("DriverError", m.py().get_type::<DriverError>())?;
    m.add("VERILATOR_VERSION", pendulum_testbench::VERILATOR_VERSION)?;
    m.add_function(wrap_pyfunction!(git_rev, m)?)?;
    Ok(())
}
