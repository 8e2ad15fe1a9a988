//! RX path tests on the Verilated NIC, driven through the real driver.

use pendulum_driver::{Card, Device, Error, RxPipe};
use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::{global, notif, pipe, pipe_page, RegError};
use pendulum_testbench::models::{FrameGen, Pacing};
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

fn open() -> Device<SimCard> {
    Device::open(SimCard::new(SimConfig::default())).expect("open simulated card")
}

/// A card whose MAC side sends at `gbps`. Small rings need it: the host's
/// answer (notification, poll, head write) takes about 250 cycles, and an
/// unpaced source fills a 4 KiB ring in 64 cycles, so frames would be
/// dropped (and counted) as ring-full.
fn open_paced(gbps: f64) -> Device<SimCard> {
    let cfg = SimConfig {
        pacing: Pacing::LineRate {
            gbps,
            clock_mhz: 250.0,
        },
        ..SimConfig::default()
    };
    Device::open(SimCard::new(cfg)).expect("open simulated card")
}

fn open_pipes(dev: &mut Device<SimCard>, n: usize, ring_bytes: u32) -> Vec<RxPipe> {
    (0..n)
        .map(|p| dev.open_rx_pipe(p, ring_bytes).unwrap())
        .collect()
}

/// Queues frames on the MAC side and remembers them per pipe.
fn send(dev: &mut Device<SimCard>, expected: &mut Expected, frames: Vec<(Vec<u8>, usize)>) {
    for (f, p) in frames {
        if expected.len() <= p {
            expected.resize(p + 1, Default::default());
        }
        expected[p].push_back(f.clone());
        dev.card_mut().sim.eth.push(f);
    }
}

fn random_frames(
    seed: u64,
    n: usize,
    min: usize,
    max: usize,
    pipes: usize,
) -> Vec<(Vec<u8>, usize)> {
    let mut g = FrameGen::new(seed);
    (0..n)
        .map(|i| {
            let len = g.random_len(min, max);
            let p = (i * 7 + len) % pipes;
            (g.frame(len, p), p)
        })
        .collect()
}

#[test]
fn random_sizes_from_60_to_9600_arrive_intact_and_in_order() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 4, 64 * 1024);
    let mut exp = Expected::default();
    send(&mut dev, &mut exp, random_frames(1, 1500, 60, 9600, 4));
    let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 5_000_000).unwrap();
    assert_eq!(rep.frames, 1500);
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops(), c.reg_errors), (1500, 0, 0));
    assert_eq!(dev.card().sim.mem.stray_writes(), 0);
    // Ring writes go out as TLPs of up to four beats inside a 256-byte block.
    let pcie = dev.card().sim.pcie.counters();
    assert_eq!(pcie.tlp_errors, 0);
    assert!(
        pcie.dma_writes * 3 < pcie.data_bytes / 64,
        "writes are not coalesced: {pcie:?}"
    );
}

#[test]
fn ring_wraps_around_many_times_with_frames_straddling_the_end() {
    let mut dev = open_paced(10.0);
    let mut pipes = open_pipes(&mut dev, 1, 4096);
    let mut exp = Expected::default();
    // 256 units; 700 frames of 5 to 95 units go round the ring over a hundred times.
    send(&mut dev, &mut exp, random_frames(2, 700, 60, 1500, 1));
    let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 5_000_000).unwrap();
    assert_eq!(rep.frames, 700);
    assert!(rep.bytes > 100 * 4096);
    assert_eq!(dev.counters().unwrap().drops(), 0);
}

#[test]
fn notifications_are_reactive_one_outstanding_until_the_head_moves() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 3, 8192);
    let mut g = FrameGen::new(3);
    let frames: Vec<_> = [64, 100, 200].iter().map(|&len| g.frame(len, 2)).collect();
    for f in &frames {
        dev.card_mut().sim.eth.push(f.clone());
    }
    assert!(dev.card_mut().sim.drain(10_000));
    // The first frame found the pipe armed; the other two wait for a head write.
    assert_eq!(dev.counters().unwrap().notifications, 1);
    // Entries of 5, 8 and 14 units (a 16-byte header, the frame in units).
    assert_eq!(
        dev.read(pipe_page(2) + pipe::TAIL.offset).unwrap(),
        5 + 8 + 14
    );
    let p = &mut pipes[2];
    let batch = p.recv(&dev);
    let got: Vec<Vec<u8>> = batch.iter().map(|f| f.unwrap().bytes.to_vec()).collect();
    let end = batch.end_unit();
    // The notification covers what had landed when it was formed (here the
    // first frame or two); the rest waits for the head to move.
    assert!(!got.is_empty(), "the first notification announced nothing");
    assert_eq!(got, frames[..got.len()]);
    p.free(&mut dev, end).unwrap();
    if got.len() == frames.len() {
        return;
    }
    // The head write re-arms the pipe: one more notification covers the rest.
    assert!(p.wait(&mut dev, 10_000));
    let batch = p.recv(&dev);
    let rest: Vec<Vec<u8>> = batch.iter().map(|f| f.unwrap().bytes.to_vec()).collect();
    assert_eq!(rest, frames[got.len()..]);
    assert_eq!(batch.end_unit(), 5 + 8 + 14);
    assert_eq!(dev.counters().unwrap().notifications, 2);
}

#[test]
fn a_prefetch_announces_new_frames_while_the_batch_is_still_held() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 3, 8192);
    let mut g = FrameGen::new(5);
    let first = g.frame(64, 1);
    dev.card_mut().sim.eth.push(first.clone());
    let p = &mut pipes[1];
    assert!(p.wait(&mut dev, 10_000));
    let held_end = p.recv(&dev).end_unit();
    assert_eq!(held_end, 5, "a header unit and four of frame");
    // More frames arrive while software holds its batch: without a prefetch
    // (or a free) the pipe is not re-armed, so nothing is announced.
    let more: Vec<Vec<u8>> = [100, 300].iter().map(|&len| g.frame(len, 1)).collect();
    for f in &more {
        dev.card_mut().sim.eth.push(f.clone());
    }
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(
        p.recv(&dev).end_unit(),
        held_end,
        "announced without being re-armed"
    );
    let notifications = dev.counters().unwrap().notifications;
    // The prefetch re-arms it without moving the head: the new frames are
    // announced at once, behind the held ones, and the head stays put.
    p.prefetch(&mut dev).unwrap();
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(dev.counters().unwrap().notifications, notifications + 1);
    let batch = p.recv(&dev);
    let got: Vec<Vec<u8>> = batch.iter().map(|f| f.unwrap().bytes.to_vec()).collect();
    let mut all = vec![first];
    all.extend(more);
    assert_eq!(
        got, all,
        "the batch holds the old frame and the new ones, unchanged"
    );
    let end = batch.end_unit();
    assert_eq!(
        dev.read(pipe_page(1) + pipe::HEAD.offset).unwrap(),
        0,
        "a prefetch does not move the head"
    );
    assert_eq!(
        dev.read(pipe_page(1) + pipe::NOTIF_PREFETCH.offset)
            .unwrap(),
        0
    );
    p.free(&mut dev, end).unwrap();
    assert_eq!(dev.counters().unwrap().reg_errors, 0);
}

#[test]
fn the_next_pipe_with_data_is_found_round_robin_across_pipes() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 4, 8192);
    assert_eq!(
        dev.next_pipe_with_data(&mut pipes, 3),
        None,
        "nothing arrived yet"
    );
    let mut g = FrameGen::new(6);
    for p in [2, 0, 2] {
        dev.card_mut().sim.eth.push(g.frame(100, p));
    }
    assert!(dev.card_mut().sim.drain(10_000));
    // Round-robin from after the last pipe served: 0, then 2, then 0 again.
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 3), Some(0));
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 0), Some(2));
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 2), Some(0));
    // Serve whatever is next until all three frames are taken: each pipe's
    // frames in order, nothing left over.
    let mut got: Vec<(usize, usize)> = Vec::new();
    let mut last = 3;
    for _ in 0..200 {
        if let Some(p) = dev.next_pipe_with_data(&mut pipes, last) {
            let batch = pipes[p].recv(&dev);
            let n = batch.iter().count();
            let end = batch.end_unit();
            pipes[p].free(&mut dev, end).unwrap();
            got.push((p, n));
            last = p;
        }
        dev.card_mut().relax();
    }
    let per_pipe = |p| got.iter().filter(|g| g.0 == p).map(|g| g.1).sum::<usize>();
    assert_eq!((per_pipe(0), per_pipe(2)), (1, 2), "served: {got:?}");
    assert_eq!(dev.next_pipe_with_data(&mut pipes, 0), None);
}

#[test]
fn notification_record_layout_matches_the_layout_crate() {
    let mut dev = open();
    let _pipes = open_pipes(&mut dev, 2, 4096);
    let mut g = FrameGen::new(4);
    dev.card_mut().sim.eth.push(g.frame(130, 1)); // 1 + 9 units
    assert!(dev.card_mut().sim.drain(10_000));
    // Pipe 1's buffer (1 mod NOTIF_BUFS), through the registers the driver
    // programmed: its first record, in its first place.
    let (base, _) = notif_buf(&mut dev, 1);
    let rec = read_host(&dev, base, notif::BYTES);
    assert_eq!(notif::TAIL.read(&rec), 10);
    assert_eq!(notif::SEQ.read(&rec), 1);
    assert_eq!(notif::PIPE.read(&rec), 1);
    assert_eq!(notif::COUNT.read(&rec), 1, "the buffer's first record");
    assert_eq!(rec, notif_record(&mut dev, 1));
}

/// Notification buffer `b`'s bus address and size, as the driver programmed them.
fn notif_buf(dev: &mut Device<SimCard>, b: usize) -> (u64, usize) {
    let page = pipe_page(b);
    let lo = dev.read(page + pipe::NBUF_BASE_LO.offset).unwrap() as u64;
    let hi = dev.read(page + pipe::NBUF_BASE_HI.offset).unwrap() as u64;
    let bytes = dev.read(page + pipe::NBUF_BYTES.offset).unwrap() as usize;
    (hi << 32 | lo, bytes)
}

/// Pipe `p`'s newest notification record: of the records of `p` in its
/// buffer (p mod NOTIF_BUFS), the one with the highest COUNT; all zeros
/// (COUNT 0, sequence 0) when there is none.
fn notif_record(dev: &mut Device<SimCard>, p: usize) -> Vec<u8> {
    let (base, bytes) = notif_buf(dev, p % dev.notif_bufs());
    read_host(dev, base, bytes)
        .chunks(notif::BYTES)
        .filter(|r| notif::COUNT.read(r) != 0 && notif::PIPE.read(r) == p as u64)
        .max_by_key(|r| notif::COUNT.read(r))
        .map_or_else(|| vec![0; notif::BYTES], |r| r.to_vec())
}

#[test]
fn pipes_sharing_a_buffer_write_their_records_in_turn() {
    let mut dev = open();
    let b = 1;
    let (p, q) = (b, b + dev.notif_bufs());
    let mut pipes = vec![
        dev.open_rx_pipe(p, 8192).unwrap(),
        dev.open_rx_pipe(q, 8192).unwrap(),
    ];
    let mut g = FrameGen::new(24);
    let mut exp = Expected::default();
    send(&mut dev, &mut exp, vec![(g.frame(100, p), p)]);
    assert!(dev.card_mut().sim.drain(10_000));
    send(
        &mut dev,
        &mut exp,
        vec![(g.frame(200, q), q), (g.frame(64, p), p)],
    );
    assert!(dev.card_mut().sim.drain(10_000));
    // Reactive: one record per pipe (p's second frame waits for a head
    // write), in the order the NIC formed them, counted from 1.
    let (base, _) = notif_buf(&mut dev, b);
    let recs = read_host(&dev, base, 3 * notif::BYTES);
    let fields = |r: &[u8]| [notif::PIPE, notif::SEQ, notif::TAIL, notif::COUNT].map(|f| f.read(r));
    assert_eq!(fields(&recs[..16]), [p as u64, 1, 1 + 7, 1]);
    assert_eq!(fields(&recs[16..32]), [q as u64, 1, 1 + 13, 2]);
    assert_eq!(fields(&recs[32..]), [0; 4], "a third record");
    assert_eq!(dev.counters().unwrap().notifications, 2);
    receive_and_check(&mut dev, &mut pipes, &mut exp, 100_000).unwrap();
    assert_eq!(dev.notif_records_ignored(), 0);
}

#[test]
fn a_full_notification_buffer_holds_records_back_and_loses_nothing() {
    // Per-packet: a record per frame (64 units each, so one tail move per
    // 16 beats: few if any coalesce), 600 of them, into a buffer of 256
    // that the host does not read while the frames land.
    let mut dev = open();
    dev.set_per_packet_notifications(true).unwrap();
    let mut pipes = open_pipes(&mut dev, 1, 1 << 20);
    let mut g = FrameGen::new(25);
    let mut exp = Expected::default();
    send(
        &mut dev,
        &mut exp,
        (0..600).map(|_| (g.frame(1000, 0), 0)).collect(),
    );
    assert!(dev.card_mut().sim.drain(400_000));
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (600, 0));
    assert_eq!(
        c.notifications, 256,
        "records written into a buffer of 256 nobody has read"
    );
    assert!(notif::TAIL.read(&notif_record(&mut dev, 0)) < 600 * 64);
    // The driver reads them and reports it (NBUF_HEAD) as it frees: the
    // records held back follow, the last with the final tail.
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(notif::TAIL.read(&notif_record(&mut dev, 0)), 600 * 64);
    assert_eq!(dev.counters().unwrap().reg_errors, 0);
}

#[test]
fn per_packet_the_last_notification_of_every_pipe_carries_its_final_tail() {
    // One-beat frames back to back in runs per pipe, so a pipe's tail moves
    // in the very cycles its previous record is being formed: whatever the
    // timing, the last record must carry the final tail (no move is left
    // unannounced), and its sequence counts every record formed.
    let mut dev = open();
    dev.set_per_packet_notifications(true).unwrap();
    // Room for every record (a record per frame at most): nothing is held
    // back for want of room while the host does not read.
    dev.set_notif_buf_bytes(64 << 10).unwrap();
    let _pipes = open_pipes(&mut dev, 4, 256 * 1024);
    let mut g = FrameGen::new(21);
    let mut frames = 0u64;
    for run in 0..300usize {
        let p = (run * 3 + run / 7) % 4;
        for _ in 0..1 + run % 6 {
            dev.card_mut().sim.eth.push(g.frame(60, p));
            frames += 1;
        }
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let mut seqs = 0;
    for p in 0..4 {
        let rec = notif_record(&mut dev, p);
        let tail = dev.read(pipe_page(p) + pipe::TAIL.offset).unwrap() as u64;
        assert!(tail > 0);
        assert_eq!(
            notif::TAIL.read(&rec),
            tail,
            "pipe {p}: last record vs TAIL"
        );
        assert_eq!(notif::PIPE.read(&rec), p as u64);
        seqs += notif::SEQ.read(&rec);
    }
    let c = dev.counters().unwrap();
    assert_eq!(c.rx_frames, frames);
    assert_eq!(c.notifications, seqs, "sequence numbers count every record");
}

#[test]
fn per_packet_on_one_busy_pipe_every_record_has_the_next_sequence_number() {
    // Minimum-size frames back to back into one pipe: the PCIe model holds
    // the DMA port back, so records wait, and the pipe comes up for its
    // next record while the previous one is still being written.
    let mut dev = open();
    dev.set_per_packet_notifications(true).unwrap();
    dev.set_notif_buf_bytes(64 << 10).unwrap(); // 4,096 records
    let _pipes = open_pipes(&mut dev, 1, 2 << 20);
    let mut g = FrameGen::new(23);
    for _ in 0..3000 {
        dev.card_mut().sim.eth.push(g.frame(60, 0));
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let rec = notif_record(&mut dev, 0);
    let c = dev.counters().unwrap();
    assert_eq!(c.rx_frames, 3000);
    assert!(c.notifications > 100, "{} records", c.notifications);
    assert_eq!(notif::SEQ.read(&rec), c.notifications);
    assert_eq!(notif::TAIL.read(&rec), 3000 * 5, "entries of 5 units");
}

#[test]
fn a_pipe_switched_off_and_on_starts_over_at_sequence_one() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 1, 4096);
    let mut g = FrameGen::new(22);
    let mut exp: Expected = vec![Default::default()];
    for _ in 0..3 {
        let f = g.frame(100, 0);
        exp[0].push_back(f.clone());
        dev.card_mut().sim.eth.push(f);
        receive_and_check(&mut dev, &mut pipes, &mut exp, 100_000).unwrap();
    }
    assert!(notif::SEQ.read(&notif_record(&mut dev, 0)) >= 2);
    let ctrl = pipe_page(0) + pipe::CTRL.offset;
    dev.write(ctrl, 0).unwrap();
    // (A read waits for the posted write before it: the frame must not overtake it.)
    assert_eq!(dev.read(ctrl).unwrap(), 0);
    // While off: dropped and counted, and nothing is announced.
    let before = notif_record(&mut dev, 0);
    dev.card_mut().sim.eth.push(g.frame(100, 0));
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(dev.counters().unwrap().drop_pipe_off, 1);
    assert_eq!(notif_record(&mut dev, 0), before);
    // Switched on again: head = tail = 0, and the next record is the first.
    dev.write(ctrl, 1).unwrap();
    assert_eq!(dev.read(ctrl).unwrap(), 1);
    dev.card_mut().sim.eth.push(g.frame(130, 0)); // 1 + 9 units
    assert!(dev.card_mut().sim.drain(10_000));
    let rec = notif_record(&mut dev, 0);
    assert_eq!(notif::TAIL.read(&rec), 10);
    assert_eq!(notif::SEQ.read(&rec), 1);
    assert_eq!(dev.counters().unwrap().reg_errors, 0);
}

fn read_host(dev: &Device<SimCard>, iova: u64, len: usize) -> Vec<u8> {
    dev.card()
        .sim
        .mem
        .read(iova, len)
        .unwrap_or_else(|| panic!("no region holds {iova:#x}"))
}

#[test]
fn full_ring_drops_and_counts_without_touching_what_is_stored() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 1, 4096);
    let mut g = FrameGen::new(5);
    // 256 units, one always kept empty: 51 entries of 5 units fit (255),
    // the rest drop.
    let frames: Vec<_> = (0..100).map(|_| g.frame(64, 0)).collect();
    for f in &frames {
        dev.card_mut().sim.eth.push(f.clone());
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drop_ring_full), (51, 49));
    assert_eq!(
        dev.read(pipe_page(0) + pipe::DROP_RING_FULL.offset)
            .unwrap(),
        49
    );
    let mut exp: Expected = vec![frames[..51].iter().cloned().collect()];
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    // After freeing, the pipe takes frames again, once the head write has
    // reached the card (a read is ordered behind it).
    dev.read(pipe_page(0) + pipe::HEAD.offset).unwrap();
    let more: Vec<_> = (0..10).map(|_| (g.frame(200, 0), 0)).collect();
    send(&mut dev, &mut exp, more);
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    assert_eq!(dev.counters().unwrap().drop_ring_full, 49);
}

fn refused(r: Result<(), Error>) -> RegError {
    match r {
        Err(Error::RegisterRefused { cause, .. }) => cause,
        other => panic!("expected a refused write, got {other:?}"),
    }
}

#[test]
fn wrong_register_writes_are_refused_counted_and_the_engine_keeps_working() {
    let mut dev = open_paced(10.0);
    let mut pipes = open_pipes(&mut dev, 2, 4096);
    let p1 = pipe_page(1);
    assert_eq!(
        refused(dev.write_checked(0x7F0, 1)),
        RegError::UnknownAddress
    );
    assert_eq!(
        refused(dev.write_checked(pipe_page(pendulum_layout::params::PIPES + 5), 1)),
        RegError::UnknownAddress
    );
    assert_eq!(
        refused(dev.write_checked(0x26, 1)),
        RegError::UnknownAddress
    );
    assert_eq!(
        refused(dev.write_checked(global::IDENTITY.offset, 1)),
        RegError::ReadOnly
    );
    assert_eq!(
        refused(dev.write_checked(p1 + pipe::TAIL.offset, 1)),
        RegError::ReadOnly
    );
    // Configuration of an enabled pipe is refused.
    assert_eq!(
        refused(dev.write_checked(p1 + pipe::RING_BYTES.offset, 8192)),
        RegError::PipeEnabled
    );
    // Head beyond the tail (nothing received yet, so any other head is beyond).
    assert_eq!(
        refused(dev.write_checked(p1 + pipe::HEAD.offset, 5)),
        RegError::HeadBeyondTail
    );
    assert_eq!(
        refused(dev.write_checked(p1 + pipe::HEAD.offset, 1 << 20)),
        RegError::HeadBeyondTail
    );
    // Disabled pipe: ring size and alignment checks.
    let p3 = pipe_page(3);
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::CTRL.offset, 1)),
        RegError::BadRingSize
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::RING_BYTES.offset, 12288)),
        RegError::BadRingSize
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::RING_BYTES.offset, 2048)),
        RegError::BadRingSize
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::RING_BYTES.offset, 4 << 20)),
        RegError::BadRingSize
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::RING_BASE_LO.offset, 0x1020)),
        RegError::Misaligned
    );
    // Notification buffer 3 (on pipe 3's page) is off: its checks.
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::NBUF_BASE_LO.offset, 0x1004)),
        RegError::Misaligned
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::NBUF_BYTES.offset, 12288)),
        RegError::BadRingSize
    );
    assert_eq!(
        refused(dev.write_checked(p3 + pipe::NBUF_CTRL.offset, pipe::NBUF_CTRL_ON)),
        RegError::BadRingSize,
        "switched on without a size"
    );
    // Buffer 0 is on (pipe 0 uses it): its base and size stay put.
    assert_eq!(
        refused(dev.write_checked(pipe_page(0) + pipe::NBUF_BASE_LO.offset, 0x1000)),
        RegError::PipeEnabled
    );
    assert_eq!(
        refused(dev.write_checked(pipe_page(0) + pipe::NBUF_BYTES.offset, 8192)),
        RegError::PipeEnabled
    );
    dev.write_checked(p3 + pipe::RING_BYTES.offset, 8192)
        .unwrap();
    assert_eq!(dev.read(p3 + pipe::RING_BYTES.offset).unwrap(), 8192);
    // With a ring, pipe 3 is still refused: its buffer is off.
    let e = dev
        .write_checked(p3 + pipe::CTRL.offset, pipe::CTRL_ENABLE)
        .unwrap_err();
    assert!(e.to_string().contains("notification buffer"), "{e}");
    assert_eq!(refused(Err(e)), RegError::NotifBufOff);
    assert_eq!(dev.read(p3 + pipe::CTRL.offset).unwrap(), 0);
    let c = dev.counters().unwrap();
    assert_eq!(c.reg_errors, 19);
    let (addr, cause) = dev.last_reg_error().unwrap();
    assert_eq!(
        (addr, RegError::from_code(cause)),
        (p3 + pipe::CTRL.offset, Some(RegError::NotifBufOff))
    );
    // Unknown reads answer all ones; the scratch register reads back.
    assert_eq!(dev.read(0x7F0).unwrap(), u32::MAX);
    dev.write_checked(global::SCRATCH.offset, 0xA5A5_0001)
        .unwrap();
    assert_eq!(dev.read(global::SCRATCH.offset).unwrap(), 0xA5A5_0001);
    // And frames still flow.
    let mut exp = Expected::default();
    send(&mut dev, &mut exp, random_frames(6, 200, 60, 1500, 2));
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
    assert_eq!(dev.counters().unwrap().reg_errors, 19);
}

#[test]
fn frames_over_the_mtu_are_dropped_alone_and_frames_whatever_their_headers_say_arrive() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 1, 64 * 1024);
    let mut g = FrameGen::new(7);
    let mut exp: Expected = vec![Default::default()];
    // The ring's LEN is the MAC's length: headers that disagree with it no
    // longer matter (v1 dropped these), nor does the EtherType.
    let mut odd = Vec::new();
    let mut f = g.frame(100, 0);
    f[12] = 0x88; // an EtherType without a length rule
    odd.push(f);
    let mut f = g.frame(300, 0);
    f.truncate(250); // shorter than its IPv4 header says
    odd.push(f);
    let mut f = g.frame(300, 0);
    f.extend_from_slice(&[0u8; 70]); // longer than its header says
    odd.push(f);
    let mut f = g.frame(200, 0);
    f[16..18].copy_from_slice(&60000u16.to_be_bytes()); // a length over the MTU
    odd.push(f);
    for (i, o) in odd.into_iter().enumerate() {
        // Each odd frame, then one over the MTU (dropped alone), then a good one.
        let mut over = g.frame(9000, 0);
        over.resize(MAX_FRAME_BYTES as usize + 1 + 100 * i, 0x33);
        let good = g.frame(64 + 64 * i, 0);
        exp[0].push_back(o.clone());
        exp[0].push_back(good.clone());
        dev.card_mut().sim.eth.push(o);
        dev.card_mut().sim.eth.push(over);
        dev.card_mut().sim.eth.push(good);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drop_malformed, c.drop_ring_full), (8, 4, 0));
}

#[test]
fn short_frames_arrive_as_the_mac_padded_them() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 1, 4096);
    let mut g = FrameGen::new(8);
    let mut exp: Expected = vec![Default::default()];
    for len in [42, 50, 59] {
        let mut padded = g.frame(len, 0);
        pendulum_testbench::models::pad_to_min(&mut padded);
        exp[0].push_back(padded.clone());
        dev.card_mut().sim.eth.push(padded);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
}

#[test]
fn frames_for_a_disabled_pipe_are_dropped_and_counted() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 1, 4096);
    let mut g = FrameGen::new(9);
    let mut exp: Expected = vec![Default::default()];
    for i in 0..20 {
        let f = g.frame(80, i % 2);
        if i % 2 == 0 {
            exp[0].push_back(f.clone());
        }
        dev.card_mut().sim.eth.push(f);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(dev.counters().unwrap().drop_pipe_off, 10);
}

#[test]
fn per_packet_notifications_deliver_the_same_frames_with_more_notifications() {
    let frames = random_frames(10, 400, 60, 600, 2);
    let mut notifs = Vec::new();
    for per_packet in [false, true] {
        let mut dev = open();
        dev.set_per_packet_notifications(per_packet).unwrap();
        let mut pipes = open_pipes(&mut dev, 2, 256 * 1024);
        let mut exp = Expected::default();
        send(&mut dev, &mut exp, frames.clone());
        // Let everything land before the host looks, so reactive mode can batch.
        assert!(dev.card_mut().sim.drain(1_000_000));
        receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
        notifs.push(dev.counters().unwrap().notifications);
    }
    assert!(
        notifs[1] > 4 * notifs[0],
        "per-packet {} vs reactive {}",
        notifs[1],
        notifs[0]
    );
}

#[test]
fn one_hundred_thousand_seeded_frames_checked_one_by_one() {
    let mut dev = open();
    let mut pipes = open_pipes(&mut dev, 4, 256 * 1024);
    let mut exp = Expected::default();
    send(
        &mut dev,
        &mut exp,
        random_frames(2026, 100_000, 60, 1518, 4),
    );
    let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 200_000_000).unwrap();
    assert_eq!(rep.frames, 100_000);
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (100_000, 0));
    assert_eq!(c.rx_bytes, rep.bytes);
    assert_eq!(dev.card().sim.pcie.counters().tlp_errors, 0);
}

#[test]
fn line_rate_pacing_is_honoured() {
    let cfg = SimConfig {
        pacing: Pacing::LineRate {
            gbps: 100.0,
            clock_mhz: 250.0,
        },
        ..SimConfig::default()
    };
    let mut dev = Device::open(SimCard::new(cfg)).unwrap();
    let mut pipes = open_pipes(&mut dev, 1, 65536);
    let mut exp = Expected::default();
    let mut g = FrameGen::new(11);
    send(
        &mut dev,
        &mut exp,
        (0..1000).map(|_| (g.frame(1518, 0), 0)).collect(),
    );
    let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 1_000_000).unwrap();
    // 1000 frames of 1538 wire bytes at 50 bytes/cycle take at least 30,760 cycles.
    assert!(rep.cycles >= 30_000, "{} cycles", rep.cycles);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn any_frame_sequence_arrives_intact(spec in prop::collection::vec((60usize..1519, 0usize..4), 1..80), ring_log2 in 14u32..17) {
        let mut dev = open_paced(10.0);
        let mut pipes = open_pipes(&mut dev, 4, 1 << ring_log2);
        let mut g = FrameGen::new(spec.len() as u64);
        let frames = spec.iter().map(|&(len, p)| (g.frame(len, p), p)).collect();
        let mut exp = Expected::default();
        send(&mut dev, &mut exp, frames);
        exp.resize(4, Default::default());
        let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 20_000_000);
        prop_assert!(rep.is_ok(), "{:?}", rep.err());
        prop_assert_eq!(dev.counters().unwrap().drops(), 0);
    }
}

#[test]
fn relax_advances_simulated_time() {
    let mut card = SimCard::new(SimConfig::default());
    let before = card.sim.cycle();
    card.relax();
    assert!(card.sim.cycle() > before);
}

/// A ring whose base is 64-byte aligned but not 4 KiB (or 256-byte)
/// aligned, as the register file allows: ring writes still end at each
/// 256-byte block of the host address, so none crosses a 4 KiB boundary
/// (the PCIe model counts either as a TLP error), and the frames land intact.
#[test]
fn ring_writes_off_a_4k_aligned_base_never_cross_a_4k_boundary() {
    let mut dev = open();
    // Opened through the driver for its notification buffer, then moved by
    // hand 31 lines (64 bytes) into its 8 KiB region, as a 4 KiB ring.
    let rx = dev.open_rx_pipe(0, 8192).unwrap();
    let region = *rx.ring_region();
    let skew = 31 * 64;
    let (base, ring_bytes) = (region.iova + skew as u64, 4096usize);
    let page = pipe_page(0);
    for (reg, v) in [
        (pipe::CTRL, 0),
        (pipe::RING_BASE_LO, base as u32),
        (pipe::RING_BASE_HI, (base >> 32) as u32),
        (pipe::RING_BYTES, ring_bytes as u32),
        (pipe::CTRL, pipe::CTRL_ENABLE),
    ] {
        dev.write_checked(page + reg.offset, v).unwrap();
    }
    // 171 of the ring's 256 units, over the boundary at unit 132.
    let mut g = FrameGen::new(42);
    let frames: Vec<Vec<u8>> = [60, 1500, 64, 700, 333]
        .iter()
        .map(|&l| g.frame(l, 0))
        .collect();
    for f in &frames {
        dev.card_mut().sim.eth.push(f.clone());
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let pcie = dev.card().sim.pcie.counters();
    assert_eq!((pcie.tlp_errors, pcie.stray_writes), (0, 0));
    let ring = &dev.card().dma(&region).to_vec()[skew..skew + ring_bytes];
    let mut unit = 0;
    for (i, f) in frames.iter().enumerate() {
        let at = 16 * unit + 16;
        assert!(
            ring[at..at + f.len()] == f[..],
            "frame {i} not intact at unit {unit}"
        );
        unit += pendulum_layout::ring::entry_units(f.len() as u32) as usize;
    }
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (5, 0));
}

/// RX_OVERFLOW_DROPS reads the count on the core's `eth_rx_overflow_drops`
/// port, which a board's RX clock crossing drives (the simulated MAC is never
/// refused, so it stays 0 unless the test sets it).
#[test]
fn rx_overflow_drops_reads_the_count_from_the_rx_crossing() {
    let mut dev = open();
    assert_eq!(dev.counters().unwrap().rx_overflow_drops, 0);
    dev.card_mut().sim.rx_overflow_drops = 0xFFFF_FFFE;
    let c = dev.counters().unwrap();
    assert_eq!(
        (c.rx_overflow_drops, c.drops(), c.reg_errors),
        (0xFFFF_FFFE, 0, 0)
    );
}

#[test]
fn a_dropped_pipe_is_switched_off_and_its_frames_are_dropped_and_counted() {
    let mut dev = open();
    // Every frame to pipe 0.
    dev.set_fallback_pipes(0, 1).unwrap();
    dev.set_default_pipe(0).unwrap();
    let mut g = FrameGen::new(7);
    drop(dev.open_rx_pipe(0, 4096).unwrap());
    // The Device's next call switches the pipe off.
    dev.check_card().unwrap();
    dev.card_mut().sim.eth.push(g.frame(100, 0));
    assert!(dev.card_mut().sim.drain(100_000));
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drop_pipe_off), (0, 1));
    // The index is free again, and the reopened pipe receives.
    let mut pipe = dev.open_rx_pipe(0, 4096).unwrap();
    let f = g.frame(100, 0);
    dev.card_mut().sim.eth.push(f.clone());
    assert!(pipe.wait(&mut dev, 10_000));
    let batch = pipe.recv(&dev);
    let got: Vec<Vec<u8>> = batch.iter().map(|r| r.unwrap().bytes.to_vec()).collect();
    assert_eq!(got, [f]);
}
