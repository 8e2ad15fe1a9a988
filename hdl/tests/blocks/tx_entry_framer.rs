//! The TX entry framer alone, in rust-hdl's simulator: random entries (as
//! the ring unpacker hands them out) on four pipes, one sending Ethernet
//! frames, one bound to the ACP link, one to the atomic unit and one off,
//! with bad entries, wrong lengths and kinds, and frames cut short, while
//! the input idles and every output stalls at random. Each output must
//! carry exactly its entries, whole and in order; every entry of a pipe that
//! is on moves its head once, from its start to its end; each dropped entry
//! counts once and each frame sent once, with its length. Frames ask for
//! a TX stamp at random on two Ethernet pipes, one with stamps on: exactly
//! the first beats of that pipe's asking frames carry `stamp`, with their
//! pipe, entry and length.

use crate::common::{bits512, bytes512};
use pendulum_hdl::enso::TxEntryFramer;
use pendulum_hdl::types::TxEntryBeat;
use pendulum_layout::acp::message::{KIND_SEND, KIND_SEND_VERB};
use pendulum_layout::atomic::{op, COMMIT_SLOTS, KIND_VERB};
use pendulum_layout::params::TX_PIPES;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const ETH: u64 = 3;
/// An Ethernet pipe with TX stamps on.
const ETH_STAMPS: u64 = 5;
const ACP: u64 = 17;
const ATOMIC: u64 = 40;
const OFF: u64 = TX_PIPES as u64 - 1;

/// A stamped first beat's pipe, entry and length.
type StampTag = (u64, u64, u64);

#[derive(Default)]
struct Want {
    /// Each beat's bytes and last, and on a stamped first beat its pipe,
    /// entry and length.
    eth: VecDeque<(Vec<u8>, bool, Option<StampTag>)>,
    acp: VecDeque<(Vec<u8>, bool)>,
    atomic: VecDeque<(Vec<u8>, bool, bool)>,
    moves: VecDeque<(u64, u64, u64)>,
    frames: VecDeque<(u64, u64)>,
    drops: u64,
}

/// One random entry: its beats, and what it must cause (added to `want`).
fn entry(rng: &mut impl Rng, at: &mut u64, want: &mut Want) -> Vec<TxEntryBeat> {
    let pipe = [ETH, ETH_STAMPS, ACP, ATOMIC, OFF][rng.gen_range(0..5)];
    // Asked for on any pipe; honoured on ETH_STAMPS only.
    let stamp = rng.gen_bool(0.5);
    let bad = rng.gen_bool(0.08);
    let commit = pipe == ATOMIC && rng.gen_bool(0.4);
    let len: usize = match pipe {
        ACP | ATOMIC if rng.gen_bool(0.9) => {
            if commit {
                COMMIT_SLOTS * 64
            } else {
                64
            }
        }
        _ => rng.gen_range(1..=1600),
    };
    let mut frame: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let kind_ok = rng.gen_bool(0.9);
    match pipe {
        ACP => {
            frame[0] = if kind_ok {
                [KIND_SEND, KIND_SEND_VERB][rng.gen_range(0..2)]
            } else {
                0x11
            }
        }
        ATOMIC => {
            frame[0] = if kind_ok { KIND_VERB } else { 0x22 };
            if len > 1 {
                frame[1] = if commit { op::COMMIT } else { op::CAS };
            }
        }
        _ => {}
    }
    let beats = if bad { 1 } else { len.div_ceil(64) };
    // A frame cut short: its run stopped at beat `cut` (an abort beat there).
    let cut = (!bad && beats > 1 && rng.gen_bool(0.1)).then(|| rng.gen_range(1..beats));
    let units = 1 + len.div_ceil(16) as u64;
    let (start, end) = (*at, (*at + units) & 0xFFFF);
    *at = end;
    let mut out = Vec::new();
    for b in 0..beats {
        let abort = cut == Some(b);
        let lo = 64 * b;
        let hi = (lo + 64).min(len);
        let kept = if bad || abort { 64 } else { hi - lo };
        out.push(TxEntryBeat {
            data: bits512(&frame[lo..hi]),
            keep: if kept == 64 {
                u64::MAX
            } else {
                (1u64 << kept) - 1
            }
            .into(),
            sop: b == 0,
            last: bad || abort || b + 1 == beats,
            bad,
            abort,
            len: (len as u64).into(),
            // (The unpacker sets it on first beats only; the framer must
            // look at it there only.)
            stamp,
            pipe: pipe.into(),
            start: start.into(),
            end: end.into(),
        });
        if abort {
            break;
        }
    }
    if pipe == OFF {
        return out;
    }
    want.moves.push_back((pipe, start, end));
    let slots_ok = match pipe {
        ACP => kind_ok && len == 64,
        ATOMIC => kind_ok && len == if commit { COMMIT_SLOTS * 64 } else { 64 },
        _ => true,
    };
    if bad || !slots_ok {
        want.drops += 1;
        return out;
    }
    match pipe {
        ETH | ETH_STAMPS => {
            for (i, b) in out.iter().enumerate() {
                // The filler beat of a cut frame ends it; its bytes mean nothing.
                let bytes = if b.abort {
                    Vec::new()
                } else {
                    frame[64 * i..(64 * i + 64).min(len)].to_vec()
                };
                let tag =
                    (i == 0 && stamp && pipe == ETH_STAMPS).then_some((pipe, start, len as u64));
                want.eth.push_back((bytes, b.last, tag));
            }
            if cut.is_some() {
                want.drops += 1;
            } else {
                want.frames.push_back((pipe, len as u64));
            }
        }
        ACP => want
            .acp
            .push_back((frame[8..].to_vec(), frame[0] == KIND_SEND_VERB)),
        _ => {
            for (i, b) in out.iter().enumerate() {
                if !b.abort {
                    want.atomic
                        .push_back((frame[64 * i..64 * i + 64].to_vec(), i == 0, b.last));
                }
            }
            if cut.is_some() {
                want.drops += 1;
            }
        }
    }
    out
}

fn run(seed: u64, entries: usize) -> (u64, u64) {
    let mut uut = TxEntryFramer::new();
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m_eth.ready.connect();
    uut.m_acp.ready.connect();
    uut.m_atomic.ready.connect();
    uut.acp_bound.connect();
    uut.atomic_bound.connect();
    uut.tx_enable.connect();
    uut.stamps_on.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<TxEntryFramer>| {
        x.clock.next = !x.clock.val()
    });
    let out = Arc::new(Mutex::new((0, 0)));
    let result = out.clone();
    sim.add_testbench(move |mut sim: Sim<TxEntryFramer>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut want = Want::default();
        let mut beats: VecDeque<TxEntryBeat> = VecDeque::new();
        let mut at = rng.gen::<u16>().into();
        for _ in 0..entries {
            beats.extend(entry(&mut rng, &mut at, &mut want));
        }
        let bit = |p: u64| Bits::<TX_PIPES>::from(1u64 << p);
        x.acp_bound.next = bit(ACP);
        x.atomic_bound.next = bit(ATOMIC);
        x.tx_enable.next = bit(ETH) | bit(ETH_STAMPS) | bit(ACP) | bit(ATOMIC);
        x.stamps_on.next = bit(ETH_STAMPS);
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let (mut drops, mut sent, mut quiet) = (0, 0, 0);
        loop {
            x.s.data.next = beats.front().copied().unwrap_or_default();
            x.s.valid.next = !beats.is_empty() && rng.gen_bool(0.8);
            x.m_eth.ready.next = rng.gen_bool(0.7);
            x.m_acp.ready.next = rng.gen_bool(0.7);
            x.m_atomic.ready.next = rng.gen_bool(0.7);
            x = sim.wait(1, x)?;
            if x.s.valid.val() && x.s.ready.val() {
                beats.pop_front();
            }
            if x.m_eth.valid.val() && x.m_eth.ready.val() {
                let b = x.m_eth.data.val();
                let (bytes, last, tag) =
                    want.eth.pop_front().expect("an Ethernet beat nobody sent");
                assert_eq!(b.last, last, "Ethernet last");
                assert_eq!(b.stamp, tag.is_some(), "stamp asked");
                if let Some(tag) = tag {
                    assert_eq!(
                        (b.pipe.to_u64(), b.entry.to_u64(), b.len.to_u64()),
                        tag,
                        "stamped frame"
                    );
                }
                if !bytes.is_empty() {
                    assert_eq!(b.keep.to_u64().trailing_ones() as usize, bytes.len());
                    assert_eq!(
                        &bytes512(b.data)[..bytes.len()],
                        &bytes[..],
                        "Ethernet bytes"
                    );
                }
            }
            if x.m_acp.valid.val() && x.m_acp.ready.val() {
                let m = x.m_acp.data.val();
                let (payload, verb) = want.acp.pop_front().expect("a message nobody sent");
                let mut got = bytes512(bits512(&[]));
                for k in 0..7 {
                    got[8 * k..8 * k + 8]
                        .copy_from_slice(&m.payload.get_bits::<64>(64 * k).to_u64().to_le_bytes());
                }
                assert_eq!(&got[..56], &payload[..], "message payload");
                assert_eq!(m.verb, verb, "message kind");
            }
            if x.m_atomic.valid.val() && x.m_atomic.ready.val() {
                let s = x.m_atomic.data.val();
                let (bytes, first, last) =
                    want.atomic.pop_front().expect("a verb slot nobody sent");
                assert_eq!((s.first, s.last), (first, last), "slot first/last");
                assert_eq!(&bytes512(s.data)[..], &bytes[..], "verb slot");
            }
            if x.moved.val() {
                let due = want.moves.pop_front().expect("a head move nobody caused");
                assert_eq!(
                    (
                        x.ev_pipe.val().to_u64(),
                        x.old_head.val().to_u64(),
                        x.new_head.val().to_u64()
                    ),
                    due,
                    "head move"
                );
            }
            if x.ev_frame.val() {
                let due = want
                    .frames
                    .pop_front()
                    .expect("a frame event nobody caused");
                assert_eq!(
                    (x.ev_pipe.val().to_u64(), x.ev_frame_bytes.val().to_u64()),
                    due
                );
                sent += 1;
            }
            if x.ev_drop_malformed.val() {
                drops += 1;
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
            if beats.is_empty() {
                quiet += 1;
                if quiet > 40 {
                    break;
                }
            }
        }
        assert!(
            want.eth.is_empty(),
            "{} Ethernet beats never came",
            want.eth.len()
        );
        assert!(
            want.acp.is_empty(),
            "{} messages never came",
            want.acp.len()
        );
        assert!(
            want.atomic.is_empty(),
            "{} verb slots never came",
            want.atomic.len()
        );
        assert!(
            want.moves.is_empty(),
            "{} head moves never came",
            want.moves.len()
        );
        assert!(
            want.frames.is_empty(),
            "{} frame events never came",
            want.frames.len()
        );
        assert_eq!(drops, want.drops, "drops counted");
        *result.lock().unwrap() = (sent, drops);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000_000).unwrap();
    let r = *out.lock().unwrap();
    r
}

#[test]
fn each_entry_goes_whole_to_its_pipes_port_and_moves_its_head_once() {
    for seed in 1..4 {
        let (sent, drops) = run(seed, 400);
        assert!(
            sent > 50 && drops > 20,
            "seed {seed}: too little tested ({sent} sent, {drops} dropped)"
        );
    }
}
