//! The ACP link, measured on the Verilated pair and beside a go-back-N
//! timeout-and-retry link modelled in the same testbench, under the same
//! seeded faults. Writes `build/bench/acp.json` and prints the tables.
//!
//! - goodput as the channel count K and the link latency vary, against the
//!   bound K x 56 B / (2 RTT) of a link that moves one payload per channel
//!   every two round trips, and against the port and 100 GbE limits;
//! - the round trip of one transfer (offer out → commit decided), in cycles;
//! - time to detect a cut (loss of signal) and a garbled link;
//! - exactly-once under faults: duplicates, losses, and delivery latency
//!   percentiles, ACP beside go-back-N.

use clap::Parser;
use pendulum_layout::acp::{self, tx_state};
use pendulum_testbench::acp_traffic::{id_of, AcpTraffic};
use pendulum_testbench::models::{percentile, GbnConfig, GoBackN, LinkFaults, OnFailure};
use pendulum_testbench::outln;
use pendulum_testbench::pair::Side;
use pendulum_testbench::{SimConfig, CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

const RING: u32 = 256 * 1024;
const SEED: u64 = 2026;

/// First cycle each message id was offered on the wire by A, and the cycle B's
/// NIC wrote it into B's ring.
#[derive(Default)]
struct Times {
    offered: HashMap<u64, u64>,
    delivered: HashMap<u64, u64>,
}

fn payload_id(rec: &[u8]) -> Option<u64> {
    let p: &[u8; acp::PAYLOAD_BYTES] = rec[acp::PAYLOAD_OFFSET..].try_into().ok()?;
    id_of(p)
}

/// A pair with the link up, K channels in use, and taps recording times.
fn setup(k: u32, faults: LinkFaults) -> (AcpTraffic, Arc<Mutex<Times>>) {
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING).expect("open pair");
    t.a.dev
        .write(pendulum_layout::global::LINK_CHANNELS.offset, k)
        .unwrap();
    t.b.dev
        .write(pendulum_layout::global::LINK_CHANNELS.offset, k)
        .unwrap();
    // The channel count is agreed when entangling: reset both ends' links.
    t.a.dev.reset_link().unwrap();
    t.b.dev.reset_link().unwrap();
    assert!(t.wait_up(100_000).unwrap(), "link did not come up");
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
    p.b.dma_tap = Some(Box::new(move |cycle, _addr, data, strb| {
        if strb == u64::MAX && data[0] == acp::message::KIND_DELIVERED {
            if let Some(id) = payload_id(data) {
                tt.lock().unwrap().delivered.entry(id).or_insert(cycle);
            }
        }
    }));
    drop(p);
    (t, times)
}

/// Goodput A→B in payload bytes per cycle over `cycles` of steady sending.
fn goodput(k: u32, latency: u32, cycles: u64) -> f64 {
    let (mut t, _) = setup(
        k,
        LinkFaults {
            latency,
            seed: SEED,
            ..Default::default()
        },
    );
    // The host keeps a backlog of a few hundred messages: the link, not the
    // host, sets the rate.
    let top_up = |t: &mut AcpTraffic| {
        if t.a.backlog() < 256 {
            t.a.queue(256);
        }
    };
    let warm = t.cycle() + 4 * latency as u64 + 2_000;
    while t.cycle() < warm {
        top_up(&mut t);
        t.poll().unwrap();
    }
    let (start, n0) = (t.cycle(), t.b.received.len());
    while t.cycle() - start < cycles {
        top_up(&mut t);
        t.poll().unwrap();
    }
    let g =
        (t.b.received.len() - n0) as f64 * acp::PAYLOAD_BYTES as f64 / (t.cycle() - start) as f64;
    assert!(
        t.run_until_settled(50_000_000).unwrap(),
        "K={k} latency={latency}: did not settle"
    );
    t.check().expect("exactly once");
    g
}

/// Offer out → commit decided for one transfer on an idle link, in cycles.
fn round_trip(latency: u32) -> u64 {
    // One channel: no wait for the channel's turn in the rotation.
    let (mut t, _) = setup(
        1,
        LinkFaults {
            latency,
            seed: SEED,
            ..Default::default()
        },
    );
    let seen: Rc<RefCell<(Option<u64>, Option<u64>)>> = Rc::new(RefCell::new((None, None)));
    let s = seen.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        if side != Side::A {
            return;
        }
        let tx = rec[acp::BYTE_STATE] & 7;
        let mut s = s.borrow_mut();
        if rec[acp::BYTE_OPCODE] == acp::OP_OFFER && s.0.is_none() {
            s.0 = Some(cycle);
        }
        if tx == tx_state::COMMIT && s.0.is_some() && s.1.is_none() {
            s.1 = Some(cycle);
        }
    }));
    t.a.queue(1);
    let end = t.cycle() + 200_000;
    while t.cycle() < end && seen.borrow().1.is_none() {
        t.poll().unwrap();
    }
    t.pair.borrow_mut().wire_tap = None;
    let s = seen.borrow();
    s.1.unwrap_or(0).saturating_sub(s.0.unwrap_or(0))
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
/// Goodput against channels in use and link latency (bytes per cycle,
/// against K x 56 B / 2 RTT), the round trip of one transfer (cycles), time
/// to detect a cut and a garbled link, and exactly-once under faults
/// (duplicates, losses, delivery latency percentiles). Minutes. Prints the
/// tables and writes build/bench/acp.json. No options.
#[derive(Parser)]
#[command(
    name = "pendulum-acp-bench",
    version,
    after_help = "\
Example:
  cargo run --release -p pendulum-testbench --bin pendulum-acp-bench"
)]
struct Cli {}

fn main() {
    Cli::parse();
    let wall = Instant::now();
    let rev = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();

    // ---- Goodput vs K and latency ----
    outln!("ACP goodput, A→B, one record per cycle each way (port: 56 B/cycle = {:.0} Gb/s payload at {CLOCK_MHZ} MHz)", 56.0 * 8.0 * CLOCK_MHZ / 1e3);
    outln!("bounds: spec = K x 56 B / (2 RTT); with rotation = K x 56 B / (2 RTT + 2K), at most 28 B/cycle (two of a channel's slots per payload)");
    outln!(
        "{:>4} {:>8} {:>9} {:>12} {:>12} {:>7} {:>14} {:>7}",
        "K",
        "latency",
        "RTT(cyc)",
        "goodput B/c",
        "spec bound",
        "share",
        "rotation bound",
        "share"
    );
    let mut rows = Vec::new();
    for &latency in &[25u32, 100, 250] {
        let rtt = round_trip(latency);
        for &k in &[1u32, 4, 8, 16] {
            // At least 200 of a channel's transfer periods (2 RTT + 2K),
            // so that the waves in which channels move add up to a figure
            // to better than 1 %.
            let window = 40_000.max(200 * (2 * rtt + 2 * k as u64));
            let g = goodput(k, latency, window);
            let bound = (k as f64 * 56.0 / (2.0 * rtt.max(1) as f64)).min(56.0);
            let rot = (k as f64 * 56.0 / (2.0 * rtt as f64 + 2.0 * k as f64)).min(28.0);
            outln!(
                "{k:>4} {latency:>8} {rtt:>9} {g:>12.3} {bound:>12.3} {:>6.0}% {rot:>14.3} {:>6.0}%",
                100.0 * g / bound,
                100.0 * g / rot
            );
            rows.push(json!({
                "k": k, "latency_cycles": latency, "round_trip_cycles": rtt,
                "goodput_bytes_per_cycle": g, "goodput_gbps": g * 8.0 * CLOCK_MHZ / 1e3,
                "spec_bound_bytes_per_cycle": bound, "share_of_spec_bound": g / bound,
                "rotation_bound_bytes_per_cycle": rot, "share_of_rotation_bound": g / rot,
            }));
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
        "git_revision": rev,
        "verilator_version": VERILATOR_VERSION,
        "clock_mhz": CLOCK_MHZ,
        "channels_built": pendulum_layout::params::ACP_CHANNELS,
        "fail_after_undecodable": pendulum_layout::params::ACP_FAIL_AFTER,
        "port_limit_bytes_per_cycle": 56.0,
        "line_100gbe_goodput_gbps_64b_records": line_gbps,
        "goodput": rows,
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
