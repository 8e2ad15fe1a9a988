//! The register file alone, in rust-hdl's simulator: random register writes
//! and reads on the RX pages of every pipe and the gates' pipe registers,
//! while the RX datapath reports frames (tail moves) and drops at random and
//! the read response port stalls at random. Checked against a model of the
//! pipes' registers:
//! - every read answer (ring, CTRL, HEAD, TAIL, PIPE_ID, the pipe counters,
//!   the notification buffer registers, REG_ERRORS);
//! - every write's effect on the datapath (`restart` with its ring, `head_wr`,
//!   `rearm`, `nbuf_cfg` with the buffer, `nbuf_head_wr`) and whether it was
//!   refused;
//! - every cycle, the two slot gates' view of their pipe (head, tail, mask,
//!   on/off), including right after software names another pipe.
//!
//! The pipe state lives in block RAM read through one port, so a missing
//! forward or a page read for the wrong pipe shows up as a stale answer.
//!
//! Timing as the block documents it: a write accepted in cycle t is checked
//! in t + 1 (a HEAD against the tail as the events up to t left it) and
//! applied in t + 2. The test plays the RX engine's part in a restart: the
//! engine reports it applied (`events.restart`) two cycles after the register
//! file reported it, with no frame event for that pipe in between. A gate may
//! be shut until then, and sees a head write a cycle late.

use crate::common;
use common::pick;
use pendulum_hdl::mmio::{RegFile, GATES, GATE_ATOMIC, GATE_LINK};
use pendulum_hdl::types::MmioWrite;
use pendulum_layout::params::{NOTIF_BUFS, PIPES, SLOT_BITS};
use pendulum_layout::ring::UNIT_BYTES;
use pendulum_layout::{global, pipe, pipe_page};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Default, Debug)]
struct Pipe {
    base_lo: u32,
    base_hi: u32,
    ring_bytes: u32,
    on: bool,
    head: u64,
    tail: u64,
    frames: u32,
    drops: u32,
}

impl Pipe {
    fn mask(&self) -> u64 {
        // Units (`pendulum_layout::ring::UNIT_BYTES`) minus one, as wide as
        // a ring position register.
        ((self.ring_bytes as u64 / UNIT_BYTES as u64).wrapping_sub(1)) & ((1 << SLOT_BITS) - 1)
    }
    fn free(&self) -> u64 {
        self.mask() - (self.tail.wrapping_sub(self.head) & self.mask())
    }
}

/// A notification buffer's registers.
#[derive(Clone, Copy, Default, Debug)]
struct NBuf {
    lo: u32,
    hi: u32,
    bytes: u32,
    on: bool,
    head: u32,
}

/// Counts of what one run saw, for the test to require that each case occurred.
#[derive(Default, Debug)]
struct Seen {
    writes: usize,
    refused: usize,
    restarts: usize,
    head_writes: usize,
    nbuf_switches: usize,
    nbuf_heads: usize,
    reads: usize,
    gate_loads: usize,
    frames: usize,
}

/// The RX registers the test writes, with a value chooser.
const WRITABLE: [pendulum_layout::Reg; 11] = [
    pipe::RING_BASE_LO,
    pipe::RING_BASE_HI,
    pipe::RING_BYTES,
    pipe::CTRL,
    pipe::HEAD,
    pipe::NOTIF_PREFETCH,
    pipe::NBUF_BASE_LO,
    pipe::NBUF_BASE_HI,
    pipe::NBUF_BYTES,
    pipe::NBUF_CTRL,
    pipe::NBUF_HEAD,
];
/// The notification buffer's registers, on the pages of pipes below NOTIF_BUFS.
const NBUF_REGS: [pendulum_layout::Reg; 5] = [
    pipe::NBUF_BASE_LO,
    pipe::NBUF_BASE_HI,
    pipe::NBUF_BYTES,
    pipe::NBUF_CTRL,
    pipe::NBUF_HEAD,
];
const READABLE: [pendulum_layout::Reg; 13] = [
    pipe::PIPE_ID,
    pipe::RING_BASE_LO,
    pipe::RING_BASE_HI,
    pipe::RING_BYTES,
    pipe::NBUF_BASE_LO,
    pipe::NBUF_BYTES,
    pipe::NBUF_CTRL,
    pipe::NBUF_HEAD,
    pipe::CTRL,
    pipe::HEAD,
    pipe::TAIL,
    pipe::RX_FRAMES,
    pipe::DROP_RING_FULL,
];

fn u64_of(b: Bits<64>) -> u64 {
    (b.get_bits::<32>(32).index() as u64) << 32 | b.get_bits::<32>(0).index() as u64
}

/// The value a pipe register reads as, in the model.
fn read_model(p: &Pipe, idx: usize, off: u32, bufs: &[NBuf]) -> u32 {
    if NBUF_REGS.iter().any(|r| r.offset == off) {
        // Only the pages of pipes below NOTIF_BUFS have them.
        let Some(b) = bufs.get(idx) else {
            return u32::MAX;
        };
        return match off {
            o if o == pipe::NBUF_BASE_LO.offset => b.lo,
            o if o == pipe::NBUF_BASE_HI.offset => b.hi,
            o if o == pipe::NBUF_BYTES.offset => b.bytes,
            o if o == pipe::NBUF_CTRL.offset => b.on as u32,
            _ => b.head,
        };
    }
    match off {
        o if o == pipe::PIPE_ID.offset => idx as u32,
        o if o == pipe::RING_BASE_LO.offset => p.base_lo,
        o if o == pipe::RING_BASE_HI.offset => p.base_hi,
        o if o == pipe::RING_BYTES.offset => p.ring_bytes,
        o if o == pipe::CTRL.offset => p.on as u32,
        o if o == pipe::HEAD.offset => p.head as u32,
        o if o == pipe::TAIL.offset => p.tail as u32,
        o if o == pipe::RX_FRAMES.offset => p.frames,
        o if o == pipe::DROP_RING_FULL.offset => p.drops,
        _ => unreachable!(),
    }
}

fn connect_inputs(uut: &mut RegFile) {
    uut.s_wr.data.connect();
    uut.s_wr.valid.connect();
    uut.s_rd.data.connect();
    uut.s_rd.valid.connect();
    uut.m_rsp.ready.connect();
    uut.events.pipe.connect();
    uut.events.frame.connect();
    uut.events.frame_bytes.connect();
    uut.events.tail.connect();
    uut.events.drop_ring_full.connect();
    uut.events.drop_malformed.connect();
    uut.events.drop_pipe_off.connect();
    uut.events.restart.connect();
    uut.events.restart_mask.connect();
    uut.events.restart_enable.connect();
    uut.events.notification.connect();
    uut.tx_engine.fe_addr.connect();
    uut.tx_engine.cp_addr.connect();
    uut.tx_engine.head_move.connect();
    uut.tx_engine.head_pipe.connect();
    uut.tx_engine.head_value.connect();
    uut.tx_events.pipe.connect();
    uut.tx_events.frame.connect();
    uut.tx_events.frame_bytes.connect();
    uut.tx_events.drop_malformed.connect();
    uut.tx_events.completion.connect();
    uut.atomic_verb.connect();
    uut.atomic_error.connect();
    uut.link_state.connect();
    uut.link_events.record.connect();
    uut.link_events.bad_check.connect();
    uut.link_events.bad_record.connect();
    uut.link_events.commit.connect();
    uut.link_events.deliver.connect();
    uut.link_events.reject.connect();
    uut.link_events.reverse.connect();
    uut.link_events.failure.connect();
    uut.link_events.entangle.connect();
    uut.link_events.returned.connect();
    uut.link_active.connect();
    uut.flow_hit.connect();
    uut.flow_miss.connect();
    uut.rx_overflow_drops.connect();
}

fn run(seed: u64, cycles: usize) -> Seen {
    let mut uut = RegFile::new(16, 65536);
    connect_inputs(&mut uut);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RegFile>| x.clock.next = !x.clock.val());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let out = seen.clone();
    sim.add_testbench(move |mut sim: Sim<RegFile>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut pipes = [Pipe::default(); PIPES];
        let mut bufs = [NBuf::default(); NOTIF_BUFS];
        let mut reg_errors = 0u32;
        // The gates' pipes (LINK_RX_PIPE, ATOMIC_RX_PIPE).
        let mut gate_pipe = [0usize; GATES];
        // The write accepted last cycle (checked in this one), and the one
        // accepted the cycle before (applied in this one).
        let mut checking: Option<(u32, u32)> = None;
        let mut applying: Option<(u32, u32)> = None;
        // The pipes as the cycle before last left them.
        let mut pipes_prev = pipes;
        // A restart the RX engine applies at a cycle: (cycle, pipe, mask, on).
        let mut engine_restart: Option<(usize, usize, u64, bool)> = None;
        let mut tail_read: Option<usize> = None;
        // Reads accepted, with the value they must answer.
        let mut answers: VecDeque<u32> = VecDeque::new();
        // Counter values as of the end of the previous cycle (a counter read
        // sees events up to the cycle before it is accepted).
        let mut counts_before = [(0u32, 0u32); PIPES];
        wait_clock_false!(sim, clock, x);
        for cycle in 0..cycles {
            // ---- Inputs ----
            let p = pick(&mut rng);
            let wr = match rng.gen_range(0..100) {
                0..=3 => {
                    let reg = if rng.gen_bool(0.5) {
                        global::LINK_RX_PIPE
                    } else {
                        global::ATOMIC_RX_PIPE
                    };
                    // Now and then a pipe that does not exist (refused).
                    let v = if rng.gen_bool(0.9) {
                        pick(&mut rng) as u32
                    } else {
                        PIPES as u32
                    };
                    Some((reg.offset, v))
                }
                4..=40 => {
                    let reg = WRITABLE[rng.gen_range(0..WRITABLE.len())];
                    let pp = pipes[p];
                    // A buffer's registers mostly on its own page (pipe
                    // p's buffer), now and then on a page without them.
                    let page = if NBUF_REGS.contains(&reg) && rng.gen_bool(0.9) {
                        p % NOTIF_BUFS
                    } else {
                        p
                    };
                    let v = match reg.offset {
                        o if o == pipe::RING_BYTES.offset || o == pipe::NBUF_BYTES.offset => {
                            // 512 B to 4 MiB, a power of two or not.
                            (1u32 << rng.gen_range(9..23)) + if rng.gen_bool(0.1) { 64 } else { 0 }
                        }
                        o if o == pipe::CTRL.offset || o == pipe::NBUF_CTRL.offset => {
                            rng.gen_bool(0.5) as u32
                        }
                        o if o == pipe::HEAD.offset => {
                            if rng.gen_bool(0.85) {
                                let held = pp.tail.wrapping_sub(pp.head) & pp.mask();
                                ((pp.head + rng.gen_range(0..=held)) & pp.mask()) as u32
                            } else {
                                rng.gen_range(0..1 << (SLOT_BITS + 1))
                            }
                        }
                        o if o == pipe::RING_BASE_LO.offset => {
                            rng.gen::<u32>()
                                & if rng.gen_bool(0.9) {
                                    !(pipe::RING_ALIGN as u32 - 1)
                                } else {
                                    !0
                                }
                        }
                        o if o == pipe::NBUF_BASE_LO.offset => {
                            rng.gen::<u32>()
                                & if rng.gen_bool(0.9) {
                                    !(pipe::NOTIF_ALIGN as u32 - 1)
                                } else {
                                    !0
                                }
                        }
                        _ => rng.gen(),
                    };
                    Some((pipe_page(page) + reg.offset, v))
                }
                _ => None,
            };
            x.s_wr.valid.next = wr.is_some();
            if let Some((addr, data)) = wr {
                x.s_wr.data.next = MmioWrite {
                    addr: (addr as u64).into(),
                    data: (data as u64).into(),
                };
            }
            let rd = if let Some(rp) = tail_read.take() {
                // Right after a restart, its pipe's TAIL (which must read 0).
                Some((rp, pipe::TAIL.offset, pipe_page(rp) + pipe::TAIL.offset))
            } else if rng.gen_bool(0.3) {
                let reg = READABLE[rng.gen_range(0..READABLE.len())];
                let rp = pick(&mut rng);
                let rp = if NBUF_REGS.contains(&reg) && rng.gen_bool(0.8) {
                    rp % NOTIF_BUFS
                } else {
                    rp
                };
                Some((rp, reg.offset, pipe_page(rp) + reg.offset))
            } else if rng.gen_bool(0.05) {
                Some((
                    usize::MAX,
                    global::REG_ERRORS.offset,
                    global::REG_ERRORS.offset,
                ))
            } else {
                None
            };
            x.s_rd.valid.next = rd.is_some();
            if let Some((_, _, addr)) = rd {
                x.s_rd.data.next = (addr as u64).into();
            }
            x.m_rsp.ready.next = rng.gen_bool(0.7);
            // The datapath: a frame or a ring-full drop for an enabled pipe
            // not being written this cycle (the RX engine never publishes for
            // a pipe in the cycle it restarts).
            let ep = pick(&mut rng);
            let apply_pipe =
                applying.and_then(|(a, _)| (a >= pipe_page(0)).then(|| (a / 4096 - 1) as usize));
            let mut frame = None;
            let mut full = false;
            let restarting = engine_restart.map(|r| r.1);
            let engine_restarts_now = engine_restart.filter(|r| r.0 == cycle);
            if pipes[ep].on
                && apply_pipe != Some(ep)
                && restarting != Some(ep)
                && engine_restarts_now.is_none()
                && rng.gen_bool(0.4)
            {
                if rng.gen_bool(0.8) && pipes[ep].free() > 0 {
                    let k = rng.gen_range(1..=pipes[ep].free().min(4));
                    frame = Some((pipes[ep].tail + k) & pipes[ep].mask());
                } else {
                    full = true;
                }
            }
            x.events.pipe.next = (ep as u64).into();
            x.events.frame.next = frame.is_some();
            x.events.tail.next = frame.unwrap_or(0).into();
            x.events.frame_bytes.next = 64u64.into();
            x.events.drop_ring_full.next = full;
            x.events.restart.next = engine_restarts_now.is_some();
            if let Some((_, rp, mask, on)) = engine_restarts_now {
                x.events.pipe.next = (rp as u64).into();
                x.events.restart_mask.next = mask.into();
                x.events.restart_enable.next = on;
                engine_restart = None;
            }
            let snapshot = pipes;
            x = sim.wait(1, x)?;

            // ---- Outputs, against the model ----
            let mut s = out.lock().unwrap();
            for g in 0..GATES {
                let gp = &pipes[gate_pipe[g]];
                let got = (
                    x.gate_head[g].val().index() as u64,
                    x.gate_tail[g].val().index() as u64,
                    x.gate_mask[g].val().index() as u64,
                    x.gate_enable[g].val(),
                );
                // A gate shut on a pipe that is off, or while the engine has
                // not applied its restart, needs nothing else right; a head
                // write reaches it a cycle late.
                let head_ok = got.0 == gp.head || got.0 == pipes_prev[gate_pipe[g]].head;
                let want = if gp.on && (got.3 || restarting != Some(gate_pipe[g])) {
                    (
                        if head_ok { got.0 } else { gp.head },
                        gp.tail,
                        gp.mask(),
                        true,
                    )
                } else {
                    (got.0, got.1, got.2, false)
                };
                assert_eq!(
                    got, want,
                    "cycle {cycle}: gate {g} for pipe {} ({gp:?})",
                    gate_pipe[g]
                );
            }
            // The write accepted two cycles ago is applied now, on the state
            // the events before this cycle left (a HEAD checked on the tail
            // as the events before last cycle left it).
            let (mut restart, mut head_wr, mut rearm, mut refused) = (false, None, false, false);
            let (mut nbuf_cfg, mut nbuf_head) = (false, false);
            if let Some((addr, v)) = applying.take() {
                s.writes += 1;
                if addr < pipe_page(0) {
                    let g = if addr == global::LINK_RX_PIPE.offset {
                        GATE_LINK
                    } else {
                        GATE_ATOMIC
                    };
                    if (v as usize) < PIPES {
                        gate_pipe[g] = v as usize;
                        s.gate_loads += 1;
                    } else {
                        refused = true;
                    }
                } else {
                    let i = (addr / 4096 - 1) as usize;
                    let off = addr % 4096;
                    let pp = &mut pipes[i];
                    let config = [pipe::RING_BASE_LO, pipe::RING_BASE_HI, pipe::RING_BYTES]
                        .iter()
                        .any(|r| r.offset == off);
                    let nbuf_reg = NBUF_REGS.iter().any(|r| r.offset == off);
                    if nbuf_reg {
                        match bufs.get_mut(i) {
                            None => refused = true,
                            Some(b) => {
                                let config =
                                    off != pipe::NBUF_CTRL.offset && off != pipe::NBUF_HEAD.offset;
                                if config && b.on {
                                    refused = true;
                                } else if off == pipe::NBUF_BASE_LO.offset {
                                    if v as u64 % pipe::NOTIF_ALIGN != 0 {
                                        refused = true
                                    } else {
                                        b.lo = v
                                    }
                                } else if off == pipe::NBUF_BASE_HI.offset {
                                    b.hi = v;
                                } else if off == pipe::NBUF_BYTES.offset {
                                    if !v.is_power_of_two() || !(4096..=2 << 20).contains(&v) {
                                        refused = true
                                    } else {
                                        b.bytes = v
                                    }
                                } else if off == pipe::NBUF_CTRL.offset {
                                    let on = v & 1 != 0;
                                    if on && b.bytes == 0 {
                                        refused = true;
                                    } else {
                                        nbuf_cfg = on != b.on;
                                        if on && !b.on {
                                            b.head = 0;
                                        }
                                        b.on = on;
                                    }
                                } else {
                                    b.head = v;
                                    nbuf_head = true;
                                }
                                if nbuf_cfg {
                                    assert_eq!(x.wr_pipe.val().index(), i, "cycle {cycle}");
                                    assert_eq!(x.nbuf_config.cfg_on.val(), b.on, "cycle {cycle}");
                                    if b.on {
                                        assert_eq!(
                                            u64_of(x.nbuf_config.cfg_base.val()),
                                            (b.hi as u64) << 32 | b.lo as u64,
                                            "cycle {cycle}: buffer {i}'s address"
                                        );
                                        assert_eq!(
                                            x.nbuf_config.cfg_mask.val().index() as u32,
                                            b.bytes / 16 - 1,
                                            "cycle {cycle}: buffer {i}'s size"
                                        );
                                    }
                                    s.nbuf_switches += 1;
                                }
                                if nbuf_head {
                                    assert_eq!(x.wr_pipe.val().index(), i, "cycle {cycle}");
                                    assert_eq!(
                                        x.nbuf_config.head.val().index() as u32,
                                        v,
                                        "cycle {cycle}"
                                    );
                                    s.nbuf_heads += 1;
                                }
                            }
                        }
                    } else if config && pp.on {
                        refused = true;
                    } else if off == pipe::RING_BASE_LO.offset {
                        if v as u64 % pipe::RING_ALIGN != 0 {
                            refused = true
                        } else {
                            pp.base_lo = v
                        }
                    } else if off == pipe::RING_BASE_HI.offset {
                        pp.base_hi = v;
                    } else if off == pipe::RING_BYTES.offset {
                        if !v.is_power_of_two() || !(4096..=2 << 20).contains(&v) {
                            refused = true
                        } else {
                            pp.ring_bytes = v
                        }
                    } else if off == pipe::CTRL.offset {
                        let on = v & 1 != 0;
                        if on && pp.ring_bytes == 0 {
                            refused = true;
                        } else if on && !pp.on && !bufs[i % NOTIF_BUFS].on {
                            // Its notification buffer is off.
                            refused = true;
                        } else {
                            restart = on != pp.on;
                            if on && !pp.on {
                                head_wr = Some(0);
                                pp.head = 0;
                            }
                            if restart {
                                pp.tail = 0;
                            }
                            pp.on = on;
                        }
                    } else if off == pipe::HEAD.offset {
                        let m = pp.mask();
                        let v = v as u64;
                        let tail = pipes_prev[i].tail;
                        if v < 1 << SLOT_BITS
                            && v & !m == 0
                            && (v.wrapping_sub(pp.head) & m) <= (tail.wrapping_sub(pp.head) & m)
                        {
                            pp.head = v;
                            head_wr = Some(v);
                            rearm = true;
                        } else {
                            refused = true;
                        }
                    } else if off == pipe::NOTIF_PREFETCH.offset {
                        rearm = true;
                    }
                    if restart {
                        assert_eq!(x.wr_pipe.val().index(), i, "cycle {cycle}");
                        assert_eq!(
                            u64_of(x.restart_base.val()),
                            (pp.base_hi as u64) << 32 | pp.base_lo as u64,
                            "cycle {cycle}"
                        );
                        assert_eq!(
                            x.restart_mask.val().index() as u64,
                            pp.mask(),
                            "cycle {cycle}"
                        );
                        assert_eq!(x.restart_enable.val(), pp.on, "cycle {cycle}");
                        s.restarts += 1;
                        engine_restart = Some((cycle + 2, i, pp.mask(), pp.on));
                        tail_read = Some(i);
                    }
                    if let Some(h) = head_wr {
                        assert_eq!(x.wr_pipe.val().index(), i, "cycle {cycle}");
                        assert_eq!(x.wr_head.val().index() as u64, h, "cycle {cycle}");
                        s.head_writes += 1;
                    }
                    if rearm {
                        assert_eq!(x.wr_pipe.val().index(), i, "cycle {cycle}");
                    }
                }
                if refused {
                    reg_errors += 1;
                    s.refused += 1;
                }
            }
            assert_eq!(x.restart.val(), restart, "cycle {cycle}: restart");
            assert_eq!(x.head_wr.val(), head_wr.is_some(), "cycle {cycle}: head_wr");
            assert_eq!(x.rearm.val(), rearm, "cycle {cycle}: rearm");
            assert_eq!(x.nbuf_config.cfg.val(), nbuf_cfg, "cycle {cycle}: nbuf_cfg");
            assert_eq!(
                x.nbuf_config.head_wr.val(),
                nbuf_head,
                "cycle {cycle}: nbuf_head_wr"
            );
            // This cycle's events.
            if let Some(t) = frame {
                pipes[ep].tail = t;
                pipes[ep].frames += 1;
                s.frames += 1;
            }
            if full {
                pipes[ep].drops += 1;
            }
            // Handshakes.
            if x.m_rsp.valid.val() && x.m_rsp.ready.val() {
                let want = answers.pop_front().expect("an answer with no read");
                assert_eq!(
                    x.m_rsp.data.val().index() as u32,
                    want,
                    "cycle {cycle}: read answer"
                );
                s.reads += 1;
            }
            if x.s_rd.valid.val() && x.s_rd.ready.val() {
                let (rp, off, _) = rd.unwrap();
                let want = if rp == usize::MAX {
                    reg_errors
                } else if off == pipe::RX_FRAMES.offset {
                    counts_before[rp].0
                } else if off == pipe::DROP_RING_FULL.offset {
                    counts_before[rp].1
                } else {
                    read_model(&pipes[rp], rp, off, &bufs)
                };
                answers.push_back(want);
            }
            applying = checking.take();
            if x.s_wr.valid.val() && x.s_wr.ready.val() {
                checking = wr;
            }
            pipes_prev = snapshot;
            for (c, pp) in counts_before.iter_mut().zip(pipes.iter()) {
                *c = (pp.frames, pp.drops);
            }
            drop(s);
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000).unwrap();
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

#[test]
fn register_file_answers_and_reports_as_the_model_does() {
    for seed in 1..=3 {
        // (A write every third cycle at most: 12,000 cycles for the cases below.)
        let s = run(seed, 12_000);
        eprintln!("seed {seed}: {s:?}");
        assert!(s.restarts > 50, "{s:?}");
        assert!(s.head_writes > 100, "{s:?}");
        assert!(s.refused > 100, "{s:?}");
        assert!(s.reads > 300, "{s:?}");
        assert!(s.gate_loads > 20, "{s:?}");
        assert!(s.frames > 300, "{s:?}");
        assert!(s.nbuf_switches > 20, "{s:?}");
        assert!(s.nbuf_heads > 20, "{s:?}");
    }
}

#[test]
fn register_file_is_synthesizable() {
    let mut uut = RegFile::new(16, 65536);
    uut.connect_all();
    yosys_validate("pendulum_reg_file", &generate_verilog(&uut))
        .unwrap_or_else(|e| panic!("{e:?}"));
}

/// RX_OVERFLOW_DROPS reads the count the board's RX crossing gives, and a
/// write to it is refused as read-only.
#[test]
fn rx_overflow_drops_reads_its_input_and_refuses_writes() {
    let mut uut = RegFile::new(16, 65536);
    connect_inputs(&mut uut);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RegFile>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<RegFile>| {
        let mut x = sim.init()?;
        let reg = global::RX_OVERFLOW_DROPS.offset;
        let mut answers = Vec::new();
        wait_clock_false!(sim, clock, x);
        x.rx_overflow_drops.next = 0x8000_0005u64.into();
        x.m_rsp.ready.next = true;
        // Read it, write it, then read the error registers.
        let mut steps = vec![
            (false, global::LAST_REG_ERROR.offset),
            (false, global::REG_ERRORS.offset),
            (true, reg),
            (false, reg),
        ];
        for _ in 0..60 {
            let step = steps.last().copied();
            x.s_rd.valid.next = matches!(step, Some((false, _)));
            x.s_wr.valid.next = matches!(step, Some((true, _)));
            if let Some((_, addr)) = step {
                x.s_rd.data.next = (addr as u64).into();
                x.s_wr.data.next = MmioWrite {
                    addr: (addr as u64).into(),
                    data: 7u64.into(),
                };
            }
            x = sim.wait(1, x)?;
            let taken = (x.s_rd.valid.val() && x.s_rd.ready.val())
                || (x.s_wr.valid.val() && x.s_wr.ready.val());
            if x.m_rsp.valid.val() {
                answers.push(x.m_rsp.data.val().index() as u32);
            }
            wait_clock_true!(sim, clock, x);
            if taken {
                steps.pop();
            }
            wait_clock_false!(sim, clock, x);
        }
        let cause = (pendulum_layout::RegError::ReadOnly as u32)
            << pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT;
        sim_assert_eq!(sim, answers, vec![0x8000_0005, 1, cause | reg], x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000).unwrap();
}
