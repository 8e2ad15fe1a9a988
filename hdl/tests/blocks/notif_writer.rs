//! The notification writer alone, in rust-hdl's simulator: random tail
//! moves, re-arms and restarts on four of the pipes (spread over the index
//! range; two share a notification buffer), with the DMA port stalling and
//! software reading its buffers late at random, checked record by record
//! against what the block was told.

use crate::common;
use common::pick;
use pendulum_hdl::enso::RxNotifWriter as NotifWriter;

/// Cycles between driving an event and the writer acting on it.
const INPUT_DELAY: usize = 1;
use pendulum_layout::notif;
use pendulum_layout::params::{NOTIF_BUFS, PIPES};

/// Records per notification buffer here: few, so buffers fill.
const RECORDS: u64 = 4;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

/// What one run saw: per pipe, the tails reported in order (a restart
/// starts a new epoch), and the records written.
#[derive(Default)]
struct Log {
    /// (pipe, tail, epoch) of every move, in order.
    moves: Vec<(usize, u64, u32)>,
    /// (pipe, seq, tail, count, address).
    records: Vec<(usize, u64, u64, u64, u64)>,
    /// (buffer, head, cycle) of every head software wrote.
    heads: Vec<(usize, u64, usize)>,
    /// Cycle of each re-arm per pipe, and of each record formed per pipe.
    rearms: Vec<(usize, usize)>,
    /// Cycle of each record formed, in order (the records leave in that order).
    formed: Vec<usize>,
    /// At the end of each drain, per pipe: (pipe, last tail reported, tail
    /// of the last record).
    drained: Vec<(usize, u64, u64)>,
    /// Each pipe's epoch at the end.
    final_epoch: Vec<u32>,
}

/// Notification buffer b's address.
fn base(b: usize) -> u64 {
    0x1000_0000 + ((b as u64) << 16)
}

fn run(per_packet: bool, seed: u64, cycles: usize) -> Log {
    let mut uut = NotifWriter::new();
    uut.moved.connect();
    uut.moved_pipe.connect();
    uut.moved_tail.connect();
    uut.rearm.connect();
    uut.rearm_pipe.connect();
    uut.restart.connect();
    uut.restart_pipe.connect();
    uut.cfg.connect();
    uut.cfg_buf.connect();
    uut.cfg_on.connect();
    uut.cfg_base.connect();
    uut.cfg_mask.connect();
    uut.head.connect();
    uut.head_buf.connect();
    uut.head_count.connect();
    uut.per_packet.connect();
    uut.ahead.connect();
    uut.ahead_drain.connect();
    uut.m_dma.ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<NotifWriter>| x.clock.next = !x.clock.val());
    let log = Arc::new(Mutex::new(Log::default()));
    let out = log.clone();
    sim.add_testbench(move |mut sim: Sim<NotifWriter>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut tail = [0u64; PIPES];
        let mut epoch = [0u32; PIPES];
        wait_clock_false!(sim, clock, x);
        // Switch every buffer on, then every pipe.
        for b in 0..NOTIF_BUFS {
            x.cfg.next = true;
            x.cfg_buf.next = (b as u64).into();
            x.cfg_on.next = true;
            x.cfg_base.next = base(b).into();
            x.cfg_mask.next = (RECORDS - 1).into();
            x = sim.wait(1, x)?;
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        x.cfg.next = false;
        for p in 0..PIPES {
            x.restart.next = true;
            x.restart_pipe.next = (p as u64).into();
            x = sim.wait(1, x)?;
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        // Software's view of each buffer: the last COUNT it received, and
        // the last head it wrote.
        let mut got = [0u64; NOTIF_BUFS];
        let mut head_sent = [0u64; NOTIF_BUFS];
        // Then traffic in phases: 300 busy cycles, 150 to drain. Software
        // re-arms a pipe some cycles after each record of it arrives (as a
        // driver frees its batch), and now and then at random (a prefetch).
        let mut rearm_at: [Option<usize>; PIPES] = [None; PIPES];
        let mut unannounced: [Option<u64>; PIPES] = [None; PIPES];
        let mut last_rec_tail = [u64::MAX; PIPES];
        for cycle in 0..cycles {
            let busy = cycle % 450 < 300;
            let mv = busy && rng.gen_bool(0.6);
            let mp = pick(&mut rng);
            // Bursts on pipe 0 make a pipe come up while its record waits.
            let mp = if rng.gen_bool(0.5) { 0 } else { mp };
            if mv {
                tail[mp] = (tail[mp] + rng.gen_range(1..4)) & 0xffff;
            }
            x.moved.next = mv;
            x.moved_pipe.next = (mp as u64).into();
            x.moved_tail.next = tail[mp].into();
            let due = (0..PIPES).find(|&p| rearm_at[p].is_some_and(|c| c <= cycle));
            let (ra, rp) = match due {
                Some(p) => {
                    rearm_at[p] = None;
                    (true, p)
                }
                None => (busy && rng.gen_bool(0.02), pick(&mut rng)),
            };
            x.rearm.next = ra;
            x.rearm_pipe.next = (rp as u64).into();
            let rs = busy && rng.gen_bool(0.01);
            let sp = pick(&mut rng);
            x.restart.next = rs;
            x.restart_pipe.next = (sp as u64).into();
            // Software reads a buffer now and then, often while draining, and
            // says how far: buffers fill while it lags.
            let hb = pick(&mut rng) % NOTIF_BUFS;
            let hw = rng.gen_bool(if busy { 0.04 } else { 0.3 }) && got[hb] != head_sent[hb];
            x.head.next = hw;
            x.head_buf.next = (hb as u64).into();
            x.head_count.next = got[hb].into();
            if hw {
                head_sent[hb] = got[hb];
            }
            x.per_packet.next = per_packet;
            x.ahead.next = 0.into();
            x.ahead_drain.next = false;
            x.m_dma.ready.next = !busy || rng.gen_bool(0.4);
            x = sim.wait(1, x)?;
            {
                let mut l = out.lock().unwrap();
                if x.m_dma.valid.val() && x.m_dma.ready.val() {
                    let d = x.m_dma.data.val();
                    let mut rec = [0u8; 16];
                    for (k, b) in rec.iter_mut().enumerate() {
                        *b = d.data.get_bits::<8>(8 * k).index() as u8;
                    }
                    let p = notif::PIPE.read(&rec) as usize;
                    let count = notif::COUNT.read(&rec);
                    got[p % NOTIF_BUFS] = got[p % NOTIF_BUFS].max(count);
                    if p < PIPES {
                        last_rec_tail[p] = notif::TAIL.read(&rec);
                        if !per_packet {
                            rearm_at[p] = Some(cycle + rng.gen_range(1..40));
                        }
                    }
                    l.records.push((
                        p,
                        notif::SEQ.read(&rec),
                        notif::TAIL.read(&rec),
                        count,
                        (d.addr.get_bits::<32>(32).index() as u64) << 32
                            | d.addr.get_bits::<32>(0).index() as u64,
                    ));
                }
                if x.ev_notification.val() {
                    l.formed.push(cycle);
                }
                if hw {
                    l.heads.push((hb, got[hb], cycle + INPUT_DELAY));
                }
                if mv && !(rs && sp == mp) {
                    l.moves.push((mp, tail[mp], epoch[mp]));
                }
                if ra && !(rs && sp == rp) {
                    // Logged when the writer acts on it: it registers its inputs.
                    l.rearms.push((rp, cycle + INPUT_DELAY));
                }
            }
            // (Tails go on counting across a restart, so that each names
            // the epoch it was reported in.)
            if mv {
                unannounced[mp] = Some(tail[mp]);
            }
            if rs {
                epoch[sp] += 1;
                unannounced[sp] = None;
            }
            // At the end of each drain, every pipe's last move is announced.
            if cycle % 450 == 449 {
                let mut l = out.lock().unwrap();
                for p in 0..PIPES {
                    if let Some(t) = unannounced[p] {
                        l.drained.push((p, t, last_rec_tail[p]));
                    }
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        out.lock().unwrap().final_epoch = epoch.to_vec();
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000).unwrap();
    Arc::try_unwrap(log).ok().unwrap().into_inner().unwrap()
}

/// Checks that hold in both modes: records carry a tail that was reported
/// for that pipe, in order, and number each pipe's records 1, 2, 3, ...
/// from its last restart; each buffer's records are numbered 1, 2, 3, ...,
/// go to their slot, and never overwrite one software has not read.
fn check_records(log: &Log) {
    assert!(log.records.len() > 50, "only {} records", log.records.len());
    assert_eq!(log.formed.len(), log.records.len());
    let mut count = [0u64; NOTIF_BUFS];
    let mut waited = 0;
    for (r, &formed) in log.records.iter().zip(&log.formed) {
        let (p, _, _, c, addr) = *r;
        let b = p % NOTIF_BUFS;
        assert_eq!(c, count[b] + 1, "buffer {b}: records out of order");
        count[b] = c;
        assert_eq!(
            addr,
            base(b) + (c - 1) % RECORDS * 16,
            "buffer {b}: record {c}'s slot"
        );
        let head = log
            .heads
            .iter()
            .filter(|h| h.0 == b && h.2 <= formed)
            .map(|h| h.1)
            .max()
            .unwrap_or(0);
        assert!(
            c <= head + RECORDS,
            "buffer {b}: record {c} formed at cycle {formed} with only {head} read: overwrote an unread record"
        );
        if c == head + RECORDS {
            waited += 1;
        }
    }
    // The buffers did fill (and records waited for room).
    assert!(waited > 5, "only {waited} records filled their buffer");
    for p in 0..PIPES {
        let moves: Vec<(u64, u32)> = log
            .moves
            .iter()
            .filter(|m| m.0 == p)
            .map(|m| (m.1, m.2))
            .collect();
        let mut last_seq = (u32::MAX, 0u64);
        let mut last_pos = 0usize;
        for r in log.records.iter().filter(|r| r.0 == p) {
            let (_, seq, tail, _, _) = *r;
            // The tail is one that was reported, at or after the one the
            // previous record carried; it tells the epoch the record was
            // formed in (one may leave just after a restart).
            let pos = moves[last_pos..]
                .iter()
                .position(|m| m.0 == tail)
                .map(|k| k + last_pos);
            assert!(
                pos.is_some(),
                "pipe {p}: record tail {tail} was never reported, or went back"
            );
            last_pos = pos.unwrap();
            let epoch = moves[last_pos].1;
            let expect = if last_seq.0 == epoch {
                last_seq.1 + 1
            } else {
                1
            };
            assert_eq!(seq, expect, "pipe {p}: sequence (epoch {epoch})");
            last_seq = (epoch, seq);
        }
    }
    // Nothing is left unannounced: after each drain, each pipe's last
    // record carries its last tail (unless it restarted since).
    assert!(log.drained.len() > 10);
    for &(p, want, got) in &log.drained {
        assert_eq!(got, want, "pipe {p}: last move not announced");
    }
}

#[test]
fn per_packet_records_count_up_and_the_last_carries_the_last_tail() {
    let log = run(true, 1, 4500);
    check_records(&log);
}

#[test]
fn reactive_records_wait_for_a_rearm_and_the_last_carries_the_last_tail() {
    let log = run(false, 2, 4500);
    check_records(&log);
    // One outstanding per pipe: between forming two records of a pipe
    // there is a re-arm of it (or a restart, which re-arms). A re-arm in the
    // cycle a record is formed loses to it.
    for p in 0..PIPES {
        let cycles: Vec<usize> = log
            .records
            .iter()
            .zip(&log.formed)
            .filter(|(r, _)| r.0 == p)
            .map(|(_, &c)| c)
            .collect();
        let epoch_of = |tail: u64| {
            log.moves
                .iter()
                .find(|m| m.0 == p && m.1 == tail)
                .map(|m| m.2)
        };
        let epochs: Vec<Option<u32>> = log
            .records
            .iter()
            .filter(|r| r.0 == p)
            .map(|r| epoch_of(r.2))
            .collect();
        for k in 1..cycles.len() {
            let rearmed = log
                .rearms
                .iter()
                .any(|r| r.0 == p && r.1 > cycles[k - 1] && r.1 < cycles[k]);
            assert!(
                rearmed || epochs[k] != epochs[k - 1],
                "pipe {p}: two records (cycles {} and {}) without a re-arm",
                cycles[k - 1],
                cycles[k]
            );
        }
    }
}

#[test]
fn notif_writer_is_synthesizable() {
    let mut uut = NotifWriter::new();
    uut.connect_all();
    yosys_validate("pendulum_notif_writer", &generate_verilog(&uut))
        .unwrap_or_else(|e| panic!("{e:?}"));
}
