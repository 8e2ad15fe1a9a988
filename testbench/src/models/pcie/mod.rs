//! The PCIe link between the NIC and the host, reduced to what matters for
//! NIC performance: a one-way latency, a byte-rate limit per direction that
//! includes the per-TLP overhead, and counters that split link bytes into
//! packet data and everything else (the "metadata share" Ensō-style designs
//! try to minimise).
//!
//! NIC->host carries DMA writes and DMA read requests, in one queue so a read
//! sees every write accepted before it (PCIe ordering: a read does not pass
//! posted writes). Host->NIC carries read completions, 64-byte beats paced by
//! a second token bucket.
//!
//! This file holds the link itself, [`PcieModel`]: its queues, the shared
//! NIC->host bandwidth charge, its clock ([`tick`](PcieModel::tick), which
//! delivers NIC->host TLPs into host memory) and its reset. `config.rs`
//! holds the link parameters and their bandwidth arithmetic, `counters.rs`
//! the traffic counters, `dma_write.rs` the NIC's DMA writes and the TLP
//! rules they are checked against, `dma_read.rs` the DMA read requests and
//! their completion beats, and `mmio.rs` the register traffic.

mod config;
mod counters;
mod dma_read;
mod dma_write;
mod mmio;

pub use config::PcieConfig;
pub use counters::PcieCounters;
pub use dma_read::CplBeat;
pub use mmio::MmioOp;

use std::collections::VecDeque;

use super::host_mem::{HostMemory, RegionKind};
use dma_read::PendingBeat;

/// A NIC->host TLP on its way to host memory.
enum ToHost {
    Write {
        iova: u64,
        data: [u8; 64],
        strb: u64,
        /// First beat of a write TLP: it carries the TLP overhead.
        tlp_start: bool,
    },
    Read {
        iova: u64,
        len_bytes: u32,
        tag: u8,
        accept_cycle: u64,
    },
}

/// The link: queues of in-flight TLPs in each direction plus a bandwidth
/// limit on each direction's DMA traffic.
pub struct PcieModel {
    cfg: PcieConfig,
    bytes_per_cycle: f64,
    bucket_cap_bytes: f64,
    /// NIC->host link bytes the NIC may still send; may go negative after a TLP.
    bucket_bytes: f64,
    /// Host->NIC link bytes completions may still use; may go negative after a beat.
    cpl_bucket_bytes: f64,
    /// Writes and read requests in acceptance order, each with its arrival cycle.
    nic_to_host: VecDeque<(u64, ToHost)>,
    writes_in_flight: usize,
    /// Read requests accepted whose last completion beat the NIC has not taken.
    reads_in_flight: usize,
    completions: VecDeque<PendingBeat>,
    to_nic: VecDeque<(u64, MmioOp)>,
    to_host: VecDeque<(u64, u32)>,
    counters: PcieCounters,
    /// The write TLP being received: open, its first address, and where the next beat must go.
    write_tlp_open: bool,
    write_tlp_first: u64,
    write_tlp_next: u64,
    /// Every read request accepted since [`log_reads`](PcieModel::log_reads), as (address, length).
    read_log: Option<Vec<(u64, u32)>>,
}

impl PcieModel {
    /// An idle link with a full token bucket.
    pub fn new(cfg: PcieConfig) -> Self {
        let bucket_cap_bytes = 2.0 * (64.0 + cfg.tlp_overhead_bytes as f64);
        Self {
            bytes_per_cycle: cfg.bytes_per_cycle(),
            bucket_cap_bytes,
            bucket_bytes: bucket_cap_bytes,
            cpl_bucket_bytes: bucket_cap_bytes,
            cfg,
            nic_to_host: VecDeque::new(),
            writes_in_flight: 0,
            reads_in_flight: 0,
            completions: VecDeque::new(),
            to_nic: VecDeque::new(),
            to_host: VecDeque::new(),
            counters: PcieCounters::default(),
            write_tlp_open: false,
            write_tlp_first: 0,
            write_tlp_next: 0,
            read_log: None,
        }
    }

    /// The configuration the link was built with.
    pub fn config(&self) -> &PcieConfig {
        &self.cfg
    }

    /// Takes `bytes` of the NIC->host direction's bandwidth, and counts them.
    fn charge_to_host(&mut self, bytes: u64) {
        self.bucket_bytes -= bytes as f64;
        self.counters.to_host_link_bytes += bytes;
    }

    /// Advances one cycle: refills both buckets and delivers into `mem` every
    /// write and read request due by `now`, in acceptance order (so a read
    /// sees the writes accepted before it). Stray writes and bad reads are
    /// counted rather than fatal so a test can report them alongside
    /// everything else that went wrong.
    pub fn tick(&mut self, now: u64, mem: &mut HostMemory) {
        self.bucket_bytes = (self.bucket_bytes + self.bytes_per_cycle).min(self.bucket_cap_bytes);
        self.cpl_bucket_bytes =
            (self.cpl_bucket_bytes + self.bytes_per_cycle).min(self.bucket_cap_bytes);
        let overhead = self.cfg.tlp_overhead_bytes as u64;
        while self
            .nic_to_host
            .front()
            .is_some_and(|(arrive, _)| *arrive <= now)
        {
            let Some((_, tlp)) = self.nic_to_host.pop_front() else {
                break;
            };
            let (iova, data, strb, tlp_start) = match tlp {
                ToHost::Write {
                    iova,
                    data,
                    strb,
                    tlp_start,
                } => (iova, data, strb, tlp_start),
                ToHost::Read {
                    iova,
                    len_bytes,
                    tag,
                    accept_cycle,
                } => {
                    self.serve_read(mem, iova, len_bytes, tag, accept_cycle);
                    continue;
                }
            };
            self.writes_in_flight -= 1;
            let payload = strb.count_ones() as u64;
            let c = &mut self.counters;
            if tlp_start {
                c.dma_writes += 1;
                c.metadata_bytes += overhead;
            }
            match mem.dma_write(iova, &data, strb) {
                Ok(RegionKind::DataRing) => c.data_bytes += payload,
                Ok(_) => c.metadata_bytes += payload,
                Err(_) => {
                    c.metadata_bytes += payload;
                    c.stray_writes += 1;
                }
            }
        }
    }

    /// The PCIe block is reset with the core (a board drives the core's
    /// reset from it, and a PCIe reset takes the TLPs in flight with it):
    /// read requests not yet served, completions not yet taken, register
    /// operations on their way either way, and the beats of a write TLP the
    /// NIC had not finished (a TLP is only sent whole) are dropped. Whole
    /// writes already accepted were posted, and still land. Returns (read
    /// requests dropped, write beats dropped).
    pub fn reset_link(&mut self) -> (usize, usize) {
        let mut reads = 0;
        let mut beats = 0;
        self.nic_to_host.retain(|(_, t)| {
            let read = matches!(t, ToHost::Read { .. });
            reads += read as usize;
            !read
        });
        if self.write_tlp_open {
            while let Some((_, ToHost::Write { tlp_start, .. })) = self.nic_to_host.back() {
                let start = *tlp_start;
                self.nic_to_host.pop_back();
                self.writes_in_flight -= 1;
                beats += 1;
                if start {
                    break;
                }
            }
            self.write_tlp_open = false;
        }
        self.completions.clear();
        self.reads_in_flight = 0;
        self.to_nic.clear();
        self.to_host.clear();
        (reads, beats)
    }

    /// True when no write, DMA read, completion beat, register operation or
    /// register completion is in flight.
    pub fn idle(&self) -> bool {
        self.nic_to_host.is_empty()
            && self.completions.is_empty()
            && self.reads_in_flight == 0
            && self.to_nic.is_empty()
            && self.to_host.is_empty()
    }

    /// Traffic delivered so far.
    pub fn counters(&self) -> &PcieCounters {
        &self.counters
    }
}
