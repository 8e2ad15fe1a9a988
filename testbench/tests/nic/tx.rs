//! TX path tests on the Verilated NIC, driven through the real driver: what
//! software posts comes out of the Ethernet TX port byte for byte.

use pendulum_driver::{Card, Device, EntryHeader, Error, RegionKind, TxPipe};
use pendulum_layout::params::{DMA_BOUNDARY_BYTES, DMA_READ_MAX_BYTES, MAX_FRAME_BYTES, TX_PIPES};
use pendulum_layout::ring::{entry_units, UNIT_BYTES};
use pendulum_layout::{pipe, pipe_page, tx_compl, RegError, BEAT_BYTES};
use pendulum_testbench::echo::echo_in_place;
use pendulum_testbench::models::{FrameGen, Pacing};
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

fn open() -> Device<SimCard> {
    Device::open(SimCard::new(SimConfig::default())).expect("open simulated card")
}

/// Sends every frame, waiting for room when the ring is full; returns when
/// the NIC has finished with all of them.
fn send_all(dev: &mut Device<SimCard>, tx: &mut TxPipe, frames: &[Vec<u8>]) {
    let mut next = 0;
    let mut stalls = 0;
    while next < frames.len() {
        let batch: Vec<&[u8]> = frames[next..]
            .iter()
            .take(32)
            .map(|f| f.as_slice())
            .collect();
        let n = tx.send(dev, &batch).expect("send");
        next += n;
        if n == 0 {
            dev.card_mut().relax();
            stalls += 1;
            assert!(stalls < 1_000_000, "TX ring never drained");
        }
    }
    assert!(tx.wait_idle(dev, 1_000_000), "TX did not finish");
    assert!(dev.card_mut().sim.drain(100_000));
    let c = dev.card().sim.pcie.counters();
    assert_eq!(
        (c.read_page_crossings, c.read_errors),
        (0, 0),
        "DMA reads across a 4 KiB boundary, or refused"
    );
}

#[test]
fn random_frame_mix_goes_out_byte_for_byte_and_in_order() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let mut g = FrameGen::new(21);
    let frames: Vec<Vec<u8>> = (0..600)
        .map(|_| {
            let len = g.random_len(60, 9600);
            g.frame(len, 0)
        })
        .collect();
    send_all(&mut dev, &mut tx, &frames);
    let out = dev.card_mut().sim.eth_tx.take_frames();
    assert_eq!(out.len(), frames.len());
    for (i, (a, b)) in out.iter().zip(&frames).enumerate() {
        assert!(
            a == b,
            "frame {i}: sent {} bytes, the wire saw {}",
            b.len(),
            a.len()
        );
    }
    let c = dev.counters().unwrap();
    assert_eq!(c.tx_frames, 600);
    assert_eq!(
        c.tx_bytes,
        frames.iter().map(|f| f.len() as u64).sum::<u64>()
    );
    assert_eq!(dev.card().sim.eth_tx.protocol_errors(), 0);
}

#[test]
fn several_tx_pipes_keep_each_pipes_order() {
    let mut dev = open();
    let mut pipes: Vec<TxPipe> = (0..4)
        .map(|p| dev.open_tx_pipe(p, 16 * 1024).unwrap())
        .collect();
    let mut g = FrameGen::new(22);
    let mut sent: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 4];
    for round in 0..40 {
        for (p, tx) in pipes.iter_mut().enumerate() {
            let frames: Vec<Vec<u8>> = (0..1 + (round + p) % 3)
                .map(|_| {
                    let len = g.random_len(60, 1500);
                    g.frame(len, p)
                })
                .collect();
            let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
            let n = tx.send(&mut dev, &refs).unwrap();
            sent[p].extend(frames.into_iter().take(n));
        }
        dev.card_mut().sim.run(200);
    }
    for tx in pipes.iter_mut() {
        assert!(tx.wait_idle(&mut dev, 1_000_000));
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let out = dev.card_mut().sim.eth_tx.take_frames();
    let mut per_pipe: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 4];
    for f in out {
        per_pipe[(f[5] & 3) as usize].push(f);
    }
    assert_eq!(per_pipe, sent);
}

#[test]
fn every_tx_pipe_sends_its_frames_in_order_with_its_own_counters() {
    // One TX pipe per notification buffer (TX_PIPES of them), all rung in
    // the same rounds: every frame goes out once, byte for byte, each pipe's
    // in its order, and each pipe's TX_FRAMES and TX_HEAD are its own.
    let mut dev = open();
    assert_eq!(dev.tx_pipes(), TX_PIPES);
    let mut pipes: Vec<TxPipe> = (0..TX_PIPES)
        .map(|p| dev.open_tx_pipe(p, 4096).unwrap())
        .collect();
    let mut g = FrameGen::new(23);
    let mut sent: Vec<Vec<Vec<u8>>> = vec![Vec::new(); TX_PIPES];
    for round in 0..6 {
        // Rung from the highest pipe down in odd rounds, so the engine's
        // order is the doorbells', not the pipes' numbers.
        let order: Vec<usize> = if round % 2 == 1 {
            (0..TX_PIPES).rev().collect()
        } else {
            (0..TX_PIPES).collect()
        };
        for &p in &order {
            let frames: Vec<Vec<u8>> = (0..1 + (round + p) % 3)
                .map(|_| {
                    let len = g.random_len(60, 600);
                    g.frame(len, p)
                })
                .collect();
            let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
            let n = pipes[p].send(&mut dev, &refs).unwrap();
            sent[p].extend(frames.into_iter().take(n));
        }
        dev.card_mut().sim.run(300);
    }
    for tx in pipes.iter_mut() {
        assert!(tx.wait_idle(&mut dev, 1_000_000));
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let out = dev.card_mut().sim.eth_tx.take_frames();
    let mut per_pipe: Vec<Vec<Vec<u8>>> = vec![Vec::new(); TX_PIPES];
    for f in out {
        let p = (f[4] as usize) << 8 | f[5] as usize;
        assert!(p < TX_PIPES, "a frame from no TX pipe: {p}");
        per_pipe[p].push(f);
    }
    for p in 0..TX_PIPES {
        assert!(
            per_pipe[p] == sent[p],
            "TX pipe {p}: frames lost, repeated or reordered"
        );
        let page = pipe_page(p);
        let frames = dev.read(page + pipe::TX_FRAMES.offset).unwrap();
        assert_eq!(frames as usize, sent[p].len(), "TX_FRAMES of pipe {p}");
        let tail = dev.read(page + pipe::TX_TAIL.offset).unwrap();
        let head = dev.read(page + pipe::TX_HEAD.offset).unwrap();
        assert_eq!(head, tail, "TX_HEAD of pipe {p} once it is idle");
    }
}

#[test]
fn the_tx_engine_serves_pipes_in_the_order_they_were_rung() {
    // Pipes rung 63, 5, 40, 0 (one frame each, before the engine has sent
    // anything) go out in that order: the engine queues doorbells, it does
    // not visit pipes by number.
    let mut dev = open();
    let order = [TX_PIPES - 1, 5, 40, 0];
    let mut pipes: Vec<(usize, TxPipe)> = order
        .iter()
        .map(|&p| (p, dev.open_tx_pipe(p, 4096).unwrap()))
        .collect();
    let mut g = FrameGen::new(24);
    for (p, tx) in pipes.iter_mut() {
        let f = g.frame(1000, *p);
        assert_eq!(tx.send(&mut dev, &[f.as_slice()]).unwrap(), 1);
    }
    for (_, tx) in pipes.iter_mut() {
        assert!(tx.wait_idle(&mut dev, 1_000_000));
    }
    assert!(dev.card_mut().sim.drain(100_000));
    let out: Vec<usize> = dev
        .card_mut()
        .sim
        .eth_tx
        .take_frames()
        .iter()
        .map(|f| (f[4] as usize) << 8 | f[5] as usize)
        .collect();
    assert_eq!(out, order);
}

#[test]
fn a_tx_pipe_switched_off_and_on_starts_over_at_slot_0() {
    // Pipe 50 sends, is switched off and on again: its head and tail read
    // 0, and what it sends next (from slot 0) goes out whole.
    let mut dev = open();
    let p = 50;
    let mut tx = dev.open_tx_pipe(p, 4096).unwrap();
    let mut g = FrameGen::new(25);
    let first: Vec<Vec<u8>> = (0..5).map(|_| g.frame(300, p)).collect();
    send_all(&mut dev, &mut tx, &first);
    let page = pipe_page(p);
    assert_ne!(dev.read(page + pipe::TX_HEAD.offset).unwrap(), 0);
    dev.close_tx_pipe(tx).unwrap();
    assert_eq!(dev.read(page + pipe::TX_HEAD.offset).unwrap(), 0);
    assert_eq!(dev.read(page + pipe::TX_TAIL.offset).unwrap(), 0);
    let mut tx = dev.open_tx_pipe(p, 4096).unwrap();
    let second: Vec<Vec<u8>> = (0..7).map(|_| g.frame(200, p)).collect();
    send_all(&mut dev, &mut tx, &second);
    let out = dev.card_mut().sim.eth_tx.take_frames();
    let expected: Vec<Vec<u8>> = first.into_iter().chain(second).collect();
    assert!(
        out == expected,
        "frames lost, repeated or cut across the switch"
    );
}

/// Posts raw bytes and waits until the NIC has dealt with them.
fn post_raw(dev: &mut Device<SimCard>, tx: &mut TxPipe, bytes: &[u8]) {
    tx.send_raw(dev, bytes).unwrap();
    assert!(tx.wait_idle(dev, 100_000));
}

/// A ring entry (`pendulum_layout::ring`) whose header says `len`, holding
/// `bytes` padded to whole units, whatever `len` says.
fn entry_with_len(bytes: &[u8], len: u16) -> Vec<u8> {
    let h = EntryHeader {
        len,
        ..EntryHeader::default()
    };
    let mut e = h.to_bytes().to_vec();
    e.extend_from_slice(bytes);
    e.resize(e.len().next_multiple_of(UNIT_BYTES), 0);
    e
}

#[test]
fn malformed_tx_entries_are_dropped_counted_and_the_engine_goes_on() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(1, 16 * 1024).unwrap();
    let mut g = FrameGen::new(23);
    let good: Vec<Vec<u8>> = (0..4).map(|i| g.frame(100 + 200 * i, 1)).collect();
    // Each bad entry gets a doorbell of its own and is finished before the
    // next is posted.
    // 1: LEN 0 (a header alone).
    post_raw(&mut dev, &mut tx, &entry_with_len(&[], 0));
    tx.send(&mut dev, &[&good[0]]).unwrap();
    // 2: a LEN that claims more bytes than were posted (past the tail rung).
    let f = g.frame(200, 1);
    assert!(tx.wait_idle(&mut dev, 100_000));
    post_raw(&mut dev, &mut tx, &entry_with_len(&f, 300));
    tx.send(&mut dev, &[&good[1]]).unwrap();
    // 3: over the MTU, its bytes posted.
    let f = vec![0x5Au8; MAX_FRAME_BYTES as usize + 1];
    assert!(tx.wait_idle(&mut dev, 100_000));
    post_raw(&mut dev, &mut tx, &entry_with_len(&f, f.len() as u16));
    tx.send(&mut dev, &[&good[2]]).unwrap();
    // 4: a good entry and garbage after it in the same doorbell: the frame
    // goes; the garbage's first unit, read as a header, says 0xEEEE bytes.
    let mut both = entry_with_len(&good[3], good[3].len() as u16);
    both.extend_from_slice(&[0xEE; 128]);
    assert!(tx.wait_idle(&mut dev, 100_000));
    tx.send_raw(&mut dev, &both).unwrap();
    assert!(tx.wait_idle(&mut dev, 1_000_000));
    assert!(dev.card_mut().sim.drain(100_000));
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), good);
    let c = dev.counters().unwrap();
    assert_eq!((c.tx_frames, c.tx_drop_malformed), (4, 4));
    assert_eq!(dev.read(pipe_page(1) + pipe::TX_DROPS.offset).unwrap(), 4);
}

#[test]
fn a_full_tx_ring_takes_what_fits_and_the_rest_after_completions() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(2, 4096).unwrap();
    let mut g = FrameGen::new(24);
    let frames: Vec<Vec<u8>> = (0..20).map(|_| g.frame(1000, 2)).collect(); // 64 units each
    let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
    // 256 units, one kept empty: three 64-unit entries fit.
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 3);
    send_all(&mut dev, &mut tx, &frames[3..]);
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), frames);
}

#[test]
fn a_doorbell_past_the_tx_head_is_refused() {
    let mut dev = open();
    let _tx = dev.open_tx_pipe(0, 4096).unwrap();
    let tail = pipe_page(0) + pipe::TX_TAIL.offset;
    // Nothing sent yet: 255 units may be posted, not 256 (that would look empty).
    match dev.write_checked(tail, 256) {
        Err(Error::RegisterRefused { cause, .. }) => assert_eq!(cause, RegError::TailBeyondHead),
        other => panic!("{other:?}"),
    }
    match dev.write_checked(pipe_page(3) + pipe::TX_TAIL.offset, 1) {
        Err(Error::RegisterRefused { cause, .. }) => assert_eq!(cause, RegError::TailBeyondHead),
        other => panic!("a doorbell on a disabled pipe must be refused: {other:?}"),
    }
    assert_eq!(dev.counters().unwrap().reg_errors, 2);
}

#[test]
fn tx_completion_record_carries_the_head_sequence_and_pipe() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(3, 8192).unwrap();
    let mut g = FrameGen::new(25);
    let frames = [g.frame(64, 3), g.frame(100, 3), g.frame(200, 3)];
    let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 3);
    assert!(tx.wait_idle(&mut dev, 100_000));
    assert!(dev.card_mut().sim.drain(10_000));
    let lo = dev
        .read(pipe_page(3) + pipe::TX_COMPL_BASE_LO.offset)
        .unwrap() as u64;
    let hi = dev
        .read(pipe_page(3) + pipe::TX_COMPL_BASE_HI.offset)
        .unwrap() as u64;
    let rec = dev
        .card()
        .sim
        .mem
        .read(hi << 32 | lo, tx_compl::BYTES)
        .unwrap();
    // Entries of 5, 8 and 14 units.
    assert_eq!(tx_compl::HEAD.read(&rec), 5 + 8 + 14);
    assert!(tx_compl::SEQ.read(&rec) >= 1);
    assert_eq!(tx_compl::PIPE.read(&rec), 3);
    assert_eq!(dev.read(pipe_page(3) + pipe::TX_HEAD.offset).unwrap(), 27);
}

#[test]
fn tx_completions_are_coalesced_per_64_units_and_at_the_tail() {
    let mut dev = open();
    let mut tx = dev.open_tx_pipe(1, 8192).unwrap();
    let mut g = FrameGen::new(26);
    // 35 entries of 5 units in one doorbell: the head crosses units 64 and
    // 128 and stops at the tail (175), so three records, not thirty-five.
    // (A tail a cycle or two after a crossing shares its record: the
    // writer's record for a pipe carries the newest head when it is written.)
    let frames: Vec<Vec<u8>> = (0..35).map(|_| g.frame(64, 1)).collect();
    let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
    let before = dev.counters().unwrap().tx_completions;
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), 35);
    assert!(
        tx.wait_idle(&mut dev, 100_000),
        "the record at the tail never came"
    );
    assert!(dev.card_mut().sim.drain(10_000));
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), frames);
    let records = dev.counters().unwrap().tx_completions - before;
    assert_eq!(
        records, 3,
        "one record per 64-unit block crossed and one at the tail"
    );
    // Three more frames that stay inside the block still end in a record.
    assert_eq!(tx.send(&mut dev, &refs[..3]).unwrap(), 3);
    assert!(
        tx.wait_idle(&mut dev, 100_000),
        "the record at the tail never came"
    );
    assert_eq!(dev.counters().unwrap().tx_completions - before, 4);
    assert_eq!(dev.read(pipe_page(1) + pipe::TX_HEAD.offset).unwrap(), 190);
}

#[test]
fn echo_what_arrives_goes_back_out_unchanged() {
    let cfg = SimConfig {
        pacing: Pacing::LineRate {
            gbps: 50.0,
            clock_mhz: 250.0,
        },
        ..SimConfig::default()
    };
    let mut dev = Device::open(SimCard::new(cfg)).unwrap();
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let mut g = FrameGen::new(26);
    let frames: Vec<Vec<u8>> = (0..500)
        .map(|_| {
            let len = g.random_len(60, 1500);
            g.frame(len, 0)
        })
        .collect();
    for f in &frames {
        dev.card_mut().sim.eth.push(f.clone());
    }
    let mut echoed = 0;
    let mut polls = 0u64;
    while echoed < frames.len() {
        polls += 1;
        if polls >= 2_000_000 {
            let c = dev.counters().unwrap();
            panic!(
                "echo stalled at {echoed}: {c:?} eth queued {}",
                dev.card().sim.eth.queued_frames()
            );
        }
        let (copies, end) = {
            let batch = rx.recv(&dev);
            if batch.is_empty() {
                (Vec::new(), None)
            } else {
                let v: Vec<Vec<u8>> = batch.iter().map(|f| f.unwrap().bytes.to_vec()).collect();
                (v, Some(batch.end_unit()))
            }
        };
        let Some(end) = end else {
            dev.card_mut().relax();
            continue;
        };
        let refs: Vec<&[u8]> = copies.iter().map(|f| f.as_slice()).collect();
        let mut sent = 0;
        while sent < refs.len() {
            let n = tx.send(&mut dev, &refs[sent..]).unwrap();
            sent += n;
            if n == 0 {
                dev.card_mut().relax();
            }
        }
        echoed += copies.len();
        rx.free(&mut dev, end).unwrap();
    }
    assert!(tx.wait_idle(&mut dev, 1_000_000));
    assert!(dev.card_mut().sim.drain(100_000));
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), frames);
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.tx_frames, c.drops()), (500, 500, 0));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn any_tx_frame_sequence_goes_out_unchanged(lens in prop::collection::vec(42usize..3000, 1..40), ring_log2 in 12u32..16) {
        let mut dev = open();
        let mut tx = dev.open_tx_pipe(0, 1 << ring_log2).unwrap();
        let mut g = FrameGen::new(lens.len() as u64);
        let frames: Vec<Vec<u8>> = lens.iter().map(|&l| g.frame(l, 0)).collect();
        send_all(&mut dev, &mut tx, &frames);
        prop_assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), frames);
    }
}

/// Zero copy (Ensō-style echo): a TX pipe opened over an RX pipe's ring sends
/// frames from where they landed. The ring is small, so it wraps many times
/// and fills while TX still holds its slots: every frame the RX engine took
/// comes out byte for byte and in order, the rest are counted drops, and
/// copying into that ring is refused.
#[test]
fn zero_copy_echo_sends_received_frames_out_of_the_rx_ring() {
    let mut dev = open();
    let mut rx = dev.open_rx_pipe(0, 16 * 1024).unwrap();
    let mut tx = dev.open_tx_pipe_over(1, &rx).unwrap();
    let refused = tx.send(&mut dev, &[&[0u8; 60][..]]);
    assert!(
        matches!(refused, Err(Error::TxOverRx { pipe: 1, rx: 0 })),
        "{refused:?}"
    );
    let beyond = tx.send_through(&mut dev, &rx, 5);
    assert!(
        matches!(beyond, Err(Error::BadSendThrough { end: 5, .. })),
        "{beyond:?}"
    );

    let mut g = FrameGen::new(33);
    let frames: Vec<Vec<u8>> = (0..400)
        .map(|_| {
            let len = g.random_len(60, 1518);
            g.frame(len, 0)
        })
        .collect();
    let ring_units = rx.ring_units() as usize;
    let total_units: usize = frames
        .iter()
        .map(|f| entry_units(f.len() as u32) as usize)
        .sum();
    assert!(
        total_units > 10 * ring_units,
        "the ring must wrap many times"
    );
    for f in &frames {
        dev.card_mut().sim.eth.push(f.clone());
    }
    let mut posted = 0;
    let mut idle = 0;
    while idle < 20_000 {
        let n = echo_in_place(&mut dev, &mut rx, &mut tx).unwrap();
        posted += n;
        if n == 0 {
            dev.card_mut().relax();
            idle += 1;
        } else {
            idle = 0;
        }
    }
    assert!(tx.wait_idle(&mut dev, 1_000_000), "TX did not finish");
    assert!(dev.card_mut().sim.drain(100_000));
    let out = dev.card_mut().sim.eth_tx.take_frames();
    let c = dev.counters().unwrap();
    assert_eq!(out.len(), posted, "every frame posted went out");
    assert_eq!(
        out.len() as u64 + c.drop_ring_full,
        frames.len() as u64,
        "every frame is echoed or counted as a drop"
    );
    // Unpaced arrivals overrun this small ring: both paths were taken.
    assert!(c.drop_ring_full > 0, "the ring never filled");
    assert!(
        out.len() >= 100,
        "only {} of {} echoed",
        out.len(),
        frames.len()
    );
    // In order and unchanged: what came out is the sent sequence minus the drops.
    let mut next = frames.iter();
    for (i, o) in out.iter().enumerate() {
        assert!(
            next.any(|f| f == o),
            "echoed frame {i} ({} bytes) is not the next frame sent, or was changed",
            o.len()
        );
    }
    assert_eq!(c.tx_frames, out.len() as u64);
    assert_eq!(c.tx_drop_malformed, 0);
}

/// The reads a run of the fetcher from unit `from` up to unit `to` of a ring
/// of `ring_units` at `base` should take: the 64-byte lines that hold those
/// units, each read as long as it may be, and never past the run's last
/// line, the ring's end, or a 4 KiB boundary of its address.
fn expected_reads(base: u64, ring_units: u32, from: u32, to: u32) -> Vec<(u64, u32)> {
    let beat = BEAT_BYTES as u64;
    let boundary = DMA_BOUNDARY_BYTES as u64;
    let per_line = (BEAT_BYTES / UNIT_BYTES) as u32;
    let ring_lines = ring_units / per_line;
    let units = (to + ring_units - from) % ring_units;
    if units == 0 {
        return Vec::new();
    }
    let first = from / per_line;
    let last = ((from + units - 1) % ring_units) / per_line;
    let (mut pos, mut left) = (first, (last + ring_lines - first) % ring_lines + 1);
    let mut reads = Vec::new();
    while left > 0 {
        let addr = base + pos as u64 * beat;
        let to_page = ((boundary - addr % boundary) / beat) as u32;
        let n = left
            .min(ring_lines - pos)
            .min(to_page)
            .min(DMA_READ_MAX_BYTES / BEAT_BYTES as u32);
        reads.push((addr, n * BEAT_BYTES as u32));
        pos = (pos + n) % ring_lines;
        left -= n;
    }
    reads
}

/// Every read in `reads` stays inside one 4 KiB page, and they are the reads
/// `expected` lists (so splitting cost no more requests than the boundaries
/// force).
fn check_reads(reads: &[(u64, u32)], expected: &[(u64, u32)], what: &str) {
    let boundary = DMA_BOUNDARY_BYTES as u64;
    for &(addr, len) in reads {
        assert!(
            len > 0 && addr / boundary == (addr + len as u64 - 1) / boundary,
            "{what}: a DMA read of {len} bytes at {addr:#x} crosses a 4 KiB boundary"
        );
    }
    assert_eq!(reads, expected, "{what}: the DMA reads the run took");
}

fn tx_ring_base(dev: &mut Device<SimCard>, p: usize) -> u64 {
    let lo = dev
        .read(pipe_page(p) + pipe::TX_RING_BASE_LO.offset)
        .unwrap() as u64;
    let hi = dev
        .read(pipe_page(p) + pipe::TX_RING_BASE_HI.offset)
        .unwrap() as u64;
    hi << 32 | lo
}

#[test]
fn tx_reads_from_offset_4032_split_at_each_4k_page_and_frames_stay_intact() {
    let mut dev = open();
    let ring_bytes = 64 * 1024;
    let mut tx = dev.open_tx_pipe(0, ring_bytes).unwrap();
    let units = tx.ring_units();
    let base = tx_ring_base(&mut dev, 0);
    let mut g = FrameGen::new(40);
    // 48 entries of 64-byte frames (5 units each) and one of 176 bytes (12
    // units): the next post starts at unit 252, offset 4032, one line
    // before the ring's first 4 KiB boundary.
    let mut fill: Vec<Vec<u8>> = (0..48).map(|_| g.frame(64, 0)).collect();
    fill.push(g.frame(176, 0));
    send_all(&mut dev, &mut tx, &fill);
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), fill);
    assert_eq!(tx.tail(), 252);
    dev.card_mut().sim.pcie.log_reads();
    // One doorbell each: a run over several pages with frames of every size,
    // then single frames from wherever the last ended, then runs that wrap
    // the ring.
    let mut rounds: Vec<Vec<usize>> = vec![vec![60, 1500, 9000, 64, 4000, 1518, 333, 9600]];
    for len in [100, 2000, 64, 512, 576, 9000, 700, 4097, 128, 1000] {
        rounds.push(vec![len]);
    }
    for k in 0..6 {
        rounds.push((0..12).map(|i| 60 + (i * 977 + k * 311) % 3000).collect());
    }
    let mut pages_crossed = 0;
    for (r, lens) in rounds.iter().enumerate() {
        let frames: Vec<Vec<u8>> = lens.iter().map(|&l| g.frame(l, 0)).collect();
        let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
        let from = tx.tail();
        assert_eq!(tx.send(&mut dev, &refs).unwrap(), frames.len());
        assert!(
            tx.wait_idle(&mut dev, 1_000_000),
            "round {r}: TX did not finish"
        );
        assert!(dev.card_mut().sim.drain(100_000));
        let reads = dev.card_mut().sim.pcie.take_read_log();
        let expected = expected_reads(base, units, from, tx.tail());
        check_reads(
            &reads,
            &expected,
            &format!("round {r} (units {from}..{})", tx.tail()),
        );
        let out = dev.card_mut().sim.eth_tx.take_frames();
        assert!(out == frames, "round {r}: the frames did not go out intact");
        pages_crossed += expected
            .windows(2)
            .filter(|w| w[1].0 % DMA_BOUNDARY_BYTES as u64 == 0)
            .count();
    }
    assert!(
        pages_crossed >= 16,
        "only {pages_crossed} page boundaries crossed"
    );
    let c = dev.card().sim.pcie.counters();
    assert_eq!((c.read_page_crossings, c.read_errors), (0, 0));
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 0);
}

/// A TX ring whose base is 64-byte aligned but not 4 KiB aligned (the
/// register file allows it): its pages start mid-ring and its end is not a
/// page boundary. The pipe is set up by hand, without `TxPipe`, so the ring
/// can sit anywhere in a larger region.
#[test]
fn tx_ring_off_a_4k_boundary_reads_stay_in_pages_and_frames_stay_intact() {
    let mut dev = open();
    let p = 1;
    let page = pipe_page(p);
    let ring_bytes = 8192u32;
    let units = ring_bytes / UNIT_BYTES as u32;
    // 31 lines into a page: 33 lines to the first boundary, not a multiple
    // of a full read.
    let skew = 31 * BEAT_BYTES;
    let region = dev
        .card_mut()
        .alloc_dma(ring_bytes as usize + 4096, RegionKind::DataRing, false)
        .unwrap();
    let compl = dev
        .card_mut()
        .alloc_dma(tx_compl::BYTES, RegionKind::Notification, false)
        .unwrap();
    let base = region.iova + skew as u64;
    assert_ne!(base % DMA_BOUNDARY_BYTES as u64, 0);
    for (reg, value) in [
        (pipe::TX_CTRL, 0),
        (pipe::TX_RING_BASE_LO, base as u32),
        (pipe::TX_RING_BASE_HI, (base >> 32) as u32),
        (pipe::TX_RING_BYTES, ring_bytes),
        (pipe::TX_COMPL_BASE_LO, compl.iova as u32),
        (pipe::TX_COMPL_BASE_HI, (compl.iova >> 32) as u32),
        (pipe::TX_CTRL, pipe::CTRL_ENABLE),
    ] {
        dev.write_checked(page + reg.offset, value).unwrap();
    }
    dev.card_mut().sim.pcie.log_reads();
    let mut g = FrameGen::new(41);
    let mut tail = 0u32;
    let mut pages_crossed = 0;
    let mut wraps = 0;
    for r in 0..24 {
        // Up to 480 units a round (the ring holds 511), so each round runs
        // over one or two page boundaries and every other one wraps.
        let lens: Vec<usize> = match r % 4 {
            0 => vec![60, 1500, 64, 3000],
            1 => vec![4097, 1518, 200],
            2 => vec![64 * (r + 1), 6000 - 64 * r],
            _ => (0..20).map(|i| 60 + (i * 131 + r * 17) % 300).collect(),
        };
        let frames: Vec<Vec<u8>> = lens.iter().map(|&l| g.frame(l, p)).collect();
        let from = tail;
        {
            let mut ring = dev.card_mut().dma_mut(&region);
            for f in &frames {
                let entry = entry_with_len(f, f.len() as u16);
                for (k, chunk) in entry.chunks(UNIT_BYTES).enumerate() {
                    let at = ((tail as usize + k) % units as usize) * UNIT_BYTES;
                    ring.copy_from(skew + at, chunk).expect("inside the ring");
                }
                tail = (tail + entry_units(f.len() as u32)) % units;
            }
        }
        assert!(
            (tail + units - from) % units < units - 1,
            "round {r} overfills the ring"
        );
        wraps += (tail < from) as u32;
        dev.write_checked(page + pipe::TX_TAIL.offset, tail)
            .unwrap();
        let mut polls = 0;
        while dev.read(page + pipe::TX_HEAD.offset).unwrap() != tail {
            polls += 1;
            assert!(polls < 10_000, "round {r}: TX did not finish");
        }
        assert!(dev.card_mut().sim.drain(100_000));
        let reads = dev.card_mut().sim.pcie.take_read_log();
        let expected = expected_reads(base, units, from, tail);
        check_reads(
            &reads,
            &expected,
            &format!("round {r} (units {from}..{tail})"),
        );
        let out = dev.card_mut().sim.eth_tx.take_frames();
        assert!(out == frames, "round {r}: the frames did not go out intact");
        pages_crossed += expected
            .windows(2)
            .filter(|w| w[1].0 % DMA_BOUNDARY_BYTES as u64 == 0)
            .count();
    }
    assert!(
        wraps >= 6 && pages_crossed >= 12,
        "{wraps} wraps, {pages_crossed} page boundaries"
    );
    let c = dev.card().sim.pcie.counters();
    assert_eq!(
        (c.read_page_crossings, c.read_errors, c.stray_writes),
        (0, 0, 0)
    );
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 0);
}
