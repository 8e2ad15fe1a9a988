//! The RX engine alone, in rust-hdl's simulator: frames of 1 to 3 beats for
//! four of the pipes (spread over the index range) with small rings, while
//! the register file's events (switch on, switch off, head writes) arrive at
//! random, one per cycle, and the packer's input stalls at random. Every
//! decision is checked against a model of the rings: where each entry
//! starts, its header, which frames are refused and why, each published
//! tail, and whether an entry continues the last one (`cont`).
//!
//! The engine takes the register file's events through a register: an event
//! reported in cycle c is applied in c + 1 (no beat leaves in a cycle a
//! restart is applied, and a frame under way on the restarted pipe is
//! dropped), and a first beat decided in cycle t sees every event reported up
//! to t - 2. Its events ride its items, in the cycle of the decision; a
//! restart's goes alone, after every item decided before it and before every
//! one after. A missing RAM forwarding path shows up as a decision made on
//! state a cycle older than that. The test issues a restart only if
//! `restart_busy` was low two cycles before, as the core's register writes
//! take that long to become one, so the engine's restart queue is filled as
//! far as the core can fill it.
//!
//! The engine reads its rings from `RxPipeState` (`Engine` below joins the
//! two, as the register file and the core do): a ring's base is written
//! while its pipe is off, the cycle before the pipe is switched on with it.

use crate::common;
use common::pick;
use pendulum_hdl::enso::RxEngine;
use pendulum_hdl::mmio::{RxPipeState, RxRingUser, GATES};
use pendulum_hdl::stream::{StreamSink, StreamSource};
use pendulum_hdl::types::{PackItem, RxBeat};
use pendulum_layout::params::{PIPES, PIPE_BITS, SLOT_BITS};
use pendulum_layout::ring::entry_units;
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
    m: StreamSource<PackItem>,
    cfg_pipe: Signal<In, Bits<PIPE_BITS>>,
    set_base_lo: Signal<In, Bit>,
    base_lo: Signal<In, Bits<32>>,
    restart: Signal<In, Bit>,
    restart_base: Signal<In, Bits<64>>,
    restart_mask: Signal<In, Bits<SLOT_BITS>>,
    restart_enable: Signal<In, Bit>,
    head_wr: Signal<In, Bit>,
    head: Signal<In, Bits<SLOT_BITS>>,
    restart_busy: Signal<Out, Bit>,
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
        self.m.data.next = self.rx.m.data.val();
        self.m.valid.next = self.rx.m.valid.val();
        self.rx.m.ready.next = self.m.ready.val();
        self.restart_busy.next = self.rx.restart_busy.val();
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
        // (The register file's copy of the tails, which the engine does not
        // read, follows the items' events in the core; not here.)
        self.state.ev_pipe.next = self.zero_pipe.val();
        self.state.ev_frame.next = false;
        self.state.ev_tail.next = self.zero16.val();
        self.state.ev_restart.next = false;
        self.state.ev_restart_mask.next = self.zero16.val();
        self.state.ev_restart_enable.next = false;
    }
}

impl Engine {
    fn new() -> Self {
        Self {
            clock: Default::default(),
            s_eth: Default::default(),
            m: Default::default(),
            cfg_pipe: Default::default(),
            set_base_lo: Default::default(),
            base_lo: Default::default(),
            restart: Default::default(),
            restart_base: Default::default(),
            restart_mask: Default::default(),
            restart_enable: Default::default(),
            head_wr: Default::default(),
            head: Default::default(),
            restart_busy: Default::default(),
            rx: RxEngine::new(),
            state: Default::default(),
            zero32: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero_pipe: Constant::new(0u64.into()),
            zero16: Constant::new(0u64.into()),
        }
    }
}

#[derive(Clone, Copy, Default, Debug)]
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
    /// Bytes; 0: cut for being over the MTU (malformed).
    len: u64,
    flags: u64,
    hash: u64,
    stamp: u64,
}

impl Frame {
    fn beats(&self) -> u64 {
        self.len.div_ceil(64).max(1)
    }
    fn units(&self) -> u64 {
        entry_units(self.len as u32) as u64
    }
}

/// Counts of what one run saw, for the test to require that each case occurred.
#[derive(Default, Debug)]
struct Seen {
    published: usize,
    ring_full: usize,
    pipe_off_at_start: usize,
    killed: usize,
    malformed: usize,
    continued: usize,
    restarts: usize,
    /// Restarts that waited in the engine's queue behind another.
    queued_behind: usize,
    /// First beats decided in the cycle right after an event for their pipe.
    decided_after_event: usize,
}

fn beat_of(f: &Frame, k: u64) -> RxBeat {
    let last = k + 1 == f.beats();
    let tail_bytes = f.len - 64 * k;
    RxBeat {
        data: ((f.id << 8) | k).into(),
        beat_units: if last {
            tail_bytes.div_ceil(16).max(1)
        } else {
            4
        }
        .into(),
        last,
        sop: k == 0,
        pipe: (f.pipe as u64).into(),
        units: f.units().into(),
        len: f.len.into(),
        flags: f.flags.into(),
        hash: f.hash.into(),
        stamp: f.stamp.into(),
    }
}

fn u64_of(b: Bits<64>) -> u64 {
    (b.get_bits::<32>(32).index() as u64) << 32 | b.get_bits::<32>(0).index() as u64
}

/// The header unit the engine must write for `f` (`pendulum_layout::ring`).
fn header_of(f: &Frame) -> [u64; 2] {
    [f.len | f.flags << 16 | f.hash << 32, f.stamp]
}

fn run(seed: u64, cycles: usize) -> Seen {
    let mut uut = Engine::new();
    uut.s_eth.data.connect();
    uut.s_eth.valid.connect();
    uut.m.ready.connect();
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
        // Frames handed to the engine and not yet decided on.
        let mut queue: VecDeque<Frame> = VecDeque::new();
        let mut next_id = 1u64;
        // The frame being offered, and its next beat.
        let mut offer: Option<(Frame, u64)> = None;
        // The frame being written: (frame, its first unit, beats given, live).
        let mut cur: Option<(Frame, u64, u64, bool)> = None;
        let mut last_event_cycle = [usize::MAX; PIPES];
        // The register file's event of the last cycle, applied in this one:
        // (pipe, restart, head write, on, head, ring).
        let mut applying: Option<(usize, bool, bool, bool, u64, Ring)> = None;
        // Restarts applied whose event has not come yet: (pipe, mask, on).
        let mut restarts: VecDeque<(usize, u64, bool)> = VecDeque::new();
        // The pipe of the last entry published, if no restart or abandoned
        // entry came after it: the next entry of that pipe continues it.
        let mut last_pub: Option<usize> = None;
        // A pipe to switch on, its ring's base written already.
        let mut switch_on: Option<(usize, Ring)> = None;
        // `restart_busy` in the last two cycles (a restart may be reported
        // only if it was low two cycles ago).
        let mut busy_hist = [false; 2];
        wait_clock_false!(sim, clock, x);
        for cycle in 0..cycles {
            // ---- Inputs for this cycle ----
            if offer.is_none() && rng.gen_bool(0.7) {
                let beats = rng.gen_range(1..4u64);
                let f = Frame {
                    id: next_id,
                    pipe: pick(&mut rng),
                    len: if rng.gen_bool(0.05) {
                        0
                    } else {
                        rng.gen_range(64 * (beats - 1) + 1..=64 * beats)
                    },
                    flags: rng.gen_range(0..1 << 16),
                    hash: rng.gen::<u32>() as u64,
                    stamp: rng.gen(),
                };
                next_id += 1;
                offer = Some((f, 0));
            }
            if let Some((f, k)) = offer {
                x.s_eth.data.next = beat_of(&f, k);
            }
            x.s_eth.valid.next = offer.is_some() && rng.gen_bool(0.8);
            x.m.ready.next = rng.gen_bool(0.6);
            // One register-file event per cycle at most: switch a pipe on (its
            // head to 0 with it) or off, or move its head to some unit in
            // [head, tail] (software freeing part or all of what it holds).
            // Switching a pipe on takes two: its ring's base while it is
            // off, then the switch. A restart only while the core would let
            // the register write that makes it through.
            let may_restart = !busy_hist[1];
            let ev = rng.gen_range(0..100);
            let mut p = pick(&mut rng);
            let (mut restart, mut head_wr, mut on, mut set_base) = (false, false, false, false);
            let mut head = 0u64;
            let mut ring = rings[p];
            if let Some((sp, sring)) = switch_on {
                if may_restart {
                    switch_on = None;
                    (p, ring) = (sp, sring);
                    restart = true;
                    on = true;
                    head_wr = true;
                }
            } else if ev < 4 && rings[p].on && may_restart {
                restart = true;
            } else if ev < 4 && !rings[p].on && applying.map(|a| a.0) != Some(p) {
                ring.base = 0x4000_0000 + ((p as u64) << 20) + (rng.gen_range(0..16u64) << 12);
                ring.mask = [31u64, 63, 127][rng.gen_range(0..3)];
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
            let taken = x.m.valid.val() && x.m.ready.val();
            let it = x.m.data.val();
            let restart_applied = applying.map(|a| a.1).unwrap_or(false);
            {
                let mut s = out.lock().unwrap();
                if taken {
                    let e = it.ev;
                    let units = it.units.index() as u64;
                    if e.restart {
                        // A restart's event, alone, in order.
                        let (rp, rmask, ron) = restarts
                            .pop_front()
                            .expect("cycle {cycle}: a restart event with none applied");
                        assert!(
                            units == 0 && !it.sop && !e.frame,
                            "cycle {cycle}: restart event with more"
                        );
                        assert_eq!(
                            (e.pipe.index(), e.mask.index() as u64, e.enable),
                            (rp, rmask, ron),
                            "cycle {cycle}"
                        );
                        s.restarts += 1;
                    } else {
                        assert!(
                            !restart_applied,
                            "cycle {cycle}: an item in the cycle a restart is applied"
                        );
                        assert!(
                            restarts.is_empty(),
                            "cycle {cycle}: an item before a restart's event"
                        );
                        if cur.is_none() {
                            // A first beat: written or refused, on the rings as they are.
                            let f = queue.pop_front().expect("an item with no frame sent");
                            let r = rings[f.pipe];
                            if last_event_cycle[f.pipe] == cycle.wrapping_sub(2) {
                                s.decided_after_event += 1;
                            }
                            let fits = f.len != 0 && r.on && f.units() <= r.free();
                            if fits {
                                assert!(
                                    it.sop && units > 0,
                                    "cycle {cycle}: frame {f:?} not written on ring {r:?}"
                                );
                                assert_eq!(
                                    it.start.index() as u64,
                                    r.tail,
                                    "cycle {cycle}: frame {} start",
                                    f.id
                                );
                                assert_eq!(u64_of(it.base), r.base);
                                assert_eq!(it.line_mask.index() as u64, r.mask >> 2);
                                let h = [
                                    u64_of(it.header.get_bits::<64>(0)),
                                    u64_of(it.header.get_bits::<64>(64)),
                                ];
                                assert_eq!(
                                    h,
                                    header_of(&f),
                                    "cycle {cycle}: frame {} header",
                                    f.id
                                );
                                let cont = last_pub == Some(f.pipe);
                                assert_eq!(it.cont, cont, "cycle {cycle}: frame {} cont", f.id);
                                s.continued += cont as usize;
                                cur = Some((f, r.tail, 0, true));
                            } else {
                                let want = if f.len == 0 {
                                    "malformed"
                                } else if !r.on {
                                    "pipe off"
                                } else {
                                    "ring full"
                                };
                                let got = if e.malformed {
                                    "malformed"
                                } else if e.off {
                                    "pipe off"
                                } else if e.full {
                                    "ring full"
                                } else {
                                    "written"
                                };
                                assert_eq!(got, want, "cycle {cycle}: frame {f:?} on ring {r:?}");
                                assert!(
                                    units == 0 && !it.sop && !e.frame,
                                    "cycle {cycle}: a refusal with more"
                                );
                                assert_eq!(e.pipe.index(), f.pipe);
                                match want {
                                    "malformed" => s.malformed += 1,
                                    "pipe off" => s.pipe_off_at_start += 1,
                                    _ => s.ring_full += 1,
                                }
                            }
                        }
                        if let Some((f, start, done, live)) = cur.as_mut() {
                            assert!(!e.full && !e.malformed, "cycle {cycle}");
                            assert_eq!(
                                u64_of(it.data.get_bits::<64>(0)),
                                (f.id << 8) | *done,
                                "cycle {cycle}: frame {} beat {done}",
                                f.id
                            );
                            let want_units = if *done + 1 == f.beats() {
                                (f.len - 64 * *done).div_ceil(16)
                            } else {
                                4
                            };
                            assert_eq!(
                                units, want_units,
                                "cycle {cycle}: frame {} beat {done} units",
                                f.id
                            );
                            assert_eq!(it.sop, *done == 0);
                            *done += 1;
                            let last = *done == f.beats();
                            assert_eq!(it.last, last, "cycle {cycle}: frame {} last", f.id);
                            if last {
                                let tail = (*start + f.units()) & rings[f.pipe].mask;
                                if *live {
                                    assert!(
                                        e.frame && !e.off,
                                        "cycle {cycle}: frame {} not published",
                                        f.id
                                    );
                                    assert_eq!(
                                        e.tail.index() as u64,
                                        tail,
                                        "cycle {cycle}: frame {} tail",
                                        f.id
                                    );
                                    assert_eq!(e.bytes.index() as u64, f.len);
                                    assert_eq!(e.pipe.index(), f.pipe);
                                    rings[f.pipe].tail = tail;
                                    last_pub = Some(f.pipe);
                                    s.published += 1;
                                } else {
                                    assert!(
                                        e.off && !e.frame,
                                        "cycle {cycle}: frame {} of a restarted pipe",
                                        f.id
                                    );
                                    last_pub = None;
                                    s.killed += 1;
                                }
                                cur = None;
                            } else {
                                assert!(
                                    !e.frame && !e.off,
                                    "cycle {cycle}: an event before the last beat"
                                );
                            }
                        }
                    }
                }
                // A restart applied now kills the frame under way on its pipe.
                if let (Some((f, _, _, live)), Some((ap, true, ..))) = (cur.as_mut(), applying) {
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
                offer = if k + 1 == f.beats() {
                    None
                } else {
                    Some((f, k + 1))
                };
            }
            if let Some((ap, a_restart, a_head_wr, a_on, a_head, a_ring)) = applying {
                if a_restart {
                    rings[ap] = Ring {
                        on: a_on,
                        tail: 0,
                        head: 0,
                        ..a_ring
                    };
                    if !restarts.is_empty() {
                        out.lock().unwrap().queued_behind += 1;
                    }
                    restarts.push_back((ap, a_ring.mask, a_on));
                    last_pub = None;
                } else if a_head_wr {
                    rings[ap].head = a_head;
                }
            }
            applying = None;
            if restart || head_wr {
                applying = Some((p, restart, head_wr, on, head, ring));
                last_event_cycle[p] = cycle;
            }
            busy_hist = [x.restart_busy.val(), busy_hist[0]];
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
        assert!(s.continued > 100, "{s:?}");
        assert!(s.restarts > 100, "{s:?}");
        assert!(s.queued_behind > 0, "{s:?}");
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
