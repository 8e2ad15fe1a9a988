//! The PCIe link between the NIC and the host, reduced to what matters for
//! RX performance: a one-way latency, a byte-rate limit that includes the
//! per-TLP overhead, and counters that split link bytes into packet data and
//! everything else (the "metadata share" Ensō-style designs try to minimise).

use std::collections::VecDeque;

use super::host_mem::{HostMemory, RegionKind};

/// Link parameters.
#[derive(Clone, Debug)]
pub struct PcieConfig {
    /// Cycles from a TLP leaving one side to its arrival at the other.
    pub one_way_latency_cycles: u64,
    /// Usable link rate after line coding, in Gb/s.
    pub link_gbps: f64,
    /// Simulated clock of the NIC, in MHz.
    pub clock_mhz: f64,
    /// Header and framing bytes each TLP costs on top of its payload.
    pub tlp_overhead_bytes: u32,
}

impl PcieConfig {
    /// Gen3 x16 (8 GT/s x 16 lanes, 128b/130b) at a 250 MHz NIC clock.
    pub fn gen3_x16() -> Self {
        Self {
            one_way_latency_cycles: 100,
            link_gbps: 126.03,
            clock_mhz: 250.0,
            tlp_overhead_bytes: 24,
        }
    }

    /// Gen4 x16: twice the Gen3 rate, same latency and overhead.
    pub fn gen4_x16() -> Self {
        Self {
            link_gbps: 252.06,
            ..Self::gen3_x16()
        }
    }

    /// Link bytes per NIC clock cycle (63.0 for Gen3 x16 at 250 MHz).
    pub fn bytes_per_cycle(&self) -> f64 {
        self.link_gbps * 1e9 / 8.0 / (self.clock_mhz * 1e6)
    }
}

impl Default for PcieConfig {
    fn default() -> Self {
        Self::gen3_x16()
    }
}

/// Link traffic, accumulated as it is delivered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PcieCounters {
    /// Write TLPs delivered NIC->host (including stray ones).
    pub dma_writes: u64,
    /// Payload bytes (strobe popcount) of writes into `DataRing` regions.
    pub data_bytes: u64,
    /// Every other NIC->host byte: payload of writes to `Notification`,
    /// `Other` or unmapped addresses, plus the TLP overhead of every write.
    pub metadata_bytes: u64,
    /// Register traffic: `4 + overhead` per MMIO write, `overhead` per read
    /// request, `4 + overhead` per read completion.
    pub mmio_bytes: u64,
    /// Writes delivered to unmapped addresses.
    pub stray_writes: u64,
}

impl PcieCounters {
    /// `metadata_bytes / data_bytes`, or 0 when no data has moved.
    pub fn metadata_share(&self) -> f64 {
        if self.data_bytes == 0 {
            0.0
        } else {
            self.metadata_bytes as f64 / self.data_bytes as f64
        }
    }
}

/// A register operation travelling host->NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmioOp {
    /// Posted 32-bit register write.
    Write {
        /// Register byte address.
        addr: u32,
        /// Value written.
        value: u32,
    },
    /// 32-bit register read request; the NIC answers with a completion.
    Read {
        /// Register byte address.
        addr: u32,
    },
}

struct InFlightWrite {
    arrive_cycle: u64,
    iova: u64,
    data: [u8; 64],
    strb: u64,
}

/// The link: queues of in-flight TLPs in each direction plus a bandwidth
/// limit on NIC->host writes.
pub struct PcieModel {
    cfg: PcieConfig,
    bytes_per_cycle: f64,
    bucket_cap_bytes: f64,
    /// Link bytes the NIC may still send; may go negative after a write.
    bucket_bytes: f64,
    writes: VecDeque<InFlightWrite>,
    to_nic: VecDeque<(u64, MmioOp)>,
    to_host: VecDeque<(u64, u32)>,
    counters: PcieCounters,
}

impl PcieModel {
    /// An idle link with a full token bucket.
    pub fn new(cfg: PcieConfig) -> Self {
        let bucket_cap_bytes = 2.0 * (64.0 + cfg.tlp_overhead_bytes as f64);
        Self {
            bytes_per_cycle: cfg.bytes_per_cycle(),
            bucket_cap_bytes,
            bucket_bytes: bucket_cap_bytes,
            cfg,
            writes: VecDeque::new(),
            to_nic: VecDeque::new(),
            to_host: VecDeque::new(),
            counters: PcieCounters::default(),
        }
    }

    /// The configuration the link was built with.
    pub fn config(&self) -> &PcieConfig {
        &self.cfg
    }

    /// The NIC's `dma_wr_ready`: a write may be accepted while the token
    /// bucket is not in debt. The bucket is capped at two full TLPs so an
    /// idle period cannot be banked into a burst faster than the link.
    pub fn can_accept_write(&self) -> bool {
        self.bucket_bytes >= 0.0
    }

    /// Accepts a write at cycle `now`; it reaches host memory at
    /// `now + one_way_latency_cycles`, in order of acceptance. Charging the
    /// full TLP up front (letting the bucket go negative) keeps the ready
    /// signal simple while still enforcing the long-run rate exactly.
    pub fn push_write(&mut self, now: u64, iova: u64, data: &[u8; 64], strb: u64) {
        self.bucket_bytes -= (strb.count_ones() + self.cfg.tlp_overhead_bytes) as f64;
        self.writes.push_back(InFlightWrite {
            arrive_cycle: now + self.cfg.one_way_latency_cycles,
            iova,
            data: *data,
            strb,
        });
    }

    /// Host->NIC posted register write.
    pub fn push_mmio_write(&mut self, now: u64, addr: u32, value: u32) {
        self.counters.mmio_bytes += 4 + self.cfg.tlp_overhead_bytes as u64;
        self.to_nic.push_back((
            now + self.cfg.one_way_latency_cycles,
            MmioOp::Write { addr, value },
        ));
    }

    /// Host->NIC register read request.
    pub fn push_mmio_read(&mut self, now: u64, addr: u32) {
        self.counters.mmio_bytes += self.cfg.tlp_overhead_bytes as u64;
        self.to_nic
            .push_back((now + self.cfg.one_way_latency_cycles, MmioOp::Read { addr }));
    }

    /// NIC->host read completion.
    pub fn push_mmio_completion(&mut self, now: u64, value: u32) {
        self.counters.mmio_bytes += 4 + self.cfg.tlp_overhead_bytes as u64;
        self.to_host
            .push_back((now + self.cfg.one_way_latency_cycles, value));
    }

    /// Pops the oldest register operation that has arrived at the NIC by `now`.
    pub fn pop_mmio_at_nic(&mut self, now: u64) -> Option<MmioOp> {
        match self.to_nic.front() {
            Some(&(arrive, op)) if arrive <= now => {
                self.to_nic.pop_front();
                Some(op)
            }
            _ => None,
        }
    }

    /// Pops the oldest read completion that has arrived at the host by `now`.
    pub fn pop_completion_at_host(&mut self, now: u64) -> Option<u32> {
        match self.to_host.front() {
            Some(&(arrive, value)) if arrive <= now => {
                self.to_host.pop_front();
                Some(value)
            }
            _ => None,
        }
    }

    /// Advances one cycle: refills the bucket and delivers into `mem` every
    /// write due by `now`. Stray writes are counted rather than fatal so a
    /// test can report them alongside everything else that went wrong.
    pub fn tick(&mut self, now: u64, mem: &mut HostMemory) {
        self.bucket_bytes = (self.bucket_bytes + self.bytes_per_cycle).min(self.bucket_cap_bytes);
        let overhead = self.cfg.tlp_overhead_bytes as u64;
        while self.writes.front().is_some_and(|w| w.arrive_cycle <= now) {
            let Some(w) = self.writes.pop_front() else {
                break;
            };
            let payload = w.strb.count_ones() as u64;
            let c = &mut self.counters;
            c.dma_writes += 1;
            c.metadata_bytes += overhead;
            match mem.dma_write(w.iova, &w.data, w.strb) {
                Ok(RegionKind::DataRing) => c.data_bytes += payload,
                Ok(_) => c.metadata_bytes += payload,
                Err(_) => {
                    c.metadata_bytes += payload;
                    c.stray_writes += 1;
                }
            }
        }
    }

    /// Writes accepted but not yet delivered.
    pub fn writes_in_flight(&self) -> usize {
        self.writes.len()
    }

    /// True when no write, register operation or completion is in flight.
    pub fn idle(&self) -> bool {
        self.writes.is_empty() && self.to_nic.is_empty() && self.to_host.is_empty()
    }

    /// Traffic delivered so far.
    pub fn counters(&self) -> &PcieCounters {
        &self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_rates() {
        assert!((PcieConfig::default().bytes_per_cycle() - 63.0).abs() < 0.02);
        assert!((PcieConfig::gen4_x16().bytes_per_cycle() - 126.0).abs() < 0.04);
    }

    #[test]
    fn bandwidth_limits_full_writes() {
        let mut mem = HostMemory::new();
        let (_, iova) = mem.alloc(1 << 20, RegionKind::DataRing, false);
        let mut link = PcieModel::new(PcieConfig::default());
        let (total, mut sent, mut now) = (10_000u64, 0u64, 0u64);
        while sent < total || !link.idle() {
            link.tick(now, &mut mem);
            if sent < total && link.can_accept_write() {
                link.push_write(now, iova + (sent % (1 << 14)) * 64, &[0x5A; 64], u64::MAX);
                sent += 1;
            }
            now += 1;
        }
        let expect = total as f64 * 88.0 / 63.0 + 100.0;
        assert!(
            (now as f64 - expect).abs() / expect < 0.01,
            "{now} vs {expect}"
        );
        let c = link.counters();
        assert_eq!(
            (c.dma_writes, c.data_bytes, c.metadata_bytes),
            (total, total * 64, total * 24)
        );
        assert!((c.metadata_share() - 24.0 / 64.0).abs() < 1e-9);
    }

    #[test]
    fn latency_order_and_split() {
        let mut mem = HostMemory::new();
        let (ring, ring_iova) = mem.alloc(4096, RegionKind::DataRing, false);
        let (notif, notif_iova) = mem.alloc(4096, RegionKind::Notification, false);
        let mut link = PcieModel::new(PcieConfig::default());
        // Two writes to the same bytes: in-order delivery means the second wins.
        link.push_write(5, ring_iova, &[1; 64], u64::MAX);
        link.push_write(5, ring_iova, &[2; 64], 0xFF);
        link.push_write(6, notif_iova, &[3; 64], 0xFFFF);
        link.push_write(6, 0x10, &[4; 64], 1);
        for now in 0..105 {
            link.tick(now, &mut mem);
        }
        assert_eq!(mem.region(ring)[0], 0);
        assert_eq!(link.writes_in_flight(), 4);
        link.tick(105, &mut mem);
        assert_eq!(&mem.region(ring)[7..9], &[2, 1]);
        assert_eq!(mem.region(notif)[0], 0);
        link.tick(106, &mut mem);
        assert_eq!(mem.region(notif)[15], 3);
        assert!(link.idle());
        let c = link.counters();
        assert_eq!(c.dma_writes, 4);
        assert_eq!(c.data_bytes, 64 + 8);
        assert_eq!(c.metadata_bytes, 16 + 1 + 4 * 24);
        assert_eq!(c.stray_writes, 1);
        assert_eq!(mem.stray_writes(), 1);
    }

    #[test]
    fn mmio_latency() {
        let mut link = PcieModel::new(PcieConfig::default());
        link.push_mmio_write(10, 0x40, 7);
        link.push_mmio_read(11, 0x44);
        assert_eq!(link.pop_mmio_at_nic(109), None);
        assert_eq!(
            link.pop_mmio_at_nic(110),
            Some(MmioOp::Write {
                addr: 0x40,
                value: 7
            })
        );
        assert_eq!(link.pop_mmio_at_nic(110), None);
        assert_eq!(link.pop_mmio_at_nic(111), Some(MmioOp::Read { addr: 0x44 }));
        link.push_mmio_completion(112, 0xBEEF);
        assert!(!link.idle());
        assert_eq!(link.pop_completion_at_host(211), None);
        assert_eq!(link.pop_completion_at_host(212), Some(0xBEEF));
        assert!(link.idle());
        assert_eq!(link.counters().mmio_bytes, 28 + 24 + 28);
    }
}
