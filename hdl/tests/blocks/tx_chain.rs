//! The TX path of ring format v2 as the core chains it, in rust-hdl's
//! simulator: fetcher → (host memory over a PCIe read model) → completion
//! FIFO → ring unpacker → entry framer. Software posts entries (v2,
//! `pendulum_layout::ring`) of random length on three pipes whose rings
//! start off a 4 KiB boundary, some with a bad length, and rings each
//! pipe's doorbell; it reuses ring space only once the head has moved past.
//! The read model answers in order after a random delay, with stalls; the
//! MAC stalls at random. Every frame must leave whole and byte for byte, in
//! its pipe's order, every bad entry count one drop, and each head end at
//! its tail. Headers carry random FLAGS: a frame's first beat out asks for
//! a TX stamp exactly when its FLAGS has `tx_flags::STAMP` (stamps are on
//! for every pipe), and names its entry.

use crate::common::{bits512, bytes512};
use pendulum_hdl::enso::{RingUnpacker, TxEntryFramer, TxFetcher};
use pendulum_hdl::stream::{SkidBuffer, StreamFifo, StreamSink, StreamSource};
use pendulum_hdl::types::{CplBeat, DmaReadReq, TxEthBeat, TxReadInfo};
use pendulum_layout::params::{SLOT_BITS, TX_CPL_FIFO_DEPTH_LOG2, TX_PIPES, TX_PIPE_BITS};
use pendulum_layout::ring::{entry_units, tx_flags, write_entry, EntryHeader, UNIT_BYTES};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const L: usize = TX_CPL_FIFO_DEPTH_LOG2;

/// The chain, wired as `PendulumNic` wires it.
#[derive(LogicBlock)]
struct TxChain {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    doorbell: Signal<In, Bit>,
    doorbell_pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    tx_enable: Signal<In, Bits<TX_PIPES>>,
    fe_addr: Signal<Out, Bits<TX_PIPE_BITS>>,
    fe_base: Signal<In, Bits<64>>,
    fe_mask: Signal<In, Bits<SLOT_BITS>>,
    fe_tail: Signal<In, Bits<SLOT_BITS>>,
    m_req: StreamSource<DmaReadReq>,
    s_cpl: StreamSink<CplBeat>,
    m_eth: StreamSource<TxEthBeat>,
    moved: Signal<Out, Bit>,
    new_head: Signal<Out, Bits<SLOT_BITS>>,
    old_head: Signal<Out, Bits<SLOT_BITS>>,
    ev_pipe: Signal<Out, Bits<TX_PIPE_BITS>>,
    ev_drop: Signal<Out, Bit>,
    fetch: TxFetcher,
    info: StreamFifo<TxReadInfo, L, { L + 1 }>,
    info_skid: SkidBuffer<TxReadInfo>,
    cpl: StreamFifo<CplBeat, L, { L + 1 }>,
    unpack: RingUnpacker,
    framer: TxEntryFramer,
    zero_pipe: Constant<Bits<TX_PIPE_BITS>>,
    no_pipes: Constant<Bits<TX_PIPES>>,
}

impl TxChain {
    fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            doorbell: Default::default(),
            doorbell_pipe: Default::default(),
            tx_enable: Default::default(),
            fe_addr: Default::default(),
            fe_base: Default::default(),
            fe_mask: Default::default(),
            fe_tail: Default::default(),
            m_req: Default::default(),
            s_cpl: Default::default(),
            m_eth: Default::default(),
            moved: Default::default(),
            new_head: Default::default(),
            old_head: Default::default(),
            ev_pipe: Default::default(),
            ev_drop: Default::default(),
            fetch: TxFetcher::new(),
            info: StreamFifo::new(),
            info_skid: Default::default(),
            cpl: StreamFifo::new(),
            unpack: RingUnpacker::new(),
            framer: TxEntryFramer::new(),
            zero_pipe: Constant::new(0u64.into()),
            no_pipes: Constant::new(0u64.into()),
        }
    }
}

impl Logic for TxChain {
    #[hdl_gen]
    fn update(&mut self) {
        self.fetch.clock.next = self.clock.val();
        self.fetch.reset.next = self.reset.val();
        self.info.clock.next = self.clock.val();
        self.info.reset.next = self.reset.val();
        self.info_skid.clock.next = self.clock.val();
        self.info_skid.reset.next = self.reset.val();
        self.cpl.clock.next = self.clock.val();
        self.cpl.reset.next = self.reset.val();
        self.unpack.clock.next = self.clock.val();
        self.unpack.reset.next = self.reset.val();
        self.framer.clock.next = self.clock.val();
        self.framer.reset.next = self.reset.val();
        self.fetch.clear.active.next = false;
        self.fetch.clear.addr.next = self.zero_pipe.val();
        self.fetch.doorbell.next = self.doorbell.val();
        self.fetch.doorbell_pipe.next = self.doorbell_pipe.val();
        self.fetch.restart.next = false;
        self.fetch.restart_pipe.next = self.zero_pipe.val();
        self.fetch.tx_enable.next = self.tx_enable.val();
        self.fe_addr.next = self.fetch.fe_addr.val();
        self.fetch.fe_base.next = self.fe_base.val();
        self.fetch.fe_mask.next = self.fe_mask.val();
        self.fetch.fe_tail.next = self.fe_tail.val();
        self.m_req.data.next = self.fetch.m_req.data.val();
        self.m_req.valid.next = self.fetch.m_req.valid.val();
        self.fetch.m_req.ready.next = self.m_req.ready.val();
        self.info.s.data.next = self.fetch.info.val();
        self.info.s.valid.next = self.fetch.info_push.val();
        self.fetch.info_ready.next = self.info.s.ready.val();
        self.cpl.s.data.next = self.s_cpl.data.val();
        self.cpl.s.valid.next = self.s_cpl.valid.val();
        self.s_cpl.ready.next = self.cpl.s.ready.val();
        self.unpack.s_line.data.next = self.cpl.m.data.val();
        self.unpack.s_line.valid.next = self.cpl.m.valid.val();
        self.cpl.m.ready.next = self.unpack.s_line.ready.val();
        self.info_skid.s.data.next = self.info.m.data.val();
        self.info_skid.s.valid.next = self.info.m.valid.val();
        self.info.m.ready.next = self.info_skid.s.ready.val();
        self.unpack.s_info.data.next = self.info_skid.m.data.val();
        self.unpack.s_info.valid.next = self.info_skid.m.valid.val();
        self.info_skid.m.ready.next = self.unpack.s_info.ready.val();
        self.fetch.beat_consumed.next = self.unpack.line_taken.val();
        self.framer.s.data.next = self.unpack.m.data.val();
        self.framer.s.valid.next = self.unpack.m.valid.val();
        self.unpack.m.ready.next = self.framer.s.ready.val();
        self.framer.tx_enable.next = self.tx_enable.val();
        self.framer.stamps_on.next = self.tx_enable.val();
        self.framer.acp_bound.next = self.no_pipes.val();
        self.framer.atomic_bound.next = self.no_pipes.val();
        self.framer.m_acp.ready.next = true;
        self.framer.m_atomic.ready.next = true;
        self.m_eth.data.next = self.framer.m_eth.data.val();
        self.m_eth.valid.next = self.framer.m_eth.valid.val();
        self.framer.m_eth.ready.next = self.m_eth.ready.val();
        self.moved.next = self.framer.moved.val();
        self.new_head.next = self.framer.new_head.val();
        self.old_head.next = self.framer.old_head.val();
        self.ev_pipe.next = self.framer.ev_pipe.val();
        self.ev_drop.next = self.framer.ev_drop_malformed.val();
    }
}

/// Three pipes: their index, ring base (64-byte aligned, off a 4 KiB
/// boundary so runs cross one) and size in units.
const PIPES: [(u64, u64, u32); 3] = [
    (2, 0x1_0000_07C0, 256),
    (33, 0x2_0000_0F00, 1024),
    (63, 0x3_0000_0000, 64),
];

struct Pipe {
    index: u64,
    base: u64,
    units: u32,
    mem: Vec<u8>,
    head: u32,
    tail: u32,
    rung: u32,
    /// Frames posted and not yet seen, in order, with whether each asked
    /// for a stamp and its entry's first unit.
    due: VecDeque<(Vec<u8>, bool, u32)>,
    posted: u64,
}

fn run(seed: u64, frames_per_pipe: u64) -> (u64, u64) {
    let mut uut = TxChain::new();
    uut.doorbell.connect();
    uut.doorbell_pipe.connect();
    uut.tx_enable.connect();
    uut.fe_base.connect();
    uut.fe_mask.connect();
    uut.fe_tail.connect();
    uut.m_req.ready.connect();
    uut.s_cpl.data.connect();
    uut.s_cpl.valid.connect();
    uut.m_eth.ready.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<TxChain>| x.clock.next = !x.clock.val());
    let out = Arc::new(Mutex::new((0, 0)));
    let result = out.clone();
    sim.add_testbench(move |mut sim: Sim<TxChain>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut pipes: Vec<Pipe> = PIPES
            .iter()
            .map(|&(index, base, units)| {
                let mut mem = vec![0u8; units as usize * UNIT_BYTES];
                rng.fill(&mut mem[..]);
                Pipe {
                    index,
                    base,
                    units,
                    mem,
                    head: 0,
                    tail: 0,
                    rung: 0,
                    due: VecDeque::new(),
                    posted: 0,
                }
            })
            .collect();
        let mut enable = 0u64;
        for p in &pipes {
            enable |= 1 << p.index;
        }
        x.tx_enable.next = enable.into();
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        // Reads in flight: (cycle due, lines).
        let mut reads: VecDeque<(u64, VecDeque<[u8; 64]>)> = VecDeque::new();
        let mut frame: Vec<u8> = Vec::new();
        // The frame's first beat's stamp request and entry.
        let mut first = (false, 0u32);
        let (mut cycle, mut idle, mut drops, mut bad_posted, mut sent) = (0u64, 0, 0, 0, 0);
        let mut fe_pipe = 0usize;
        loop {
            cycle += 1;
            // Software: post a few entries on a pipe, then ring it.
            x.doorbell.next = false;
            if rng.gen_bool(0.05) {
                let k = rng.gen_range(0..pipes.len());
                let p = &mut pipes[k];
                for _ in 0..rng.gen_range(1..6) {
                    if p.posted >= frames_per_pipe {
                        break;
                    }
                    let bad = rng.gen_bool(0.05);
                    let len = if bad {
                        0
                    } else {
                        rng.gen_range(16..=1518usize)
                    };
                    let need = entry_units(len as u32);
                    let mask = p.units - 1;
                    if ((p.tail.wrapping_sub(p.head)) & mask) + need > mask {
                        break;
                    }
                    let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    if !bad {
                        f[..8].copy_from_slice(&(p.index << 56 | p.posted).to_le_bytes());
                    }
                    let header = EntryHeader {
                        len: len as u16,
                        flags: rng.gen(),
                        ..Default::default()
                    };
                    let start = p.tail;
                    p.tail = write_entry(&mut p.mem, p.tail, &header, &f);
                    if bad {
                        bad_posted += 1;
                    } else {
                        p.due
                            .push_back((f, header.flags & tx_flags::STAMP != 0, start));
                    }
                    p.posted += 1;
                }
                if p.rung != p.tail {
                    p.rung = p.tail;
                    x.doorbell.next = true;
                    x.doorbell_pipe.next = p.index.into();
                }
            }
            // The fetcher's ring port answers a cycle after its address.
            let fp = &pipes[fe_pipe];
            x.fe_base.next = fp.base.into();
            x.fe_mask.next = u64::from(fp.units - 1).into();
            x.fe_tail.next = u64::from(fp.rung).into();
            // Completions, in order, after their delay.
            let offer = reads
                .front()
                .filter(|(due, _)| *due <= cycle)
                .and_then(|(_, l)| l.front().copied());
            x.s_cpl.valid.next = offer.is_some() && rng.gen_bool(0.8);
            if let Some(line) = offer {
                x.s_cpl.data.next = CplBeat {
                    data: bits512(&line),
                    last: reads.front().unwrap().1.len() == 1,
                };
            }
            x.m_req.ready.next = rng.gen_bool(0.7);
            x.m_eth.ready.next = rng.gen_bool(0.7);
            x = sim.wait(1, x)?;
            let addr = x.fe_addr.val().to_u64();
            fe_pipe = pipes.iter().position(|p| p.index == addr).unwrap_or(0);
            if x.m_req.valid.val() && x.m_req.ready.val() {
                let r = x.m_req.data.val();
                let (a, len) = (r.addr.to_u64(), r.len.to_u64());
                assert!(
                    len > 0 && len % 64 == 0 && len <= 512,
                    "request of {len} bytes"
                );
                assert_eq!(
                    a / 4096,
                    (a + len - 1) / 4096,
                    "a read across 4 KiB at {a:#x}"
                );
                let p = pipes
                    .iter()
                    .find(|p| a >= p.base && a < p.base + p.units as u64 * 16)
                    .expect("a read outside every ring");
                let off = (a - p.base) as usize;
                assert!(
                    off + len as usize <= p.mem.len(),
                    "a read past the ring's end"
                );
                let lines = (0..len as usize / 64)
                    .map(|i| p.mem[off + 64 * i..off + 64 * i + 64].try_into().unwrap())
                    .collect();
                reads.push_back((cycle + rng.gen_range(10..40), lines));
            }
            if x.s_cpl.valid.val() && x.s_cpl.ready.val() {
                let front = &mut reads.front_mut().unwrap().1;
                front.pop_front();
                if front.is_empty() {
                    reads.pop_front();
                }
            }
            if x.m_eth.valid.val() && x.m_eth.ready.val() {
                let b = x.m_eth.data.val();
                let kept = b.keep.to_u64().trailing_ones() as usize;
                if frame.is_empty() {
                    first = (b.stamp, b.entry.to_u64() as u32);
                } else {
                    assert!(!b.stamp, "a stamp asked on a later beat");
                }
                frame.extend_from_slice(&bytes512(b.data)[..kept]);
                if b.last {
                    let id = u64::from_le_bytes(frame[..8].try_into().unwrap());
                    let p = pipes
                        .iter_mut()
                        .find(|p| p.index == id >> 56)
                        .expect("a frame of no pipe");
                    let (due, stamp, start) = p.due.pop_front().expect("a frame nobody sent");
                    assert_eq!(frame.len(), due.len(), "pipe {}: frame length", p.index);
                    assert!(frame == due, "pipe {}: frame bytes (id {id:#x})", p.index);
                    assert_eq!(first.0, stamp, "pipe {}: stamp asked (id {id:#x})", p.index);
                    if stamp {
                        assert_eq!(first.1, start, "pipe {}: stamped entry", p.index);
                    }
                    frame.clear();
                    sent += 1;
                    idle = 0;
                }
            }
            if x.moved.val() {
                let pipe = x.ev_pipe.val().to_u64();
                let p = pipes
                    .iter_mut()
                    .find(|p| p.index == pipe)
                    .expect("a move of no pipe");
                assert_eq!(
                    x.old_head.val().to_u64(),
                    u64::from(p.head),
                    "pipe {pipe}: head"
                );
                p.head = x.new_head.val().to_u64() as u32;
            }
            drops += u64::from(x.ev_drop.val());
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
            idle += 1;
            assert!(idle < 5_000, "nothing for 5000 cycles");
            let done = pipes
                .iter()
                .all(|p| p.posted >= frames_per_pipe && p.head == p.tail && p.rung == p.tail);
            if done {
                break;
            }
        }
        for p in &pipes {
            assert!(
                p.due.is_empty(),
                "pipe {}: {} frames never left",
                p.index,
                p.due.len()
            );
        }
        assert_eq!(drops, bad_posted, "drops counted");
        *result.lock().unwrap() = (sent, drops);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000_000).unwrap();
    let r = *out.lock().unwrap();
    r
}

#[test]
fn posted_entries_leave_whole_in_order_and_free_their_ring() {
    for seed in 1..3 {
        let (sent, drops) = run(seed, 150);
        eprintln!("seed {seed}: {sent} frames sent, {drops} bad entries dropped");
        assert!(
            sent > 300 && drops > 5,
            "seed {seed}: {sent} sent, {drops} dropped"
        );
    }
}
