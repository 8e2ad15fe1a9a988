//! Host messaging over the ACP link between the two NICs of a [`NicPair`],
//! through the real driver on both hosts, with the bookkeeping that checks
//! exactly-once delivery. Shared by the tests and the benchmark.

use crate::models::LinkFaults;
use crate::pair::{NicPair, PairCard, Side};
use crate::SimConfig;
use pendulum_driver::{Device, Link, LinkCounters, LinkMsg, LinkState, MsgKind, Result};
use pendulum_layout::acp::PAYLOAD_BYTES;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

/// The payload carrying message `id`: the id, then 48 bytes derived from it,
/// so a payload changed on the way matches no id.
pub fn payload(id: u64) -> [u8; PAYLOAD_BYTES] {
    let mut p = [0u8; PAYLOAD_BYTES];
    p[..8].copy_from_slice(&id.to_le_bytes());
    let mut x = id ^ 0x9E37_79B9_7F4A_7C15;
    for chunk in p[8..].chunks_mut(8) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes()[..chunk.len()]);
    }
    p
}

/// The id a payload carries, if it is exactly a payload [`payload`] makes.
pub fn id_of(p: &[u8; PAYLOAD_BYTES]) -> Option<u64> {
    let id = u64::from_le_bytes(p[..8].try_into().unwrap());
    (payload(id) == *p).then_some(id)
}

/// One host: its card, its link, what it sent and what it got.
pub struct Endpoint {
    pub dev: Device<PairCard>,
    pub link: Link,
    /// Ids this host will send, in order; `next` is the first not yet queued.
    ids: std::ops::Range<u64>,
    next: u64,
    /// Ids queued on the TX pipe, in order.
    pub sent: Vec<u64>,
    /// (id, channel) of messages the peer delivered, in arrival order.
    pub received: Vec<(u64, u8)>,
    /// Our messages handed back, with why.
    pub returned: Vec<(u64, MsgKind)>,
    /// Delivered payloads that match no id: changed on the way.
    pub corrupt: u64,
}

impl Endpoint {
    /// A host on `dev` whose messages get ids from `first_id` on.
    pub fn new(dev: Device<PairCard>, link: Link, first_id: u64) -> Self {
        Self {
            dev,
            link,
            ids: first_id..first_id,
            next: first_id,
            sent: Vec::new(),
            received: Vec::new(),
            returned: Vec::new(),
            corrupt: 0,
        }
    }

    /// Adds `n` more messages to send.
    pub fn queue(&mut self, n: u64) {
        self.ids.end += n;
    }

    /// Messages queued by [`Endpoint::queue`] and not yet posted to the card.
    pub fn backlog(&self) -> u64 {
        self.ids.end - self.next
    }

    /// Posts what fits of the backlog, and takes what arrived.
    pub fn poll(&mut self) -> Result<()> {
        self.poll_send()?;
        self.poll_recv()
    }

    /// Posts what fits of the backlog to the card.
    pub fn poll_send(&mut self) -> Result<()> {
        if self.next < self.ids.end {
            let n = (self.ids.end - self.next).min(32);
            let batch: Vec<_> = (self.next..self.next + n).map(payload).collect();
            let took = self.link.send(&mut self.dev, &batch)? as u64;
            self.sent.extend(self.next..self.next + took);
            self.next += took;
        }
        Ok(())
    }

    /// Takes every message waiting in the link's RX pipe.
    pub fn poll_recv(&mut self) -> Result<()> {
        for m in self.link.recv(&mut self.dev)? {
            self.note(m);
        }
        Ok(())
    }

    /// Books one message read from the link's RX pipe (by [`Endpoint::poll_recv`],
    /// or by another reader of the same pipe).
    pub fn note(&mut self, m: LinkMsg) {
        match (m.kind, id_of(&m.payload)) {
            (MsgKind::Delivered, Some(id)) => self.received.push((id, m.channel)),
            (MsgKind::Delivered, None) => self.corrupt += 1,
            (kind, Some(id)) => self.returned.push((id, kind)),
            (_, None) => self.corrupt += 1,
        }
    }
}

/// Two hosts talking over the link.
pub struct AcpTraffic {
    pub a: Endpoint,
    pub b: Endpoint,
    pub pair: Rc<RefCell<NicPair>>,
    /// Ids sent by A (index 0) and by B (1) that are accounted for:
    /// delivered at the peer or handed back. Kept up to date on every poll,
    /// so `settled` costs nothing per poll.
    accounted: [HashSet<u64>; 2],
    /// How far each of a.received, a.returned, b.received, b.returned has been folded in.
    folded: [usize; 4],
}

/// B's ids start here, so the two directions never share an id.
pub const B_FIRST_ID: u64 = 1 << 40;

/// The RX pipe each side's link delivers to (reserved for it, so not
/// pipe 0, where non-IP frames go).
pub const LINK_RX_PIPE: usize = 4;

impl AcpTraffic {
    /// Opens the link on both NICs: RX pipe [`LINK_RX_PIPE`] receives, TX pipe 1 sends,
    /// rings of `ring_bytes`; nonce seeds fixed so runs repeat.
    pub fn new(cfg: SimConfig, faults: LinkFaults, ring_bytes: u32) -> Result<Self> {
        let pair = NicPair::new(cfg, faults);
        let (ca, cb) = pair.into_cards();
        let pair = ca.pair.clone();
        let mut da = Device::open(ca)?;
        let mut db = Device::open(cb)?;
        let la = da.open_link_seeded(LINK_RX_PIPE, 1, ring_bytes, 0x1111_2222)?;
        let lb = db.open_link_seeded(LINK_RX_PIPE, 1, ring_bytes, 0x7777_3333)?;
        Ok(Self {
            a: Endpoint::new(da, la, 0),
            b: Endpoint::new(db, lb, B_FIRST_ID),
            pair,
            accounted: [HashSet::new(), HashSet::new()],
            folded: [0; 4],
        })
    }

    /// [`AcpTraffic::new`], then waits (at most 100,000 cycles) until both
    /// sides report the link Up.
    pub fn new_up(cfg: SimConfig, faults: LinkFaults, ring_bytes: u32) -> Result<Self> {
        let mut t = Self::new(cfg, faults, ring_bytes)?;
        if !t.wait_up(100_000)? {
            return Err(pendulum_driver::Error::NoResponse(
                "the ACP link did not come up within 100,000 cycles".into(),
            ));
        }
        Ok(t)
    }

    pub fn cycle(&self) -> u64 {
        self.pair.borrow().cycle()
    }

    /// Runs until both sides report the link up, at most `max_cycles`.
    pub fn wait_up(&mut self, max_cycles: u64) -> Result<bool> {
        let end = self.cycle() + max_cycles;
        while self.cycle() < end {
            if self.a.dev.link_state()? == LinkState::Up
                && self.b.dev.link_state()? == LinkState::Up
            {
                return Ok(true);
            }
            self.pair.borrow_mut().run(64);
        }
        Ok(false)
    }

    /// One round of both hosts: post what fits, take what arrived, let time pass.
    pub fn poll(&mut self) -> Result<()> {
        self.a.poll()?;
        self.b.poll()?;
        self.fold();
        let n = self.pair.borrow().a.cfg.poll_interval_cycles;
        self.pair.borrow_mut().run(n);
        Ok(())
    }

    /// Whether every message queued on either side was posted and is
    /// accounted for: delivered at the peer, or handed back.
    pub fn settled(&self) -> bool {
        self.a.backlog() == 0
            && self.b.backlog() == 0
            && self.accounted[0].len() == self.a.sent.len()
            && self.accounted[1].len() == self.b.sent.len()
    }

    /// Adds what arrived since the last call to `accounted` (`poll` does;
    /// a caller that polls the hosts itself calls it).
    pub fn fold(&mut self) {
        let side = |id: u64| (id >= B_FIRST_ID) as usize;
        let new_ids = self.a.received[self.folded[0]..]
            .iter()
            .map(|r| r.0)
            .chain(self.a.returned[self.folded[1]..].iter().map(|r| r.0))
            .chain(self.b.received[self.folded[2]..].iter().map(|r| r.0))
            .chain(self.b.returned[self.folded[3]..].iter().map(|r| r.0));
        for id in new_ids {
            self.accounted[side(id)].insert(id);
        }
        self.folded = [
            self.a.received.len(),
            self.a.returned.len(),
            self.b.received.len(),
            self.b.returned.len(),
        ];
    }

    /// Messages posted by either side and not yet accounted for (delivered
    /// at the peer, or handed back).
    pub fn unaccounted(&self) -> usize {
        self.unaccounted_from(Side::A) + self.unaccounted_from(Side::B)
    }

    /// Messages `side` posted that are not yet accounted for.
    pub fn unaccounted_from(&self, side: Side) -> usize {
        match side {
            Side::A => self.a.sent.len() - self.accounted[0].len(),
            Side::B => self.b.sent.len() - self.accounted[1].len(),
        }
    }

    /// The first message `side` posted that is not yet accounted for, by id.
    pub fn first_unaccounted(&self, side: Side) -> Option<u64> {
        let (sent, acc) = match side {
            Side::A => (&self.a.sent, &self.accounted[0]),
            Side::B => (&self.b.sent, &self.accounted[1]),
        };
        sent.iter().copied().find(|id| !acc.contains(id))
    }

    /// Polls until [`AcpTraffic::settled`], at most `max_cycles`; returns whether it settled.
    pub fn run_until_settled(&mut self, max_cycles: u64) -> Result<bool> {
        let end = self.cycle() + max_cycles;
        while self.cycle() < end {
            if self.settled() {
                return Ok(true);
            }
            self.poll()?;
        }
        Ok(self.settled())
    }

    /// Runs both hosts for 400 polls, watching the records on the wire, and
    /// checks that every channel either side states is back to IDLE (sender
    /// role) and EXPECT (receiver role): none is left holding a transfer or
    /// a stray payload, which would take it out of service for good. Call it
    /// once everything queued is accounted for. `Err` names a stuck channel.
    pub fn quiescent(&mut self) -> std::result::Result<(), String> {
        use pendulum_layout::acp::{
            rx_state, sender_state, tx_state, BYTE_CHANNEL, BYTE_OPCODE, BYTE_STATE, OP_ENTANGLE,
        };
        use pendulum_layout::params::ACP_CHANNELS as K;
        /// A channel no record stated (past the count in use).
        const UNSEEN: u8 = 0xFF;
        let last: Rc<RefCell<[[u8; K]; 2]>> = Rc::new(RefCell::new([[UNSEEN; K]; 2]));
        let seen = last.clone();
        let tap = self
            .pair
            .borrow_mut()
            .wire_tap
            .replace(Box::new(move |_, side, rec| {
                if rec[BYTE_OPCODE] != OP_ENTANGLE {
                    seen.borrow_mut()[(side == Side::B) as usize][rec[BYTE_CHANNEL] as usize % K] =
                        rec[BYTE_STATE];
                }
            }));
        for _ in 0..400 {
            self.poll().map_err(|e| e.to_string())?;
        }
        self.pair.borrow_mut().wire_tap = tap;
        for (side, states) in ["A", "B"].iter().zip(last.borrow().iter()) {
            for (ch, &st) in states.iter().enumerate().filter(|(_, &st)| st != UNSEEN) {
                if sender_state(st) != tx_state::IDLE || (st >> 4) & 3 != rx_state::EXPECT {
                    return Err(format!(
                        "{side}'s channel {ch} is stuck in state byte {st:#04x}"
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn counters(&mut self) -> Result<(LinkCounters, LinkCounters)> {
        Ok((self.a.dev.link_counters()?, self.b.dev.link_counters()?))
    }

    /// The exactly-once checks, both directions: `Err` says what broke.
    /// Also that every record either side sent states a move the channel
    /// machine can make (`LinkStats::bad_moves`).
    pub fn check(&self) -> std::result::Result<(), String> {
        let pair = self.pair.borrow();
        if let Some(first) = pair.link.first_bad_move() {
            return Err(format!(
                "{} records stated a move the channel machine cannot make; the first: {first}",
                pair.link.stats().bad_moves
            ));
        }
        drop(pair);
        check_direction("A→B", &self.a, &self.b)?;
        check_direction("B→A", &self.b, &self.a)
    }
}

fn check_direction(name: &str, from: &Endpoint, to: &Endpoint) -> std::result::Result<(), String> {
    if to.corrupt > 0 {
        return Err(format!("{name}: {} payloads arrived changed", to.corrupt));
    }
    let sent: HashSet<u64> = from.sent.iter().copied().collect();
    let mut delivered = HashSet::new();
    for &(id, _) in &to.received {
        if !sent.contains(&id) {
            return Err(format!("{name}: message {id} delivered but never sent"));
        }
        if !delivered.insert(id) {
            return Err(format!("{name}: message {id} delivered twice"));
        }
    }
    let mut returned = HashSet::new();
    for &(id, kind) in &from.returned {
        if !returned.insert(id) {
            return Err(format!("{name}: message {id} handed back twice"));
        }
        if kind == MsgKind::NotDelivered && delivered.contains(&id) {
            return Err(format!(
                "{name}: message {id} handed back as not delivered, but it was delivered"
            ));
        }
    }
    // Within a channel, messages arrive in the order they were sent.
    let mut last: BTreeMap<u8, u64> = BTreeMap::new();
    for &(id, ch) in &to.received {
        if let Some(prev) = last.insert(ch, id) {
            if id < prev {
                return Err(format!("{name}: channel {ch} delivered {id} after {prev}"));
            }
        }
    }
    Ok(())
}
