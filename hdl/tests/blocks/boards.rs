//! Unit tests, in rust-hdl's simulator, of the pieces the board tops add
//! around the NIC core: the dual-clock FIFOs of the clock-domain crossings,
//! the register-access adapters and the Avalon-ST Ethernet adapters. Each is
//! also synthesized by Yosys.

use pendulum_hdl::boards::{
    AvalonDmaBridge, AvalonMmio, AvalonStEthRx, AvalonStEthTx, AxiDmaBridge, AxiLiteMmio,
};
use pendulum_hdl::stream::{AsyncFrameDropFifo, AsyncFrameFifo, AsyncStreamFifo};
use pendulum_hdl::types::EthBeat;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

fn synthesizable<U: Block>(name: &str, mut uut: U) {
    uut.connect_all();
    yosys_validate(name, &generate_verilog(&uut)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
}

#[test]
fn board_blocks_are_synthesizable() {
    synthesizable(
        "pendulum_async_fifo",
        AsyncStreamFifo::<Bits<8>, 3, 4>::new(),
    );
    synthesizable("pendulum_async_frame_fifo", AsyncFrameFifo::<3, 4>::new());
    synthesizable(
        "pendulum_async_frame_drop_fifo",
        AsyncFrameDropFifo::<3, 4>::new(),
    );
    synthesizable("pendulum_axil_mmio", AxiLiteMmio::default());
    synthesizable("pendulum_avmm_mmio", AvalonMmio::default());
    synthesizable("pendulum_axi_dma", AxiDmaBridge::default());
    synthesizable("pendulum_avmm_dma", AvalonDmaBridge::default());
    synthesizable("pendulum_avst_eth_rx", AvalonStEthRx::default());
    synthesizable("pendulum_avst_eth_tx", AvalonStEthTx::default());
}

type Fifo = AsyncStreamFifo<Bits<8>, 3, 4>;

/// Sends `words` from a writer on one clock to a reader on another, each
/// with its own random gaps and stalls; returns what the reader took.
fn cross(words: Vec<u64>, s_half: u64, m_half: u64, seed: u64) -> Vec<u64> {
    let mut uut = Fifo::new();
    uut.s.valid.connect();
    uut.s.data.connect();
    uut.m.ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(s_half, |x: &mut Box<Fifo>| {
        x.s_clock.next = !x.s_clock.val()
    });
    sim.add_clock(m_half, |x: &mut Box<Fifo>| {
        x.m_clock.next = !x.m_clock.val()
    });
    let n = words.len();
    let limit = 40 * n + 200;
    // Writer: on s_clock, drives inputs while the clock is low.
    sim.add_testbench(move |mut sim: Sim<Fifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut next = 0usize;
        let mut cycles = 0;
        wait_clock_false!(sim, s_clock, x);
        while next < words.len() && cycles < limit {
            let offer = rng.gen_bool(0.7);
            x.s.valid.next = offer;
            x.s.data.next = (if offer { words[next] } else { 0 }).into();
            x = sim.wait(1, x)?;
            let taken = offer && x.s.ready.val();
            wait_clock_true!(sim, s_clock, x);
            if taken {
                next += 1;
            }
            wait_clock_false!(sim, s_clock, x);
            cycles += 1;
        }
        x.s.valid.next = false;
        sim.done(x)
    });
    let got = Arc::new(Mutex::new(Vec::new()));
    let out = got.clone();
    // Reader: on m_clock, with random back-pressure.
    sim.add_testbench(move |mut sim: Sim<Fifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let mut cycles = 0;
        wait_clock_false!(sim, m_clock, x);
        while out.lock().unwrap().len() < n && cycles < limit {
            x.m.ready.next = rng.gen_bool(0.6);
            x = sim.wait(1, x)?;
            if x.m.valid.val() && x.m.ready.val() {
                out.lock().unwrap().push(x.m.data.val().index() as u64);
            }
            wait_clock_true!(sim, m_clock, x);
            wait_clock_false!(sim, m_clock, x);
            cycles += 1;
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 50_000_000).unwrap();
    let v = got.lock().unwrap().clone();
    v
}

#[test]
fn async_fifo_keeps_every_word_in_order_writer_faster() {
    // Half-periods 5 and 7: unrelated enough that edges drift through every phase.
    let words: Vec<u64> = (0..300).map(|i| (i * 37 + 11) % 256).collect();
    assert_eq!(cross(words.clone(), 5, 7, 1), words);
}

#[test]
fn async_fifo_keeps_every_word_in_order_reader_faster() {
    // 250 MHz against 322 MHz is about 4:3.1; 13 against 10 is close and unrelated.
    let words: Vec<u64> = (0..300).map(|i| (i * 53 + 7) % 256).collect();
    assert_eq!(cross(words.clone(), 13, 10, 2), words);
}

#[test]
fn async_fifo_fills_without_losing_or_duplicating() {
    // A slow reader forces the FIFO full again and again.
    let words: Vec<u64> = (0..200).map(|i| i % 256).collect();
    assert_eq!(cross(words.clone(), 3, 17, 3), words);
}

/// The board tops pack a beat as `{tlast, tkeep, tdata}` (577 bits) on the
/// crossings; `EthBeat`'s packing must be the same.
#[test]
fn eth_beat_packs_as_last_keep_data() {
    let b = EthBeat::default();
    assert_eq!(
        (
            b.get_my_offset_data(),
            b.get_my_offset_keep(),
            b.get_my_offset_last()
        ),
        (0, 512, 576)
    );
    assert_eq!(EthBeat::BITS, 577);
}

type FrameFifo = AsyncFrameFifo<5, 6>;

/// One beat of test frame `f`: data tags the frame and the beat, keep is
/// contiguous from byte 0 (all ones but on the last beat).
fn frame_beat(f: usize, k: usize, beats: usize) -> EthBeat {
    let last = k + 1 == beats;
    EthBeat {
        data: (((f as u64) << 16) | k as u64).into(),
        keep: if last {
            (u64::MAX >> (f % 64)).into()
        } else {
            u64::MAX.into()
        },
        last,
    }
}

/// Sends frames of `lens` beats through an `AsyncFrameFifo` from a writer
/// with random gaps to a reader with random stalls. The reader asserts that
/// `m.valid`, once up for a frame, stays up on every cycle until the frame's
/// last beat is taken; returns the beats it took.
fn cross_frames(lens: Vec<usize>, s_half: u64, m_half: u64, seed: u64) -> Vec<EthBeat> {
    let mut uut = FrameFifo::new();
    uut.s.valid.connect();
    uut.s.data.connect();
    uut.m.ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(s_half, |x: &mut Box<FrameFifo>| {
        x.s_clock.next = !x.s_clock.val()
    });
    sim.add_clock(m_half, |x: &mut Box<FrameFifo>| {
        x.m_clock.next = !x.m_clock.val()
    });
    let beats: Vec<EthBeat> = lens
        .iter()
        .enumerate()
        .flat_map(|(f, &n)| (0..n).map(move |k| frame_beat(f, k, n)))
        .collect();
    let n = beats.len();
    let limit = 40 * n + 400;
    sim.add_testbench(move |mut sim: Sim<FrameFifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut next = 0usize;
        let mut cycles = 0;
        wait_clock_false!(sim, s_clock, x);
        while next < beats.len() && cycles < limit {
            // A writer slower than the reader, with gaps inside frames too.
            let offer = rng.gen_bool(0.6);
            x.s.valid.next = offer;
            x.s.data.next = if offer {
                beats[next]
            } else {
                EthBeat::default()
            };
            x = sim.wait(1, x)?;
            let taken = offer && x.s.ready.val();
            wait_clock_true!(sim, s_clock, x);
            if taken {
                next += 1;
            }
            wait_clock_false!(sim, s_clock, x);
            cycles += 1;
        }
        x.s.valid.next = false;
        sim.done(x)
    });
    let got = Arc::new(Mutex::new(Vec::new()));
    let out = got.clone();
    sim.add_testbench(move |mut sim: Sim<FrameFifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let mut cycles = 0;
        let mut offered = false;
        wait_clock_false!(sim, m_clock, x);
        while out.lock().unwrap().len() < n && cycles < limit {
            // The MAC may pause a frame (ready low); the FIFO may not (valid low).
            x.m.ready.next = rng.gen_bool(0.85);
            x = sim.wait(1, x)?;
            sim_assert!(sim, !offered || x.m.valid.val(), x);
            if x.m.valid.val() {
                offered = true;
                if x.m.ready.val() {
                    let beat = x.m.data.val();
                    out.lock().unwrap().push(beat);
                    if beat.last {
                        offered = false;
                    }
                }
            }
            wait_clock_true!(sim, m_clock, x);
            wait_clock_false!(sim, m_clock, x);
            cycles += 1;
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000).unwrap();
    let v = got.lock().unwrap().clone();
    v
}

fn frame_lens(count: usize, max: usize, seed: u64) -> Vec<usize> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut lens: Vec<usize> = (0..count).map(|_| rng.gen_range(1..=max)).collect();
    // A one-beat frame and one that fills the FIFO exactly.
    lens.extend([1, FrameFifo::DEPTH_BEATS, 2]);
    lens
}

fn expected(lens: &[usize]) -> Vec<EthBeat> {
    lens.iter()
        .enumerate()
        .flat_map(|(f, &n)| (0..n).map(move |k| frame_beat(f, k, n)))
        .collect()
}

#[test]
fn frame_fifo_never_gaps_inside_a_frame_core_to_cmac() {
    // 250 MHz core against 322 MHz CMAC: half-periods 13 and 10.
    let lens = frame_lens(25, 24, 4);
    assert_eq!(cross_frames(lens.clone(), 13, 10, 4), expected(&lens));
}

#[test]
fn frame_fifo_never_gaps_inside_a_frame_much_faster_reader() {
    // 250 MHz core against the E-tile's 402.83 MHz, and a slower writer still.
    let lens = frame_lens(20, 32, 5);
    assert_eq!(cross_frames(lens.clone(), 17, 5, 5), expected(&lens));
}

/// Random frames of 60..=1518 bytes, and a 64-byte (one whole beat) and a
/// 65-byte (one byte into a second beat) frame.
fn eth_frames(count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut lens: Vec<usize> = (0..count).map(|_| rng.gen_range(60..=1518)).collect();
    lens.splice(1..1, [64, 65]);
    lens.into_iter()
        .map(|n| (0..n).map(|_| rng.gen()).collect())
        .collect()
}

/// A 512-bit word with `bytes[j]` at bit `8 * lane(j)`, zeros past the end.
fn word(bytes: &[u8], lane: impl Fn(usize) -> usize) -> Bits<512> {
    let mut w = Bits::<512>::default();
    for (j, b) in bytes.iter().enumerate() {
        w = w | (bit_cast::<512, 8>(Bits::<8>::from(*b as u64)) << ((8 * lane(j)) as u64));
    }
    w
}

fn byte_at(w: Bits<512>, lane: usize) -> u8 {
    w.get_bits::<8>(8 * lane).index() as u8
}

type EthRx = AvalonStEthRx;

#[test]
fn avalon_st_rx_frames_come_out_byte_for_byte_with_tkeep_and_tlast() {
    let frames = eth_frames(14, 6);
    let mut uut = EthRx::new();
    uut.rx_data.connect();
    uut.rx_valid.connect();
    uut.rx_endofpacket.connect();
    uut.rx_empty.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<EthRx>| x.clock.next = !x.clock.val());
    let want = frames.clone();
    sim.add_testbench(move |mut sim: Sim<EthRx>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // The MAC's beats: first byte on the wire in the top byte.
        let mut beats = Vec::new();
        for f in &frames {
            for (i, chunk) in f.chunks(64).enumerate() {
                let eop = (i + 1) * 64 >= f.len();
                beats.push((word(chunk, |j| 63 - j), eop, 64 - chunk.len()));
            }
        }
        let (mut next, mut got, mut cur) = (0usize, Vec::<Vec<u8>>::new(), Vec::new());
        wait_clock_false!(sim, clock, x);
        for _ in 0..4 * beats.len() + 10 {
            // The MAC idles at random, inside frames too; empty is only meaningful with eop.
            let offer = next < beats.len() && rng.gen_bool(0.7);
            x.rx_valid.next = offer;
            let (data, eop, empty) = if offer {
                beats[next]
            } else {
                (Bits::default(), false, 0)
            };
            x.rx_data.next = data;
            x.rx_endofpacket.next = eop;
            x.rx_empty.next = (if eop { empty } else { rng.gen_range(0..64) } as u64).into();
            if offer {
                next += 1;
            }
            x = sim.wait(1, x)?;
            if x.m_tvalid.val() {
                let keep = x.m_tkeep.val().to_u64();
                let n = keep.count_ones() as usize;
                // tkeep contiguous from byte 0, all ones but on the last beat.
                sim_assert!(sim, keep == u64::MAX >> (64 - n) && n > 0, x);
                sim_assert!(sim, x.m_tlast.val() || n == 64, x);
                cur.extend((0..n).map(|j| byte_at(x.m_tdata.val(), j)));
                if x.m_tlast.val() {
                    got.push(std::mem::take(&mut cur));
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        sim_assert!(sim, got == want, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000).unwrap();
}

type EthTx = AvalonStEthTx;

#[test]
fn avalon_st_tx_frames_go_out_byte_for_byte_with_sop_eop_and_empty_under_stalls() {
    let frames = eth_frames(14, 8);
    let mut uut = EthTx::new();
    uut.s_tdata.connect();
    uut.s_tkeep.connect();
    uut.s_tlast.connect();
    uut.s_tvalid.connect();
    uut.tx_ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<EthTx>| x.clock.next = !x.clock.val());
    let want = frames.clone();
    sim.add_testbench(move |mut sim: Sim<EthTx>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // The core's beats: first byte in tdata[7:0].
        let mut beats = Vec::new();
        for f in &frames {
            for (i, chunk) in f.chunks(64).enumerate() {
                let last = (i + 1) * 64 >= f.len();
                beats.push((word(chunk, |j| j), u64::MAX >> (64 - chunk.len()), last));
            }
        }
        let (mut next, mut got, mut cur) = (0usize, Vec::<Vec<u8>>::new(), Vec::new());
        // `held`: a beat offered and not yet taken, which must stay offered.
        let (mut in_frame, mut held) = (false, false);
        wait_clock_false!(sim, clock, x);
        for _ in 0..4 * beats.len() + 10 {
            // As from AsyncFrameFifo: no gap inside a frame, random gaps between.
            let offer = next < beats.len() && (in_frame || held || rng.gen_bool(0.7));
            x.s_tvalid.next = offer;
            let (data, keep, last) = if offer {
                beats[next]
            } else {
                (Bits::default(), 0, false)
            };
            x.s_tdata.next = data;
            x.s_tkeep.next = keep.into();
            x.s_tlast.next = last;
            x.tx_ready.next = rng.gen_bool(0.7);
            x = sim.wait(1, x)?;
            held = offer && !x.s_tready.val();
            if offer && x.s_tready.val() {
                next += 1;
                in_frame = !last;
            }
            // Once a frame started, tx_valid holds until its end of packet.
            sim_assert!(sim, cur.is_empty() || x.tx_valid.val(), x);
            if x.tx_valid.val() && x.tx_ready.val() {
                let sop = x.tx_startofpacket.val();
                let eop = x.tx_endofpacket.val();
                let empty = x.tx_empty.val().index();
                sim_assert!(sim, sop == cur.is_empty(), x);
                sim_assert!(sim, eop || empty == 0, x);
                cur.extend((0..64 - empty).map(|j| byte_at(x.tx_data.val(), 63 - j)));
                if eop {
                    got.push(std::mem::take(&mut cur));
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        sim_assert!(sim, got == want, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000).unwrap();
}

type DropFifo = AsyncFrameDropFifo<4, 5>;

/// How a frame-drop crossing run is paced.
struct DropRun {
    /// Half-periods of the writer's and the reader's clocks.
    s_half: u64,
    m_half: u64,
    /// Chance the writer has a beat on a cycle (it cannot be held back).
    offer: f64,
    /// Chance the reader takes a beat on a cycle.
    ready: f64,
    /// Reader cycles with ready low before it starts.
    reader_start: usize,
    seed: u64,
}

/// What the reader of a frame-drop crossing saw.
struct DropResult {
    /// Frames taken, split at `last`.
    frames: Vec<Vec<EthBeat>>,
    /// `m_drops` once everything has settled.
    drops: u64,
    /// Reader cycles with ready high and valid low between the first beat
    /// taken and the last.
    idle_while_ready: usize,
}

/// Sends frames of `lens` beats through an `AsyncFrameDropFifo` from a
/// writer that never waits (it has no ready) to a reader on another clock.
fn cross_dropping(lens: &[usize], run: DropRun) -> DropResult {
    let mut uut = DropFifo::new();
    uut.s_valid.connect();
    uut.s_data.connect();
    uut.m.ready.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(run.s_half, |x: &mut Box<DropFifo>| {
        x.s_clock.next = !x.s_clock.val()
    });
    sim.add_clock(run.m_half, |x: &mut Box<DropFifo>| {
        x.m_clock.next = !x.m_clock.val()
    });
    let beats = expected(lens);
    let limit = 40 * beats.len() + 400;
    let writer_done = Arc::new(AtomicBool::new(false));
    let done = writer_done.clone();
    let (seed, offer) = (run.seed, run.offer);
    sim.add_testbench(move |mut sim: Sim<DropFifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut next = 0usize;
        wait_clock_false!(sim, s_clock, x);
        while next < beats.len() {
            let go = rng.gen_bool(offer);
            x.s_valid.next = go;
            x.s_data.next = if go { beats[next] } else { EthBeat::default() };
            wait_clock_true!(sim, s_clock, x);
            if go {
                next += 1;
            }
            wait_clock_false!(sim, s_clock, x);
        }
        x.s_valid.next = false;
        done.store(true, Ordering::SeqCst);
        sim.done(x)
    });
    let got = Arc::new(Mutex::new(DropResult {
        frames: Vec::new(),
        drops: 0,
        idle_while_ready: 0,
    }));
    let out = got.clone();
    sim.add_testbench(move |mut sim: Sim<DropFifo>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(run.seed ^ 0x5eed);
        let (mut cycles, mut quiet, mut cur) = (0, 0, Vec::new());
        let (mut started, mut idle_streak) = (false, 0);
        wait_clock_false!(sim, m_clock, x);
        // Until the writer is done and nothing has come out for a while.
        while quiet < 64 && cycles < limit {
            x.m.ready.next = cycles >= run.reader_start && rng.gen_bool(run.ready);
            x = sim.wait(1, x)?;
            quiet = if writer_done.load(Ordering::SeqCst) && !x.m.valid.val() {
                quiet + 1
            } else {
                0
            };
            if x.m.ready.val() && !x.m.valid.val() && started {
                idle_streak += 1;
            }
            if x.m.valid.val() && x.m.ready.val() {
                started = true;
                let mut o = out.lock().unwrap();
                o.idle_while_ready += idle_streak;
                idle_streak = 0;
                let beat = x.m.data.val();
                cur.push(beat);
                if beat.last {
                    o.frames.push(std::mem::take(&mut cur));
                }
            }
            wait_clock_true!(sim, m_clock, x);
            wait_clock_false!(sim, m_clock, x);
            cycles += 1;
        }
        sim_assert!(sim, cur.is_empty(), x);
        out.lock().unwrap().drops = x.m_drops.val().index() as u64;
        sim.done(x)
    });
    sim.run(Box::new(uut), 200_000_000).unwrap();
    Arc::try_unwrap(got)
        .ok()
        .expect("testbenches done")
        .into_inner()
        .unwrap()
}

/// Frames of 1 to `max` beats, and a one-beat frame, one that fills the FIFO
/// exactly and one too long for it (always dropped), among them.
fn drop_lens(count: usize, max: usize, seed: u64) -> Vec<usize> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut lens: Vec<usize> = (0..count).map(|_| rng.gen_range(1..=max)).collect();
    lens.splice(
        3..3,
        [1, DropFifo::DEPTH_BEATS, DropFifo::DEPTH_BEATS + 3, 1],
    );
    lens
}

/// (frame, beat, last) of each beat, as `frame_beat` tags them.
fn tags(frame: &[EthBeat]) -> Vec<(u64, u64, bool)> {
    let tag = |b: &EthBeat| b.data.get_bits::<32>(0).index() as u64;
    frame
        .iter()
        .map(|b| (tag(b) >> 16, tag(b) & 0xFFFF, b.last))
        .collect()
}

/// Every frame out is one of the frames in, whole and byte for byte, in
/// order; the others were dropped and counted. Returns the frames dropped.
fn check_whole_frames(lens: &[usize], r: &DropResult) -> usize {
    let sent: Vec<Vec<EthBeat>> = lens
        .iter()
        .enumerate()
        .map(|(f, &n)| (0..n).map(|k| frame_beat(f, k, n)).collect())
        .collect();
    let mut from = 0;
    for (i, frame) in r.frames.iter().enumerate() {
        let at = sent[from..].iter().position(|s| s == frame);
        let at = at.unwrap_or_else(|| {
            panic!(
                "frame {i} out is not a whole frame sent at or after frame {from}: \
                 (frame, beat, last) {:?}",
                tags(frame)
            )
        });
        from += at + 1;
    }
    let dropped = lens.len() - r.frames.len();
    assert_eq!(
        r.drops as usize, dropped,
        "the drop count must equal the frames that did not come out"
    );
    dropped
}

/// A crossing that overflows many times: whole frames out, the drops counted,
/// and enough of both for the run to mean something.
fn overflows_again_and_again(lens: &[usize], run: DropRun) {
    let r = cross_dropping(lens, run);
    let dropped = check_whole_frames(lens, &r);
    assert!(
        dropped > 10 && r.frames.len() > 10,
        "{dropped} dropped, {} out",
        r.frames.len()
    );
}

#[test]
fn frame_drop_fifo_passes_whole_frames_or_drops_and_counts_them_slow_reader() {
    // The CMAC's 322 MHz into the 250 MHz core (half-periods 10 and 13), and
    // a reader that stalls often: the FIFO overflows again and again.
    let lens = drop_lens(120, 12, 11);
    let run = DropRun {
        s_half: 10,
        m_half: 13,
        offer: 0.9,
        ready: 0.4,
        reader_start: 0,
        seed: 11,
    };
    overflows_again_and_again(&lens, run);
}

#[test]
fn frame_drop_fifo_passes_whole_frames_or_drops_and_counts_them_e_tile() {
    // The E-tile's 402.83 MHz into the 250 MHz core (half-periods 5 and 8),
    // the writer at full rate.
    let lens = drop_lens(100, 20, 12);
    let run = DropRun {
        s_half: 5,
        m_half: 8,
        offer: 1.0,
        ready: 0.7,
        reader_start: 0,
        seed: 12,
    };
    overflows_again_and_again(&lens, run);
}

/// A reader faster than the writer and always ready: the FIFO never fills,
/// so the one frame dropped is the one longer than the FIFO.
#[test]
fn frame_drop_fifo_with_a_fast_reader_drops_only_the_frame_too_long() {
    let lens = drop_lens(60, 12, 13);
    let run = DropRun {
        s_half: 13,
        m_half: 10,
        offer: 0.8,
        ready: 1.0,
        reader_start: 0,
        seed: 13,
    };
    let r = cross_dropping(&lens, run);
    assert_eq!(check_whole_frames(&lens, &r), 1);
}

#[test]
fn frame_drop_fifo_reader_takes_a_beat_every_cycle_across_frames() {
    // Small frames written while the reader waits, then read with ready
    // always high: no cycle without a beat until the last.
    let lens = [1, 3, 2, 1, 4, 1, 2];
    let run = DropRun {
        s_half: 5,
        m_half: 7,
        offer: 1.0,
        ready: 1.0,
        reader_start: 40,
        seed: 14,
    };
    let r = cross_dropping(&lens, run);
    assert_eq!(check_whole_frames(&lens, &r), 0);
    assert_eq!(r.idle_while_ready, 0);
}
