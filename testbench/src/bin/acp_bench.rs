//! The ACP link, measured on the Verilated pair and beside a go-back-N
//! timeout-and-retry link modelled in the same testbench, under the same
//! seeded faults. Writes `build/bench/acp.json` and prints the tables.
//!
//! - goodput as the channel count K and the link latency vary, one
//!   direction loaded or both at once, with the port unpaced or paced at
//!   100 GbE, against issue #25's bound min(record rate x 56 B, K x 56 B /
//!   RTT) and that bound capped by what the hosts' PCIe links carry
//!   (`host_bound_bytes_per_cycle`) (`goodput` rows: `paced`, `k`,
//!   `rtt_cycles`, `directions`, `goodput_bytes_per_cycle`,
//!   `bound_bytes_per_cycle`, `share_of_bound`);
//! - remote verbs per cycle, fetch-and-adds and one-slot commits
//!   (`COMMIT_WORDS`) on distinct lines, against min(record rate, K / RTT,
//!   what the host carries: `host_entries_per_cycle` 80-byte ring entries
//!   each way) (`remote_verbs` rows: `op`, `paced`, `k`, `rtt_cycles`, `verbs_per_cycle`,
//!   `bound_verbs_per_cycle`, `share_of_bound`);
//! - the time from an offer on the wire to the first record that states its
//!   decision, for a message and a verb (`decision_latency` rows: `k`,
//!   `rtt_cycles`, `kind`, `decision_cycles`);
//! - time to detect a cut (loss of signal) and a garbled link;
//! - exactly-once under faults: duplicates, losses, and delivery latency
//!   percentiles, ACP beside go-back-N.

use clap::Parser;
use pendulum_layout::acp;
use pendulum_testbench::acp_measure::{
    decision_cycles, goodput, host_entries_per_cycle, pair_with_channels, record_rate, remote_rate,
    rtt_cycles, Kind, RemoteOp, HOST_ENTRY_BYTES, RECORDS_PER_CYCLE_100GBE, SEED,
};
use pendulum_testbench::acp_traffic::{id_of, AcpTraffic};
use pendulum_testbench::entry_tap::EntryTap;
use pendulum_testbench::models::{
    percentile, GbnConfig, GoBackN, LinkFaults, OnFailure, PcieConfig,
};
use pendulum_testbench::outln;
use pendulum_testbench::pair::Side;
use pendulum_testbench::{CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// First cycle each message id was offered on the wire by A, and the cycle B's
/// NIC wrote it into B's ring.
#[derive(Default)]
struct Times {
    offered: HashMap<u64, u64>,
    delivered: HashMap<u64, u64>,
}

fn payload_id(rec: &[u8]) -> Option<u64> {
    let p: &[u8; acp::PAYLOAD_BYTES] = rec.get(acp::PAYLOAD_OFFSET..)?.try_into().ok()?;
    id_of(p)
}

/// A pair with the link up, K channels in use, and taps recording times.
fn setup(k: u32, faults: LinkFaults) -> (AcpTraffic, Arc<Mutex<Times>>) {
    let t = pair_with_channels(k, faults);
    let times = Arc::new(Mutex::new(Times::default()));
    let tt = times.clone();
    let mut p = t.pair.borrow_mut();
    p.wire_tap = Some(Box::new(move |cycle, side, rec| {
        if side == Side::A && rec[acp::BYTE_OPCODE] == acp::OP_OFFER {
            if let Some(id) = payload_id(rec) {
                tt.lock().unwrap().offered.entry(id).or_insert(cycle);
            }
        }
    }));
    let tt = times.clone();
    let mut entries = EntryTap::new(acp::message::KIND_DELIVERED, &[acp::RECORD_BYTES]);
    p.b.dma_tap = Some(Box::new(move |cycle, addr, data, strb| {
        for frame in entries.write(addr, data, strb) {
            if let Some(id) = payload_id(&frame) {
                tt.lock().unwrap().delivered.entry(id).or_insert(cycle);
            }
        }
    }));
    drop(p);
    (t, times)
}

/// Issue #25's channel counts, those this build has (`make bench` runs the
/// bench built with K = 256: `channels_built` in the JSON).
fn issue_ks() -> impl Iterator<Item = u32> {
    [16u32, 64, 256]
        .into_iter()
        .filter(|&k| k as usize <= pendulum_layout::params::ACP_CHANNELS)
}

/// Cycles from the fault to the first ENTANGLE record A sends.
fn detect(latency: u32, garble: bool) -> u64 {
    let (mut t, _) = setup(
        16,
        LinkFaults {
            latency,
            seed: SEED,
            ..Default::default()
        },
    );
    t.a.queue(1_000);
    for _ in 0..200 {
        t.poll().unwrap();
    }
    let first: Rc<RefCell<Option<u64>>> = Rc::new(RefCell::new(None));
    let f = first.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        if side == Side::A && rec[acp::BYTE_OPCODE] == acp::OP_ENTANGLE && f.borrow().is_none() {
            *f.borrow_mut() = Some(cycle);
        }
    }));
    let at = t.cycle();
    if garble {
        t.pair.borrow_mut().link.set_faults(LinkFaults {
            latency,
            corrupt_rate: 1.0,
            seed: SEED,
            ..Default::default()
        });
    } else {
        t.pair.borrow_mut().link.cut_now(10_000);
    }
    while first.borrow().is_none() && t.cycle() < at + 100_000 {
        t.pair.borrow_mut().step();
    }
    let d = first.borrow().map_or(u64::MAX, |c| c - at);
    d
}

struct FaultRun {
    name: &'static str,
    faults: LinkFaults,
}

fn stats(lat: &mut [u64]) -> Value {
    lat.sort_unstable();
    json!({
        "p50": percentile(lat, 0.50),
        "p99": percentile(lat, 0.99),
        "p99_9": percentile(lat, 0.999),
    })
}

/// ACP under faults: A sends `n` messages to B.
fn acp_under(f: &FaultRun, n: u64) -> Value {
    let (mut t, times) = setup(
        pendulum_layout::params::ACP_CHANNELS as u32,
        f.faults.clone(),
    );
    t.a.queue(n);
    let settled = t.run_until_settled(40_000_000).unwrap();
    let ok = t.check();
    let mut seen = HashMap::new();
    let dups =
        t.b.received
            .iter()
            .filter(|(id, _)| seen.insert(*id, ()).is_some())
            .count();
    let returned = t.a.returned.len();
    let lost = t.a.sent.len() - seen.len() - returned;
    let times = times.lock().unwrap();
    let mut lat: Vec<u64> = times
        .delivered
        .iter()
        .filter_map(|(id, d)| times.offered.get(id).map(|o| d.saturating_sub(*o)))
        .collect();
    let (ca, _) = t.counters().unwrap();
    json!({
        "sent": t.a.sent.len(),
        "delivered": seen.len(),
        "duplicates_delivered": dups,
        "lost": lost,
        "handed_back": returned,
        "settled": settled,
        "exactly_once_check": ok.err().unwrap_or_else(|| "passed".into()),
        "reversals": ca.reversals,
        "failures_detected": ca.failures,
        "latency_cycles": stats(&mut lat),
        "cycles": t.cycle(),
    })
}

fn gbn_under(f: &FaultRun, n: u64, on_failure: OnFailure) -> Value {
    let cfg = GbnConfig::for_latency(f.faults.latency, on_failure);
    let mut g = GoBackN::new(cfg, f.faults.clone());
    let mut next = 0u64;
    let mut cycles = 0u64;
    while cycles < 40_000_000 {
        while next < n && g.offer(pendulum_testbench::acp_traffic::payload(next)) {
            next += 1;
        }
        g.step();
        cycles += 1;
        if next == n && g.idle() {
            break;
        }
    }
    let r = g.report();
    let mut lat = r.latencies.clone();
    json!({
        "sent": n,
        "delivered": r.delivered,
        "duplicates_delivered": r.duplicates_delivered,
        "lost": r.lost,
        "retransmissions": r.retransmissions,
        "reconnects": r.reconnects,
        "latency_cycles": stats(&mut lat),
        "cycles": cycles,
    })
}

/// The ACP link measured on two Verilated NICs, beside a go-back-N
/// timeout-and-retry link modelled in the same testbench, under the same
/// seeded faults.
///
/// Goodput against channels in use and link latency, one direction or
/// both, unpaced or paced at 100 GbE (bytes per cycle, against min(record
/// rate x 56 B, K x 56 B / RTT)); remote verbs per cycle; the time from an
/// offer to its decision; time to detect a cut and a garbled link; and
/// exactly-once under faults (duplicates, losses, delivery latency
/// percentiles). Prints the tables and writes build/bench/acp.json. Built
/// with K = 256 (`make bench`) the goodput, verb and latency rows cover
/// K = 16, 64 and 256 in use and take about an hour; `--latency` measures
/// fewer round trips (the JSON says which were run).
#[derive(Parser)]
#[command(
    name = "pendulum-acp-bench",
    version,
    after_help = "\
Examples:
  cargo run --release -p pendulum-testbench --bin pendulum-acp-bench
  PENDULUM_ACP_CHANNEL_BITS=8 CARGO_TARGET_DIR=target/k256 \\
    cargo run --release -p pendulum-testbench --bin pendulum-acp-bench -- --latency 25"
)]
struct Cli {
    /// One-way link latencies to measure goodput, verbs and decisions at,
    /// in cycles (round trip 2 x latency + 14).
    #[arg(long, value_delimiter = ',', default_values_t = [25u32, 100, 250])]
    latency: Vec<u32>,
}

fn main() {
    let cli = Cli::parse();
    let wall = Instant::now();
    let rev = pendulum_testbench::git_rev();

    // ---- Goodput: K and latency, one direction and both, unpaced and paced at 100 GbE ----
    outln!("ACP goodput: payload bytes per cycle, port unpaced (one record per cycle each way, 56 B/cycle = {:.0} Gb/s of payload at {CLOCK_MHZ} MHz) or paced at 100 GbE ({:.3} records per cycle: one per 64-byte frame)", 56.0 * 8.0 * CLOCK_MHZ / 1e3, RECORDS_PER_CYCLE_100GBE);
    // A message costs the hosts what a remote verb does: an 80-byte ring
    // entry read from A's TX ring and one written into B's RX ring.
    let host = host_entries_per_cycle(&PcieConfig::gen3_x16()) * acp::PAYLOAD_BYTES as f64;
    outln!("bound = min(record rate x 56 B, K x 56 B / RTT): one payload per channel per round trip (issue #25); host = min(bound, {host:.1} B/cycle): the most the hosts carry, one {HOST_ENTRY_BYTES}-byte ring entry (16-byte header, 64-byte slot) per message each way, in 256-byte TLPs over PCIe Gen3 x16 ({:.1} B/cycle of ring data) and at most one 64-byte beat a cycle through the DMA datapath", PcieConfig::gen3_x16().streaming_bytes_per_cycle());
    outln!(
        "{:>4} {:>5} {:>8} {:>9} {:>6} {:>5} {:>11} {:>9} {:>6} {:>9} {:>6}",
        "K",
        "paced",
        "latency",
        "RTT(cyc)",
        "dirs",
        "from",
        "goodput B/c",
        "bound",
        "share",
        "host",
        "share"
    );
    let mut rows = Vec::new();
    let mut measured_rtt = Vec::new();
    for &latency in &cli.latency {
        let rtt = rtt_cycles(latency);
        measured_rtt.push(json!({"latency_cycles": latency, "rtt_cycles": rtt, "measured_cycles": decision_cycles(latency, 1, Kind::Message).0}));
        for k in [1u32, 4].into_iter().chain(issue_ks()) {
            // Both directions and pacing at issue #25's K (those built);
            // one direction unpaced at the few-channel points below them.
            let runs: &[(bool, u32)] = if issue_ks().any(|i| i == k) {
                &[(false, 1), (false, 2), (true, 1), (true, 2)]
            } else {
                &[(false, 1)]
            };
            for &(paced, directions) in runs {
                let rate = record_rate(paced);
                // At least 200 of a channel's transfer periods (2 RTT, and
                // the slots its K records take), so that the waves in which
                // channels move add up to a figure to better than 1 %.
                let period = 2.0 * rtt as f64 + 2.0 * k as f64 / rate;
                let window = 40_000.max((200.0 * period) as u64);
                let g = goodput(k, latency, window, paced, directions);
                let bound = (rate * 56.0).min(k as f64 * 56.0 / rtt as f64);
                let host_bound = bound.min(host);
                for (from, g) in ["A", "B"].iter().zip(g).take(directions as usize) {
                    outln!(
                        "{k:>4} {paced:>5} {latency:>8} {rtt:>9} {directions:>6} {from:>5} {g:>11.3} {bound:>9.3} {:>5.0}% {host_bound:>9.3} {:>5.0}%",
                        100.0 * g / bound,
                        100.0 * g / host_bound
                    );
                    rows.push(json!({
                        "paced": paced, "k": k, "rtt_cycles": rtt, "directions": directions, "from": from,
                        "latency_cycles": latency, "records_per_cycle": rate,
                        "goodput_bytes_per_cycle": g, "goodput_gbps": g * 8.0 * CLOCK_MHZ / 1e3,
                        "bound_bytes_per_cycle": bound, "share_of_bound": g / bound,
                        "host_bound_bytes_per_cycle": host_bound, "share_of_host_bound": g / host_bound,
                    }));
                }
            }
        }
    }

    // ---- Remote verbs: fetch-and-adds and COMMIT_WORDS on distinct lines, A's host to B's unit ----
    let pcie = host_entries_per_cycle(&PcieConfig::gen3_x16());
    outln!("\nremote verbs A->B per cycle, each on a line of its own (fetch-and-adds; one-slot commits writing four words); bound = min(record rate, K / RTT, the host: {pcie:.3}, one {HOST_ENTRY_BYTES}-byte ring entry each way per verb over PCIe Gen3 x16)");
    outln!(
        "{:>12} {:>4} {:>5} {:>9} {:>10} {:>9} {:>6}",
        "op",
        "K",
        "paced",
        "RTT(cyc)",
        "verbs/cyc",
        "bound",
        "share"
    );
    let mut verb_rows = Vec::new();
    for &latency in &cli.latency {
        let rtt = rtt_cycles(latency);
        for op in [RemoteOp::FetchAdd, RemoteOp::CommitWords] {
            for (k, paced) in issue_ks().flat_map(|k| [(k, false), (k, true)]) {
                let v = remote_rate(op, k, latency, 40_000.max(100 * rtt), paced);
                let bound = record_rate(paced).min(k as f64 / rtt as f64).min(pcie);
                outln!(
                    "{:>12} {k:>4} {paced:>5} {rtt:>9} {v:>10.4} {bound:>9.4} {:>5.0}%",
                    op.name(),
                    100.0 * v / bound
                );
                verb_rows.push(json!({
                    "op": op.name(), "paced": paced, "k": k, "rtt_cycles": rtt, "latency_cycles": latency,
                    "verbs_per_cycle": v, "bound_verbs_per_cycle": bound, "share_of_bound": v / bound,
                    "verbs_per_second_millions": v * CLOCK_MHZ,
                }));
            }
        }
    }

    // ---- Offer on the wire to the decision ----
    outln!("\noffer on A's wire -> first record of A's stating COMMIT, one transfer on an idle link (target: RTT + 16 for a message, RTT + 20 for a verb)");
    outln!(
        "{:>4} {:>9} {:>8} {:>9} {:>7}",
        "K",
        "RTT(cyc)",
        "kind",
        "decision",
        "target"
    );
    let mut latency_rows = Vec::new();
    for &latency in &cli.latency {
        let rtt = rtt_cycles(latency);
        for k in std::iter::once(1u32).chain(issue_ks()) {
            for (kind, slack) in [(Kind::Message, 16), (Kind::Verb, 20)] {
                let d = decision_cycles(latency, k, kind).0;
                outln!(
                    "{k:>4} {rtt:>9} {:>8} {d:>9} {:>7}",
                    kind.name(),
                    rtt + slack
                );
                latency_rows.push(json!({
                    "k": k, "rtt_cycles": rtt, "kind": kind.name(), "decision_cycles": d,
                    "target_cycles": rtt + slack,
                }));
            }
        }
    }
    let line_gbps = 100.0 * 56.0 / (64.0 + 20.0 + 4.0);

    // ---- Detection ----
    let cut = detect(100, false);
    let garbled = detect(100, true);
    outln!("\ncut detected (loss of signal) after {cut} cycles; garbled link after {garbled} cycles (threshold {} undecodable records, latency 100)", pendulum_layout::params::ACP_FAIL_AFTER);

    // ---- Under faults, beside go-back-N ----
    let runs = [
        FaultRun {
            name: "none",
            faults: LinkFaults {
                latency: 100,
                seed: SEED,
                ..Default::default()
            },
        },
        FaultRun {
            name: "loss 1e-3, corruption 1e-3",
            faults: LinkFaults {
                latency: 100,
                loss_rate: 1e-3,
                corrupt_rate: 1e-3,
                seed: SEED,
                ..Default::default()
            },
        },
        FaultRun {
            name: "loss and corruption 1e-3, cut every 50k cycles for 5k",
            faults: LinkFaults {
                latency: 100,
                loss_rate: 1e-3,
                corrupt_rate: 1e-3,
                cut_every: Some(50_000),
                cut_cycles: 5_000,
                seed: SEED,
                ..Default::default()
            },
        },
    ];
    let n = 20_000;
    outln!("\nexactly-once under faults, {n} messages A→B, latency 100 cycles");
    outln!("latency: first transmission on the wire to the message in the receiver's memory (ACP) or at the receiver (go-back-N), cycles");
    outln!(
        "{:<52} {:<20} {:>9} {:>6} {:>6} {:>7} {:>7} {:>7}",
        "faults",
        "link",
        "delivered",
        "dups",
        "lost",
        "p50",
        "p99",
        "p99.9"
    );
    let mut fault_rows = Vec::new();
    for f in &runs {
        let a = acp_under(f, n);
        let g1 = gbn_under(f, n, OnFailure::Retransmit);
        let g2 = gbn_under(f, n, OnFailure::Drop);
        for (name, v) in [
            ("ACP", &a),
            ("go-back-N, resend", &g1),
            ("go-back-N, give up", &g2),
        ] {
            outln!(
                "{:<52} {:<20} {:>9} {:>6} {:>6} {:>7} {:>7} {:>7}",
                f.name,
                name,
                v["delivered"],
                v["duplicates_delivered"],
                v["lost"],
                v["latency_cycles"]["p50"],
                v["latency_cycles"]["p99"],
                v["latency_cycles"]["p99_9"]
            );
        }
        fault_rows.push(json!({ "faults": f.name, "params": format!("{:?}", f.faults), "acp": a, "gobackn_retransmit": g1, "gobackn_drop": g2 }));
    }

    let out = json!({
        "bench": "acp",
        // `git_rev` is every bench file's key; `git_revision` is kept for
        // readers of earlier acp.json files.
        "git_rev": rev,
        "git_revision": rev,
        "verilator_version": VERILATOR_VERSION,
        "clock_mhz": CLOCK_MHZ,
        "channels_built": pendulum_layout::params::ACP_CHANNELS,
        "latencies_cycles": cli.latency,
        "fail_after_undecodable": pendulum_layout::params::ACP_FAIL_AFTER,
        "port_limit_bytes_per_cycle": 56.0,
        "host_pcie": "Gen3 x16",
        "host_entry_bytes": HOST_ENTRY_BYTES,
        "host_entries_per_cycle": pcie,
        "line_100gbe_goodput_gbps_64b_records": line_gbps,
        "goodput": rows,
        "measured_rtt": measured_rtt,
        "remote_verbs": verb_rows,
        "decision_latency": latency_rows,
        "detect_cut_cycles": cut,
        "detect_garbled_cycles": garbled,
        "under_faults": fault_rows,
        "wall_seconds": wall.elapsed().as_secs_f64(),
        "seed": SEED,
    });
    std::fs::create_dir_all("build/bench").unwrap();
    std::fs::write(
        "build/bench/acp.json",
        serde_json::to_string_pretty(&out).unwrap() + "\n",
    )
    .unwrap();
    outln!(
        "\nwrote build/bench/acp.json ({:.0} s)",
        wall.elapsed().as_secs_f64()
    );
}
