//! The RX front end, in rust-hdl's simulator: the store-and-forward FIFO,
//! the intake and the flags merge, chained as the core chains them, with a
//! 16-beat FIFO in the place of the flow director and the `flags_wait`
//! FIFO behind it, which hold 15 (it passes the beats on in order, and
//! takes a first beat whatever the merge is doing: the merge waits for a
//! frame's FLAGS, which the fork computes only once the first beat has
//! gone on, for 9 cycles). Random frames (IPv4 with and
//! without a right header checksum, behind 0 to 3 tags, IPv6, ARP and
//! random EtherTypes; 1 byte to a few beats, and now and then one over the
//! MTU) in at random, out to a reader that stalls at random. Every frame
//! must come out whole and in order, its first beat with the entry's LEN,
//! units, TIMESTAMP (the cycle its first beat went in) and FLAGS (the
//! layout's, as far as this NIC sets them), and each beat with its units.

use crate::common::{bits512, bytes512, checksum, keep_of};
use pendulum_hdl::enso::{RxFlagsMerge, RxIntake};
use pendulum_hdl::stream::{SizedFrameFifo, StreamFifo, StreamSink, StreamSource};
use pendulum_hdl::types::{EthBeat, RxBeat};
use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::ring::{entry_units, flags, rx_flags};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const MAX_BEATS: usize = (MAX_FRAME_BYTES as usize).div_ceil(64);

#[derive(LogicBlock)]
struct Front {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    now: Signal<In, Bits<64>>,
    s: StreamSink<EthBeat>,
    m: StreamSource<RxBeat>,
    fifo: SizedFrameFifo<8, 9>,
    intake: RxIntake,
    between: StreamFifo<RxBeat, 4, 5>,
    merge: RxFlagsMerge,
}

impl Logic for Front {
    #[hdl_gen]
    fn update(&mut self) {
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.intake.clock.next = self.clock.val();
        self.intake.reset.next = self.reset.val();
        self.merge.clock.next = self.clock.val();
        self.between.clock.next = self.clock.val();
        self.between.reset.next = self.reset.val();
        self.merge.reset.next = self.reset.val();
        self.fifo.now.next = self.now.val();
        self.fifo.s.data.next = self.s.data.val();
        self.fifo.s.valid.next = self.s.valid.val();
        self.s.ready.next = self.fifo.s.ready.val();
        self.intake.s.data.next = self.fifo.m.data.val();
        self.intake.s.valid.next = self.fifo.m.valid.val();
        self.fifo.m.ready.next = self.intake.s.ready.val();
        self.between.s.data.next = self.intake.m.data.val();
        self.between.s.valid.next = self.intake.m.valid.val();
        self.intake.m.ready.next = self.between.s.ready.val();
        self.merge.s.data.next = self.between.m.data.val();
        self.merge.s.valid.next = self.between.m.valid.val();
        self.between.m.ready.next = self.merge.s.ready.val();
        self.merge.s_first.data.next = self.intake.m_first.data.val();
        self.merge.s_first.valid.next = self.intake.m_first.valid.val();
        self.intake.m_first.ready.next = self.merge.s_first.ready.val();
        self.m.data.next = self.merge.m.data.val();
        self.m.valid.next = self.merge.m.valid.val();
        self.merge.m.ready.next = self.m.ready.val();
    }
}

fn random_frame(rng: &mut impl Rng, i: usize) -> Vec<u8> {
    let len = if i % 97 == 50 {
        MAX_FRAME_BYTES as usize + rng.gen_range(1..200)
    } else if rng.gen_bool(0.3) {
        rng.gen_range(1..=64)
    } else {
        rng.gen_range(65..=700)
    };
    let mut f: Vec<u8> = (0..len.max(60)).map(|_| rng.gen()).collect();
    let mut at = 12;
    for _ in 0..[0, 0, 1, 2, 3][rng.gen_range(0..5)] {
        let tpid: u16 = [0x8100, 0x88A8, 0x9100][rng.gen_range(0..3)];
        f[at..at + 2].copy_from_slice(&tpid.to_be_bytes());
        at += 4;
    }
    let ethertype: u16 = [0x0800, 0x0800, 0x0800, 0x86DD, 0x0806, rng.gen()][rng.gen_range(0..6)];
    f[at..at + 2].copy_from_slice(&ethertype.to_be_bytes());
    let ip = at + 2;
    if ethertype == 0x0800 {
        f[ip] = 0x45;
        f[ip + 6] = if rng.gen_bool(0.8) { 0x40 } else { 0x20 };
        f[ip + 7] = 0;
        f[ip + 9] = [6u8, 17, 1][rng.gen_range(0..3)];
        if rng.gen_bool(0.7) {
            f[ip + 10..ip + 12].copy_from_slice(&[0, 0]);
            let c = checksum(&f[ip..ip + 20]);
            f[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
        }
    } else if ethertype == 0x86DD {
        f[ip + 6] = [6u8, 17, 0][rng.gen_range(0..3)];
    }
    f.truncate(len);
    f
}

/// The front end, its ports driven by the test, and a simulation with its clock.
fn front_sim() -> (Front, Simulation<Front>) {
    let mut uut = Front {
        clock: Default::default(),
        reset: Default::default(),
        now: Default::default(),
        s: Default::default(),
        m: Default::default(),
        fifo: SizedFrameFifo::new(),
        intake: RxIntake::new(),
        between: StreamFifo::new(),
        merge: RxFlagsMerge::new(),
    };
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m.ready.connect();
    uut.reset.connect();
    uut.now.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Front>| x.clock.next = !x.clock.val());
    (uut, sim)
}

#[test]
fn frames_leave_with_their_entry_header_fields() {
    let (uut, mut sim) = front_sim();
    let seen = Arc::new(Mutex::new((0usize, 0usize, 0usize)));
    let out = seen.clone();
    sim.add_testbench(move |mut sim: Sim<Front>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let n = 500;
        let frames: Vec<Vec<u8>> = (0..n).map(|i| random_frame(&mut rng, i)).collect();
        let mut next = 0usize;
        let mut beat = 0usize;
        let mut first_in: VecDeque<u64> = VecDeque::new();
        let mut got: Vec<u8> = Vec::new();
        let mut got_beats = 0usize;
        let mut out_frame = 0usize;
        let (mut cut, mut good, mut csum_ok) = (0, 0, 0);
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut cycle = 0usize;
        while out_frame < n {
            cycle += 1;
            assert!(cycle < 300_000, "stuck: {out_frame} of {n} frames out");
            if next < n {
                let f = &frames[next];
                let beats = f.len().div_ceil(64);
                let chunk = &f[64 * beat..(64 * beat + 64).min(f.len())];
                x.s.data.next = EthBeat {
                    data: bits512(chunk),
                    keep: keep_of(chunk.len()).into(),
                    last: beat + 1 == beats,
                };
            }
            x.s.valid.next = next < n && rng.gen_bool(0.8);
            x.m.ready.next = rng.gen_bool(0.6);
            let now = 7_777 * cycle as u64 + (3 << 40);
            x.now.next = now.into();
            x = sim.wait(1, x)?;
            if x.s.valid.val() && x.s.ready.val() {
                if beat == 0 {
                    first_in.push_back(now);
                }
                beat += 1;
                if beat == frames[next].len().div_ceil(64) {
                    next += 1;
                    beat = 0;
                }
            }
            if x.m.valid.val() && x.m.ready.val() {
                let f = &frames[out_frame];
                let b = x.m.data.val();
                let over = f.len() > MAX_FRAME_BYTES as usize;
                assert_eq!(b.sop, got_beats == 0, "frame {out_frame}: sop");
                if b.sop {
                    let len = if over { 0 } else { f.len() };
                    assert_eq!(b.len.index(), len, "frame {out_frame}: LEN");
                    assert_eq!(
                        b.units.index() as u32,
                        entry_units(len as u32),
                        "frame {out_frame}: units"
                    );
                    assert_eq!(
                        b.stamp.to_u64(),
                        first_in[0],
                        "frame {out_frame}: TIMESTAMP"
                    );
                    if !over {
                        let want = rx_flags(f, false) & flags::NIC_FLAGS;
                        assert_eq!(
                            b.flags.index() as u16,
                            want,
                            "frame {out_frame}: FLAGS for {:02x?}",
                            &f[..f.len().min(40)]
                        );
                        csum_ok += usize::from(want & flags::IP4_CSUM_OK != 0);
                    }
                }
                let left = f.len().min(64 * MAX_BEATS) - 64 * got_beats;
                let units = if b.last { left.min(64).div_ceil(16) } else { 4 };
                assert_eq!(
                    b.beat_units.index(),
                    units,
                    "frame {out_frame}: beat {got_beats} units"
                );
                got.extend_from_slice(&bytes512(b.data)[..left.min(64)]);
                got_beats += 1;
                if b.last {
                    if over {
                        assert_eq!(
                            got_beats, MAX_BEATS,
                            "frame {out_frame}: cut at the MTU's beats"
                        );
                        cut += 1;
                    } else {
                        assert_eq!(got, *f, "frame {out_frame}: bytes");
                        good += 1;
                    }
                    got.clear();
                    got_beats = 0;
                    out_frame += 1;
                    first_in.pop_front();
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        *out.lock().unwrap() = (good, cut, csum_ok);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000_000).unwrap();
    let (good, cut, csum_ok) = *seen.lock().unwrap();
    assert!(
        good > 480 && cut >= 3 && csum_ok > 50,
        "good {good}, cut {cut}, IP4_CSUM_OK {csum_ok}"
    );
}

/// Back-to-back 100-byte frames (two beats each), nothing stalling: the
/// front end takes and gives a beat every cycle, so N frames take about 2N
/// cycles (the input's bound is one frame start per beat).
#[test]
fn two_beat_frames_pass_at_a_beat_a_cycle() {
    let (uut, mut sim) = front_sim();
    let seen = Arc::new(Mutex::new((0usize, 0usize)));
    let out = seen.clone();
    sim.add_testbench(move |mut sim: Sim<Front>| {
        let mut x = sim.init()?;
        let n = 200;
        let mut f = [0u8; 100];
        f[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
        let (mut beat_in, mut frames_out, mut first_out, mut last_out) = (0usize, 0usize, 0, 0);
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut cycle = 0usize;
        while frames_out < n {
            cycle += 1;
            assert!(cycle < 100_000, "stuck: {frames_out} of {n} frames out");
            let beat = beat_in % 2;
            let chunk = &f[64 * beat..(64 * beat + 64).min(f.len())];
            x.s.data.next = EthBeat {
                data: bits512(chunk),
                keep: keep_of(chunk.len()).into(),
                last: beat == 1,
            };
            x.s.valid.next = beat_in < 2 * n;
            x.m.ready.next = true;
            x.now.next = (cycle as u64).into();
            x = sim.wait(1, x)?;
            if x.s.valid.val() && x.s.ready.val() {
                beat_in += 1;
            }
            if x.m.valid.val() && x.m.ready.val() && x.m.data.val().last {
                if frames_out == 0 {
                    first_out = cycle;
                }
                frames_out += 1;
                last_out = cycle;
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        *out.lock().unwrap() = (first_out, last_out);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000_000).unwrap();
    let (first_out, last_out) = *seen.lock().unwrap();
    let per_frame = (last_out - first_out) as f64 / 199.0;
    eprintln!("rx front: {per_frame:.3} cycles per two-beat frame");
    assert!(per_frame < 2.05, "{per_frame:.3} cycles per two-beat frame");
}
