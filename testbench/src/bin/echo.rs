//! `pendulum-echo ADDRESS [--pipe P] [--ring-bytes N] [--frames N] [--self-test N]`:
//! sends every frame that arrives on pipe P back out, through the driver.
//! The same binary runs on the simulator process (`sim:/path`) and a PCIe
//! card (`0000:03:00.0`).
//!
//! `--self-test N` (simulated card only): injects N frames of 64 to 256 bytes
//! on the simulated MAC, echoes them, and checks that the MAC sent the same
//! frames back, in order. Prints the echo rate in simulated Mpps.

use clap::Parser;
use pendulum_driver::{Card, EthernetPort};
use pendulum_testbench::cli::{parse_bytes, ADDRESS_HELP};
use pendulum_testbench::echo::echo_batch;
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::{outln, CLOCK_MHZ};
use std::time::{Duration, Instant};

/// Echo: every frame that arrives on pipe P is sent back out on TX pipe P,
/// through the driver, on a simulated card or a PCIe one.
///
/// Prints the frames echoed every second, and the rate at the end. With
/// --self-test N (simulated card only), it injects N frames of 64 to 256
/// bytes on the simulated MAC, echoes them, checks that the MAC sent the
/// same frames back in order, and prints the rate in simulated Mpps.
#[derive(Parser)]
#[command(
    name = "pendulum-echo",
    version,
    after_help = "\
Exit status: 0 done; 1 the card, the driver or the self-test failed; 2 bad arguments.

Examples:
  pendulum-echo sim:/tmp/pendulum.sock --self-test 2000
  pendulum-echo 0000:03:00.0 --pipe 1 --ring-bytes 1M"
)]
struct Cli {
    #[arg(help = ADDRESS_HELP)]
    address: String,
    /// Pipe to echo on: frames from RX pipe P go out on TX pipe P (so P is
    /// below the card's TX pipe count, `pendulum-ctl ADDRESS info`).
    #[arg(long, value_name = "P", default_value_t = 0)]
    pipe: usize,
    /// Size of each of the two rings in bytes, a power of two; K and M
    /// multiply by 1024 and 1024².
    #[arg(long, value_name = "BYTES", default_value = "256K", value_parser = ring_bytes)]
    ring_bytes: u32,
    /// Stop after echoing this many frames [default: run until killed].
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Simulated card only: inject N frames on the MAC, echo them, and check
    /// they come back unchanged and in order (implies --frames N).
    #[arg(long, value_name = "N")]
    self_test: Option<usize>,
}

fn ring_bytes(s: &str) -> Result<u32, String> {
    let n = parse_bytes(s)?;
    u32::try_from(n).map_err(|_| format!("`{s}` is larger than a ring can be"))
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("pendulum-echo: {e}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let Cli {
        address,
        pipe,
        ring_bytes,
        frames,
        self_test,
    } = cli;
    let self_test = self_test.unwrap_or(0);
    let mut limit = frames.unwrap_or(u64::MAX);
    let mut dev = pendulum_driver::open(&address).map_err(|e| e.to_string())?;
    let mut rx = dev
        .open_rx_pipe(pipe, ring_bytes)
        .map_err(|e| e.to_string())?;
    let mut tx = dev
        .open_tx_pipe(pipe, ring_bytes)
        .map_err(|e| e.to_string())?;
    outln!(
        "pendulum-echo: {address}: echoing pipe {pipe} ({} pipes, rings of {ring_bytes} bytes)",
        dev.pipes()
    );

    let mut sent_frames = Vec::new();
    let mut start_cycle = 0;
    if self_test > 0 {
        let mut gen = FrameGen::new(7);
        sent_frames = (0..self_test)
            .map(|i| gen.frame(64 + 64 * (i % 4), pipe))
            .collect();
        // A PCIe card refuses (its Ethernet port is a wire), saying so.
        let card = dev.card_mut();
        card.inject(&sent_frames)
            .map_err(|e| format!("--self-test: {e}"))?;
        start_cycle = card.cycles().map_err(|e| e.to_string())?;
        limit = self_test as u64;
    }
    let wall = Instant::now();
    let mut last_report = Instant::now();
    let mut echoed = 0u64;
    while echoed < limit {
        let n = echo_batch(&mut dev, &mut rx, &mut tx, 1_000_000).map_err(|e| e.to_string())?;
        echoed += n as u64;
        if n == 0 {
            dev.card_mut().relax();
            // relax() cannot fail; a card that stopped answering must stop us.
            dev.card().check().map_err(|e| e.to_string())?;
            if self_test > 0
                && dev.card_mut().cycles().map_err(|e| e.to_string())? - start_cycle > 100_000_000
            {
                return Err(format!("echo stalled after {echoed} of {limit} frames"));
            }
        }
        if last_report.elapsed() > Duration::from_secs(1) && self_test == 0 {
            outln!("echoed {echoed} frames");
            last_report = Instant::now();
        }
    }
    if !tx.wait_idle(&mut dev, 10_000_000) {
        dev.card().check().map_err(|e| e.to_string())?;
        return Err("TX did not finish".into());
    }
    let secs = wall.elapsed().as_secs_f64();
    outln!(
        "echoed {echoed} frames in {secs:.2} s wall ({:.3} Mpps wall)",
        echoed as f64 / secs / 1e6
    );
    if self_test > 0 {
        let card = dev.card_mut();
        card.drain(1_000_000).map_err(|e| e.to_string())?;
        let cycles = card.cycles().map_err(|e| e.to_string())? - start_cycle;
        let out = card.collect().map_err(|e| e.to_string())?;
        outln!(
            "simulated: {cycles} cycles, {:.2} Mpps at {CLOCK_MHZ} MHz",
            echoed as f64 / cycles as f64 * CLOCK_MHZ
        );
        if out != sent_frames {
            return Err(format!(
                "the MAC sent {} frames back, {} came in; they differ",
                out.len(),
                sent_frames.len()
            ));
        }
        outln!(
            "self-test OK: {} frames came back out unchanged, in order",
            out.len()
        );
    }
    Ok(())
}
