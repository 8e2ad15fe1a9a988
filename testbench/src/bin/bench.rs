//! `make bench`: RX throughput of the simulated NIC for 64, 128, 512 and 1518-byte
//! frames beside the 100 GbE line rate, and the simulator's speed, side by side
//! in one run. Writes `build/bench/rx.json`.
//!
//! Each size: 20,000 frames offered back to back (MAC side unpaced, so the NIC
//! and the PCIe model set the pace), one pipe, a host that frees every batch.
//! Throughput = frames / simulated cycles from the first frame to the last
//! frame seen by the host, at 250 MHz.

use pendulum_driver::Device;
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig, CLOCK_MHZ};
use std::time::Instant;

const FRAMES: usize = 20_000;
const SIZES: [usize; 4] = [64, 128, 512, 1518];

fn line_rate_mpps(size: usize) -> f64 {
    100e9 / ((size as f64 + 20.0) * 8.0) / 1e6
}

fn main() {
    let mut rows = Vec::new();
    println!("RX throughput, {FRAMES} frames per size, PCIe Gen3 x16 model (24 B per TLP, 100-cycle latency), 250 MHz");
    println!("MAC side unpaced (no 20 B preamble/gap), so the NIC and the PCIe model set the rate: one 64 B write per beat");
    println!("costs 64 + 24 B of the model's 63 B/cycle, which caps 64 B frames near 179 Mpps, above the 148.8 Mpps line rate.");
    println!("{:>6} {:>10} {:>12} {:>8} {:>12} {:>10} {:>14}", "bytes", "Mpps", "line Mpps", "% line", "PCIe meta %", "cycles", "sim cycles/s");
    for size in SIZES {
        let card = SimCard::new(SimConfig::default());
        let mut dev = Device::open(card).expect("open");
        let mut pipes = vec![dev.open_rx_pipe(0, 2 << 20).expect("pipe")];
        let mut gen = FrameGen::new(size as u64);
        let mut exp: Expected = vec![Default::default()];
        for _ in 0..FRAMES {
            let f = gen.frame(size, 0);
            exp[0].push_back(f.clone());
            dev.card_mut().sim.eth.push(f);
        }
        let wall = Instant::now();
        let rep = receive_and_check(&mut dev, &mut pipes, &mut exp, 100_000_000).expect("receive");
        let secs = wall.elapsed().as_secs_f64();
        assert!(dev.card_mut().sim.drain(100_000));
        let pcie = dev.card().sim.pcie.counters().clone();
        let mpps = rep.frames as f64 / rep.cycles as f64 * CLOCK_MHZ;
        let line = line_rate_mpps(size);
        let meta = 100.0 * pcie.metadata_share();
        let speed = rep.cycles as f64 / secs;
        println!("{size:>6} {mpps:>10.2} {line:>12.2} {:>7.1}% {meta:>11.1}% {:>10} {speed:>14.0}", 100.0 * mpps / line, rep.cycles);
        rows.push(format!(
            "    {{\"frame_bytes\": {size}, \"frames\": {}, \"cycles\": {}, \"mpps\": {mpps:.3}, \"line_rate_mpps\": {line:.3}, \"share_of_line_rate\": {:.4}, \"pcie_data_bytes\": {}, \"pcie_metadata_bytes\": {}, \"metadata_share\": {:.4}, \"sim_cycles_per_second\": {speed:.0}}}",
            rep.frames, rep.cycles, mpps / line, pcie.data_bytes, pcie.metadata_bytes, meta / 100.0
        ));
    }
    let rev = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()).unwrap_or_default();
    let json = format!(
        "{{\n  \"bench\": \"rx\",\n  \"git_rev\": \"{}\",\n  \"clock_mhz\": {CLOCK_MHZ},\n  \"pcie\": {{\"link_gbps\": 126.03, \"tlp_overhead_bytes\": 24, \"one_way_latency_cycles\": 100}},\n  \"mac_pacing\": \"unpaced\",\n  \"results\": [\n{}\n  ]\n}}\n",
        rev.trim(), rows.join(",\n")
    );
    std::fs::create_dir_all("build/bench").expect("mkdir build/bench");
    std::fs::write("build/bench/rx.json", json).expect("write build/bench/rx.json");
    println!("wrote build/bench/rx.json");
}
