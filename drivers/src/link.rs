use crate::pipe::RxPipe;
use crate::random::host_random;
use crate::tx::TxPipe;
use crate::{Card, Device, Error, Reservation, Result};
use pendulum_layout::acp::{self, link_state, message, ECHO_RESULT_BYTES, PAYLOAD_BYTES};
use pendulum_layout::atomic::{self, Request, Verb, VerbResult};
use pendulum_layout::{global, pipe, pipe_page, Counter};

/// The ACP link's state (LINK_STATE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// No signal from the physical layer.
    Down,
    /// Exchanging nonces with the peer.
    Entangling,
    /// Entangled: transfers flow.
    Up,
}

/// The link's counters (`pendulum_layout::global::LINK_*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub records: u64,
    pub bad_check: u64,
    pub bad_record: u64,
    pub commits: u64,
    pub delivered: u64,
    pub rejects: u64,
    pub reversals: u64,
    pub failures: u64,
    pub entangles: u64,
    pub returned: u64,
}

/// What a message in the link's RX pipe is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgKind {
    /// Sent by the peer and committed: delivered exactly once.
    Delivered,
    /// One of ours, handed back: it was certainly not delivered (a verb:
    /// never applied). Send it again if it still matters.
    NotDelivered,
    /// One of ours, handed back: we decided COMMIT, but the peer lost its
    /// state (or the channel was dropped) before it proved the delivery, so
    /// it may or may not have been delivered (a verb: applied once, or not at
    /// all; never twice). Resolve it at the application level: read the
    /// state the message or verb was meant to change, or make the message
    /// idempotent (a sequence number the receiver checks) and send it again.
    InDoubt,
    /// The result of one of our remote verbs ([`LinkMsg::verb_result`]),
    /// handed up when the peer proved it delivered the verb (its proof
    /// carries the result, checked end to end): the verb is applied exactly
    /// once, whatever happens afterwards. A verb that may not have been
    /// applied never gets a result; it comes back [`MsgKind::InDoubt`].
    VerbResult,
}

/// A message read from the link's RX pipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkMsg {
    pub kind: MsgKind,
    /// The token channel it travelled on.
    pub channel: u8,
    /// Handed back (NotDelivered or InDoubt): the payload is one of our
    /// remote verbs, not a message. The card says which, so a message whose
    /// bytes happen to read as a verb is never taken for one.
    pub verb: bool,
    pub payload: [u8; PAYLOAD_BYTES],
}

impl LinkMsg {
    /// The result of a remote verb (kind [`MsgKind::VerbResult`]).
    pub fn verb_result(&self) -> Option<VerbResult> {
        if self.kind != MsgKind::VerbResult {
            return None;
        }
        let mut slot = [0u8; atomic::SLOT_BYTES];
        slot[..ECHO_RESULT_BYTES].copy_from_slice(&self.payload[..ECHO_RESULT_BYTES]);
        VerbResult::from_slot(&slot)
    }

    /// A remote verb of ours handed back (kind NotDelivered or InDoubt, and
    /// the card says the payload was posted as a verb).
    pub fn returned_verb(&self) -> Option<Verb> {
        match self.kind {
            MsgKind::NotDelivered | MsgKind::InDoubt if self.verb => Verb::from_slot(&self.payload),
            _ => None,
        }
    }
}

/// Host messaging over the ACP link: a TX pipe bound to the link, and the RX
/// pipe that receives what the peer delivers and what the link hands back.
#[derive(Debug)]
pub struct Link {
    rx: RxPipe,
    tx: TxPipe,
    /// Messages read while [`Link::run_verb`] waited, for the next `recv`.
    kept: Vec<LinkMsg>,
}

impl<C: Card> Device<C> {
    /// Binds TX pipe `tx_pipe` to the ACP link and makes RX pipe `rx_pipe` its
    /// receiver, each with a ring of `ring_bytes`; seeds the link's nonces
    /// from host randomness.
    ///
    /// `rx_pipe` is reserved for the link's messages as
    /// [`Device::open_atomics`] reserves its pipe (the same errors, and
    /// [`Error::LinkInUse`] while a Link of this Device is open), until
    /// [`Device::close_link`].
    pub fn open_link(&mut self, rx_pipe: usize, tx_pipe: usize, ring_bytes: u32) -> Result<Link> {
        self.open_link_seeded(rx_pipe, tx_pipe, ring_bytes, host_random())
    }

    /// [`Device::open_link`] with a given nonce seed, for reproducible runs.
    pub fn open_link_seeded(
        &mut self,
        rx_pipe: usize,
        tx_pipe: usize,
        ring_bytes: u32,
        seed: u32,
    ) -> Result<Link> {
        if let Some((rx, tx)) = self.link_open {
            return Err(Error::LinkInUse { rx, tx });
        }
        self.check_pipe_pair(rx_pipe, tx_pipe, ring_bytes)?;
        let reg = global::LINK_RX_PIPE;
        self.reserve_rx_pipe(reg, rx_pipe, Reservation::LinkMessages)?;
        let (rx, tx) = match self.open_link_pipes(rx_pipe, tx_pipe, ring_bytes, seed) {
            Ok(pipes) => pipes,
            Err(e) => {
                // Best effort: the error says what went wrong.
                let _ = self.release_rx_pipe(reg, rx_pipe);
                return Err(e);
            }
        };
        self.link_open = Some((rx_pipe, tx_pipe));
        Ok(Link {
            rx,
            tx,
            kept: Vec::new(),
        })
    }

    /// The link's RX and TX pipes, and its seed.
    fn open_link_pipes(
        &mut self,
        rx_pipe: usize,
        tx_pipe: usize,
        ring_bytes: u32,
        seed: u32,
    ) -> Result<(RxPipe, TxPipe)> {
        let rx = self.open_rx_pipe(rx_pipe, ring_bytes)?;
        let tx = self.open_tx_pipe_unstamped(tx_pipe, ring_bytes)?;
        self.write_checked(
            pipe_page(tx_pipe) + pipe::TX_CTRL.offset,
            pipe::CTRL_ENABLE | pipe::TX_CTRL_ACP,
        )?;
        self.seed_link(seed)?;
        Ok((rx, tx))
    }

    /// Closes `link`'s pipes (see [`Device::close_tx_pipe`]: messages
    /// posted and not yet taken by the link are abandoned) and frees its RX
    /// pipe for steering, so [`Device::open_link`] may be called again.
    pub fn close_link(&mut self, link: Link) -> Result<()> {
        let rx_pipe = link.rx.index();
        self.close_tx_pipe(link.tx)?;
        // Off before it is freed: a frame steered there meanwhile is dropped.
        self.close_rx_pipe(link.rx)?;
        self.link_open = None;
        self.release_rx_pipe(global::LINK_RX_PIPE, rx_pipe)
    }

    /// Stirs `seed` into the link's nonce generator. Two cards with the
    /// same seed that start at the same instant draw the same nonces and
    /// cannot entangle, so [`Device::open_link`] seeds from host randomness.
    pub fn seed_link(&mut self, seed: u32) -> Result<()> {
        self.write_checked(global::LINK_SEED.offset, seed)
    }

    pub fn link_state(&mut self) -> Result<LinkState> {
        match self.read(global::LINK_STATE.offset)? {
            link_state::DOWN => Ok(LinkState::Down),
            link_state::ENTANGLING => Ok(LinkState::Entangling),
            link_state::UP => Ok(LinkState::Up),
            other => Err(self.blame_reset(Error::NoResponse(format!(
                "LINK_STATE reads {other}, which no card state has"
            )))),
        }
    }

    pub fn link_counters(&mut self) -> Result<LinkCounters> {
        Ok(LinkCounters {
            records: self.read64(Counter::LinkRecords.reg())?,
            bad_check: self.read64(Counter::LinkBadCheck.reg())?,
            bad_record: self.read64(Counter::LinkBadRecord.reg())?,
            commits: self.read64(Counter::LinkCommits.reg())?,
            delivered: self.read64(Counter::LinkDelivered.reg())?,
            rejects: self.read64(Counter::LinkRejects.reg())?,
            reversals: self.read64(Counter::LinkReversals.reg())?,
            failures: self.read64(Counter::LinkFailures.reg())?,
            entangles: self.read64(Counter::LinkEntangles.reg())?,
            returned: self.read64(Counter::LinkReturned.reg())?,
        })
    }

    /// Resets the link: every message it holds comes back on the link's RX
    /// pipe as not delivered (or in doubt, if it was decided COMMIT), and the
    /// link re-entangles; the peer sees we lost our state.
    pub fn reset_link(&mut self) -> Result<()> {
        self.write_checked(global::LINK_CTRL.offset, global::LINK_CTRL_RESET)
    }
}

impl Link {
    pub fn rx_pipe(&self) -> usize {
        self.rx.index()
    }

    pub fn tx_pipe(&self) -> usize {
        self.tx.index()
    }

    /// Queues payloads, one 64-byte message slot each (one ring entry), and
    /// rings the doorbell once.
    /// Returns how many were queued (it stops when the TX ring is full; a
    /// full ring is not an error, retry later).
    pub fn send<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        payloads: &[[u8; PAYLOAD_BYTES]],
    ) -> Result<usize> {
        self.tx.send_slots(dev, payloads, |p| {
            let mut slot = [0u8; acp::RECORD_BYTES];
            slot[0] = message::KIND_SEND;
            slot[message::PAYLOAD_OFFSET..].copy_from_slice(p);
            slot
        })
    }

    /// Queues remote atomic verbs for the peer's atomic unit (as many as
    /// fit, one doorbell; returns how many). Each runs there tentatively, is
    /// made permanent when we decide COMMIT (one round trip after the
    /// offer), and its result comes back on [`Link::recv`]
    /// ([`MsgKind::VerbResult`], matched by tag) when the peer's proof of
    /// that arrives (another round trip): final, applied exactly once. A
    /// verb the link cannot prove applied comes back
    /// [`MsgKind::NotDelivered`] or [`MsgKind::InDoubt`] instead. A
    /// multi-word commit does not fit one link payload and is refused here.
    pub fn send_verbs<C: Card>(&mut self, dev: &mut Device<C>, verbs: &[Verb]) -> Result<usize> {
        let requests: Vec<Request> = verbs.iter().map(|&v| v.into()).collect();
        self.send_requests(dev, &requests)
    }

    /// [`Link::send_verbs`] for verbs and one-slot commits (`COMMIT_WORDS`)
    /// mixed; a three-slot COMMIT is refused: it does not fit a payload.
    pub fn send_requests<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        requests: &[Request],
    ) -> Result<usize> {
        let bad = requests.iter().find(|q| match q {
            Request::Verb(v) => v.op == atomic::op::COMMIT,
            Request::Commit(_) => true,
            Request::Words(_) => false,
        });
        if let Some(q) = bad {
            return Err(Error::BadVerb(format!(
                "request with tag {} is a three-slot COMMIT: it runs locally only (192 bytes; a link payload holds 56); use a one-slot COMMIT_WORDS (up to five words)",
                q.tag()
            )));
        }
        self.tx.send_slots(dev, requests, |q| {
            let mut slot = [0u8; acp::RECORD_BYTES];
            slot[0] = message::KIND_SEND_VERB;
            slot[message::PAYLOAD_OFFSET..].copy_from_slice(&q.to_slots()[..PAYLOAD_BYTES]);
            slot
        })
    }

    /// Runs one remote verb and waits for its result, at most `max_polls`
    /// polls (synchronous form). What else arrives meanwhile is kept for the
    /// next [`Link::recv`]. `Ok` is a final result: the verb was applied
    /// exactly once. A verb handed back instead is
    /// [`Error::VerbHandedBack`], whose `in_doubt` says whether it may have
    /// been applied; it is never returned as a value.
    pub fn run_verb<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        verb: Verb,
        max_polls: u64,
    ) -> Result<VerbResult> {
        // Both loops relax through the Device, so a reset of the card ends
        // them with Error::CardReset within POLLS_PER_RESET_CHECK polls.
        let mut polls = 0;
        while self.send_verbs(dev, &[verb])? == 0 {
            polls += 1;
            if polls > max_polls {
                return Err(dev.blame_reset(Error::NoResponse(format!(
                    "the link's TX ring stayed full for {max_polls} polls"
                ))));
            }
            dev.relax()?;
        }
        while polls <= max_polls {
            for m in self.read(dev)? {
                if let Some(r) = m.verb_result().filter(|r| r.tag == verb.tag) {
                    return Ok(r);
                }
                if let Some(v) = m.returned_verb().filter(|v| v.tag == verb.tag) {
                    return Err(Error::VerbHandedBack {
                        tag: v.tag,
                        in_doubt: m.kind == MsgKind::InDoubt,
                    });
                }
                self.kept.push(m);
            }
            polls += 1;
            dev.relax()?;
        }
        Err(dev.blame_reset(Error::NoResponse(format!(
            "remote verb with tag {} got no result in {max_polls} polls",
            verb.tag
        ))))
    }

    /// Raw form for tests: posts `bytes` (a message slot, its kind byte
    /// included) to the bound TX pipe as one ring entry of `bytes.len()`
    /// bytes, as they are ([`TxPipe::send_raw_entry`]): the card takes only
    /// entries of 64 bytes with a send kind, and drops and counts the rest.
    pub fn send_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.tx.send_raw_entry(dev, bytes)
    }

    /// Every message waiting in the RX pipe, oldest first (one 64-byte
    /// ring entry each); their entries are freed. A slot with an unknown
    /// kind, or an entry of another length, is a corrupt ring.
    pub fn recv<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<LinkMsg>> {
        let mut out = std::mem::take(&mut self.kept);
        out.extend(self.read(dev)?);
        Ok(out)
    }

    fn read<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<LinkMsg>> {
        self.rx.take_slots(dev, |slot| {
            let (kind, verb) = match slot[0] {
                message::KIND_DELIVERED => (MsgKind::Delivered, false),
                message::KIND_NOT_DELIVERED => (MsgKind::NotDelivered, false),
                message::KIND_IN_DOUBT => (MsgKind::InDoubt, false),
                message::KIND_VERB_NOT_DELIVERED => (MsgKind::NotDelivered, true),
                message::KIND_VERB_IN_DOUBT => (MsgKind::InDoubt, true),
                message::KIND_VERB_RESULT => (MsgKind::VerbResult, false),
                k => return Err(format!("ACP message kind {k:#04x} is none of delivered/not delivered/in doubt (message or verb)/verb result")),
            };
            let mut payload = [0u8; PAYLOAD_BYTES];
            payload.copy_from_slice(&slot[message::PAYLOAD_OFFSET..acp::RECORD_BYTES]);
            Ok(LinkMsg { kind, channel: slot[message::BYTE_CHANNEL], verb, payload })
        })
    }

    /// Polls until messages wait, at most `max_polls` times.
    pub fn wait<C: Card>(&mut self, dev: &mut Device<C>, max_polls: u64) -> bool {
        !self.kept.is_empty() || self.rx.wait(dev, max_polls)
    }

    /// True when the card has taken every posted message off the TX ring
    /// (into the link's channel buffers; not yet necessarily delivered).
    pub fn sent<C: Card>(&mut self, dev: &Device<C>) -> bool {
        self.tx.idle(dev)
    }
}
