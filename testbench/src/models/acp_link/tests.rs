//! Unit tests of the link model and its faults.

use super::*;
use pendulum_layout::acp::{
    Body, Record, RecordError, BYTE_CHANNEL, BYTE_CHECK, BYTE_STATE, OP_STATE,
};
use std::ops::Range;

/// A key term a session might mix into every check word.
const KEY: u32 = 0x5EED_CAFE;

fn rec(n: u8) -> [u8; RECORD_BYTES] {
    Record::Channel {
        channel: 0,
        tx: 1,
        tx_bit: false,
        rx: 0,
        rx_bit: false,
        transition: 0,
        body: Body::Payload([n; 56]),
    }
    .to_bytes(0)
}

/// A record numbered `n` (in payload bytes 8..12), with opcode `op` and
/// its check word bound to [`KEY`].
fn keyed(op: u8, n: u32) -> Rec {
    let mut r = [0u8; RECORD_BYTES];
    r[BYTE_OPCODE] = op;
    r[BYTE_CHANNEL] = 3;
    r[BYTE_STATE] = 0x11;
    r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4].copy_from_slice(&n.to_le_bytes());
    for (i, b) in r[PAYLOAD_OFFSET + 4..].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ n as u8;
    }
    let check = covered_crc(&r) ^ KEY;
    set_check(&mut r, check);
    r
}

fn number(r: &Rec) -> u32 {
    u32::from_le_bytes(r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4].try_into().unwrap())
}

fn passes(r: &Rec, key: u32) -> bool {
    check_of(r) == covered_crc(r) ^ key
}

fn link(latency: u32) -> AcpLinkModel {
    AcpLinkModel::new(LinkFaults {
        latency,
        ..Default::default()
    })
}

/// Steps `cycles` times, A sending `a(cycle)` and B `b(cycle)`; returns
/// every output with the cycle it came out.
fn run(
    m: &mut AcpLinkModel,
    cycles: u64,
    mut a: impl FnMut(u64) -> Option<Rec>,
    mut b: impl FnMut(u64) -> Option<Rec>,
) -> Vec<(u64, LinkOutput)> {
    (0..cycles)
        .map(|_| {
            let c = m.cycle();
            (c, m.step(a(c), b(c)))
        })
        .collect()
}

#[test]
fn latency_is_exact_and_bytes_are_kept_without_faults() {
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 7,
        ..Default::default()
    });
    let mut got = Vec::new();
    for c in 0..30u8 {
        let o = m.step(Some(rec(c)), None);
        assert!(o.a_up && o.b_up && o.a_rx.is_none());
        if let Some(r) = o.b_rx {
            got.push((c, r));
        }
    }
    assert_eq!(got.len(), 23);
    for (c, r) in got {
        assert_eq!(r, rec(c - 7));
    }
}

#[test]
fn corruption_fails_the_check_and_undetected_damage_passes_it() {
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 1,
        corrupt_rate: 1.0,
        ..Default::default()
    });
    m.step(Some(rec(1)), None);
    let r = m.step(None, None).b_rx.unwrap();
    assert_eq!(Record::from_bytes(&r, 4, 0), Err(RecordError::BadCheck));
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 1,
        undetected_rate: 1.0,
        ..Default::default()
    });
    m.step(Some(rec(1)), None);
    let r = m.step(None, None).b_rx.unwrap();
    assert!(
        matches!(Record::from_bytes(&r, 4, 0), Ok(Record::Channel { body: Body::Payload(p), .. }) if p != [1; 56])
    );
}

#[test]
fn a_cut_drops_the_signal_for_its_length_and_loses_what_is_in_flight() {
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 5,
        ..Default::default()
    });
    for _ in 0..5 {
        m.step(Some(rec(9)), Some(rec(9)));
    }
    m.cut_now(10);
    let mut down = 0;
    for _ in 0..20 {
        let o = m.step(Some(rec(9)), Some(rec(9)));
        if !o.a_up {
            down += 1;
            assert!(o.a_rx.is_none() && o.b_rx.is_none());
        }
    }
    assert_eq!(down, 10);
    assert_eq!(m.stats().cuts, 1);
}

#[test]
fn the_same_seed_gives_the_same_faults() {
    let run = || {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 3,
            corrupt_rate: 0.3,
            loss_rate: 0.2,
            seed: 42,
            ..Default::default()
        });
        (0..200u8)
            .map(|c| m.step(Some(rec(c)), Some(rec(c))).b_rx)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

#[test]
fn the_covered_crc_is_the_layouts_check_word() {
    let r = rec(5);
    assert_eq!(covered_crc(&r), pendulum_layout::acp::check_word(&r, 0));
    assert_eq!(check_of(&r), covered_crc(&r));
}

#[test]
fn refit_check_keeps_an_arbitrary_key_term() {
    let old = keyed(OP_OFFER, 7);
    assert!(passes(&old, KEY) && !passes(&old, 0));
    let mut new = old;
    new[20] ^= 0x40;
    new[BYTE_CHANNEL] = 9;
    assert!(!passes(&new, KEY));
    refit_check(&old, &mut new);
    assert!(passes(&new, KEY), "the damaged record fails under the key");
    assert!(!passes(&new, 0));
    // A record that failed before still fails after.
    let mut bad = old;
    bad[30] ^= 1;
    let mut bad_new = bad;
    bad_new[40] ^= 2;
    refit_check(&bad, &mut bad_new);
    assert!(!passes(&bad_new, KEY));
}

#[test]
fn random_undetected_damage_passes_under_the_key() {
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 1,
        undetected_rate: 1.0,
        ..Default::default()
    });
    let sent = keyed(OP_OFFER, 1);
    m.step(Some(sent), None);
    let got = m.step(None, None).b_rx.unwrap();
    assert_ne!(got, sent);
    assert!(passes(&got, KEY));
    // Only the payload changed.
    assert_eq!(got[..BYTE_CHECK], sent[..BYTE_CHECK]);
    assert_eq!(m.stats().undetected, 1);
}

#[test]
fn one_sided_loss_of_signal_silences_only_that_side() {
    const LATENCY: u32 = 4;
    const LOS_CYCLES: u64 = 10;
    const START: u64 = 6;
    let mut m = link(LATENCY);
    let mut out = run(
        &mut m,
        START,
        |c| Some(keyed(OP_STATE, c as u32)),
        |c| Some(keyed(OP_STATE, 1000 + c as u32)),
    );
    m.los_now(Side::B, LOS_CYCLES);
    out.extend(run(
        &mut m,
        30,
        |c| Some(keyed(OP_STATE, c as u32)),
        |c| Some(keyed(OP_STATE, 1000 + c as u32)),
    ));
    let lat = LATENCY as u64;
    for (c, o) in &out {
        let silent = (START..START + LOS_CYCLES).contains(c);
        assert!(o.a_up, "cycle {c}: A lost its signal");
        assert_eq!(o.b_up, !silent, "cycle {c}");
        // A hears everything B sent, LOS or not, at the exact latency.
        if *c >= lat {
            assert_eq!(
                number(&o.a_rx.unwrap()),
                1000 + (c - lat) as u32,
                "cycle {c}"
            );
        }
        // B hears nothing while silent, nor what was in flight when it
        // started; then what A sent from the LOS on.
        let b_hears = *c >= lat && !silent && (*c < START || c - lat >= START);
        match o.b_rx {
            Some(r) => {
                assert!(b_hears, "cycle {c}: B heard during its LOS");
                assert_eq!(number(&r), (c - lat) as u32);
            }
            None => assert!(!b_hears || *c < lat, "cycle {c}: B missed a record"),
        }
    }
    let s = m.stats();
    // In flight at the start (LATENCY), then arriving during the LOS
    // (sent in its first LOS_CYCLES - LATENCY cycles).
    assert_eq!(s.los_lost, LOS_CYCLES, "{s:?}");
    assert_eq!(s.lost, s.los_lost);
    assert_eq!((s.los, s.los_cycles, s.cuts), (1, LOS_CYCLES, 0));
}

#[test]
fn silent_loss_drops_one_direction_with_the_signal_up() {
    const LATENCY: u32 = 3;
    const DROP_CYCLES: u64 = 5;
    const START: u64 = 4;
    let mut m = link(LATENCY);
    let mut out = run(
        &mut m,
        START,
        |c| Some(keyed(OP_STATE, c as u32)),
        |c| Some(keyed(OP_STATE, c as u32)),
    );
    m.drop_now(Side::A, DROP_CYCLES);
    out.extend(run(
        &mut m,
        20,
        |c| Some(keyed(OP_STATE, c as u32)),
        |c| Some(keyed(OP_STATE, c as u32)),
    ));
    let lat = LATENCY as u64;
    for (c, o) in out.iter().filter(|(c, _)| *c >= lat) {
        assert!(o.a_up && o.b_up);
        let sent = c - lat;
        assert_eq!(number(&o.a_rx.unwrap()), sent as u32);
        let dropped = (START..START + DROP_CYCLES).contains(&sent);
        assert_eq!(
            o.b_rx.map(|r| number(&r)),
            (!dropped).then_some(sent as u32),
            "cycle {c}"
        );
    }
    assert_eq!(
        (m.stats().dropped, m.stats().lost),
        (DROP_CYCLES, DROP_CYCLES)
    );
}

#[test]
fn a_duplicate_takes_the_next_slot_at_the_same_latency() {
    const LATENCY: u32 = 5;
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: LATENCY,
        duplicate_rate: 1.0,
        ..Default::default()
    });
    let out = run(&mut m, 40, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
    let lat = LATENCY as u64;
    for (c, o) in out.iter().filter(|(c, _)| *c >= lat) {
        let slot = c - lat;
        // Every even slot's record goes on, and the odd slot after it
        // carries its copy (the odd record is lost).
        let expect = slot - slot % 2;
        assert_eq!(o.b_rx, Some(keyed(OP_OFFER, expect as u32)), "cycle {c}");
    }
    let s = m.stats();
    assert_eq!(
        (s.records, s.duplicated, s.displaced, s.lost),
        (40, 20, 20, 20)
    );
}

#[test]
fn a_duplicate_waiting_for_its_slot_dies_with_a_cut() {
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: 2,
        duplicate_rate: 1.0,
        ..Default::default()
    });
    m.step(Some(keyed(OP_OFFER, 1)), None);
    m.cut_now(3);
    let out = run(&mut m, 10, |_| None, |_| None);
    assert!(out.iter().all(|(_, o)| o.b_rx.is_none()));
    assert_eq!(m.stats().duplicated, 0);
}

#[test]
fn replay_carries_the_records_from_before_the_cut_in_order() {
    const LATENCY: u32 = 3;
    const BEFORE: u64 = 20;
    const CUT_CYCLES: u64 = 6;
    const REPLAYED: usize = 5;
    let mut m = link(LATENCY);
    let a = |c: u64| Some(keyed(OP_OFFER, c as u32));
    let b = |c: u64| Some(keyed(OP_STATE, 5000 + c as u32));
    run(&mut m, BEFORE, a, b);
    assert_eq!(
        m.replay_now(Side::B, REPLAYED),
        0,
        "nothing is remembered before a cut"
    );
    m.cut_now(CUT_CYCLES);
    // Nothing is sent during the cut (what the cut does to that is not
    // this test's concern).
    run(&mut m, CUT_CYCLES, |_| None, |_| None);
    assert_eq!(m.replay_now(Side::B, REPLAYED), REPLAYED);
    let start = m.cycle();
    let out = run(&mut m, 20, a, b);
    let lat = LATENCY as u64;
    for (c, o) in &out {
        let slot = c.checked_sub(lat).filter(|s| *s >= start);
        let expect = match slot {
            None => None,
            // The last REPLAYED records A sent before the cut, oldest first.
            Some(s) if s < start + REPLAYED as u64 => Some(BEFORE - REPLAYED as u64 + (s - start)),
            Some(s) => Some(s),
        };
        assert_eq!(o.b_rx.map(|r| number(&r) as u64), expect, "cycle {c}");
        // B→A is untouched.
        assert_eq!(
            o.a_rx.map(|r| number(&r) as u64),
            slot.map(|s| 5000 + s),
            "cycle {c}"
        );
    }
    let s = m.stats();
    assert_eq!(
        (s.replayed, s.displaced),
        (REPLAYED as u64, REPLAYED as u64)
    );
}

#[test]
fn replay_remembers_at_most_its_depth() {
    let mut m = link(1);
    let sent = REPLAY_DEPTH as u64 + 100;
    run(&mut m, sent, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
    // B's loss of signal also loses A's last record, in flight.
    m.los_now(Side::B, 1);
    assert_eq!(m.replay_now(Side::B, usize::MAX), REPLAY_DEPTH);
    assert_eq!(m.replay_now(Side::A, 1), 0, "B sent nothing");
    let got: Vec<_> = run(&mut m, REPLAY_DEPTH as u64 + 2, |_| None, |_| None)
        .into_iter()
        .filter_map(|(_, o)| o.b_rx.map(|r| number(&r) as u64))
        .collect();
    let expect: Vec<_> = (sent - REPLAY_DEPTH as u64..sent).collect();
    assert_eq!(got, expect);
}

#[test]
fn replay_after_cut_starts_its_delay_after_the_cut_ends() {
    const LATENCY: u32 = 2;
    const CUT_CYCLES: u64 = 4;
    const DELAY_CYCLES: u64 = 3;
    const RECORDS: usize = 2;
    let mut m = AcpLinkModel::new(LinkFaults {
        latency: LATENCY,
        replay_after_cut: Some(ReplayAfterCut {
            delay_cycles: DELAY_CYCLES,
            records: RECORDS,
        }),
        ..Default::default()
    });
    let a = |c: u64| Some(keyed(OP_OFFER, c as u32));
    let b = |c: u64| Some(keyed(OP_STATE, 100 + c as u32));
    run(&mut m, 10, a, b);
    let cut_at = m.cycle();
    m.cut_now(CUT_CYCLES);
    let out = run(&mut m, 20, a, b);
    let first_replay = cut_at + CUT_CYCLES + DELAY_CYCLES;
    let arrive = first_replay + LATENCY as u64;
    let at = |c: u64| &out.iter().find(|(x, _)| *x == c).unwrap().1;
    assert_eq!(number(&at(arrive).b_rx.unwrap()), 8);
    assert_eq!(number(&at(arrive + 1).b_rx.unwrap()), 9);
    assert_eq!(number(&at(arrive).a_rx.unwrap()), 108);
    assert_eq!(number(&at(arrive + 1).a_rx.unwrap()), 109);
    assert_eq!(
        number(&at(arrive - 1).b_rx.unwrap()) as u64,
        first_replay - 1
    );
    assert_eq!(
        number(&at(arrive + 2).b_rx.unwrap()) as u64,
        first_replay + 2
    );
    assert_eq!(m.stats().replayed, 2 * RECORDS as u64);
}

#[test]
fn targeted_damage_changes_only_the_field_asked_for_and_passes_under_the_key() {
    const LATENCY: u32 = 2;
    const COUNT: u64 = 3;
    const NEW_CHANNEL: u8 = 0x2A;
    let mut m = link(LATENCY);
    m.damage_next(
        Side::A,
        select_opcode(OP_OFFER),
        set_byte(BYTE_CHANNEL, NEW_CHANNEL),
        COUNT,
    );
    assert_eq!(m.damage_pending(Side::A), COUNT);
    // A alternates STATE and OFFER records; only the next COUNT OFFERs change.
    let op = |c: u64| if c % 2 == 1 { OP_OFFER } else { OP_STATE };
    let out = run(
        &mut m,
        20,
        |c| Some(keyed(op(c), c as u32)),
        |c| Some(keyed(OP_OFFER, c as u32)),
    );
    let mut changed = Vec::new();
    for (c, o) in out.iter().filter(|(c, _)| *c >= LATENCY as u64) {
        let slot = c - LATENCY as u64;
        let sent = keyed(op(slot), slot as u32);
        let got = o.b_rx.unwrap();
        assert!(passes(&got, KEY), "slot {slot}");
        assert_eq!(
            o.a_rx,
            Some(keyed(OP_OFFER, slot as u32)),
            "B's records are untouched"
        );
        if got != sent {
            changed.push(slot);
            for i in
                (0..RECORD_BYTES).filter(|i| !(BYTE_CHECK..BYTE_CHECK + CHECK_BYTES).contains(i))
            {
                let expect = if i == BYTE_CHANNEL {
                    NEW_CHANNEL
                } else {
                    sent[i]
                };
                assert_eq!(got[i], expect, "slot {slot} byte {i}");
            }
        }
    }
    assert_eq!(changed, vec![1, 3, 5]);
    assert_eq!((m.stats().targeted, m.damage_pending(Side::A)), (COUNT, 0));
}

#[test]
fn random_field_damage_stays_in_its_range() {
    const RANGES: [Range<usize>; 4] = [
        BYTE_STATE..BYTE_STATE + 1,
        PAYLOAD_OFFSET..PAYLOAD_OFFSET + 4,
        PAYLOAD_OFFSET + 4..PAYLOAD_OFFSET + 8,
        PAYLOAD_OFFSET + 8..RECORD_BYTES,
    ];
    for range in RANGES {
        let mut m = link(1);
        m.damage_next(Side::B, select_all(), xor_bytes_random(range.clone()), 50);
        let out = run(&mut m, 51, |_| None, |c| Some(keyed(OP_OFFER, c as u32)));
        for (c, o) in &out[1..] {
            let sent = keyed(OP_OFFER, *c as u32 - 1);
            let got = o.a_rx.unwrap();
            assert!(passes(&got, KEY));
            assert!(
                got[range.clone()] != sent[range.clone()],
                "{range:?} unchanged"
            );
            for i in (0..RECORD_BYTES).filter(|i| !range.contains(i)) {
                if !(BYTE_CHECK..BYTE_CHECK + CHECK_BYTES).contains(&i) {
                    assert_eq!(got[i], sent[i], "{range:?}: byte {i} changed");
                }
            }
        }
    }
}

#[test]
fn field_mutators_set_and_xor_what_they_are_given() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let base = keyed(OP_OFFER, 1);
    let mut r = base;
    set_byte(BYTE_OPCODE, OP_STATE)(&mut r, &mut rng);
    assert_eq!(r[BYTE_OPCODE], OP_STATE);
    xor_byte(BYTE_STATE, 0x08)(&mut r, &mut rng);
    assert_eq!(r[BYTE_STATE], base[BYTE_STATE] ^ 0x08);
    set_bytes(12..16, &[1, 2, 3, 4])(&mut r, &mut rng);
    assert_eq!(r[12..16], [1, 2, 3, 4]);
    xor_byte_random(BYTE_CHANNEL)(&mut r, &mut rng);
    assert_ne!(r[BYTE_CHANNEL], base[BYTE_CHANNEL]);
    assert!(select_opcode(OP_OFFER)(&base) && !select_opcode(OP_OFFER)(&r));
    assert_eq!(r[16..], base[16..]);
    assert!(std::panic::catch_unwind(|| set_byte(BYTE_CHECK, 0)).is_err());
    assert!(std::panic::catch_unwind(|| xor_bytes_random(60..65)).is_err());
}

#[test]
fn damage_counts_only_records_that_enter_the_wire() {
    let mut m = link(1);
    m.drop_now(Side::A, 2);
    m.damage_next(Side::A, select_all(), xor_byte_random(20), 1);
    let out = run(&mut m, 4, |c| Some(keyed(OP_OFFER, c as u32)), |_| None);
    assert!(out[..3].iter().all(|(_, o)| o.b_rx.is_none()));
    let got = out[3].1.b_rx.unwrap();
    assert_ne!(
        got,
        keyed(OP_OFFER, 2),
        "the first record through is damaged"
    );
    assert_eq!(m.stats().targeted, 1);
}

#[test]
fn the_same_seed_gives_the_same_new_faults() {
    let run_once = || {
        let mut m = AcpLinkModel::new(LinkFaults {
            latency: 7,
            corrupt_rate: 0.05,
            undetected_rate: 0.05,
            loss_rate: 0.05,
            duplicate_rate: 0.1,
            cut_every: Some(300),
            cut_cycles: 40,
            replay_after_cut: Some(ReplayAfterCut {
                delay_cycles: 10,
                records: 30,
            }),
            seed: 99,
        });
        m.damage_next(
            Side::A,
            select_opcode(OP_OFFER),
            xor_bytes_random(16..64),
            100,
        );
        let mut outs = Vec::new();
        for c in 0..3000u32 {
            if c == 500 {
                m.los_now(Side::B, 50);
            }
            if c == 900 {
                m.drop_now(Side::A, 30);
            }
            let o = m.step(Some(keyed(OP_OFFER, c)), Some(keyed(OP_STATE, c)));
            outs.push((o.a_rx, o.b_rx, o.a_up, o.b_up));
        }
        (outs, m.stats().clone())
    };
    let (first, stats) = run_once();
    assert_eq!((first, stats.clone()), run_once());
    assert!(
        stats.duplicated > 0 && stats.replayed > 0 && stats.targeted == 100 && stats.cuts > 0,
        "{stats:?}"
    );
    let json = serde_json::to_value(&stats).unwrap();
    for field in [
        "los",
        "los_lost",
        "dropped",
        "duplicated",
        "replayed",
        "displaced",
        "targeted",
    ] {
        assert!(json.get(field).is_some(), "{field} not serialised");
    }
}

#[test]
fn the_wire_log_keeps_the_last_slots() {
    const CAPACITY: usize = 4;
    let mut m = link(2);
    m.enable_wire_log(CAPACITY);
    m.drop_now(Side::B, 100);
    run(
        &mut m,
        10,
        |c| Some(keyed(OP_OFFER, c as u32)),
        |c| (c == 9).then(|| keyed(OP_STATE, 0)),
    );
    let log: Vec<_> = m.wire_log().cloned().collect();
    assert_eq!(log.len(), CAPACITY);
    assert_eq!(
        log.iter().map(|e| (e.cycle, e.from)).collect::<Vec<_>>(),
        vec![(7, Side::A), (8, Side::A), (9, Side::A), (9, Side::B)]
    );
    assert_eq!(log[0].carried, Some(keyed(OP_OFFER, 7)));
    assert_eq!(log[3].carried, None, "B's record was dropped");
    let text = m.wire_log_text(2);
    assert_eq!(text.lines().count(), 2);
    assert!(
        text.contains("cycle 9 B->A") && text.ends_with("carried -\n"),
        "{text}"
    );
}
