//! Where a loaded channel's round trip goes (#25's RTT 64 rows): A sends
//! messages one way over K channels, and the wire tap times, per channel,
//! each offer A puts on the wire, the first echo B states for it, and A's
//! next offer on that channel. A round beyond the wire's two latencies is
//! B's turnaround (offer in → echo out) plus A's (echo in → next offer
//! out), printed as their means and 90th percentiles, unpaced and paced at
//! 100 GbE.
//!
//! With `verb` as a fourth argument A sends remote verbs (fetch-and-adds
//! on distinct lines, as `pendulum-acp-bench` does) instead of messages,
//! and the echo is the one that carries the verb's result.
//!
//! It also counts where A's records go: new payloads, payloads offered
//! again, and records that offer nothing.
//!
//! `cargo run --release -p pendulum-testbench --example acp_rounds -- [K] [LATENCY] [CYCLES] [verb]`
//! (defaults 16, 25, 200000, messages).

use pendulum_layout::acp::{self, rx_state, OP_ECHO, OP_OFFER, OP_OFFER_VERB};
use pendulum_testbench::acp_measure::{
    clean, feed_verbs, pace, pair_with_channels, RECORDS_PER_CYCLE_100GBE,
};
use pendulum_testbench::acp_traffic::id_of;
use pendulum_testbench::models::percentile;
use pendulum_testbench::pair::Side;
use std::cell::RefCell;
use std::rc::Rc;

/// Per channel: A's offer on the wire waiting for B's echo, and the echo
/// waiting for A's next offer.
#[derive(Clone, Copy, Default)]
struct Open {
    offer: Option<u64>,
    id: u64,
    echo: Option<u64>,
    /// A's records of the channel since the echo reached A.
    between: u64,
    /// The first of them.
    first: Option<u64>,
}

#[derive(Default)]
struct Rounds {
    open: Vec<Open>,
    b_turn: Vec<u64>,
    a_turn: Vec<u64>,
    round: Vec<u64>,
    /// A's records of the channel after the echo reached A, before the next offer.
    a_between: Vec<u64>,
    /// Echo in at A -> A's first record of the channel out.
    a_first: Vec<u64>,
    /// Per channel, the receiver bit of B's last echo counted: a restated
    /// echo of the payload before is not the new payload's.
    echo_bit: Vec<Option<u8>>,
    /// A's records: a new payload offered, a payload offered again (a
    /// restate), and records that offer nothing.
    new_offers: u64,
    restated_offers: u64,
    no_offer: u64,
}

fn run(k: u32, latency: u32, cycles: u64, paced: bool, verbs: bool) -> Rounds {
    let mut t = pair_with_channels(k, clean(latency));
    if paced {
        pace(&mut t, RECORDS_PER_CYCLE_100GBE);
    }
    let rounds = Rc::new(RefCell::new(Rounds {
        open: vec![Open::default(); k as usize],
        echo_bit: vec![None; k as usize],
        ..Default::default()
    }));
    let r = rounds.clone();
    let lat = latency as u64;
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |cycle, side, rec| {
        let op = rec[acp::BYTE_OPCODE];
        if op == acp::OP_ENTANGLE {
            return;
        }
        let ch = rec[acp::BYTE_CHANNEL] as usize;
        let mut r = r.borrow_mut();
        let Some(o) = r.open.get(ch).copied() else {
            return;
        };
        if side == Side::A {
            if let Some(echo) = o.echo {
                if cycle >= echo + lat {
                    r.open[ch].between += 1;
                    if o.first.is_none() {
                        r.open[ch].first = Some(cycle);
                    }
                }
            }
        }
        if side == Side::A && op != OP_OFFER && op != OP_OFFER_VERB {
            r.no_offer += 1;
        }
        if op != OP_OFFER && op != OP_OFFER_VERB && op != OP_ECHO {
            return;
        }
        match (side, op) {
            (Side::A, OP_OFFER | OP_OFFER_VERB) => {
                let payload: &[u8; acp::PAYLOAD_BYTES] =
                    rec[acp::PAYLOAD_OFFSET..].try_into().unwrap();
                // A verb is named by its descriptor's first 8 bytes (its
                // tag and line differ from the last verb's on the channel).
                let id = if op == OP_OFFER_VERB {
                    u64::from_le_bytes(payload[..8].try_into().unwrap())
                } else {
                    match id_of(payload) {
                        Some(id) => id,
                        None => return,
                    }
                };
                // A restated offer is the same payload; a new one ends the
                // last one's round once its echo has reached A.
                if o.offer.is_some() && o.id == id {
                    r.restated_offers += 1;
                    return;
                }
                r.new_offers += 1;
                if let (Some(off), Some(echo)) = (o.offer, o.echo) {
                    r.round.push(cycle - off);
                    r.a_turn.push(cycle.saturating_sub(echo + lat));
                    // (`o` was read before this offer counted itself.)
                    r.a_between.push(o.between);
                    if let Some(first) = r.open[ch].first {
                        r.a_first.push(first - (echo + lat));
                    }
                }
                r.open[ch] = Open {
                    offer: Some(cycle),
                    id,
                    ..Default::default()
                };
            }
            (Side::B, OP_ECHO) if (rec[acp::BYTE_STATE] >> 4) & 3 == rx_state::TENTATIVE => {
                let bit = rec[acp::BYTE_STATE] & 0x40;
                if let (Some(off), None) = (o.offer, o.echo) {
                    if cycle >= off + lat && r.echo_bit[ch] != Some(bit) {
                        r.echo_bit[ch] = Some(bit);
                        r.b_turn.push(cycle - (off + lat));
                        r.open[ch].echo = Some(cycle);
                    }
                }
            }
            _ => {}
        }
    }));
    let end = t.cycle() + cycles;
    let mut next = 0u32;
    while t.cycle() < end {
        if verbs {
            feed_verbs(&mut t, &mut next);
        } else {
            if t.a.backlog() < 256 {
                t.a.queue(256);
            }
            t.poll().unwrap();
        }
    }
    drop(t);
    Rc::try_unwrap(rounds).ok().unwrap().into_inner()
}

fn summary(name: &str, v: &mut [u64]) -> String {
    if v.is_empty() {
        return format!("{name}: none");
    }
    let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
    v.sort_unstable();
    format!(
        "{name} mean {mean:5.1} p90 {:3} p99 {:3}",
        percentile(v, 0.9),
        percentile(v, 0.99)
    )
}

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .map_or(d, |s| s.parse().expect("a number"))
    };
    let (k, latency, cycles) = (arg(1, 16) as u32, arg(2, 25) as u32, arg(3, 200_000));
    let verbs = std::env::args().nth(4).is_some_and(|s| s == "verb");
    let what = if verbs { "remote verbs" } else { "messages" };
    println!("K = {k}, one-way latency {latency} cycles, {cycles} cycles, A sends {what} to B");
    for paced in [false, true] {
        let mut r = run(k, latency, cycles, paced, verbs);
        println!(
            "{:<8} rounds {:6}  {}  |  {}  |  {}",
            if paced { "paced" } else { "unpaced" },
            r.round.len(),
            summary("round", &mut r.round),
            summary("B offer in -> echo out", &mut r.b_turn),
            summary("A echo in -> next offer out", &mut r.a_turn),
        );
        println!(
            "{:<8} A: {}  |  {}",
            "",
            summary("echo in -> first record of the channel out", &mut r.a_first),
            summary("records of the channel before the offer", &mut r.a_between),
        );
        let all = (r.new_offers + r.restated_offers + r.no_offer).max(1) as f64;
        println!(
            "{:<8} A's records: {:.1} % offer a new payload, {:.1} % offer one again, {:.1} % offer nothing",
            "",
            100.0 * r.new_offers as f64 / all,
            100.0 * r.restated_offers as f64 / all,
            100.0 * r.no_offer as f64 / all,
        );
    }
}
