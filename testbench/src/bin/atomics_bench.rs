//! Local atomic verbs and multi-word commits: requests per cycle through the
//! whole local path (requests fetched from a TX ring by DMA, results written
//! into an RX ring), for streams on distinct words and on one word, with the
//! PCIe model at Gen3 x16 and at Gen4 x16 side by side, beside the unit's
//! own limit and the OAE target for commits. Writes `build/bench/atomics.json`.
//!
//! Remote verbs over the ACP link (Verilated pair): the round trip of one
//! verb (OFFER_VERB out → COMMIT decided, when the result is handed up) beside
//! that of a plain message and the link's RTT, and verbs per cycle as the
//! channel count K varies.

use clap::Parser;
use pendulum_driver::{Card, Device};
use pendulum_layout::atomic::{
    op, Commit, Request, Verb, COMMIT_RESULT_SLOTS, COMMIT_SLOTS, KIND_RESULT, SLOT_BYTES,
};
use pendulum_testbench::acp_measure::{
    decision_cycles, four_word_write, remote_rate, Kind, RemoteOp,
};
use pendulum_testbench::entry_tap::EntryTap;
use pendulum_testbench::models::pcie::PcieConfig;
use pendulum_testbench::outln;
use pendulum_testbench::{SimCard, SimConfig, CLOCK_MHZ, VERILATOR_VERSION};
use serde_json::json;
use std::sync::{Arc, Mutex};

const REQUESTS: usize = 20_000;

/// 100 GbE line rate for 64-byte frames, in frames per second: the OAE
/// target for 64 B atomic commits.
const OAE_COMMITS_PER_SECOND: f64 = 100e9 / ((64.0 + 20.0) * 8.0);

#[derive(Clone, Copy)]
enum Stream {
    DistinctWords,
    OneWord,
    DistinctLines,
    OneLine,
    WordsDistinctLines,
    WordsOneLine,
}

impl Stream {
    fn name(self) -> &'static str {
        match self {
            Stream::DistinctWords => "fetch-add, distinct words",
            Stream::OneWord => "fetch-add, one word",
            Stream::DistinctLines => "commit, distinct lines",
            Stream::OneLine => "commit, one line",
            Stream::WordsDistinctLines => "one-slot commit, distinct",
            Stream::WordsOneLine => "one-slot commit, one line",
        }
    }

    fn request(self, i: usize) -> Request {
        let tag = i as u16;
        match self {
            Stream::DistinctWords | Stream::OneWord => {
                let addr = if let Stream::OneWord = self {
                    0
                } else {
                    (i as u32 % 8192) * 8
                };
                Request::Verb(Verb {
                    op: op::FETCH_ADD,
                    tag,
                    addr,
                    operands: [1, 0, 0, 0],
                    reserved_set: false,
                })
            }
            Stream::WordsDistinctLines | Stream::WordsOneLine => {
                let addr = if let Stream::WordsOneLine = self {
                    0
                } else {
                    (i as u32 % 1024) * 64
                };
                // Write four words and compare nothing: always succeeds.
                four_word_write(tag, addr, i as u64)
            }
            Stream::DistinctLines | Stream::OneLine => {
                let addr = if let Stream::OneLine = self {
                    0
                } else {
                    (i as u32 % 1024) * 64
                };
                // Compare nothing, write every word: always succeeds, full work.
                Request::Commit(Commit {
                    tag,
                    addr,
                    compare_mask: 0,
                    write_mask: 0xFF,
                    compare: [0; 8],
                    write: [i as u64; 8],
                    reserved_set: false,
                })
            }
        }
    }
}

/// Requests per cycle from the first result written to the last.
fn rate(stream: Stream, pcie: PcieConfig) -> (f64, u64) {
    let mut dev = Device::open(SimCard::new(SimConfig {
        pcie,
        ..SimConfig::default()
    }))
    .unwrap();
    // Results on RX pipe 1: pipe 0 receives non-IP frames.
    let mut at = dev.open_atomics(1, 1, 2 << 20).unwrap();
    // (first cycle, last cycle, results found) of results landing whole
    // in host memory (found in the DMA writes by their entry headers).
    let seen: Arc<Mutex<(Option<u64>, u64, u64)>> = Arc::new(Mutex::new((None, 0, 0)));
    let s = seen.clone();
    let mut entries = EntryTap::new(KIND_RESULT, &[SLOT_BYTES, COMMIT_RESULT_SLOTS * SLOT_BYTES]);
    dev.card_mut().sim.dma_tap = Some(Box::new(move |cycle, addr, data, strb| {
        let landed = entries.write(addr, data, strb).len() as u64;
        if landed > 0 {
            let mut s = s.lock().unwrap();
            s.0.get_or_insert(cycle);
            s.1 = cycle;
            s.2 += landed;
        }
    }));
    let requests: Vec<Request> = (0..REQUESTS).map(|i| stream.request(i)).collect();
    let mut next = 0;
    let mut got = 0;
    while got < REQUESTS {
        if next < REQUESTS {
            next += at.submit_requests(&mut dev, &requests[next..]).unwrap();
        }
        let r = at.results(&mut dev).unwrap();
        got += r.len();
        if r.is_empty() {
            dev.card_mut().relax();
        }
    }
    // The count is the driver's (every result taken); the tap gives the
    // cycles the first and the last landed. (The tap finds every result
    // but one on the commit streams, whose 2 MiB ring wraps once: it does
    // not follow an entry across the ring's end.)
    let s = seen.lock().unwrap();
    assert!(s.2 > 0, "no result found in the DMA writes");
    let cycles = s.1 - s.0.unwrap();
    ((got - 1) as f64 / cycles as f64, cycles)
}

/// Atomic verbs and multi-word commits on the simulated NIC: requests per
/// cycle through the whole local path (requests fetched from a TX ring by
/// DMA, results written into an RX ring), and remote verbs over the ACP link.
///
/// Local: streams on distinct words and on one word, PCIe model Gen3 x16
/// and Gen4 x16 side by side, beside the unit's own limit and the OAE target
/// for commits. Remote: one verb's round trip beside a plain message's, and
/// verbs per cycle as the channel count K varies. Minutes. Prints the tables
/// and writes build/bench/atomics.json. No options.
#[derive(Parser)]
#[command(
    name = "pendulum-atomics-bench",
    version,
    after_help = "\
Example:
  cargo run --release -p pendulum-testbench --bin pendulum-atomics-bench"
)]
struct Cli {}

fn main() {
    Cli::parse();
    let streams = [
        Stream::DistinctWords,
        Stream::OneWord,
        Stream::DistinctLines,
        Stream::OneLine,
        Stream::WordsDistinctLines,
        Stream::WordsOneLine,
    ];
    outln!("local atomic requests, {REQUESTS} posted back to back, results per cycle end to end");
    outln!(
        "{:<28} {:>14} {:>14} {:>12} {:>14} {:>14}",
        "stream",
        "Gen3 x16 /cyc",
        "Gen4 x16 /cyc",
        "Gen4 M/s",
        "ideal host /cyc",
        "unit limit /cyc"
    );
    // An ideal host link: no bandwidth limit, no TLP overhead, same latency.
    // What is left is the NIC: its DMA ports (one 64 B beat a cycle each
    // way, shared with notifications) and the unit.
    let ideal = PcieConfig {
        link_gbps: 1e6,
        tlp_overhead_bytes: 0,
        ..PcieConfig::gen3_x16()
    };
    let mut rows = Vec::new();
    for stream in streams {
        let (g3, c3) = rate(stream, PcieConfig::gen3_x16());
        let (g4, c4) = rate(stream, PcieConfig::gen4_x16());
        let (gi, _) = rate(stream, ideal.clone());
        // The unit takes one slot a cycle: one verb, or a commit's three
        // (its second result slot is queued while the next commit's first
        // two slots come in).
        let limit = match stream {
            Stream::DistinctWords
            | Stream::OneWord
            | Stream::WordsDistinctLines
            | Stream::WordsOneLine => 1.0,
            Stream::DistinctLines | Stream::OneLine => 1.0 / COMMIT_SLOTS as f64,
        };
        outln!(
            "{:<28} {:>14.3} {:>14.3} {:>12.1} {:>14.3} {:>14.3}",
            stream.name(),
            g3,
            g4,
            g4 * CLOCK_MHZ,
            gi,
            limit
        );
        rows.push(json!({
            "stream": stream.name(),
            "gen3_x16_per_cycle": g3,
            "gen3_x16_cycles": c3,
            "gen4_x16_per_cycle": g4,
            "gen4_x16_cycles": c4,
            "ideal_host_per_cycle": gi,
            "unit_limit_per_cycle": limit,
        }));
    }
    let oae_per_cycle = OAE_COMMITS_PER_SECOND / (CLOCK_MHZ * 1e6);
    outln!(
        "OAE target: a 64 B commit at 100 GbE line rate = {:.1} M/s = {:.3} per cycle at {CLOCK_MHZ} MHz",
        OAE_COMMITS_PER_SECOND / 1e6,
        oae_per_cycle
    );
    outln!("results are ring entries (a 16-byte header, then the 64 B result, 128 B for a commit) that the");
    outln!("RX engine writes like received frames; with an ideal host link the RX path sets the rate, not the unit;");
    outln!(
        "a verb moves 64 B over PCIe each way, a commit 192 B in and 128 B out, plus TLP headers;"
    );
    outln!("the NIC's DMA read port takes one 64 B beat a cycle, so a commit costs three cycles there;");
    outln!("a one-slot commit (up to five word operations) costs one, like a verb");

    outln!();
    outln!("remote verbs over ACP (two Verilated NICs), one channel, idle link: offer out -> COMMIT decided on A's wire, and -> the verb's final result in A's host memory");
    outln!(
        "{:<10} {:>10} {:>16} {:>18} {:>12} {:>14}",
        "latency",
        "link RTT",
        "message (cyc)",
        "remote verb (cyc)",
        "verb - RTT",
        "result final"
    );
    let mut rtt_rows = Vec::new();
    for latency in [25u32, 100, 250] {
        // A round trip of the wire plus each side's register stages (the
        // ACP port is registered both ways at the NIC boundary).
        let rtt = 2 * latency as u64;
        let (msg, _) = decision_cycles(latency, 1, Kind::Message);
        let (verb, verb_final) = decision_cycles(latency, 1, Kind::Verb);
        let verb_final = verb_final.expect("no result reached A's host");
        outln!(
            "{:<10} {:>10} {:>16} {:>18} {:>12} {:>14}",
            latency,
            rtt,
            msg,
            verb,
            verb as i64 - rtt as i64,
            verb_final
        );
        rtt_rows.push(json!({"latency": latency, "wire_rtt_cycles": rtt, "message_cycles": msg, "remote_verb_cycles": verb, "remote_verb_final_cycles": verb_final}));
    }
    outln!();
    outln!("remote verb throughput A->B (fetch-and-adds on distinct lines), verbs per cycle");
    outln!(
        "{:<10} {:>8} {:>8} {:>8} {:>8}",
        "latency",
        "K=1",
        "K=4",
        "K=8",
        "K=16"
    );
    let mut k_rows = Vec::new();
    for latency in [25u32, 100] {
        let rates: Vec<f64> = [1u32, 4, 8, 16]
            .iter()
            .map(|&k| remote_rate(RemoteOp::FetchAdd, k, latency, 60_000, false))
            .collect();
        outln!(
            "{:<10} {:>8.4} {:>8.4} {:>8.4} {:>8.4}",
            latency,
            rates[0],
            rates[1],
            rates[2],
            rates[3]
        );
        k_rows.push(json!({"latency": latency, "k": [1, 4, 8, 16], "verbs_per_cycle": rates}));
    }
    let rev = pendulum_testbench::git_rev();
    let out = json!({
        "bench": "atomics",
        "git_rev": rev,
        "verilator_version": VERILATOR_VERSION,
        "requests": REQUESTS,
        "clock_mhz": CLOCK_MHZ,
        "pcie_one_way_latency_cycles": PcieConfig::gen3_x16().one_way_latency_cycles,
        "pcie_tlp_overhead_bytes": PcieConfig::gen3_x16().tlp_overhead_bytes,
        "local": rows,
        "goal_verbs_per_second": 250e6,
        "oae_commit_target_per_second": OAE_COMMITS_PER_SECOND,
        "oae_commit_target_per_cycle": oae_per_cycle,
        "remote_round_trip": rtt_rows,
        "remote_throughput": k_rows,
        "not_built": ["remote three-slot commit (one-slot commits run remotely)"],
    });
    std::fs::create_dir_all("build/bench").unwrap();
    std::fs::write(
        "build/bench/atomics.json",
        serde_json::to_string_pretty(&out).unwrap() + "\n",
    )
    .unwrap();
    outln!("wrote build/bench/atomics.json");
}
