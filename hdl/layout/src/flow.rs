//! The flow director's rules: which RX pipe a received frame goes to.
//!
//! 1. A frame that is not IPv4 or IPv6 goes to `FLOW_DEFAULT_PIPE`. The
//!    EtherType is the one past at most two VLAN tags
//!    ([`crate::frame::inner_ethertype`]), and every header offset moves by
//!    the tags' bytes; the VLAN itself is not part of the key.
//! 2. An IP frame's [`FlowKey`] (addresses, protocol, and the TCP/UDP ports
//!    when the first 64 bytes hold them) is looked up in the exact-match
//!    table, which the driver fills (`RxPipe::bind`); a hit gives the pipe.
//! 3. On a miss the frame goes to `first + (hash & (count - 1))`, where
//!    `FLOW_FALLBACK` holds `first` and `log2(count)` and `hash` is the
//!    Toeplitz hash of the key with [`RSS_KEY`], as receive-side scaling
//!    computes it (so a host's RSS tooling agrees on which flows share a pipe).
//! 4. A pipe reserved for the atomic unit's results or the link's messages
//!    (`RX_PIPE_RESERVED` in ATOMIC_RX_PIPE, LINK_RX_PIPE) never receives an
//!    Ethernet frame, whose bytes would be read as a result or a message
//!    ([`steer`]): a table entry naming it counts as a miss, and a miss
//!    whose fallback pipe is reserved goes to the next pipe of the range
//!    (`first + ((hash + k) & (count - 1))` for k = 1, then 2: with at most
//!    two reserved pipes one of three different pipes is free), or, when the
//!    range has no free pipe among those, to `FLOW_DEFAULT_PIPE`, which the
//!    card never lets be reserved. The card refuses to install an entry for a
//!    reserved pipe, so the first case only arises for an entry installed
//!    before its pipe was reserved.
//!
//! The table is 4-way and "d-left": way `w` of key `k` sits in bucket
//! `(hash(k) >> 8w) mod BUCKETS`, so a key has four candidate slots in four
//! block RAMs, read together in one cycle. The driver places each key in the
//! first free candidate; the table is full for that key when all four are taken.
//!
//! Ports are taken only where they are certain: TCP or UDP, an IPv4 header of
//! 20 bytes (no options, so the ports sit in the first 64-byte beat) and not a
//! fragment; IPv6 with TCP or UDP as the first next header and at most one
//! VLAN tag (two push the ports past byte 64). Otherwise the key
//! has ports 0, and the hash is RSS's 2-tuple (address-only) hash.

use crate::frame::{inner_ethertype, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::params::{FLOW_BUCKET_BITS, FLOW_WAYS};

/// The Toeplitz key: Microsoft's published default RSS key, which most NICs
/// and drivers use too (40 bytes: enough for an IPv6 4-tuple).
pub const RSS_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// IP protocol numbers whose ports are part of the key.
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// Bytes of a key as the registers (FLOW_KEY0..9) and the hardware hold it.
pub const KEY_BYTES: usize = 40;
/// Bytes of the key the table compares (the rest are zero).
pub const KEY_MATCH_BYTES: usize = 38;
/// Where each field sits in the key bytes.
pub const KEY_SRC: usize = 0;
pub const KEY_DST: usize = 16;
pub const KEY_SPORT: usize = 32;
pub const KEY_DPORT: usize = 34;
pub const KEY_PROTO: usize = 36;
pub const KEY_VERSION: usize = 37;

/// Slots in the exact-match table.
pub const ENTRIES: usize = FLOW_WAYS << FLOW_BUCKET_BITS;
/// Buckets per way.
pub const BUCKETS: usize = 1 << FLOW_BUCKET_BITS;

/// The Toeplitz hash of `input` with `key` (bytes in wire order, most
/// significant bit first): for every set input bit i, the 32 key bits from
/// bit i on are XORed into the result.
///
/// # Panics
/// If `key` is shorter than `input` plus 4 bytes.
pub fn toeplitz(key: &[u8], input: &[u8]) -> u32 {
    assert!(
        key.len() >= input.len() + 4,
        "Toeplitz key too short for a {}-byte input",
        input.len()
    );
    let mut result = 0u32;
    let mut window = u32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    for (i, byte) in input.iter().enumerate() {
        let next = key[i + 4];
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                result ^= window;
            }
            window = window << 1 | u32::from(next >> (7 - bit) & 1);
        }
    }
    result
}

/// What identifies a flow: the IP version, addresses, protocol and ports.
/// IPv4 addresses fill the first 4 of the 16 address bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub v6: bool,
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// An IPv4 flow.
    pub fn v4(src: [u8; 4], dst: [u8; 4], proto: u8, sport: u16, dport: u16) -> Self {
        let mut s = [0u8; 16];
        let mut d = [0u8; 16];
        s[..4].copy_from_slice(&src);
        d[..4].copy_from_slice(&dst);
        Self {
            v6: false,
            src: s,
            dst: d,
            proto,
            sport,
            dport,
        }
    }

    /// An IPv6 flow.
    pub fn v6(src: [u8; 16], dst: [u8; 16], proto: u8, sport: u16, dport: u16) -> Self {
        Self {
            v6: true,
            src,
            dst,
            proto,
            sport,
            dport,
        }
    }

    /// The key of a frame, by the rule in the module docs; `None` when it is
    /// not IPv4 or IPv6 (or too short to hold the headers the key needs).
    pub fn from_frame(frame: &[u8]) -> Option<FlowKey> {
        let b = |k: usize| frame.get(k).copied().unwrap_or(0);
        let be16 = |k: usize| u16::from_be_bytes([b(k), b(k + 1)]);
        let ports = |k: usize| (be16(k), be16(k + 2));
        // Every offset below is an untagged frame's plus the tags' bytes.
        let (ethertype, t) = inner_ethertype(frame)?;
        match ethertype {
            ETHERTYPE_IPV4 if frame.len() >= 34 + t => {
                let (ihl, proto) = (b(14 + t) & 0x0F, b(23 + t));
                let fragment = (b(20 + t) & 0x3F) != 0 || b(21 + t) != 0;
                let has_ports = (proto == PROTO_TCP || proto == PROTO_UDP) && ihl == 5 && !fragment;
                let (sport, dport) = if has_ports { ports(34 + t) } else { (0, 0) };
                let ip = |k: usize| [b(k + t), b(k + t + 1), b(k + t + 2), b(k + t + 3)];
                Some(FlowKey::v4(ip(26), ip(30), proto, sport, dport))
            }
            ETHERTYPE_IPV6 if frame.len() >= 54 + t => {
                let nh = b(20 + t);
                // Two tags push the ports past the first beat (bytes 62..66).
                let has_ports = (nh == PROTO_TCP || nh == PROTO_UDP) && 58 + t <= crate::BEAT_BYTES;
                let (sport, dport) = if has_ports { ports(54 + t) } else { (0, 0) };
                let ip = |k: usize| std::array::from_fn(|i| b(k + t + i));
                Some(FlowKey::v6(ip(22), ip(38), nh, sport, dport))
            }
            _ => None,
        }
    }

    /// The key as the FLOW_KEY registers and the hardware hold it.
    pub fn bytes(&self) -> [u8; KEY_BYTES] {
        let mut k = [0u8; KEY_BYTES];
        k[KEY_SRC..KEY_SRC + 16].copy_from_slice(&self.src);
        k[KEY_DST..KEY_DST + 16].copy_from_slice(&self.dst);
        k[KEY_SPORT..KEY_SPORT + 2].copy_from_slice(&self.sport.to_be_bytes());
        k[KEY_DPORT..KEY_DPORT + 2].copy_from_slice(&self.dport.to_be_bytes());
        k[KEY_PROTO] = self.proto;
        k[KEY_VERSION] = if self.v6 { 6 } else { 4 };
        k
    }

    /// FLOW_KEY0..9: key bytes 4k..4k+4, byte 4k in bits 7..0.
    pub fn words(&self) -> [u32; KEY_BYTES / 4] {
        let k = self.bytes();
        std::array::from_fn(|i| {
            u32::from_le_bytes([k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3]])
        })
    }

    /// The bytes RSS hashes: source address, destination address, source
    /// port, destination port (12 bytes for IPv4, 36 for IPv6).
    pub fn hash_input(&self) -> Vec<u8> {
        let n = if self.v6 { 16 } else { 4 };
        let mut v = Vec::with_capacity(2 * n + 4);
        v.extend_from_slice(&self.src[..n]);
        v.extend_from_slice(&self.dst[..n]);
        v.extend_from_slice(&self.sport.to_be_bytes());
        v.extend_from_slice(&self.dport.to_be_bytes());
        v
    }

    /// The RSS hash of the key.
    pub fn hash(&self) -> u32 {
        toeplitz(&RSS_KEY, &self.hash_input())
    }
}

/// The bucket that way `way` of a table with `buckets` buckets per way (a
/// power of two, at most 256) holds a key with hash `hash` in.
pub fn bucket(hash: u32, way: usize, buckets: usize) -> usize {
    (hash >> (8 * way)) as usize & (buckets - 1)
}

/// The table slot number (FLOW_WRITE's index) of `bucket` in `way`.
pub fn slot(way: usize, bucket: usize, buckets: usize) -> usize {
    way * buckets + bucket
}

impl std::fmt::Display for FlowKey {
    /// `udp 10.0.0.1:1234 -> 10.0.0.2:4000`, or `proto 1 [::1] -> [::2]` without ports.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::net::{Ipv4Addr, Ipv6Addr};
        let addr = |a: &[u8; 16]| -> String {
            if self.v6 {
                format!("[{}]", Ipv6Addr::from(*a))
            } else {
                Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
            }
        };
        match self.proto {
            PROTO_TCP => write!(f, "tcp ")?,
            PROTO_UDP => write!(f, "udp ")?,
            p => write!(f, "proto {p} ")?,
        }
        if self.sport == 0 && self.dport == 0 {
            write!(f, "{} -> {}", addr(&self.src), addr(&self.dst))
        } else {
            write!(
                f,
                "{}:{} -> {}:{}",
                addr(&self.src),
                self.sport,
                addr(&self.dst),
                self.dport
            )
        }
    }
}

/// The pipe a missed IP frame with `hash` goes to, given FLOW_FALLBACK's
/// first pipe and log2 of the pipe count.
pub fn fallback_pipe(hash: u32, first: usize, count_log2: u32) -> usize {
    first + (hash as usize & ((1usize << count_log2) - 1))
}

/// How many pipes of the fallback range a miss tries before the default
/// pipe: one more than the pipes that can be reserved (ATOMIC_RX_PIPE and
/// LINK_RX_PIPE).
pub const FALLBACK_TRIES: usize = 3;

/// The pipe an IP frame goes to (rule 4 over rules 2 and 3): `hit` is the
/// table's pipe for its key, if any; `reserved` the reserved pipes;
/// `default_pipe` FLOW_DEFAULT_PIPE (never reserved).
pub fn steer(
    hit: Option<usize>,
    hash: u32,
    first: usize,
    count_log2: u32,
    reserved: &[usize],
    default_pipe: usize,
) -> usize {
    match hit {
        Some(p) if !reserved.contains(&p) => p,
        _ => {
            let mask = (1usize << count_log2) - 1;
            (0..FALLBACK_TRIES)
                .map(|k| first + ((hash as usize + k) & mask))
                .find(|p| !reserved.contains(p))
                .unwrap_or(default_pipe)
        }
    }
}

/// FLOW_FALLBACK's fields.
pub const FALLBACK_COUNT_LOG2_SHIFT: u32 = 16;
/// FLOW_WRITE: bit set to install the entry, clear to remove it.
pub const WRITE_VALID: u32 = 1 << 31;

// A key's four buckets come from four different bytes of its hash.
const _: () = assert!(FLOW_WAYS * 8 <= 32 && FLOW_BUCKET_BITS <= 8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_never_picks_a_reserved_pipe() {
        // No reservation: the rules of old.
        assert_eq!(steer(Some(7), 5, 0, 10, &[], 0), 7);
        assert_eq!(
            steer(None, 0x1234_5678, 8, 4, &[], 0),
            fallback_pipe(0x1234_5678, 8, 4)
        );
        // A hit on a reserved pipe is a miss; a reserved fallback pipe gives
        // way to the next of the range, wrapping inside it.
        assert_eq!(steer(Some(1), 1, 0, 10, &[1], 0), 2);
        assert_eq!(steer(None, 1, 0, 10, &[1, 2], 0), 3);
        assert_eq!(steer(None, 7, 4, 2, &[7], 9), 4);
        assert_eq!(steer(None, 3, 4, 2, &[7, 4], 9), 5);
        // No free pipe among those tried: the default pipe.
        assert_eq!(steer(None, 0, 1, 0, &[1], 9), 9);
        assert_eq!(steer(None, 0, 2, 1, &[2, 3], 9), 9);
        for hash in 0..64u32 {
            for count_log2 in 0..4 {
                let p = steer(None, hash, 0, count_log2, &[1, 2], 5);
                assert!(p != 1 && p != 2);
            }
        }
    }

    // Microsoft's "Verifying the RSS Hash Calculation" table: (source,
    // source port, destination, destination port, 2-tuple hash, 4-tuple hash).
    type Vector = ([u8; 4], u16, [u8; 4], u16, u32, u32);
    const V4: [Vector; 5] = [
        (
            [66, 9, 149, 187],
            2794,
            [161, 142, 100, 80],
            1766,
            0x323e8fc2,
            0x51ccc178,
        ),
        (
            [199, 92, 111, 2],
            14230,
            [65, 69, 140, 83],
            4739,
            0xd718262a,
            0xc626b0ea,
        ),
        (
            [24, 19, 198, 95],
            12898,
            [12, 22, 207, 184],
            38024,
            0xd2d0a5de,
            0x5c2b394a,
        ),
        (
            [38, 27, 205, 30],
            48228,
            [209, 142, 163, 6],
            2217,
            0x82989176,
            0xafc7327f,
        ),
        (
            [153, 39, 163, 191],
            44251,
            [202, 188, 127, 2],
            1303,
            0x5d1809c5,
            0x10e828a2,
        ),
    ];

    #[test]
    fn toeplitz_matches_the_published_ipv4_vectors() {
        for (src, sport, dst, dport, h2, h4) in V4 {
            assert_eq!(
                FlowKey::v4(src, dst, PROTO_TCP, 0, 0).hash(),
                h2,
                "{src:?} -> {dst:?}"
            );
            assert_eq!(
                FlowKey::v4(src, dst, PROTO_TCP, sport, dport).hash(),
                h4,
                "{src:?} -> {dst:?}"
            );
        }
    }

    #[test]
    fn toeplitz_matches_the_published_ipv6_vector() {
        let src = [
            0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 7,
        ];
        let dst = [
            0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 1,
        ];
        assert_eq!(FlowKey::v6(src, dst, PROTO_TCP, 0, 0).hash(), 0x2cc18cd5);
        assert_eq!(
            FlowKey::v6(src, dst, PROTO_TCP, 2794, 1766).hash(),
            0x40207d3d
        );
    }

    fn udp4_frame(sport: u16, dport: u16) -> Vec<u8> {
        let mut f = vec![0u8; 64];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        f[14] = 0x45;
        f[23] = PROTO_UDP;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f[34..36].copy_from_slice(&sport.to_be_bytes());
        f[36..38].copy_from_slice(&dport.to_be_bytes());
        f
    }

    #[test]
    fn frame_keys_take_ports_only_where_they_are_certain() {
        let f = udp4_frame(1234, 4000);
        assert_eq!(
            FlowKey::from_frame(&f),
            Some(FlowKey::v4(
                [10, 0, 0, 1],
                [10, 0, 0, 2],
                PROTO_UDP,
                1234,
                4000
            ))
        );
        let mut opts = f.clone();
        opts[14] = 0x46;
        assert_eq!(
            FlowKey::from_frame(&opts).unwrap().sport,
            0,
            "IPv4 options: ports not in a fixed place"
        );
        let mut frag = f.clone();
        frag[20] = 0x20;
        assert_eq!(FlowKey::from_frame(&frag).unwrap().dport, 0, "a fragment");
        let mut icmp = f.clone();
        icmp[23] = 1;
        assert_eq!(
            FlowKey::from_frame(&icmp).unwrap().sport,
            0,
            "not TCP or UDP"
        );
        let mut arp = f;
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(FlowKey::from_frame(&arp), None);
    }

    #[test]
    fn frame_keys_look_past_vlan_tags() {
        use crate::frame::{with_vlan_tags, ETHERTYPE_QINQ, ETHERTYPE_VLAN};
        let f = udp4_frame(1234, 4000);
        let key = FlowKey::from_frame(&f);
        let one = with_vlan_tags(&f, &[(ETHERTYPE_VLAN, 7)]);
        let two = with_vlan_tags(&f, &[(ETHERTYPE_QINQ, 1), (ETHERTYPE_VLAN, 7)]);
        assert_eq!(FlowKey::from_frame(&one), key, "one tag");
        assert_eq!(FlowKey::from_frame(&two), key, "QinQ");
        let three = with_vlan_tags(&two, &[(ETHERTYPE_VLAN, 2)]);
        assert_eq!(FlowKey::from_frame(&three), None, "a third tag");

        let mut v6 = vec![0u8; 80];
        v6[12..14].copy_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
        v6[20] = PROTO_TCP;
        v6[22] = 0xfe;
        v6[54..58].copy_from_slice(&[0x12, 0x34, 0x56, 0x78]);
        let k6 = FlowKey::from_frame(&v6).unwrap();
        assert_eq!((k6.sport, k6.dport), (0x1234, 0x5678));
        let one6 = with_vlan_tags(&v6, &[(ETHERTYPE_VLAN, 3)]);
        assert_eq!(FlowKey::from_frame(&one6), Some(k6), "ports end at byte 62");
        let two6 = with_vlan_tags(&v6, &[(ETHERTYPE_VLAN, 3), (ETHERTYPE_VLAN, 4)]);
        let k = FlowKey::from_frame(&two6).unwrap();
        assert_eq!(
            (k.src, k.sport, k.dport),
            (k6.src, 0, 0),
            "ports past byte 64"
        );
    }

    #[test]
    fn words_hold_the_key_bytes_in_bus_order() {
        let k = FlowKey::v4([1, 2, 3, 4], [5, 6, 7, 8], PROTO_UDP, 0x0102, 0x0304);
        let w = k.words();
        assert_eq!(w[0], 0x0403_0201);
        assert_eq!(w[4], 0x0807_0605);
        assert_eq!(w[8], 0x0403_0201, "ports big-endian on the wire");
        assert_eq!(w[9], 0x0000_0411, "proto 17, version 4");
    }

    #[test]
    fn buckets_come_from_different_hash_bytes() {
        let h = 0x4433_2211;
        let got: Vec<usize> = (0..FLOW_WAYS).map(|w| bucket(h, w, BUCKETS)).collect();
        let want: Vec<usize> = [0x11, 0x22, 0x33, 0x44]
            .iter()
            .map(|b| b & (BUCKETS - 1))
            .collect();
        assert_eq!(got, want);
    }
}
