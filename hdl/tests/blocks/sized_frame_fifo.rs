//! The store-and-forward frame FIFO alone, in rust-hdl's simulator: random
//! frames (1 byte to a few beats, and now and then one over the MTU) in at
//! random, out to a reader that stalls at random. Every frame must come out
//! whole and in order, its length in bytes on each of its beats, and not
//! before its last beat went in; a frame over the MTU comes out cut at the
//! MTU's beat count with length 0, and the frames after it unharmed.

use crate::common::{bits512, bytes512, keep_of};
use pendulum_hdl::stream::SizedFrameFifo;
use pendulum_hdl::types::EthBeat;
use pendulum_layout::params::MAX_FRAME_BYTES;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

type Fifo = SizedFrameFifo<8, 9>;
const MAX_BEATS: usize = (MAX_FRAME_BYTES as usize).div_ceil(64);

#[test]
fn frames_leave_whole_with_their_length() {
    let mut uut = Fifo::new();
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m.ready.connect();
    uut.reset.connect();
    uut.now.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Fifo>| x.clock.next = !x.clock.val());
    let seen = Arc::new(Mutex::new((0usize, 0usize)));
    let out = seen.clone();
    sim.add_testbench(move |mut sim: Sim<Fifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 400;
        let frames: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let len = if i % 97 == 50 {
                    MAX_FRAME_BYTES as usize + rng.gen_range(1..200)
                } else if rng.gen_bool(0.3) {
                    rng.gen_range(1..=64)
                } else {
                    rng.gen_range(65..=700)
                };
                (0..len).map(|_| rng.gen()).collect()
            })
            .collect();
        // Each frame's beats, and the cycle its last beat went in.
        let mut next = 0usize;
        let mut beat = 0usize;
        let mut last_in: VecDeque<usize> = VecDeque::new();
        let mut first_in: VecDeque<u64> = VecDeque::new();
        let mut got: Vec<u8> = Vec::new();
        let mut got_beats = 0usize;
        let mut out_frame = 0usize;
        let (mut cut, mut good) = (0, 0);
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut cycle = 0usize;
        while out_frame < n {
            cycle += 1;
            assert!(cycle < 200_000, "stuck: {out_frame} of {n} frames out");
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
            // The clock to stamp with: any value that changes every cycle.
            let now = 1_000_003 * cycle as u64 + (1 << 40);
            x.now.next = now.into();
            x.m.ready.next = rng.gen_bool(0.6);
            x = sim.wait(1, x)?;
            if x.s.valid.val() && x.s.ready.val() {
                let beats = frames[next].len().div_ceil(64);
                if beat == 0 {
                    first_in.push_back(now);
                }
                beat += 1;
                if beat == beats {
                    last_in.push_back(cycle);
                    next += 1;
                    beat = 0;
                }
            }
            if x.m.valid.val() && x.m.ready.val() {
                let f = &frames[out_frame];
                let b = x.m.data.val();
                assert!(
                    last_in.front().is_some_and(|&c| c < cycle),
                    "frame {out_frame} leaves before its last beat went in"
                );
                let over = f.len() > MAX_FRAME_BYTES as usize;
                let want_len = if over { 0 } else { f.len() };
                assert_eq!(b.len.index(), want_len, "frame {out_frame}: length");
                assert_eq!(
                    b.stamp.to_u64(),
                    first_in[0],
                    "frame {out_frame}: the stamp of its first beat's cycle"
                );
                let keep = b.keep.to_u64();
                got.extend_from_slice(&bytes512(b.data)[..keep.count_ones() as usize]);
                got_beats += 1;
                if b.last {
                    if over {
                        assert_eq!(
                            got_beats, MAX_BEATS,
                            "frame {out_frame}: cut at the MTU's beats"
                        );
                        assert_eq!(got[..], f[..got.len()], "frame {out_frame}: cut bytes");
                        cut += 1;
                    } else {
                        assert_eq!(got, *f, "frame {out_frame}: bytes");
                        good += 1;
                    }
                    got.clear();
                    got_beats = 0;
                    out_frame += 1;
                    last_in.pop_front();
                    first_in.pop_front();
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        *out.lock().unwrap() = (good, cut);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000_000).unwrap();
    let (good, cut) = *seen.lock().unwrap();
    assert!(good > 380 && cut >= 3, "good {good}, cut {cut}");
}
