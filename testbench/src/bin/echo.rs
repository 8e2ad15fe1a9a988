//! `pendulum-echo ADDRESS [--pipe P] [--ring-bytes N] [--frames N] [--self-test N]`:
//! sends every frame that arrives on pipe P back out, through the driver.
//! The same binary runs on the simulator process (`sim:/path`) and a PCIe
//! card (`0000:03:00.0`).
//!
//! `--self-test N` (simulated card only): injects N frames of 64 to 256 bytes
//! on the simulated MAC, echoes them, and checks that the MAC sent the same
//! frames back, in order. Prints the echo rate in simulated Mpps.

use pendulum_driver::{AnyCard, Card, Device};
use pendulum_testbench::echo::echo_batch;
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::CLOCK_MHZ;
use std::time::{Duration, Instant};

const USAGE: &str =
    "usage: pendulum-echo ADDRESS [--pipe P] [--ring-bytes N] [--frames N] [--self-test N]";

fn main() {
    if let Err(e) = run() {
        eprintln!("pendulum-echo: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = args
        .first()
        .filter(|a| !a.starts_with('-'))
        .ok_or(USAGE)?
        .clone();
    let (mut pipe, mut ring_bytes, mut limit, mut self_test) =
        (0usize, 256 * 1024u32, u64::MAX, 0usize);
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        let v: u64 = it
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{a} needs a number\n{USAGE}"))?;
        match a.as_str() {
            "--pipe" => pipe = v as usize,
            "--ring-bytes" => ring_bytes = v as u32,
            "--frames" => limit = v,
            "--self-test" => self_test = v as usize,
            _ => return Err(format!("unknown argument {a}\n{USAGE}")),
        }
    }
    let mut dev = pendulum_driver::open(&address).map_err(|e| e.to_string())?;
    let mut rx = dev
        .open_rx_pipe(pipe, ring_bytes)
        .map_err(|e| e.to_string())?;
    let mut tx = dev
        .open_tx_pipe(pipe, ring_bytes)
        .map_err(|e| e.to_string())?;
    println!(
        "pendulum-echo: {address}: echoing pipe {pipe} ({} pipes, rings of {ring_bytes} bytes)",
        dev.pipes()
    );

    let mut sent_frames = Vec::new();
    if self_test > 0 {
        let sim = dev
            .card_mut()
            .as_sim()
            .ok_or("--self-test needs the simulated card (sim:...)")?;
        let mut gen = FrameGen::new(7);
        sent_frames = (0..self_test)
            .map(|i| gen.frame(64 + 64 * (i % 4), pipe))
            .collect();
        sim.eth_send(&sent_frames).map_err(|e| e.to_string())?;
        limit = self_test as u64;
    }
    let start_cycle = cycle(&mut dev)?;
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
            if self_test > 0 && cycle(&mut dev)? - start_cycle > 100_000_000 {
                return Err(format!("echo stalled after {echoed} of {limit} frames"));
            }
        }
        if last_report.elapsed() > Duration::from_secs(1) && self_test == 0 {
            println!("echoed {echoed} frames");
            last_report = Instant::now();
        }
    }
    if !tx.wait_idle(&mut dev, 10_000_000) {
        dev.card().check().map_err(|e| e.to_string())?;
        return Err("TX did not finish".into());
    }
    let secs = wall.elapsed().as_secs_f64();
    println!(
        "echoed {echoed} frames in {secs:.2} s wall ({:.3} Mpps wall)",
        echoed as f64 / secs / 1e6
    );
    if self_test > 0 {
        let sim = dev.card_mut().as_sim().ok_or("not a simulated card")?;
        sim.drain(1_000_000).map_err(|e| e.to_string())?;
        let cycles = sim.cycle().map_err(|e| e.to_string())? - start_cycle;
        let out = sim.eth_tx_take().map_err(|e| e.to_string())?;
        println!(
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
        println!(
            "self-test OK: {} frames came back out unchanged, in order",
            out.len()
        );
    }
    Ok(())
}

fn cycle(dev: &mut Device<AnyCard>) -> Result<u64, String> {
    match dev.card_mut().as_sim() {
        Some(s) => s.cycle().map_err(|e| e.to_string()),
        None => Ok(0),
    }
}
