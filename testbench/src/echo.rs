//! The echo application: frames in on Ethernet RX, through the driver, back
//! out on Ethernet TX. Generic over the [`Card`], so the same code runs on
//! the in-process simulated card, the simulator process and a PCIe card.

use pendulum_driver::{Card, Device, Result, RxPipe, TxPipe};

/// Receives one batch on `rx` and sends each frame back on `tx`, waiting for
/// TX room when the ring is full; frees the batch. Two copies (ring to a
/// buffer, buffer to the TX ring), because the batch borrows the card while
/// the TX ring is written; [`echo_in_place`] copies nothing.
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
            .map(|f| f.map(|f| f.bytes.to_vec()))
            .collect::<Result<_>>()?;
        (copies, batch.end_unit())
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
                    need_units: pendulum_layout::ring::entry_units(refs[sent].len() as u32),
                    free_units: tx.free_units(dev),
                });
            }
            dev.card_mut().relax();
        }
    }
    rx.free(dev, end)?;
    Ok(copies.len())
}

/// Zero copy: `tx` was opened over `rx`'s ring ([`Device::open_tx_pipe_over`]),
/// so the frames received are sent from where they landed. Posts the frames
/// that arrived since the last call (one doorbell), then frees on `rx` what
/// `tx` has already sent. Returns how many frames were newly posted (0:
/// nothing new had arrived).
///
/// [`Device::open_tx_pipe_over`]: pendulum_driver::Device::open_tx_pipe_over
pub fn echo_in_place<C: Card>(
    dev: &mut Device<C>,
    rx: &mut RxPipe,
    tx: &mut TxPipe,
) -> Result<usize> {
    let units = rx.ring_units();
    // Frames between the RX head and the TX tail were posted by an earlier
    // call and are still being sent; the batch starts at the RX head. (A
    // received entry is sent as it is: the card reads only its LEN.)
    let posted = tx.tail().wrapping_sub(rx.head()) % units;
    let (fresh, end) = {
        let batch = rx.recv(dev);
        let mut walked = 0;
        let mut fresh = 0;
        for frame in batch.iter() {
            if walked >= posted {
                fresh += 1;
            }
            let frame = frame?;
            walked += frame.end_unit.wrapping_sub(frame.unit) % units;
        }
        (fresh, batch.end_unit())
    };
    if fresh > 0 {
        tx.send_through(dev, rx, end)?;
    }
    tx.free_units(dev); // refreshes the TX head from its completion record
    if tx.head() != rx.head() {
        rx.free(dev, tx.head())?;
    }
    Ok(fresh)
}
