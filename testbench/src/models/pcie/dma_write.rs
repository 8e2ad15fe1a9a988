//! DMA writes, NIC->host: the write ready signal, the beats of a write TLP
//! (charged to the NIC->host bandwidth as they are accepted) and the TLP
//! rules they are checked against.

use pendulum_layout::BEAT_BYTES;

use super::{PcieModel, ToHost};

/// Largest write payload per TLP (PCIe max payload size).
const MAX_PAYLOAD_BYTES: u64 = super::config::TLP_MAX_PAYLOAD_BYTES as u64;

impl PcieModel {
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

    /// Writes accepted but not yet delivered.
    pub fn writes_in_flight(&self) -> usize {
        self.writes_in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{HostMemory, PcieConfig, RegionKind};

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
}
