//! `Atomics` against an in-memory card with an atomic unit that runs verbs
//! as soon as their doorbell rings: the caller's tags are the caller's, the
//! blocking calls never take or drop a submitted verb's result, one Device
//! has one `Atomics` at a time, and its result pipe is never a steering
//! target.

use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Atomics, Device, Error, FlowKey, Reservation, SteeringConflict};
use pendulum_layout::atomic::{op, Request, Verb};
use pendulum_layout::flow::PROTO_UDP;
use pendulum_layout::global;

/// A card whose atomic unit has 512 words, and a flow table.
fn card() -> FakeCard {
    let mut card = FakeCard::with_atomics(512);
    card.regs
        .insert(global::CAP_FLOW_TABLE.offset, 4 << 16 | 256);
    card
}

/// A device of [`card`], and its `Atomics` (results on RX pipe 1, verbs on
/// TX pipe 1; non-IP frames go to pipe 0).
fn open() -> (Device<FakeCard>, Atomics) {
    let mut dev = Device::open(card()).unwrap();
    let at = dev.open_atomics(1, 1, 4096).unwrap();
    (dev, at)
}

fn fetch_add(tag: u16, addr: u32, add: u64) -> Verb {
    Verb {
        op: op::FETCH_ADD,
        tag,
        addr,
        operands: [add, 0, 0, 0],
        reserved_set: false,
    }
}

/// (tag, old) of each result.
fn tags_and_olds(results: &[pendulum_layout::atomic::VerbResult]) -> Vec<(u16, u64)> {
    results.iter().map(|r| (r.tag, r.old)).collect()
}

#[test]
fn a_blocking_call_returns_its_own_result_not_a_submitted_verb_with_the_same_tag() {
    let (mut dev, mut at) = open();
    dev.card_mut().atomic_mem.as_mut().unwrap()[8] = 555;
    // Two blocking calls first, so a driver that numbered its own verbs
    // from 0 would give the next one tag 2.
    assert_eq!(at.fetch_add(&mut dev, 0, 1).unwrap(), 0);
    assert_eq!(at.fetch_add(&mut dev, 0, 1).unwrap(), 1);
    assert_eq!(at.submit(&mut dev, &[fetch_add(2, 0x40, 100)]).unwrap(), 1);
    // Word 16 holds 0: the CAS swaps and returns 0, not the 555 above.
    assert_eq!(at.cas(&mut dev, 0x80, 0, 7).unwrap(), 0);
    assert_eq!(dev.card().atomic_mem.as_ref().unwrap()[16], 7);
    // The submitted verb's result is still there, once.
    assert_eq!(tags_and_olds(&at.results(&mut dev).unwrap()), [(2, 555)]);
    assert!(at.results(&mut dev).unwrap().is_empty());
}

#[test]
fn results_of_submitted_verbs_seen_by_a_blocking_call_are_kept_for_results() {
    let (mut dev, mut at) = open();
    let verbs = [
        fetch_add(40000, 0, 1),
        fetch_add(7, 0, 1),
        fetch_add(0, 0, 1),
    ];
    assert_eq!(at.submit(&mut dev, &verbs[..2]).unwrap(), 2);
    assert_eq!(at.swap(&mut dev, 0x40, 9).unwrap(), 0);
    assert_eq!(at.submit(&mut dev, &verbs[2..]).unwrap(), 1);
    assert_eq!(at.fetch_add(&mut dev, 0x40, 1).unwrap(), 9);
    // Every submitted verb's result, in the order the verbs ran.
    assert_eq!(
        tags_and_olds(&at.results(&mut dev).unwrap()),
        [(40000, 0), (7, 1), (0, 2)]
    );
}

#[test]
fn submitting_a_tag_the_blocking_calls_keep_is_refused_and_posts_nothing() {
    let (mut dev, mut at) = open();
    let first = Atomics::HELPER_TAGS_FIRST;
    let tail = pendulum_layout::pipe_page(1) + pendulum_layout::pipe::TX_TAIL.offset;
    let doorbells = dev.card().writes_to(tail).len();
    let ok = fetch_add(first - 1, 0, 1);
    for tag in [first, u16::MAX] {
        let e = at
            .submit(&mut dev, &[ok, fetch_add(tag, 0, 1)])
            .unwrap_err();
        assert!(
            matches!(e, Error::ReservedTag { tag: t, first: f } if t == tag && f == first),
            "{e}"
        );
        let e = at
            .submit_requests(
                &mut dev,
                &[Request::Verb(ok), Request::Verb(fetch_add(tag, 0, 1))],
            )
            .unwrap_err();
        assert!(matches!(e, Error::ReservedTag { .. }), "{e}");
    }
    assert_eq!(
        dev.card().writes_to(tail).len(),
        doorbells,
        "a doorbell rang"
    );
    assert_eq!(at.submit(&mut dev, &[ok]).unwrap(), 1);
    assert_eq!(
        tags_and_olds(&at.results(&mut dev).unwrap()),
        [(first - 1, 0)]
    );
}

#[test]
fn a_second_open_atomics_is_refused_while_the_first_is_open() {
    let (mut dev, mut at) = open();
    let e = dev.open_atomics(2, 3, 4096).unwrap_err();
    assert!(matches!(e, Error::AtomicsInUse { rx: 1, tx: 1 }), "{e}");
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

fn key() -> FlowKey {
    FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 4000, 5000)
}

#[test]
fn the_result_pipe_is_reserved_on_the_card_and_never_made_a_steering_target() {
    let (mut dev, at) = open();
    let reserved = 1 | global::RX_PIPE_RESERVED;
    assert_eq!(
        dev.card().writes_to(global::ATOMIC_RX_PIPE.offset),
        [reserved]
    );
    assert_eq!(dev.reserved_for(1), Some(Reservation::AtomicResults));
    let writes = dev.card().writes.len();
    let refused = |r: pendulum_driver::Result<()>| match r {
        Err(Error::PipeReserved {
            pipe: 1,
            by: Reservation::AtomicResults,
        }) => {}
        other => panic!("expected PipeReserved for pipe 1, got {other:?}"),
    };
    refused(dev.set_default_pipe(1));
    refused(dev.bind_flow(key(), 1));
    refused(dev.set_fallback_pipes(1, 1));
    assert_eq!(
        dev.card().writes.len(),
        writes,
        "refused before touching the card"
    );
    assert_eq!((dev.default_pipe(), dev.flow_pipe(&key())), (0, None));
    // A range that only includes it is the card's to skip.
    dev.set_fallback_pipes(0, 2).unwrap();

    // Closed, the pipe is freed on the card and may be steered to again.
    dev.close_atomics(at).unwrap();
    assert_eq!(
        dev.card().writes_to(global::ATOMIC_RX_PIPE.offset),
        [reserved, 1]
    );
    assert_eq!(dev.reserved_for(1), None);
    dev.set_default_pipe(1).unwrap();
    dev.bind_flow(key(), 2).unwrap();
}

#[test]
fn a_pipe_that_frames_are_steered_to_cannot_take_the_results() {
    let mut dev = Device::open(card()).unwrap();
    let e = dev.open_atomics(0, 1, 4096).unwrap_err();
    assert!(
        matches!(
            e,
            Error::CannotReserve {
                pipe: 0,
                by: Reservation::AtomicResults,
                conflict: SteeringConflict::DefaultPipe
            }
        ),
        "{e}"
    );
    dev.bind_flow(key(), 2).unwrap();
    let e = dev.open_atomics(2, 1, 4096).unwrap_err();
    assert!(
        matches!(
            e,
            Error::CannotReserve {
                pipe: 2,
                conflict: SteeringConflict::BoundFlows(1),
                ..
            }
        ),
        "{e}"
    );
    assert!(
        dev.card()
            .writes_to(global::ATOMIC_RX_PIPE.offset)
            .is_empty(),
        "nothing reserved"
    );
    // Nothing was opened: the pipes are free, and with the default pipe
    // moved, pipe 0 takes the results.
    dev.set_default_pipe(3).unwrap();
    let mut at = dev.open_atomics(0, 1, 4096).unwrap();
    assert_eq!(at.fetch_add(&mut dev, 0, 5).unwrap(), 0);
    assert_eq!(at.fetch_add(&mut dev, 0, 0).unwrap(), 5);
}
