//! `make bench`: RX throughput of the simulated NIC for 64, 128, 512 and 1518-byte
//! frames beside the 100 GbE line rate, and the simulator's speed, side by side
//! in one run. Writes `build/bench/rx.json`.
//!
//! Each size: 20,000 frames offered back to back (MAC side unpaced, so the NIC
//! and the PCIe model set the pace), one pipe, a host that frees every batch.
//! Throughput = frames / simulated cycles from the first frame to the last
//! frame seen by the host, at 250 MHz.

use clap::Parser;
use pendulum_testbench::measure::{rx_latency, rx_run};
use pendulum_testbench::outln;
use pendulum_testbench::{git_rev, CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::{json, Value};

const FRAMES: usize = 20_000;
const SIZES: [usize; 4] = [64, 128, 512, 1518];

fn line_rate_mpps(size: usize) -> f64 {
    100e9 / ((size as f64 + 20.0) * 8.0) / 1e6
}

/// RX throughput of the simulated NIC for 64, 128, 512 and 1518-byte frames
/// beside the 100 GbE line rate, and the simulator's speed, in one run.
///
/// Each size: 20,000 frames offered back to back (MAC side unpaced), one
/// pipe, a host that frees every batch; PCIe model Gen3 x16. Throughput is
/// frames over simulated cycles at 250 MHz. Prints a table and writes
/// build/bench/rx.json (relative to the current directory).
#[derive(Parser)]
#[command(
    name = "pendulum-bench",
    version,
    after_help = "\
Example (`make bench` runs it with the other benches):
  cargo run --release -p pendulum-testbench --bin pendulum-bench"
)]
struct Cli {
    /// Only the RX throughput table (the streaming workload the simulator's
    /// speed is quoted on, as profiled in testbench/PROFILE.md); writes no JSON.
    #[arg(long)]
    rx_only: bool,
}

fn main() {
    let cli = Cli::parse();
    let mut rows = Vec::new();
    outln!("RX throughput, {FRAMES} frames per size, PCIe Gen3 x16 model (24 B per TLP, 100-cycle latency), 250 MHz");
    outln!("MAC side unpaced (no 20 B preamble/gap), so the NIC and the PCIe model set the rate: one 64 B write per beat");
    outln!("costs 64 + 24 B of the model's 63 B/cycle, which caps 64 B frames near 179 Mpps, above the 148.8 Mpps line rate.");
    outln!("Simulated with Verilator {VERILATOR_VERSION}, release build, one thread, every frame checked.");
    outln!(
        "{:>6} {:>10} {:>12} {:>8} {:>12} {:>10} {:>14}",
        "bytes",
        "Mpps",
        "line Mpps",
        "% line",
        "PCIe meta %",
        "cycles",
        "sim cycles/s"
    );
    for size in SIZES {
        let run = rx_run(size, FRAMES, false);
        let (rep, pcie, secs) = (&run.report, &run.pcie, run.wall_secs);
        let mpps = run.mpps();
        let line = line_rate_mpps(size);
        let meta = 100.0 * pcie.metadata_share();
        let speed = rep.cycles as f64 / secs;
        outln!(
            "{size:>6} {mpps:>10.2} {line:>12.2} {:>7.1}% {meta:>11.1}% {:>10} {speed:>14.0}",
            100.0 * mpps / line,
            rep.cycles
        );
        rows.push(json!({
            "frame_bytes": size,
            "frames": rep.frames,
            "cycles": rep.cycles,
            "mpps": mpps,
            "line_rate_mpps": line,
            "share_of_line_rate": mpps / line,
            "pcie_data_bytes": pcie.data_bytes,
            "pcie_metadata_bytes": pcie.metadata_bytes,
            "metadata_share": meta / 100.0,
            "sim_cycles_per_second": speed.round(),
        }));
    }
    if cli.rx_only {
        return;
    }
    let modes = notification_modes();
    let lat = latency();
    let out = json!({
        "bench": "rx",
        "git_rev": git_rev(),
        "verilator_version": VERILATOR_VERSION,
        "clock_mhz": CLOCK_MHZ,
        "pcie": {"link_gbps": 126.03, "tlp_overhead_bytes": 24, "one_way_latency_cycles": 100},
        "mac_pacing": "unpaced",
        "results": rows,
        "notification_modes": modes,
        "latency": lat,
    });
    let json = serde_json::to_string_pretty(&out).expect("JSON") + "\n";
    std::fs::create_dir_all("build/bench").expect("mkdir build/bench");
    std::fs::write("build/bench/rx.json", json).expect("write build/bench/rx.json");
    outln!("wrote build/bench/rx.json");
}

/// Reactive notifications against the per-packet baseline: same frames, same
/// run, metadata on the PCIe link and notifications per frame.
fn notification_modes() -> Vec<Value> {
    outln!("\nNotifications: reactive (one outstanding per pipe) against per-packet, 20,000 frames, one pipe");
    outln!(
        "{:>6} {:>12} {:>14} {:>12} {:>10}",
        "bytes",
        "mode",
        "notif/frame",
        "PCIe meta %",
        "Mpps"
    );
    let mut out = Vec::new();
    for size in [64usize, 1518] {
        for per_packet in [false, true] {
            let run = rx_run(size, FRAMES, per_packet);
            let (pcie, notifs) = (&run.pcie, run.notifications);
            let mode = if per_packet { "per-packet" } else { "reactive" };
            let per_frame = notifs as f64 / FRAMES as f64;
            let meta = 100.0 * pcie.metadata_share();
            let mpps = run.mpps();
            outln!("{size:>6} {mode:>12} {per_frame:>14.4} {meta:>11.1}% {mpps:>10.2}");
            out.push(json!({
                "frame_bytes": size,
                "mode": mode,
                "notifications": notifs,
                "notifications_per_frame": per_frame,
                "metadata_share": meta / 100.0,
                "mpps": mpps,
            }));
        }
    }
    out
}

/// Latency from a frame's first beat at the NIC's port to the host seeing it
/// in a batch (reactive notifications, host polling every 8 cycles), at 10%,
/// 50% and 90% of the 100 GbE line rate, 10,000 frames each; then the same
/// with a host that works `WORK` cycles on each batch before freeing it,
/// without and with notification prefetch (asked for as the batch is taken).
fn latency() -> Vec<Value> {
    const WORK: u64 = 200;
    outln!("\nRX latency, first beat at the port to the frame in the host's hands (cycles at 250 MHz; host polls every 8)");
    outln!(
        "{:>6} {:>6} {:>10} {:>9} {:>8} {:>8} {:>8}",
        "bytes",
        "load",
        "host work",
        "prefetch",
        "p50",
        "p99",
        "p99.9"
    );
    let mut out = Vec::new();
    let mut runs: Vec<(usize, f64, u64, bool)> = Vec::new();
    for size in [64usize, 1518] {
        for load in [0.1, 0.5, 0.9] {
            runs.push((size, load, 0, false));
        }
    }
    for size in [64usize, 1518] {
        for prefetch in [false, true] {
            runs.push((size, 0.5, WORK, prefetch));
        }
    }
    for (size, load, work, prefetch) in runs {
        let (p50, p99, p999) = rx_latency(size, load, work, prefetch);
        outln!(
            "{size:>6} {:>5.0}% {work:>10} {:>9} {p50:>8} {p99:>8} {p999:>8}",
            load * 100.0,
            if prefetch { "yes" } else { "no" }
        );
        out.push(json!({
            "frame_bytes": size,
            "load": load,
            "host_work_cycles": work,
            "prefetch": prefetch,
            "frames": 10000,
            "p50_cycles": p50,
            "p99_cycles": p99,
            "p999_cycles": p999,
        }));
    }
    out
}
