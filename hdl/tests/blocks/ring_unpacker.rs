//! The ring unpacker alone, in rust-hdl's simulator, against a model that
//! walks the ring's bytes unit by unit: software posts entries (v2,
//! `pendulum_layout::ring`) of random length into a ring and rings runs of
//! them; a fetcher model reads each run as whole 64-byte lines, in reads of
//! 1–8 lines that never cross the ring's end. Some entries have a length of
//! 0 or over the MTU, some runs end inside an entry (software rang a tail
//! there), and some runs are cut short (the pipe restarted: only their first
//! lines come). The input idles and the output stalls at random. Every beat
//! must be what the walk says, in order: frames byte for byte from byte 0
//! with their byte enables, each bad entry one `bad` beat, and the entries
//! after a bad one still found.
//! Then, with nothing stalling, back-to-back entries must leave at the
//! rate the module docs promise.

use crate::common::{bits512, bytes512};
use pendulum_hdl::enso::RingUnpacker;
use pendulum_hdl::types::{CplBeat, TxEntryBeat, TxReadInfo};
use pendulum_layout::params::{MAX_FRAME_BYTES, TX_PIPES};
use pendulum_layout::ring::{entry_units, write_entry, EntryHeader, UNIT_BYTES};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const LINE_UNITS: u32 = 4;

/// A beat as the test compares it.
#[derive(Clone, Debug, PartialEq)]
struct Beat {
    sop: bool,
    last: bool,
    bad: bool,
    abort: bool,
    pipe: u64,
    start: u64,
    end: u64,
    len: u64,
    /// The frame's bytes in the beat (its kept bytes); empty for a bad or
    /// aborted beat, whose data means nothing.
    data: Vec<u8>,
}

/// One read: its info and its lines.
struct Read {
    info: TxReadInfo,
    lines: Vec<[u8; 64]>,
}

struct Ring {
    bytes: Vec<u8>,
    units: u32,
}

impl Ring {
    fn unit(&self, at: u32) -> [u8; 16] {
        let i = (at % self.units) as usize * UNIT_BYTES;
        self.bytes[i..i + UNIT_BYTES].try_into().unwrap()
    }
    fn line(&self, line: u32) -> [u8; 64] {
        let i = (line % (self.units / LINE_UNITS)) as usize * 64;
        self.bytes[i..i + 64].try_into().unwrap()
    }
    /// `len` bytes from unit `at` on, wrapping.
    fn frame(&self, at: u32, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| {
                let u = (at + (i / UNIT_BYTES) as u32) % self.units;
                self.bytes[u as usize * UNIT_BYTES + i % UNIT_BYTES]
            })
            .collect()
    }
}

/// What the unpacker must hand out for a run of `run_units` from `start`
/// of which only the first `lines` lines arrive: the walk of the ring's
/// units, independent of how the block holds them.
fn expect_run(ring: &Ring, pipe: u64, start: u32, run_units: u32, lines: u32) -> Vec<Beat> {
    let mask = ring.units - 1;
    let arrived = lines * LINE_UNITS;
    let mut out = Vec::new();
    let mut rel = start % LINE_UNITS;
    let mut at = start;
    let mut left = run_units;
    let bad = |at: u32, end: u32, header: [u8; 16]| Beat {
        sop: true,
        last: true,
        bad: true,
        abort: false,
        pipe,
        start: at.into(),
        end: (end & mask).into(),
        len: u16::from_le_bytes([header[0], header[1]]).into(),
        data: Vec::new(),
    };
    while left > 0 && rel < arrived {
        let header = ring.unit(at);
        let len = u16::from_le_bytes([header[0], header[1]]) as u32;
        let units = entry_units(len);
        let data_units = units - 1;
        if units > left {
            out.push(bad(at, at + left, header));
            return out;
        }
        if len == 0 || len > MAX_FRAME_BYTES {
            out.push(bad(at, at + units, header));
        } else {
            if rel + 1 + data_units.min(4) > arrived {
                // The first beat's units never come: the run was cut.
                out.push(bad(at, at + left, header));
                return out;
            }
            let frame = ring.frame(at + 1, len as usize);
            let beats = data_units.div_ceil(4);
            for b in 0..beats {
                let n = (data_units - 4 * b).min(4);
                if rel + 1 + 4 * b + n > arrived {
                    out.push(Beat {
                        sop: false,
                        last: true,
                        bad: false,
                        abort: true,
                        pipe,
                        start: at.into(),
                        end: ((at + units) & mask).into(),
                        len: len.into(),
                        data: Vec::new(),
                    });
                    return out;
                }
                let lo = 64 * b as usize;
                let hi = (lo + 64).min(len as usize);
                out.push(Beat {
                    sop: b == 0,
                    last: b + 1 == beats,
                    bad: false,
                    abort: false,
                    pipe,
                    start: at.into(),
                    end: ((at + units) & mask).into(),
                    len: len.into(),
                    data: frame[lo..hi].to_vec(),
                });
            }
        }
        at = (at + units) & mask;
        rel += units;
        left -= units;
    }
    out
}

/// Lengths around every unit and beat boundary, and a few long frames.
const LENS: &[u32] = &[
    1,
    15,
    16,
    17,
    48,
    49,
    60,
    63,
    64,
    65,
    72,
    79,
    80,
    81,
    100,
    127,
    128,
    129,
    191,
    192,
    193,
    240,
    241,
    256,
    257,
    300,
    1024,
    1500,
    1518,
    MAX_FRAME_BYTES,
];

struct Gen {
    rng: rand_chacha::ChaCha8Rng,
    ring: Ring,
    pipe: u64,
    tail: u32,
    p_bad: f64,
    p_over: f64,
    p_cut: f64,
    lens: &'static [u32],
    max_entries: u32,
    /// A tail rung inside an entry is just past its header.
    over_at_header: bool,
    /// Cycles the entries need at least: the lines they fill, or the
    /// beats their frames make, whichever is more.
    floor_cycles: f64,
}

impl Gen {
    /// Posts a run's entries, then reads it: its reads, and the beats due.
    fn run(&mut self, last: bool) -> (Vec<Read>, Vec<Beat>) {
        let units = self.ring.units;
        let start = self.tail;
        let mut at = start;
        let mut used = 0;
        let mut last_need = 0;
        let n = self.rng.gen_range(1..=self.max_entries);
        for _ in 0..n {
            let bad = self.rng.gen_bool(self.p_bad);
            let len = if bad {
                // 0, or over the MTU but small enough to skip within a run.
                let max_over = (units - 2) * UNIT_BYTES as u32;
                if self.rng.gen_bool(0.5) || max_over <= MAX_FRAME_BYTES {
                    0
                } else {
                    self.rng.gen_range(MAX_FRAME_BYTES + 1..=max_over)
                }
            } else {
                self.lens[self.rng.gen_range(0..self.lens.len())]
            };
            let need = entry_units(len);
            if used + need >= units {
                break;
            }
            let header = EntryHeader {
                len: len as u16,
                flags: self.rng.gen(),
                hash: self.rng.gen(),
                timestamp: self.rng.gen(),
            };
            if bad {
                // Only the header is written: its units are not a frame.
                let rec = header.to_bytes();
                let i = at as usize * UNIT_BYTES;
                self.ring.bytes[i..i + UNIT_BYTES].copy_from_slice(&rec);
                at = (at + need) & (units - 1);
            } else {
                let frame: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
                at = write_entry(&mut self.ring.bytes, at, &header, &frame);
                self.floor_cycles += (f64::from(need) / 4.0).max(len.div_ceil(64).into());
            }
            used += need;
            last_need = need;
        }
        let mut run_units = used;
        if used == 0 {
            // Nothing fitted: a one-unit entry of length 0 (bad, skipped).
            let i = at as usize * UNIT_BYTES;
            self.ring.bytes[i..i + 2].copy_from_slice(&[0, 0]);
            run_units = 1;
        } else if self.rng.gen_bool(self.p_over) && used > 1 {
            // Software rang a tail inside an entry.
            run_units = if self.over_at_header && last_need > 1 {
                used - last_need + 1
            } else {
                self.rng.gen_range(1..used)
            };
        }
        let total_lines = (start % LINE_UNITS + run_units).div_ceil(LINE_UNITS);
        let lines = if !last && total_lines > 1 && self.rng.gen_bool(self.p_cut) {
            self.rng.gen_range(1..total_lines)
        } else {
            total_lines
        };
        let beats = expect_run(&self.ring, self.pipe, start, run_units, lines);
        // The fetcher's reads: 1–8 lines, never across the ring's end.
        let ring_lines = units / LINE_UNITS;
        let mut line = start / LINE_UNITS;
        let mut reads = Vec::new();
        let mut left = lines;
        while left > 0 {
            let to_end = ring_lines - line % ring_lines;
            let n = self.rng.gen_range(1..=8u32).min(left).min(to_end);
            // A read that does not start a run carries junk in its fields.
            let first = reads.is_empty();
            let info = TxReadInfo {
                pipe: if first {
                    self.pipe.into()
                } else {
                    self.rng.gen_range(0..TX_PIPES as u64).into()
                },
                run_start: first,
                // Only a run that is read to its tail has a last read.
                run_end: n == left && lines == total_lines,
                unit: u64::from(if first {
                    start
                } else {
                    self.rng.gen::<u16>().into()
                })
                .into(),
                run_units: u64::from(if first {
                    run_units
                } else {
                    self.rng.gen::<u16>().into()
                })
                .into(),
                mask: u64::from(if first {
                    units - 1
                } else {
                    self.rng.gen::<u16>().into()
                })
                .into(),
            };
            let lines = (0..n).map(|k| self.ring.line(line + k)).collect();
            reads.push(Read { info, lines });
            line = (line + n) % ring_lines;
            left -= n;
        }
        self.tail = if lines < total_lines {
            // The pipe restarted: software starts again anywhere.
            self.rng.gen_range(0..units)
        } else {
            (start + run_units) & (units - 1)
        };
        (reads, beats)
    }
}

struct Run {
    seed: u64,
    runs: usize,
    ring_units: u32,
    p_valid: f64,
    p_ready: f64,
    p_bad: f64,
    p_over: f64,
    p_cut: f64,
    lens: &'static [u32],
    max_entries: u32,
    over_at_header: bool,
}

#[derive(Default, Debug)]
struct Stats {
    floor_cycles: f64,
    beats: usize,
    bad: usize,
    aborts: usize,
    cycles: u64,
    lines: u64,
}

fn beat_of(b: &TxEntryBeat) -> Beat {
    let keep = b.keep.to_u64();
    let kept = keep.trailing_ones() as usize;
    assert_eq!(
        keep,
        if kept == 64 {
            u64::MAX
        } else {
            (1 << kept) - 1
        },
        "byte enables not contiguous from byte 0"
    );
    Beat {
        sop: b.sop,
        last: b.last,
        bad: b.bad,
        abort: b.abort,
        pipe: b.pipe.to_u64(),
        start: b.start.to_u64(),
        end: b.end.to_u64(),
        len: b.len.to_u64(),
        data: if b.bad || b.abort {
            Vec::new()
        } else {
            bytes512(b.data)[..kept].to_vec()
        },
    }
}

fn run(r: Run) -> Stats {
    let mut uut = RingUnpacker::new();
    uut.s_line.data.connect();
    uut.s_line.valid.connect();
    uut.s_info.data.connect();
    uut.s_info.valid.connect();
    uut.m.ready.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RingUnpacker>| x.clock.next = !x.clock.val());
    let out = Arc::new(Mutex::new(Stats::default()));
    let stats = out.clone();
    sim.add_testbench(move |mut sim: Sim<RingUnpacker>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(r.seed);
        let mut bytes = vec![0u8; r.ring_units as usize * UNIT_BYTES];
        rng.fill(&mut bytes[..]);
        let mut gen = Gen {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(r.seed ^ 0x5eed),
            ring: Ring {
                bytes,
                units: r.ring_units,
            },
            pipe: rng.gen_range(0..TX_PIPES as u64),
            tail: rng.gen_range(0..r.ring_units),
            p_bad: r.p_bad,
            p_over: r.p_over,
            p_cut: r.p_cut,
            lens: r.lens,
            max_entries: r.max_entries,
            over_at_header: r.over_at_header,
            floor_cycles: 0.0,
        };
        let mut st = Stats::default();
        let mut infos: VecDeque<TxReadInfo> = VecDeque::new();
        let mut lines: VecDeque<CplBeat> = VecDeque::new();
        let mut want: VecDeque<Beat> = VecDeque::new();
        for k in 0..r.runs {
            let (reads, beats) = gen.run(k + 1 == r.runs);
            for rd in reads {
                infos.push_back(rd.info);
                let n = rd.lines.len();
                for (i, l) in rd.lines.iter().enumerate() {
                    lines.push_back(CplBeat {
                        data: bits512(l),
                        last: i + 1 == n,
                    });
                }
            }
            want.extend(beats);
        }
        let total = want.len();
        st.floor_cycles = gen.floor_cycles;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut idle = 0;
        while !want.is_empty() {
            x.s_line.data.next = lines.front().copied().unwrap_or_default();
            x.s_line.valid.next = !lines.is_empty() && rng.gen_bool(r.p_valid);
            x.s_info.data.next = infos.front().copied().unwrap_or_default();
            x.s_info.valid.next = !infos.is_empty() && rng.gen_bool(r.p_valid);
            x.m.ready.next = rng.gen_bool(r.p_ready);
            x = sim.wait(1, x)?;
            st.cycles += 1;
            if x.s_line.valid.val() && x.s_line.ready.val() {
                lines.pop_front();
                st.lines += 1;
            }
            assert_eq!(
                x.line_taken.val(),
                x.s_line.valid.val() && x.s_line.ready.val(),
                "line_taken is the input's handshake"
            );
            if x.s_info.valid.val() && x.s_info.ready.val() {
                infos.pop_front();
            }
            if x.m.valid.val() && x.m.ready.val() {
                let got = beat_of(&x.m.data.val());
                let due = want.pop_front().unwrap();
                assert_eq!(
                    got,
                    due,
                    "beat {} of {total} (seed {})",
                    total - want.len(),
                    r.seed
                );
                st.beats += 1;
                st.bad += usize::from(got.bad);
                st.aborts += usize::from(got.abort);
                idle = 0;
            } else {
                idle += 1;
                assert!(
                    idle < 2_000,
                    "no beat for 2000 cycles; {} due, next {:?}",
                    want.len(),
                    want.front()
                );
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        // Nothing more comes out.
        x.m.ready.next = true;
        for _ in 0..20 {
            x.s_line.valid.next = false;
            x.s_info.valid.next = false;
            x = sim.wait(1, x)?;
            assert!(!x.m.valid.val(), "a beat nobody expected");
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        *out.lock().unwrap() = st;
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000_000).unwrap();
    let s = std::mem::take(&mut *stats.lock().unwrap());
    s
}

#[test]
fn entries_come_out_whole_and_aligned_under_random_stalls() {
    for (seed, ring_units) in [(1, 64), (2, 256), (3, 1024), (4, 1024)] {
        let st = run(Run {
            seed,
            runs: 120,
            ring_units,
            p_valid: 0.7,
            p_ready: 0.6,
            p_bad: 0.08,
            p_over: 0.06,
            p_cut: 0.08,
            lens: LENS,
            max_entries: 6,
            over_at_header: false,
        });
        eprintln!("seed {seed}: {st:?}");
        assert!(
            st.beats > 500 && st.bad > 10,
            "seed {seed}: too little tested: {st:?}"
        );
    }
}

#[test]
fn cut_runs_end_their_frame_with_an_abort() {
    let st = run(Run {
        seed: 9,
        runs: 200,
        ring_units: 1024,
        p_valid: 0.9,
        p_ready: 0.9,
        p_bad: 0.0,
        p_over: 0.0,
        p_cut: 0.5,
        lens: LENS,
        max_entries: 6,
        over_at_header: false,
    });
    assert!(st.aborts > 5, "no aborted frames: {st:?}");
}

#[test]
fn back_to_back_entries_leave_at_the_rate_of_lines_or_beats() {
    for len in [60, 64, 65, 100, 128, 1500] {
        let lens: &'static [u32] = Box::leak(Box::new([len]));
        let st = run(Run {
            seed: u64::from(len),
            runs: 12,
            ring_units: 1024,
            p_valid: 1.0,
            p_ready: 1.0,
            p_bad: 0.0,
            p_over: 0.0,
            p_cut: 0.0,
            lens,
            max_entries: 1000,
            over_at_header: false,
        });
        let per_floor = st.cycles as f64 / st.floor_cycles;
        eprintln!(
            "{len} B: {} cycles for a floor of {:.0}: {per_floor:.3}",
            st.cycles, st.floor_cycles
        );
        // A few cycles per run (its start, its tail line) and the pipeline's fill.
        assert!(
            per_floor < 1.03,
            "{len} B: {} cycles where the lines or beats need {:.0}",
            st.cycles,
            st.floor_cycles
        );
    }
}

/// A run whose tail software rang just past an entry's header, with nothing
/// read after it: the entry is one bad beat at once (it cannot wait for a
/// line that is not coming), and the run ends there.
#[test]
fn a_tail_inside_an_entry_costs_that_entry_alone() {
    for seed in 20..36 {
        let st = run(Run {
            seed,
            runs: 3,
            ring_units: 256,
            p_valid: 0.8,
            p_ready: 0.8,
            p_bad: 0.0,
            p_over: 1.0,
            p_cut: 0.0,
            lens: LENS,
            max_entries: 4,
            over_at_header: true,
        });
        assert!(st.bad >= 2, "seed {seed}: {st:?}");
    }
}
