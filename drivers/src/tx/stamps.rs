//! TX stamps (`pendulum_layout::tx_stamp`): [`TxPipe::send_stamped`] asks
//! the card for the cycle each frame's first beat left, and
//! [`TxPipe::stamps`] hands the stamps out in send order. The entries whose
//! stamp is pending are `TxPipe`'s `pending` queue; `TxPipe::used_units`
//! keeps their units held.

use super::TxPipe;
use crate::{Card, Device, Error, Result};
use pendulum_layout::ring::{tx_flags, UNIT_BYTES};
use pendulum_layout::tx_stamp;

// `TxPipe::stamps` reads a stamp record as two 64-bit loads: ENTRY, LEN
// and DONE in the second word (DONE says the record is written, so that
// word comes first), CYCLES the whole first word.
const _: () = assert!(
    tx_stamp::BYTES == 16
        && tx_stamp::CYCLES.lsb == 0
        && tx_stamp::CYCLES.width == 64
        && tx_stamp::ENTRY.lsb >= 64
        && tx_stamp::LEN.lsb >= 64
        && tx_stamp::DONE.lsb >= 64
);

/// The card's TX stamp of a frame sent with [`TxPipe::send_stamped`], as
/// [`TxPipe::stamps`] hands it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxStamp {
    /// The entry's first unit in the TX ring (the pipe's tail when it was
    /// posted), which tells stamps of equal frames apart.
    pub entry: u32,
    /// The frame's length in bytes.
    pub len: u16,
    /// The card's CYCLES counter in the cycle the frame's first beat left
    /// the core for the MAC: the clock RX headers' TIMESTAMP and
    /// [`Device::cycles`] read.
    pub cycles: u64,
}

impl TxPipe {
    /// [`TxPipe::send`] with a TX stamp asked for each frame (FLAGS
    /// `tx_flags::STAMP`): the card writes the cycle the frame's first beat
    /// left into the stamp slot of the unit its entry starts at, and
    /// [`TxPipe::stamps`] hands the stamps out in send order. Same length
    /// checks and partial queuing as `send`; refused on a pipe over an RX
    /// ring ([`Error::TxOverRx`]) and on a pipe without stamp slots
    /// ([`Error::TxStampsOff`]), queuing nothing.
    ///
    /// Each entry's slot is cleared before the doorbell, so an old stamp
    /// there is not taken for the new one. The card may write a stamp after
    /// its head has passed the entry, so the entry's units stay held until
    /// its stamp is taken: a loop that sends stamped frames must call
    /// `stamps` too, or the ring fills up. (The lengths checked here are
    /// ones the card sends, and the card drops only entries of other
    /// lengths, so every stamp asked for here comes, unless the pipe is
    /// closed or the card reset.)
    pub fn send_stamped<C: Card>(
        &mut self,
        dev: &mut Device<C>,
        frames: &[&[u8]],
    ) -> Result<usize> {
        self.check_own_ring()?;
        if !self.stamps {
            return Err(Error::TxStampsOff { pipe: self.index });
        }
        self.check_lengths(dev, frames)?;
        self.append(dev, frames, tx_flags::STAMP, |f: &&[u8]| *f)
    }

    /// Zeroes the stamp slots of the pending entries from `from` on (just
    /// appended, not yet rung), so DONE reads 0 until the card stamps them.
    /// Plain writes, as the entries' are: the doorbell's release fence
    /// orders them before the card can see the entries. The card writes no
    /// slot of these units meanwhile: their previous stamps were taken (or
    /// never asked for) before the units were free again.
    pub(super) fn clear_stamp_slots<C: Card>(
        &self,
        dev: &mut Device<C>,
        from: usize,
    ) -> Result<()> {
        if from >= self.pending.len() {
            return Ok(());
        }
        let mut compl = dev.card_mut().dma_mut(&self.compl);
        for &(unit, _) in self.pending.range(from..) {
            let at = tx_stamp::offset(unit) as usize;
            if compl.fill(at, tx_stamp::BYTES, 0).is_none() {
                return Err(self.short_compl(compl.len()));
            }
        }
        Ok(())
    }

    /// The error for a completion area mapped shorter than its stamp slots.
    fn short_compl(&self, mapped: usize) -> Error {
        Error::dma(format!(
            "TX completion area of pipe {} maps {mapped} bytes, {} expected; the card's DMA memory is broken",
            self.index,
            tx_stamp::area_bytes(self.units * UNIT_BYTES as u32)
        ))
    }

    /// Takes the stamps that have arrived, in send order: for each entry
    /// posted by [`TxPipe::send_stamped`] whose slot says DONE, pushes its
    /// [`TxStamp`] onto `out` and frees its units (up to the card's head);
    /// stops at the first whose stamp has not arrived, so stamps come out
    /// in the order the frames were sent. Returns how many were pushed.
    ///
    /// Each record is read with two acquire loads, the word holding DONE
    /// first, so CYCLES is the one the card wrote with it. A slot that says
    /// DONE for another entry or length than was posted (or DONE other than
    /// 0 or 1) is [`Error::BadTxStamp`]: the stamps before it are in `out`,
    /// and that entry stays pending with its units held.
    pub fn stamps<C: Card>(&mut self, dev: &Device<C>, out: &mut Vec<TxStamp>) -> Result<usize> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let compl = dev.card().dma(&self.compl);
        let mut taken = 0;
        while let Some(&(unit, len)) = self.pending.front() {
            let at = tx_stamp::offset(unit) as usize;
            let mut rec = [0u8; tx_stamp::BYTES];
            let hi = compl
                .load_u64_acquire(at + 8)
                .ok_or_else(|| self.short_compl(compl.len()))?;
            rec[8..].copy_from_slice(&hi.to_le_bytes());
            let done = tx_stamp::DONE.read(&rec) as u16;
            if done == 0 {
                break;
            }
            let record_entry = tx_stamp::ENTRY.read(&rec) as u32;
            let record_len = tx_stamp::LEN.read(&rec) as u16;
            if done != 1 || record_entry != unit || record_len != len {
                return Err(Error::BadTxStamp {
                    pipe: self.index,
                    unit,
                    len,
                    record_entry,
                    record_len,
                    done,
                });
            }
            let lo = compl
                .load_u64_acquire(at)
                .ok_or_else(|| self.short_compl(compl.len()))?;
            rec[..8].copy_from_slice(&lo.to_le_bytes());
            out.push(TxStamp {
                entry: unit,
                len,
                cycles: tx_stamp::CYCLES.read(&rec),
            });
            self.pending.pop_front();
            taken += 1;
        }
        Ok(taken)
    }

    /// Entries sent with [`TxPipe::send_stamped`] whose stamp
    /// [`TxPipe::stamps`] has not taken yet; their units are not reused
    /// until it has.
    pub fn stamps_pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(all(test, feature = "test-utils"))]
mod tests {
    use crate::mock::FakeCard;
    use crate::{Device, Error};

    /// Pipes bound to the link or the atomic unit are opened without stamp
    /// slots; asking for stamps there must not write past their record.
    #[test]
    fn send_stamped_on_a_pipe_without_stamp_slots_is_refused() {
        let mut dev = Device::open(FakeCard::new()).unwrap();
        let mut tx = dev.open_tx_pipe_unstamped(1, 4096).unwrap();
        let frame = [1u8; 60];
        let e = tx.send_stamped(&mut dev, &[&frame]).unwrap_err();
        assert!(matches!(e, Error::TxStampsOff { pipe: 1 }), "{e}");
        assert!(e.to_string().contains("nothing was queued"), "{e}");
        assert_eq!((tx.tail(), tx.stamps_pending()), (0, 0));
        assert_eq!(tx.send(&mut dev, &[&frame]).unwrap(), 1);
    }
}
