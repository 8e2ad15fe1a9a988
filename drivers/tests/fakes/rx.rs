//! `RxPipe` and the shared notification buffers against an in-memory card:
//! what `open_rx_pipe` programs, how records of pipes sharing a buffer are
//! told apart, and when the driver writes NBUF_HEAD.

use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Device, EntryHeader, Error, RegionKind, RxPipe};
use pendulum_layout::ring::rx_header;
use pendulum_layout::{global, notif, pipe, pipe_page, RegError};

/// A card with 8 pipes and 2 notification buffers: pipes 0, 2, 4, 6 report
/// into buffer 0, the odd ones into buffer 1.
fn open_shared() -> Device<FakeCard> {
    Device::open(FakeCard::with(8, 4, 2)).unwrap()
}

fn nbuf_head(b: usize) -> u32 {
    pipe_page(b) + pipe::NBUF_HEAD.offset
}

/// Announces `tail` for pipe `p` with its next sequence number, as the card would.
fn announce(dev: &mut Device<FakeCard>, p: usize, seq: &mut u32, tail: u32) {
    *seq += 1;
    assert!(dev.card_mut().post(p, *seq, tail), "buffer full");
}

#[test]
fn the_buffer_is_switched_on_once_before_the_first_pipe_that_uses_it() {
    let mut dev = open_shared();
    assert_eq!(dev.notif_bufs(), 2);
    dev.open_rx_pipe(2, 4096).unwrap();
    let (b0, p2) = (pipe_page(0), pipe_page(2));
    let card = dev.card();
    let nbuf_iova = 1u64 << 32; // the first region: the buffer, before the ring
    let ring_iova = 2u64 << 32;
    let writes: Vec<(u32, u32)> = card
        .writes
        .iter()
        .copied()
        .filter(|(o, _)| *o >= b0)
        .collect();
    assert_eq!(
        writes,
        [
            (b0 + pipe::NBUF_CTRL.offset, 0),
            (b0 + pipe::NBUF_BASE_LO.offset, nbuf_iova as u32),
            (b0 + pipe::NBUF_BASE_HI.offset, (nbuf_iova >> 32) as u32),
            (b0 + pipe::NBUF_BYTES.offset, 4096),
            (b0 + pipe::NBUF_CTRL.offset, pipe::NBUF_CTRL_ON),
            (p2 + pipe::CTRL.offset, 0),
            (p2 + pipe::RING_BASE_LO.offset, ring_iova as u32),
            (p2 + pipe::RING_BASE_HI.offset, (ring_iova >> 32) as u32),
            (p2 + pipe::RING_BYTES.offset, 4096),
            (p2 + pipe::CTRL.offset, pipe::CTRL_ENABLE),
        ]
    );
    assert_eq!(card.regions[0].0, RegionKind::Notification);
    assert_eq!(card.regions[0].1.len(), 4096);
    // Pipe 4 shares buffer 0: no second buffer. Pipe 1 needs buffer 1.
    let before = dev.card().regions.len();
    dev.open_rx_pipe(4, 4096).unwrap();
    assert_eq!(dev.card().regions.len(), before + 1);
    assert_eq!(dev.card().writes_to(b0 + pipe::NBUF_CTRL.offset).len(), 2);
    dev.set_notif_buf_bytes(64 << 10).unwrap();
    dev.open_rx_pipe(1, 4096).unwrap();
    assert_eq!(dev.card().nbuf(1).bytes, 64 << 10);
    assert!(dev.card().nbuf(1).on);
}

#[test]
fn records_of_pipes_sharing_a_buffer_reach_their_own_pipe() {
    let mut dev = open_shared();
    let mut p0 = dev.open_rx_pipe(0, 4096).unwrap();
    let mut p2 = dev.open_rx_pipe(2, 4096).unwrap();
    let mut p1 = dev.open_rx_pipe(1, 4096).unwrap();
    let (mut s0, mut s2) = (0, 0);
    assert!(!p0.has_data(&dev) && !p2.has_data(&dev));
    announce(&mut dev, 2, &mut s2, 3);
    announce(&mut dev, 0, &mut s0, 1);
    announce(&mut dev, 2, &mut s2, 5);
    assert!(p0.has_data(&dev));
    assert_eq!(p0.tail(), 1);
    // Pipe 2's newest record wins over its older one.
    assert_eq!(p2.recv(&dev).end_unit(), 5);
    assert!(!p1.has_data(&dev));
    // A record seen before (same sequence number) is not new data.
    p2.free(&mut dev, 5).unwrap();
    assert!(!p2.has_data(&dev));
    assert_eq!(dev.notif_records_ignored(), 0);
}

#[test]
fn the_next_pipe_with_data_reads_the_buffers_once_and_goes_round_robin() {
    let mut dev = open_shared();
    let mut pipes: Vec<RxPipe> = (0..4).map(|p| dev.open_rx_pipe(p, 4096).unwrap()).collect();
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 3), None);
    let mut seqs = [0u32; 4];
    for p in [3, 0] {
        announce(&mut dev, p, &mut seqs[p], 2);
    }
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 3), Some(0));
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 0), Some(3));
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 3), Some(0));
    pipes[0].free(&mut dev, 2).unwrap();
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 3), Some(3));
}

#[test]
fn records_that_do_not_belong_in_the_buffer_are_counted_and_skipped() {
    let mut dev = open_shared();
    let mut p0 = dev.open_rx_pipe(0, 4096).unwrap();
    // Pipe 1 reports into buffer 1, and pipe 1000 does not exist.
    assert!(dev.card_mut().post_raw(0, 1, 1, 7));
    assert!(dev.card_mut().post_raw(0, 1000, 1, 7));
    assert!(dev.card_mut().post_raw(0, u32::MAX, 1, 7));
    assert!(dev.card_mut().post(0, 1, 2));
    assert!(p0.has_data(&dev));
    assert_eq!(p0.tail(), 2);
    assert_eq!(dev.notif_records_ignored(), 3);
}

#[test]
fn nbuf_head_is_written_once_per_half_buffer_and_records_wrap_the_ring() {
    let mut dev = open_shared();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let mut seq = 0;
    let head_writes = |dev: &Device<FakeCard>| dev.card().writes_to(nbuf_head(0));
    // Three laps of the 256-record buffer, one unit per record (the ring is
    // not read: every free is to the tail).
    for n in 1..=3 * 256u32 {
        let tail = n % p.ring_units();
        announce(&mut dev, 0, &mut seq, tail);
        assert!(p.has_data(&dev), "record {n}");
        assert_eq!(p.tail(), tail);
        p.free(&mut dev, tail).unwrap();
        let expected: Vec<u32> = (1..=n / 128).map(|k| 128 * k).collect();
        assert_eq!(head_writes(&dev), expected, "after record {n}");
    }
    assert_eq!(dev.card().nbuf(0).head, 3 * 256);
    assert_eq!(dev.notif_records_ignored(), 0);
}

#[test]
fn a_full_buffer_is_reported_by_wait_so_the_card_goes_on() {
    // Per-packet notifications for a pipe nobody frees fill the buffer; the
    // record for the pipe software waits on is held back by the card.
    let mut dev = open_shared();
    let mut p0 = dev.open_rx_pipe(0, 4096).unwrap();
    let _p2 = dev.open_rx_pipe(2, 4096).unwrap();
    let mut s2 = 0;
    for n in 0..256 {
        announce(&mut dev, 2, &mut s2, n % 64);
    }
    assert!(!dev.card_mut().post(0, 1, 9), "the buffer has room");
    // Polling through `&Device` reads the records but cannot report them;
    // waiting can.
    assert!(!p0.has_data(&dev));
    assert_eq!(dev.card().nbuf(0).head, 0);
    assert!(!p0.wait(&mut dev, 1));
    assert_eq!(dev.card().nbuf(0).head, 256);
    assert!(dev.card_mut().post(0, 1, 9));
    assert!(p0.wait(&mut dev, 1));
    assert_eq!(p0.tail(), 9);
    // `poll_notifications` does the same for every buffer.
    for n in 0..200 {
        announce(&mut dev, 2, &mut s2, n % 64);
    }
    dev.poll_notifications().unwrap();
    assert_eq!(dev.card().nbuf(0).head, 457);
    dev.poll_notifications().unwrap();
    assert_eq!(dev.card().writes_to(nbuf_head(0)), [256, 457]);
}

#[test]
fn a_reopened_pipe_does_not_take_its_old_records_for_new_frames() {
    let mut dev = open_shared();
    let p = dev.open_rx_pipe(0, 4096).unwrap();
    let mut seq = 0;
    announce(&mut dev, 0, &mut seq, 5);
    dev.close_rx_pipe(p).unwrap();
    // One more record lands after the pipe was closed, before it is reopened.
    announce(&mut dev, 0, &mut seq, 7);
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    assert!(!p.has_data(&dev), "an old record was taken as new");
    assert_eq!(p.tail(), 0);
    // The reopened pipe numbers its records from 1 again.
    assert!(dev.card_mut().post(0, 1, 2));
    assert!(p.has_data(&dev));
    assert_eq!(p.tail(), 2);
}

#[test]
fn a_refused_pipe_enable_names_the_notification_buffer() {
    let mut card = FakeCard::with(8, 4, 2);
    card.refuse
        .insert(pipe_page(3) + pipe::CTRL.offset, RegError::NotifBufOff);
    let mut dev = Device::open(card).unwrap();
    let e = dev.open_rx_pipe(3, 4096).unwrap_err();
    assert!(matches!(
        e,
        Error::RegisterRefused {
            cause: RegError::NotifBufOff,
            ..
        }
    ));
    assert!(e.to_string().contains("notification buffer"), "{e}");
}

/// A run of checked writes reads REG_ERRORS once per write plus once, still
/// blames a refusal on the write that was refused, and makes none after it.
#[test]
fn a_refusal_inside_a_run_of_checked_writes_stops_it_at_that_write() {
    let mut card = FakeCard::with(8, 4, 2);
    let bytes = pipe_page(3) + pipe::RING_BYTES.offset;
    card.refuse.insert(bytes, RegError::BadRingSize);
    let mut dev = Device::open(card).unwrap();
    dev.card_mut().writes.clear();
    let e = dev.open_rx_pipe(3, 4096).unwrap_err();
    assert!(
        matches!(e, Error::RegisterRefused { addr, cause: RegError::BadRingSize } if addr == bytes),
        "{e}"
    );
    let writes = &dev.card_mut().writes;
    assert_eq!(writes.last().map(|w| w.0), Some(bytes), "{writes:x?}");
    assert!(!writes.contains(&(pipe_page(3) + pipe::CTRL.offset, pipe::CTRL_ENABLE)));

    // A run that goes through: one REG_ERRORS read per write, and one more.
    let mut dev = Device::open(FakeCard::with(8, 4, 2)).unwrap();
    // Kept open: a dropped pipe is closed (one more write) at the next call.
    let _pipe = dev.open_rx_pipe(2, 4096).unwrap();
    dev.card_mut().reads.clear();
    dev.card_mut().writes.clear();
    let page = pipe_page(2);
    dev.write_checked_all(&[
        (page + pipe::CTRL.offset, 0),
        (page + pipe::RING_BYTES.offset, 8192),
        (page + pipe::CTRL.offset, pipe::CTRL_ENABLE),
    ])
    .unwrap();
    let errors_reads = dev
        .card_mut()
        .reads
        .iter()
        .filter(|&&r| r == global::REG_ERRORS.offset)
        .count();
    assert_eq!(errors_reads, 4);
    assert_eq!(dev.card_mut().writes.len(), 3);
}

#[test]
fn bad_notification_buffer_requests_are_clear_errors() {
    let mut dev = open_shared();
    for bytes in [0, 2048, 12288, 4 << 20] {
        let e = dev.set_notif_buf_bytes(bytes).unwrap_err();
        assert!(matches!(e, Error::BadNotifBufSize { bytes: b, .. } if b == bytes));
        assert!(e.to_string().contains("notification buffer size"));
    }
    // A card without notification buffers cannot report frames.
    let mut dev = Device::open(FakeCard::with(4, 4, 0)).unwrap();
    assert!(matches!(dev.open_rx_pipe(0, 4096), Err(Error::NoNotifBufs)));
    // The pipe is checked before the buffer.
    assert!(matches!(
        dev.open_rx_pipe(4, 4096),
        Err(Error::NoSuchPipe { pipe: 4, pipes: 4 })
    ));
}

#[test]
fn a_card_claiming_more_buffers_than_pipes_still_works() {
    let mut dev = Device::open(FakeCard::with(4, 4, u32::MAX)).unwrap();
    let mut p = dev.open_rx_pipe(3, 4096).unwrap();
    assert!(dev.card().nbuf(3).on);
    assert!(dev.card_mut().post(3, 1, 4));
    assert!(p.has_data(&dev));
}

#[test]
fn the_tx_pipe_count_is_read_from_a_version_1_card() {
    // A card of version 1.0, the first to have CAP_TX_PIPES.
    let mut card = FakeCard::with(8, 2, 2);
    card.regs.insert(
        global::VERSION.offset,
        (pendulum_layout::VERSION_MAJOR as u32) << 16,
    );
    let dev = Device::open(card).unwrap();
    assert_eq!((dev.pipes(), dev.tx_pipes()), (8, 2));
    assert_eq!(
        dev.card().regs[&global::VERSION.offset] & 0xFFFF,
        0,
        "this test is about a card of minor version 0"
    );
}

#[test]
fn the_fake_card_writes_records_as_the_layout_says() {
    let mut dev = open_shared();
    let _p = dev.open_rx_pipe(1, 4096).unwrap();
    assert!(dev.card_mut().post(1, 1, 6));
    let rec = dev.card_mut().region(RegionKind::Notification, 0)[..16].to_vec();
    assert_eq!(
        [
            notif::TAIL.read(&rec),
            notif::SEQ.read(&rec),
            notif::PIPE.read(&rec),
            notif::COUNT.read(&rec)
        ],
        [6, 1, 1, 1]
    );
}

/// A frame of `len` bytes counting from `tag` (wrapping), so a misplaced
/// byte shows. Any bytes: the card delimits a frame by its entry's header.
fn frame(tag: u8, len: usize) -> Vec<u8> {
    (0..len).map(|k| tag.wrapping_add(k as u8)).collect()
}

/// The header the card writes for `f`, stamped `timestamp`.
fn header(f: &[u8], timestamp: u64) -> EntryHeader {
    EntryHeader {
        timestamp,
        ..rx_header(f, false, 0)
    }
}

#[test]
fn freeing_inside_an_entry_is_refused_and_changes_nothing() {
    let mut dev = open_shared();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap();
    let ring = *p.ring_region();
    // Entries of 11 units (at 0: 150 bytes) and 8 (at 11: 100 bytes),
    // announced together.
    let (a, b) = (frame(1, 150), frame(2, 100));
    let mid = dev.card_mut().write_entry(&ring, 0, &header(&a, 1), &a);
    let end = dev.card_mut().write_entry(&ring, mid, &header(&b, 2), &b);
    assert_eq!((mid, end), (11, 19));
    let mut seq = 0;
    announce(&mut dev, 0, &mut seq, end);
    assert_eq!(p.recv(&dev).iter().count(), 2);
    let head_reg = pipe_page(0) + pipe::HEAD.offset;
    let writes = dev.card().writes_to(head_reg).len();
    for inside in [1, 2, 10, 12, 18] {
        let e = p.free(&mut dev, inside).unwrap_err();
        let (start, stop) = if inside < mid { (0, mid) } else { (mid, end) };
        assert!(
            matches!(e, Error::FreeInsideFrame { pipe: 0, to, frame_start, frame_end }
                if to == inside && (frame_start, frame_end) == (start, stop)),
            "{e}"
        );
        assert_eq!(p.head(), 0, "the head moved on a refused free");
    }
    assert_eq!(dev.card().writes_to(head_reg).len(), writes, "HEAD written");
    // The ring is still read whole, and entry ends are accepted.
    let lens: Vec<usize> = p
        .recv(&dev)
        .iter()
        .map(|f| f.unwrap().bytes.len())
        .collect();
    assert_eq!(lens, [150, 100]);
    p.free(&mut dev, 0).unwrap();
    p.free(&mut dev, mid).unwrap();
    let got: Vec<_> = p.recv(&dev).iter().map(|f| f.unwrap().unit).collect();
    assert_eq!(got, [mid]);
    p.free(&mut dev, end).unwrap();
    assert!(p.recv(&dev).is_empty());
}

#[test]
fn an_entry_the_card_writes_across_the_end_of_the_ring_is_read_whole() {
    let mut dev = open_shared();
    let mut p = dev.open_rx_pipe(0, 4096).unwrap(); // 256 units
    let ring = *p.ring_region();
    let mut seq = 0;
    // One entry of 251 units (4000 bytes) brings the pipe to unit 251.
    let big = frame(9, 4000);
    let at = dev.card_mut().write_entry(&ring, 0, &header(&big, 1), &big);
    assert_eq!(at, 251);
    announce(&mut dev, 0, &mut seq, at);
    let end = p.recv(&dev).end_unit();
    p.free(&mut dev, end).unwrap();
    // An entry of 11 units from unit 251 ends in unit 6: the card wraps its
    // frame, and the driver reads it as one slice from the ring's second
    // mapping. A header on the last unit and its frame all at unit 0 too.
    let (f, g) = (frame(3, 150), frame(4, 40));
    let at = dev.card_mut().write_entry(&ring, 251, &header(&f, 2), &f);
    assert_eq!(at, 6);
    announce(&mut dev, 0, &mut seq, at);
    let got: Vec<Vec<u8>> = p
        .recv(&dev)
        .iter()
        .map(|f| f.unwrap().bytes.to_vec())
        .collect();
    assert_eq!(got, [f]);
    p.free(&mut dev, 6).unwrap();
    assert_eq!((p.head(), p.tail()), (6, 6));
    // Fill up to the last unit, then an entry whose header is that unit.
    let filler = frame(5, 248 * 16 - 5);
    let at = dev
        .card_mut()
        .write_entry(&ring, 6, &header(&filler, 3), &filler);
    assert_eq!(at, 255);
    let at = dev.card_mut().write_entry(&ring, at, &header(&g, 4), &g);
    assert_eq!(at, 3);
    announce(&mut dev, 0, &mut seq, at);
    let batch = p.recv(&dev);
    let got: Vec<_> = batch.iter().map(Result::unwrap).collect();
    assert_eq!(got.len(), 2);
    assert_eq!(
        (got[1].unit, got[1].end_unit, got[1].bytes),
        (255, 3, &g[..])
    );
    assert_eq!(got[1].header, header(&g, 4));
}
