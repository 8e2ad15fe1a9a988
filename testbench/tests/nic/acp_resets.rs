//! The ACP link after resets and losses of signal at every offset, on the
//! Verilated pair: once the faults stop, the link comes Up, stays Up, and
//! every message ends delivered exactly once, handed back as not delivered,
//! or handed back in doubt (`AcpTraffic::check` on what each driver returned).
//!
//! The resets are register writes that land at exact cycles
//! (`NicPair::schedule_write`), so an offset means the same thing in every run.

use pendulum_driver::LinkState;
use pendulum_layout::acp::OP_ENTANGLE;
use pendulum_layout::global::{LINK_CTRL, LINK_CTRL_RESET};
use pendulum_testbench::acp_traffic::AcpTraffic;
use pendulum_testbench::models::LinkFaults;
use pendulum_testbench::pair::Side;
use pendulum_testbench::SimConfig;
use std::cell::Cell;
use std::rc::Rc;

const RING: u32 = 64 * 1024;
/// Messages each host posts per offset: enough that transfers are in flight
/// on many channels when the resets land.
const MSGS: u64 = 24;
/// Cycles from posting the messages to the first reset.
const LEAD_CYCLES: u64 = 160;
/// Cycles a settled pair must then run with no side re-entangling.
const STAY_UP_CYCLES: u64 = 3_000;
/// The most a pair may take to settle after its faults.
const SETTLE_CYCLES: u64 = 200_000;

/// A pair whose link is up, with a tap that counts the ENTANGLE records each
/// side puts on the wire.
fn pair(latency: u32, seed: u64) -> (AcpTraffic, Rc<[Cell<u64>; 2]>) {
    let t = AcpTraffic::new_up(
        SimConfig::default(),
        LinkFaults {
            latency,
            seed,
            ..Default::default()
        },
        RING,
    )
    .expect("open both cards, link up");
    let entangles: Rc<[Cell<u64>; 2]> = Rc::new([Cell::new(0), Cell::new(0)]);
    let seen = entangles.clone();
    t.pair.borrow_mut().wire_tap = Some(Box::new(move |_, side, rec| {
        if rec[0] == OP_ENTANGLE {
            let c = &seen[(side == Side::B) as usize];
            c.set(c.get() + 1);
        }
    }));
    (t, entangles)
}

/// Posts `MSGS` messages on each side, lets `faults` act (called with the
/// pair and the cycle the messages were posted), then requires the pair to
/// settle, pass the exactly-once checks, and stay Up without re-entangling.
fn settles_after(
    t: &mut AcpTraffic,
    entangles: &[Cell<u64>; 2],
    what: &str,
    faults: impl FnOnce(&mut AcpTraffic, u64),
) {
    t.a.queue(MSGS);
    t.b.queue(MSGS);
    let posted = t.cycle();
    faults(t, posted);
    let settled = t.run_until_settled(SETTLE_CYCLES).unwrap();
    let (sa, sb) = (t.a.dev.link_state().unwrap(), t.b.dev.link_state().unwrap());
    assert!(
        settled,
        "{what}: not settled after {SETTLE_CYCLES} cycles (A {sa:?}, B {sb:?}; ENTANGLE records sent: A {}, B {}; A sent {} got back {}, B sent {} got back {})",
        entangles[0].get(),
        entangles[1].get(),
        t.a.sent.len(),
        t.a.returned.len(),
        t.b.sent.len(),
        t.b.returned.len(),
    );
    t.check().unwrap_or_else(|e| panic!("{what}: {e}"));
    let before = [entangles[0].get(), entangles[1].get()];
    let end = t.cycle() + STAY_UP_CYCLES;
    while t.cycle() < end {
        t.poll().unwrap();
    }
    let (sa, sb) = (t.a.dev.link_state().unwrap(), t.b.dev.link_state().unwrap());
    assert_eq!(
        (sa, sb),
        (LinkState::Up, LinkState::Up),
        "{what}: not both Up once settled"
    );
    assert_eq!(
        [entangles[0].get(), entangles[1].get()],
        before,
        "{what}: a side re-entangled after the faults stopped"
    );
    t.quiescent().unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Schedules a reset of `side`'s link state at cycle `at`.
fn reset_at(t: &mut AcpTraffic, side: Side, at: u64) {
    t.pair
        .borrow_mut()
        .schedule_write(side, at, LINK_CTRL.offset, LINK_CTRL_RESET)
        .unwrap();
}

/// B resets, and A resets `gap` cycles later (A first when `gap` is
/// negative; the same cycle at 0), at every gap in -100..=100.
fn both_reset_at_every_gap(latency: u32, seed: u64) {
    let (mut t, entangles) = pair(latency, seed);
    for gap in -100i64..=100 {
        settles_after(
            &mut t,
            &entangles,
            &format!("latency {latency}, A reset {gap} cycles after B"),
            |t, posted| {
                let b_at = posted + LEAD_CYCLES + 100;
                reset_at(t, Side::B, b_at);
                reset_at(t, Side::A, (b_at as i64 + gap) as u64);
            },
        );
    }
}

#[test]
fn both_sides_reset_at_every_offset_latency_40() {
    both_reset_at_every_gap(40, 40);
}

#[test]
fn both_sides_reset_at_every_offset_latency_100() {
    both_reset_at_every_gap(100, 100);
}

/// One side resets at every cycle over a transfer's life (from before its
/// offer leaves to after its confirmation is back), at two latencies.
#[test]
fn one_side_resets_at_every_offset_over_a_transfers_life() {
    for (latency, side) in [(40, Side::B), (100, Side::A)] {
        let (mut t, entangles) = pair(latency, 7 + latency as u64);
        let life = 4 * latency as u64 + 60;
        for k in (0..life).step_by(2) {
            settles_after(
                &mut t,
                &entangles,
                &format!("latency {latency}, {side:?} reset {k} cycles into the transfers"),
                |t, posted| reset_at(t, side, posted + LEAD_CYCLES + k),
            );
        }
    }
}

/// A cut of 100 cycles, then a loss of signal of 1 to 4 cycles on one side
/// at every offset up to 150 cycles after the cut ends.
#[test]
fn a_cut_then_a_one_sided_loss_of_signal_at_every_offset() {
    let latency = 40;
    let (mut t, entangles) = pair(latency, 48);
    for offset in 0..150u64 {
        let los = 1 + offset % 4;
        let side = if offset % 2 == 0 { Side::A } else { Side::B };
        settles_after(
            &mut t,
            &entangles,
            &format!("cut, then {side:?} without signal for {los} cycles {offset} cycles after it"),
            |t, _| {
                // Let the transfers start, cut, then the one-sided loss.
                for _ in 0..LEAD_CYCLES / 8 {
                    t.poll().unwrap();
                }
                t.pair.borrow_mut().link.cut_now(100);
                let end = t.cycle() + 100 + offset;
                while t.cycle() < end {
                    t.pair.borrow_mut().step();
                }
                t.pair.borrow_mut().link.los_now(side, los);
            },
        );
    }
}
