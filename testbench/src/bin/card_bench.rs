//! The cost of the simulator being another process: register read latency
//! and 64-byte echo, in process (`SimCard`) and out of process
//! (`pendulum-sim serve` + `sim:` address), side by side. Writes
//! `build/bench/card.json`. Simulated figures (cycles) must match; wall
//! figures show what the socket costs.

use clap::Parser;
use pendulum_driver::layout::global;
use pendulum_driver::{Card, Device, EthernetPort};
use pendulum_testbench::echo::echo_batch;
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::outln;
use pendulum_testbench::{git_rev, SimCard, SimConfig, CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

const READS: u64 = 5_000;
const ECHO_FRAMES: usize = 20_000;

struct Figures {
    read_ns: f64,
    read_cycles: f64,
    echo_sim_mpps: f64,
    echo_wall_mpps: f64,
    echo_cycles: u64,
}

fn measure<C: Card + EthernetPort>(dev: &mut Device<C>) -> Figures {
    let c0 = dev.card_mut().cycles().expect("cycles");
    let t = Instant::now();
    for _ in 0..READS {
        dev.read(global::SCRATCH.offset).expect("read");
    }
    let read_ns = t.elapsed().as_nanos() as f64 / READS as f64;
    let read_cycles = (dev.card_mut().cycles().expect("cycles") - c0) as f64 / READS as f64;

    let mut rx = dev.open_rx_pipe(0, 256 * 1024).expect("rx pipe");
    let mut tx = dev.open_tx_pipe(0, 256 * 1024).expect("tx pipe");
    let mut gen = FrameGen::new(64);
    let frames: Vec<Vec<u8>> = (0..ECHO_FRAMES).map(|_| gen.frame(64, 0)).collect();
    dev.card_mut().inject(&frames).expect("inject");
    let c0 = dev.card_mut().cycles().expect("cycles");
    let t = Instant::now();
    let mut echoed = 0;
    while echoed < ECHO_FRAMES {
        let n = echo_batch(dev, &mut rx, &mut tx, 1_000_000).expect("echo");
        echoed += n;
        if n == 0 {
            dev.card_mut().relax();
        }
    }
    assert!(tx.wait_idle(dev, 10_000_000), "TX did not finish");
    let secs = t.elapsed().as_secs_f64();
    let echo_cycles = dev.card_mut().cycles().expect("cycles") - c0;
    assert!(
        dev.card_mut().drain(1_000_000).expect("drain"),
        "did not drain"
    );
    let out = dev.card_mut().collect().expect("collect");
    assert!(out == frames, "echoed frames differ");
    Figures {
        read_ns,
        read_cycles,
        echo_sim_mpps: ECHO_FRAMES as f64 / echo_cycles as f64 * CLOCK_MHZ,
        echo_wall_mpps: ECHO_FRAMES as f64 / secs / 1e6,
        echo_cycles,
    }
}

/// What the simulator being another process costs: register-read latency
/// and 64-byte echo, in process (SimCard) and out of process (pendulum-sim
/// serve and a sim: address), side by side.
///
/// Simulated figures (cycles) must match; wall figures show what the socket
/// costs. Starts the pendulum-sim beside its own executable, so build both.
/// A few seconds. Prints a table and writes build/bench/card.json. No
/// options.
#[derive(Parser)]
#[command(
    name = "pendulum-card-bench",
    version,
    after_help = "\
Example:
  cargo build --release -p pendulum-testbench --bin pendulum-sim --bin pendulum-card-bench
  target/release/pendulum-card-bench"
)]
struct Cli {}

fn main() {
    Cli::parse();
    let inproc = measure(&mut Device::open(SimCard::new(SimConfig::default())).expect("open"));

    let exe = std::env::current_exe()
        .expect("exe")
        .with_file_name("pendulum-sim");
    let dir = std::env::temp_dir().join(format!("pendulum-card-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let socket = dir.join("sim.sock");
    let mut child = Command::new(&exe)
        .args(["serve", "--socket"])
        .arg(&socket)
        .arg("--mem")
        .arg(dir.join("host.mem"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} ({e}): build it with `cargo build --release -p pendulum-testbench`", exe.display()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("server line");
    let outproc = measure(
        &mut pendulum_driver::open(&format!("sim:{}", socket.display())).expect("open sim:"),
    );
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);

    outln!("card access: in process (SimCard) vs out of process (pendulum-sim serve, Unix socket + shared memory)");
    outln!(
        "{:<34} {:>14} {:>14} {:>8}",
        "",
        "in process",
        "out of process",
        "ratio"
    );
    let row = |name: &str, a: f64, b: f64| outln!("{name:<34} {a:>14.3} {b:>14.3} {:>8.2}", b / a);
    row(
        "register read, wall us",
        inproc.read_ns / 1e3,
        outproc.read_ns / 1e3,
    );
    row(
        "register read, simulated cycles",
        inproc.read_cycles,
        outproc.read_cycles,
    );
    row(
        "64 B echo, simulated Mpps",
        inproc.echo_sim_mpps,
        outproc.echo_sim_mpps,
    );
    row(
        "64 B echo, wall Mpps",
        inproc.echo_wall_mpps,
        outproc.echo_wall_mpps,
    );
    let obj = |f: &Figures| {
        json!({
            "register_read_wall_ns": f.read_ns,
            "register_read_cycles": f.read_cycles,
            "echo_64b_sim_mpps": f.echo_sim_mpps,
            "echo_64b_wall_mpps": f.echo_wall_mpps,
            "echo_cycles": f.echo_cycles,
        })
    };
    let out = json!({
        "bench": "card",
        "git_rev": git_rev(),
        "verilator_version": VERILATOR_VERSION,
        "clock_mhz": CLOCK_MHZ,
        "register_reads": READS,
        "echo_frames": ECHO_FRAMES,
        "in_process": obj(&inproc),
        "out_of_process": obj(&outproc),
        "out_of_process_transport": "unix socket for registers and time, shared-memory file for host memory",
    });
    let json = serde_json::to_string_pretty(&out).expect("JSON") + "\n";
    std::fs::create_dir_all("build/bench").expect("mkdir build/bench");
    std::fs::write("build/bench/card.json", json).expect("write build/bench/card.json");
    outln!("wrote build/bench/card.json");
}
