//! TX stamps against the in-memory card: `TxPipe::send_stamped` asks for
//! them, the card (`FakeCard::with_mac`, or a test writing the records by
//! hand) writes them into the slots after the completion record, and
//! `TxPipe::stamps` hands them out in send order; the units of an entry
//! whose stamp is pending are not reused, even once the head has passed
//! them.

use crate::common::patterned_frame;

use pendulum_driver::mock::{FakeCard, MAX_FRAME_BYTES};
use pendulum_driver::{
    Card, Device, EntryHeader, Error, EthernetPort, RegionKind, TxPipe, TxStamp,
};
use pendulum_layout::ring::{entry_units, tx_flags};
use pendulum_layout::{pipe, pipe_page, tx_compl, tx_stamp};

/// A card that sends every entry at its doorbell, and TX pipe 1 on it with
/// a ring of `ring_bytes`.
fn open_with_mac(ring_bytes: u32) -> (Device<FakeCard>, TxPipe) {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let tx = dev.open_tx_pipe(1, ring_bytes).unwrap();
    (dev, tx)
}

/// A card that sends nothing (no MAC): the test plays the card, writing
/// completion and stamp records by hand.
fn open_idle_card(ring_bytes: u32) -> (Device<FakeCard>, TxPipe) {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let tx = dev.open_tx_pipe(1, ring_bytes).unwrap();
    (dev, tx)
}

const TAIL: u32 = pipe_page(1) + pipe::TX_TAIL.offset;

/// TX pipe 1's completion area: the only notification region these tests
/// allocate (no RX pipe, so no notification buffer).
fn compl_area(dev: &mut Device<FakeCard>) -> &mut Vec<u8> {
    dev.card_mut().region(RegionKind::Notification, 0)
}

/// The stamp slot of the entry at `unit`.
fn slot(dev: &mut Device<FakeCard>, unit: u32) -> [u8; tx_stamp::BYTES] {
    let at = tx_stamp::offset(unit) as usize;
    compl_area(dev)[at..at + tx_stamp::BYTES]
        .try_into()
        .unwrap()
}

/// A stamp record as the card writes it.
fn record(cycles: u64, entry: u32, len: u16, done: u16) -> [u8; tx_stamp::BYTES] {
    tx_stamp::record(cycles, entry, len, done)
}

/// The card writes `rec` into the slot of the entry at `unit`.
fn write_slot(dev: &mut Device<FakeCard>, unit: u32, rec: [u8; tx_stamp::BYTES]) {
    let at = tx_stamp::offset(unit) as usize;
    compl_area(dev)[at..at + tx_stamp::BYTES].copy_from_slice(&rec);
}

#[test]
fn stamped_frames_get_stamps_in_send_order_across_the_ring_end() {
    let (mut dev, mut tx) = open_with_mac(4096);
    assert_eq!(
        compl_area(&mut dev).len(),
        tx_stamp::area_bytes(4096),
        "the completion record and a slot per unit"
    );
    let sizes = [60, 64, 65, 127, 200, 1500, 61, 333];
    let frames: Vec<Vec<u8>> = (0..40)
        .map(|i| patterned_frame(i as u8, sizes[i % sizes.len()]))
        .collect();
    let before = dev.cycles().unwrap();
    // One or two frames per call, collecting as we go: 40 frames of 3 to
    // 95 units pass the end of a 256-unit ring several times.
    let (mut posted, mut stamps) = (Vec::new(), Vec::new());
    let mut next = 0;
    while next < frames.len() {
        let batch: Vec<&[u8]> = frames[next..]
            .iter()
            .take(2)
            .map(|f| f.as_slice())
            .collect();
        let mut at = tx.tail();
        let n = tx.send_stamped(&mut dev, &batch).unwrap();
        assert!(n > 0, "the card sends at once, and stamps are taken");
        for f in &frames[next..next + n] {
            posted.push((at, f.len() as u16));
            at = (at + entry_units(f.len() as u32)) % tx.ring_units();
        }
        assert_eq!(tx.tail(), at);
        next += n;
        assert_eq!(tx.stamps_pending(), n);
        assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), n);
        assert_eq!(tx.stamps_pending(), 0);
    }
    assert!(
        posted
            .iter()
            .any(|&(u, len)| u + entry_units(len.into()) > tx.ring_units()),
        "an entry wraps"
    );
    assert_eq!(
        stamps.iter().map(|s| (s.entry, s.len)).collect::<Vec<_>>(),
        posted,
        "one stamp per frame, in send order, naming its entry and length"
    );
    assert!(
        stamps.windows(2).all(|w| w[0].cycles < w[1].cycles),
        "cycles increase: {stamps:?}"
    );
    let after = dev.cycles().unwrap();
    assert!(before < stamps[0].cycles && stamps[stamps.len() - 1].cycles <= after);
    // The frames left whole, and their headers asked for a stamp.
    assert_eq!(dev.card_mut().collect().unwrap(), frames);
    let ring = dev.card_mut().region(RegionKind::DataRing, 0).clone();
    let (unit, len) = *posted.last().unwrap();
    let at = unit as usize * 16;
    let h = EntryHeader::from_bytes(ring[at..at + 16].try_into().unwrap());
    assert_eq!(
        h,
        EntryHeader {
            len,
            flags: tx_flags::STAMP,
            ..Default::default()
        }
    );
    // Nothing more to take, and the ring is all free again.
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 0);
    assert!(tx.idle(&dev));
    assert_eq!(tx.free_units(&dev), 255);
}

#[test]
fn frames_sent_without_asking_get_no_stamp() {
    let (mut dev, mut tx) = open_with_mac(4096);
    let (a, b, c) = (
        patterned_frame(1, 100),
        patterned_frame(2, 60),
        patterned_frame(3, 70),
    );
    // 8 units, then 5, then 6.
    assert_eq!(tx.send_stamped(&mut dev, &[&a]).unwrap(), 1);
    assert_eq!(tx.send(&mut dev, &[&b]).unwrap(), 1);
    assert_eq!(tx.send_stamped(&mut dev, &[&c]).unwrap(), 1);
    assert_eq!(dev.card_mut().collect().unwrap(), [a, b, c]);
    let mut stamps = Vec::new();
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 2);
    assert_eq!(
        stamps.iter().map(|s| (s.entry, s.len)).collect::<Vec<_>>(),
        [(0, 100), (13, 70)]
    );
    assert_eq!(slot(&mut dev, 8), [0; 16], "the unstamped frame's slot");
    assert_eq!(slot(&mut dev, 13)[8..], record(0, 13, 70, 1)[8..]);
    // Only those two slots were written.
    let written = compl_area(&mut dev)[tx_compl::BYTES..]
        .chunks(tx_stamp::BYTES)
        .enumerate()
        .filter(|(_, s)| s.iter().any(|b| *b != 0))
        .map(|(u, _)| u)
        .collect::<Vec<_>>();
    assert_eq!(written, [0, 13]);

    // A card whose pipe was enabled without TX_CTRL_STAMPS ignores the
    // flag: the frame goes, the slot stays zero, the stamp stays pending.
    let (mut dev, mut tx) = open_with_mac(4096);
    let ctrl = pipe_page(1) + pipe::TX_CTRL.offset;
    dev.card_mut().write32(ctrl, pipe::CTRL_ENABLE).unwrap();
    assert_eq!(
        tx.send_stamped(&mut dev, &[&patterned_frame(4, 90)])
            .unwrap(),
        1
    );
    assert_eq!(dev.card_mut().collect().unwrap().len(), 1);
    assert!(tx.idle(&dev));
    assert_eq!(slot(&mut dev, 0), [0; 16]);
    assert_eq!(tx.stamps(&dev, &mut Vec::new()).unwrap(), 0);
    assert_eq!(tx.stamps_pending(), 1);
}

#[test]
fn send_stamped_clears_each_slot_before_posting() {
    let (mut dev, mut tx) = open_idle_card(4096);
    // Stale stamps from an earlier life of these units, DONE and all.
    write_slot(&mut dev, 0, record(11, 0, 60, 1));
    write_slot(&mut dev, 5, record(12, 5, 60, 1));
    let f = patterned_frame(7, 60);
    assert_eq!(tx.send_stamped(&mut dev, &[&f, &f]).unwrap(), 2);
    assert_eq!(dev.card().writes_to(TAIL), [10]);
    assert_eq!(slot(&mut dev, 0), [0; 16]);
    assert_eq!(slot(&mut dev, 5), [0; 16]);
    assert_eq!(tx.stamps(&dev, &mut Vec::new()).unwrap(), 0, "not taken");
    assert_eq!(tx.stamps_pending(), 2);
}

#[test]
fn units_of_a_pending_stamp_are_not_reused_after_the_head_passes() {
    let (mut dev, mut tx) = open_with_mac(4096);
    dev.card_mut().hold_tx_stamps = true;
    let big = patterned_frame(5, 1000); // 64 units
    let refs = vec![big.as_slice(); 4];
    assert_eq!(tx.send_stamped(&mut dev, &refs).unwrap(), 3);
    // The card has sent all three and its head is at the tail...
    assert_eq!(dev.card_mut().collect().unwrap().len(), 3);
    assert!(tx.idle(&dev));
    assert_eq!(tx.head(), 192);
    // ...but their stamps have not come: their units stay held.
    assert_eq!(tx.stamps(&dev, &mut Vec::new()).unwrap(), 0);
    assert_eq!(tx.stamps_pending(), 3);
    assert_eq!(tx.free_units(&dev), 63);
    assert_eq!(tx.send_stamped(&mut dev, &refs).unwrap(), 0);
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 0);
    assert!(matches!(
        tx.send_raw_entry(&mut dev, &big),
        Err(Error::TxRingFull {
            need_units: 64,
            free_units: 63,
            ..
        })
    ));
    assert_eq!(dev.card().writes_to(TAIL), [192]);
    // The stamps come; taken, they free the ring.
    assert_eq!(dev.card_mut().release_tx_stamps(), 3);
    let mut stamps = Vec::new();
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 3);
    assert_eq!(
        stamps.iter().map(|s| s.entry).collect::<Vec<_>>(),
        [0, 64, 128]
    );
    assert_eq!(tx.free_units(&dev), 255);
    assert_eq!(tx.send_stamped(&mut dev, &refs).unwrap(), 3);
}

#[test]
fn stamps_come_out_in_send_order_and_free_up_to_the_next_pending_entry() {
    let (mut dev, mut tx) = open_idle_card(4096);
    let big = patterned_frame(5, 1000); // 64 units
    assert_eq!(tx.send_stamped(&mut dev, &[&big, &big, &big]).unwrap(), 3);
    assert_eq!(tx.free_units(&dev), 63);
    // The head passes the first two entries: not their units.
    dev.card_mut().complete(0, 128, 1);
    assert_eq!((tx.free_units(&dev), tx.head()), (63, 128));
    // The third entry's stamp comes first: it waits behind the first's.
    write_slot(&mut dev, 128, record(30, 128, 1000, 1));
    let mut stamps = Vec::new();
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 0);
    assert_eq!(tx.free_units(&dev), 63);
    // The first's comes: its 64 units are free, up to the second entry.
    write_slot(&mut dev, 0, record(10, 0, 1000, 1));
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 1);
    assert_eq!(tx.free_units(&dev), 127);
    // The second's: up to the head, which has not passed the third entry.
    write_slot(&mut dev, 64, record(20, 64, 1000, 1));
    assert_eq!(tx.stamps(&dev, &mut stamps).unwrap(), 2);
    assert_eq!(tx.free_units(&dev), 191);
    assert_eq!(
        stamps,
        [
            TxStamp {
                entry: 0,
                len: 1000,
                cycles: 10
            },
            TxStamp {
                entry: 64,
                len: 1000,
                cycles: 20
            },
            TxStamp {
                entry: 128,
                len: 1000,
                cycles: 30
            },
        ]
    );
    // With no stamp pending, the head alone says what is free.
    dev.card_mut().complete(0, 192, 2);
    assert_eq!(tx.free_units(&dev), 255);
}

#[test]
fn send_stamped_over_an_rx_ring_is_refused() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let rx = dev.open_rx_pipe(0, 4096).unwrap();
    let mut tx = dev.open_tx_pipe_over(1, &rx).unwrap();
    let e = tx
        .send_stamped(&mut dev, &[&patterned_frame(1, 60)])
        .unwrap_err();
    assert!(matches!(e, Error::TxOverRx { pipe: 1, rx: 0 }), "{e}");
    assert_eq!((tx.tail(), tx.stamps_pending()), (0, 0));
    assert!(dev.card().writes_to(TAIL).is_empty());
    // Such a pipe is enabled without stamps and has no slots.
    let ctrl = pipe_page(1) + pipe::TX_CTRL.offset;
    assert_eq!(dev.card().writes_to(ctrl), [0, pipe::CTRL_ENABLE]);
    let compl = dev.card_mut().region(RegionKind::Notification, 1);
    assert_eq!(compl.len(), tx_compl::BYTES);
}

#[test]
fn pipes_bound_to_the_link_have_no_stamps() {
    let mut dev = Device::open(FakeCard::new()).unwrap();
    let _link = dev.open_link_seeded(1, 2, 4096, 7).unwrap();
    let ctrl = pipe_page(2) + pipe::TX_CTRL.offset;
    assert_eq!(
        dev.card().writes_to(ctrl),
        [0, pipe::CTRL_ENABLE, pipe::CTRL_ENABLE | pipe::TX_CTRL_ACP]
    );
    // The RX pipe's notification buffer, then the TX completion record.
    let compl = dev.card_mut().region(RegionKind::Notification, 1);
    assert_eq!(compl.len(), tx_compl::BYTES);
}

#[test]
fn pipes_bound_to_the_atomic_unit_have_no_stamps() {
    let mut dev = Device::open(FakeCard::with_atomics(64)).unwrap();
    let _at = dev.open_atomics(1, 2, 4096).unwrap();
    let ctrl = pipe_page(2) + pipe::TX_CTRL.offset;
    assert_eq!(
        dev.card().writes_to(ctrl),
        [
            0,
            pipe::CTRL_ENABLE,
            pipe::CTRL_ENABLE | pipe::TX_CTRL_ATOMIC
        ]
    );
    // The RX pipe's notification buffer, then the TX completion record.
    let compl = dev.card_mut().region(RegionKind::Notification, 1);
    assert_eq!(compl.len(), tx_compl::BYTES);
}

#[test]
fn bad_lengths_are_refused_and_nothing_is_queued() {
    let (mut dev, mut tx) = open_with_mac(4096);
    let ok = patterned_frame(1, 100);
    let e = tx.send_stamped(&mut dev, &[&ok, &[]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BadFrameLength {
                index: 1,
                len: 0,
                ..
            }
        ),
        "{e}"
    );
    let huge = vec![0; MAX_FRAME_BYTES as usize + 1];
    let e = tx.send_stamped(&mut dev, &[&ok, &huge]).unwrap_err();
    assert!(
        matches!(e, Error::BadFrameLength { index: 1, len, .. } if len == huge.len()),
        "{e}"
    );
    assert_eq!((tx.tail(), tx.stamps_pending()), (0, 0));
    assert!(dev.card().writes_to(TAIL).is_empty());
    assert!(dev.card_mut().collect().unwrap().is_empty());
    assert_eq!(compl_area(&mut dev)[tx_compl::BYTES..], [0; 4096]);
}

#[test]
fn a_slot_that_names_another_entry_is_an_error_and_the_entry_stays_pending() {
    let (mut dev, mut tx) = open_with_mac(4096);
    let (a, b) = (patterned_frame(1, 100), patterned_frame(2, 60));
    assert_eq!(tx.send_stamped(&mut dev, &[&a, &b]).unwrap(), 2);
    let good = slot(&mut dev, 8);
    let cycles = u64::from_le_bytes(good[..8].try_into().unwrap());
    // The second entry (unit 8, 60 bytes): another unit, another length,
    // DONE neither 0 nor 1. The first call takes the first entry's stamp
    // on the way.
    let mut first_call = true;
    for (rec, entry, len, done) in [
        (record(cycles, 7, 60, 1), 7, 60, 1),
        (record(cycles, 8, 61, 1), 8, 61, 1),
        (record(cycles, 8, 60, 2), 8, 60, 2),
    ] {
        write_slot(&mut dev, 8, rec);
        let mut out = Vec::new();
        let e = tx.stamps(&dev, &mut out).unwrap_err();
        assert!(
            matches!(
                e,
                Error::BadTxStamp {
                    pipe: 1,
                    unit: 8,
                    len: 60,
                    record_entry,
                    record_len,
                    done: d,
                } if (record_entry, record_len, d) == (entry, len, done)
            ),
            "{e}"
        );
        // The first entry's stamp, before it, was taken all the same.
        let taken: Vec<u32> = out.iter().map(|s| s.entry).collect();
        assert_eq!(taken, if first_call { vec![0] } else { vec![] });
        first_call = false;
        assert_eq!(tx.stamps_pending(), 1);
        assert!(e.to_string().contains("unit 8"), "{e}");
    }
    // The entry's units stay held.
    assert!(tx.idle(&dev));
    assert_eq!(tx.free_units(&dev), 255 - 5);
    // Put right, the stamp is taken.
    write_slot(&mut dev, 8, good);
    let mut out = Vec::new();
    assert_eq!(tx.stamps(&dev, &mut out).unwrap(), 1);
    assert_eq!(
        out,
        [TxStamp {
            entry: 8,
            len: 60,
            cycles
        }]
    );
}

#[test]
fn a_stamp_past_the_completion_area_is_a_counted_dma_fault_and_the_frame_goes() {
    // Software moved the record to the area's last 16 bytes by hand (the
    // NIC cannot know how much memory is behind TX_COMPL_BASE): the slots
    // of every unit but the first run past the area. The card's write is
    // refused as an IOMMU would refuse it; the frames still go.
    let (mut dev, mut tx) = open_with_mac(4096);
    let page = pipe_page(1);
    let base = dev
        .card()
        .writes_to(page + pipe::TX_COMPL_BASE_LO.offset)
        .last()
        .copied()
        .unwrap();
    let last = base + tx_stamp::area_bytes(4096) as u32 - tx_compl::BYTES as u32;
    dev.card_mut()
        .write32(page + pipe::TX_COMPL_BASE_LO.offset, last)
        .unwrap();
    let (a, b) = (patterned_frame(1, 60), patterned_frame(2, 60));
    assert_eq!(tx.send_stamped(&mut dev, &[&a, &b]).unwrap(), 2);
    assert_eq!(dev.card_mut().collect().unwrap(), [a, b]);
    assert_eq!(dev.card().dma_faults, 2);
}
