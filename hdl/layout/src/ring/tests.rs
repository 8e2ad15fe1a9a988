//! The header layout, the flag model on hand-built frames, and the figures
//! of the module docs' table.

use super::*;
use crate::frame::with_vlan_tags;

/// RFC 1071's checksum, written out as its section 4.1 does: add 16-bit
/// words into a 32-bit accumulator, add an odd last byte, fold, complement.
fn rfc1071(data: &[u8]) -> u16 {
    let mut acc: u32 = 0;
    let mut i = 0;
    while i + 1 < data.len() {
        acc += u32::from(data[i]) * 256 + u32::from(data[i + 1]);
        i += 2;
    }
    if i < data.len() {
        acc += u32::from(data[i]) * 256;
    }
    while acc >> 16 != 0 {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

const SRC4: [u8; 4] = [10, 0, 0, 1];
const DST4: [u8; 4] = [10, 0, 0, 2];

/// An Ethernet frame around `payload`, padded with 0xAB bytes to 60.
fn eth(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f.resize(f.len().max(60), 0xAB);
    f
}

/// A UDP (proto 17, checksum at 6) or TCP (proto 6, checksum at 16)
/// segment with `data`, its checksum field 0.
fn segment(proto: u8, data: &[u8]) -> Vec<u8> {
    let mut s = if proto == 17 {
        let len = (8 + data.len()) as u16;
        let mut h = vec![0x30, 0x39, 0x0F, 0xA0];
        h.extend_from_slice(&len.to_be_bytes());
        h.extend_from_slice(&[0, 0]);
        h
    } else {
        // Ports, sequence, ack, data offset 5, flags ACK, window, checksum, urgent.
        let mut h = vec![0x30, 0x39, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10];
        h.extend_from_slice(&[0xFF, 0xFF, 0, 0, 0, 0]);
        h
    };
    s.extend_from_slice(data);
    s
}

/// Fills the checksum field of `seg` (TCP or UDP) for `pseudo`, the
/// pseudo-header's bytes.
fn fill_l4_checksum(proto: u8, pseudo: &[u8], seg: &mut [u8]) {
    let at = if proto == 17 { 6 } else { 16 };
    let mut all = pseudo.to_vec();
    all.extend_from_slice(seg);
    let c = rfc1071(&all);
    // UDP sends a computed 0 as 0xFFFF (0 means "no checksum").
    let c = if proto == 17 && c == 0 { 0xFFFF } else { c };
    seg[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// An IPv4 header of `ihl` words (options zero) for `seg`, with
/// `frag` in bytes 6..8 and a correct header checksum.
fn ipv4_header(ihl: u8, proto: u8, frag: u16, seg_len: usize) -> Vec<u8> {
    let total = (ihl as usize * 4 + seg_len) as u16;
    let mut h = vec![0x40 | ihl, 0];
    h.extend_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&[0x12, 0x34]);
    h.extend_from_slice(&frag.to_be_bytes());
    h.extend_from_slice(&[64, proto, 0, 0]);
    h.extend_from_slice(&SRC4);
    h.extend_from_slice(&DST4);
    h.resize(ihl as usize * 4, 0);
    let c = rfc1071(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

/// An untagged IPv4 frame with a TCP or UDP segment carrying `data`, both
/// checksums correct.
fn ipv4(ihl: u8, proto: u8, frag: u16, data: &[u8]) -> Vec<u8> {
    let mut seg = segment(proto, data);
    let mut pseudo = [SRC4, DST4].concat();
    pseudo.extend_from_slice(&[0, proto]);
    pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
    fill_l4_checksum(proto, &pseudo, &mut seg);
    let mut p = ipv4_header(ihl, proto, frag, seg.len());
    p.extend_from_slice(&seg);
    eth(0x0800, &p)
}

/// An untagged IPv6 frame with a TCP or UDP segment carrying `data`, its
/// checksum correct.
fn ipv6(proto: u8, data: &[u8]) -> Vec<u8> {
    let mut seg = segment(proto, data);
    let (src, dst) = ([0x20; 16], [0x30; 16]);
    let mut pseudo = [src, dst].concat();
    pseudo.extend_from_slice(&(seg.len() as u32).to_be_bytes());
    pseudo.extend_from_slice(&[0, 0, 0, proto]);
    fill_l4_checksum(proto, &pseudo, &mut seg);
    let mut p = vec![0x60, 0, 0, 0];
    p.extend_from_slice(&(seg.len() as u16).to_be_bytes());
    p.extend_from_slice(&[proto, 64]);
    p.extend_from_slice(&src);
    p.extend_from_slice(&dst);
    p.extend_from_slice(&seg);
    eth(0x86DD, &p)
}

/// FLAGS with TAGS `tags`, L3 `l3`, L4 `l4` and the one-bit flags `bits`.
fn expect(tags: u8, l3: L3Kind, l4: L4Kind, bits: u16) -> u16 {
    flags::put(flags::TAGS, tags)
        | flags::put(flags::L3, l3 as u8)
        | flags::put(flags::L4, l4 as u8)
        | bits
}

const BOTH_OK: u16 = flags::IP4_CSUM_OK | flags::L4_CSUM_OK;

#[test]
fn header_round_trips_and_sits_where_the_fields_say() {
    let h = EntryHeader {
        len: 0x05EA,
        flags: expect(
            2,
            L3Kind::Ipv6,
            L4Kind::Udp,
            flags::L4_CSUM_OK | flags::FLOW_HIT,
        ),
        hash: 0x1234_5678,
        timestamp: 0x0102_0304_0506_0708,
    };
    let b = h.to_bytes();
    assert_eq!(b[..2], 0x05EAu16.to_le_bytes());
    assert_eq!(b[2..4], h.flags.to_le_bytes());
    assert_eq!(b[4..8], 0x1234_5678u32.to_le_bytes());
    assert_eq!(b[8..], 0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(EntryHeader::from_bytes(&b), h);
    assert_eq!((h.tags(), h.l3(), h.l4()), (2, L3Kind::Ipv6, L4Kind::Udp));
    assert!(h.l4_csum_ok() && h.flow_hit());
    assert!(!h.ip4_csum_ok() && !h.fragment());
    let all = EntryHeader::from_bytes(&[0xFF; 16]);
    assert_eq!(all.to_bytes(), [0xFF; 16]);
    assert_eq!(
        (all.tags(), all.l3(), all.l4()),
        (3, L3Kind::Arp, L4Kind::Reserved)
    );
}

#[test]
fn fields_are_whole_bytes_and_tile_the_header() {
    let mut next = 0;
    for f in [LEN, FLAGS, HASH, TIMESTAMP] {
        assert_eq!((f.lsb, f.width % 8), (next, 0));
        next += f.width;
    }
    assert_eq!(next, HEADER_BYTES * 8);
    assert_eq!(1 << UNIT_BYTES_LOG2, UNIT_BYTES);
    assert_eq!(HEADER_BYTES, UNIT_BYTES);
    // The flag bits, in order, fill the 16 bits of FLAGS once each.
    let bits = [
        flags::put(flags::TAGS, 3),
        flags::put(flags::L3, 3),
        flags::put(flags::L4, 3),
        flags::IP4_CSUM_OK,
        flags::L4_CSUM_OK,
        flags::FLOW_HIT,
        flags::FRAGMENT,
        flags::RESERVED,
    ];
    assert_eq!(bits.iter().fold(0u16, |a, b| a ^ b), 0xFFFF);
    assert_eq!(bits.iter().map(|b| b.count_ones()).sum::<u32>(), 16);
}

#[test]
fn entry_units_count_the_header_and_whole_units() {
    let cases = [
        (0, 1),
        (1, 2),
        (2, 2),
        (15, 2),
        (16, 2),
        (17, 3),
        (64, 5),
        (1518, 96),
        (9728, 609),
    ];
    for (len, units) in cases {
        assert_eq!(entry_units(len), units, "len {len}");
        assert_eq!(entry_bytes(len), units * 16, "len {len}");
    }
}

#[test]
fn ipv4_udp_checksums_verify_and_each_fails_alone() {
    // 46 bytes padded to 60: the padding is not summed.
    let f = ipv4(5, 17, 0, b"ping");
    assert_eq!(f.len(), 60);
    let ok = expect(0, L3Kind::Ipv4, L4Kind::Udp, BOTH_OK);
    assert_eq!(rx_flags(&f, false), ok);
    assert_eq!(rx_flags(&f, true), ok | flags::FLOW_HIT);
    // TTL is in the IP header, not in the pseudo-header.
    let mut bad_ip = f.clone();
    bad_ip[14 + 8] ^= 1;
    assert_eq!(rx_flags(&bad_ip, false), ok & !flags::IP4_CSUM_OK);
    let mut bad_data = f.clone();
    bad_data[14 + 20 + 8] ^= 0x40;
    assert_eq!(rx_flags(&bad_data, false), ok & !flags::L4_CSUM_OK);
    // A checksum of 0: "none", so not verified.
    let mut none = f.clone();
    none[14 + 20 + 6..14 + 20 + 8].fill(0);
    assert_eq!(rx_flags(&none, false), ok & !flags::L4_CSUM_OK);
    // A segment whose computed checksum is 0, sent as 0xFFFF: it verifies,
    // and 0 in its place would verify too but means "none".
    // Two data bytes holding the checksum of the rest make the sum of all
    // 0xFFFF (ones' complement: x + !x), so the computed checksum is 0.
    let mut data = *b"ping\0\0";
    let first = ipv4(5, 17, 0, &data);
    data[4..6].copy_from_slice(&first[14 + 26..14 + 28]);
    let zero_sum = ipv4(5, 17, 0, &data);
    assert_eq!(zero_sum[14 + 26..14 + 28], [0xFF, 0xFF]);
    assert_eq!(rx_flags(&zero_sum, false), ok);
    let mut none = zero_sum.clone();
    none[14 + 26..14 + 28].fill(0);
    assert_eq!(rx_flags(&none, false), ok & !flags::L4_CSUM_OK);
    // Options (IHL 6) move the segment; the checksums still verify.
    let opts = ipv4(6, 17, 0, b"0123456789");
    assert_eq!(rx_flags(&opts, false), ok);
    // A TCP segment over IPv4.
    let tcp = ipv4(5, 6, 0, b"hello, world");
    assert_eq!(
        rx_flags(&tcp, false),
        expect(0, L3Kind::Ipv4, L4Kind::Tcp, BOTH_OK)
    );
}

#[test]
fn ipv6_tcp_checksum_verifies() {
    let f = ipv6(6, b"some TCP payload, odd length");
    let ok = expect(0, L3Kind::Ipv6, L4Kind::Tcp, flags::L4_CSUM_OK);
    assert_eq!(rx_flags(&f, false), ok);
    // Bytes past the payload length of a frame longer than a beat: not
    // verified (the first-beat rules); of a one-beat frame: ignored.
    let padded = [&f[..], &[1, 2, 3]].concat();
    assert_eq!(rx_flags(&padded, false), ok & !flags::L4_CSUM_OK);
    let short = ipv6(6, b"");
    assert_eq!(short.len(), 74);
    let short = ipv6(17, b"");
    assert_eq!(short.len(), 62);
    let padded = [&short[..], &[1, 2]].concat();
    let udp_ok = expect(0, L3Kind::Ipv6, L4Kind::Udp, flags::L4_CSUM_OK);
    assert_eq!(rx_flags(&short, false), udp_ok);
    assert_eq!(rx_flags(&padded, false), udp_ok);
    let mut bad = f.clone();
    bad[14 + 8] ^= 1; // the source address is in the pseudo-header
    assert_eq!(rx_flags(&bad, false), ok & !flags::L4_CSUM_OK);
    let udp = ipv6(17, b"x");
    assert_eq!(
        rx_flags(&udp, false),
        expect(0, L3Kind::Ipv6, L4Kind::Udp, flags::L4_CSUM_OK)
    );
}

#[test]
fn ipv4_fragments_have_no_l4() {
    let frag = expect(0, L3Kind::Ipv4, L4Kind::Other, flags::IP4_CSUM_OK);
    let first = ipv4(5, 17, 0x2000, b"more to come"); // MF
    assert_eq!(rx_flags(&first, false), frag | flags::FRAGMENT);
    let later = ipv4(5, 17, 0x0010, b"offset 128"); // offset 16 x 8 bytes
    assert_eq!(rx_flags(&later, false), frag | flags::FRAGMENT);
    let df = ipv4(5, 17, 0x4000, b"don't fragment"); // DF alone
    assert_eq!(
        rx_flags(&df, false),
        expect(0, L3Kind::Ipv4, L4Kind::Udp, BOTH_OK)
    );
}

#[test]
fn other_ethertypes_have_only_l3() {
    let arp = eth(0x0806, &[0; 28]);
    assert_eq!(
        rx_flags(&arp, false),
        expect(0, L3Kind::Arp, L4Kind::Other, 0)
    );
    let lldp = eth(0x88CC, &[0x02, 0x07, 0x04]);
    assert_eq!(rx_flags(&lldp, true), flags::FLOW_HIT);
    assert_eq!(rx_flags(&lldp[..13], true), flags::FLOW_HIT);
}

#[test]
fn vlan_tags_are_counted_and_looked_past() {
    let frames = [ipv4(5, 17, 0, b"v4"), ipv6(6, b"v6"), eth(0x0806, &[0; 28])];
    for f in &frames {
        let untagged = rx_flags(f, false);
        for (n, tags) in [&[(0x8100, 7)][..], &[(0x88A8, 1), (0x8100, 2)]]
            .iter()
            .enumerate()
        {
            let t = with_vlan_tags(f, tags);
            assert_eq!(
                rx_flags(&t, false),
                untagged | flags::put(flags::TAGS, n as u8 + 1)
            );
        }
        let three = with_vlan_tags(f, &[(0x88A8, 1), (0x8100, 2), (0x8100, 3)]);
        assert_eq!(rx_flags(&three, false), flags::put(flags::TAGS, 3));
    }
}

#[test]
fn truncated_frames_clear_what_they_cannot_show() {
    let f = ipv4(5, 17, 0, b"a payload that the frame cuts short");
    // Inside the fixed IP header: L3 only.
    let l3_only = expect(0, L3Kind::Ipv4, L4Kind::Other, 0);
    assert_eq!(rx_flags(&f[..14 + 12], false), l3_only);
    assert_eq!(rx_flags(&f[..14 + 19], false), l3_only);
    // Inside the segment: the IP header verifies, the total length says
    // more than the frame has.
    assert_eq!(
        rx_flags(&f[..f.len() - 1], false),
        expect(0, L3Kind::Ipv4, L4Kind::Udp, flags::IP4_CSUM_OK)
    );
    let v6 = ipv6(6, b"cut");
    assert_eq!(
        rx_flags(&v6[..v6.len() - 1], false),
        expect(0, L3Kind::Ipv6, L4Kind::Tcp, 0)
    );
    assert_eq!(
        rx_flags(&v6[..14 + 39], false),
        expect(0, L3Kind::Ipv6, L4Kind::Other, 0)
    );
}

#[test]
fn malformed_lengths_clear_the_checksum_flags() {
    // IHL 4: a 16-byte "header" whose sum verifies does not count, nor
    // does a segment after it whose sum verifies (L4 is still the
    // protocol's). The last two bytes make the segment's sum verify, with
    // the pseudo-header read where a 20-byte header has it (so the
    // "destination" is the segment's first 4 bytes).
    let mut seg = segment(17, b"data\0\0");
    seg[6..8].copy_from_slice(&[0x12, 0x34]);
    let pseudo = [&SRC4[..], &seg[..4], &[0, 17, 0, seg.len() as u8]].concat();
    let c = rfc1071(&[&pseudo[..], &seg].concat());
    seg[12..14].copy_from_slice(&c.to_be_bytes());
    let short_ihl = eth(0x0800, &[ipv4_header(4, 17, 0, seg.len()), seg].concat());
    assert_eq!(
        rx_flags(&short_ihl, false),
        expect(0, L3Kind::Ipv4, L4Kind::Udp, 0)
    );
    // An 8-byte "TCP segment" whose sum verifies: shorter than a TCP header.
    let mut seg = vec![1, 2, 3, 4, 5, 6, 0, 0];
    let pseudo = [&SRC4[..], &DST4, &[0, 6, 0, 8]].concat();
    let c = rfc1071(&[&pseudo[..], &seg].concat());
    seg[6..8].copy_from_slice(&c.to_be_bytes());
    let short_tcp = eth(0x0800, &[ipv4_header(5, 6, 0, seg.len()), seg].concat());
    assert_eq!(
        rx_flags(&short_tcp, false),
        expect(0, L3Kind::Ipv4, L4Kind::Tcp, flags::IP4_CSUM_OK)
    );
    // A total length shorter than the header.
    let mut h = ipv4_header(5, 17, 0, 0);
    h[2..4].copy_from_slice(&10u16.to_be_bytes());
    h[10..12].fill(0);
    let c = rfc1071(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    assert_eq!(
        rx_flags(&eth(0x0800, &h), false),
        expect(0, L3Kind::Ipv4, L4Kind::Udp, flags::IP4_CSUM_OK)
    );
}

#[test]
fn rx_header_carries_length_hash_and_timestamp() {
    let f = ipv4(5, 17, 0, b"hash me");
    let h = rx_header(&f, true, 77);
    let key = crate::flow::FlowKey::from_frame(&f).unwrap();
    assert_eq!(h.len as usize, f.len());
    assert_eq!(h.hash, key.hash());
    assert_ne!(h.hash, 0);
    assert_eq!(h.flags, rx_flags(&f, true));
    assert_eq!(h.timestamp, 77);
    assert_eq!(rx_header(&eth(0x88CC, &[]), false, 0).hash, 0);
}

/// The module docs' table, recomputed: the PCIe model's bound for
/// `roundup(H + len, G)` bytes per frame, and the line rate.
#[test]
fn the_docs_table_is_what_the_model_says() {
    let sizes = [64u64, 65, 72, 100, 128];
    let rows: [((u64, u64), [u64; 5]); 4] = [
        ((0, 64), [225, 113, 113, 113, 113]),
        ((16, 16), [180, 150, 150, 113, 100]),
        ((16, 8), [180, 164, 164, 120, 100]),
        ((8, 8), [200, 180, 180, 129, 106]),
    ];
    let line = [149u64, 147, 136, 104, 84];
    // Mpps rounded to the nearest: num / den, halves up.
    let round = |num: u64, den: u64| (2 * num + den) / (2 * den);
    for ((h, g), mpps) in rows {
        for (len, want) in sizes.iter().zip(mpps) {
            let bytes = (h + len).div_ceil(g) * g;
            // 63 B/cycle x 250 MHz, of which 256 in every 256 + 24 carry data.
            let got = round(63 * 250 * 256, bytes * (256 + 24));
            assert_eq!(got, want, "H {h} G {g} len {len}");
            if (h, g) == (16, 16) {
                // Exactly, not rounded: 16/16 is at or above line rate.
                assert!(
                    63 * 250 * 256 * (len + 20) >= 12_500 * bytes * 280,
                    "len {len}"
                );
            }
        }
    }
    for (len, want) in sizes.iter().zip(line) {
        assert_eq!(round(100_000, 8 * (len + 20)), want, "line rate at {len}");
    }
}

proptest::proptest! {
    /// Any TCP or UDP segment over IPv4 or IPv6, behind 0 to 2 tags, that
    /// the helpers above checksum with RFC 1071 verifies in the model (odd
    /// lengths, carries, every payload byte).
    #[test]
    fn checksummed_frames_verify(
        data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        tcp in proptest::prelude::any::<bool>(),
        v6 in proptest::prelude::any::<bool>(),
        tags in 0usize..=2,
    ) {
        let proto = if tcp { 6 } else { 17 };
        let f = if v6 { ipv6(proto, &data) } else { ipv4(5, proto, 0, &data) };
        let f = with_vlan_tags(&f, &[(0x8100, 5); 2][..tags]);
        let (l3, ip4) = if v6 {
            (L3Kind::Ipv6, 0)
        } else {
            (L3Kind::Ipv4, flags::IP4_CSUM_OK)
        };
        let l4 = if tcp { L4Kind::Tcp } else { L4Kind::Udp };
        // The first-beat rules: UDP over IPv6 behind a tag has its checksum
        // field past the first beat; a short frame padded to 60 bytes and
        // then tagged has bytes past its datagram, which count only when
        // the datagram ends in the first beat.
        let l4_header = if tcp { 20 } else { 8 };
        let dgram_end = 14 + 4 * tags + if v6 { 40 } else { 20 } + l4_header + data.len();
        let past_ok = dgram_end <= 64 || dgram_end == f.len();
        let l4_ok = if (v6 && !tcp && tags > 0) || !past_ok {
            0
        } else {
            flags::L4_CSUM_OK
        };
        let want = expect(tags as u8, l3, l4, ip4 | l4_ok);
        proptest::prop_assert_eq!(rx_flags(&f, false), want);
    }
}

#[test]
fn the_ipv4_header_is_checked_only_within_the_first_beat() {
    // Untagged, IHL 12 ends at byte 62: checked. IHL 13 ends at byte 66.
    let ok = |f: &[u8]| rx_flags(f, false) & flags::IP4_CSUM_OK != 0;
    assert!(ok(&ipv4(12, 17, 0, b"payload")));
    assert!(!ok(&ipv4(13, 17, 0, b"payload")));
    assert!(!ok(&ipv4(15, 17, 0, b"payload")));
    // Two tags move the header 8 bytes on: IHL 10 ends at byte 62.
    let tagged = |ihl: u8| {
        let f = ipv4(ihl, 17, 0, b"payload");
        crate::frame::with_vlan_tags(&f, &[(0x88A8, 1), (0x8100, 2)])
    };
    assert!(ok(&tagged(10)));
    assert!(!ok(&tagged(11)));
    // The other bits do not depend on it, but for L4_CSUM_OK: with IHL 15
    // the segment starts at byte 74, past the first beat (the first-beat
    // rules), and with IHL 11 its UDP checksum field ends at byte 66.
    let f = ipv4(15, 17, 0, b"payload");
    assert_eq!(
        rx_flags(&f, false) | flags::IP4_CSUM_OK,
        expect(0, L3Kind::Ipv4, L4Kind::Udp, flags::IP4_CSUM_OK)
    );
    let l4_ok = |f: &[u8]| rx_flags(f, false) & flags::L4_CSUM_OK != 0;
    assert!(l4_ok(&ipv4(10, 17, 0, b"payload")));
    assert!(!l4_ok(&ipv4(11, 17, 0, b"payload")));
    assert!(l4_ok(&ipv4(12, 6, 0, b"payload, TCP")));
    // A trailer past the datagram of a frame longer than a beat.
    let long = ipv4(5, 17, 0, &[7; 40]);
    assert!(l4_ok(&long) && long.len() > 64);
    assert!(!l4_ok(&[&long[..], &[0; 4]].concat()));
}
