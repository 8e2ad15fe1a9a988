//! The link's traffic counters, [`PcieCounters`]: link bytes split into
//! packet data, metadata and register traffic, and the malformed TLPs,
//! stray writes and refused reads the model counts rather than fails on.

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
