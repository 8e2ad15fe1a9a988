//! `TxPipe` against an in-memory card: where frames land in the ring, what
//! the doorbell says, and how completions free room.

use crate::common;

use pendulum_driver::mock::{FakeCard, MAX_FRAME_BYTES};
use pendulum_driver::{Device, Error, RegionKind, TxPipe};
use pendulum_layout::{pipe, pipe_page, tx_compl};

fn open(ring_bytes: u32) -> (Device<FakeCard>, TxPipe) {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let tx = dev.open_tx_pipe(1, ring_bytes).unwrap();
    (dev, tx)
}

/// A frame of `len` bytes whose byte k is `tag + k` (wrapping), so any
/// misplaced byte shows, with the header fields that give its length.
fn frame(tag: u8, len: usize) -> Vec<u8> {
    common::patterned_frame(tag, len)
}

const TAIL: u32 = pipe_page(1) + pipe::TX_TAIL.offset;

#[test]
fn open_programs_the_tx_registers_in_order() {
    let (dev, tx) = open(8192);
    assert_eq!(tx.index(), 1);
    assert_eq!(tx.ring_slots(), 128);
    let page = pipe_page(1);
    let card = dev.card();
    let tx_writes: Vec<(u32, u32)> = card
        .writes
        .iter()
        .copied()
        .filter(|(o, _)| (page..page + 0x1000).contains(o))
        .collect();
    let (ring_iova, compl_iova) = (1u64 << 32, 2u64 << 32);
    assert_eq!(
        tx_writes,
        [
            (page + pipe::TX_CTRL.offset, 0),
            (page + pipe::TX_RING_BASE_LO.offset, ring_iova as u32),
            (
                page + pipe::TX_RING_BASE_HI.offset,
                (ring_iova >> 32) as u32
            ),
            (page + pipe::TX_RING_BYTES.offset, 8192),
            (page + pipe::TX_COMPL_BASE_LO.offset, compl_iova as u32),
            (
                page + pipe::TX_COMPL_BASE_HI.offset,
                (compl_iova >> 32) as u32
            ),
            (page + pipe::TX_CTRL.offset, pipe::CTRL_ENABLE),
        ]
    );
    // The ring is a plain (not mirrored) data ring; the record 16 bytes.
    assert_eq!(card.regions[0].0, RegionKind::DataRing);
    assert_eq!(card.regions[0].1.len(), 8192);
    assert_eq!(card.regions[1].1.len(), tx_compl::BYTES);
}

#[test]
fn pipe_requests_are_checked_like_rx() {
    let (mut dev, _tx) = open(4096);
    assert!(matches!(
        dev.open_tx_pipe(1, 4096),
        Err(Error::PipeInUse(1))
    ));
    assert!(matches!(
        dev.open_tx_pipe(4, 4096),
        Err(Error::NoSuchTxPipe {
            pipe: 4,
            tx_pipes: 4
        })
    ));
    assert!(matches!(
        dev.open_tx_pipe(0, 3000),
        Err(Error::BadRingSize { bytes: 3000, .. })
    ));
    // RX and TX of the same index are independent.
    dev.open_rx_pipe(1, 4096).unwrap();
    let tx0 = dev.open_tx_pipe(0, 4096).unwrap();
    dev.close_tx_pipe(tx0).unwrap();
    assert_eq!(
        dev.card().writes.last(),
        Some(&(pipe_page(0) + pipe::TX_CTRL.offset, 0))
    );
    dev.open_tx_pipe(0, 4096).unwrap();
}

#[test]
fn frames_are_placed_on_slot_boundaries_and_one_doorbell_rings() {
    let (mut dev, mut tx) = open(4096);
    let frames = [frame(1, 60), frame(2, 64), frame(3, 65), frame(4, 18)];
    let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
    let before = dev.card().writes.len();
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 4);
    // One posted write, no readback: the fast path.
    assert_eq!(dev.card().writes.len(), before + 1);
    assert_eq!(dev.card().writes_to(TAIL), [1 + 1 + 2 + 1]);
    assert_eq!(tx.tail(), 5);
    let ring = dev.card_mut().region(RegionKind::DataRing, 0).clone();
    for (f, slot) in frames.iter().zip([0, 1, 2, 4]) {
        assert_eq!(&ring[slot * 64..slot * 64 + f.len()], f.as_slice());
    }
    assert_eq!(tx.free_slots(&dev), 64 - 1 - 5);
    assert!(!tx.idle(&dev));
}

#[test]
fn a_frame_that_wraps_is_split_at_the_ring_end() {
    let (mut dev, mut tx) = open(4096);
    // Fill 60 of 64 slots and have the card finish them.
    let filler = frame(9, 60 * 64);
    assert_eq!(tx.send(&mut dev, &[&filler]).unwrap(), 1);
    dev.card_mut().complete(0, 60, 1);
    assert!(tx.idle(&dev));
    assert_eq!(tx.free_slots(&dev), 63);
    // 6 slots from slot 60: 4 at the end, 2 at the start.
    let f = frame(200, 5 * 64 + 10);
    assert_eq!(tx.send(&mut dev, &[&f]).unwrap(), 1);
    assert_eq!(dev.card().writes_to(TAIL), [60, 2]);
    let ring = dev.card_mut().region(RegionKind::DataRing, 0).clone();
    assert_eq!(&ring[60 * 64..], &f[..256]);
    assert_eq!(&ring[..f.len() - 256], &f[256..]);
    // send_raw wraps the same way.
    dev.card_mut().complete(0, 2, 2);
    let raw = frame(77, 100);
    tx.send_raw(&mut dev, &raw).unwrap();
    assert_eq!(dev.card().writes_to(TAIL).last(), Some(&4));
}

#[test]
fn a_full_ring_takes_what_fits_and_one_slot_stays_empty() {
    let (mut dev, mut tx) = open(4096);
    let big = frame(5, 1000); // 16 slots
    let refs = vec![big.as_slice(); 5];
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 3);
    assert_eq!(tx.free_slots(&dev), 15);
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 0);
    // Nothing queued: no doorbell either.
    assert_eq!(dev.card().writes_to(TAIL), [48]);
    // A small frame still fits behind the big one that did not.
    let small = frame(6, 64);
    assert_eq!(tx.send(&mut dev, &[&small, &big]).unwrap(), 1);
    assert_eq!(tx.free_slots(&dev), 14);
    assert!(matches!(
        tx.send_raw(&mut dev, &[0; 15 * 64]),
        Err(Error::TxRingFull {
            pipe: 1,
            need_slots: 15,
            free_slots: 14
        })
    ));
    tx.send_raw(&mut dev, &[0; 14 * 64]).unwrap();
    assert_eq!(tx.free_slots(&dev), 0);
    assert_eq!(tx.send(&mut dev, &[&small]).unwrap(), 0);
    // The card finishes the first two frames.
    dev.card_mut().complete(0, 32, 1);
    assert_eq!(tx.free_slots(&dev), 32);
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 2);
    assert_eq!(dev.card().writes_to(TAIL).last(), Some(&31));
}

#[test]
fn bad_frames_are_refused_and_nothing_is_queued() {
    let (mut dev, mut tx) = open(64 * 1024);
    let ok = frame(1, 100);
    let huge = vec![0; MAX_FRAME_BYTES as usize + 1];
    let e = tx.send(&mut dev, &[&ok, &[]]).unwrap_err();
    assert!(matches!(
        e,
        Error::BadFrame {
            len: 0,
            max: MAX_FRAME_BYTES
        }
    ));
    let e = tx.send(&mut dev, &[&ok, &huge]).unwrap_err();
    assert!(matches!(e, Error::BadFrame { len, max: MAX_FRAME_BYTES } if len == huge.len()));
    assert!(e.to_string().contains("nothing was queued"));
    assert_eq!(tx.tail(), 0);
    assert!(dev.card().writes_to(TAIL).is_empty());
    // The largest frame is fine.
    let largest = frame(0, MAX_FRAME_BYTES as usize);
    assert_eq!(tx.send(&mut dev, &[&largest]).unwrap(), 1);
    // A frame larger than a small ring could ever hold is refused too, not
    // left to return 0 forever.
    let (mut dev, mut tx) = open(4096);
    let e = tx.send(&mut dev, &[&huge[..4033]]).unwrap_err();
    assert!(matches!(
        e,
        Error::BadFrame {
            len: 4033,
            max: 4032
        }
    ));
    assert_eq!(tx.send(&mut dev, &[&frame(0, 4032)]).unwrap(), 1);
}

#[test]
fn completion_record_is_taken_only_when_its_sequence_moves() {
    let (mut dev, mut tx) = open(4096);
    let f = frame(3, 640); // 10 slots
    assert_eq!(tx.send(&mut dev, &[&f, &f]).unwrap(), 2);
    assert_eq!(tx.free_slots(&dev), 43);
    // A head with sequence 0 means "never written": ignored.
    dev.card_mut().complete(0, 10, 0);
    assert_eq!((tx.free_slots(&dev), tx.head()), (43, 0));
    dev.card_mut().complete(0, 10, 1);
    assert_eq!((tx.free_slots(&dev), tx.head()), (53, 10));
    assert!(!tx.idle(&dev));
    assert!(!tx.wait_idle(&mut dev, 3));
    // Same sequence, different head: a stale record, not progress.
    dev.card_mut().complete(0, 20, 1);
    assert_eq!(tx.head(), 10);
    assert!(!tx.idle(&dev));
    dev.card_mut().complete(0, 20, 2);
    assert!(tx.wait_idle(&mut dev, 1));
    assert_eq!(tx.free_slots(&dev), 63);
    // The pipe index field is not needed to parse the head.
    let rec = dev.card_mut().region(RegionKind::Notification, 0).clone();
    assert_eq!(tx_compl::HEAD.read(&rec), 20);
}

#[test]
fn a_tx_pipe_beyond_the_card_is_named_a_tx_pipe_with_the_tx_count() {
    // 8 RX pipes but 4 TX pipes: the error must give the TX count.
    let mut dev = Device::open(FakeCard::with(8, 4, 2)).unwrap();
    let e = dev.open_tx_pipe(5, 4096).unwrap_err();
    assert!(matches!(
        e,
        Error::NoSuchTxPipe {
            pipe: 5,
            tx_pipes: 4
        }
    ));
    let msg = e.to_string();
    assert!(
        msg.contains("TX pipe 5") && msg.contains("4 TX pipes"),
        "{msg}"
    );
}

#[test]
fn a_frame_the_card_cannot_delimit_is_refused_and_its_neighbours_are_not_queued() {
    let (mut dev, mut tx) = open(64 * 1024);
    let good = frame(1, 100);
    // An 802.1Q-tagged frame: no length rule for its EtherType (yet).
    let mut vlan = frame(2, 104);
    vlan[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
    // A header that says 100 bytes on 120.
    let mut long = frame(3, 120);
    long[16..18].copy_from_slice(&86u16.to_be_bytes());
    for (bad, header_len) in [(&vlan, None), (&long, Some(100))] {
        let e = tx.send(&mut dev, &[&good, bad, &good]).unwrap_err();
        assert!(
            matches!(e, Error::UndelimitedFrame { index: 1, len, header_len: h } if len == bad.len() && h == header_len),
            "{e:?}"
        );
        assert!(e.to_string().contains("nothing was queued"), "{e}");
    }
    assert_eq!(tx.tail(), 0);
    assert!(dev.card().writes_to(TAIL).is_empty());
    // A short frame padded to the 60-byte minimum keeps its header length,
    // and is sent.
    let mut padded = frame(4, 46);
    padded.resize(60, 0);
    assert_eq!(tx.send(&mut dev, &[&good, &padded, &good]).unwrap(), 3);
    assert_eq!(dev.card().writes_to(TAIL), [2 + 1 + 2]);
}
