//! Measurements shared by the bench binaries (`make bench`): each runs the
//! Verilated NIC through the driver and returns figures in simulated cycles.

use crate::echo::{echo_batch, echo_in_place};
use crate::models::{FrameGen, Pacing, PcieCounters};
use crate::rx_check::{receive_and_check, Expected, RxReport};
use crate::{SimCard, SimConfig, CLOCK_MHZ};
use pendulum_driver::{Card, Device};
use pendulum_layout::Counter;

/// Idle polls (of `poll_interval_cycles` each) the echo waits, once the
/// source is empty, before it reads the drop counter to see whether frames
/// it still waits for were dropped.
const IDLE_POLLS_BEFORE_DROP_READ: u32 = 32;

/// What an RX-only run saw.
#[derive(Clone, Debug)]
pub struct RxRun {
    pub report: RxReport,
    pub pcie: PcieCounters,
    pub notifications: u64,
    /// Wall-clock seconds the receive took (for the simulator's speed).
    pub wall_secs: f64,
}

impl RxRun {
    pub fn mpps(&self) -> f64 {
        self.report.frames as f64 / self.report.cycles as f64 * CLOCK_MHZ
    }
}

/// Receives `frames` frames of `size` bytes offered back to back (MAC side
/// unpaced) on one pipe with a 2 MiB ring, every frame checked byte for
/// byte, reactive or per-packet notifications.
///
/// # Panics
/// If a frame is lost or altered: a bench must not report a broken run.
pub fn rx_run(size: usize, frames: usize, per_packet: bool) -> RxRun {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open");
    dev.set_per_packet_notifications(per_packet)
        .expect("notification mode");
    let mut pipes = vec![dev.open_rx_pipe(0, 2 << 20).expect("pipe")];
    let mut gen = FrameGen::new(size as u64);
    let mut exp: Expected = vec![Default::default()];
    for _ in 0..frames {
        let f = gen.frame(size, 0);
        exp[0].push_back(f.clone());
        dev.card_mut().sim.eth.push(f);
    }
    let wall = std::time::Instant::now();
    let report = receive_and_check(&mut dev, &mut pipes, &mut exp, 100_000_000).expect("receive");
    let wall_secs = wall.elapsed().as_secs_f64();
    assert!(dev.card_mut().sim.drain(100_000));
    RxRun {
        report,
        pcie: dev.card().sim.pcie.counters().clone(),
        notifications: dev.counters().expect("counters").notifications,
        wall_secs,
    }
}

/// What an echo run saw.
#[derive(Clone, Debug)]
pub struct EchoRun {
    /// Frames echoed.
    pub frames: u64,
    /// Frames the RX engine dropped for lack of ring room (zero copy only:
    /// there the RX slots stay held until TX has sent them).
    pub dropped: u64,
    /// Cycles from the start to the last echoed frame leaving the MAC.
    pub cycles: u64,
    pub pcie: PcieCounters,
    pub notifications: u64,
    /// Register writes the host posted while echoing (not the set-up).
    pub register_writes: u64,
}

impl EchoRun {
    pub fn mpps(&self) -> f64 {
        self.frames as f64 / self.cycles as f64 * CLOCK_MHZ
    }
}

/// Echoes `frames` frames of `size` bytes offered back to back (MAC side
/// unpaced) and spread round-robin over `pipes` pipes: the echo
/// application receives on each RX pipe and sends back on the TX pipe of
/// the same index. Checks that what the MAC sent back is what came in.
///
/// # Panics
/// If the echo stalls or the frames sent back differ: a bench must not
/// report figures of a broken run.
pub fn echo_run(size: usize, frames: usize, pipes: usize, per_packet: bool) -> EchoRun {
    echo_run_with(size, frames, pipes, per_packet, false)
}

/// [`echo_run`], zero copy if `in_place`: each TX pipe sends straight out of
/// its RX pipe's ring ([`echo_in_place`]).
pub fn echo_run_with(
    size: usize,
    frames: usize,
    pipes: usize,
    per_packet: bool,
    in_place: bool,
) -> EchoRun {
    echo_run_through(size, frames, pipes, usize::MAX, per_packet, in_place)
}

/// [`echo_run_with`], sending through at most `tx_pipes` TX pipes: RX pipe
/// p echoes through TX pipe p mod min(pipes, tx_pipes, the card's). Fewer
/// TX pipes than RX pipes means fewer doorbells per frame (each covers the
/// frames of several RX pipes' batches).
pub fn echo_run_through(
    size: usize,
    frames: usize,
    pipes: usize,
    tx_pipes: usize,
    per_packet: bool,
    in_place: bool,
) -> EchoRun {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open");
    dev.set_per_packet_notifications(per_packet)
        .expect("notification mode");
    // 2 MiB rings while they fit in 8 MiB of host memory, then 64 KiB
    // (1,024 slots, still far more than a pipe holds in flight).
    let ring_bytes = ((8usize << 20) / pipes).clamp(64 << 10, 2 << 20) as u32;
    let mut rx: Vec<_> = (0..pipes)
        .map(|p| dev.open_rx_pipe(p, ring_bytes).expect("rx pipe"))
        .collect();
    // RX pipes past the TX pipes send back through TX pipe p mod tx_pipes.
    let tx_pipes = pipes.min(dev.tx_pipes()).min(tx_pipes);
    assert!(
        !in_place || tx_pipes == pipes,
        "zero-copy echo needs a TX pipe per RX pipe"
    );
    let mut tx: Vec<_> = (0..tx_pipes)
        .map(|p| {
            if in_place {
                dev.open_tx_pipe_over(p, &rx[p]).expect("tx pipe over rx")
            } else {
                dev.open_tx_pipe(p, 2 << 20).expect("tx pipe")
            }
        })
        .collect();
    let mut gen = FrameGen::new(size as u64);
    let mut sent: Vec<Vec<u8>> = (0..frames).map(|i| gen.frame(size, i % pipes)).collect();
    for f in &sent {
        dev.card_mut().sim.eth.push(f.clone());
    }
    let start = dev.card().sim.cycle();
    let writes_at_start = dev.card().sim.pcie.counters().mmio_writes;
    let mut echoed = 0;
    let mut dropped = 0;
    let mut idle_polls = 0;
    while echoed + dropped < frames {
        let mut any = 0;
        for p in 0..pipes {
            any += if in_place {
                echo_in_place(&mut dev, &mut rx[p], &mut tx[p]).expect("echo in place")
            } else {
                echo_batch(&mut dev, &mut rx[p], &mut tx[p % tx_pipes], 1_000_000).expect("echo")
            };
        }
        echoed += any;
        idle_polls = if any == 0 { idle_polls + 1 } else { 0 };
        if any == 0 {
            // The zero-copy echo can drop (its ring is held until TX sent);
            // the count is read only once the source is empty and the host
            // has been idle a while: a register read stalls the host for a
            // PCIe round trip, and reading the counters on every idle poll
            // cost the run a quarter of its cycles at 64 B.
            if in_place
                && idle_polls >= IDLE_POLLS_BEFORE_DROP_READ
                && dev.card().sim.eth.queued_frames() == 0
            {
                dropped = dev
                    .read64(Counter::DropRingFull.reg())
                    .expect("drop counter") as usize;
            }
            dev.card_mut().relax();
            assert!(
                dev.card().sim.cycle() - start < 1_000_000_000,
                "echo stalled at {echoed} of {frames}"
            );
        }
    }
    while dev.card().sim.eth_tx.frames_received() < echoed as u64 {
        dev.card_mut().sim.run(1);
        assert!(dev.card().sim.cycle() - start < 1_000_000_000, "TX stalled");
    }
    let cycles = dev.card().sim.cycle() - start;
    let mut out = dev.card_mut().sim.eth_tx.take_frames();
    out.sort_unstable();
    sent.sort_unstable();
    if dropped == 0 {
        assert!(out == sent, "the MAC sent back other frames than came in");
    } else {
        assert!(
            out.len() == echoed && out.iter().all(|f| sent.binary_search(f).is_ok()),
            "the MAC sent back other frames than came in"
        );
    }
    EchoRun {
        frames: echoed as u64,
        dropped: dropped as u64,
        cycles,
        pcie: dev.card().sim.pcie.counters().clone(),
        notifications: dev.counters().expect("counters").notifications,
        register_writes: dev.card().sim.pcie.counters().mmio_writes - writes_at_start,
    }
}

/// What a TX-only run saw.
#[derive(Clone, Debug)]
pub struct TxRun {
    pub frames: u64,
    /// Cycles from the doorbell to the last frame leaving the MAC.
    pub cycles: u64,
}

impl TxRun {
    pub fn mpps(&self) -> f64 {
        self.frames as f64 / self.cycles as f64 * CLOCK_MHZ
    }
}

/// Sends `frames` frames of `size` bytes from one TX pipe with a 2 MiB
/// ring, posting more whenever the ring has room, so the host keeps far
/// ahead of the NIC (MAC side unpaced): the TX path alone, to set beside RX
/// alone and the echo. With `stamped`, every frame asks for a TX stamp
/// (`TxPipe::send_stamped`) and the stamps are collected as they come.
///
/// # Panics
/// If the MAC sends other frames than were posted, a stamp is missing or
/// out of order, or TX stalls: a bench must not report a broken run.
pub fn tx_run(size: usize, frames: usize, stamped: bool) -> TxRun {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open");
    let mut tx = dev.open_tx_pipe(0, 2 << 20).expect("tx pipe");
    let mut gen = FrameGen::new(size as u64 + 1);
    let sent: Vec<Vec<u8>> = (0..frames).map(|_| gen.frame(size, 0)).collect();
    let refs: Vec<&[u8]> = sent.iter().map(Vec::as_slice).collect();
    let start = dev.card().sim.cycle();
    let mut queued = 0;
    let mut stamps = Vec::new();
    while dev.card().sim.eth_tx.frames_received() < frames as u64 {
        if queued < frames {
            queued += if stamped {
                tx.send_stamped(&mut dev, &refs[queued..])
                    .expect("send_stamped")
            } else {
                tx.send(&mut dev, &refs[queued..]).expect("send")
            };
        }
        if stamped {
            tx.stamps(&dev, &mut stamps).expect("stamps");
        }
        dev.card_mut().sim.run(16);
        assert!(dev.card().sim.cycle() - start < 1_000_000_000, "TX stalled");
    }
    let cycles = dev.card().sim.cycle() - start;
    assert!(
        dev.card_mut().sim.eth_tx.take_frames() == sent,
        "the MAC sent other frames than were posted"
    );
    if stamped {
        for _ in 0..10_000 {
            if tx.stamps_pending() == 0 {
                break;
            }
            dev.card_mut().sim.run(16);
            tx.stamps(&dev, &mut stamps).expect("stamps");
        }
        assert_eq!(stamps.len(), frames, "a stamp per frame");
        assert!(
            stamps.windows(2).all(|w| w[0].cycles < w[1].cycles),
            "stamps in order"
        );
    }
    TxRun {
        frames: frames as u64,
        cycles,
    }
}

/// (p50, p99, p99.9) of the RX latency of 10,000 frames of `size` at `load`
/// of the line rate; the host works `work` cycles on each batch before
/// freeing it, and asks for the next notification first if `prefetch`.
pub fn rx_latency(size: usize, load: f64, work: u64, prefetch: bool) -> (u64, u64, u64) {
    const N: usize = 10_000;
    let cfg = SimConfig {
        pacing: Pacing::LineRate {
            gbps: 100.0 * load,
            clock_mhz: CLOCK_MHZ,
        },
        ..SimConfig::default()
    };
    let mut dev = Device::open(SimCard::new(cfg)).expect("open");
    let mut pipe = dev.open_rx_pipe(0, 2 << 20).expect("pipe");
    dev.card_mut().sim.arrivals = Some(Default::default());
    let mut gen = FrameGen::new(7);
    for _ in 0..N {
        let f = gen.frame(size, 0);
        dev.card_mut().sim.eth.push(f);
    }
    let mut lat = Vec::with_capacity(N);
    while lat.len() < N {
        let (n, end) = {
            let batch = pipe.recv(&dev);
            (batch.iter().count(), batch.end_unit())
        };
        if n == 0 {
            dev.card_mut().relax();
            continue;
        }
        let now = dev.card().sim.cycle();
        for _ in 0..n {
            let t = dev
                .card_mut()
                .sim
                .arrivals
                .as_mut()
                .and_then(|a| a.pop_front())
                .expect("arrival");
            lat.push(now - t);
        }
        if prefetch {
            pipe.prefetch(&mut dev).expect("prefetch");
        }
        dev.card_mut().sim.run(work);
        pipe.free(&mut dev, end).expect("free");
    }
    lat.sort_unstable();
    let q = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    (q(0.5), q(0.99), q(0.999))
}
