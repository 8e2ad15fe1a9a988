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

use std::collections::VecDeque;

use pendulum_layout::params::{DMA_BOUNDARY_BYTES, DMA_READ_MAX_BYTES};
use pendulum_layout::BEAT_BYTES;

use super::host_mem::{HostMemory, RegionKind};

/// Payload bytes of one read-completion TLP: the host splits a read into
/// completions of this size (a common read completion boundary / max payload).
const CPL_TLP_PAYLOAD_BYTES: usize = 256;
/// Beats of one completion TLP; the first of them carries the TLP overhead.
const CPL_TLP_BEATS: usize = CPL_TLP_PAYLOAD_BYTES / BEAT_BYTES;

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
    /// Write TLPs delivered NIC->host (including stray ones); a TLP is up to
    /// four 64-byte beats.
    pub dma_writes: u64,
    /// Write beats that broke the TLP rules: not following the previous beat's
    /// address, more than four beats, or crossing a 256-byte boundary (a beat
    /// whose strobed bytes straddle one counts too). A write that keeps them
    /// never crosses a 4 KiB boundary either.
    pub tlp_errors: u64,
    /// Payload bytes (strobe popcount) of writes into `DataRing` regions.
    pub data_bytes: u64,
    /// Every other NIC->host byte: payload of writes to `Notification`,
    /// `Other` or unmapped addresses, plus the TLP overhead of every write.
    pub metadata_bytes: u64,
    /// Register traffic: `4 + overhead` per MMIO write, `overhead` per read
    /// request, `4 + overhead` per read completion.
    pub mmio_bytes: u64,
    /// Register writes the host posted (doorbells: head and tail moves,
    /// prefetches, configuration).
    pub mmio_writes: u64,
    /// Writes delivered to unmapped addresses.
    pub stray_writes: u64,
    /// DMA read requests that reached host memory.
    pub read_requests: u64,
    /// Completion payload bytes the NIC took that were read from `DataRing`
    /// regions (TX frame data). Completion TLP overhead and payload read from
    /// other regions go to `metadata_bytes`.
    pub tx_data_bytes: u64,
    /// Reads that were refused: unmapped (or partly unmapped) addresses, a
    /// length that is zero, not a multiple of 64 or above 512, or bytes that
    /// cross a 4 KiB boundary. Each is answered with zeros so the NIC is not
    /// left waiting.
    pub read_errors: u64,
    /// Read requests whose bytes cross a 4 KiB boundary
    /// (`DMA_BOUNDARY_BYTES`), which PCIe and AXI forbid; also in `read_errors`.
    pub read_page_crossings: u64,
    /// NIC->host link bytes charged to the bandwidth limit: write payload and
    /// TLP headers, and read request headers. Over `cycles *
    /// bytes_per_cycle` it is how busy that direction was.
    pub to_host_link_bytes: u64,
    /// Host->NIC link bytes charged to the bandwidth limit: read completion
    /// beats with their TLP headers (register writes are not charged).
    pub to_nic_link_bytes: u64,
}

impl PcieCounters {
    /// `metadata_bytes / data_bytes`, or 0 when no data has moved.
    ///
    /// The denominator is NIC->host ring data only (RX), as before TX existed;
    /// the numerator includes everything that is not ring data in both
    /// directions (write and read-request overhead, completion headers,
    /// notifications and TX completion records). So with TX traffic the
    /// share grows: compare it only between runs with the same traffic mix,
    /// and use `tx_data_bytes` for the TX payload.
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

/// One beat of a DMA read completion, as the NIC's completion port takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CplBeat {
    /// 64 bytes of host memory, in address order.
    pub data: [u8; 64],
    /// Tag of the request this beat answers.
    pub tag: u8,
    /// Last beat of that request.
    pub last: bool,
}

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

/// A completion beat waiting to be presented to the NIC.
struct PendingBeat {
    beat: CplBeat,
    /// First cycle the beat may be presented (request accepted + 2 * latency).
    ready_cycle: u64,
    /// Host->NIC link bytes the beat costs: 64, plus the TLP overhead on the
    /// first beat of each completion TLP.
    cost_bytes: u32,
    /// The beat carries a completion TLP header.
    tlp_start: bool,
    /// The payload came from a `DataRing` region.
    ring_data: bool,
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

/// Largest write payload per TLP (PCIe max payload size).
const MAX_PAYLOAD_BYTES: u64 = 256;

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

    /// The NIC's `dma_wr_ready`: a write may be accepted while the token
    /// bucket is not in debt. The bucket is capped at two full TLPs so an
    /// idle period cannot be banked into a burst faster than the link.
    pub fn can_accept_write(&self) -> bool {
        self.bucket_bytes >= 0.0
    }

    /// Accepts one beat of a write at cycle `now`; `last` ends the write
    /// (TLP), which may be up to four consecutive beats within one 256-byte
    /// block. It reaches host memory at `now + one_way_latency_cycles`, in
    /// order of acceptance. Charging each beat up front (letting the bucket go
    /// negative) keeps the ready signal simple while still enforcing the
    /// long-run rate exactly; the TLP overhead is charged on its first beat.
    pub fn push_write(&mut self, now: u64, iova: u64, data: &[u8; 64], strb: u64, last: bool) {
        let tlp_start = !self.write_tlp_open;
        if tlp_start {
            self.charge_to_host(self.cfg.tlp_overhead_bytes as u64);
            self.write_tlp_first = iova;
        } else if iova != self.write_tlp_next
            || iova / MAX_PAYLOAD_BYTES != self.write_tlp_first / MAX_PAYLOAD_BYTES
        {
            self.counters.tlp_errors += 1;
        }
        if strb != 0 {
            let first = iova.wrapping_add(strb.trailing_zeros() as u64);
            let last = iova.wrapping_add(63 - strb.leading_zeros() as u64);
            if first / MAX_PAYLOAD_BYTES != last / MAX_PAYLOAD_BYTES {
                self.counters.tlp_errors += 1;
            }
        }
        self.write_tlp_next = iova.wrapping_add(BEAT_BYTES as u64);
        self.write_tlp_open = !last;
        self.charge_to_host(strb.count_ones() as u64);
        self.writes_in_flight += 1;
        self.nic_to_host.push_back((
            now + self.cfg.one_way_latency_cycles,
            ToHost::Write {
                iova,
                data: *data,
                strb,
                tlp_start,
            },
        ));
    }

    /// The NIC's `dma_rd_req_ready`: can a read request be taken this cycle.
    /// Request TLPs share the NIC->host bandwidth bucket with writes (a
    /// request costs `tlp_overhead_bytes`), so the rule is
    /// [`can_accept_write`](Self::can_accept_write)'s.
    pub fn can_accept_read(&self) -> bool {
        self.can_accept_write()
    }

    /// Takes `bytes` of the NIC->host direction's bandwidth, and counts them.
    fn charge_to_host(&mut self, bytes: u64) {
        self.bucket_bytes -= bytes as f64;
        self.counters.to_host_link_bytes += bytes;
    }

    /// Accepts a DMA read of `len_bytes` at bus address `iova` at cycle `now`.
    ///
    /// The request reaches host memory at `now + latency`, behind every write
    /// accepted before it; memory is read then, in [`tick`](Self::tick). Its
    /// completion beats may be presented from `now + 2 * latency` on, in
    /// request order, as the host->NIC bandwidth allows.
    ///
    /// A length of 0, not a multiple of 64, or above 512 is a NIC bug: it is
    /// counted in `read_errors` and answered with zeros (rounded up to whole
    /// beats, at most 512 bytes) rather than ignored, so the NIC's completion
    /// tracking does not hang and the test can report the count.
    pub fn push_read(&mut self, now: u64, iova: u64, len_bytes: u32, tag: u8) {
        self.charge_to_host(self.cfg.tlp_overhead_bytes as u64);
        if let Some(log) = &mut self.read_log {
            log.push((iova, len_bytes));
        }
        self.reads_in_flight += 1;
        self.nic_to_host.push_back((
            now + self.cfg.one_way_latency_cycles,
            ToHost::Read {
                iova,
                len_bytes,
                tag,
                accept_cycle: now,
            },
        ));
    }

    /// Starts recording every read request accepted from now on, as
    /// (address, length), for [`take_read_log`](Self::take_read_log).
    /// Off by default: a long bench issues millions.
    pub fn log_reads(&mut self) {
        self.read_log.get_or_insert_with(Vec::new);
    }

    /// The read requests recorded since [`log_reads`](Self::log_reads) or the
    /// last call, in acceptance order; recording goes on.
    pub fn take_read_log(&mut self) -> Vec<(u64, u32)> {
        self.read_log
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The completion beat at the head of the queue, if it may be presented
    /// at `now`: its data has had time to come back and the host->NIC
    /// bandwidth bucket is not in debt. Does not remove it.
    pub fn completion_beat(&self, now: u64) -> Option<&CplBeat> {
        let head = self.completions.front()?;
        (head.ready_cycle <= now && self.cpl_bucket_bytes >= 0.0).then_some(&head.beat)
    }

    /// The NIC accepted the head completion beat at `now` (it must have been
    /// offered by [`completion_beat`](Self::completion_beat); otherwise this
    /// does nothing).
    pub fn pop_completion_beat(&mut self, now: u64) {
        if self.completion_beat(now).is_none() {
            return;
        }
        let Some(b) = self.completions.pop_front() else {
            return;
        };
        self.cpl_bucket_bytes -= b.cost_bytes as f64;
        let c = &mut self.counters;
        c.to_nic_link_bytes += b.cost_bytes as u64;
        if b.tlp_start {
            c.metadata_bytes += self.cfg.tlp_overhead_bytes as u64;
        }
        if b.ring_data {
            c.tx_data_bytes += BEAT_BYTES as u64;
        } else {
            c.metadata_bytes += BEAT_BYTES as u64;
        }
        if b.beat.last {
            self.reads_in_flight = self.reads_in_flight.saturating_sub(1);
        }
    }

    /// Read requests accepted and not fully completed (last beat not yet
    /// taken by the NIC).
    pub fn reads_in_flight(&self) -> usize {
        self.reads_in_flight
    }

    /// A read request arrives at host memory: reads it now and queues its
    /// completion beats.
    fn serve_read(
        &mut self,
        mem: &HostMemory,
        iova: u64,
        len_bytes: u32,
        tag: u8,
        accept_cycle: u64,
    ) {
        let overhead = self.cfg.tlp_overhead_bytes;
        self.counters.read_requests += 1;
        self.counters.metadata_bytes += overhead as u64;
        let boundary = DMA_BOUNDARY_BYTES as u64;
        let crosses = iova % boundary + len_bytes as u64 > boundary;
        if crosses {
            self.counters.read_page_crossings += 1;
        }
        let len_ok = len_bytes != 0
            // Whole beats (BEAT_BYTES is a power of two; a mask also suits the 1.80 MSRV).
            && len_bytes & (BEAT_BYTES as u32 - 1) == 0
            && len_bytes <= DMA_READ_MAX_BYTES
            && !crosses;
        // Bounded, so a wild length cannot make the model allocate gigabytes.
        let served_bytes = (len_bytes.div_ceil(BEAT_BYTES as u32) as usize * BEAT_BYTES)
            .clamp(BEAT_BYTES, DMA_READ_MAX_BYTES as usize);
        let data = if len_ok {
            mem.read(iova, served_bytes)
        } else {
            None
        };
        let ring_data = data.is_some() && mem.kind_of(iova) == Some(RegionKind::DataRing);
        let data = data.unwrap_or_else(|| {
            self.counters.read_errors += 1;
            vec![0; served_bytes]
        });
        let beats = served_bytes / BEAT_BYTES;
        let ready_cycle = accept_cycle + 2 * self.cfg.one_way_latency_cycles;
        for (i, chunk) in data.chunks_exact(BEAT_BYTES).enumerate() {
            let mut beat = CplBeat {
                data: [0; 64],
                tag,
                last: i + 1 == beats,
            };
            beat.data.copy_from_slice(chunk);
            let tlp_start = i % CPL_TLP_BEATS == 0;
            self.completions.push_back(PendingBeat {
                beat,
                ready_cycle,
                cost_bytes: BEAT_BYTES as u32 + if tlp_start { overhead } else { 0 },
                tlp_start,
                ring_data,
            });
        }
    }

    /// Host->NIC posted register write.
    pub fn push_mmio_write(&mut self, now: u64, addr: u32, value: u32) {
        self.counters.mmio_bytes += 4 + self.cfg.tlp_overhead_bytes as u64;
        self.counters.mmio_writes += 1;
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

    /// Writes accepted but not yet delivered.
    pub fn writes_in_flight(&self) -> usize {
        self.writes_in_flight
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
                link.push_write(
                    now,
                    iova + (sent % (1 << 14)) * 64,
                    &[0x5A; 64],
                    u64::MAX,
                    true,
                );
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
        assert_eq!((c.to_host_link_bytes, c.to_nic_link_bytes), (total * 88, 0));
    }

    #[test]
    fn latency_order_and_split() {
        let mut mem = HostMemory::new();
        let (ring, ring_iova) = mem.alloc(4096, RegionKind::DataRing, false);
        let (notif, notif_iova) = mem.alloc(4096, RegionKind::Notification, false);
        let mut link = PcieModel::new(PcieConfig::default());
        // Two writes to the same bytes: in-order delivery means the second wins.
        link.push_write(5, ring_iova, &[1; 64], u64::MAX, true);
        link.push_write(5, ring_iova, &[2; 64], 0xFF, true);
        link.push_write(6, notif_iova, &[3; 64], 0xFFFF, true);
        link.push_write(6, 0x10, &[4; 64], 1, true);
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
        assert_eq!(link.counters().mmio_writes, 1, "reads are not writes");
    }

    /// Steps `link` from `now` until it is idle, taking every completion beat
    /// offered; returns the beats with the cycle each was taken.
    pub(super) fn drain_reads(
        link: &mut PcieModel,
        mem: &mut HostMemory,
        mut now: u64,
    ) -> Vec<(u64, CplBeat)> {
        let mut got = Vec::new();
        while !link.idle() {
            link.tick(now, mem);
            if let Some(b) = link.completion_beat(now).cloned() {
                link.pop_completion_beat(now);
                got.push((now, b));
            }
            now += 1;
            assert!(now < 10_000_000, "reads never completed");
        }
        got
    }

    #[test]
    fn read_latency_is_two_one_way_trips() {
        let mut mem = HostMemory::new();
        let (ring, iova) = mem.alloc(4096, RegionKind::DataRing, false);
        mem.region_mut(ring)[..128].copy_from_slice(&[7; 128]);
        let mut link = PcieModel::new(PcieConfig::default());
        assert!(link.can_accept_read());
        link.push_read(10, iova, 128, 5);
        assert_eq!(link.reads_in_flight(), 1);
        assert!(!link.idle());
        for now in 10..210 {
            link.tick(now, &mut mem);
            assert!(link.completion_beat(now).is_none(), "beat at {now}");
        }
        link.tick(210, &mut mem);
        let b = link.completion_beat(210).cloned().unwrap();
        assert_eq!((b.data, b.tag, b.last), ([7; 64], 5, false));
        link.pop_completion_beat(210);
        assert_eq!(link.reads_in_flight(), 1);
        link.tick(211, &mut mem);
        assert!(link.completion_beat(211).unwrap().last);
        link.pop_completion_beat(211);
        assert_eq!(link.reads_in_flight(), 0);
        assert!(link.idle());
        let c = link.counters();
        assert_eq!(
            (c.read_requests, c.tx_data_bytes, c.read_errors),
            (1, 128, 0)
        );
        // Request TLP + one completion TLP header; no RX data moved.
        assert_eq!((c.metadata_bytes, c.data_bytes), (2 * 24, 0));
    }

    #[test]
    fn a_read_sees_the_writes_accepted_before_it_and_not_after() {
        let mut mem = HostMemory::new();
        let (_, ring) = mem.alloc(4096, RegionKind::DataRing, false);
        let (_, other) = mem.alloc(4096, RegionKind::Other, false);
        let mut link = PcieModel::new(PcieConfig::default());
        link.push_write(0, ring, &[1; 64], u64::MAX, true);
        link.push_read(0, ring, 64, 0);
        // Same cycle, but accepted after the read: must not be seen.
        link.push_write(0, ring, &[2; 64], u64::MAX, true);
        link.push_read(1, ring, 64, 1);
        link.push_read(1, other, 64, 2);
        let got = drain_reads(&mut link, &mut mem, 0);
        let seen: Vec<(u8, u8)> = got.iter().map(|(_, b)| (b.tag, b.data[0])).collect();
        assert_eq!(seen, [(0, 1), (1, 2), (2, 0)]);
        let c = link.counters();
        // Payload from a non-ring region is metadata, like a notification.
        assert_eq!(c.tx_data_bytes, 128);
        assert_eq!(c.data_bytes, 128);
        assert_eq!(c.metadata_bytes, 2 * 24 + 3 * 24 + 3 * 24 + 64);
    }

    #[test]
    fn completions_keep_request_order_and_split_into_beats() {
        let mut mem = HostMemory::new();
        let (r, iova) = mem.alloc(8192, RegionKind::DataRing, false);
        for (i, b) in mem.region_mut(r).iter_mut().enumerate() {
            *b = (i / 64) as u8;
        }
        let mut link = PcieModel::new(PcieConfig::default());
        let reqs = [(0u64, 512u32), (4096, 64), (1024, 320), (64, 192)];
        for (tag, (off, len)) in reqs.iter().enumerate() {
            link.push_read(tag as u64, iova + off, *len, tag as u8);
        }
        let got = drain_reads(&mut link, &mut mem, 0);
        let mut expect = Vec::new();
        for (tag, (off, len)) in reqs.iter().enumerate() {
            let n = *len as u64 / 64;
            for k in 0..n {
                expect.push((tag as u8, ((off / 64 + k) % 256) as u8, k + 1 == n));
            }
        }
        let seen: Vec<(u8, u8, bool)> = got
            .iter()
            .map(|(_, b)| (b.tag, b.data[63], b.last))
            .collect();
        assert_eq!(seen, expect);
        // Headers: 2 TLPs for 512 B, 1 each for 64 and 192, 2 for 320.
        let c = link.counters();
        assert_eq!(c.metadata_bytes, 4 * 24 + 6 * 24);
    }

    #[test]
    fn completion_bandwidth_includes_tlp_headers() {
        let mut mem = HostMemory::new();
        let (_, iova) = mem.alloc(1 << 20, RegionKind::DataRing, false);
        let mut link = PcieModel::new(PcieConfig::default());
        let (total, mut sent, mut now) = (2000u64, 0u64, 0u64);
        let mut first_beat = None;
        while sent < total || !link.idle() {
            link.tick(now, &mut mem);
            if sent < total && link.can_accept_read() {
                link.push_read(now, iova + (sent % 2048) * 512, 512, sent as u8);
                sent += 1;
            }
            if link.completion_beat(now).is_some() {
                first_beat.get_or_insert(now);
                link.pop_completion_beat(now);
            }
            now += 1;
        }
        // 63 B/cycle, of which 24 per 280 go to completion headers.
        let rate = 63.0 - 63.0 * 24.0 / 280.0;
        let expect = (total * 8 * 64) as f64 / rate;
        let took = (now - first_beat.unwrap()) as f64;
        assert!((took - expect).abs() / expect < 0.02, "{took} vs {expect}");
        let c = link.counters();
        assert_eq!((c.read_requests, c.tx_data_bytes), (total, total * 512));
        assert_eq!(c.metadata_bytes, total * 24 + total * 2 * 24);
        assert_eq!(
            (c.to_host_link_bytes, c.to_nic_link_bytes),
            (total * 24, total * (512 + 2 * 24))
        );
    }

    #[test]
    fn unmapped_or_malformed_reads_return_zeros_and_are_counted() {
        let mut mem = HostMemory::new();
        let (r, iova) = mem.alloc(4096, RegionKind::DataRing, false);
        mem.region_mut(r).fill(0xEE);
        let mut link = PcieModel::new(PcieConfig::default());
        link.push_read(0, 0x10, 64, 1); // unmapped
        link.push_read(0, iova + 4032, 128, 2); // runs off the end
        link.push_read(0, iova, 100, 3); // not whole beats
        link.push_read(0, iova, 0, 4); // empty
        link.push_read(0, iova, u32::MAX, 5); // absurd
        link.push_read(0, iova, 64, 6); // fine
        let got = drain_reads(&mut link, &mut mem, 0);
        let per_tag = |t: u8| got.iter().filter(|(_, b)| b.tag == t).count();
        assert_eq!([1, 2, 3, 4, 5, 6].map(per_tag), [1, 2, 2, 1, 8, 1]);
        assert!(got
            .iter()
            .filter(|(_, b)| b.tag != 6)
            .all(|(_, b)| b.data == [0; 64]));
        assert_eq!(got.last().unwrap().1.data, [0xEE; 64]);
        assert_eq!(link.counters().read_errors, 5);
        // Off the end of the ring is at a page boundary too; so is the absurd length.
        assert_eq!(link.counters().read_page_crossings, 2);
        assert_eq!(link.counters().tx_data_bytes, 64);
        assert!(link.idle());
    }
}

#[cfg(test)]
mod tlp_tests {
    use super::*;
    use crate::models::{HostMemory, RegionKind};

    #[test]
    fn a_four_beat_write_is_one_tlp_with_one_header() {
        let mut mem = HostMemory::new();
        let (_, ring) = mem.alloc(4096, RegionKind::DataRing, false);
        let mut link = PcieModel::new(PcieConfig::default());
        for k in 0..4u64 {
            link.push_write(0, ring + 64 * k, &[k as u8; 64], u64::MAX, k == 3);
        }
        for now in 0..200 {
            link.tick(now, &mut mem);
        }
        let c = link.counters();
        assert_eq!(
            (c.dma_writes, c.data_bytes, c.metadata_bytes, c.tlp_errors),
            (1, 256, 24, 0)
        );
    }

    #[test]
    fn beats_that_break_the_tlp_rules_are_counted() {
        let mut link = PcieModel::new(PcieConfig::default());
        // Not contiguous.
        link.push_write(0, 0x1000, &[0; 64], u64::MAX, false);
        link.push_write(0, 0x1080, &[0; 64], u64::MAX, true);
        // Crossing a 256-byte boundary.
        link.push_write(1, 0x10C0, &[0; 64], u64::MAX, false);
        link.push_write(1, 0x1100, &[0; 64], u64::MAX, true);
        assert_eq!(link.counters().tlp_errors, 2);
        // One beat whose strobed bytes straddle a 4 KiB boundary; the same
        // beat strobing only the bytes below it is fine.
        link.push_write(2, 0x1FE0, &[0; 64], u64::MAX, true);
        assert_eq!(link.counters().tlp_errors, 3);
        link.push_write(2, 0x1FE0, &[0; 64], 0xFFFF_FFFF, true);
        assert_eq!(link.counters().tlp_errors, 3);
    }

    #[test]
    fn a_read_across_a_4k_boundary_is_refused_counted_and_logged() {
        let mut mem = HostMemory::new();
        let (r, iova) = mem.alloc(8192, RegionKind::DataRing, false);
        mem.region_mut(r).fill(0x5A);
        let mut link = PcieModel::new(PcieConfig::default());
        link.log_reads();
        link.push_read(0, iova + 4032, 64, 1); // ends at the boundary: fine
        link.push_read(0, iova + 4032, 128, 2); // one beat on each side
        link.push_read(0, iova + 3584, 512, 3); // a full read up to the boundary
        link.push_read(0, iova + 3648, 512, 4); // a full read across it
        assert_eq!(
            link.take_read_log(),
            [
                (iova + 4032, 64),
                (iova + 4032, 128),
                (iova + 3584, 512),
                (iova + 3648, 512)
            ]
        );
        assert!(link.take_read_log().is_empty());
        let got = super::tests::drain_reads(&mut link, &mut mem, 0);
        let zeros = |t: u8| {
            got.iter()
                .filter(|(_, b)| b.tag == t)
                .all(|(_, b)| b.data == [0; 64])
        };
        assert_eq!([1, 2, 3, 4].map(zeros), [false, true, false, true]);
        let c = link.counters();
        assert_eq!((c.read_page_crossings, c.read_errors), (2, 2));
    }
}
