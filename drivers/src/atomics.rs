use crate::pipe::RxPipe;
use crate::tx::TxPipe;
use crate::{Card, Device, Error, Reservation, Result};
use pendulum_layout::atomic::{
    op, status, Commit, CommitWords, Request, Verb, VerbResult, WordOp, LINE_WORDS, SLOT_BYTES,
    WORD_OPS,
};
use pendulum_layout::{global, pipe, pipe_page};

/// Local atomic verbs: a TX pipe bound to the card's atomic unit carries the
/// verbs (one ring entry each: a 64-byte slot, or a multi-word commit's
/// three in one entry of 192 bytes), an RX pipe receives the results (one
/// entry each: 64 bytes, or a commit's two slots in one entry of 128),
/// matched by tag. Many verbs may be in flight; results come back in order.
///
/// Two ways to use it, which mix freely:
/// - [`Atomics::submit`] / [`Atomics::submit_requests`] post requests with
///   the caller's own tags (the card returns the 16-bit tag as given, like
///   an RDMA `wr_id`), and [`Atomics::results`] returns their results.
///   Tags from [`Atomics::HELPER_TAGS_FIRST`] up are refused
///   ([`Error::ReservedTag`]).
/// - The blocking calls ([`Atomics::cas`], [`Atomics::fetch_add`],
///   [`Atomics::run`], [`Atomics::commit`], …) post one request with a tag
///   of that reserved range and wait for its result. Results of submitted
///   requests that arrive meanwhile are kept, in order, for the next
///   [`Atomics::results`]; none is taken or dropped.
#[derive(Debug)]
pub struct Atomics {
    rx: RxPipe,
    tx: TxPipe,
    /// Low byte of the next blocking call's tag.
    next_tag: u8,
    /// Results of submitted requests read by a blocking call, for the next
    /// [`Atomics::results`].
    kept: Vec<VerbResult>,
}

impl<C: Card> Device<C> {
    /// Binds TX pipe `tx_pipe` to the atomic unit and makes RX pipe
    /// `rx_pipe` receive its results, each with a ring of `ring_bytes`.
    ///
    /// One [`Atomics`] per Device at a time: the card sends every result to
    /// one RX pipe (ATOMIC_RX_PIPE), so a second one would take the first
    /// one's results. While one is open this is [`Error::AtomicsInUse`];
    /// [`Device::close_atomics`] ends it, as does dropping it (at the
    /// Device's next call, as for a dropped pipe). When this fails, no pipe
    /// is left open or reserved.
    ///
    /// `rx_pipe` is reserved for the results (RX_PIPE_RESERVED) before it is
    /// enabled, so no Ethernet frame ever lands among them: the card steers
    /// none there, and the driver refuses to make it the default pipe or a
    /// flow's pipe ([`Error::PipeReserved`]) until the Atomics is closed. So
    /// it must not be a pipe frames are steered to now: the default pipe
    /// (pipe 0 after [`Device::open`]) or one with bound flows is
    /// [`Error::CannotReserve`].
    pub fn open_atomics(
        &mut self,
        rx_pipe: usize,
        tx_pipe: usize,
        ring_bytes: u32,
    ) -> Result<Atomics> {
        // A dropped `Atomics` gives its slot back here.
        self.close_dropped()?;
        if let Some((rx, tx)) = self.atomics_open {
            return Err(Error::AtomicsInUse { rx, tx });
        }
        if self.read(global::CAP_ATOMIC_BYTES.offset)? == 0 {
            return Err(Error::NoDevice(
                "this card has no atomic unit (CAP_ATOMIC_BYTES = 0)".into(),
            ));
        }
        self.check_pipe_pair(rx_pipe, tx_pipe, ring_bytes)?;
        let reg = global::ATOMIC_RX_PIPE;
        self.reserve_rx_pipe(reg, rx_pipe, Reservation::AtomicResults)?;
        let (rx, tx) = match self.open_atomics_pipes(rx_pipe, tx_pipe, ring_bytes) {
            Ok(pipes) => pipes,
            Err(e) => {
                // A pipe opened on the way was dropped: closed now rather
                // than at the next call, so it is free as soon as this
                // returns, and off before its reservation goes. Best
                // effort: the first error is the one to report.
                let _ = self.close_dropped();
                let _ = self.release_rx_pipe(reg, rx_pipe);
                return Err(e);
            }
        };
        self.atomics_open = Some((rx_pipe, tx_pipe));
        Ok(Atomics {
            rx,
            tx,
            next_tag: 0,
            kept: Vec::new(),
        })
    }

    /// The RX pipe for results and the TX pipe bound to the atomic unit (a
    /// pipe opened on the way and dropped is closed by the Device's next
    /// call).
    fn open_atomics_pipes(
        &mut self,
        rx_pipe: usize,
        tx_pipe: usize,
        ring_bytes: u32,
    ) -> Result<(RxPipe, TxPipe)> {
        let rx = self.open_rx_pipe(rx_pipe, ring_bytes)?;
        let tx = self.open_tx_pipe_unstamped(tx_pipe, ring_bytes)?;
        self.write_checked(
            pipe_page(tx_pipe) + pipe::TX_CTRL.offset,
            pipe::CTRL_ENABLE | pipe::TX_CTRL_ATOMIC,
        )?;
        Ok((rx, tx))
    }

    /// Closes `at`'s pipes (see [`Device::close_tx_pipe`]: verbs posted and
    /// not yet run are abandoned) and frees its RX pipe for steering, so
    /// [`Device::open_atomics`] may be called again. Results not yet taken
    /// are lost.
    pub fn close_atomics(&mut self, at: Atomics) -> Result<()> {
        let rx_pipe = at.rx.index();
        self.close_tx_pipe(at.tx)?;
        // Off before it is freed: a frame steered there meanwhile is dropped.
        self.close_rx_pipe(at.rx)?;
        self.atomics_open = None;
        self.release_rx_pipe(global::ATOMIC_RX_PIPE, rx_pipe)
    }
}

impl Atomics {
    /// The first tag the blocking calls use for their own requests; they use
    /// tags from here to `u16::MAX`, and [`Atomics::submit`] and
    /// [`Atomics::submit_requests`] refuse them. Requests submitted by the
    /// caller carry tags below this.
    pub const HELPER_TAGS_FIRST: u16 = 0xFF00;

    /// Posts verbs (their tags as given, each below
    /// [`Atomics::HELPER_TAGS_FIRST`]), one doorbell; returns how many fit.
    /// A reserved tag is [`Error::ReservedTag`], a verb naming COMMIT
    /// [`Error::BadVerb`]; nothing is posted then.
    pub fn submit<C: Card>(&mut self, dev: &mut Device<C>, verbs: &[Verb]) -> Result<usize> {
        verbs
            .iter()
            .try_for_each(|&v| refuse(&Request::Verb(v), false))?;
        self.tx.send_slots(dev, verbs, Verb::to_slot)
    }

    /// Posts verbs and commits in order (their tags as given, each below
    /// [`Atomics::HELPER_TAGS_FIRST`]), one doorbell; returns how many fit
    /// whole. Refused as [`Atomics::submit`] refuses.
    pub fn submit_requests<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        requests: &[Request],
    ) -> Result<usize> {
        requests.iter().try_for_each(|q| refuse(q, false))?;
        self.tx.send_slots(dev, requests, Request::to_slots)
    }

    /// Raw form for tests: posts `bytes` as one ring entry of
    /// `bytes.len()` bytes, as they are ([`crate::TxPipe::send_raw_entry`]):
    /// the card runs an entry of 64 bytes (a verb) or 192 (a commit) and
    /// drops and counts any other. Nothing is checked: a verb with a
    /// reserved tag gets its result dropped, as a blocking call's stale one
    /// would be.
    pub fn submit_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.tx.send_raw_entry(dev, bytes)
    }

    /// Results of submitted requests, in the order they were executed:
    /// first those a blocking call read while it waited, then those waiting
    /// in the ring (whose entries are freed). Results with reserved tags
    /// (blocking calls that gave up waiting) are dropped.
    pub fn results<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<VerbResult>> {
        let fresh = self.read_results(dev)?;
        let mut out = std::mem::take(&mut self.kept);
        out.extend(fresh.into_iter().filter(|r| !is_helper_tag(r.tag)));
        Ok(out)
    }

    /// Every result waiting in the ring, whoever posted its request (one
    /// per entry); their entries are freed.
    fn read_results<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<VerbResult>> {
        self.rx
            .take_records(dev, |entry| match VerbResult::from_slots(entry) {
                Some((r, slots)) if slots * SLOT_BYTES == entry.len() => Ok(r),
                Some((r, slots)) => Err(format!(
                    "an entry of {} bytes holds a result of {} (opcode {:#04x})",
                    entry.len(),
                    slots * SLOT_BYTES,
                    r.op
                )),
                None => Err(format!(
                    "an entry of {} bytes starting {:02x?} is not an atomic result",
                    entry.len(),
                    &entry[..entry.len().min(4)]
                )),
            })
    }

    /// Runs one verb and waits for its result (synchronous form).
    pub fn run<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        op: u8,
        addr: u32,
        operands: [u64; 4],
    ) -> Result<VerbResult> {
        let tag = self.take_tag();
        self.run_request(
            dev,
            Request::Verb(Verb {
                op,
                tag,
                addr,
                operands,
                reserved_set: false,
            }),
            addr,
        )
    }

    /// A tag for a blocking call: it cycles through the reserved range, so
    /// a late result of a call that gave up is not taken for a later one's
    /// (unless 256 calls later).
    fn take_tag(&mut self) -> u16 {
        let tag = Self::HELPER_TAGS_FIRST | self.next_tag as u16;
        self.next_tag = self.next_tag.wrapping_add(1);
        tag
    }

    fn run_request<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        q: Request,
        addr: u32,
    ) -> Result<VerbResult> {
        let tag = q.tag();
        // Both loops relax through the Device, so a reset of the card ends
        // them with Error::CardReset within POLLS_PER_RESET_CHECK polls.
        refuse(&q, true)?;
        while self.tx.send_slots(dev, &[q], Request::to_slots)? == 0 {
            dev.relax()?;
        }
        for _ in 0..1_000_000 {
            let mut mine = None;
            for r in self.read_results(dev)? {
                if r.tag == tag {
                    mine = Some(r);
                } else if !is_helper_tag(r.tag) {
                    self.kept.push(r);
                }
            }
            if let Some(r) = mine {
                return match r.status {
                    status::OK | status::COMPARE_FAILED => Ok(r),
                    s => Err(Error::Atomic { addr, status: s }),
                };
            }
            dev.relax()?;
        }
        Err(dev.blame_reset(Error::NoResponse(format!(
            "atomic verb at {addr:#x} got no result"
        ))))
    }

    /// Compare-and-swap; returns the old value (it swapped if that equals `expected`).
    pub fn cas<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        addr: u32,
        expected: u64,
        new: u64,
    ) -> Result<u64> {
        Ok(self.run(dev, op::CAS, addr, [expected, new, 0, 0])?.old)
    }

    pub fn fetch_add<C: Card>(&mut self, dev: &mut Device<C>, addr: u32, add: u64) -> Result<u64> {
        Ok(self.run(dev, op::FETCH_ADD, addr, [add, 0, 0, 0])?.old)
    }

    pub fn swap<C: Card>(&mut self, dev: &mut Device<C>, addr: u32, value: u64) -> Result<u64> {
        Ok(self.run(dev, op::SWAP, addr, [value, 0, 0, 0])?.old)
    }

    /// Masked CAS (Linux semantics): compares under `compare_mask`, swaps under `swap_mask`.
    pub fn masked_cas<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        addr: u32,
        expected: u64,
        new: u64,
        compare_mask: u64,
        swap_mask: u64,
    ) -> Result<u64> {
        Ok(self
            .run(
                dev,
                op::MASKED_CAS,
                addr,
                [expected, new, compare_mask, swap_mask],
            )?
            .old)
    }

    /// Multi-word commit on the 64-byte line at `addr`: if every word `i`
    /// with bit `i` of `compare_mask` equals `compare[i]`, writes `write[i]`
    /// to every word under `write_mask`, all or nothing. Returns whether it
    /// wrote, and the line as it was before (on a failed compare: its current
    /// values).
    #[allow(clippy::too_many_arguments)]
    pub fn commit<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        addr: u32,
        compare_mask: u8,
        compare: [u64; LINE_WORDS],
        write_mask: u8,
        write: [u64; LINE_WORDS],
    ) -> Result<(bool, [u64; LINE_WORDS])> {
        let tag = self.take_tag();
        let c = Commit {
            tag,
            addr,
            compare_mask,
            write_mask,
            compare,
            write,
            reserved_set: false,
        };
        let r = self.run_request(dev, Request::Commit(c), addr)?;
        Ok((r.status == status::OK, r.line))
    }

    /// Multi-word commit in one slot on the 64-byte line at `addr`: up to
    /// five word operations (compare, write, or both); every compare must
    /// hold, then every write is done, all or nothing. Returns whether it
    /// wrote, and each operation's word as it was before.
    pub fn commit_words<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        addr: u32,
        ops: &[WordOp],
    ) -> Result<(bool, [u64; WORD_OPS])> {
        let c = commit_words(self.take_tag(), addr, ops)?;
        let r = self.run_request(dev, Request::Words(c), addr)?;
        Ok((r.status == status::OK, r.word_olds))
    }

    /// Masked fetch-and-add: `boundary` marks each field's top bit.
    pub fn masked_fetch_add<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        addr: u32,
        add: u64,
        boundary: u64,
    ) -> Result<u64> {
        Ok(self
            .run(dev, op::MASKED_FETCH_ADD, addr, [add, boundary, 0, 0])?
            .old)
    }
}

/// Whether `tag` is one the blocking calls keep for themselves.
fn is_helper_tag(tag: u16) -> bool {
    tag >= Atomics::HELPER_TAGS_FIRST
}

/// Checks a request before anything is posted: a one-slot verb naming
/// COMMIT is refused (a commit is one entry of its three slots),
/// with what to use instead; so is a reserved tag, unless `helper` (a
/// blocking call's own request).
fn refuse(q: &Request, helper: bool) -> Result<()> {
    if !helper && is_helper_tag(q.tag()) {
        return Err(Error::ReservedTag {
            tag: q.tag(),
            first: Atomics::HELPER_TAGS_FIRST,
        });
    }
    match q {
        Request::Verb(v) if v.op == op::COMMIT => Err(Error::BadVerb(format!(
            "verb with tag {} names COMMIT as a one-slot verb; post a Commit (Atomics::commit or submit_requests)",
            v.tag
        ))),
        _ => Ok(()),
    }
}

/// A [`CommitWords`] of `ops` (at most five; the rest unused), or why not.
pub fn commit_words(tag: u16, addr: u32, ops: &[WordOp]) -> Result<CommitWords> {
    if ops.len() > WORD_OPS {
        return Err(Error::BadVerb(format!(
            "a one-slot commit takes at most {WORD_OPS} word operations, not {}",
            ops.len()
        )));
    }
    if let Some(o) = ops.iter().find(|o| o.word as usize >= LINE_WORDS) {
        return Err(Error::BadVerb(format!(
            "word {} is not in a line (0..{LINE_WORDS})",
            o.word
        )));
    }
    let mut all = [WordOp::default(); WORD_OPS];
    all[..ops.len()].copy_from_slice(ops);
    Ok(CommitWords {
        tag,
        addr,
        ops: all,
        reserved_set: false,
    })
}
