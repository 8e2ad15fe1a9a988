//! `pendulum-acp-soak`: the ACP link soak (`make soak`).

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use pendulum_testbench::acp_soak::{soak_faults, Soak, SoakConfig};
use pendulum_testbench::VERILATOR_VERSION;
use std::time::Instant;

/// Runs two Verilated NICs joined by the ACP link for millions of records,
/// messages both ways and remote verbs from A, under every fault the link
/// model has at once (corruption, damage behind the check word, loss,
/// duplicates, cuts with replay of old records) and resets of each side's
/// link state, then lets everything settle and checks exactly-once: no
/// duplicate, no loss, no reorder, every in-doubt item accounted for, every
/// verb result agreeing with the responder's memory. Prints records per
/// wall second and writes build/bench/acp_soak.json. Exits 1 if a check
/// failed.
#[derive(Parser)]
#[command(
    name = "pendulum-acp-soak",
    version,
    after_help = "\
Examples:
  cargo run --release -p pendulum-testbench --bin pendulum-acp-soak
  cargo run --release -p pendulum-testbench --bin pendulum-acp-soak -- --records 1000000 --seed 7"
)]
struct Cli {
    /// Records on the wire (both directions together) to run for.
    #[arg(long, default_value_t = 10_000_000)]
    records: u64,
    /// One-way link latency, cycles.
    #[arg(long, default_value_t = 100)]
    latency: u32,
    /// Seed of the link model's faults.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cycles between resets of a side's link state (A and B in turn); 0: none.
    #[arg(long, default_value_t = 400_000)]
    reset_every: u64,
}

fn main() {
    let cli = Cli::parse();
    let cfg = SoakConfig {
        records: cli.records,
        latency: cli.latency,
        seed: cli.seed,
        reset_every: cli.reset_every,
        ..SoakConfig::default()
    };
    println!(
        "ACP soak: {} records, latency {} cycles, seed {}, faults {:?}, a reset every {} cycles",
        cfg.records,
        cfg.latency,
        cfg.seed,
        soak_faults(cfg.latency, cfg.seed),
        cfg.reset_every
    );
    let bar = ProgressBar::new(cfg.records);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} records, {per_sec}, eta {eta}").unwrap(),
    );
    let wall = Instant::now();
    let report = Soak::new(cfg.clone()).run(|r| bar.set_position(r));
    bar.finish_and_clear();
    let secs = wall.elapsed().as_secs_f64();
    let r = &report;
    println!(
        "{} records in {:.0} s: {:.0} records per wall second ({} cycles)",
        r.records,
        secs,
        r.records as f64 / secs,
        r.cycles
    );
    println!(
        "faults: {} corrupted, {} damaged behind the check, {} records lost, {} cuts, {} resets",
        r.corrupted, r.undetected, r.lost_records, r.cuts, r.resets
    );
    println!(
        "messages: {} sent, {} delivered, {} handed back not delivered, {} in doubt; lost {}",
        r.messages_sent,
        r.messages_delivered,
        r.messages_not_delivered,
        r.messages_in_doubt,
        r.lost
    );
    println!(
        "verbs: {} posted, {} results, {} not delivered, {} in doubt ({} of them applied); {} disagree with B's memory",
        r.verbs,
        r.verb_results,
        r.verbs_not_delivered,
        r.verbs_in_doubt,
        r.verbs_in_doubt_applied,
        r.verb_mismatches
    );
    match (&r.message_check, &r.first_verb_mismatch) {
        (None, None) if r.lost == 0 => println!(
            "exactly-once: 0 duplicates, 0 losses, 0 reorders, every in-doubt item accounted for"
        ),
        _ => println!(
            "EXACTLY-ONCE BROKEN: messages: {}; verbs: {}",
            r.message_check.as_deref().unwrap_or("ok"),
            r.first_verb_mismatch.as_deref().unwrap_or("ok")
        ),
    }
    let rev = pendulum_testbench::git_rev();
    let out = serde_json::json!({
        "bench": "acp_soak",
        // `git_rev` is every bench file's key; `git_revision` is kept for
        // earlier readers.
        "git_rev": rev,
        "git_revision": rev,
        "verilator_version": VERILATOR_VERSION,
        "params": {"records": cfg.records, "latency_cycles": cfg.latency, "seed": cfg.seed,
                   "reset_every_cycles": cfg.reset_every, "verb_lines": cfg.lines,
                   "faults": format!("{:?}", soak_faults(cfg.latency, cfg.seed))},
        "report": r,
        "wall_seconds": secs,
        "records_per_wall_second": r.records as f64 / secs,
        "clean": r.clean(),
    });
    std::fs::create_dir_all("build/bench").unwrap();
    std::fs::write(
        "build/bench/acp_soak.json",
        serde_json::to_string_pretty(&out).unwrap() + "\n",
    )
    .unwrap();
    println!("wrote build/bench/acp_soak.json");
    if !r.clean() {
        std::process::exit(1);
    }
}
