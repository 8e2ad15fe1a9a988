//! `SlotChoice` alone in rust-hdl's simulator: the order in which record
//! slots go to channels with news. The link tests on Verilator check what
//! the slots carry; this checks the promise `SlotChoice` makes about whom
//! they go to under full load, which those tests do not see (their
//! channels are rarely all busy at once): each channel with news is
//! served within two passes over the channels, in channel order, and the
//! restating share still reaches the channels without news.

use pendulum_hdl::acp::SlotChoice;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_RESTATE_SHARE_LOG2 as SHARE};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

/// The channel of each record slot over `slots` slots, with the port taking
/// a record every cycle and `news` (a bit per channel) held throughout.
fn slot_channels(news: u64, slots: usize) -> Vec<usize> {
    let mut uut = SlotChoice::default();
    uut.reset.connect();
    uut.tx_ready.connect();
    uut.up.connect();
    uut.go_up.connect();
    uut.active.connect();
    uut.news.connect();
    uut.ch_news.connect();
    uut.started.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<SlotChoice>| x.clock.next = !x.clock.val());
    let out = Arc::new(Mutex::new(Vec::new()));
    let got = out.clone();
    sim.add_testbench(move |mut sim: Sim<SlotChoice>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        x.active.next = (K as u64).into();
        x.go_up.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.go_up.next = false;
        x.up.next = true;
        x.started.next = true;
        x.tx_ready.next = true;
        x.news.next = news.into();
        for _ in 0..slots {
            let ch = x.ch.val().index();
            x.ch_news.next = news >> ch & 1 == 1;
            x = sim.wait(1, x)?;
            assert!(x.advance.val(), "the port takes a record every cycle");
            got.lock().unwrap().push(ch);
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000_000).unwrap();
    let v = out.lock().unwrap().clone();
    v
}

/// The longest run of slots without `ch`, counting from the first slot.
fn longest_wait(chs: &[usize], ch: usize) -> usize {
    let (mut longest, mut last) = (0, None::<usize>);
    for (t, &c) in chs.iter().enumerate() {
        if c == ch {
            longest = longest.max(t - last.map_or(0, |l| l + 1));
            last = Some(t);
        }
    }
    longest.max(chs.len() - last.map_or(0, |l| l + 1))
}

#[test]
fn slot_choice_serves_news_in_order_and_the_share_every_channel() {
    // News everywhere, and news on every third channel: a channel waits
    // less than two passes over the channels with news. (A slot of the
    // restating share moves the scan on to the channel it restates, so the
    // channels between it and the scan's place wait for the next pass.)
    // Served lowest-first instead, the low channels would take the slots
    // and the rest wait for the share: 2^SHARE × K slots.
    let masks = (K as u64).min(64);
    for news in [
        u64::MAX >> (64 - masks),
        0x9249_2492_4924_9249 >> (64 - masks),
    ] {
        let with_news: Vec<usize> = (0..K).filter(|c| news >> c & 1 == 1).collect();
        let pass = with_news.len();
        let bound = 2 * pass + 2;
        assert!(bound < (1 << SHARE) * K);
        let chs = slot_channels(news, 6 * (1 << SHARE) * K);
        // Channels without news are stated too, by the restating share:
        // each at least once in 2 × 2^SHARE × K slots, even under full load.
        for c in 0..K {
            let w = longest_wait(&chs, c);
            let share_bound = 2 * (1 << SHARE) * K;
            assert!(
                w <= share_bound,
                "news {news:#x}: channel {c} waited {w} slots (share bound {share_bound})"
            );
        }
        for &c in &with_news {
            let w = longest_wait(&chs, c);
            assert!(
                w <= bound,
                "news {news:#x}: channel {c} waited {w} slots (bound {bound}): {chs:?}"
            );
        }
        // And in channel order: after c, the next channel with news.
        let news_slots: Vec<usize> = chs.iter().copied().filter(|c| news >> c & 1 == 1).collect();
        let in_order = news_slots
            .windows(2)
            .filter(|w| {
                w[1] == with_news[(with_news.iter().position(|&c| c == w[0]).unwrap() + 1) % pass]
            })
            .count();
        assert!(
            in_order * 10 >= news_slots.len() * 8,
            "news {news:#x}: {in_order} of {} steps in channel order: {chs:?}",
            news_slots.len()
        );
    }
}
