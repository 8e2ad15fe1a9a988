//! The TX stamp writer alone, in rust-hdl's simulator: stamps of random
//! pipes and entries come as the MAC port would hand them (only while the
//! writer says it has room), the DMA port stalls at random (for long
//! stretches, so the queue fills), and pipes are switched to new completion
//! addresses between stamps. Every stamp must come out once, in order, as
//! one 16-byte write of the layout's record at its entry's slot
//! (`pendulum_layout::tx_stamp`), from its pipe's base. (A pipe is switched
//! only while none of its stamps wait, as on the NIC, where a switch is a
//! register write that takes far longer than the queue does to drain.)

use crate::common::bytes512;
use pendulum_hdl::enso::TxStampWriter;
use pendulum_hdl::types::TxStampEvent;
use pendulum_layout::params::{TX_PIPES, TX_PIPE_BITS};
use pendulum_layout::tx_stamp;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

fn run(seed: u64, stamps: usize) -> (u64, u64) {
    let mut uut = TxStampWriter::default();
    uut.cfg.connect();
    uut.cfg_pipe.connect();
    uut.cfg_base.connect();
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m_dma.ready.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<TxStampWriter>| {
        x.clock.next = !x.clock.val()
    });
    let out = Arc::new(Mutex::new((0, 0)));
    let result = out.clone();
    sim.add_testbench(move |mut sim: Sim<TxStampWriter>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // Each pipe's completion record address (16-byte aligned).
        let mut base = vec![0u64; TX_PIPES];
        // What must come out: pipe, address, then the record's 16 bytes.
        let mut due: VecDeque<(usize, u64, [u8; 16])> = VecDeque::new();
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        // Every pipe is switched on before it sends (that sets its base).
        for (p, b) in base.iter_mut().enumerate() {
            *b = (rng.gen::<u64>() >> 8) & !15;
            x.cfg.next = true;
            x.cfg_pipe.next = (p as u64).into();
            x.cfg_base.next = (*b).into();
            wait_clock_cycle!(sim, clock, x);
        }
        x.cfg.next = false;
        let (mut taken, mut written, mut refused, mut cycle) = (0usize, 0u64, 0u64, 0u64);
        let mut stall = 0u32;
        loop {
            cycle += 1;
            // A switch now and then: a new record address for a pipe.
            let pipe = rng.gen_range(0..TX_PIPES);
            let new_base = (rng.gen::<u64>() >> 8) & !15;
            x.cfg_pipe.next = (pipe as u64).into();
            x.cfg_base.next = new_base.into();
            // A stamp at the port.
            let ev = TxStampEvent {
                pipe: (rng.gen_range(0..TX_PIPES) as u64).into(),
                entry: rng.gen_range(0..1u64 << 17).into(),
                len: rng.gen_range(1..=9728u64).into(),
                cycles: rng.gen::<u64>().into(),
            };
            x.s.data.next = ev;
            x.s.valid.next = taken < stamps && rng.gen_bool(0.6);
            x.cfg.next = rng.gen_bool(0.05)
                && !due.iter().any(|d| d.0 == pipe)
                && !(x.s.valid.next && ev.pipe.to_u64() as usize == pipe);
            // The DMA port: long stalls, so the queue fills.
            if stall == 0 && rng.gen_bool(0.02) {
                stall = rng.gen_range(10..60);
            }
            stall = stall.saturating_sub(1);
            x.m_dma.ready.next = stall == 0 && rng.gen_bool(0.8);
            x = sim.wait(1, x)?;
            if x.s.valid.val() {
                if x.s.ready.val() {
                    let p = ev.pipe.to_u64() as usize;
                    let e = ev.entry.to_u64() as u32;
                    let rec = tx_stamp::record(ev.cycles.to_u64(), e, ev.len.to_u64() as u16, 1);
                    due.push_back((p, base[p].wrapping_add(tx_stamp::offset(e)), rec));
                    taken += 1;
                } else {
                    refused += 1;
                }
            }
            if x.m_dma.valid.val() && x.m_dma.ready.val() {
                let w = x.m_dma.data.val();
                let (_, addr, rec) = due.pop_front().expect("a stamp nobody took");
                assert_eq!(w.addr.to_u64(), addr, "stamp {written}: slot address");
                assert_eq!(w.strb.to_u64(), 0xFFFF, "stamp {written}: 16 bytes");
                assert!(w.last, "one beat");
                assert_eq!(&bytes512(w.data)[..16], &rec[..], "stamp {written}: record");
                written += 1;
            }
            if x.cfg.val() {
                base[pipe] = new_base;
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
            if taken == stamps && due.is_empty() {
                break;
            }
            assert!(
                cycle < 100 * stamps as u64,
                "stamps stuck: {} due",
                due.len()
            );
        }
        *result.lock().unwrap() = (written, refused);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000_000).unwrap();
    let r = *out.lock().unwrap();
    r
}

#[test]
fn every_stamp_is_written_once_in_order_at_its_entrys_slot() {
    const _: () = assert!(TX_PIPE_BITS <= 8);
    for seed in 1..3 {
        let (written, refused) = run(seed, 1500);
        assert_eq!(written, 1500);
        // The queue filled during the stalls, and the port was told.
        assert!(refused > 100, "seed {seed}: {refused} stamps refused");
    }
}
