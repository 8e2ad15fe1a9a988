//! The ring packer alone, in rust-hdl's simulator, against a model of host
//! memory: ring entries (a 16-byte header, then the frame) of random length
//! for four pipes with small rings, some abandoned at their last beat,
//! with drops and restarts between them, while the input idles and the DMA
//! port stalls at random. Each published entry's event must come after
//! every byte of it is in memory, once, in order per pipe (restarts too);
//! writes stay inside the rings and never touch a published entry; every
//! PCIe write is of consecutive lines inside one 256-byte block. Then,
//! with nothing stalling, back-to-back entries must share lines and writes:
//! each unit written once, in 256-byte writes.

use crate::common::{bits512, bytes512, pick, USED_PIPES};
use pendulum_hdl::enso::RingPacker;
use pendulum_hdl::types::{PackItem, RxEvent};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

const UNIT: u64 = 16;

fn bits128(bytes: &[u8; 16]) -> Bits<128> {
    let mut b = Bits::<128>::default();
    b.set_bits::<64>(0, u64::from_le_bytes(bytes[..8].try_into().unwrap()).into());
    b.set_bits::<64>(
        64,
        u64::from_le_bytes(bytes[8..].try_into().unwrap()).into(),
    );
    b
}

#[derive(Clone, Copy, Default)]
struct Ring {
    base: u64,
    units: u64,
    tail: u64,
}

/// A published entry: where it is and what it holds (header and frame).
#[derive(Clone, Debug)]
struct Entry {
    id: u64,
    pipe: usize,
    base: u64,
    units_in_ring: u64,
    start: u64,
    bytes: Vec<u8>,
    tail: u64,
}

impl Entry {
    fn units(&self) -> u64 {
        (self.bytes.len() as u64).div_ceil(UNIT)
    }
    fn addr_of(&self, i: usize) -> u64 {
        let unit = (self.start + i as u64 / UNIT) % self.units_in_ring;
        self.base + unit * UNIT + i as u64 % UNIT
    }
    /// Whether units `[start, start + units)` of the same ring overlap it.
    fn overlaps(&self, pipe: usize, base: u64, start: u64, units: u64) -> bool {
        let n = self.units_in_ring;
        pipe == self.pipe
            && base == self.base
            && ((start + n - self.start) % n < self.units() || (self.start + n - start) % n < units)
    }
    fn intact(&self, mem: &HashMap<u64, u8>) -> bool {
        (0..self.bytes.len()).all(|i| mem.get(&self.addr_of(i)) == Some(&self.bytes[i]))
    }
}

/// What the model expects out, in order per pipe.
#[derive(Clone, Debug)]
enum Want {
    Frame(Entry),
    Restart,
}

#[derive(Default, Debug)]
struct Stats {
    frames: usize,
    abandoned: usize,
    drops: usize,
    restarts: usize,
    lines: usize,
    writes: usize,
    bytes: usize,
    cycles: usize,
}

struct Gen {
    rng: rand_chacha::ChaCha8Rng,
    rings: HashMap<usize, Ring>,
    lens: Vec<usize>,
    abandon: f64,
    events: bool,
    /// Published entries software still holds (a newer entry over their
    /// units, or a restart, frees them), and whether their event came.
    held: Vec<(Entry, bool)>,
    next_id: u64,
    /// Every ring any pipe had (writes must land in one).
    all_rings: Vec<Ring>,
    /// Entries for this pipe only.
    only: Option<usize>,
    /// Where the last published entry given ended: pipe and unit (an entry
    /// that starts there continues it: `cont`).
    last_end: Option<(usize, u64)>,
}

impl Gen {
    fn ring(&mut self, pipe: usize) -> Ring {
        let units = [64u64, 128, 256][self.rng.gen_range(0..3)];
        let slot = self.rng.gen_range(0..4u64);
        let r = Ring {
            base: 0x1_0000_0000 + ((pipe as u64) << 20) + slot * 0x4000,
            units,
            tail: 0,
        };
        self.all_rings.push(r);
        r
    }

    /// The next group of items: one entry's beats, or an event alone.
    fn next(&mut self, want: &mut HashMap<usize, VecDeque<Want>>, st: &mut Stats) -> Vec<PackItem> {
        let pipe = self.only.unwrap_or_else(|| pick(&mut self.rng));
        if !self.rings.contains_key(&pipe) {
            let r = self.ring(pipe);
            self.rings.insert(pipe, r);
        }
        let roll = self.rng.gen_range(0..100);
        let mut ev = RxEvent {
            pipe: (pipe as u64).into(),
            ..Default::default()
        };
        if self.events && roll < 4 {
            ev.full = true;
            st.drops += 1;
            return vec![PackItem {
                ev,
                ..Default::default()
            }];
        }
        if self.events && roll < 7 {
            let r = self.ring(pipe);
            self.rings.insert(pipe, r);
            self.held.retain(|(o, _)| o.pipe != pipe);
            if self.last_end.map(|e| e.0) == Some(pipe) {
                self.last_end = None;
            }
            ev.restart = true;
            ev.mask = (r.units - 1).into();
            ev.enable = true;
            want.entry(pipe).or_default().push_back(Want::Restart);
            st.restarts += 1;
            return vec![PackItem {
                ev,
                ..Default::default()
            }];
        }
        let ring = self.rings[&pipe];
        let len = self.lens[self.rng.gen_range(0..self.lens.len())];
        let frame: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
        let header: [u8; 16] = self.rng.gen();
        let units = 1 + (len as u64).div_ceil(UNIT);
        let start = ring.tail;
        let tail = (start + units) % ring.units;
        let published = !self.rng.gen_bool(self.abandon);
        self.held
            .retain(|(o, _)| !o.overlaps(pipe, ring.base, start, units));
        self.next_id += 1;
        let beats = len.div_ceil(64);
        let mut items = Vec::with_capacity(beats);
        for k in 0..beats {
            let chunk = &frame[64 * k..(64 * k + 64).min(len)];
            let last = k + 1 == beats;
            let mut item = PackItem {
                data: bits512(chunk),
                units: (chunk.len().div_ceil(16) as u64).into(),
                sop: k == 0,
                last,
                header: bits128(&header),
                base: ring.base.into(),
                line_mask: (ring.units / 4 - 1).into(),
                start: start.into(),
                cont: self.last_end == Some((pipe, start)),
                ev: RxEvent {
                    pipe: (pipe as u64).into(),
                    ..Default::default()
                },
            };
            if last {
                if published {
                    item.ev.frame = true;
                    item.ev.bytes = (len as u64).into();
                    item.ev.tail = tail.into();
                } else if self.rng.gen_bool(0.5) {
                    item.ev.malformed = true;
                } else {
                    item.ev.off = true;
                }
            }
            items.push(item);
        }
        if published {
            let mut bytes = header.to_vec();
            bytes.extend_from_slice(&frame);
            let e = Entry {
                id: self.next_id,
                pipe,
                base: ring.base,
                units_in_ring: ring.units,
                start,
                bytes,
                tail,
            };
            self.held.push((e.clone(), false));
            want.entry(pipe).or_default().push_back(Want::Frame(e));
            self.rings.get_mut(&pipe).unwrap().tail = tail;
            self.last_end = Some((pipe, tail));
            st.frames += 1;
        } else {
            st.abandoned += 1;
            st.drops += 1;
        }
        items
    }
}

#[derive(Clone)]
struct Run {
    seed: u64,
    groups: usize,
    lens: Vec<usize>,
    p_valid: f64,
    p_ready: f64,
    abandon: f64,
    events: bool,
    one_pipe: bool,
}

fn run(r: Run) -> Stats {
    let mut uut = RingPacker::new();
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m_dma.ready.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RingPacker>| x.clock.next = !x.clock.val());
    let out = Arc::new(Mutex::new(Stats::default()));
    let stats = out.clone();
    sim.add_testbench(move |mut sim: Sim<RingPacker>| {
        let mut x = sim.init()?;
        let mut st = Stats::default();
        let mut gen = Gen {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(r.seed),
            rings: HashMap::new(),
            lens: r.lens.clone(),
            abandon: r.abandon,
            events: r.events,
            held: Vec::new(),
            next_id: 0,
            all_rings: Vec::new(),
            only: r.one_pipe.then_some(USED_PIPES[0]),
            last_end: None,
        };
        if r.one_pipe {
            let ring = Ring {
                base: 0x2_0000_0000,
                units: 256,
                tail: 0,
            };
            gen.rings.insert(USED_PIPES[0], ring);
            gen.all_rings.push(ring);
        }
        let mut want: HashMap<usize, VecDeque<Want>> = HashMap::new();
        let mut items: VecDeque<PackItem> = VecDeque::new();
        let mut mem: HashMap<u64, u8> = HashMap::new();
        let mut drops_seen = 0;
        let mut open_write: Option<u64> = None;
        let mut groups = 0;
        let mut quiet = 0;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        loop {
            while items.len() < 4 && groups < r.groups {
                let g = gen.next(&mut want, &mut st);
                items.extend(g);
                groups += 1;
            }
            if let Some(it) = items.front() {
                x.s.data.next = *it;
            }
            let done = items.is_empty() && groups >= r.groups;
            x.s.valid.next = !items.is_empty() && gen.rng.gen_bool(r.p_valid);
            x.m_dma.ready.next = done || gen.rng.gen_bool(r.p_ready);
            x = sim.wait(1, x)?;
            st.cycles += 1;
            if x.s.valid.val() && x.s.ready.val() {
                if std::env::var("RP_TRACE").is_ok() {
                    let i = x.s.data.val();
                    eprintln!(
                        "c{} item sop {} last {} units {} start {} pipe {} frame {}",
                        st.cycles,
                        i.sop,
                        i.last,
                        i.units.index(),
                        i.start.index(),
                        i.ev.pipe.index(),
                        i.ev.frame
                    );
                }
                items.pop_front();
            }
            if x.m_dma.valid.val() && x.m_dma.ready.val() {
                let w = x.m_dma.data.val();
                let addr = w.addr.to_u64();
                let data = bytes512(w.data);
                let strb = w.strb.to_u64();
                if std::env::var("RP_TRACE").is_ok() {
                    eprintln!(
                        "c{} write {addr:#x} strb {strb:016x} last {}",
                        st.cycles, w.last
                    );
                }
                assert_eq!(addr % 64, 0, "line address {addr:#x}");
                assert_ne!(strb, 0, "a line write with no bytes at {addr:#x}");
                if let Some(prev) = open_write {
                    assert_eq!(addr, prev + 64, "a write's lines are consecutive");
                    assert_eq!(
                        addr / 256,
                        prev / 256,
                        "a write stays in its 256-byte block"
                    );
                } else {
                    st.writes += 1;
                }
                open_write = if w.last { None } else { Some(addr) };
                st.lines += 1;
                for (i, &byte) in data.iter().enumerate() {
                    if strb >> i & 1 == 1 {
                        let a = addr + i as u64;
                        let in_ring = gen
                            .all_rings
                            .iter()
                            .any(|g| a >= g.base && a < g.base + g.units * UNIT);
                        assert!(in_ring, "a write outside every ring at {a:#x}");
                        mem.insert(a, byte);
                        st.bytes += 1;
                    }
                }
                // No published entry still held is touched (it is held until
                // a newer entry of its pipe reuses its units: see below).
                for (e, evented) in &gen.held {
                    assert!(
                        !evented || e.intact(&mem),
                        "pipe {}: entry at unit {} overwritten",
                        e.pipe,
                        e.start
                    );
                }
            }
            let ev = x.ev.val();
            let pipe = ev.pipe.index();
            if ev.full || ev.malformed || ev.off {
                drops_seen += 1;
            }
            if ev.frame || ev.restart {
                let w = want
                    .get_mut(&pipe)
                    .and_then(|q| q.pop_front())
                    .unwrap_or_else(|| panic!("an event for pipe {pipe} nobody expects"));
                match w {
                    Want::Frame(e) => {
                        assert!(
                            ev.frame && !ev.restart,
                            "pipe {pipe}: a restart where a frame's event was due"
                        );
                        assert_eq!(ev.tail.index() as u64, e.tail, "pipe {pipe}: tail");
                        assert_eq!(ev.bytes.index(), e.bytes.len() - 16, "pipe {pipe}: bytes");
                        assert!(
                            e.intact(&mem),
                            "pipe {pipe}: the event came before the entry at unit {} was written",
                            e.start
                        );
                        if let Some(h) = gen.held.iter_mut().find(|(o, _)| o.id == e.id) {
                            h.1 = true;
                        }
                    }
                    Want::Restart => {
                        assert!(
                            ev.restart && !ev.frame,
                            "pipe {pipe}: a frame's event where a restart was due"
                        );
                    }
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
            if done {
                quiet += 1;
                if quiet > 40 {
                    break;
                }
            }
        }
        for (p, q) in &want {
            assert!(
                q.is_empty(),
                "pipe {p}: {} events never came: {:?}",
                q.len(),
                q.front()
            );
        }
        assert!(open_write.is_none(), "a write left open");
        assert_eq!(drops_seen, st.drops, "drop events");
        *out.lock().unwrap() = st;
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000_000).unwrap();
    let s = std::mem::take(&mut *stats.lock().unwrap());
    s
}

/// Lengths around every unit and beat boundary, and a few long frames.
const MIXED: &[usize] = &[
    49, 60, 63, 64, 65, 72, 79, 80, 81, 100, 127, 128, 129, 191, 192, 193, 300,
];

#[test]
fn entries_arrive_whole_before_their_events_under_random_stalls() {
    for seed in 1..=4 {
        let s = run(Run {
            seed,
            groups: 400,
            lens: MIXED.to_vec(),
            p_valid: 0.7,
            p_ready: 0.6,
            abandon: 0.06,
            events: true,
            one_pipe: false,
        });
        assert!(
            s.frames > 250 && s.abandoned > 5 && s.restarts > 3,
            "seed {seed}: too few cases: {s:?}"
        );
    }
}

#[test]
fn back_to_back_entries_share_lines_and_writes() {
    for &len in &[60usize, 64, 65, 90, 96, 100, 128] {
        let n = 200;
        let s = run(Run {
            seed: len as u64,
            groups: n,
            lens: vec![len],
            p_valid: 1.0,
            p_ready: 1.0,
            abandon: 0.0,
            events: false,
            one_pipe: true,
        });
        let units = (1 + len.div_ceil(16)) * s.frames;
        // Every unit written once, and nothing else.
        assert_eq!(s.bytes, units * 16, "{len} B: bytes written");
        // Lines: as many as the units fill, plus the last partial one.
        assert!(
            s.lines <= units.div_ceil(4) + 1,
            "{len} B: {} lines for {units} units",
            s.lines
        );
        // Writes: one per 256-byte block (the ring wraps every 4 KiB).
        let blocks = (units * 16).div_ceil(256);
        assert!(
            s.writes <= blocks + 2,
            "{len} B: {} writes for {blocks} blocks",
            s.writes
        );
        // One beat in and one line out a cycle (a 64-byte frame's entry is
        // 1.25 lines; a 65-byte one 2 beats): whichever is more, plus the
        // pipeline's fill and the 40 quiet cycles that end a run.
        let beats = s.frames * len.div_ceil(64);
        let bound = s.lines.max(beats) + 48;
        assert!(
            s.cycles <= bound,
            "{len} B: {} cycles, {} lines, {beats} beats",
            s.cycles,
            s.lines
        );
    }
}
