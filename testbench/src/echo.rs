//! The echo application: frames in on Ethernet RX, through the driver, back
//! out on Ethernet TX. Generic over the [`Card`], so the same code runs on
//! the in-process simulated card, the simulator process and a PCIe card.

use pendulum_driver::{Card, Device, Result, RxPipe, TxPipe};

/// Receives one batch on `rx` and sends each frame back on `tx` (one copy:
/// ring to ring), waiting for TX room when the ring is full; frees the batch.
/// Returns how many frames were echoed (0: nothing had arrived).
///
/// Waiting for room relaxes the card at most `max_polls` times; if the card
/// still has no room, the frames already sent stay sent and the rest of the
/// batch is an error.
pub fn echo_batch<C: Card>(
    dev: &mut Device<C>,
    rx: &mut RxPipe,
    tx: &mut TxPipe,
    max_polls: u64,
) -> Result<usize> {
    let (copies, end) = {
        let batch = rx.recv(dev);
        if batch.is_empty() {
            return Ok(0);
        }
        let copies: Vec<Vec<u8>> = batch
            .iter()
            .map(|f| f.map(<[u8]>::to_vec))
            .collect::<Result<_>>()?;
        (copies, batch.end_slot())
    };
    let refs: Vec<&[u8]> = copies.iter().map(Vec::as_slice).collect();
    let mut sent = 0;
    let mut polls = 0;
    while sent < refs.len() {
        let n = tx.send(dev, &refs[sent..])?;
        sent += n;
        if n == 0 {
            polls += 1;
            if polls > max_polls {
                return Err(pendulum_driver::Error::TxRingFull {
                    pipe: tx.index(),
                    need_slots: 1,
                    free_slots: tx.free_slots(dev),
                });
            }
            dev.card_mut().relax();
        }
    }
    rx.free(dev, end)?;
    Ok(copies.len())
}
