//! TCP and UDP checksums on the Verilated NIC (issue #26): each RX entry's
//! L4_CSUM_OK is the layout's rule (`pendulum_layout::ring::rx_flags`,
//! with its first-beat rules) for TCP and UDP over IPv4 and IPv6, behind
//! 0 to 2 tags, from 60-byte padded frames to jumbo ones: right checksums,
//! one damaged bit, a UDP checksum of 0 on a segment whose sum verifies
//! anyway, a trailer past the datagram, and a padded frame tagged after
//! its padding. The hardware sums the whole frame as it arrives
//! (`stream::FrameSum`) and takes away the first beat's other bytes
//! (`enso::RxL4Check`); the model sums the segment.

use super::flow::send;
use super::frame_kinds::{check_header, model_pipe, open};
use pendulum_driver::FlowKey;
use pendulum_layout::flow::{PROTO_TCP, PROTO_UDP};
use pendulum_layout::frame::{with_vlan_tags, ETHERTYPE_QINQ, ETHERTYPE_VLAN};
use pendulum_layout::params::{MAX_FRAME_BYTES, PIPES};
use pendulum_layout::ring::{flags, rx_flags};
use pendulum_testbench::models::{flow_frame, pad_to_min, set_l4_checksum};
use pendulum_testbench::rx_check::{receive_and_check_headers, Expected};

/// How a frame's checksum is spoiled, if at all.
#[derive(Clone, Copy, Debug)]
enum Spoil {
    None,
    /// One bit of the payload flipped.
    Bit,
    /// The UDP checksum moved into the first data word, the field left 0
    /// ("no checksum"): the sum verifies, the rule says not verified.
    ZeroUdp,
    /// Four bytes past the datagram's end.
    Trailer,
    /// Padded to 60 bytes, then tagged (a switch tags a short frame).
    TagAfterPad,
}

/// A frame of `len` bytes (before tags) carrying `proto` over IPv4 or
/// IPv6, its checksum right, then spoiled as `spoil` says, behind `tags`.
fn frame(v6: bool, proto: u8, len: usize, tags: usize, spoil: Spoil, seq: u64) -> Vec<u8> {
    let k = if v6 {
        FlowKey::v6([seq as u8; 16], [3; 16], proto, 1000, 2000)
    } else {
        FlowKey::v4([10, 1, 0, seq as u8], [10, 1, 0, 99], proto, 1000, 2000)
    };
    let mut f = flow_frame(&k, seq, len);
    assert!(set_l4_checksum(&mut f), "no checksum to fill");
    let l4 = 14 + if v6 { 40 } else { 20 };
    match spoil {
        Spoil::None | Spoil::TagAfterPad => {}
        Spoil::Bit => {
            let at = l4 + 8 + (seq as usize * 7) % (len - l4 - 8);
            f[at] ^= 1 << (seq % 8);
        }
        Spoil::ZeroUdp => {
            let at = l4 + 8;
            let c = u32::from(u16::from_be_bytes([f[l4 + 6], f[l4 + 7]]));
            let w = u32::from(u16::from_be_bytes([f[at], f[at + 1]])) + c;
            let w = ((w & 0xFFFF) + (w >> 16)) as u16;
            f[at..at + 2].copy_from_slice(&w.to_be_bytes());
            f[l4 + 6..l4 + 8].fill(0);
        }
        Spoil::Trailer => f.extend_from_slice(&[0xEE; 4]),
    }
    if let Spoil::TagAfterPad = spoil {
        pad_to_min(&mut f);
    }
    let stack = [(ETHERTYPE_QINQ, 0x0123), (ETHERTYPE_VLAN, 0x0456)];
    with_vlan_tags(&f, &stack[..tags])
}

/// Every combination the module comment names, in one list.
fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut seq = 0;
    for v6 in [false, true] {
        for proto in [PROTO_TCP, PROTO_UDP] {
            let least = 14 + if v6 { 40 } else { 20 } + if proto == PROTO_TCP { 20 } else { 8 } + 8;
            for len in [least, 64, 100, 300, 1518, MAX_FRAME_BYTES as usize - 12] {
                let len = len.max(least);
                for tags in 0..3 {
                    for spoil in [
                        Spoil::None,
                        Spoil::Bit,
                        Spoil::ZeroUdp,
                        Spoil::Trailer,
                        Spoil::TagAfterPad,
                    ] {
                        if matches!(spoil, Spoil::ZeroUdp) && proto != PROTO_UDP {
                            continue;
                        }
                        seq += 1;
                        out.push(frame(v6, proto, len, tags, spoil, seq));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn l4_checksum_flags_are_the_layouts_for_every_kind_of_segment() {
    let frames = frames();
    let ok = frames
        .iter()
        .filter(|f| {
            let mut w = f.to_vec();
            pad_to_min(&mut w);
            rx_flags(&w, false) & flags::L4_CSUM_OK != 0
        })
        .count();
    // The list holds both answers, and both kinds of each.
    assert!(
        ok > frames.len() / 3 && ok < frames.len() * 2 / 3,
        "{ok} of {} verify in the model",
        frames.len()
    );
    let (mut dev, mut pipes) = open();
    let mut exp: Expected = vec![Default::default(); PIPES];
    let mut flagged = 0;
    for f in &frames {
        let p = model_pipe(f);
        send(&mut dev, &mut exp, f.clone(), p);
    }
    let rep = receive_and_check_headers(&mut dev, &mut pipes, &mut exp, 20_000_000, |_, f, h| {
        if h.l4_csum_ok() {
            flagged += 1;
        }
        check_header(f, h, false)
    })
    .unwrap();
    assert_eq!(rep.frames as usize, frames.len());
    assert_eq!(flagged, ok, "entries with L4_CSUM_OK");
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames as usize, c.drops()), (frames.len(), 0));
}
