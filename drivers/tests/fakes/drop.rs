//! Pipes and `Atomics` that are dropped, or fail to open halfway, against an
//! in-memory card: nothing stays open on the card or in the Device.

use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Device, Error};
use pendulum_layout::{pipe, pipe_page};

fn rx_ctrl(p: usize) -> u32 {
    pipe_page(p) + pipe::CTRL.offset
}

fn tx_ctrl(p: usize) -> u32 {
    pipe_page(p) + pipe::TX_CTRL.offset
}

#[test]
fn a_dropped_rx_pipe_is_disabled_at_the_next_call_and_can_be_opened_again() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let rx = dev.open_rx_pipe(1, 4096).unwrap();
    assert_eq!(dev.card().last_write(rx_ctrl(1)), pipe::CTRL_ENABLE);
    drop(rx);
    dev.check_card().unwrap();
    assert_eq!(dev.card().last_write(rx_ctrl(1)), 0, "disabled on the card");
    let again = dev.open_rx_pipe(1, 4096).unwrap();
    assert_eq!(again.index(), 1);
    assert_eq!(dev.card().last_write(rx_ctrl(1)), pipe::CTRL_ENABLE);
}

#[test]
fn a_dropped_pipe_can_be_opened_again_at_once() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    drop(dev.open_rx_pipe(2, 4096).unwrap());
    drop(dev.open_tx_pipe(2, 4096).unwrap());
    dev.open_rx_pipe(2, 4096).unwrap();
    dev.open_tx_pipe(2, 4096).unwrap();
}

#[test]
fn a_dropped_tx_pipe_is_disabled_at_the_next_call_and_can_be_opened_again() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let tx = dev.open_tx_pipe(3, 4096).unwrap();
    assert_eq!(
        dev.card().last_write(tx_ctrl(3)),
        pipe::CTRL_ENABLE | pipe::TX_CTRL_STAMPS
    );
    drop(tx);
    dev.check_card().unwrap();
    assert_eq!(dev.card().last_write(tx_ctrl(3)), 0, "disabled on the card");
    dev.open_tx_pipe(3, 4096).unwrap();
}

#[test]
fn a_closed_pipe_is_disabled_once() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let rx = dev.open_rx_pipe(1, 4096).unwrap();
    dev.close_rx_pipe(rx).unwrap();
    let tx = dev.open_tx_pipe(1, 4096).unwrap();
    dev.close_tx_pipe(tx).unwrap();
    dev.check_card().unwrap();
    assert_eq!(dev.card().writes_to(rx_ctrl(1)), [0, pipe::CTRL_ENABLE, 0]);
    assert_eq!(
        dev.card().writes_to(tx_ctrl(1)),
        [0, pipe::CTRL_ENABLE | pipe::TX_CTRL_STAMPS, 0]
    );
}

#[test]
fn open_atomics_that_fails_halfway_leaves_its_rx_pipe_closed() {
    // 8 RX pipes and 4 TX pipes: TX pipe 6 does not exist, and the RX pipe
    // is opened before that is found out.
    let mut dev = Device::open(FakeCard::with_atomics(64)).unwrap();
    let e = dev.open_atomics(5, 6, 4096).unwrap_err();
    assert!(matches!(e, Error::NoSuchTxPipe { pipe: 6, .. }), "{e}");
    assert_eq!(dev.card().last_write(rx_ctrl(5)), 0, "disabled on the card");
    dev.open_rx_pipe(5, 4096).unwrap();
    // And the atomic unit can still be opened.
    let mut at = dev.open_atomics(4, 1, 4096).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 7).unwrap(), 0);
}

#[test]
fn a_dropped_atomics_gives_the_atomic_unit_back() {
    let mut dev = Device::open(FakeCard::with_atomics(64)).unwrap();
    // (Results on RX pipe 1: pipe 0 is the default pipe, which cannot be
    // reserved for them.)
    let mut at = dev.open_atomics(1, 1, 4096).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 8, 5).unwrap(), 0);
    drop(at);
    let mut at = dev.open_atomics(1, 1, 4096).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 8, 5).unwrap(), 5);
}
