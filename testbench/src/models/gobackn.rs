//! The conventional baseline the ACP link is measured against: a go-back-N
//! link with timeouts and retries (behavioural, not HDL), over the same link
//! model and the same seeded faults.
//!
//! Sender at A, receiver at B. Frames are 64-byte records: byte 0 the type
//! (DATA or ACK), bytes 1..4 a 24-bit sequence number (DATA) or the next one
//! expected (cumulative ACK), bytes 4..8 a CRC-32C check word as in an ACP
//! record (a damaged frame is discarded), and a DATA frame's 56-byte payload
//! in bytes 8..64, the same payload an ACP record carries.
//!
//! What real timeout links do when a peer stops answering is modelled too:
//! after `max_retries` timeouts without progress the connection is declared
//! failed; then either every unacknowledged message is sent again on a fresh
//! connection (at-least-once: the receiver, starting afresh, cannot tell the
//! ones it already delivered, so they arrive twice) or they are dropped
//! (at-most-once: losses).

use super::acp_link::{AcpLinkModel, LinkFaults};
use pendulum_layout::acp::{check_word, BYTE_CHECK, PAYLOAD_BYTES, PAYLOAD_OFFSET, RECORD_BYTES};
use std::collections::{HashMap, HashSet, VecDeque};

const DATA: u8 = 0xD1;
const ACK: u8 = 0xA1;

/// What the sender does when the connection is declared failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// Reconnect and send every unacknowledged message again.
    Retransmit,
    /// Reconnect and give unacknowledged messages up.
    Drop,
}

#[derive(Clone, Debug)]
pub struct GbnConfig {
    /// Frames in flight at most.
    pub window: usize,
    /// Cycles without an ACK for the oldest frame before going back.
    pub rto: u64,
    /// Timeouts in a row without progress before the connection is declared failed.
    pub max_retries: u32,
    pub on_failure: OnFailure,
}

impl GbnConfig {
    /// The usual setting for a link of `latency` cycles one way: an RTO of
    /// twice the round trip plus a margin, window 32, 8 retries.
    pub fn for_latency(latency: u32, on_failure: OnFailure) -> Self {
        Self {
            window: 32,
            rto: 4 * latency as u64 + 64,
            max_retries: 8,
            on_failure,
        }
    }
}

/// What happened, for the comparison with ACP.
#[derive(Clone, Default, serde::Serialize)]
pub struct GbnReport {
    pub sent: u64,
    /// Distinct messages delivered.
    pub delivered: u64,
    /// Deliveries of a message already delivered.
    pub duplicates_delivered: u64,
    /// Messages given up (never delivered).
    pub lost: u64,
    pub retransmissions: u64,
    pub reconnects: u64,
    /// Delivery latency of each distinct message: first transmission to delivery, cycles.
    #[serde(skip)]
    pub latencies: Vec<u64>,
}

impl std::fmt::Debug for GbnReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sent {} delivered {} duplicates {} lost {} retransmissions {} reconnects {} ({} latencies)",
            self.sent, self.delivered, self.duplicates_delivered, self.lost, self.retransmissions, self.reconnects,
            self.latencies.len()
        )
    }
}

/// Sender at A, receiver at B, and the link between them.
pub struct GoBackN {
    cfg: GbnConfig,
    link: AcpLinkModel,
    cycle: u64,
    /// Sender: messages by sequence number from `base`; `next` is the next to send.
    queue: VecDeque<[u8; PAYLOAD_BYTES]>,
    base: u32,
    next: u32,
    timer_start: u64,
    retries: u32,
    first_sent: HashMap<u64, u64>,
    /// Receiver: the next sequence number it expects; an ACK to send.
    expected: u32,
    ack_due: bool,
    delivered_ids: HashSet<u64>,
    out: Vec<([u8; PAYLOAD_BYTES], u64)>,
    report: GbnReport,
    /// Messages queued but not yet given to the window.
    backlog: VecDeque<[u8; PAYLOAD_BYTES]>,
}

fn id(p: &[u8; PAYLOAD_BYTES]) -> u64 {
    u64::from_le_bytes(p[..8].try_into().unwrap())
}

fn frame(kind: u8, seq: u32, payload: Option<&[u8; PAYLOAD_BYTES]>) -> [u8; RECORD_BYTES] {
    let mut r = [0u8; RECORD_BYTES];
    r[0] = kind;
    r[1..4].copy_from_slice(&seq.to_le_bytes()[..3]);
    if let Some(p) = payload {
        r[PAYLOAD_OFFSET..].copy_from_slice(p);
    }
    let c = check_word(&r, 0);
    r[BYTE_CHECK..BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
    r
}

/// A frame that passes its check: (type, 24-bit sequence, payload).
fn parse(r: &[u8; RECORD_BYTES]) -> Option<(u8, u32, [u8; PAYLOAD_BYTES])> {
    let c = u32::from_le_bytes(r[BYTE_CHECK..BYTE_CHECK + 4].try_into().unwrap());
    if c != check_word(r, 0) {
        return None;
    }
    let seq = u32::from_le_bytes([r[1], r[2], r[3], 0]);
    Some((r[0], seq, r[PAYLOAD_OFFSET..].try_into().unwrap()))
}

const SEQ_MASK: u32 = 0xFF_FFFF;

impl GoBackN {
    pub fn new(cfg: GbnConfig, faults: LinkFaults) -> Self {
        Self {
            cfg,
            link: AcpLinkModel::new(faults),
            cycle: 0,
            queue: VecDeque::new(),
            base: 0,
            next: 0,
            timer_start: 0,
            retries: 0,
            first_sent: HashMap::new(),
            expected: 0,
            ack_due: false,
            delivered_ids: HashSet::new(),
            out: Vec::new(),
            report: GbnReport::default(),
            backlog: VecDeque::new(),
        }
    }

    /// Queues a message (its bytes 0..8 are its id). Never refuses: the
    /// backlog is unbounded, as a host's socket buffer would be.
    pub fn offer(&mut self, payload: [u8; PAYLOAD_BYTES]) -> bool {
        self.backlog.push_back(payload);
        self.report.sent += 1;
        true
    }

    /// Nothing queued, nothing in flight.
    pub fn idle(&self) -> bool {
        self.backlog.is_empty() && self.queue.is_empty()
    }

    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    pub fn link(&self) -> &AcpLinkModel {
        &self.link
    }

    /// Messages delivered at B since the last call, with their cycle.
    pub fn delivered(&mut self) -> Vec<([u8; PAYLOAD_BYTES], u64)> {
        std::mem::take(&mut self.out)
    }

    pub fn report(&self) -> GbnReport {
        self.report.clone()
    }

    /// The connection failed: start a fresh one (both ends back to sequence 0).
    fn reconnect(&mut self) {
        self.report.reconnects += 1;
        if self.cfg.on_failure == OnFailure::Drop {
            // Given up; some may have arrived with only their ACK lost.
            let ids = &self.delivered_ids;
            self.report.lost += self.queue.iter().filter(|p| !ids.contains(&id(p))).count() as u64;
            self.queue.clear();
        }
        self.base = 0;
        self.next = 0;
        self.expected = 0;
        self.ack_due = false;
        self.retries = 0;
        self.timer_start = self.cycle;
    }

    /// One cycle: A may send one frame, B may send one ACK.
    pub fn step(&mut self) {
        while self.queue.len() < self.cfg.window {
            match self.backlog.pop_front() {
                Some(p) => self.queue.push_back(p),
                None => break,
            }
        }
        // Sender: time out, or send the next frame of the window.
        let in_flight = self.next.wrapping_sub(self.base) & SEQ_MASK;
        let mut a_tx = None;
        if in_flight > 0 && self.cycle - self.timer_start >= self.cfg.rto {
            self.retries += 1;
            if self.retries > self.cfg.max_retries {
                self.reconnect();
            } else {
                self.report.retransmissions += in_flight as u64;
                self.next = self.base;
                self.timer_start = self.cycle;
            }
        }
        let in_flight = self.next.wrapping_sub(self.base) & SEQ_MASK;
        if (in_flight as usize) < self.queue.len() {
            let p = self.queue[in_flight as usize];
            self.first_sent.entry(id(&p)).or_insert(self.cycle);
            if in_flight == 0 {
                self.timer_start = self.cycle;
            }
            a_tx = Some(frame(DATA, self.next, Some(&p)));
            self.next = (self.next + 1) & SEQ_MASK;
        }
        // Receiver: a cumulative ACK when one is due.
        let b_tx = if self.ack_due {
            self.ack_due = false;
            Some(frame(ACK, self.expected, None))
        } else {
            None
        };
        let o = self.link.step(a_tx, b_tx);
        if let Some((DATA, seq, p)) = o.b_rx.as_ref().and_then(parse) {
            if seq == self.expected {
                self.expected = (self.expected + 1) & SEQ_MASK;
                let i = id(&p);
                if self.delivered_ids.insert(i) {
                    self.report.delivered += 1;
                    if let Some(t0) = self.first_sent.get(&i) {
                        self.report.latencies.push(self.cycle - t0);
                    }
                } else {
                    self.report.duplicates_delivered += 1;
                }
                self.out.push((p, self.cycle));
            }
            self.ack_due = true;
        }
        if let Some((ACK, ack, _)) = o.a_rx.as_ref().and_then(parse) {
            let acked = ack.wrapping_sub(self.base) & SEQ_MASK;
            let in_flight = self.next.wrapping_sub(self.base) & SEQ_MASK;
            if acked > 0 && acked <= in_flight {
                for _ in 0..acked {
                    self.queue.pop_front();
                }
                self.base = ack;
                self.retries = 0;
                self.timer_start = self.cycle;
            }
        }
        self.cycle += 1;
    }
}

/// The value at quantile `p` (0..=1) of sorted values (nearest rank); 0 if empty.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(i: u64) -> [u8; PAYLOAD_BYTES] {
        let mut p = [0u8; PAYLOAD_BYTES];
        p[..8].copy_from_slice(&i.to_le_bytes());
        p
    }

    fn run(cfg: GbnConfig, faults: LinkFaults, n: u64, max: u64) -> GoBackN {
        let mut g = GoBackN::new(cfg, faults);
        for i in 0..n {
            g.offer(payload(i));
        }
        while !g.idle() && g.cycle() < max {
            g.step();
        }
        g
    }

    #[test]
    fn without_faults_everything_arrives_once_in_order() {
        let mut g = run(
            GbnConfig::for_latency(20, OnFailure::Retransmit),
            LinkFaults {
                latency: 20,
                ..Default::default()
            },
            500,
            1_000_000,
        );
        let r = g.report();
        assert_eq!(
            (
                r.delivered,
                r.duplicates_delivered,
                r.lost,
                r.retransmissions
            ),
            (500, 0, 0, 0)
        );
        let ids: Vec<u64> = g.delivered().iter().map(|(p, _)| id(p)).collect();
        assert_eq!(ids, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn loss_is_repaired_by_retransmission() {
        let g = run(
            GbnConfig::for_latency(20, OnFailure::Retransmit),
            LinkFaults {
                latency: 20,
                loss_rate: 0.01,
                corrupt_rate: 0.01,
                seed: 3,
                ..Default::default()
            },
            2000,
            10_000_000,
        );
        let r = g.report();
        assert_eq!((r.delivered, r.duplicates_delivered, r.lost), (2000, 0, 0));
        assert!(r.retransmissions > 0);
    }

    #[test]
    fn cuts_make_a_resending_link_deliver_twice_and_a_dropping_one_lose() {
        // Cuts longer than max_retries x RTO (8 x 144 cycles), often.
        let faults = LinkFaults {
            latency: 20,
            cut_every: Some(400),
            cut_cycles: 2_000,
            seed: 9,
            ..Default::default()
        };
        let r = run(
            GbnConfig::for_latency(20, OnFailure::Retransmit),
            faults.clone(),
            3000,
            50_000_000,
        )
        .report();
        assert!(r.reconnects > 0 && r.duplicates_delivered > 0, "{r:?}");
        assert_eq!(r.lost, 0);
        let r = run(
            GbnConfig::for_latency(20, OnFailure::Drop),
            faults,
            3000,
            50_000_000,
        )
        .report();
        assert!(r.reconnects > 0 && r.lost > 0, "{r:?}");
        assert_eq!(r.duplicates_delivered, 0);
        assert_eq!(r.delivered + r.lost, 3000);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(
            (
                percentile(&v, 0.5),
                percentile(&v, 0.99),
                percentile(&v, 1.0)
            ),
            (50, 99, 100)
        );
        assert_eq!(percentile(&[], 0.5), 0);
    }
}
