//! `TxPipe` against an in-memory card: where entries land in the ring, what
//! the doorbell says, and how completions free room.

use crate::common;

use pendulum_driver::mock::{FakeCard, MAX_FRAME_BYTES};
use pendulum_driver::{Device, EntryHeader, Error, RegionKind, TxPipe};
use pendulum_layout::{pipe, pipe_page, tx_compl, tx_stamp};

fn open(ring_bytes: u32) -> (Device<FakeCard>, TxPipe) {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let tx = dev.open_tx_pipe(1, ring_bytes).unwrap();
    (dev, tx)
}

/// A frame of `len` bytes whose byte k is `tag + k` (wrapping), so any
/// misplaced byte shows.
fn frame(tag: u8, len: usize) -> Vec<u8> {
    common::patterned_frame(tag, len)
}

const TAIL: u32 = pipe_page(1) + pipe::TX_TAIL.offset;

#[test]
fn open_programs_the_tx_registers_in_order() {
    let (dev, tx) = open(8192);
    assert_eq!(tx.index(), 1);
    assert_eq!(tx.ring_units(), 512);
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
            (
                page + pipe::TX_CTRL.offset,
                pipe::CTRL_ENABLE | pipe::TX_CTRL_STAMPS
            ),
        ]
    );
    // The ring is a plain (not mirrored) data ring; the completion area
    // the 16-byte record and a 16-byte stamp slot per unit.
    assert_eq!(card.regions[0].0, RegionKind::DataRing);
    assert_eq!(card.regions[0].1.len(), 8192);
    assert_eq!(card.regions[1].1.len(), tx_compl::BYTES + 512 * 16);
    assert_eq!(card.regions[1].1.len(), tx_stamp::area_bytes(8192));
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

/// The `n`th unit of `ring` as an entry header.
fn header_at(ring: &[u8], unit: usize) -> EntryHeader {
    EntryHeader::from_bytes(ring[unit * 16..unit * 16 + 16].try_into().unwrap())
}

#[test]
fn frames_are_placed_as_entries_back_to_back_and_one_doorbell_rings() {
    let (mut dev, mut tx) = open(4096);
    let frames = [frame(1, 60), frame(2, 64), frame(3, 65), frame(4, 18)];
    let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
    let before = dev.card().writes.len();
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 4);
    // One posted write, no readback: the fast path.
    assert_eq!(dev.card().writes.len(), before + 1);
    // Entries of 1 + ceil(len / 16) units: 5, 5, 6, 3.
    assert_eq!(dev.card().writes_to(TAIL), [19]);
    assert_eq!(tx.tail(), 19);
    let ring = dev.card_mut().region(RegionKind::DataRing, 0).clone();
    for (f, unit) in frames.iter().zip([0, 5, 10, 16]) {
        let h = header_at(&ring, unit);
        let sent = EntryHeader {
            len: f.len() as u16,
            ..Default::default()
        };
        assert_eq!(h, sent, "flags, hash and timestamp are 0 on TX");
        let at = (unit + 1) * 16;
        assert_eq!(&ring[at..at + f.len()], f.as_slice());
    }
    assert_eq!(tx.free_units(&dev), 256 - 1 - 19);
    assert!(!tx.idle(&dev));
}

#[test]
fn an_entry_that_wraps_is_split_at_the_ring_end() {
    let (mut dev, mut tx) = open(4096);
    // Fill 240 of 256 units and have the card finish them.
    let filler = frame(9, 239 * 16);
    assert_eq!(tx.send(&mut dev, &[&filler]).unwrap(), 1);
    dev.card_mut().complete(0, 240, 1);
    assert!(tx.idle(&dev));
    assert_eq!(tx.free_units(&dev), 255);
    // 22 units from unit 240: the header and 15 units of frame at the end,
    // the rest of the frame from unit 0.
    let f = frame(200, 330);
    assert_eq!(tx.send(&mut dev, &[&f]).unwrap(), 1);
    assert_eq!(dev.card().writes_to(TAIL), [240, 6]);
    let ring = dev.card_mut().region(RegionKind::DataRing, 0).clone();
    assert_eq!(header_at(&ring, 240).len, 330);
    assert_eq!(&ring[241 * 16..], &f[..240]);
    assert_eq!(&ring[..90], &f[240..]);
    // send_raw posts whole units as they are, wrapping the same way.
    dev.card_mut().complete(0, 6, 2);
    let raw = frame(77, 100);
    let mut units = EntryHeader {
        len: 100,
        ..Default::default()
    }
    .to_bytes()
    .to_vec();
    units.extend_from_slice(&raw);
    tx.send_raw(&mut dev, &units).unwrap();
    assert_eq!(dev.card().writes_to(TAIL).last(), Some(&14));
}

#[test]
fn a_full_ring_takes_what_fits_and_one_unit_stays_empty() {
    let (mut dev, mut tx) = open(4096);
    let big = frame(5, 1000); // 64 units
    let refs = vec![big.as_slice(); 5];
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 3);
    assert_eq!(tx.free_units(&dev), 63);
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 0);
    // Nothing queued: no doorbell either.
    assert_eq!(dev.card().writes_to(TAIL), [192]);
    // A small frame still fits behind the big one that did not.
    let small = frame(6, 64); // 5 units
    assert_eq!(tx.send(&mut dev, &[&small, &big]).unwrap(), 1);
    assert_eq!(tx.free_units(&dev), 58);
    assert!(matches!(
        tx.send_raw(&mut dev, &[0; 59 * 16]),
        Err(Error::TxRingFull {
            pipe: 1,
            need_units: 59,
            free_units: 58
        })
    ));
    tx.send_raw(&mut dev, &[0; 58 * 16]).unwrap();
    assert_eq!(tx.free_units(&dev), 0);
    assert_eq!(tx.send(&mut dev, &[&small]).unwrap(), 0);
    // The card finishes the first two frames.
    dev.card_mut().complete(0, 128, 1);
    assert_eq!(tx.free_units(&dev), 128);
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 2);
    assert_eq!(dev.card().writes_to(TAIL).last(), Some(&127));
}

#[test]
fn bad_lengths_are_refused_by_index_and_nothing_is_queued() {
    let (mut dev, mut tx) = open(64 * 1024);
    let ok = frame(1, 100);
    let huge = vec![0; MAX_FRAME_BYTES as usize + 1];
    let e = tx.send(&mut dev, &[&ok, &[]]).unwrap_err();
    assert!(matches!(
        e,
        Error::BadFrameLength {
            index: 1,
            len: 0,
            max: MAX_FRAME_BYTES
        }
    ));
    let e = tx.send(&mut dev, &[&ok, &ok, &huge, &ok]).unwrap_err();
    assert!(
        matches!(e, Error::BadFrameLength { index: 2, len, max: MAX_FRAME_BYTES } if len == huge.len())
    );
    assert!(e.to_string().contains("nothing was queued"), "{e}");
    assert!(e.to_string().contains("frame 2"), "{e}");
    assert_eq!(tx.tail(), 0);
    assert!(dev.card().writes_to(TAIL).is_empty());
    // The largest frame is fine.
    let largest = frame(0, MAX_FRAME_BYTES as usize);
    assert_eq!(tx.send(&mut dev, &[&largest]).unwrap(), 1);
    // A frame larger than a small ring could ever hold is refused too, not
    // left to return 0 forever: 256 units, one kept empty, one header.
    let (mut dev, mut tx) = open(4096);
    let e = tx.send(&mut dev, &[&huge[..4065]]).unwrap_err();
    assert!(matches!(
        e,
        Error::BadFrameLength {
            index: 0,
            len: 4065,
            max: 4064
        }
    ));
    assert_eq!(tx.send(&mut dev, &[&frame(0, 4064)]).unwrap(), 1);
    assert_eq!(tx.free_units(&dev), 0);
}

#[test]
fn completion_record_is_taken_only_when_its_sequence_moves() {
    let (mut dev, mut tx) = open(4096);
    let f = frame(3, 640); // 41 units
    assert_eq!(tx.send(&mut dev, &[&f, &f]).unwrap(), 2);
    assert_eq!(tx.free_units(&dev), 173);
    // A head with sequence 0 means "never written": ignored.
    dev.card_mut().complete(0, 41, 0);
    assert_eq!((tx.free_units(&dev), tx.head()), (173, 0));
    dev.card_mut().complete(0, 41, 1);
    assert_eq!((tx.free_units(&dev), tx.head()), (214, 41));
    assert!(!tx.idle(&dev));
    assert!(!tx.wait_idle(&mut dev, 3));
    // Same sequence, different head: a stale record, not progress.
    dev.card_mut().complete(0, 82, 1);
    assert_eq!(tx.head(), 41);
    assert!(!tx.idle(&dev));
    dev.card_mut().complete(0, 82, 2);
    assert!(tx.wait_idle(&mut dev, 1));
    assert_eq!(tx.free_units(&dev), 255);
    // The pipe index field is not needed to parse the head.
    let rec = dev.card_mut().region(RegionKind::Notification, 0).clone();
    assert_eq!(tx_compl::HEAD.read(&rec), 82);
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
