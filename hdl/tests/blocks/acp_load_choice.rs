//! `LoadChoice` alone in rust-hdl's simulator, against a model of the
//! channel flags that changes only as `ChannelState`'s writers change them:
//! moves on the heard channel (confirmations, PASSED with its load), loads
//! where the block says, hand-backs of returning channels, flushes and
//! going Up. The choice is made a cycle ahead, so what this checks is that
//! it is still right when used: every load goes to a channel that may take
//! it, into the free buffer, and a channel that could load a cycle ago
//! (and was not just loaded) still does.

use pendulum_hdl::acp::LoadChoice;
use pendulum_layout::params::ACP_CHANNELS as K;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// The flags `LoadChoice` reads, per channel.
#[derive(Clone, Copy, Default)]
struct Chan {
    holding: bool,
    next: bool,
    ret: bool,
    head: bool,
    in_use: bool,
}

impl Chan {
    fn idle(&self) -> bool {
        !self.holding && !self.ret && self.in_use
    }
    fn takes_next(&self) -> bool {
        self.holding && !self.next && !self.ret && self.in_use
    }
}

fn vector(chans: &[Chan], f: impl Fn(&Chan) -> bool) -> Bits<K> {
    let mut v = Bits::<K>::default();
    for (i, c) in chans.iter().enumerate() {
        v = v.replace_bit(i, f(c));
    }
    v
}

fn ch_bits(ch: usize) -> Bits<{ pendulum_layout::params::ACP_CHANNEL_BITS }> {
    (ch as u64).into()
}

/// Runs `cycles` cycles of random events (seeded) and returns the loads
/// made and the cycles a payload waited while a channel could take it.
fn run(seed: u64, cycles: usize, flush_per_mille: u32) -> (usize, usize) {
    let mut uut = LoadChoice::default();
    uut.reset.connect();
    uut.v_holding.connect();
    uut.v_next_held.connect();
    uut.v_returning.connect();
    uut.v_head.connect();
    uut.in_use.connect();
    uut.apply.connect();
    uut.apply_ch.connect();
    uut.heard_ch.connect();
    uut.passing.connect();
    uut.pass_bit.connect();
    uut.want.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<LoadChoice>| x.clock.next = !x.clock.val());
    let tally = std::sync::Arc::new(std::sync::Mutex::new((0, 0)));
    let out = tally.clone();
    sim.add_testbench(move |mut sim: Sim<LoadChoice>| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut x = sim.init()?;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut chans = vec![
            Chan {
                in_use: true,
                ..Default::default()
            };
            K
        ];
        // The record in the check stage (its move is next cycle's), and
        // what the last cycle left: the idle channels that could load now
        // (less the one loaded), and whether a flush voided the choice.
        let (mut heard, mut heard_live) = (0usize, false);
        let mut could_load_idle = false;
        let mut was_stale = true;
        let (mut loads, mut waits) = (0usize, 0usize);
        for t in 0..cycles {
            // This cycle's move: on the channel heard last cycle.
            // (A valid record makes no move when it is damaged or stale.)
            let (apply_ch, valid) = (heard, heard_live);
            let apply = valid && rng.gen_bool(0.8);
            let a = chans[apply_ch];
            let passing = apply && a.holding && a.next && !a.ret && rng.gen_bool(0.5);
            let confirm = apply && a.holding && !a.ret && (passing || rng.gen_bool(0.5));
            let want = rng.gen_bool(0.7);
            let flush = rng.gen_ratio(flush_per_mille, 1000);
            let go_up = !flush && rng.gen_ratio(flush_per_mille, 1000);
            let stale = flush || go_up;
            heard = rng.gen_range(0..K);
            heard_live = rng.gen_bool(0.9);

            x.v_holding.next = vector(&chans, |c| c.holding);
            x.v_next_held.next = vector(&chans, |c| c.next);
            x.v_returning.next = vector(&chans, |c| c.ret);
            x.v_head.next = vector(&chans, |c| c.head);
            x.in_use.next = vector(&chans, |c| c.in_use);
            x.apply.next = apply;
            x.apply_ch.next = ch_bits(apply_ch);
            x.heard_ch.next = ch_bits(heard);
            x.passing.next = passing;
            x.pass_bit.next = !a.head;
            x.want.next = want;
            x = sim.wait(1, x)?;

            let ok = x.ok.val();
            let ch = x.ch.val().index();
            let buffer = x.buffer.val();
            let to_idle = x.to_idle.val();
            if could_load_idle && !was_stale {
                assert!(
                    ok,
                    "cycle {t}: an idle channel chosen last cycle is not offered"
                );
            }
            if want
                && !ok
                && chans
                    .iter()
                    .enumerate()
                    .any(|(i, c)| c.idle() || (c.takes_next() && !(apply && i == apply_ch)))
            {
                waits += 1;
            }
            if ok {
                let c = chans[ch];
                if passing {
                    assert_eq!(ch, apply_ch, "cycle {t}: PASSED loads its own channel");
                    assert!(!to_idle);
                } else if to_idle {
                    assert!(c.idle(), "cycle {t}: channel {ch} is not idle");
                    assert_eq!(
                        buffer, c.head,
                        "cycle {t}: an idle load writes the head buffer"
                    );
                } else {
                    assert!(
                        c.takes_next(),
                        "cycle {t}: channel {ch} cannot take a next payload"
                    );
                    assert!(
                        !(apply && ch == apply_ch),
                        "cycle {t}: channel {ch} is decided on"
                    );
                    assert_eq!(
                        buffer, !c.head,
                        "cycle {t}: a next payload writes the other buffer"
                    );
                }
            }
            // The choice made now has an idle channel for next cycle: one
            // of those idle now, less the one chosen now while a payload
            // waits (skipped whether or not the load took it).
            could_load_idle = chans.iter().filter(|c| c.idle()).count() > usize::from(want);
            was_stale = stale;

            // The writers, in `ChannelState`'s order.
            if confirm {
                let c = &mut chans[apply_ch];
                c.head = !c.head;
                if c.next {
                    c.next = false;
                } else {
                    c.holding = false;
                }
            }
            // The scanner hands back a returning channel.
            if let Some(r) = (0..K).find(|&i| chans[i].ret) {
                if rng.gen_bool(0.3) {
                    chans[r] = Chan {
                        in_use: chans[r].in_use,
                        head: chans[r].head,
                        ..Default::default()
                    };
                }
            }
            if flush {
                for c in chans.iter_mut().filter(|c| c.holding) {
                    c.ret = true;
                }
            }
            let load = want && ok && !stale;
            if load {
                loads += 1;
                if to_idle {
                    chans[ch].holding = true;
                } else {
                    chans[ch].next = true;
                }
            }
            if go_up {
                let n = rng.gen_range(1..=K);
                for (i, c) in chans.iter_mut().enumerate() {
                    c.in_use = i < n;
                }
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        *out.lock().unwrap() = (loads, waits);
        sim.done(x)
    });
    sim.run(Box::new(uut), 1_000_000_000).unwrap();
    let r = *tally.lock().unwrap();
    r
}

#[test]
fn load_choice_made_a_cycle_ahead_holds_when_used() {
    for seed in 0..4 {
        let (loads, waits) = run(seed, 3000, 5);
        eprintln!("seed {seed}: {loads} loads, {waits} waits");
        // Payloads flow: most cycles that want a load and have a channel
        // for it get one (a freed channel loads a cycle later than it
        // could, and a flush voids a cycle's choice).
        assert!(loads > 500, "seed {seed}: only {loads} loads");
        assert!(
            waits * 3 < loads,
            "seed {seed}: {waits} cycles waited, {loads} loads"
        );
    }
}
