//! Frame kinds on the Verilated NIC (issue #26): VLAN-tagged frames (one
//! 802.1Q tag, QinQ) cross RX and TX byte for byte, mixed with untagged
//! ones; the flow director looks past the tags; a frame the rule cannot
//! delimit (a third tag, an EtherType without a length) is dropped alone
//! and counted.
//!
//! Where a frame should land, and whether it is delimited at all, comes
//! from `pendulum_layout` (`FlowKey::from_frame`, `frame_len_from_header`),
//! which the hardware implements separately in Verilog.

use super::flow::{random_key, send};
use pendulum_driver::{Card, Device, Error, FlowKey, RxPipe};
use pendulum_layout::flow::{fallback_pipe, PROTO_TCP, PROTO_UDP};
use pendulum_layout::frame::{
    frame_len_from_header, with_vlan_tags, ETHERTYPE_ARP, ETHERTYPE_QINQ, ETHERTYPE_VLAN,
};
use pendulum_layout::params::{PIPES, PIPE_BITS};
use pendulum_testbench::models::{flow_frame, pad_to_min};
use pendulum_testbench::rx_check::{receive_and_check, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

/// The default pipe for frames that are not IP (`set_default_pipe`).
const DEFAULT_PIPE: usize = 3;

fn open() -> (Device<SimCard>, Vec<RxPipe>) {
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

/// The pipe the layout's rules give a frame on a card with an empty flow
/// table, the default fallback (every pipe) and [`DEFAULT_PIPE`].
fn model_pipe(frame: &[u8]) -> usize {
    match FlowKey::from_frame(frame) {
        Some(k) => fallback_pipe(k.hash(), 0, PIPE_BITS as u32),
        None => DEFAULT_PIPE,
    }
}

#[test]
fn vlan_tagged_frames_arrive_intact_on_the_pipe_of_their_inner_flow() {
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
        let f = with_vlan_tags(&frame, &tags);
        if i % 4 == 0 {
            assert_eq!(FlowKey::from_frame(&f), Some(bound), "frame {i}");
        }
        send(&mut dev, &mut exp, f, pipe);
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 5_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops()), (400, 0));
    assert_eq!(
        c.flow_hits, 100,
        "every frame of the bound flow, tagged or not"
    );
    assert!(tagged > 300);
}

#[test]
fn a_frame_the_rule_cannot_delimit_is_dropped_alone_on_rx() {
    let (mut dev, mut pipes) = open();
    let mut exp: Expected = vec![Default::default(); PIPES];
    let k = FlowKey::v4([10, 2, 0, 1], [10, 2, 0, 2], PROTO_TCP, 80, 8080);
    let three_tags = with_vlan_tags(
        &flow_frame(&k, 1, 200),
        &[
            (ETHERTYPE_QINQ, 1),
            (ETHERTYPE_VLAN, 2),
            (ETHERTYPE_VLAN, 3),
        ],
    );
    let mut lldp_in_vlan = with_vlan_tags(&arp_frame(9), &[(ETHERTYPE_VLAN, 4)]);
    lldp_in_vlan[16..18].copy_from_slice(&0x88CCu16.to_be_bytes());
    for bad in [&three_tags, &lldp_in_vlan] {
        assert_eq!(frame_len_from_header(bad), None);
    }
    for seq in 0..20u64 {
        let good = with_vlan_tags(&flow_frame(&k, seq, 100), &tag_stack(seq as usize));
        let p = model_pipe(&good);
        dev.card_mut().sim.eth.push(three_tags.clone());
        send(&mut dev, &mut exp, good, p);
        dev.card_mut().sim.eth.push(lldp_in_vlan.clone());
    }
    receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
    let c = dev.counters().unwrap();
    assert_eq!(
        (c.rx_frames, c.drop_malformed, c.drop_ring_full),
        (20, 40, 0)
    );
}

#[test]
fn vlan_tagged_frames_leave_byte_for_byte_mixed_with_untagged_ones() {
    use rand::SeedableRng;
    let (mut dev, _) = open();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
    let frames: Vec<Vec<u8>> = (0..300usize)
        .map(|i| {
            let f = if i % 7 == 3 {
                arp_frame(i as u8)
            } else {
                let len = rand::Rng::gen_range(&mut rng, 80..=1500);
                flow_frame(&random_key(&mut rng), i as u64, len)
            };
            let mut f = with_vlan_tags(&f, &tag_stack(i));
            pad_to_min(&mut f);
            f
        })
        .collect();
    let mut next = 0;
    let mut polls = 0;
    while next < frames.len() {
        let batch: Vec<&[u8]> = frames[next..].iter().take(16).map(|f| &f[..]).collect();
        next += tx.send(&mut dev, &batch).expect("send");
        polls += 1;
        assert!(polls < 100_000, "TX ring never drained");
        dev.card_mut().relax();
    }
    assert!(tx.wait_idle(&mut dev, 1_000_000), "TX did not finish");
    assert!(dev.card_mut().sim.drain(100_000));
    let out = dev.card_mut().sim.eth_tx.take_frames();
    assert_eq!(out.len(), frames.len(), "every frame left");
    for (i, (got, want)) in out.iter().zip(&frames).enumerate() {
        // A padded tagged ARP leaves as its header states it (46 or 50
        // bytes) and the MAC pads it again; compare what the header covers.
        let n = frame_len_from_header(want).unwrap() as usize;
        assert_eq!(&got[..n], &want[..n], "frame {i} altered");
    }
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 0);
}

/// A random frame header: IPv4 or IPv6 (random protocol, IHL, fragment
/// bits) or ARP or a custom EtherType, behind 0..=3 tags of random TPIDs.
#[derive(Clone, Debug)]
struct Header {
    kind: u8,
    v6: bool,
    proto: u8,
    ihl6: bool,
    fragment: bool,
    tpids: Vec<u16>,
    len: usize,
    seq: u64,
}

fn header() -> impl Strategy<Value = Header> {
    let tpid = prop_oneof![Just(ETHERTYPE_VLAN), Just(ETHERTYPE_QINQ), Just(0x9100u16)];
    (
        0u8..4,
        any::<bool>(),
        prop_oneof![Just(PROTO_TCP), Just(PROTO_UDP), Just(1u8), Just(47u8)],
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(tpid, 0..=3),
        100usize..600,
        any::<u64>(),
    )
        .prop_map(
            |(kind, v6, proto, ihl6, fragment, tpids, len, seq)| Header {
                kind,
                v6,
                proto,
                ihl6,
                fragment,
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
                    f[14] = if self.ihl6 { 0x46 } else { 0x45 };
                    f[20] = if self.fragment { 0x20 } else { 0 };
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
        f
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    /// Steering and delimiting of random headers behind random tags agree
    /// with the layout's rules: each frame the rule delimits arrives intact
    /// on the pipe its key hashes to (the default pipe when it has none);
    /// every other one is one malformed drop.
    #[test]
    fn random_headers_behind_random_tags_follow_the_layouts_rules(
        headers in proptest::collection::vec(header(), 24..48)
    ) {
        let (mut dev, mut pipes) = open();
        let mut exp: Expected = vec![Default::default(); PIPES];
        let mut dropped = 0;
        for h in &headers {
            let f = h.frame();
            if frame_len_from_header(&f).is_some() {
                let p = model_pipe(&f);
                send(&mut dev, &mut exp, f, p);
            } else {
                dropped += 1;
                let mut wire = f;
                pad_to_min(&mut wire);
                dev.card_mut().sim.eth.push(wire);
            }
        }
        receive_and_check(&mut dev, &mut pipes, &mut exp, 2_000_000).unwrap();
        // Frames behind the last good one may still be on their way.
        assert!(dev.card_mut().sim.drain(10_000));
        let c = dev.counters().unwrap();
        prop_assert_eq!(c.rx_frames as usize, headers.len() - dropped);
        prop_assert_eq!(c.drop_malformed as usize, dropped);
        prop_assert_eq!(c.drops() as usize, dropped);
    }
}
