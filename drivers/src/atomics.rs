use crate::pipe::RxPipe;
use crate::tx::TxPipe;
use crate::{Card, Device, Error, Result};
use pendulum_layout::atomic::{op, status, Verb, VerbResult};
use pendulum_layout::{global, pipe, pipe_page};

/// Local atomic verbs: a TX pipe bound to the card's atomic unit carries the
/// verbs (one 64-byte slot each), an RX pipe receives the results, matched
/// by tag. Many verbs may be in flight; results come back in order.
#[derive(Debug)]
pub struct Atomics {
    rx: RxPipe,
    tx: TxPipe,
    next_tag: u16,
}

impl<C: Card> Device<C> {
    /// Binds TX pipe `tx_pipe` to the atomic unit and makes RX pipe
    /// `rx_pipe` receive its results, each with a ring of `ring_bytes`.
    pub fn open_atomics(&mut self, rx_pipe: usize, tx_pipe: usize, ring_bytes: u32) -> Result<Atomics> {
        if self.read(global::CAP_ATOMIC_BYTES.offset)? == 0 {
            return Err(Error::NoDevice("this card has no atomic unit (CAP_ATOMIC_BYTES = 0)".into()));
        }
        let rx = self.open_rx_pipe(rx_pipe, ring_bytes)?;
        self.write_checked(global::ATOMIC_RX_PIPE.offset, rx_pipe as u32)?;
        let tx = self.open_tx_pipe(tx_pipe, ring_bytes)?;
        self.write_checked(pipe_page(tx_pipe) + pipe::TX_CTRL.offset, pipe::CTRL_ENABLE | pipe::TX_CTRL_ATOMIC)?;
        Ok(Atomics { rx, tx, next_tag: 0 })
    }
}

impl Atomics {
    /// Posts verbs (their tags as given), one doorbell; returns how many fit.
    pub fn submit<C: Card>(&mut self, dev: &mut Device<C>, verbs: &[Verb]) -> Result<usize> {
        self.tx.send_slots(dev, verbs, Verb::to_slot)
    }

    /// Raw form for tests: posts `bytes` (whole 64-byte slots) as they are.
    pub fn submit_raw<C: Card>(&mut self, dev: &mut Device<C>, bytes: &[u8]) -> Result<()> {
        self.tx.send_raw(dev, bytes)
    }

    /// Results waiting, in the order the verbs were executed; their slots are freed.
    pub fn results<C: Card>(&mut self, dev: &mut Device<C>) -> Result<Vec<VerbResult>> {
        self.rx.take_slots(dev, |slot| {
            VerbResult::from_slot(slot).ok_or_else(|| format!("byte 0 is {:#04x}, not an atomic result", slot[0]))
        })
    }

    /// Runs one verb and waits for its result (synchronous form).
    pub fn run<C: Card>(&mut self, dev: &mut Device<C>, op: u8, addr: u32, operands: [u64; 4]) -> Result<VerbResult> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let v = Verb { op, tag, addr, operands, reserved_set: false };
        while self.submit(dev, &[v])? == 0 {
            dev.card_mut().relax();
        }
        for _ in 0..1_000_000 {
            if let Some(r) = self.results(dev)?.into_iter().find(|r| r.tag == tag) {
                return match r.status {
                    status::OK | status::COMPARE_FAILED => Ok(r),
                    s => Err(Error::Atomic { addr, status: s }),
                };
            }
            dev.card_mut().relax();
        }
        Err(Error::NoResponse(format!("atomic verb at {addr:#x} got no result")))
    }

    /// Compare-and-swap; returns the old value (it swapped if that equals `expected`).
    pub fn cas<C: Card>(&mut self, dev: &mut Device<C>, addr: u32, expected: u64, new: u64) -> Result<u64> {
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
        Ok(self.run(dev, op::MASKED_CAS, addr, [expected, new, compare_mask, swap_mask])?.old)
    }

    /// Masked fetch-and-add: `boundary` marks each field's top bit.
    pub fn masked_fetch_add<C: Card>(&mut self, dev: &mut Device<C>, addr: u32, add: u64, boundary: u64) -> Result<u64> {
        Ok(self.run(dev, op::MASKED_FETCH_ADD, addr, [add, boundary, 0, 0])?.old)
    }
}
