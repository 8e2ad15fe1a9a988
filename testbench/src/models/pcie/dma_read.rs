//! DMA reads: the NIC's read requests, which share the NIC->host queue and
//! bandwidth with writes, and the completion beats the host answers with,
//! split into completion TLPs and paced by the host->NIC bandwidth.

use pendulum_layout::params::{DMA_BOUNDARY_BYTES, DMA_READ_MAX_BYTES};
use pendulum_layout::BEAT_BYTES;

use super::{PcieModel, ToHost};
use crate::models::host_mem::{HostMemory, RegionKind};

/// Payload bytes of one read-completion TLP: the host splits a read into
/// completions of this size (a common read completion boundary / max payload).
const CPL_TLP_PAYLOAD_BYTES: usize = super::config::TLP_MAX_PAYLOAD_BYTES as usize;
/// Beats of one completion TLP; the first of them carries the TLP overhead.
const CPL_TLP_BEATS: usize = CPL_TLP_PAYLOAD_BYTES / BEAT_BYTES;

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

/// A completion beat waiting to be presented to the NIC.
pub(super) struct PendingBeat {
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

impl PcieModel {
    /// The NIC's `dma_rd_req_ready`: can a read request be taken this cycle.
    /// Request TLPs share the NIC->host bandwidth bucket with writes (a
    /// request costs `tlp_overhead_bytes`), so the rule is
    /// [`can_accept_write`](Self::can_accept_write)'s.
    pub fn can_accept_read(&self) -> bool {
        self.can_accept_write()
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
    pub(super) fn serve_read(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::PcieConfig;

    /// Steps `link` from `now` until it is idle, taking every completion beat
    /// offered; returns the beats with the cycle each was taken.
    fn drain_reads(
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
        let got = drain_reads(&mut link, &mut mem, 0);
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
