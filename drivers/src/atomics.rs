use crate::pipe::RxPipe;
use crate::tx::TxPipe;
use crate::{Card, Device, Error, Result};
use pendulum_layout::atomic::{
    op, status, Commit, CommitWords, Request, Verb, VerbResult, WordOp, LINE_WORDS, WORD_OPS,
};
use pendulum_layout::{global, pipe, pipe_page};

/// Local atomic verbs: a TX pipe bound to the card's atomic unit carries the
/// verbs (one 64-byte slot each; three for a multi-word commit), an RX pipe
/// receives the results (one slot each; two for a commit), matched by tag.
/// Many verbs may be in flight; results come back in order.
#[derive(Debug)]
pub struct Atomics {
    rx: RxPipe,
    tx: TxPipe,
    next_tag: u16,
}

impl<C: Card> Device<C> {
    /// Binds TX pipe `tx_pipe` to the atomic unit and makes RX pipe
    /// `rx_pipe` receive its results, each with a ring of `ring_bytes`.
    ///
    /// One [`Atomics`] per Device at a time: the card sends every result to
    /// one RX pipe (ATOMIC_RX_PIPE), so a second one would take the first
    /// one's results. While one is open this is [`Error::AtomicsInUse`];
    /// [`Device::close_atomics`] ends it.
    pub fn open_atomics(
        &mut self,
        rx_pipe: usize,
        tx_pipe: usize,
        ring_bytes: u32,
    ) -> Result<Atomics> {
        if let Some((rx, tx)) = self.atomics_open {
            return Err(Error::AtomicsInUse { rx, tx });
        }
        if self.read(global::CAP_ATOMIC_BYTES.offset)? == 0 {
            return Err(Error::NoDevice(
                "this card has no atomic unit (CAP_ATOMIC_BYTES = 0)".into(),
            ));
        }
        let rx = self.open_rx_pipe(rx_pipe, ring_bytes)?;
        self.write_checked(global::ATOMIC_RX_PIPE.offset, rx_pipe as u32)?;
        let tx = self.open_tx_pipe(tx_pipe, ring_bytes)?;
        self.write_checked(
            pipe_page(tx_pipe) + pipe::TX_CTRL.offset,
            pipe::CTRL_ENABLE | pipe::TX_CTRL_ATOMIC,
        )?;
        self.atomics_open = Some((rx_pipe, tx_pipe));
        Ok(Atomics {
            rx,
            tx,
            next_tag: 0,
        })
    }

    /// Closes `at`'s pipes (see [`Device::close_tx_pipe`]: verbs posted and
    /// not yet run are abandoned), so [`Device::open_atomics`] may be
    /// called again. Results not yet taken are lost.
    pub fn close_atomics(&mut self, at: Atomics) -> Result<()> {
        self.close_tx_pipe(at.tx)?;
        self.close_rx_pipe(at.rx)?;
        self.atomics_open = None;
        Ok(())
    }
}

impl Atomics {
    /// Posts verbs (their tags as given), one doorbell; returns how many fit.
    pub fn submit<C: Card>(&mut self, dev: &mut Device<C>, verbs: &[Verb]) -> Result<usize> {
        refuse_bare_commit(verbs.iter())?;
        self.tx.send_slots(dev, verbs, Verb::to_slot)
    }

    /// Posts verbs and commits in order (their tags as given), one doorbell;
    /// returns how many fit whole.
    pub fn submit_requests<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        requests: &[Request],
    ) -> Result<usize> {
        refuse_bare_commit(requests.iter().filter_map(|q| match q {
            Request::Verb(v) => Some(v),
            Request::Commit(_) | Request::Words(_) => None,
        }))?;
        self.tx.send_slots(dev, requests, Request::to_slots)
    }

    /// Raw form for tests: posts `bytes` (whole 64-byte slots) as they are.
    pub fn submit_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.tx.send_raw(dev, bytes)
    }

    /// Results waiting, in the order the verbs were executed; their slots are freed.
    pub fn results<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<VerbResult>> {
        self.rx.take_records(dev, |rest| {
            VerbResult::from_slots(rest)
                .map(|(r, slots)| (r, slots as u32))
                .ok_or_else(|| {
                    format!(
                        "byte 0 is {:#04x}, not an atomic result (or half of one)",
                        rest[0]
                    )
                })
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

    fn take_tag(&mut self) -> u16 {
        let tag = self.next_tag;
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
        while self.submit_requests(dev, &[q])? == 0 {
            dev.relax()?;
        }
        for _ in 0..1_000_000 {
            if let Some(r) = self.results(dev)?.into_iter().find(|r| r.tag == tag) {
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

/// A one-slot verb naming COMMIT would make the card take the next two slots
/// as its lines: refused here, with what to use instead.
fn refuse_bare_commit<'a>(mut verbs: impl Iterator<Item = &'a Verb>) -> Result<()> {
    match verbs.find(|v| v.op == op::COMMIT) {
        Some(v) => Err(Error::BadVerb(format!(
            "verb with tag {} names COMMIT as a one-slot verb; post a Commit (Atomics::commit or submit_requests)",
            v.tag
        ))),
        None => Ok(()),
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
