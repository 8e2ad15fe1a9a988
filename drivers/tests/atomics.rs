//! `Atomics` against an in-memory card with an atomic unit that runs verbs
//! as soon as their doorbell rings: one Device has one `Atomics` at a time.

mod common;

use common::FakeCard;
use pendulum_driver::{Atomics, Device, Error};

/// A device whose atomic unit has 512 words, and its `Atomics` (results on
/// RX pipe 0, verbs on TX pipe 1).
fn open() -> (Device<FakeCard>, Atomics) {
    let mut dev = Device::open(FakeCard::with_atomics(512)).unwrap();
    let at = dev.open_atomics(0, 1, 4096).unwrap();
    (dev, at)
}

#[test]
fn a_second_open_atomics_is_refused_while_the_first_is_open() {
    let (mut dev, mut at) = open();
    let e = dev.open_atomics(2, 3, 4096).unwrap_err();
    assert!(matches!(e, Error::AtomicsInUse { rx: 0, tx: 1 }), "{e}");
    // Refused before touching the card: pipes 2 and 3 stay closed.
    dev.open_rx_pipe(2, 4096).unwrap();
    // The first still gets its results.
    assert_eq!(at.fetch_add(&mut dev, 0, 5).unwrap(), 0);
    assert_eq!(at.fetch_add(&mut dev, 0, 0).unwrap(), 5);
    // Closed, it can be opened again (on other pipes here).
    dev.close_atomics(at).unwrap();
    let mut at = dev.open_atomics(3, 2, 4096).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 0).unwrap(), 5);
}
