//! The Ethernet side of the NIC: a generator of checkable test frames, a
//! MAC model that presents them beat by beat (optionally at line rate), and
//! the MAC's TX side that takes the NIC's beats and rebuilds frames.

use std::collections::VecDeque;

use pendulum_layout::frame::{ETHERTYPE_IPV4, ETH_HEADER_BYTES};
use pendulum_layout::params::MIN_FRAME_BYTES;
use pendulum_layout::BEAT_BYTES;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Ethernet + IPv4 (IHL 5) + UDP headers: the shortest frame we can build.
const MIN_UDP_FRAME_BYTES: usize = 42;
const IPV4_OFFSET: usize = ETH_HEADER_BYTES as usize;
const UDP_OFFSET: usize = IPV4_OFFSET + 20;
const PAYLOAD_OFFSET: usize = UDP_OFFSET + 8;
/// Preamble + SFD + minimum inter-frame gap, which occupy the wire but never
/// reach the NIC.
const WIRE_OVERHEAD_BYTES: usize = 20;

/// Ones'-complement sum of big-endian 16-bit words, folded: the IPv4 header
/// checksum before inversion.
fn ones_complement_sum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0)))
        .sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    sum as u16
}

/// Builds one untagged Ethernet II frame carrying IPv4/UDP, `len_bytes` long.
///
/// The IPv4 total length is `len_bytes - 14`, so
/// `pendulum_layout::frame::frame_len_from_header` returns `len_bytes`; the
/// IPv4 checksum is correct and the UDP length consistent (UDP checksum 0,
/// which IPv4 allows). The flow is 10.0.0.1:1234 → 10.0.0.2 on a UDP port
/// chosen so that the card's reset steering (RSS hash over all pipes, no
/// table entries) sends it to `pipe` (see [`steering_port`]); the last two
/// destination-MAC bytes are `pipe` too (big-endian), for a reader. The UDP payload starts
/// with `seq` as a little-endian u64 (truncated when the frame is shorter
/// than 50 bytes) followed by bytes drawn from `fill_seed` and `seq`, so
/// every frame is distinct and a receiver can regenerate it to compare.
///
/// # Panics
/// If `len_bytes` is below 42 or above 65549 (no such IPv4/UDP frame
/// exists), or `pipe` is not a pipe of the simulated card.
pub fn ipv4_udp_frame(seq: u64, len_bytes: usize, pipe: usize, fill_seed: u64) -> Vec<u8> {
    assert!(
        (MIN_UDP_FRAME_BYTES..=IPV4_OFFSET + 0xFFFF).contains(&len_bytes),
        "ipv4_udp_frame: {len_bytes} bytes cannot hold an IPv4/UDP frame (need 42..=65549)"
    );
    let mut f = vec![0u8; len_bytes];
    // Locally administered unicast MACs so nothing real is impersonated.
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, (pipe >> 8) as u8, pipe as u8]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xFE]);
    f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());

    let ip = &mut f[IPV4_OFFSET..UDP_OFFSET];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((len_bytes - IPV4_OFFSET) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(seq as u16).to_be_bytes());
    ip[6] = 0x40; // DF: these frames are never fragmented
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&TEST_SRC_IP);
    ip[16..20].copy_from_slice(&TEST_DST_IP);
    let csum = !ones_complement_sum(ip);
    ip[10..12].copy_from_slice(&csum.to_be_bytes());

    let udp = &mut f[UDP_OFFSET..PAYLOAD_OFFSET];
    udp[0..2].copy_from_slice(&TEST_SPORT.to_be_bytes());
    udp[2..4].copy_from_slice(&steering_port(pipe).to_be_bytes());
    udp[4..6].copy_from_slice(&((len_bytes - UDP_OFFSET) as u16).to_be_bytes());

    let payload = &mut f[PAYLOAD_OFFSET..];
    let seq_bytes = seq.to_le_bytes();
    let n = payload.len().min(8);
    payload[..n].copy_from_slice(&seq_bytes[..n]);
    if payload.len() > 8 {
        // One ChaCha stream per sequence number: frames are independent of
        // the order or subset in which they are generated.
        let mut rng = ChaCha8Rng::seed_from_u64(fill_seed);
        rng.set_stream(seq);
        rng.fill_bytes(&mut payload[8..]);
    }
    f
}

/// The addresses and source port of [`ipv4_udp_frame`]'s flows.
pub const TEST_SRC_IP: [u8; 4] = [10, 0, 0, 1];
pub const TEST_DST_IP: [u8; 4] = [10, 0, 0, 2];
pub const TEST_SPORT: u16 = 1234;

/// The first UDP destination port from 4000 up whose flow from
/// 10.0.0.1:1234 to 10.0.0.2 the card's reset steering sends to `pipe`:
/// it misses the (empty) flow table, so its RSS hash picks among all pipes.
///
/// # Panics
/// If `pipe` is not below `PIPES`.
pub fn steering_port(pipe: usize) -> u16 {
    use pendulum_layout::flow::{fallback_pipe, FlowKey, PROTO_UDP};
    use pendulum_layout::params::{PIPES, PIPE_BITS};
    static PORTS: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    let ports = PORTS.get_or_init(|| {
        (0..PIPES)
            .map(|p| {
                (4000u16..)
                    .find(|&port| {
                        let key =
                            FlowKey::v4(TEST_SRC_IP, TEST_DST_IP, PROTO_UDP, TEST_SPORT, port);
                        fallback_pipe(key.hash(), 0, PIPE_BITS as u32) == p
                    })
                    .expect("some port hashes to every pipe")
            })
            .collect()
    });
    *ports
        .get(pipe)
        .unwrap_or_else(|| panic!("pipe {pipe}: the simulated card has pipes 0..{PIPES}"))
}

/// Builds a frame of the flow `key`, `len_bytes` long: Ethernet II, then
/// IPv4 (20-byte header) or IPv6 (40 bytes), then a TCP (20 bytes) or UDP
/// (8 bytes) header when `key.proto` is one of them, then a payload that
/// starts with `seq` (little-endian u64) and continues with bytes drawn from
/// `seq`. Other protocols carry the payload straight after the IP header.
/// The IP length fields give `len_bytes`, so the card accepts the frame.
///
/// # Panics
/// If `len_bytes` cannot hold the headers and the 8-byte sequence number.
pub fn flow_frame(key: &pendulum_layout::flow::FlowKey, seq: u64, len_bytes: usize) -> Vec<u8> {
    use pendulum_layout::flow::{PROTO_TCP, PROTO_UDP};
    use pendulum_layout::frame::ETHERTYPE_IPV6;
    let ip_len = if key.v6 { 40 } else { 20 };
    let l4_len = match key.proto {
        PROTO_TCP => 20,
        PROTO_UDP => 8,
        _ => 0,
    };
    let payload_at = IPV4_OFFSET + ip_len + l4_len;
    assert!(
        len_bytes >= payload_at + 8,
        "flow_frame: {len_bytes} bytes cannot hold the headers and a sequence number"
    );
    let mut f = vec![0u8; len_bytes];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xFE]);
    let ip = IPV4_OFFSET;
    if key.v6 {
        f[12..14].copy_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
        f[ip] = 0x60;
        f[ip + 4..ip + 6].copy_from_slice(&((len_bytes - ip - 40) as u16).to_be_bytes());
        f[ip + 6] = key.proto;
        f[ip + 7] = 64;
        f[ip + 8..ip + 24].copy_from_slice(&key.src);
        f[ip + 24..ip + 40].copy_from_slice(&key.dst);
    } else {
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        f[ip] = 0x45;
        f[ip + 2..ip + 4].copy_from_slice(&((len_bytes - ip) as u16).to_be_bytes());
        f[ip + 8] = 64;
        f[ip + 9] = key.proto;
        f[ip + 12..ip + 16].copy_from_slice(&key.src[..4]);
        f[ip + 16..ip + 20].copy_from_slice(&key.dst[..4]);
        let csum = !ones_complement_sum(&f[ip..ip + 20]);
        f[ip + 10..ip + 12].copy_from_slice(&csum.to_be_bytes());
    }
    let l4 = ip + ip_len;
    if l4_len > 0 {
        f[l4..l4 + 2].copy_from_slice(&key.sport.to_be_bytes());
        f[l4 + 2..l4 + 4].copy_from_slice(&key.dport.to_be_bytes());
        if key.proto == PROTO_UDP {
            f[l4 + 4..l4 + 6].copy_from_slice(&((len_bytes - l4) as u16).to_be_bytes());
        } else {
            f[l4 + 12] = 5 << 4; // data offset: 5 words
        }
    }
    f[payload_at..payload_at + 8].copy_from_slice(&seq.to_le_bytes());
    let mut rng = ChaCha8Rng::seed_from_u64(seq);
    rng.fill_bytes(&mut f[payload_at + 8..]);
    f
}

/// Fills in the TCP or UDP checksum of an untagged IPv4 or IPv6 `frame`
/// (RFC 1071 over the pseudo-header and the L4 bytes, from the IP header's
/// length, IHL included), as a sender would: a UDP checksum that comes out
/// 0 is sent as 0xFFFF. Returns whether there was one to fill (TCP or UDP,
/// the headers whole, not an IPv4 fragment).
pub fn set_l4_checksum(frame: &mut [u8]) -> bool {
    use pendulum_layout::flow::{PROTO_TCP, PROTO_UDP};
    use pendulum_layout::frame::ETHERTYPE_IPV6;
    let ip = IPV4_OFFSET;
    let v6 = frame.len() >= 14 && u16::from_be_bytes([frame[12], frame[13]]) == ETHERTYPE_IPV6;
    if frame.len() < ip + if v6 { 40 } else { 20 } {
        return false;
    }
    let (hl, dgram, proto) = if v6 {
        let pay = u16::from_be_bytes([frame[ip + 4], frame[ip + 5]]) as usize;
        (40, 40 + pay, frame[ip + 6])
    } else {
        let fragment = frame[ip + 6] & 0x3F != 0 || frame[ip + 7] != 0;
        if fragment {
            return false;
        }
        let total = u16::from_be_bytes([frame[ip + 2], frame[ip + 3]]) as usize;
        ((frame[ip] & 0x0F) as usize * 4, total, frame[ip + 9])
    };
    let field = match proto {
        PROTO_TCP => 16,
        PROTO_UDP => 6,
        _ => return false,
    };
    let (l4, end) = (ip + hl, ip + dgram);
    if end > frame.len() || l4 + field + 2 > end {
        return false;
    }
    let mut bytes = if v6 {
        frame[ip + 8..ip + 40].to_vec()
    } else {
        frame[ip + 12..ip + 20].to_vec()
    };
    bytes.extend_from_slice(&((end - l4) as u32).to_be_bytes());
    bytes.extend_from_slice(&[0, 0, 0, proto]);
    frame[l4 + field..l4 + field + 2].fill(0);
    bytes.extend_from_slice(&frame[l4..end]);
    let mut c = !ones_complement_sum(&bytes);
    if c == 0 && proto == PROTO_UDP {
        c = 0xFFFF;
    }
    frame[l4 + field..l4 + field + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Pads `frame` with zeros to the 60-byte minimum, as a MAC delivers a
/// short frame once the FCS is stripped.
pub fn pad_to_min(frame: &mut Vec<u8>) {
    let min = MIN_FRAME_BYTES as usize;
    if frame.len() < min {
        frame.resize(min, 0);
    }
}

/// A seeded generator of numbered IPv4/UDP test frames (see [`ipv4_udp_frame`]).
pub struct FrameGen {
    seed: u64,
    seq: u64,
    /// Separate from the payload streams so drawing lengths does not shift
    /// the frame contents.
    len_rng: ChaCha8Rng,
}

impl FrameGen {
    /// A generator whose frames and lengths are a pure function of `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            seq: 0,
            len_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15),
        }
    }

    /// The next frame, `len_bytes` long, steered to `pipe`.
    ///
    /// # Panics
    /// If `len_bytes < 42`; meant for tests, where that is a bug in the test.
    pub fn frame(&mut self, len_bytes: usize, pipe: usize) -> Vec<u8> {
        let f = ipv4_udp_frame(self.seq, len_bytes, pipe, self.seed);
        self.seq += 1;
        f
    }

    /// A uniformly random length in `min..=max` (panics if `min > max`).
    pub fn random_len(&mut self, min: usize, max: usize) -> usize {
        self.len_rng.gen_range(min..=max)
    }

    /// Sequence number the next frame will carry.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }
}

/// One 512-bit beat as the NIC's eth_rx port takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Beat {
    /// Frame bytes; byte 0 is the earliest on the wire. Absent bytes are 0.
    pub data: [u8; 64],
    /// One bit per present byte, contiguous from bit 0.
    pub keep: u64,
    /// Last beat of the frame.
    pub last: bool,
}

impl Beat {
    fn fill(&mut self, chunk: &[u8], last: bool) {
        let n = chunk.len();
        self.data[..n].copy_from_slice(chunk);
        self.data[n..].fill(0);
        self.keep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        self.last = last;
    }
}

/// Splits a frame into beats: byte k goes to beat k/64, byte k%64. An empty
/// frame yields no beats.
pub fn beats_of(frame: &[u8]) -> Vec<Beat> {
    let n = frame.len().div_ceil(BEAT_BYTES);
    frame
        .chunks(BEAT_BYTES)
        .enumerate()
        .map(|(i, chunk)| {
            let mut b = Beat {
                data: [0; 64],
                keep: 0,
                last: false,
            };
            b.fill(chunk, i + 1 == n);
            b
        })
        .collect()
}

/// How fast the MAC may deliver frames.
#[derive(Clone, Copy, Debug)]
pub enum Pacing {
    /// As fast as the NIC accepts beats.
    Unpaced,
    /// A frame of S bytes starts no earlier than `(S + 20) * 8 / (gbps * 1e9)`
    /// seconds after the previous one started, counted in cycles of `clock_mhz`.
    LineRate {
        /// Line rate in Gb/s.
        gbps: f64,
        /// NIC clock in MHz.
        clock_mhz: f64,
    },
}

/// Under `pacing`, the earliest cycle a frame may start after one of
/// `len_bytes` started at `start_cycle`, and the rounding debt to carry:
/// `None` when unpaced. `scheduled_cycle`/`debt_cycles` are the previous
/// result: the debt (how far that start was rounded up past the ideal time, in
/// [0, 1)) is only carried when the frame started exactly then, so the
/// long-run rate is exact.
fn next_frame_start(
    pacing: Pacing,
    start_cycle: u64,
    len_bytes: usize,
    scheduled_cycle: u64,
    debt_cycles: f64,
) -> Option<(u64, f64)> {
    let Pacing::LineRate { gbps, clock_mhz } = pacing else {
        return None;
    };
    let gap_cycles =
        ((len_bytes + WIRE_OVERHEAD_BYTES) * 8) as f64 * clock_mhz * 1e6 / (gbps * 1e9);
    // A late start (idle queue or back-pressure) means the wire sat idle;
    // that time is not banked, so the rounding debt is forgiven.
    let debt = if start_cycle == scheduled_cycle {
        debt_cycles
    } else {
        0.0
    };
    let rel_cycles = (gap_cycles - debt).max(0.0);
    let whole_cycles = rel_cycles.ceil();
    Some((start_cycle + whole_cycles as u64, whole_cycles - rel_cycles))
}

/// The MAC side: a queue of frames presented beat by beat on a valid/ready port.
pub struct EthSource {
    pacing: Pacing,
    frames: VecDeque<Vec<u8>>,
    /// Index of the next beat of the front frame.
    beat_idx: usize,
    /// Reused for every beat so presenting one costs a copy, not an allocation.
    beat: Beat,
    beat_ready: bool,
    /// Earliest cycle the next frame may start.
    next_start_cycle: u64,
    /// How far `next_start_cycle` was rounded up past the ideal start time
    /// (in [0, 1)); carried into the next gap so the long-run rate is exact.
    rounding_debt_cycles: f64,
    frames_sent: u64,
    bytes_sent: u64,
    stall_cycles: u64,
}

impl EthSource {
    /// An empty source.
    pub fn new(pacing: Pacing) -> Self {
        Self {
            pacing,
            frames: VecDeque::new(),
            beat_idx: 0,
            beat: Beat {
                data: [0; 64],
                keep: 0,
                last: false,
            },
            beat_ready: false,
            next_start_cycle: 0,
            rounding_debt_cycles: 0.0,
            frames_sent: 0,
            bytes_sent: 0,
            stall_cycles: 0,
        }
    }

    /// Queues a frame. An empty frame has no beats and is dropped.
    pub fn push(&mut self, frame: Vec<u8>) {
        if !frame.is_empty() {
            self.frames.push_back(frame);
        }
    }

    /// Takes the queued frames that have not started (a frame in progress
    /// stays and finishes), e.g. to hold traffic back and push it again later.
    pub fn take_queued(&mut self) -> Vec<Vec<u8>> {
        let keep = usize::from(self.beat_idx > 0).min(self.frames.len());
        self.frames.split_off(keep).into()
    }

    /// Frames not yet fully sent, including the one in progress.
    pub fn queued_frames(&self) -> usize {
        self.frames.len()
    }

    /// The beat to present at cycle `now`, or `None` when the queue is empty
    /// or pacing holds back the next frame. Pacing only gates frame starts:
    /// a started frame streams without gaps, as a real MAC does.
    pub fn current(&mut self, now: u64) -> Option<&Beat> {
        let frame = self.frames.front()?;
        if self.beat_idx == 0 && now < self.next_start_cycle {
            return None;
        }
        if !self.beat_ready {
            let start = self.beat_idx * BEAT_BYTES;
            let end = (start + BEAT_BYTES).min(frame.len());
            self.beat.fill(&frame[start..end], end == frame.len());
            self.beat_ready = true;
        }
        Some(&self.beat)
    }

    /// The beat returned by [`current`](Self::current) was accepted
    /// (valid && ready) at cycle `now`.
    pub fn accept(&mut self, now: u64) {
        debug_assert!(
            self.beat_ready,
            "EthSource::accept without a beat from current()"
        );
        if !self.beat_ready {
            return;
        }
        if self.beat_idx == 0 {
            self.schedule_next_start(now, self.frames[0].len());
        }
        self.beat_ready = false;
        self.bytes_sent += u64::from(self.beat.keep.count_ones());
        self.beat_idx += 1;
        if self.beat.last {
            self.frames.pop_front();
            self.beat_idx = 0;
            self.frames_sent += 1;
        }
    }

    fn schedule_next_start(&mut self, start_cycle: u64, len_bytes: usize) {
        if let Some((next, debt)) = next_frame_start(
            self.pacing,
            start_cycle,
            len_bytes,
            self.next_start_cycle,
            self.rounding_debt_cycles,
        ) {
            self.next_start_cycle = next;
            self.rounding_debt_cycles = debt;
        }
    }

    /// The MAC is reset with the core: a frame it was in the middle of
    /// sending is cut short and forgotten (its rest is never sent; the core
    /// dropped its first beats). Returns whether one was.
    pub fn reset_mac(&mut self) -> bool {
        self.beat_ready = false;
        if self.beat_idx == 0 {
            return false;
        }
        self.beat_idx = 0;
        self.frames.pop_front();
        true
    }

    /// Frames whose last beat has been accepted.
    pub fn frames_sent(&self) -> u64 {
        self.frames_sent
    }

    /// Frame bytes accepted (wire overhead excluded).
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    /// Cycles a beat was offered but not accepted, as reported by [`note_stall`](Self::note_stall).
    pub fn stall_cycles(&self) -> u64 {
        self.stall_cycles
    }

    /// Records one cycle of back-pressure; the harness knows `ready`, the model does not.
    pub fn note_stall(&mut self) {
        self.stall_cycles += 1;
    }
}

/// The MAC's TX side: takes beats from the NIC's eth_tx port and rebuilds frames.
///
/// Pacing gates frame starts only, like [`EthSource`]: under
/// [`Pacing::LineRate`], after a frame of S bytes ends, `ready` stays low
/// until `(S + 20) * 8 / gbps` ns have passed since that frame started
/// (fractional cycles carried over, so the long-run rate is exact).
pub struct EthSink {
    pacing: Pacing,
    /// Bytes of the frame in progress.
    partial: Vec<u8>,
    /// Cycle the frame in progress started (its first beat was taken).
    partial_start_cycle: u64,
    frames: Vec<Vec<u8>>,
    /// Earliest cycle the next frame may start.
    next_start_cycle: u64,
    rounding_debt_cycles: f64,
    frames_received: u64,
    bytes_received: u64,
    protocol_errors: u64,
}

impl EthSink {
    /// A sink that has received nothing.
    pub fn new(pacing: Pacing) -> Self {
        Self {
            pacing,
            partial: Vec::new(),
            partial_start_cycle: 0,
            frames: Vec::new(),
            next_start_cycle: 0,
            rounding_debt_cycles: 0.0,
            frames_received: 0,
            bytes_received: 0,
            protocol_errors: 0,
        }
    }

    /// The MAC's `tready` at cycle `now`. Always true inside a frame: a
    /// started frame streams without gaps.
    pub fn ready(&self, now: u64) -> bool {
        now >= self.next_start_cycle
    }

    /// A beat was accepted (valid && ready) at cycle `now`. `keep` must be
    /// contiguous from bit 0 and non-zero; otherwise the beat is counted in
    /// [`protocol_errors`](Self::protocol_errors) and its kept bytes are used
    /// anyway, so one bad beat does not lose the frames after it.
    pub fn accept(&mut self, now: u64, data: &[u8; 64], keep: u64, last: bool) {
        // keep + 1 is a power of two (or wraps to 0) exactly when the ones are contiguous from bit 0.
        let contiguous = keep != 0 && keep.wrapping_add(1) & keep == 0;
        if !contiguous {
            self.protocol_errors += 1;
        }
        if self.partial.is_empty() {
            self.partial_start_cycle = now;
        }
        if contiguous {
            self.partial
                .extend_from_slice(&data[..keep.count_ones() as usize]);
        } else {
            self.partial
                .extend((0..64).filter(|k| keep >> k & 1 == 1).map(|k| data[k]));
        }
        if !last {
            return;
        }
        if self.partial.is_empty() {
            // A lone last beat with no bytes: already counted, nothing to deliver.
            return;
        }
        let frame = std::mem::take(&mut self.partial);
        if let Some((next, debt)) = next_frame_start(
            self.pacing,
            self.partial_start_cycle,
            frame.len(),
            self.next_start_cycle,
            self.rounding_debt_cycles,
        ) {
            self.next_start_cycle = next;
            self.rounding_debt_cycles = debt;
        }
        self.frames_received += 1;
        self.bytes_received += frame.len() as u64;
        self.frames.push(frame);
    }

    /// The MAC is reset with the core: the frame it was receiving is cut
    /// short and discarded. Returns whether there was one.
    pub fn reset_mac(&mut self) -> bool {
        let cut = !self.partial.is_empty();
        self.partial.clear();
        cut
    }

    /// Frames completed so far, in order; they are removed from the sink.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.frames)
    }

    /// Frames completed since the sink was created (taken or not).
    pub fn frames_received(&self) -> u64 {
        self.frames_received
    }

    /// Bytes of those frames.
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }

    /// Beats with an empty or non-contiguous `keep`.
    pub fn protocol_errors(&self) -> u64 {
        self.protocol_errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::frame::frame_len_from_header;

    #[test]
    fn frames_parse_back_and_checksum() {
        let mut g = FrameGen::new(7);
        let lens = (42..=9600)
            .step_by(37)
            .chain([42, 43, 49, 50, 59, 60, 64, 65, 1514, 9600]);
        for len in lens {
            let seq = g.next_seq();
            let f = g.frame(len, 3);
            assert_eq!(f.len(), len);
            assert_eq!(frame_len_from_header(&f), Some(len as u32));
            assert_eq!(f[5], 3);
            assert_eq!(
                ones_complement_sum(&f[14..34]),
                0xFFFF,
                "checksum len {len}"
            );
            assert_eq!(u16::from_be_bytes([f[38], f[39]]) as usize, len - 34);
            let n = (len - 42).min(8);
            assert_eq!(&f[42..42 + n], &seq.to_le_bytes()[..n]);
            assert_eq!(f, ipv4_udp_frame(seq, len, 3, 7), "regenerable");
        }
        assert_ne!(
            ipv4_udp_frame(0, 200, 0, 1)[50..],
            ipv4_udp_frame(1, 200, 0, 1)[50..]
        );
        let mut a = FrameGen::new(9);
        let mut b = FrameGen::new(9);
        for _ in 0..100 {
            let len = a.random_len(60, 70);
            assert!((60..=70).contains(&len));
            assert_eq!(len, b.random_len(60, 70));
        }
    }

    #[test]
    #[should_panic(expected = "cannot hold")]
    fn too_short_panics() {
        FrameGen::new(0).frame(41, 0);
    }

    #[test]
    fn padding() {
        let mut f = ipv4_udp_frame(0, 42, 0, 0);
        pad_to_min(&mut f);
        assert_eq!(f.len(), 60);
        assert_eq!(frame_len_from_header(&f), Some(42));
        let mut g = vec![1; 100];
        pad_to_min(&mut g);
        assert_eq!(g.len(), 100);
    }

    #[test]
    fn beats_round_trip() {
        assert!(beats_of(&[]).is_empty());
        for len in [1, 63, 64, 65, 128, 1514] {
            let f = ipv4_udp_frame(1, len.max(42), 0, 2)[..len].to_vec();
            let beats = beats_of(&f);
            assert_eq!(beats.len(), len.div_ceil(64));
            let mut back = Vec::new();
            for (i, b) in beats.iter().enumerate() {
                assert_eq!(b.last, i + 1 == beats.len());
                let n = b.keep.count_ones() as usize;
                assert_eq!(b.keep, if n == 64 { u64::MAX } else { (1 << n) - 1 });
                back.extend_from_slice(&b.data[..n]);
            }
            assert_eq!(back, f);
        }
    }

    #[test]
    fn source_with_backpressure_matches_beats_of() {
        let mut g = FrameGen::new(1);
        let mut src = EthSource::new(Pacing::Unpaced);
        let frames: Vec<Vec<u8>> = (0..50)
            .map(|_| {
                let len = g.random_len(42, 300);
                g.frame(len, 0)
            })
            .collect();
        frames.iter().for_each(|f| src.push(f.clone()));
        src.push(Vec::new());
        let expect: Vec<Beat> = frames.iter().flat_map(|f| beats_of(f)).collect();
        let mut got = Vec::new();
        let mut now = 0;
        while src.queued_frames() > 0 {
            let ready = now % 3 != 0;
            if let Some(b) = src.current(now).cloned() {
                if ready {
                    got.push(b);
                    src.accept(now);
                } else {
                    src.note_stall();
                }
            }
            now += 1;
        }
        assert_eq!(got, expect);
        assert_eq!(src.frames_sent(), 50);
        assert_eq!(
            src.bytes_sent(),
            frames.iter().map(|f| f.len() as u64).sum::<u64>()
        );
        assert!(src.stall_cycles() > 0);
    }

    #[test]
    fn line_rate_pacing_of_min_frames() {
        let mut g = FrameGen::new(3);
        let mut src = EthSource::new(Pacing::LineRate {
            gbps: 100.0,
            clock_mhz: 250.0,
        });
        let n = 10_000u64;
        for _ in 0..n {
            src.push(g.frame(64, 1));
        }
        let (mut first, mut last, mut now) = (None, 0, 0);
        while src.queued_frames() > 0 {
            if src.current(now).is_some() {
                first.get_or_insert(now);
                last = now;
                src.accept(now);
            }
            now += 1;
        }
        let mean = (last - first.unwrap()) as f64 / (n - 1) as f64;
        assert!((mean - 1.68).abs() < 0.001, "mean gap {mean}");
    }

    #[test]
    fn sink_rebuilds_frames_from_beats() {
        let mut g = FrameGen::new(5);
        let mut sink = EthSink::new(Pacing::Unpaced);
        let frames: Vec<Vec<u8>> = [1usize, 60, 63, 64, 65, 128, 1514, 9600]
            .iter()
            .map(|&len| g.frame(len.max(42), 0)[..len].to_vec())
            .collect();
        let mut now = 0;
        for f in &frames {
            for b in beats_of(f) {
                assert!(sink.ready(now));
                sink.accept(now, &b.data, b.keep, b.last);
                now += 1;
            }
        }
        assert_eq!(sink.frames_received(), frames.len() as u64);
        assert_eq!(
            sink.bytes_received(),
            frames.iter().map(|f| f.len() as u64).sum::<u64>()
        );
        assert_eq!(sink.take_frames(), frames);
        assert!(sink.take_frames().is_empty());
        assert_eq!(sink.protocol_errors(), 0);
    }

    #[test]
    fn sink_counts_bad_keep_and_goes_on() {
        let mut sink = EthSink::new(Pacing::Unpaced);
        let data: [u8; 64] = std::array::from_fn(|k| k as u8);
        sink.accept(0, &data, 0b1010, false); // holes: bytes 1 and 3 kept
        sink.accept(1, &data, 0, true); // nothing kept, ends the frame
        sink.accept(2, &data, 0, true); // empty frame: no frame at all
        sink.accept(3, &data, 0b111, true);
        assert_eq!(sink.protocol_errors(), 3);
        assert_eq!(sink.take_frames(), vec![vec![1, 3], vec![0, 1, 2]]);
        assert_eq!(sink.frames_received(), 2);
    }

    #[test]
    fn sink_line_rate_pacing_of_min_frames() {
        let mut sink = EthSink::new(Pacing::LineRate {
            gbps: 100.0,
            clock_mhz: 250.0,
        });
        let frame = FrameGen::new(4).frame(64, 0);
        let beat = &beats_of(&frame)[0];
        let n = 10_000u64;
        let (mut first, mut last, mut got, mut now) = (None, 0, 0, 0);
        while got < n {
            if sink.ready(now) {
                first.get_or_insert(now);
                last = now;
                sink.accept(now, &beat.data, beat.keep, beat.last);
                got += 1;
            }
            now += 1;
        }
        let mean = (last - first.unwrap()) as f64 / (n - 1) as f64;
        assert!((mean - 1.68).abs() < 0.001, "mean gap {mean}");
        // A long frame: the gap counts from its start, so a frame that took
        // longer than its wire time leaves the sink ready at once.
        let mut sink = EthSink::new(Pacing::LineRate {
            gbps: 400.0,
            clock_mhz: 250.0,
        });
        for (i, b) in beats_of(&FrameGen::new(4).frame(1500, 0))
            .iter()
            .enumerate()
        {
            sink.accept(100 + i as u64, &b.data, b.keep, b.last);
        }
        assert!(sink.ready(124));
        let mut sink = EthSink::new(Pacing::LineRate {
            gbps: 10.0,
            clock_mhz: 250.0,
        });
        for (i, b) in beats_of(&FrameGen::new(4).frame(1500, 0))
            .iter()
            .enumerate()
        {
            sink.accept(100 + i as u64, &b.data, b.keep, b.last);
        }
        // 1520 B at 10 Gb/s = 1216 ns = 304 cycles after the start.
        assert!(!sink.ready(403) && sink.ready(404));
    }
}
