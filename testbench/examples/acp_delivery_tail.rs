//! Where a loaded link's slow deliveries come from. A queues `N` messages
//! for B at once (latency 100, as `pendulum-acp-bench`'s "under faults"
//! rows with no faults); the wire tap times each message's first offer on
//! A's wire and the entry tap its arrival in B's host memory. Prints the
//! percentiles, the five slowest with their channel, and the mean latency
//! by tenth of the run. With a channel and a cycle window as arguments it
//! also prints every record of that channel both sides put on the wire in
//! the window (opcode, state byte, transition byte, message id).
//!
//! `cargo run --release -p pendulum-testbench --example acp_delivery_tail -- [K] [N] [CHANNEL FROM TO]`
//! (defaults 16 channels, 20,000 messages; K above 16 needs the K = 256
//! build: `PENDULUM_ACP_CHANNEL_BITS=8 CARGO_TARGET_DIR=target/k256`).

use pendulum_layout::acp;
use pendulum_testbench::acp_measure::{clean, pair_with_channels};
use pendulum_testbench::acp_traffic::id_of;
use pendulum_testbench::entry_tap::EntryTap;
use pendulum_testbench::pair::Side;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Times {
    offered: HashMap<u64, (u64, u8)>,
    delivered: HashMap<u64, u64>,
    log: Vec<String>,
}

fn payload_id(rec: &[u8]) -> Option<u64> {
    id_of(rec[acp::PAYLOAD_OFFSET..].try_into().ok()?)
}

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .map_or(d, |s| s.parse().expect("a number"))
    };
    let (k, n) = (arg(1, 16) as u32, arg(2, 20_000));
    let (watch, from, to) = (arg(3, u64::MAX), arg(4, 0), arg(5, 0));
    let mut t = pair_with_channels(k, clean(100));
    let times = Arc::new(Mutex::new(Times::default()));
    let tt = times.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        let op = rec[acp::BYTE_OPCODE];
        if op == acp::OP_ENTANGLE {
            return;
        }
        let ch = rec[acp::BYTE_CHANNEL];
        let mut x = tt.lock().unwrap();
        if ch as u64 == watch && (from..=to).contains(&cycle) {
            x.log.push(format!(
                "{cycle} {side:?} op {op} state {:02x} transition {:02x} id {:?}",
                rec[acp::BYTE_STATE],
                rec[acp::BYTE_TRANSITION],
                payload_id(rec).filter(|_| op == acp::OP_OFFER)
            ));
        }
        if side == Side::A && op == acp::OP_OFFER {
            if let Some(id) = payload_id(rec) {
                x.offered.entry(id).or_insert((cycle, ch));
            }
        }
    }));
    let tt = times.clone();
    let mut entries = EntryTap::new(acp::message::KIND_DELIVERED, &[acp::RECORD_BYTES]);
    t.pair.borrow_mut().b.dma_tap = Some(Box::new(move |cycle, addr, data, strb| {
        for f in entries.write(addr, data, strb) {
            if let Some(id) = payload_id(&f) {
                tt.lock().unwrap().delivered.entry(id).or_insert(cycle);
            }
        }
    }));
    let start = t.cycle();
    t.a.queue(n);
    assert!(t.run_until_settled(40_000_000).unwrap(), "did not settle");
    t.check().expect("exactly once");
    let x = times.lock().unwrap();
    let mut lat: Vec<(u64, u64)> = x
        .delivered
        .iter()
        .filter_map(|(id, d)| x.offered.get(id).map(|(o, _)| (d - o, *id)))
        .collect();
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)].0;
    println!(
        "K = {k}, {n} messages in {} cycles; offer on A's wire -> in B's memory: p10 {} p50 {} p90 {} p99 {} max {}",
        t.cycle() - start,
        p(0.1),
        p(0.5),
        p(0.9),
        p(0.99),
        p(1.0)
    );
    for &(l, id) in lat.iter().rev().take(5) {
        let (o, ch) = x.offered[&id];
        println!("  message {id}: {l} cycles, channel {ch}, offered at cycle {o}");
    }
    let mut by_time: Vec<(u64, u64)> = lat.iter().map(|&(l, id)| (x.offered[&id].0, l)).collect();
    by_time.sort_unstable();
    let tenth = by_time.len().div_ceil(10);
    let means: Vec<String> = by_time
        .chunks(tenth)
        .map(|c| (c.iter().map(|v| v.1).sum::<u64>() / c.len() as u64).to_string())
        .collect();
    println!("mean by tenth of the run: {}", means.join(" "));
    for l in &x.log {
        println!("{l}");
    }
}
