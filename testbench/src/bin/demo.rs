//! `make demo`: simulate the generated NIC cycle-accurately, receive through
//! the driver, echo, run the ACP link between two NICs, and print what happened.

use clap::Parser;
use pendulum_driver::{Card, Device, EthernetPort};
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::{FrameGen, LinkFaults};
use pendulum_testbench::outln;
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig, CLOCK_MHZ, RTL_DIR, VERILATOR_VERSION};
use std::time::Instant;

const FRAMES: usize = 20_000;
const PIPES: usize = 4;
const RING_BYTES: u32 = 256 * 1024;

/// The Pendulum demo: simulates the generated NIC cycle-accurately
/// (Verilator), receives 20,000 frames on four pipes through the driver,
/// echoes, runs the ACP link between two NICs, and prints what happened.
///
/// Takes a few minutes; everything is seeded, so runs repeat. No options.
#[derive(Parser)]
#[command(
    name = "pendulum-demo",
    version,
    after_help = "\
Environment:
  PENDULUM_WAVE=PATH   write an FST waveform of each simulated NIC there
                       (slows the run down a lot; `make wave` sets it)

Example:
  cargo run --release -p pendulum-testbench --bin pendulum-demo"
)]
struct Cli {}

fn main() {
    Cli::parse();
    if let Err(e) = run() {
        eprintln!("demo failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    outln!("Pendulum demo: Verilog from {RTL_DIR}/pendulum_nic.v, simulated with Verilator {VERILATOR_VERSION}");
    let card = SimCard::new(SimConfig::default());
    let mut dev = Device::open(card).map_err(|e| e.to_string())?;
    outln!(
        "card: identity PNDL, {} pipes, frames up to {} bytes",
        dev.pipes(),
        dev.max_frame_bytes()
    );
    let mut pipes = (0..PIPES)
        .map(|p| dev.open_rx_pipe(p, RING_BYTES))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;

    let mut gen = FrameGen::new(2026);
    let mut expected: Expected = vec![Default::default(); PIPES];
    let mut sent_bytes = 0u64;
    for i in 0..FRAMES {
        let len = if i % 4 == 3 {
            gen.random_len(60, 1518)
        } else {
            64 + 64 * (i % 3)
        };
        let pipe = i % PIPES;
        let f = gen.frame(len, pipe);
        sent_bytes += f.len() as u64;
        expected[pipe].push_back(f.clone());
        dev.card_mut().sim.eth.push(f);
    }
    let pcie_before = dev.card().sim.pcie.counters().clone();
    let wall = Instant::now();
    let rep = receive_and_check(&mut dev, &mut pipes, &mut expected, 50_000_000)?;
    let secs = wall.elapsed().as_secs_f64();
    let pcie = dev.card().sim.pcie.counters().clone();
    let c = dev.counters().map_err(|e| e.to_string())?;
    let cycles = rep.cycles;
    let data = pcie.data_bytes - pcie_before.data_bytes;
    let meta = pcie.metadata_bytes - pcie_before.metadata_bytes;

    outln!();
    outln!("frames sent        {FRAMES:>12}   ({sent_bytes} bytes, mixed 64-1518 B over {PIPES} pipes)");
    outln!(
        "frames received    {:>12}   ({} bytes, every one checked byte for byte, in order)",
        rep.frames,
        rep.bytes
    );
    outln!(
        "batches            {:>12}   ({:.1} frames per notification batch)",
        rep.batches,
        rep.frames as f64 / rep.batches.max(1) as f64
    );
    outln!("card counters      {:>12} frames, {} bytes, {} drops, {} notifications, {} refused register writes", c.rx_frames, c.rx_bytes, c.drops(), c.notifications, c.reg_errors);
    outln!(
        "simulated cycles   {cycles:>12}   ({:.1} us at {CLOCK_MHZ} MHz)",
        cycles as f64 / CLOCK_MHZ
    );
    outln!(
        "throughput         {:>12.2} Mpps, {:.1} Gb/s at {CLOCK_MHZ} MHz (MAC side unpaced)",
        rep.frames as f64 / cycles as f64 * CLOCK_MHZ,
        rep.bytes as f64 * 8.0 / cycles as f64 * CLOCK_MHZ / 1e3
    );
    outln!("PCIe NIC->host     {:>12} data bytes, {} metadata bytes ({:.2}% of data: TLP headers and notifications)", data, meta, 100.0 * meta as f64 / data.max(1) as f64);
    outln!("PCIe host->NIC     {:>12} register bytes", pcie.mmio_bytes);
    outln!("simulator speed    {:>12.0} cycles/s ({secs:.2} s wall, Verilator, one thread, checking included)", cycles as f64 / secs);
    if rep.frames != FRAMES as u64 || c.drops() != 0 || c.reg_errors != 0 {
        return Err("frames were lost, dropped or a register write was refused".into());
    }
    outln!("\nOK: every frame arrived intact and in order.");
    echo(&mut dev, &mut pipes[0])?;
    atomics()?;
    link()?;
    remote_atomics()
}

/// Host A bumps a counter in B's atomic memory over the ACP link (remote
/// fetch-and-adds, run tentatively at B and made permanent on commit) while
/// B's own host bumps the same counter locally, with loss, corruption and
/// damage past the check on the link: every verb counted once.
fn remote_atomics() -> Result<(), String> {
    use pendulum_layout::atomic::{op, Verb};
    const REMOTE: u16 = 2_000;
    const LOCAL: u16 = 2_000;
    let faults = LinkFaults {
        latency: 50,
        loss_rate: 1e-3,
        corrupt_rate: 1e-3,
        undetected_rate: 2e-3,
        ..Default::default()
    };
    let e = |e: pendulum_driver::Error| e.to_string();
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING_BYTES).map_err(e)?;
    if !t.wait_up(100_000).map_err(e)? {
        return Err("the ACP link did not come up".into());
    }
    let mut at = t.b.dev.open_atomics(2, 3, RING_BYTES).map_err(e)?;
    let fadd = |tag| Verb {
        op: op::FETCH_ADD,
        tag,
        addr: 0x40,
        operands: [1, 0, 0, 0],
        reserved_set: false,
    };
    let remote: Vec<Verb> = (0..REMOTE).map(fadd).collect();
    let local: Vec<Verb> = (0..LOCAL).map(fadd).collect();
    let start = t.cycle();
    let (mut r_next, mut l_next, mut r_olds, mut l_olds) = (0, 0, Vec::new(), Vec::new());
    while r_olds.len() < remote.len() || l_olds.len() < local.len() {
        if t.cycle() - start > 20_000_000 {
            return Err(format!(
                "remote verbs stalled: {} remote and {} local results",
                r_olds.len(),
                l_olds.len()
            ));
        }
        r_next +=
            t.a.link
                .send_verbs(&mut t.a.dev, &remote[r_next..])
                .map_err(e)?;
        l_next += at.submit(&mut t.b.dev, &local[l_next..]).map_err(e)?;
        for m in t.a.link.recv(&mut t.a.dev).map_err(e)? {
            match m.verb_result() {
                Some(r) => r_olds.push(r.old),
                None => return Err(format!("A got {:?} instead of a verb result", m.kind)),
            }
        }
        l_olds.extend(at.results(&mut t.b.dev).map_err(e)?.iter().map(|r| r.old));
        t.pair.borrow_mut().run(8);
    }
    let cycles = t.cycle() - start;
    let total = at.fetch_add(&mut t.b.dev, 0x40, 0).map_err(e)?;
    let mut olds: Vec<u64> = r_olds.iter().chain(&l_olds).copied().collect();
    olds.sort_unstable();
    let exact = olds == (0..(REMOTE + LOCAL) as u64).collect::<Vec<_>>();
    let (ca, _) = t.counters().map_err(e)?;
    let stats = t.pair.borrow().link.stats().clone();
    outln!();
    outln!("remote atomics     host A: {REMOTE} fetch-and-adds over the ACP link into B's atomic memory; host B: {LOCAL} on the same word, locally");
    outln!(
        "link model         {:>12} records, {} corrupted, {} damaged past the check, {} lost",
        stats.records,
        stats.corrupted,
        stats.undetected,
        stats.lost
    );
    outln!(
        "results            {:>12} remote + {} local, old values {}; B's word holds {total}",
        r_olds.len(),
        l_olds.len(),
        if exact {
            "exactly 0..3999, each once"
        } else {
            "NOT a permutation of 0..3999"
        }
    );
    outln!("link counters A    {:>12} commits, {} rejects (the word held by another channel's verb: offered again), {} reversals (run at B, then undone)", ca.commits, ca.rejects, ca.reversals);
    outln!("simulated cycles   {cycles:>12}");
    if !exact || total != (REMOTE + LOCAL) as u64 {
        return Err("a verb was applied twice or lost".into());
    }
    outln!("\nOK: every verb, local or remote, was applied exactly once.");
    Ok(())
}

/// Local atomic verbs: a shared counter bumped 2,000 times back to back, and
/// a compare-and-swap that must fail.
fn atomics() -> Result<(), String> {
    use pendulum_layout::atomic::{op, status, Verb};
    let e = |e: pendulum_driver::Error| e.to_string();
    let mut dev = Device::open(SimCard::new(SimConfig::default())).map_err(e)?;
    // Results on RX pipe 1: pipe 0 receives non-IP frames.
    let mut at = dev.open_atomics(1, 1, 256 * 1024).map_err(e)?;
    let verbs: Vec<Verb> = (0..2_000u16)
        .map(|tag| Verb {
            op: op::FETCH_ADD,
            tag,
            addr: 0x100,
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    let start = dev.card().sim.cycle();
    let (mut next, mut results) = (0, Vec::new());
    while results.len() < verbs.len() {
        next += at.submit(&mut dev, &verbs[next..]).map_err(e)?;
        let r = at.results(&mut dev).map_err(e)?;
        if r.is_empty() {
            dev.card_mut().relax();
        }
        results.extend(r);
    }
    let cycles = dev.card().sim.cycle() - start;
    let in_order = results
        .iter()
        .enumerate()
        .all(|(i, r)| r.old == i as u64 && r.status == status::OK);
    let total = at.fetch_add(&mut dev, 0x100, 0).map_err(e)?;
    let cas_old = at.cas(&mut dev, 0x100, 7, 99).map_err(e)?;
    outln!();
    outln!("atomic unit        2000 fetch-and-adds on one word, posted back to back through the driver");
    outln!(
        "results            {:>12} ({}), the word now holds {total}",
        results.len(),
        if in_order {
            "old values 0..1999 in order"
        } else {
            "NOT in order"
        }
    );
    outln!("rate               {:>12.2} verbs/cycle end to end over {cycles} cycles (the PCIe path sets it; the unit takes one a cycle)", results.len() as f64 / cycles as f64);
    outln!(
        "compare-and-swap   {:>12} expected 7, found {cas_old}: not swapped",
        ""
    );
    if !in_order
        || total != 2_000
        || cas_old != 2_000
        || at.fetch_add(&mut dev, 0x100, 0).map_err(e)? != 2_000
    {
        return Err("atomic results differ from sequential execution".into());
    }
    outln!("\nOK: every verb saw the one before it.");
    Ok(())
}

/// Echo: frames in on Ethernet RX, through the driver, back out on Ethernet TX.
fn echo(dev: &mut Device<SimCard>, rx: &mut pendulum_driver::RxPipe) -> Result<(), String> {
    const ECHO_FRAMES: usize = 5_000;
    let mut tx = dev.open_tx_pipe(0, RING_BYTES).map_err(|e| e.to_string())?;
    let mut gen = FrameGen::new(7);
    let frames: Vec<Vec<u8>> = (0..ECHO_FRAMES)
        .map(|i| gen.frame(64 + 64 * (i % 4), 0))
        .collect();
    let card = dev.card_mut();
    card.inject(&frames).map_err(|e| e.to_string())?;
    let start = card.cycles().map_err(|e| e.to_string())?;
    let mut echoed = 0;
    while echoed < ECHO_FRAMES {
        if dev.card().sim.cycle() - start > 50_000_000 {
            return Err(format!("echo stalled after {echoed} frames"));
        }
        let (copies, end) = {
            let batch = rx.recv(dev);
            let copies: Vec<Vec<u8>> = batch
                .iter()
                .map(|f| f.map(|f| f.bytes.to_vec()))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            (copies, batch.end_unit())
        };
        if copies.is_empty() {
            dev.card_mut().relax();
            continue;
        }
        let refs: Vec<&[u8]> = copies.iter().map(|f| f.as_slice()).collect();
        let mut sent = 0;
        while sent < refs.len() {
            let n = tx.send(dev, &refs[sent..]).map_err(|e| e.to_string())?;
            sent += n;
            if n == 0 {
                dev.card_mut().relax();
            }
        }
        rx.free(dev, end).map_err(|e| e.to_string())?;
        echoed += copies.len();
    }
    if !tx.wait_idle(dev, 10_000_000) || !dev.card_mut().drain(1_000_000).unwrap_or(false) {
        return Err("TX did not finish".into());
    }
    let card = dev.card_mut();
    let cycles = card.cycles().map_err(|e| e.to_string())? - start;
    let out = card.collect().map_err(|e| e.to_string())?;
    let same = out == frames;
    outln!();
    outln!("echo               {:>12} frames of 64-256 B in on RX, through the driver (one copy), out on TX", ECHO_FRAMES);
    outln!(
        "echoed             {:>12} frames on the Ethernet TX port, {}",
        out.len(),
        if same {
            "identical to what came in, in order"
        } else {
            "NOT identical"
        }
    );
    outln!(
        "echo throughput    {:>12.2} Mpps at {CLOCK_MHZ} MHz over {cycles} cycles",
        ECHO_FRAMES as f64 / cycles as f64 * CLOCK_MHZ
    );
    if !same {
        return Err("echoed frames differ from what came in".into());
    }
    outln!("\nOK: every echoed frame went back out unchanged.");
    Ok(())
}

/// Two NICs, ACP port to ACP port over a lossy, corrupting link with a cut:
/// messages both ways, each delivered exactly once.
fn link() -> Result<(), String> {
    const MESSAGES: u64 = 5_000;
    let faults = LinkFaults {
        latency: 100,
        loss_rate: 1e-3,
        corrupt_rate: 1e-3,
        undetected_rate: 1e-4,
        ..Default::default()
    };
    let e = |e: pendulum_driver::Error| e.to_string();
    let mut t = AcpTraffic::new(SimConfig::default(), faults, RING_BYTES).map_err(e)?;
    if !t.wait_up(100_000).map_err(e)? {
        return Err("the ACP link did not come up".into());
    }
    let start = t.cycle();
    t.a.queue(MESSAGES);
    t.b.queue(MESSAGES);
    for _ in 0..2_000 {
        t.poll().map_err(e)?;
    }
    t.pair.borrow_mut().link.cut_now(3_000);
    if !t.run_until_settled(20_000_000).map_err(e)? {
        return Err("ACP messages did not settle".into());
    }
    let cycles = t.cycle() - start;
    let check = t.check();
    let (ca, cb) = t.counters().map_err(e)?;
    let stats = t.pair.borrow().link.stats().clone();
    outln!();
    outln!("ACP link           two NICs, {} token channels, latency 100 cycles, loss and corruption 1e-3, one cut", pendulum_layout::params::ACP_CHANNELS);
    outln!("link model         {:>12} records, {} corrupted, {} damaged past the check, {} lost, {} cut", stats.records, stats.corrupted, stats.undetected, stats.lost, stats.cuts);
    outln!(
        "A -> B             {:>12} sent, {} delivered, {} handed back",
        t.a.sent.len(),
        t.b.received.len(),
        t.a.returned.len()
    );
    outln!(
        "B -> A             {:>12} sent, {} delivered, {} handed back",
        t.b.sent.len(),
        t.a.received.len(),
        t.b.returned.len()
    );
    outln!("link counters A    {:>12} commits, {} rejects, {} reversals, {} failures, {} entanglements", ca.commits, ca.rejects, ca.reversals, ca.failures, ca.entangles);
    outln!("link counters B    {:>12} commits, {} rejects, {} reversals, {} failures, {} entanglements", cb.commits, cb.rejects, cb.reversals, cb.failures, cb.entangles);
    outln!("simulated cycles   {cycles:>12}");
    check?;
    outln!("\nOK: every message was delivered exactly once or handed back; none changed, none out of order within its channel.");
    Ok(())
}
