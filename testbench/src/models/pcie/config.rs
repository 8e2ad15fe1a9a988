//! The link's parameters, [`PcieConfig`] (one-way latency, link rate, NIC
//! clock, TLP overhead), and the bytes per NIC cycle they give.

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

/// Largest payload of one TLP, both ways: the NIC's writes stop at each
/// 256-byte block (PCIe's max payload size here) and the host completes
/// reads in TLPs of this size.
pub const TLP_MAX_PAYLOAD_BYTES: u32 = 256;

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

    /// Payload bytes per NIC clock cycle when data streams in full TLPs
    /// ([`TLP_MAX_PAYLOAD_BYTES`] each, with its overhead): the most either
    /// direction carries of ring data.
    pub fn streaming_bytes_per_cycle(&self) -> f64 {
        let max = TLP_MAX_PAYLOAD_BYTES as f64;
        self.bytes_per_cycle() * max / (max + self.tlp_overhead_bytes as f64)
    }
}

impl Default for PcieConfig {
    fn default() -> Self {
        Self::gen3_x16()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_rates() {
        assert!((PcieConfig::default().bytes_per_cycle() - 63.0).abs() < 0.02);
        assert!((PcieConfig::gen4_x16().bytes_per_cycle() - 126.0).abs() < 0.04);
        // 63 x 256 / 280.
        assert!((PcieConfig::default().streaming_bytes_per_cycle() - 57.6).abs() < 0.02);
    }
}
