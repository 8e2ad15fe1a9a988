//! `make bench` (Ensō part): the streaming DMA engine measured against its
//! goals in one run, written to `build/bench/enso.json`.
//!
//! - Echo (receive on an RX pipe, send back on its TX pipe, through the
//!   driver) at 64..1518-byte frames, MAC side unpaced, PCIe model Gen3 x16
//!   (63 B/cycle each way, 24 B per TLP, 100-cycle latency), beside the
//!   100 GbE line rate and the PCIe model's limit for RX.
//! - PCIe metadata as a share of data bytes, reactive notifications against
//!   the per-packet baseline (RX only, same frames).
//! - RX latency with and without notification prefetch.
//! - Echo throughput as the frames spread over more pipes.

use clap::Parser;
use pendulum_testbench::measure::{
    echo_run, echo_run_through, echo_run_with, rx_latency, rx_run, tx_run,
};
use pendulum_testbench::models::{PcieConfig, PcieCounters};
use pendulum_testbench::outln;
use pendulum_testbench::{CLOCK_MHZ, VERILATOR_VERSION};

const FRAMES: usize = 20_000;
/// TX pipes the pipe sweep sends through: one host thread's, as many as the
/// card had before it had one per notification buffer, so the sweep stays
/// comparable across builds (the rows with one TX pipe per RX pipe show what
/// more doorbells per frame cost).
const SWEEP_TX_PIPES: usize = 4;
const SIZES: [usize; 6] = [64, 128, 256, 512, 1024, 1518];
/// The PCIe model's bandwidth each way, bytes per cycle (Gen3 x16 after
/// encoding, about 63), from the model's own configuration.
fn pcie_bytes_per_cycle() -> f64 {
    PcieConfig::gen3_x16().bytes_per_cycle()
}

fn line_rate_mpps(size: usize) -> f64 {
    100e9 / ((size as f64 + 20.0) * 8.0) / 1e6
}

/// Bytes one notification costs on the link: the 16-byte record and its TLP.
const NOTIF_BYTES: f64 = 16.0 + 24.0;

/// An RX-only run, one pipe.
struct RxOnly {
    mpps: f64,
    notifs_per_frame: f64,
    /// Everything host-ward that is not frame data (TLP overhead of every
    /// write, notifications), over frame data.
    metadata_share: f64,
    /// Notification bytes alone over frame data: what Ensō's metadata figure counts.
    notif_share: f64,
    /// Host-ward PCIe bytes per frame, data and metadata.
    bytes_per_frame: f64,
}

/// The share of a run's `cycles` each PCIe direction spent carrying bytes:
/// (NIC to host, host to NIC).
fn link_busy(pcie: &PcieCounters, cycles: u64) -> (f64, f64) {
    let capacity = cycles as f64 * pcie_bytes_per_cycle();
    (
        pcie.to_host_link_bytes as f64 / capacity,
        pcie.to_nic_link_bytes as f64 / capacity,
    )
}

fn rx_only(size: usize, per_packet: bool) -> RxOnly {
    let run = rx_run(size, FRAMES, per_packet);
    let pcie = &run.pcie;
    RxOnly {
        mpps: run.mpps(),
        notifs_per_frame: run.notifications as f64 / FRAMES as f64,
        metadata_share: pcie.metadata_share(),
        notif_share: run.notifications as f64 * NOTIF_BYTES / pcie.data_bytes as f64,
        bytes_per_frame: (pcie.data_bytes + pcie.metadata_bytes) as f64 / FRAMES as f64,
    }
}

/// The Ensō streaming DMA engine measured against its goals in one run.
///
/// Echo through the driver at 64 to 1518-byte frames beside the 100 GbE
/// line rate and the PCIe model's limit (Gen3 x16: 63 B/cycle each way, 24 B
/// per TLP, 100-cycle latency); PCIe metadata as a share of data bytes,
/// reactive notifications against per-packet; RX latency with and without
/// notification prefetch; echo throughput over more pipes. Minutes. Prints
/// the tables and writes build/bench/enso.json. No options.
#[derive(Parser)]
#[command(
    name = "pendulum-enso-bench",
    version,
    after_help = "\
Example:
  cargo run --release -p pendulum-testbench --bin pendulum-enso-bench"
)]
struct Cli {}

fn main() {
    Cli::parse();
    let pcie_bpc = pcie_bytes_per_cycle();
    let mut echo_rows = Vec::new();
    let mut meta_rows = Vec::new();
    let mut modes = Vec::new();
    let mut busy = Vec::new();
    outln!("Ensō engine, PCIe model Gen3 x16 ({pcie_bpc:.1} B/cycle each way, 24 B per TLP), {CLOCK_MHZ} MHz, {FRAMES} frames per run");
    outln!("\nEcho through the driver (one RX and one TX pipe, frames copied to the TX ring; and zero copy, the TX");
    outln!("pipe sending out of the RX ring), MAC unpaced; RX alone and TX alone beside it");
    outln!(
        "{:>6} {:>9} {:>10} {:>9} {:>10} {:>10} {:>9} {:>9} {:>11} {:>9}",
        "bytes",
        "echo Mpps",
        "0-copy Mpps",
        "echo Gbps",
        "line Mpps",
        "PCIe Mpps",
        "RX Mpps",
        "TX Mpps",
        "% line(echo)",
        "cycles"
    );
    for size in SIZES {
        let e = echo_run(size, FRAMES, 1, false);
        let z = echo_run_with(size, FRAMES, 1, false, true);
        if z.dropped > 0 {
            outln!("       (zero copy at {size} B: {} frames dropped for RX ring room while TX held them)", z.dropped);
        }
        let (r, pp) = (rx_only(size, false), rx_only(size, true));
        let rx_mpps = r.mpps;
        let tx_mpps = tx_run(size, FRAMES).mpps();
        let line = line_rate_mpps(size);
        let pcie_limit = pcie_bpc * CLOCK_MHZ / r.bytes_per_frame;
        // Gbps of frames as the wire counts them (with preamble and gap), so
        // it compares with 100 GbE directly.
        let gbps = e.mpps() * (size as f64 + 20.0) * 8.0 / 1e3;
        let (e_up, e_down) = link_busy(&e.pcie, e.cycles);
        let (z_up, z_down) = link_busy(&z.pcie, z.cycles);
        busy.push((size, e.cycles, e_up, e_down, z.cycles, z_up, z_down));
        outln!(
            "{size:>6} {:>9.2} {:>10.2} {gbps:>9.1} {line:>10.2} {pcie_limit:>10.2} {rx_mpps:>9.2} {tx_mpps:>9.2} {:>11.1}% {:>9}",
            e.mpps(),
            z.mpps(),
            100.0 * e.mpps() / line,
            e.cycles
        );
        echo_rows.push(format!(
            "    {{\"frame_bytes\": {size}, \"frames\": {}, \"cycles\": {}, \"echo_mpps\": {:.3}, \"zero_copy_echo_mpps\": {:.3}, \"zero_copy_dropped\": {}, \"echo_wire_gbps\": {gbps:.2}, \"line_rate_mpps\": {line:.3}, \"pcie_rx_limit_mpps\": {pcie_limit:.3}, \"rx_only_mpps\": {rx_mpps:.3}, \"tx_only_mpps\": {tx_mpps:.3}, \"share_of_line_rate\": {:.4}, \"echo_pcie_busy\": {{\"to_host\": {e_up:.4}, \"to_nic\": {e_down:.4}}}, \"zero_copy_cycles\": {}, \"zero_copy_pcie_busy\": {{\"to_host\": {z_up:.4}, \"to_nic\": {z_down:.4}}}}}",
            e.frames, e.cycles, e.mpps(), z.mpps(), z.dropped, e.mpps() / line, z.cycles
        ));
        let mode = |m: &RxOnly| {
            format!(
                "{{\"metadata_share\": {:.5}, \"notification_share\": {:.5}, \"notifications_per_frame\": {:.5}, \"mpps\": {:.3}}}",
                m.metadata_share, m.notif_share, m.notifs_per_frame, m.mpps
            )
        };
        meta_rows.push(format!(
            "    {{\"frame_bytes\": {size}, \"reactive\": {}, \"per_packet\": {}}}",
            mode(&r),
            mode(&pp)
        ));
        modes.push((size, r, pp));
    }

    outln!("\nWhere the echo's cycles go: the share of each run that each PCIe direction was busy (bytes charged to");
    outln!("the link, TLP headers included, over cycles x {pcie_bpc:.1} B); a direction near 100% is the bound");
    outln!(
        "{:>6} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9}",
        "bytes",
        "cycles",
        "to host",
        "to NIC",
        "cycles",
        "to host",
        "to NIC"
    );
    outln!("{:>6} | {:^29} | {:^29}", "", "echo (copy)", "zero copy");
    for (size, ec, eu, ed, zc, zu, zd) in &busy {
        outln!(
            "{size:>6} | {ec:>9} {:>8.1}% {:>8.1}% | {zc:>9} {:>8.1}% {:>8.1}%",
            100.0 * eu,
            100.0 * ed,
            100.0 * zu,
            100.0 * zd
        );
    }

    outln!("\nPCIe metadata over frame data, RX only: all of it (TLP overhead + notifications), and notifications");
    outln!("alone (16 B record + 24 B TLP each, what Ensō's ~1% counts); reactive against the per-packet baseline");
    outln!(
        "{:>6} | {:>9} {:>9} {:>11} | {:>9} {:>9} {:>11}",
        "bytes",
        "all %",
        "notif %",
        "notif/frame",
        "all %",
        "notif %",
        "notif/frame"
    );
    outln!("{:>6} | {:^31} | {:^31}", "", "reactive", "per-packet");
    for (size, r, pp) in &modes {
        outln!(
            "{size:>6} | {:>8.2}% {:>8.2}% {:>11.4} | {:>8.2}% {:>8.2}% {:>11.4}",
            100.0 * r.metadata_share,
            100.0 * r.notif_share,
            r.notifs_per_frame,
            100.0 * pp.metadata_share,
            100.0 * pp.notif_share,
            pp.notifs_per_frame
        );
    }

    outln!("\nRX latency, frame's first beat at the port to the frame in the host's hands (host polls every 8 cycles,");
    outln!("works 200 cycles per batch), 50% of line rate, 10,000 frames: without and with notification prefetch");
    outln!("{:>6} {:>9} {:>8} {:>8}", "bytes", "prefetch", "p50", "p99");
    let mut lat_rows = Vec::new();
    for size in [64usize, 512, 1518] {
        for prefetch in [false, true] {
            let (p50, p99, _) = rx_latency(size, 0.5, 200, prefetch);
            outln!(
                "{size:>6} {:>9} {p50:>8} {p99:>8}",
                if prefetch { "yes" } else { "no" }
            );
            lat_rows.push(format!(
                "    {{\"frame_bytes\": {size}, \"prefetch\": {prefetch}, \"load\": 0.5, \"host_work_cycles\": 200, \"p50_cycles\": {p50}, \"p99_cycles\": {p99}}}"
            ));
        }
    }

    let max_pipes = pendulum_layout::params::PIPES;
    outln!("\nEcho as frames spread over more pipes (this build has {max_pipes} RX pipes; RX pipe p echoes through TX pipe p mod {SWEEP_TX_PIPES},");
    outln!("one host thread's sending pipes; the rows marked * send through one TX pipe per RX pipe, up to all {})", pendulum_layout::params::TX_PIPES);
    // Per frame: notifications written, and register writes the driver
    // posted (RX head frees and TX tail doorbells, one each per batch), which
    // the register file takes one every other cycle; and how busy each PCIe
    // direction was, to tell that bound from the link's.
    outln!(
        "{:>6} {:>6} {:>9} {:>12} {:>12} {:>8} {:>8}",
        "bytes",
        "pipes",
        "echo Mpps",
        "notif/frame",
        "regwr/frame",
        "to host",
        "to NIC"
    );
    let mut pipe_rows = Vec::new();
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for size in [64usize, 512] {
        let mut n = 1;
        while n <= max_pipes {
            runs.push((size, n, SWEEP_TX_PIPES));
            n *= 2;
        }
    }
    for n in [64, max_pipes] {
        runs.push((64, n, pendulum_layout::params::TX_PIPES));
    }
    for (size, n, tx_pipes) in runs {
        let e = echo_run_through(size, FRAMES, n, tx_pipes, false, false);
        let per_frame = |x: u64| x as f64 / e.frames as f64;
        let (up, down) = link_busy(&e.pcie, e.cycles);
        let tx_used = n.min(tx_pipes);
        let mark = if tx_pipes == SWEEP_TX_PIPES { ' ' } else { '*' };
        outln!(
            "{size:>6} {n:>5}{mark} {:>9.2} {:>12.3} {:>12.3} {:>7.1}% {:>7.1}%",
            e.mpps(),
            per_frame(e.notifications),
            per_frame(e.register_writes),
            100.0 * up,
            100.0 * down
        );
        pipe_rows.push(format!(
            "    {{\"frame_bytes\": {size}, \"pipes\": {n}, \"tx_pipes\": {tx_used}, \"echo_mpps\": {:.3}, \"cycles\": {}, \"notifications_per_frame\": {:.4}, \"register_writes_per_frame\": {:.4}, \"pcie_busy\": {{\"to_host\": {up:.4}, \"to_nic\": {down:.4}}}}}",
            e.mpps(),
            e.cycles,
            per_frame(e.notifications),
            per_frame(e.register_writes)
        ));
    }

    let rev = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    let json = format!(
        "{{\n  \"bench\": \"enso\",\n  \"git_rev\": \"{}\",\n  \"verilator_version\": {:?},\n  \"clock_mhz\": {CLOCK_MHZ},\n  \"pcie\": {{\"model\": \"Gen3 x16\", \"bytes_per_cycle_each_way\": {pcie_bpc:.3}, \"tlp_overhead_bytes\": 24, \"one_way_latency_cycles\": 100}},\n  \"echo\": [\n{}\n  ],\n  \"metadata\": [\n{}\n  ],\n  \"latency\": [\n{}\n  ],\n  \"pipes\": [\n{}\n  ]\n}}\n",
        rev.trim(),
        VERILATOR_VERSION,
        echo_rows.join(",\n"),
        meta_rows.join(",\n"),
        lat_rows.join(",\n"),
        pipe_rows.join(",\n")
    );
    std::fs::create_dir_all("build/bench").expect("mkdir build/bench");
    std::fs::write("build/bench/enso.json", json).expect("write build/bench/enso.json");
    outln!("wrote build/bench/enso.json");
}
