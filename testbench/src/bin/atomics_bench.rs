//! Local atomic verbs: verbs per cycle for streams on distinct words and on
//! one word, through the whole local path (verbs fetched from a TX ring by
//! DMA, results written into an RX ring), beside the unit's own limit of one
//! verb per cycle. Writes `build/bench/atomics.json`.
//!
//! The remote path over ACP and the multi-word commit are not built yet
//! (issue 5), so their rows are absent, not zero.

use pendulum_driver::{Card, Device};
use pendulum_layout::atomic::{op, Verb, KIND_RESULT};
use pendulum_testbench::{SimCard, SimConfig, CLOCK_MHZ};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;

const VERBS: usize = 20_000;

/// Verbs per cycle from the first result written to the last.
fn rate(same_word: bool) -> (f64, u64) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    let mut at = dev.open_atomics(0, 1, 2 << 20).unwrap();
    let seen: Rc<RefCell<(Option<u64>, u64, usize)>> = Rc::new(RefCell::new((None, 0, 0)));
    let s = seen.clone();
    dev.card_mut().sim.dma_tap = Some(Box::new(move |cycle, _, data, strb| {
        if strb == u64::MAX && data[0] == KIND_RESULT {
            let mut s = s.borrow_mut();
            s.0.get_or_insert(cycle);
            s.1 = cycle;
            s.2 += 1;
        }
    }));
    let verbs: Vec<Verb> = (0..VERBS)
        .map(|i| Verb {
            op: op::FETCH_ADD,
            tag: i as u16,
            addr: if same_word { 0 } else { (i as u32 % 8192) * 8 },
            operands: [1, 0, 0, 0],
            reserved_set: false,
        })
        .collect();
    let mut next = 0;
    let mut got = 0;
    while got < VERBS {
        if next < VERBS {
            next += at.submit(&mut dev, &verbs[next..]).unwrap();
        }
        let r = at.results(&mut dev).unwrap();
        got += r.len();
        if r.is_empty() {
            dev.card_mut().relax();
        }
    }
    let s = seen.borrow();
    let cycles = s.1 - s.0.unwrap();
    ((s.2 - 1) as f64 / cycles as f64, cycles)
}

fn main() {
    let (distinct, cd) = rate(false);
    let (same, cs) = rate(true);
    println!("local atomic verbs, {VERBS} fetch-and-adds posted back to back, PCIe Gen3 x16 model");
    println!("{:<28} {:>12} {:>12} {:>10}", "stream", "verbs/cycle", "M verbs/s", "cycles");
    println!("{:<28} {:>12.3} {:>12.1} {:>10}", "distinct words", distinct, distinct * CLOCK_MHZ, cd);
    println!("{:<28} {:>12.3} {:>12.1} {:>10}", "one word (forwarding)", same, same * CLOCK_MHZ, cs);
    println!("{:<28} {:>12.3} {:>12.1}", "unit limit (by construction)", 1.0, CLOCK_MHZ);
    println!("each verb moves 64 B over PCIe each way plus TLP headers: the host path, not the unit, sets the rate");
    let out = json!({
        "bench": "atomics",
        "verbs": VERBS,
        "clock_mhz": CLOCK_MHZ,
        "local_distinct_verbs_per_cycle": distinct,
        "local_same_word_verbs_per_cycle": same,
        "unit_limit_verbs_per_cycle": 1.0,
        "goal_verbs_per_second": 250e6,
        "not_built": ["remote verbs over ACP", "multi-word commit"],
    });
    std::fs::create_dir_all("build/bench").unwrap();
    std::fs::write("build/bench/atomics.json", serde_json::to_string_pretty(&out).unwrap() + "\n").unwrap();
    println!("wrote build/bench/atomics.json");
}
