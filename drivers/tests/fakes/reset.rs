//! A reset of the card under an open `Device`: the driver finds SESSION
//! changed and says `CardReset` within a bounded number of polls, instead of
//! finding nothing forever, timing out or blaming the ring; and the card
//! opens again.

use crate::common;

use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Device, EntryHeader, Error, RxPipe, POLLS_PER_RESET_CHECK};
use pendulum_layout::{global, RegError};

/// A card with 8 pipes and 2 notification buffers: pipes 0, 2, 4, 6 report
/// into buffer 0.
fn open() -> Device<FakeCard> {
    let dev = Device::open(FakeCard::with(8, 4, 2)).unwrap();
    assert!(dev.detects_resets());
    dev
}

/// Takes whatever pipe `p` holds as 64-byte slots, one per entry; a slot
/// starting with 0 does not decode (the card never writes one).
fn take(p: &mut RxPipe, dev: &mut Device<FakeCard>) -> Result<Vec<u8>, Error> {
    p.take_slots(dev, |slot| match slot[0] {
        0 => Err("an empty slot".into()),
        b => Ok(b),
    })
}

/// Writes an entry of a 64-byte slot filled with `byte` at unit 0 of `p`'s
/// ring, as the card would; returns the unit after it.
fn put_slot(dev: &mut Device<FakeCard>, p: &RxPipe, byte: u8) -> u32 {
    let header = EntryHeader {
        len: 64,
        ..Default::default()
    };
    dev.card_mut()
        .write_entry(p.ring_region(), 0, &header, &[byte; 64])
}

/// Calls `poll` until it fails, and returns the error and how many calls it
/// took; fails the test if `bound` calls all succeed.
fn polls_until_error<T>(bound: u32, mut poll: impl FnMut() -> Result<T, Error>) -> (Error, u32) {
    for n in 1..=bound {
        if let Err(e) = poll() {
            return (e, n);
        }
    }
    panic!("no error after {bound} polls");
}

#[test]
fn recv_checked_reports_a_reset_within_the_bound_of_empty_polls() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    assert!(dev.card_mut().post(0, 1, 2));
    let end = p.recv_checked(&mut dev).unwrap().end_unit();
    assert_eq!(end, 2);
    p.free(&mut dev, end).unwrap();
    dev.card_mut().reset();
    let (e, polls) = polls_until_error(POLLS_PER_RESET_CHECK, || {
        let batch = p.recv_checked(&mut dev)?;
        assert!(batch.is_empty(), "the reset card announced frames");
        Ok(())
    });
    assert!(matches!(e, Error::CardReset), "{e}");
    assert!(polls <= POLLS_PER_RESET_CHECK);
    assert!(e.to_string().contains("Device::open"), "{e}");
}

#[test]
fn take_slots_reports_a_reset_within_the_bound_not_an_empty_result_forever() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let end = put_slot(&mut dev, &p, 7);
    assert!(dev.card_mut().post(0, 1, end));
    assert_eq!(take(&mut p, &mut dev).unwrap(), [7]);
    dev.card_mut().reset();
    let (e, _) = polls_until_error(POLLS_PER_RESET_CHECK, || {
        let got = take(&mut p, &mut dev)?;
        assert!(got.is_empty(), "the reset card announced slots");
        Ok(())
    });
    assert!(matches!(e, Error::CardReset), "{e}");
    // poll_notifications is such a loop too; it already knows.
    assert!(matches!(dev.poll_notifications(), Err(Error::CardReset)));
}

#[test]
fn poll_notifications_reports_a_reset_within_the_bound() {
    let mut dev = open();
    let _p = dev.open_rx_pipe(0, 4096).unwrap();
    dev.card_mut().reset();
    let (e, _) = polls_until_error(POLLS_PER_RESET_CHECK, || dev.poll_notifications());
    assert!(matches!(e, Error::CardReset), "{e}");
}

#[test]
fn a_ring_that_looks_corrupt_after_a_reset_is_reported_as_the_reset() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    // A tail past a unit that holds no entry (a header of length 0): on a
    // sound card, a corrupt ring.
    assert!(dev.card_mut().post(0, 1, 1));
    let e = take(&mut p, &mut dev).unwrap_err();
    assert!(matches!(e, Error::CorruptRing { unit: 0, .. }), "{e}");
    // After a reset the reset is the better explanation.
    dev.card_mut().reset();
    let e = take(&mut p, &mut dev).unwrap_err();
    assert!(matches!(e, Error::CardReset), "{e}");
}

#[test]
fn a_write_the_reset_card_refuses_is_reported_as_the_reset() {
    let mut dev = open();
    let _p0 = dev.open_rx_pipe(0, 4096).unwrap();
    dev.card_mut().reset();
    // Pipe 2 shares buffer 0, which the driver switched on before the reset:
    // the card, which forgot it, refuses to enable the pipe.
    let e = dev.open_rx_pipe(2, 4096).unwrap_err();
    assert!(matches!(e, Error::CardReset), "{e}");
    let card = dev.card();
    assert_eq!(
        card.regs[&global::LAST_REG_ERROR.offset] >> 24,
        RegError::NotifBufOff as u32,
        "the card did refuse the enable"
    );
}

#[test]
fn once_a_reset_is_seen_every_call_fails_without_touching_the_card() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let mut tx = dev.open_tx_pipe(1, 4096).unwrap();
    // A frame the card will never complete, so the TX pipe is not idle.
    assert_eq!(
        tx.send(&mut dev, &[&common::patterned_frame(1, 60)])
            .unwrap(),
        1
    );
    dev.card_mut().reset();
    assert!(matches!(dev.check_card(), Err(Error::CardReset)));
    let (reads, writes, relaxes) = {
        let c = dev.card();
        (c.reads.len(), c.writes.len(), c.relaxes)
    };
    let calls: Vec<(&str, Result<(), Error>)> = vec![
        ("check_card", dev.check_card()),
        ("relax", dev.relax()),
        ("read", dev.read(global::SCRATCH.offset).map(drop)),
        ("write", dev.write(global::SCRATCH.offset, 1)),
        (
            "write_checked",
            dev.write_checked(global::SCRATCH.offset, 1),
        ),
        ("counters", dev.counters().map(drop)),
        ("poll_notifications", dev.poll_notifications()),
        ("recv_checked", p.recv_checked(&mut dev).map(drop)),
        ("take_slots", take(&mut p, &mut dev).map(drop)),
        ("free", p.free(&mut dev, 0)),
        ("prefetch", p.prefetch(&mut dev)),
        ("open_rx_pipe", dev.open_rx_pipe(1, 4096).map(drop)),
        ("open_tx_pipe", dev.open_tx_pipe(2, 4096).map(drop)),
        (
            "send",
            tx.send(&mut dev, &[&common::patterned_frame(1, 60)])
                .map(drop),
        ),
        ("set_default_pipe", dev.set_default_pipe(1)),
    ];
    for (name, r) in calls {
        assert!(matches!(r, Err(Error::CardReset)), "{name}: {r:?}");
    }
    assert!(!p.wait(&mut dev, 1_000_000));
    assert!(!tx.wait_idle(&mut dev, 1_000_000));
    let c = dev.card();
    assert_eq!(
        (c.reads.len(), c.writes.len(), c.relaxes),
        (reads, writes, relaxes),
        "the card was touched after the reset was seen"
    );
}

#[test]
fn a_fetch_add_waiting_across_a_reset_returns_card_reset_not_no_response() {
    let mut card = FakeCard::with(8, 4, 2);
    card.regs.insert(global::CAP_ATOMIC_BYTES.offset, 4096);
    let mut dev = Device::open(card).unwrap();
    let mut at = dev.open_atomics(1, 0, 4096).unwrap();
    // The fake card has no atomic unit: the verb never gets a result, and
    // the card is reset while the driver waits for one.
    let reset_at = 10;
    dev.card_mut().reset_at_relax = Some(reset_at);
    let e = at.fetch_add(&mut dev, 0, 1).unwrap_err();
    assert!(matches!(e, Error::CardReset), "{e}");
    let waited = dev.card().relaxes - reset_at;
    assert!(
        waited <= POLLS_PER_RESET_CHECK as u64,
        "{waited} polls after the reset"
    );
}

#[test]
fn an_rx_wait_across_a_reset_ends_early_and_the_next_call_says_why() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let reset_at = 10;
    dev.card_mut().reset_at_relax = Some(reset_at);
    assert!(!p.wait(&mut dev, 1_000_000));
    let waited = dev.card().relaxes - reset_at;
    assert!(
        waited <= POLLS_PER_RESET_CHECK as u64,
        "{waited} polls after the reset"
    );
    assert!(matches!(take(&mut p, &mut dev), Err(Error::CardReset)));
}

#[test]
fn a_tx_wait_across_a_reset_ends_early_and_the_next_call_says_why() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(1, 4096).unwrap();
    assert_eq!(
        tx.send(&mut dev, &[&common::patterned_frame(1, 60)])
            .unwrap(),
        1
    );
    let reset_at = 10;
    dev.card_mut().reset_at_relax = Some(reset_at);
    assert!(!tx.wait_idle(&mut dev, 1_000_000));
    let waited = dev.card().relaxes - reset_at;
    assert!(
        waited <= POLLS_PER_RESET_CHECK as u64,
        "{waited} polls after the reset"
    );
    assert!(matches!(
        tx.send(&mut dev, &[&common::patterned_frame(2, 60)]),
        Err(Error::CardReset)
    ));
}

#[test]
fn polls_that_find_frames_read_no_register() {
    let mut dev = open();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let reads = dev.card().reads.len();
    // More frames than POLLS_PER_RESET_CHECK, each found by one poll.
    for n in 1..=3 * POLLS_PER_RESET_CHECK {
        let tail = n % p.ring_units();
        assert!(dev.card_mut().post(0, n, tail));
        let end = p.recv_checked(&mut dev).unwrap().end_unit();
        assert_eq!(end, tail);
        p.free(&mut dev, end).unwrap();
    }
    assert_eq!(dev.card().reads.len(), reads);
}

#[test]
fn the_card_opens_again_after_a_reset_and_a_pipe_receives() {
    let mut dev = open();
    let _p0 = dev.open_rx_pipe(0, 4096).unwrap();
    dev.open_tx_pipe(0, 4096).unwrap();
    let first = dev.card().session();
    dev.card_mut().reset();
    assert!(matches!(dev.check_card(), Err(Error::CardReset)));
    let mut dev = Device::open(dev.into_card()).unwrap();
    dev.check_card().unwrap();
    assert!(![0, first].contains(&dev.card().session()));
    // Pipe 2 first: it switches buffer 0 on again, which the old Device
    // had switched on before the reset.
    let mut p = dev.open_rx_pipe(2, 4096).unwrap();
    assert!(dev.card().nbuf(0).on);
    let _p0 = dev.open_rx_pipe(0, 4096).unwrap();
    dev.open_tx_pipe(0, 4096).unwrap();
    assert!(dev.card_mut().post(2, 1, 3));
    assert_eq!(p.recv_checked(&mut dev).unwrap().end_unit(), 3);
    dev.check_card().unwrap();
}

#[test]
fn each_open_writes_a_fresh_non_zero_token() {
    let dev = open();
    let first = dev.card().session();
    assert_ne!(first, 0);
    assert_eq!(dev.card().writes_to(global::SESSION.offset), [first]);
    // The same card opened again (no reset between): a new token.
    let dev = Device::open(dev.into_card()).unwrap();
    let second = dev.card().session();
    assert!(![0, first].contains(&second), "{first:#x} then {second:#x}");
    // Another card.
    let other = open();
    assert!(![0, second].contains(&other.card().session()));
}

#[test]
fn a_bitstream_without_session_opens_but_cannot_see_resets() {
    let mut card = FakeCard::with(8, 4, 2);
    card.refuse
        .insert(global::SESSION.offset, RegError::UnknownAddress);
    let mut dev = Device::open(card).unwrap();
    assert!(!dev.detects_resets());
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    dev.card_mut().reset();
    dev.check_card().unwrap();
    for _ in 0..2 * POLLS_PER_RESET_CHECK {
        assert!(p.recv_checked(&mut dev).unwrap().is_empty());
    }
}
