//! The RX engine alone, in rust-hdl's simulator: frames of 1 to 3 beats for
//! four of the pipes (spread over the index range) with small rings, while
//! the register file's events (switch on, switch off, head writes) arrive at
//! random, one per cycle, and the DMA port stalls at random. Every decision is
//! checked against a model of the rings: where each beat is written, which
//! frames are refused and why, and each published tail.
//!
//! The engine takes the register file's events through a register: an event
//! reported in cycle c is applied in c + 1 (no beat leaves in a cycle a
//! restart is applied, and a frame under way on the restarted pipe is
//! dropped), and a first beat decided in cycle t sees every event reported up
//! to t - 2. Its own events (`ev_*`) come a cycle after the decision. A
//! missing RAM forwarding path shows up as a decision made on state a cycle
//! older than that.
//!
//! The engine reads its rings from `RxPipeState` (`Engine` below joins the
//! two, as the register file and the core do): a ring's base is written
//! while its pipe is off, the cycle before the pipe is switched on with it.

use crate::common;
use common::pick;
use pendulum_hdl::enso::RxEngine;
use pendulum_hdl::mmio::{RxPipeState, RxRingUser, GATES};
use pendulum_hdl::stream::{StreamSink, StreamSource};
use pendulum_hdl::types::{DmaWrite, RxBeat};
use pendulum_layout::params::{PIPES, PIPE_BITS, SLOT_BITS};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The RX engine with the ring state it reads, written as `RxPipeBank`
/// writes it: a ring's base (`set_base_lo`, in a cycle of its own), and with
/// each register-file event the engine is told of (a switch: on/off beside
/// the mask; a head write).
#[derive(LogicBlock)]
struct Engine {
    clock: Signal<In, Clock>,
    s_eth: StreamSink<RxBeat>,
    m_dma: StreamSource<DmaWrite>,
    cfg_pipe: Signal<In, Bits<PIPE_BITS>>,
    set_base_lo: Signal<In, Bit>,
    base_lo: Signal<In, Bits<32>>,
    restart: Signal<In, Bit>,
    restart_base: Signal<In, Bits<64>>,
    restart_mask: Signal<In, Bits<SLOT_BITS>>,
    restart_enable: Signal<In, Bit>,
    head_wr: Signal<In, Bit>,
    head: Signal<In, Bits<SLOT_BITS>>,
    ev_pipe: Signal<Out, Bits<PIPE_BITS>>,
    ev_frame: Signal<Out, Bit>,
    ev_tail: Signal<Out, Bits<SLOT_BITS>>,
    ev_drop_ring_full: Signal<Out, Bit>,
    ev_drop_malformed: Signal<Out, Bit>,
    ev_drop_pipe_off: Signal<Out, Bit>,
    ev_restart: Signal<Out, Bit>,
    rx: RxEngine,
    state: RxPipeState,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero_pipe: Constant<Bits<PIPE_BITS>>,
    zero16: Constant<Bits<SLOT_BITS>>,
}

impl Logic for Engine {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx.clock.next = self.clock.val();
        self.state.clock.next = self.clock.val();
        self.rx.reset.next = false;
        self.state.reset.next = false;
        self.state.clear.active.next = false;
        self.state.clear.addr.next = self.zero_pipe.val();
        // No gates here.
        for g in 0..GATES {
            self.state.gate_pipe[g].next = self.zero_pipe.val();
            self.state.gate_load[g].next = false;
        }
        self.state.load_pipe.next = self.zero_pipe.val();
        self.state.load_head.next = self.zero16.val();
        self.state.load_tail.next = self.zero16.val();
        self.state.load_mask.next = self.zero16.val();
        self.state.load_enable.next = false;
        self.state.lk.next = self.zero_pipe.val();
        self.rx.s_eth.data.next = self.s_eth.data.val();
        self.rx.s_eth.valid.next = self.s_eth.valid.val();
        self.s_eth.ready.next = self.rx.s_eth.ready.val();
        self.m_dma.data.next = self.rx.m_dma.data.val();
        self.m_dma.valid.next = self.rx.m_dma.valid.val();
        self.rx.m_dma.ready.next = self.m_dma.ready.val();
        self.rx.cfg_pipe.next = self.cfg_pipe.val();
        self.rx.restart.next = self.restart.val();
        self.rx.restart_base.next = self.restart_base.val();
        self.rx.restart_mask.next = self.restart_mask.val();
        self.rx.restart_enable.next = self.restart_enable.val();
        self.rx.head_wr.next = self.head_wr.val();
        self.rx.head.next = self.head.val();
        // The register file's writes.
        self.state.wr_pipe.next = self.cfg_pipe.val();
        self.state.wr_data.next = self.base_lo.val();
        if !self.set_base_lo.val() {
            self.state.wr_data.next = self.zero32.val();
            if self.restart_enable.val() {
                self.state.wr_data.next = self.one32.val();
            }
        }
        self.state.wr_mask.next = self.restart_mask.val();
        self.state.set_base_lo.next = self.set_base_lo.val();
        self.state.set_base_hi.next = false;
        self.state.set_ring.next = false;
        self.state.set_ctrl.next = self.restart.val();
        self.state.switch.next = self.restart.val();
        self.state.set_head.next = self.head_wr.val();
        self.state.head_value.next = self.head.val();
        // The engine's reads and tail writes.
        RxRingUser::join(&mut self.rx.ring, &mut self.state.rx);
        self.state.ev_pipe.next = self.rx.ev_pipe.val();
        self.state.ev_frame.next = self.rx.ev_frame.val();
        self.state.ev_tail.next = self.rx.ev_tail.val();
        self.state.ev_restart.next = self.rx.ev_restart.val();
        self.state.ev_restart_mask.next = self.rx.ev_restart_mask.val();
        self.state.ev_restart_enable.next = self.rx.ev_restart_enable.val();
        self.ev_pipe.next = self.rx.ev_pipe.val();
        self.ev_frame.next = self.rx.ev_frame.val();
        self.ev_tail.next = self.rx.ev_tail.val();
        self.ev_drop_ring_full.next = self.rx.ev_drop_ring_full.val();
        self.ev_drop_malformed.next = self.rx.ev_drop_malformed.val();
        self.ev_drop_pipe_off.next = self.rx.ev_drop_pipe_off.val();
        self.ev_restart.next = self.rx.ev_restart.val();
    }
}

impl Engine {
    fn new() -> Self {
        Self {
            clock: Default::default(),
            s_eth: Default::default(),
            m_dma: Default::default(),
            cfg_pipe: Default::default(),
            set_base_lo: Default::default(),
            base_lo: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            head_wr: Default::default(),
            head: Default::default(),
            ev_pipe: Default::default(),
            ev_frame: Default::default(),
            ev_tail: Default::default(),
            ev_drop_ring_full: Default::default(),
            ev_drop_malformed: Default::default(),
            ev_drop_pipe_off: Default::default(),
            ev_restart: Default::default(),
            rx: RxEngine::new(),
            state: Default::default(),
            zero32: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero_pipe: Constant::new(0u64.into()),
            zero16: Constant::new(0u64.into()),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Ring {
    base: u64,
    mask: u64,
    on: bool,
    head: u64,
    tail: u64,
}

impl Ring {
    fn free(&self) -> u64 {
        self.mask - (self.tail.wrapping_sub(self.head) & self.mask)
    }
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    id: u64,
    pipe: usize,
    beats: u64,
    len_known: bool,
}

/// Counts of what one run saw, for the test to require that each case occurred.
#[derive(Default, Debug)]
struct Seen {
    published: usize,
    ring_full: usize,
    pipe_off_at_start: usize,
    killed: usize,
    malformed: usize,
    /// First beats decided in the cycle right after an event for their pipe.
    decided_after_event: usize,
}

fn beat_of(f: &Frame, k: u64) -> RxBeat {
    RxBeat {
        data: ((f.id << 8) | k).into(),
        keep: u64::MAX.into(),
        last: k + 1 == f.beats,
        sop: k == 0,
        pipe: (f.pipe as u64).into(),
        len: (f.beats * 64).into(),
        slots: f.beats.into(),
        len_known: f.len_known,
        keep_ok: true,
    }
}

fn u64_of(b: Bits<64>) -> u64 {
    (b.get_bits::<32>(32).index() as u64) << 32 | b.get_bits::<32>(0).index() as u64
}

fn run(seed: u64, cycles: usize) -> Seen {
    let mut uut = Engine::new();
    uut.s_eth.data.connect();
    uut.s_eth.valid.connect();
    uut.m_dma.ready.connect();
    uut.cfg_pipe.connect();
    uut.set_base_lo.connect();
    uut.base_lo.connect();
    uut.restart.connect();
    uut.restart_base.connect();
    uut.restart_mask.connect();
    uut.restart_enable.connect();
    uut.head_wr.connect();
    uut.head.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Engine>| x.clock.next = !x.clock.val());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let out = seen.clone();
    sim.add_testbench(move |mut sim: Sim<Engine>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut rings = [Ring::default(); PIPES];
        // Frames handed to the engine and not yet decided on / finished.
        let mut queue: VecDeque<Frame> = VecDeque::new();
        let mut next_id = 1u64;
        // The frame being offered, and its next beat.
        let mut offer: Option<(Frame, u64)> = None;
        // The frame being written: (frame, slot of its first beat, ring base,
        // mask, beats written, live).
        let mut cur: Option<(Frame, u64, u64, u64, u64, bool)> = None;
        let mut last_event_cycle = [usize::MAX; PIPES];
        // The register file's event of the last cycle, applied in this one:
        // (pipe, restart, head write, on, head, ring).
        let mut applying: Option<(usize, bool, bool, bool, u64, Ring)> = None;
        // The rings as the decisions of the last cycle saw them, and what the
        // engine must report this cycle for the last beat it wrote then.
        let mut rings_prev = rings;
        let mut want_last: Option<(Frame, bool, u64)> = None;
        let mut want_restart_ev = false;
        // A pipe to switch on next cycle, its ring's base written this one.
        let mut switch_on: Option<(usize, Ring)> = None;
        wait_clock_false!(sim, clock, x);
        for cycle in 0..cycles {
            // ---- Inputs for this cycle ----
            if offer.is_none() && rng.gen_bool(0.7) {
                let f = Frame {
                    id: next_id,
                    pipe: pick(&mut rng),
                    beats: rng.gen_range(1..4),
                    len_known: rng.gen_bool(0.95),
                };
                next_id += 1;
                offer = Some((f, 0));
            }
            if let Some((f, k)) = offer {
                x.s_eth.data.next = beat_of(&f, k);
            }
            x.s_eth.valid.next = offer.is_some() && rng.gen_bool(0.8);
            x.m_dma.ready.next = rng.gen_bool(0.6);
            // One register-file event per cycle at most: switch a pipe on (its
            // head to 0 with it) or off, or move its head to some slot in
            // [head, tail] (software freeing part or all of what it holds).
            // Switching a pipe on takes two: its ring's base while it is
            // off, then the switch.
            let ev = rng.gen_range(0..100);
            let mut p = pick(&mut rng);
            let (mut restart, mut head_wr, mut on, mut set_base) = (false, false, false, false);
            let mut head = 0u64;
            let mut ring = rings[p];
            if let Some((sp, sring)) = switch_on.take() {
                (p, ring) = (sp, sring);
                restart = true;
                on = true;
                head_wr = true;
            } else if ev < 3 && rings[p].on {
                restart = true;
            } else if ev < 3 && applying.map(|a| a.0) != Some(p) {
                ring.base = 0x4000_0000 + ((p as u64) << 20) + (rng.gen_range(0..16u64) << 12);
                ring.mask = [7u64, 15, 31][rng.gen_range(0..3)];
                set_base = true;
                switch_on = Some((p, ring));
            } else if ev < 40 && rings[p].on {
                head_wr = true;
                let held = rings[p].tail.wrapping_sub(rings[p].head) & rings[p].mask;
                head = (rings[p].head + rng.gen_range(0..=held)) & rings[p].mask;
            }
            x.cfg_pipe.next = (p as u64).into();
            x.set_base_lo.next = set_base;
            x.base_lo.next = ring.base.into();
            x.restart.next = restart;
            x.restart_base.next = ring.base.into();
            x.restart_mask.next = ring.mask.into();
            x.restart_enable.next = on;
            x.head_wr.next = head_wr;
            x.head.next = head.into();
            x = sim.wait(1, x)?;

            // ---- Outputs, against the model ----
            let dma = x.m_dma.valid.val() && x.m_dma.ready.val();
            let drop_full = x.ev_drop_ring_full.val();
            let drop_off = x.ev_drop_pipe_off.val();
            let drop_bad = x.ev_drop_malformed.val();
            let published = x.ev_frame.val();
            let restart_applied = applying.map(|a| a.1).unwrap_or(false);
            {
                let mut s = out.lock().unwrap();
                assert!(!(dma && restart_applied), "cycle {cycle}: a write in the cycle a restart is applied");
                assert_eq!(x.ev_restart.val(), want_restart_ev, "cycle {cycle}: ev_restart");
                // What the last cycle's last beat must have reported.
                if let Some((f, live, tail)) = want_last.take() {
                    if live {
                        assert!(published && !drop_off, "cycle {cycle}: frame {} not published", f.id);
                        assert_eq!(x.ev_tail.val().index() as u64, tail);
                        assert_eq!(x.ev_pipe.val().index(), f.pipe);
                        s.published += 1;
                    } else {
                        assert!(drop_off && !published, "cycle {cycle}: frame {} of a restarted pipe", f.id);
                        s.killed += 1;
                    }
                } else if drop_full || drop_off || drop_bad {
                    // A first beat refused last cycle, on the rings as they were then.
                    let f = queue.pop_front().expect("a refusal with no frame sent");
                    let r = rings_prev[f.pipe];
                    if last_event_cycle[f.pipe] == cycle.wrapping_sub(3) {
                        s.decided_after_event += 1;
                    }
                    let want = if !f.len_known {
                        "malformed"
                    } else if !r.on {
                        "pipe off"
                    } else {
                        assert!(f.beats > r.free(), "cycle {cycle}: frame {f:?} refused on ring {:?}", (r.base, r.mask, r.head, r.tail, r.on));
                        "ring full"
                    };
                    let got = if drop_bad {
                        "malformed"
                    } else if drop_off {
                        "pipe off"
                    } else {
                        "ring full"
                    };
                    assert_eq!(got, want, "cycle {cycle}: frame {f:?} on ring base {:#x} mask {} head {} tail {} on {}", r.base, r.mask, r.head, r.tail, r.on);
                    match want {
                        "malformed" => s.malformed += 1,
                        "pipe off" => s.pipe_off_at_start += 1,
                        _ => s.ring_full += 1,
                    }
                } else {
                    assert!(!published, "cycle {cycle}: published with no frame ending");
                }
                // A first beat written now: it must fit the rings as they are.
                if cur.is_none() && dma {
                    let f = queue.pop_front().expect("a write with no frame sent");
                    let r = rings[f.pipe];
                    if last_event_cycle[f.pipe] == cycle.wrapping_sub(2) {
                        s.decided_after_event += 1;
                    }
                    assert!(
                        f.len_known && r.on && f.beats <= r.free(),
                        "cycle {cycle}: frame {f:?} written on ring base {:#x} mask {} head {} tail {} on {}",
                        r.base, r.mask, r.head, r.tail, r.on
                    );
                    cur = Some((f, r.tail, r.base, r.mask, 0, true));
                }
                if let Some((f, slot0, base, mask, done, live)) = cur.as_mut() {
                    if dma {
                        let d = x.m_dma.data.val();
                        let want_addr = *base + (((*slot0 + *done) & *mask) << 6);
                        assert_eq!(u64_of(d.addr), want_addr, "cycle {cycle}: frame {} beat {done}", f.id);
                        assert_eq!(u64_of(d.data.get_bits::<64>(0)), (f.id << 8) | *done);
                        *done += 1;
                        if *done == f.beats {
                            let tail = (*slot0 + f.beats) & *mask;
                            if *live {
                                rings[f.pipe].tail = tail;
                            }
                            want_last = Some((*f, *live, tail));
                            cur = None;
                        }
                    }
                }
                // A restart applied now kills the frame under way on its pipe.
                if let (Some((f, _, _, _, _, live)), Some((ap, true, ..))) = (cur.as_mut(), applying) {
                    if f.pipe == ap {
                        *live = false;
                    }
                }
            }

            // ---- The handshake enters the model; the last cycle's event is applied ----
            if x.s_eth.valid.val() && x.s_eth.ready.val() {
                let (f, k) = offer.unwrap();
                if k == 0 {
                    queue.push_back(f);
                }
                offer = if k + 1 == f.beats { None } else { Some((f, k + 1)) };
            }
            rings_prev = rings;
            want_restart_ev = restart_applied;
            if let Some((ap, a_restart, a_head_wr, a_on, a_head, a_ring)) = applying {
                if a_restart {
                    rings[ap] = Ring { on: a_on, tail: 0, head: 0, ..a_ring };
                } else if a_head_wr {
                    rings[ap].head = a_head;
                }
            }
            applying = None;
            if restart || head_wr {
                applying = Some((p, restart, head_wr, on, head, ring));
                last_event_cycle[p] = cycle;
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000).unwrap();
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

#[test]
fn every_decision_uses_the_rings_as_the_last_cycle_left_them() {
    for seed in 1..=3 {
        let s = run(seed, 24_000);
        eprintln!("seed {seed}: {s:?}");
        assert!(s.published > 300, "{s:?}");
        assert!(s.ring_full > 10, "{s:?}");
        assert!(s.pipe_off_at_start > 10, "{s:?}");
        assert!(s.killed > 0, "{s:?}");
        assert!(s.malformed > 10, "{s:?}");
        assert!(s.decided_after_event > 30, "{s:?}");
    }
}

#[test]
fn rx_engine_is_synthesizable() {
    let mut uut = RxEngine::new();
    uut.connect_all();
    yosys_validate("pendulum_rx_engine", &generate_verilog(&uut))
        .unwrap_or_else(|e| panic!("{e:?}"));
}
