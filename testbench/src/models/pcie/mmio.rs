//! Register traffic: [`MmioOp`], the host's posted writes and read
//! requests on their way to the NIC, and the NIC's read completions on
//! their way back, each arriving one one-way latency after it was sent.

use super::PcieModel;

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

impl PcieModel {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::PcieConfig;

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
}
