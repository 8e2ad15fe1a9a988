//! Frame kinds on the Verilated NIC with ring format v2 (issue #26): every
//! frame crosses RX and TX byte for byte whatever its EtherType (VLAN and
//! QinQ, ARP, LLDP, PTP, a custom EtherType, a third tag, IPv4 with
//! options, IPv6 with extension headers, jumbo), mixed in one stream; each
//! RX entry's header carries the frame's length, the FLAGS and HASH the
//! layout's rules give, and the cycle its first beat entered the core; a
//! TX entry with a bad length is dropped alone.
//!
//! Where a frame should land and what its header holds comes from
//! `pendulum_layout` (`FlowKey::from_frame`, `ring::rx_flags`), which the
//! hardware implements separately in Verilog.

use super::flow::{random_key, send};
use pendulum_driver::{Card, Device, EntryHeader, FlowKey, RxPipe};
use pendulum_layout::flow::{fallback_pipe, PROTO_TCP, PROTO_UDP};
use pendulum_layout::frame::{with_vlan_tags, ETHERTYPE_ARP, ETHERTYPE_QINQ, ETHERTYPE_VLAN};
use pendulum_layout::params::{MAX_FRAME_BYTES, PIPES, PIPE_BITS};
use pendulum_layout::ring::{entry_units, flags, rx_flags, write_entry};
use pendulum_testbench::models::{flow_frame, pad_to_min, set_l4_checksum};
use pendulum_testbench::rx_check::{receive_and_check_headers, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use std::cell::RefCell;
use std::collections::VecDeque;

/// The default pipe for frames with no flow key (`set_default_pipe`).
const DEFAULT_PIPE: usize = 3;

pub(crate) fn open() -> (Device<SimCard>, Vec<RxPipe>) {
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open simulated card");
    let pipes = (0..PIPES)
        .map(|p| dev.open_rx_pipe(p, 256 * 1024).unwrap())
        .collect();
    dev.set_default_pipe(DEFAULT_PIPE).unwrap();
    (dev, pipes)
}

/// The tag stacks the tests use: none, one 802.1Q tag, QinQ (802.1ad outer,
/// 802.1Q inner), two 802.1Q tags, and one 802.1ad tag alone.
fn tag_stack(i: usize) -> Vec<(u16, u16)> {
    match i % 5 {
        0 => vec![],
        1 => vec![(ETHERTYPE_VLAN, 0x0123)],
        2 => vec![(ETHERTYPE_QINQ, 0x0fff), (ETHERTYPE_VLAN, 0x2001)],
        3 => vec![(ETHERTYPE_VLAN, 7), (ETHERTYPE_VLAN, 8)],
        _ => vec![(ETHERTYPE_QINQ, 0xe00a)],
    }
}

/// An ARP request (42 bytes before padding).
fn arp_frame(seq: u8) -> Vec<u8> {
    let mut arp = vec![0u8; 42];
    arp[0..6].copy_from_slice(&[0xFF; 6]);
    arp[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, seq]);
    arp[12..14].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    arp[14..22].copy_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    arp[28..32].copy_from_slice(&[10, 0, 0, seq]);
    arp
}

/// A frame of `len` bytes with EtherType `ethertype` and a counting payload.
fn raw_frame(ethertype: u16, seq: u8, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(7) ^ seq).collect();
    f[0..6].copy_from_slice(&[0x01, 0x80, 0xC2, 0, 0, 0x0E]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, seq]);
    f[12..14].copy_from_slice(&ethertype.to_be_bytes());
    f
}

/// An IPv4 frame whose header carries `words` words of options (IHL 5 +
/// words), with a valid header checksum.
fn ipv4_with_options(seq: u64, words: usize, len: usize) -> Vec<u8> {
    let k = FlowKey::v4([10, 4, 0, seq as u8], [10, 4, 0, 200], PROTO_UDP, 7, 9);
    let plain = flow_frame(&k, seq, len - 4 * words);
    let mut f = plain[..34].to_vec();
    f.extend((0..4 * words).map(|i| i as u8 | 1));
    f.extend_from_slice(&plain[34..]);
    f[14] = 0x45 + words as u8;
    let total = (len - 14) as u16;
    f[16..18].copy_from_slice(&total.to_be_bytes());
    f[24..26].copy_from_slice(&[0, 0]);
    let hdr = &f[14..14 + 20 + 4 * words];
    let mut s: u32 = hdr
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(w[1]))
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    f[24..26].copy_from_slice(&(!(s as u16)).to_be_bytes());
    f
}

/// An IPv6 frame whose next header is hop-by-hop (0), an extension header
/// of 8 bytes, then UDP.
fn ipv6_with_extension(seq: u64, len: usize) -> Vec<u8> {
    let k = FlowKey::v6([seq as u8; 16], [9; 16], PROTO_UDP, 5, 6);
    let plain = flow_frame(&k, seq, len - 8);
    let mut f = plain[..54].to_vec();
    f.extend_from_slice(&[PROTO_UDP, 0, 1, 4, 0, 0, 0, 0]);
    f.extend_from_slice(&plain[54..]);
    f[20] = 0; // next header: hop-by-hop options
    f[18..20].copy_from_slice(&((len - 54) as u16).to_be_bytes());
    f
}

/// The pipe the layout's rules give a frame on a card with an empty flow
/// table, the default fallback (every pipe) and [`DEFAULT_PIPE`].
pub(crate) fn model_pipe(frame: &[u8]) -> usize {
    match FlowKey::from_frame(frame) {
        Some(k) => fallback_pipe(k.hash(), 0, PIPE_BITS as u32),
        None => DEFAULT_PIPE,
    }
}

/// Checks a received entry's header against the layout's rules:
/// FLAGS (as far as this NIC sets them, with FLOW_HIT when `hit` says the
/// frame's key is bound) and HASH.
pub(crate) fn check_header(frame: &[u8], h: &EntryHeader, hit: bool) -> Result<(), String> {
    let want_flags = rx_flags(frame, hit) & flags::NIC_FLAGS;
    let want_hash = FlowKey::from_frame(frame).map_or(0, |k| k.hash());
    if h.flags != want_flags || h.hash != want_hash {
        return Err(format!(
            "header flags {:#06x} hash {:#010x}, the layout gives {want_flags:#06x} {want_hash:#010x} \
             for {} bytes starting {:02x?}",
            h.flags,
            h.hash,
            frame.len(),
            &frame[..frame.len().min(40)]
        ));
    }
    Ok(())
}

/// One stream of every kind of frame the issue names, in order.
fn every_kind(seq: u64) -> Vec<Vec<u8>> {
    let k4 = FlowKey::v4([10, 1, 0, seq as u8], [10, 1, 0, 2], PROTO_TCP, 1000, 80);
    let k6 = FlowKey::v6([seq as u8; 16], [3; 16], PROTO_UDP, 53, 5353);
    let mut lldp_in_vlan =
        with_vlan_tags(&raw_frame(0x88CC, seq as u8, 90), &[(ETHERTYPE_VLAN, 4)]);
    lldp_in_vlan[16..18].copy_from_slice(&0x88CCu16.to_be_bytes());
    vec![
        flow_frame(&k4, seq, 64),
        with_vlan_tags(&flow_frame(&k4, seq, 200), &tag_stack(1)),
        with_vlan_tags(&flow_frame(&k6, seq, 300), &tag_stack(2)),
        with_vlan_tags(
            &flow_frame(&k4, seq, 128),
            &[
                (ETHERTYPE_QINQ, 1),
                (ETHERTYPE_VLAN, 2),
                (ETHERTYPE_VLAN, 3),
            ],
        ),
        arp_frame(seq as u8),
        raw_frame(0x88CC, seq as u8, 120), // LLDP
        raw_frame(0x88F7, seq as u8, 86),  // PTP
        raw_frame(0x88B5, seq as u8, 65),  // local experimental EtherType
        lldp_in_vlan,
        ipv4_with_options(seq, 3, 150),
        ipv4_with_options(seq, 10, 400),
        ipv6_with_extension(seq, 180),
        flow_frame(&k6, seq, 9000),
        flow_frame(&k4, seq, MAX_FRAME_BYTES as usize),
        raw_frame(0x0801, seq as u8, 61),
    ]
}

#[test]
fn every_kind_of_frame_arrives_byte_for_byte_with_its_header() {
    let (mut dev, mut pipes) = open();
    let mut exp: Expected = vec![Default::default(); PIPES];
    let mut n = 0;
    for seq in 0..6 {
        for f in every_kind(seq) {
            let p = model_pipe(&f);
            send(&mut dev, &mut exp, f, p);
            n += 1;
        }
    }
    let rep = receive_and_check_headers(&mut dev, &mut pipes, &mut exp, 5_000_000, |_, f, h| {
        check_header(f, h, false)
    })
    .unwrap();
    assert_eq!(rep.frames, n);
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (n, 0));
}

#[test]
fn every_kind_of_frame_leaves_byte_for_byte_mixed_in_one_stream() {
    let (mut dev, _) = open();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let frames: Vec<Vec<u8>> = (0..6).flat_map(every_kind).collect();
    let mut next = 0;
    let mut polls = 0;
    while next < frames.len() {
        let batch: Vec<&[u8]> = frames[next..].iter().take(8).map(|f| &f[..]).collect();
        next += tx.send(&mut dev, &batch).expect("send");
        polls += 1;
        assert!(polls < 100_000, "TX ring never drained");
        dev.card_mut().relax();
    }
    assert!(tx.wait_idle(&mut dev, 2_000_000), "TX did not finish");
    assert!(dev.card_mut().sim.drain(100_000));
    let out = dev.card_mut().sim.eth_tx.take_frames();
    assert_eq!(out.len(), frames.len(), "every frame left");
    for (i, (got, want)) in out.iter().zip(&frames).enumerate() {
        // The MAC pads a frame under the minimum; the NIC sends LEN bytes.
        assert_eq!(&got[..want.len()], &want[..], "frame {i} altered");
        assert!(
            got[want.len()..].iter().all(|&b| b == 0),
            "frame {i}: padding"
        );
    }
    let c = dev.counters().unwrap();
    assert_eq!((c.tx_frames, c.tx_drop_malformed), (frames.len() as u64, 0));
}

#[test]
fn vlan_tagged_frames_arrive_on_the_pipe_of_their_inner_flow_with_flow_hit() {
    use rand::SeedableRng;
    let (mut dev, mut pipes) = open();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(26);
    let mut exp: Expected = vec![Default::default(); PIPES];
    let bound = FlowKey::v4([10, 1, 1, 1], [10, 1, 1, 2], PROTO_UDP, 1111, 2222);
    pipes[5].bind(&mut dev, bound).unwrap();
    let mut tagged = 0;
    for i in 0..400usize {
        let tags = tag_stack(i);
        tagged += usize::from(!tags.is_empty());
        let (frame, pipe) = match i % 4 {
            // A bound flow hits its entry whatever its tags.
            0 => (flow_frame(&bound, i as u64, 64 + i % 200), 5),
            1 => (arp_frame(i as u8), DEFAULT_PIPE),
            _ => {
                let k = random_key(&mut rng);
                let len = rand::Rng::gen_range(&mut rng, 80..=1500);
                let f = flow_frame(&k, i as u64, len);
                let p = model_pipe(&with_vlan_tags(&f, &tags));
                (f, p)
            }
        };
        send(&mut dev, &mut exp, with_vlan_tags(&frame, &tags), pipe);
    }
    let mut hits = 0;
    receive_and_check_headers(&mut dev, &mut pipes, &mut exp, 5_000_000, |_, f, h| {
        let hit = FlowKey::from_frame(f) == Some(bound);
        hits += usize::from(h.flow_hit());
        check_header(f, h, hit)
    })
    .unwrap();
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (400, 0));
    assert_eq!(
        (c.flow_hits, hits),
        (100, 100),
        "every frame of the bound flow"
    );
    assert!(tagged > 300);
}

#[test]
fn rx_timestamps_are_the_cycle_each_first_beat_entered_the_core() {
    let (mut dev, mut pipes) = open();
    dev.card_mut().sim.arrivals = Some(VecDeque::new());
    let mut exp: Expected = vec![Default::default(); PIPES];
    let before = dev.cycles().unwrap();
    let frames: Vec<Vec<u8>> = (0..60u64)
        .map(|i| {
            raw_frame(
                0x88B5,
                i as u8,
                [60, 64, 65, 200, 1500, 9000][i as usize % 6],
            )
        })
        .collect();
    for (i, f) in frames.iter().enumerate() {
        send(&mut dev, &mut exp, f.clone(), DEFAULT_PIPE);
        if i % 10 == 9 {
            // Gaps, so that stamps are not only back to back.
            for _ in 0..37 {
                dev.card_mut().relax();
            }
        }
    }
    let mut stamps = Vec::new();
    receive_and_check_headers(&mut dev, &mut pipes, &mut exp, 5_000_000, |_, _, h| {
        stamps.push(h.timestamp);
        Ok(())
    })
    .unwrap();
    let after = dev.cycles().unwrap();
    let starts: Vec<u64> = dev.card_mut().sim.arrivals.take().unwrap().into();
    assert_eq!((stamps.len(), starts.len()), (60, 60));
    // The NIC's clock and the harness's differ by a constant: the cycles
    // before the core's reset ended.
    let offset = starts[0] - stamps[0];
    for (i, (s, t)) in starts.iter().zip(&stamps).enumerate() {
        assert_eq!(
            s - t,
            offset,
            "frame {i}: stamp {t}, first beat at harness cycle {s}"
        );
    }
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "stamps increase");
    assert!(
        before < stamps[0] && stamps[59] < after,
        "stamps inside the CYCLES reads"
    );
}

/// Entries for `frames` written back to back from unit 0 into a buffer, each
/// with the header LEN given (the frame's own length unless overridden).
fn entries(frames: &[(Vec<u8>, u16)]) -> Vec<u8> {
    let units: u32 = frames
        .iter()
        .map(|(f, _)| entry_units(f.len() as u32))
        .sum();
    // (`write_entry` writes into a ring: a power-of-two size, cut after.)
    let mut ring = vec![0u8; units.next_power_of_two() as usize * 16];
    let mut at = 0;
    for (f, len) in frames {
        let h = EntryHeader {
            len: *len,
            ..EntryHeader::default()
        };
        write_entry(&mut ring, at, &h, f);
        at += entry_units(f.len() as u32);
    }
    ring.truncate(units as usize * 16);
    ring
}

#[test]
fn a_tx_entry_with_a_bad_length_is_dropped_alone_and_its_neighbours_go() {
    let (mut dev, _) = open();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let k = FlowKey::v4([10, 5, 0, 1], [10, 5, 0, 2], PROTO_UDP, 1, 2);
    let good: Vec<Vec<u8>> = (0..4)
        .map(|i| flow_frame(&k, i, 100 + 50 * i as usize))
        .collect();
    // One doorbell: good, LEN 0 (a header alone), good, LEN over the MTU
    // (its bytes follow, so its units are what LEN says), good, good.
    let too_long = vec![0x5Au8; MAX_FRAME_BYTES as usize + 1];
    let batch = entries(&[
        (good[0].clone(), good[0].len() as u16),
        (Vec::new(), 0),
        (good[1].clone(), good[1].len() as u16),
        (too_long.clone(), too_long.len() as u16),
        (good[2].clone(), good[2].len() as u16),
        (good[3].clone(), good[3].len() as u16),
    ]);
    tx.send_raw(&mut dev, &batch).unwrap();
    assert!(tx.wait_idle(&mut dev, 1_000_000), "TX did not finish");
    assert!(dev.card_mut().sim.drain(100_000));
    assert_eq!(dev.card_mut().sim.eth_tx.take_frames(), good);
    let c = dev.counters().unwrap();
    assert_eq!((c.tx_frames, c.tx_drop_malformed), (4, 2));
    assert_eq!(tx.head(), tx.tail(), "the head passed every entry");
}

/// A random frame header: IPv4 or IPv6 (random protocol, IHL, fragment
/// bits, TCP or UDP checksum filled in or not) or ARP or a custom
/// EtherType, behind 0..=3 tags of random TPIDs.
#[derive(Clone, Debug)]
struct Header {
    kind: u8,
    v6: bool,
    proto: u8,
    ihl6: bool,
    fragment: bool,
    bad_csum: bool,
    l4_csum: bool,
    tpids: Vec<u16>,
    len: usize,
    seq: u64,
}

fn header() -> impl Strategy<Value = Header> {
    let tpid = prop_oneof![Just(ETHERTYPE_VLAN), Just(ETHERTYPE_QINQ), Just(0x9100u16)];
    (
        (0u8..4, any::<bool>()),
        prop_oneof![Just(PROTO_TCP), Just(PROTO_UDP), Just(1u8), Just(47u8)],
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        proptest::collection::vec(tpid, 0..=3),
        100usize..600,
        any::<u64>(),
    )
        .prop_map(
            |((kind, v6), proto, (ihl6, fragment, bad_csum, l4_csum), tpids, len, seq)| Header {
                kind,
                v6,
                proto,
                ihl6,
                fragment,
                bad_csum,
                l4_csum,
                tpids,
                len,
                seq,
            },
        )
}

impl Header {
    fn frame(&self) -> Vec<u8> {
        let mut f = match self.kind {
            0 | 1 => {
                let k = if self.v6 {
                    FlowKey::v6([self.seq as u8; 16], [7; 16], self.proto, 100, 200)
                } else {
                    FlowKey::v4(
                        [10, 0, 0, self.seq as u8],
                        [10, 9, 9, 9],
                        self.proto,
                        100,
                        200,
                    )
                };
                let mut f = flow_frame(&k, self.seq, self.len);
                if !self.v6 {
                    // IHL 6 moves the ports out of place; so does a fragment.
                    // (flow_frame's checksum then no longer verifies: the
                    // header's IP4_CSUM_OK says so.)
                    f[14] = if self.ihl6 { 0x46 } else { 0x45 };
                    f[20] = if self.fragment { 0x20 } else { 0 };
                    if self.bad_csum {
                        f[24] ^= 0x40;
                    }
                }
                // A TCP or UDP checksum, right for the header as it now is.
                if self.l4_csum {
                    set_l4_checksum(&mut f);
                }
                f
            }
            2 => arp_frame(self.seq as u8),
            _ => {
                let mut f = arp_frame(self.seq as u8);
                f[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
                f
            }
        };
        let tags: Vec<(u16, u16)> = self.tpids.iter().map(|&t| (t, 0x0abc)).collect();
        f = with_vlan_tags(&f, &tags);
        pad_to_min(&mut f);
        f
    }
}

/// Random headers behind random tags: every frame arrives intact on the
/// pipe its key hashes to (the default pipe when it has none), with the
/// FLAGS and HASH the layout's rules give.
///
/// The cases share one card with its 1,024 pipes open: opening them is
/// about 2 M simulated cycles (7 s here), a case a few thousand. Each case
/// checks what the counters did over it. A failed case may leave frames
/// behind, so the card is opened again after one, and every case proptest
/// then tries while shrinking starts on a clean card.
#[test]
fn random_headers_behind_random_tags_get_the_layouts_flags_and_hash() {
    let card = RefCell::new(open());
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 6,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    });
    let result = runner.run(&proptest::collection::vec(header(), 24..48), |headers| {
        let outcome = random_headers_case(&mut card.borrow_mut(), &headers);
        if outcome.is_err() {
            *card.borrow_mut() = open();
        }
        outcome
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

fn random_headers_case(
    (dev, pipes): &mut (Device<SimCard>, Vec<RxPipe>),
    headers: &[Header],
) -> Result<(), TestCaseError> {
    let before = dev.counters().unwrap();
    let mut exp: Expected = vec![Default::default(); PIPES];
    for h in headers {
        let f = h.frame();
        let p = model_pipe(&f);
        send(dev, &mut exp, f, p);
    }
    receive_and_check_headers(dev, pipes, &mut exp, 2_000_000, |_, f, h| {
        check_header(f, h, false)
    })
    .map_err(TestCaseError::fail)?;
    let after = dev.counters().unwrap();
    prop_assert_eq!((after.rx_frames - before.rx_frames) as usize, headers.len());
    prop_assert_eq!(after.drops() - before.drops(), 0);
    Ok(())
}
