//! `make bench` (Ensō part): the streaming DMA engine measured against its
//! goals in one run, written to `build/bench/enso.json`.
//!
//! - Echo (receive on an RX pipe, send back on its TX pipe, through the
//!   driver) and RX alone at every frame size from 64 to 128 B and at 256,
//!   512, 1024 and 1518 B, MAC side unpaced, PCIe model Gen3 x16 (63 B/cycle
//!   each way, 24 B per TLP, 100-cycle latency), beside the 100 GbE line rate
//!   and the card's bound, named per size: the input's one frame start per
//!   512-bit beat or the PCIe model's limit for the bytes the run moved.
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
use pendulum_testbench::{git_rev, CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::{json, Value};

const FRAMES: usize = 20_000;
/// TX pipes the pipe sweep sends through: one host thread's, as many as the
/// card had before it had one per notification buffer, so the sweep stays
/// comparable across builds (the rows with one TX pipe per RX pipe show what
/// more doorbells per frame cost).
const SWEEP_TX_PIPES: usize = 4;
/// Sizes with every column of the echo table (zero copy, TX alone) and a
/// row in the metadata table.
const SIZES: [usize; 6] = [64, 128, 256, 512, 1024, 1518];

/// Sizes of the echo and RX-alone rows: every size from 64 to 128 B, where
/// the 64-byte ring slot and the input's one frame start per beat set the
/// bound, then the larger [`SIZES`].
fn echo_sizes() -> Vec<usize> {
    (64..=128)
        .chain(SIZES.into_iter().filter(|&s| s > 128))
        .collect()
}

/// The PCIe model's bandwidth each way, bytes per cycle (Gen3 x16 after
/// encoding, about 63), from the model's own configuration.
fn pcie_bytes_per_cycle() -> f64 {
    PcieConfig::gen3_x16().bytes_per_cycle()
}

fn line_rate_mpps(size: usize) -> f64 {
    100e9 / ((size as f64 + 20.0) * 8.0) / 1e6
}

/// The Ethernet input takes one frame start per 512-bit beat, so a frame
/// occupies whole beats: at most one frame per ceil(size / 64) cycles
/// (125 Mpps from 65 to 128 B at 250 MHz).
fn input_limit_mpps(size: usize) -> f64 {
    CLOCK_MHZ / size.div_ceil(64) as f64
}

/// What the PCIe model allows a run's frames, Mpps: the link's bytes per
/// cycle over the bytes a frame cost in the busier direction (TLP headers,
/// notifications, doorbells and read requests included), and which
/// direction that is.
fn pcie_limit_mpps(pcie: &PcieCounters, frames: u64) -> (f64, &'static str) {
    let per_frame = |bytes: u64| bytes as f64 / frames as f64;
    let (up, down) = (
        per_frame(pcie.to_host_link_bytes),
        per_frame(pcie.to_nic_link_bytes),
    );
    let (bytes, dir) = if up >= down {
        (up, "pcie_to_host")
    } else {
        (down, "pcie_to_nic")
    };
    (pcie_bytes_per_cycle() * CLOCK_MHZ / bytes, dir)
}

/// The lower of the input's and the PCIe model's limits, and its name: the
/// rate the card can reach with the MAC side unpaced.
fn bound(size: usize, pcie: (f64, &'static str)) -> (f64, &'static str) {
    let input = input_limit_mpps(size);
    if input <= pcie.0 {
        (input, "input_one_start_per_beat")
    } else {
        pcie
    }
}

/// Bytes one notification costs on the link: the 16-byte record and its TLP.
const NOTIF_BYTES: f64 = 16.0 + 24.0;

/// An RX-only run, one pipe.
struct RxOnly {
    mpps: f64,
    /// What the PCIe model allows these frames, and which direction.
    pcie_limit: (f64, &'static str),
    notifs_per_frame: f64,
    /// Everything host-ward that is not frame data (TLP overhead of every
    /// write, notifications), over frame data.
    metadata_share: f64,
    /// Notification bytes alone over frame data: what Ensō's metadata figure counts.
    notif_share: f64,
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
    // The ring's entry headers are data-ring bytes to the PCIe model, but
    // metadata to the application: counted as such here (v2 ring format).
    let headers = (FRAMES * pendulum_layout::ring::HEADER_BYTES) as f64;
    let frame_bytes = pcie.data_bytes as f64 - headers;
    RxOnly {
        mpps: run.mpps(),
        pcie_limit: pcie_limit_mpps(pcie, FRAMES as u64),
        notifs_per_frame: run.notifications as f64 / FRAMES as f64,
        metadata_share: (pcie.metadata_bytes as f64 + headers) / frame_bytes,
        notif_share: run.notifications as f64 * NOTIF_BYTES / frame_bytes,
    }
}

/// The Ensō streaming DMA engine measured against its goals in one run.
///
/// Echo through the driver and RX alone at every frame size from 64 to 128 B
/// and at 256..1518 B, beside the 100 GbE line rate and the card's bound
/// named per size (the input's one frame start per 512-bit beat, or the PCIe
/// model's limit: Gen3 x16, 63 B/cycle each way, 24 B per TLP, 100-cycle
/// latency); PCIe metadata as a share of data bytes,
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
    outln!("\nEcho through the driver (one RX and one TX pipe, frames copied to the TX ring) and RX alone, MAC");
    outln!("unpaced, beside the card's bound: the lower of the input's (one frame start per 512-bit beat, so");
    outln!("250 / ceil(bytes / 64) Mpps) and the PCIe model's for the run's bytes per frame in its busier direction");
    outln!("(in = input, up = PCIe to host, down = PCIe to NIC); and the 100 GbE line rate. Zero copy (the TX pipe");
    outln!("sending out of the RX ring) and TX alone, without and with a TX stamp on every frame, at the");
    outln!("sizes of the other tables");
    outln!(
        "{:>6} | {:>9} {:>7} {:>4} {:>6} | {:>9} {:>7} {:>4} {:>6} | {:>9} {:>7} | {:>9} {:>9} {:>9}",
        "bytes",
        "echo Mpps",
        "bound",
        "by",
        "share",
        "RX Mpps",
        "bound",
        "by",
        "share",
        "line Mpps",
        "% line",
        "0-copy",
        "TX Mpps",
        "stamped"
    );
    let short = |name: &str| match name {
        "input_one_start_per_beat" => "in",
        "pcie_to_host" => "up",
        _ => "down",
    };
    for size in echo_sizes() {
        let full = SIZES.contains(&size);
        let e = echo_run(size, FRAMES, 1, false);
        let r = rx_only(size, false);
        let line = line_rate_mpps(size);
        let (e_limit, e_dir) = pcie_limit_mpps(&e.pcie, e.frames);
        let (e_bound, e_bound_name) = bound(size, (e_limit, e_dir));
        let (r_bound, r_bound_name) = bound(size, r.pcie_limit);
        let r_mpps = r.mpps;
        // Gbps of frames as the wire counts them (with preamble and gap), so
        // it compares with 100 GbE directly.
        let gbps = e.mpps() * (size as f64 + 20.0) * 8.0 / 1e3;
        let (e_up, e_down) = link_busy(&e.pcie, e.cycles);
        let mut row = json!({
            "frame_bytes": size,
            "frames": e.frames,
            "cycles": e.cycles,
            "echo_mpps": e.mpps(),
            "echo_wire_gbps": gbps,
            "line_rate_mpps": line,
            "share_of_line_rate": e.mpps() / line,
            "input_limit_mpps": input_limit_mpps(size),
            "pcie_echo_limit_mpps": e_limit,
            "pcie_echo_limit_direction": e_dir,
            "echo_bound_mpps": e_bound,
            "echo_bound": e_bound_name,
            "echo_share_of_bound": e.mpps() / e_bound,
            "rx_only_mpps": r.mpps,
            "pcie_rx_limit_mpps": r.pcie_limit.0,
            "rx_bound_mpps": r_bound,
            "rx_bound": r_bound_name,
            "rx_share_of_bound": r.mpps / r_bound,
            "echo_pcie_busy": {"to_host": e_up, "to_nic": e_down},
        });
        let (mut zero_copy, mut tx_alone, mut tx_stamped) =
            (String::new(), String::new(), String::new());
        if full {
            let z = echo_run_with(size, FRAMES, 1, false, true);
            if z.dropped > 0 {
                outln!("       (zero copy at {size} B: {} frames dropped for RX ring room while TX held them)", z.dropped);
            }
            let tx_mpps = tx_run(size, FRAMES, false).mpps();
            // The same with every frame stamped: what the stamp records
            // cost (a stamped first beat waits for room in the stamp queue).
            let tx_stamped_mpps = tx_run(size, FRAMES, true).mpps();
            let (z_up, z_down) = link_busy(&z.pcie, z.cycles);
            busy.push((size, e.cycles, e_up, e_down, z.cycles, z_up, z_down));
            let fields = json!({
                "zero_copy_echo_mpps": z.mpps(),
                "zero_copy_dropped": z.dropped,
                "zero_copy_cycles": z.cycles,
                "zero_copy_pcie_busy": {"to_host": z_up, "to_nic": z_down},
                "tx_only_mpps": tx_mpps,
                "tx_stamped_mpps": tx_stamped_mpps,
            });
            if let (Value::Object(row), Value::Object(more)) = (&mut row, fields) {
                row.extend(more);
            }
            zero_copy = format!("{:.2}", z.mpps());
            tx_alone = format!("{tx_mpps:.2}");
            tx_stamped = format!("{tx_stamped_mpps:.2}");
            let pp = rx_only(size, true);
            let mode = |m: &RxOnly| {
                json!({
                    "metadata_share": m.metadata_share,
                    "notification_share": m.notif_share,
                    "notifications_per_frame": m.notifs_per_frame,
                    "mpps": m.mpps,
                })
            };
            meta_rows
                .push(json!({"frame_bytes": size, "reactive": mode(&r), "per_packet": mode(&pp)}));
            modes.push((size, r, pp));
        }
        outln!(
            "{size:>6} | {:>9.2} {e_bound:>7.2} {:>4} {:>5.1}% | {r_mpps:>9.2} {r_bound:>7.2} {:>4} {:>5.1}% | {line:>9.2} {:>6.1}% | {zero_copy:>9} {tx_alone:>9} {tx_stamped:>9}",
            e.mpps(),
            short(e_bound_name),
            100.0 * e.mpps() / e_bound,
            short(r_bound_name),
            100.0 * r_mpps / r_bound,
            100.0 * e.mpps() / line,
        );
        echo_rows.push(row);
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
            lat_rows.push(json!({
                "frame_bytes": size,
                "prefetch": prefetch,
                "load": 0.5,
                "host_work_cycles": 200,
                "p50_cycles": p50,
                "p99_cycles": p99,
            }));
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
        pipe_rows.push(json!({
            "frame_bytes": size,
            "pipes": n,
            "tx_pipes": tx_used,
            "echo_mpps": e.mpps(),
            "cycles": e.cycles,
            "notifications_per_frame": per_frame(e.notifications),
            "register_writes_per_frame": per_frame(e.register_writes),
            "pcie_busy": {"to_host": up, "to_nic": down},
        }));
    }

    let out = json!({
        "bench": "enso",
        "git_rev": git_rev(),
        "verilator_version": VERILATOR_VERSION,
        "clock_mhz": CLOCK_MHZ,
        "frames_per_run": FRAMES,
        "mac_pacing": "unpaced",
        "pcie": {
            "model": "Gen3 x16",
            "bytes_per_cycle_each_way": pcie_bpc,
            "tlp_overhead_bytes": 24,
            "one_way_latency_cycles": 100,
        },
        "bounds": {
            "input_one_start_per_beat": "the Ethernet input takes one frame start per 512-bit beat: clock_mhz / ceil(frame_bytes / 64) Mpps",
            "pcie_to_host": "the PCIe model's bytes per cycle over the NIC-to-host link bytes per frame the run measured",
            "pcie_to_nic": "the PCIe model's bytes per cycle over the host-to-NIC link bytes per frame the run measured",
        },
        "per_packet_mode": "the per-packet baseline writes a notification whenever a pipe's tail moved, so frames that arrive together share one (notifications_per_frame says how many)",
        "echo": echo_rows,
        "metadata": meta_rows,
        "latency": lat_rows,
        "pipes": pipe_rows,
    });
    let json = serde_json::to_string_pretty(&out).expect("JSON") + "\n";
    std::fs::create_dir_all("build/bench").expect("mkdir build/bench");
    std::fs::write("build/bench/enso.json", json).expect("write build/bench/enso.json");
    outln!("wrote build/bench/enso.json");
}
