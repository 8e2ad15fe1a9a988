//! The RX/TX data-ring format, version 2: a 16-byte header per frame.
//!
//! Version 1 (today's, [`crate::frame`]) places frames back to back at
//! 64-byte granularity with no descriptor, so software finds where a frame
//! ends by parsing its IP header, and the NIC must drop every frame whose
//! length its headers do not state. Version 2 puts a header in front of
//! every frame instead.
//!
//! **Layout.** A ring is a power-of-two number of 16-byte *units*
//! ([`UNIT_BYTES`]); ring positions (head, tail) count units. Each *entry*
//! is a 16-byte header ([`EntryHeader`]) followed by the frame's bytes,
//! padded to a whole unit, so it takes [`entry_units`]`(len) = 1 +
//! ceil(len / 16)` units. Entries are back to back, and an entry may wrap
//! around the ring's end: its bytes continue at unit 0. A header never
//! straddles the end, since it is one whole unit.
//!
//! **Header**, 16 bytes, little-endian (bit 0 is bit 0 of byte 0):
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0..2 | [`LEN`] | the frame's bytes, FCS excluded: 1 to `MAX_FRAME_BYTES` |
//! | 2..4 | [`FLAGS`] | what the NIC found in the frame ([`flags`], [`rx_flags`]) |
//! | 4..8 | [`HASH`] | the RSS (Toeplitz) hash of the frame's flow key ([`crate::flow`]), 0 when it has none |
//! | 8..16 | [`TIMESTAMP`] | RX: the NIC's free-running cycle counter at the frame's first beat |
//!
//! LEN is the MAC's length of the frame, not one its headers state: the
//! board's RX clock crossing is store-and-forward, so the length is known
//! when the frame's first beat reaches the RX engine, in time to write the
//! header in front of the frame. Because the header delimits the frame, any
//! EtherType is carried (LLDP, PTP, a third VLAN tag, raw data) and neither
//! the NIC nor software parses IP to find a frame's end. The header also
//! carries what software wants per frame and would otherwise compute: the
//! flow hash, the checksum status and a timestamp.
//!
//! On TX software writes the same entries; the NIC reads LEN to delimit the
//! frame and one FLAGS bit, [`tx_flags::STAMP`] (a bit RX leaves 0), and
//! ignores the rest of FLAGS, HASH and TIMESTAMP, so an entry received can
//! be sent back as it is: a zero-copy echo points a TX ring at an RX ring's
//! memory.
//!
//! **Why 16 bytes at 16-byte granularity.** A ring entry costs
//! `roundup(H + len, G)` bytes of PCIe for a header of H bytes at a
//! granularity of G bytes. With the project's PCIe model (Gen3 x16: 63 bytes
//! per cycle, 24 bytes per TLP, so streaming writes in 256-byte TLPs cost
//! 9.4 % overhead), the frame rate it bounds at 250 MHz is, in Mpps:
//!
//! | H, G | 64 B | 65 B | 72 B | 100 B | 128 B |
//! |---|---|---|---|---|---|
//! | v1 (0, 64) | 225 | 113 | 113 | 113 | 113 |
//! | 16, 16 | 180 | 150 | 150 | 113 | 100 |
//! | 16, 8 | 180 | 164 | 164 | 120 | 100 |
//! | 8, 8 | 200 | 180 | 180 | 129 | 106 |
//! | 100 GbE line rate | 149 | 147 | 136 | 104 | 84 |
//!
//! (The line rate counts the frame plus 20 bytes of preamble and
//! inter-frame gap, as the project's benches do; with the 4-byte FCS
//! counted too it is lower still, so the comparison is conservative. The
//! test `the_docs_table_is_what_the_model_says` recomputes every figure.)
//!
//! 16/16 keeps every size at or above line rate, and the hardware needs only
//! a 4:1 realigner: a frame starts at one of the 4 units of a 64-byte beat.
//! 8-byte granularity gives more margin at 65 B but needs an 8:1 realigner;
//! an 8-byte header would hold the length, the flags and the hash but not
//! the timestamp.
//!
//! A pure model of a ring for tests and software models writes entries
//! ([`write_entry`]) and walks them back ([`entries`]).

pub mod readme;
mod walk;

pub use crate::notif::Field;
pub use walk::{entries, write_entry, Entries, Entry, RingError};

use crate::flow::{FlowKey, PROTO_TCP, PROTO_UDP};
use crate::frame::{
    inner_ethertype, is_vlan_tpid, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETH_HEADER_BYTES,
    IPV4_HEADER_BYTES, IPV6_HEADER_BYTES, VLAN_TAG_BYTES,
};
use crate::params::MAX_FRAME_BYTES;

/// Bytes of a ring unit: the granularity of entries and ring positions.
pub const UNIT_BYTES: usize = 16;
/// log2 of [`UNIT_BYTES`].
pub const UNIT_BYTES_LOG2: u32 = 4;
/// Bytes of an entry header: one unit.
pub const HEADER_BYTES: usize = 16;

/// Header field: the frame's bytes (FCS excluded), u16 at byte 0.
pub const LEN: Field = Field { lsb: 0, width: 16 };
/// Header field: the [`flags`], u16 at byte 2.
pub const FLAGS: Field = Field { lsb: 16, width: 16 };
/// Header field: the RSS hash of the frame's flow key, 0 without one; u32
/// at byte 4.
pub const HASH: Field = Field { lsb: 32, width: 32 };
/// Header field: RX, the NIC's cycle counter at the frame's first beat;
/// TX, ignored by the NIC. u64 at byte 8.
pub const TIMESTAMP: Field = Field { lsb: 64, width: 64 };

/// Units an entry for a frame of `len` bytes takes: the header's one and
/// the frame's, padded to a whole unit.
pub const fn entry_units(len: u32) -> u32 {
    1 + len.div_ceil(UNIT_BYTES as u32)
}

/// Bytes an entry for a frame of `len` bytes takes, padding included.
pub const fn entry_bytes(len: u32) -> u32 {
    entry_units(len) << UNIT_BYTES_LOG2
}

/// The bits of the FLAGS field, numbered from bit 0 of FLAGS (bit 16 of the
/// header). The two-bit fields are [`Field`]s of the FLAGS value; the
/// one-bit flags are masks.
pub mod flags {
    use super::Field;

    /// VLAN tags looked past: 0, 1 or 2; 3 means a third tag, where the
    /// EtherType rule gives up ([`crate::frame::inner_ethertype`]).
    pub const TAGS: Field = Field { lsb: 0, width: 2 };
    /// The network layer: a [`super::L3Kind`] code.
    pub const L3: Field = Field { lsb: 2, width: 2 };
    /// The transport layer: a [`super::L4Kind`] code.
    pub const L4: Field = Field { lsb: 4, width: 2 };
    /// The IPv4 header checksum verifies.
    pub const IP4_CSUM_OK: u16 = 1 << 6;
    /// The TCP or UDP checksum verifies.
    pub const L4_CSUM_OK: u16 = 1 << 7;
    /// The flow director matched a bound entry (an input to the header,
    /// not derived from the frame).
    pub const FLOW_HIT: u16 = 1 << 8;
    /// An IPv4 fragment: MF set or a non-zero fragment offset.
    pub const FRAGMENT: u16 = 1 << 9;
    /// Bits 10..16: reserved, always 0.
    pub const RESERVED: u16 = 0xFC00;
    /// The bits this version of the NIC sets (what [`super::rx_flags`]
    /// gives, masked with this, is what it writes): all but the reserved
    /// ones.
    pub const NIC_FLAGS: u16 = !RESERVED;

    /// The value of a two-bit field in a FLAGS value.
    pub const fn get(flags: u16, f: Field) -> u8 {
        ((flags >> f.lsb) & ((1 << f.width) - 1)) as u8
    }

    /// `v` placed in field `f` of a FLAGS value (bits of `v` past the
    /// field's width are dropped).
    pub const fn put(f: Field, v: u8) -> u16 {
        (v as u16 & ((1 << f.width) - 1)) << f.lsb
    }
}

/// The FLAGS bits the NIC reads on TX. RX never sets them (they are
/// [`flags::RESERVED`] there), so an RX entry sent back as it is asks for
/// nothing.
pub mod tx_flags {
    /// Ask for a TX stamp of this frame ([`crate::tx_stamp`]): the cycle its
    /// first beat leaves for the MAC. Honoured on a pipe whose TX_CTRL has
    /// [`crate::pipe::TX_CTRL_STAMPS`], ignored elsewhere.
    pub const STAMP: u16 = 1 << 15;
    // A bit RX reserves.
    const _: () = assert!(STAMP & super::flags::RESERVED == STAMP);
}

/// The network layer of a frame (the L3 code in FLAGS): the EtherType past
/// the VLAN tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum L3Kind {
    /// Any other EtherType (LLDP, PTP, ...), a third VLAN tag, or a frame
    /// too short to hold its EtherType.
    Other = 0,
    Ipv4 = 1,
    Ipv6 = 2,
    Arp = 3,
}

/// The transport layer of a frame (the L4 code in FLAGS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum L4Kind {
    /// Not IP, an IPv4 fragment, or an IP protocol other than TCP and UDP.
    Other = 0,
    Tcp = 1,
    Udp = 2,
    /// Code 3: never set by the NIC.
    Reserved = 3,
}

impl L3Kind {
    /// The kind with FLAGS code `code` (its two low bits).
    pub const fn from_code(code: u8) -> Self {
        match code & 3 {
            0 => Self::Other,
            1 => Self::Ipv4,
            2 => Self::Ipv6,
            _ => Self::Arp,
        }
    }
}

impl L4Kind {
    /// The kind with FLAGS code `code` (its two low bits).
    pub const fn from_code(code: u8) -> Self {
        match code & 3 {
            0 => Self::Other,
            1 => Self::Tcp,
            2 => Self::Udp,
            _ => Self::Reserved,
        }
    }

    /// The kind of IP protocol (or IPv6 next header) number `proto`.
    const fn of_proto(proto: u8) -> Self {
        match proto {
            PROTO_TCP => Self::Tcp,
            PROTO_UDP => Self::Udp,
            _ => Self::Other,
        }
    }
}

/// An entry header, field by field (see the module docs for the layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EntryHeader {
    /// The frame's bytes, FCS excluded.
    pub len: u16,
    /// The [`flags`].
    pub flags: u16,
    /// The RSS hash of the frame's flow key, 0 without one.
    pub hash: u32,
    /// RX: the NIC's cycle counter at the frame's first beat.
    pub timestamp: u64,
}

impl EntryHeader {
    /// The header's 16 bytes, as the ring holds them.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let mut rec = [0u8; HEADER_BYTES];
        LEN.write(&mut rec, self.len.into());
        FLAGS.write(&mut rec, self.flags.into());
        HASH.write(&mut rec, self.hash.into());
        TIMESTAMP.write(&mut rec, self.timestamp);
        rec
    }

    /// The header held in 16 ring bytes.
    pub fn from_bytes(rec: &[u8; HEADER_BYTES]) -> Self {
        Self {
            len: LEN.read(rec) as u16,
            flags: FLAGS.read(rec) as u16,
            hash: HASH.read(rec) as u32,
            timestamp: TIMESTAMP.read(rec),
        }
    }

    /// VLAN tags looked past: 0, 1, 2, or 3 for a third tag.
    pub fn tags(&self) -> u8 {
        flags::get(self.flags, flags::TAGS)
    }

    /// The network layer.
    pub fn l3(&self) -> L3Kind {
        L3Kind::from_code(flags::get(self.flags, flags::L3))
    }

    /// The transport layer.
    pub fn l4(&self) -> L4Kind {
        L4Kind::from_code(flags::get(self.flags, flags::L4))
    }

    /// Whether the IPv4 header checksum verifies.
    pub fn ip4_csum_ok(&self) -> bool {
        self.flags & flags::IP4_CSUM_OK != 0
    }

    /// Whether the TCP or UDP checksum verifies.
    pub fn l4_csum_ok(&self) -> bool {
        self.flags & flags::L4_CSUM_OK != 0
    }

    /// Whether the flow director matched a bound entry.
    pub fn flow_hit(&self) -> bool {
        self.flags & flags::FLOW_HIT != 0
    }

    /// Whether the frame is an IPv4 fragment.
    pub fn fragment(&self) -> bool {
        self.flags & flags::FRAGMENT != 0
    }
}

/// The FLAGS the NIC writes for a received `frame` (FCS excluded); the
/// reference the hardware is checked against. `flow_hit` is the flow
/// director's answer, which the frame alone does not tell.
///
/// Offsets below are from the start of the IP header, at byte 14 + 4 x
/// (tags looked past); 16-bit fields are big-endian, as on the wire. A
/// *sum* is the ones'-complement sum of 16-bit big-endian words (RFC 1071:
/// add, fold the carries back in until 16 bits remain; an odd last byte is
/// the high byte of a word whose low byte is 0); it *verifies* when it is
/// 0xFFFF.
///
/// - FLOW_HIT: `flow_hit`.
/// - When the frame is too short to hold the EtherType past its tags
///   ([`inner_ethertype`] gives `None`), every other bit is 0.
/// - TAGS: the VLAN tags (TPID 0x8100 or 0x88A8) before the EtherType, 0 to
///   2; 3 when a third tag follows two (the EtherType rule gives up).
/// - L3: by the EtherType past the tags: 0x0800 IPv4, 0x86DD IPv6, 0x0806
///   ARP, anything else (and a third tag) other. Only IPv4 and IPv6 set
///   more bits.
/// - IPv4 sets the bits below only when the frame holds the 20-byte fixed
///   header; a shorter one has only TAGS and L3 (and FLOW_HIT). IHL is the
///   low nibble of byte 0, in 4-byte words.
///   - IP4_CSUM_OK: IHL >= 5, the IHL x 4 header bytes are inside the
///     frame and inside its first 64 bytes (the NIC checks the header on
///     the frame's first beat: with options behind VLAN tags a header can
///     end past it, and then software checks it), and their sum verifies.
///     Independent of the other bits.
///   - FRAGMENT: MF (byte 6, bit 0x20) is set or the fragment offset (the
///     low 13 bits of bytes 6..8) is not 0. A fragment has L4 other and
///     L4_CSUM_OK clear, whatever its protocol.
///   - L4: otherwise by the protocol (byte 9): 6 TCP, 17 UDP, else other.
///   - L4_CSUM_OK, for TCP or UDP: IHL >= 5; the total length (bytes 2..4)
///     is at most the frame's bytes from the IP header on; the L4 bytes,
///     from IHL x 4 to the total length, hold at least the TCP (20) or UDP
///     (8) header; a UDP checksum field (L4 bytes 6..8) is not 0 (0 means
///     "no checksum"); the two *first-beat rules* below hold; and the sum
///     of the pseudo-header (source and destination address, a zero byte,
///     the protocol, the L4 length) and the L4 bytes verifies. UDP's own
///     length field is not consulted.
/// - IPv6 sets the bits below only when the frame holds the 40-byte fixed
///   header. No extension header is walked; IPv6 never sets FRAGMENT or
///   IP4_CSUM_OK.
///   - L4: by the Next Header (byte 6): 6 TCP, 17 UDP, else other.
///   - L4_CSUM_OK, for TCP or UDP: 40 + the payload length (bytes 4..6) is
///     at most the frame's bytes from the IP header on; the L4 bytes, from
///     40 to 40 + payload length, hold at least the TCP or UDP header; a
///     UDP checksum field is not 0 (a zero UDP checksum is invalid over
///     IPv6, RFC 8200 8.1); and the sum of the pseudo-header (source and
///     destination address, the payload length as a 32-bit upper-layer
///     length, three zero bytes, the next header) and the L4 bytes verifies;
///     and the two first-beat rules hold.
/// - The *first-beat rules* of L4_CSUM_OK. The NIC sums the whole frame as
///   it arrives and takes away, on the frame's first beat (its first 64
///   bytes), what is not the L4 bytes; so (a) the L4 bytes start within
///   the first beat, and for UDP its checksum field (L4 bytes 6..8) ends
///   within it: with long IPv4 options, or UDP over IPv6 behind a tag,
///   software checks the sum; and (b) the IP datagram ends within the
///   first beat (bytes past its end, Ethernet padding, are ignored) or at
///   the frame's end: a frame longer than a beat with bytes past its
///   datagram (a trailer) is not verified.
/// - L4 code 3 and bits 10..16 are never set.
pub fn rx_flags(frame: &[u8], flow_hit: bool) -> u16 {
    let hit = if flow_hit { flags::FLOW_HIT } else { 0 };
    let Some((ethertype, t)) = inner_ethertype(frame) else {
        return hit;
    };
    // inner_ethertype returns a TPID only for a third tag.
    let tags = if is_vlan_tpid(ethertype) {
        3
    } else {
        (t / VLAN_TAG_BYTES) as u8
    };
    let l3 = match ethertype {
        ETHERTYPE_IPV4 => L3Kind::Ipv4,
        ETHERTYPE_IPV6 => L3Kind::Ipv6,
        ETHERTYPE_ARP => L3Kind::Arp,
        _ => L3Kind::Other,
    };
    let ip = &frame[ETH_HEADER_BYTES as usize + t..];
    let ip_bits = match l3 {
        L3Kind::Ipv4 => ipv4_flags(ip, crate::BEAT_BYTES - (ETH_HEADER_BYTES as usize + t)),
        L3Kind::Ipv6 => ipv6_flags(ip, crate::BEAT_BYTES - (ETH_HEADER_BYTES as usize + t)),
        _ => 0,
    };
    hit | flags::put(flags::TAGS, tags) | flags::put(flags::L3, l3 as u8) | ip_bits
}

/// The header the NIC writes for a received `frame`: its length, the flags
/// of [`rx_flags`], the flow key's hash, and `timestamp` (the cycle counter
/// at its first beat).
///
/// # Panics
/// If `frame` is empty or longer than `MAX_FRAME_BYTES`: the NIC gives such
/// a frame no entry.
pub fn rx_header(frame: &[u8], flow_hit: bool, timestamp: u64) -> EntryHeader {
    assert!(
        !frame.is_empty() && frame.len() <= MAX_FRAME_BYTES as usize,
        "a frame of {} bytes has no entry",
        frame.len()
    );
    EntryHeader {
        len: frame.len() as u16,
        flags: rx_flags(frame, flow_hit),
        hash: FlowKey::from_frame(frame).map_or(0, |k| k.hash()),
        timestamp,
    }
}

/// The IPv4 bits of [`rx_flags`]; `ip` is the frame from the IP header on;
/// `in_beat` is how many of its bytes the frame's first beat holds.
fn ipv4_flags(ip: &[u8], in_beat: usize) -> u16 {
    if ip.len() < IPV4_HEADER_BYTES as usize {
        return 0;
    }
    let ihl = (ip[0] & 0x0F) as usize * 4;
    let mut f = 0;
    let fixed = IPV4_HEADER_BYTES as usize;
    if ihl >= fixed && ihl <= ip.len() && ihl <= in_beat && verifies(sum(&ip[..ihl])) {
        f |= flags::IP4_CSUM_OK;
    }
    if ip[6] & 0x20 != 0 || be16(ip, 6) & 0x1FFF != 0 {
        return f | flags::FRAGMENT;
    }
    let l4 = L4Kind::of_proto(ip[9]);
    f |= flags::put(flags::L4, l4 as u8);
    let total = be16(ip, 2) as usize;
    if l4 != L4Kind::Other && ihl >= fixed && ihl <= total && total <= ip.len() {
        let seg = &ip[ihl..total];
        let pseudo = sum(&ip[12..20]) + u64::from(ip[9]) + seg.len() as u64;
        if first_beat_rules(l4, ip, ihl, total, in_beat) && l4_verifies(l4, pseudo, seg) {
            f |= flags::L4_CSUM_OK;
        }
    }
    f
}

/// The IPv6 bits of [`rx_flags`]; `ip` is the frame from the IP header on.
/// `in_beat` is how many of its bytes the frame's first beat holds.
fn ipv6_flags(ip: &[u8], in_beat: usize) -> u16 {
    if ip.len() < IPV6_HEADER_BYTES as usize {
        return 0;
    }
    let l4 = L4Kind::of_proto(ip[6]);
    let mut f = flags::put(flags::L4, l4 as u8);
    let end = 40 + be16(ip, 4) as usize;
    if l4 != L4Kind::Other && end <= ip.len() {
        let seg = &ip[40..end];
        let pseudo = sum(&ip[8..40]) + seg.len() as u64 + u64::from(ip[6]);
        if first_beat_rules(l4, ip, 40, end, in_beat) && l4_verifies(l4, pseudo, seg) {
            f |= flags::L4_CSUM_OK;
        }
    }
    f
}

/// The first-beat rules of L4_CSUM_OK ([`rx_flags`]), for L4 bytes
/// `ip[start..end]`, where the first beat holds `ip[..in_beat]`.
fn first_beat_rules(l4: L4Kind, ip: &[u8], start: usize, end: usize, in_beat: usize) -> bool {
    let head = if l4 == L4Kind::Udp { 8 } else { 0 };
    start + head <= in_beat && (end <= in_beat || end == ip.len())
}

/// Whether a TCP or UDP segment's checksum verifies, given the unfolded sum
/// of its pseudo-header: the segment holds the whole TCP or UDP header, a
/// UDP checksum is not 0, and the total sum verifies.
fn l4_verifies(l4: L4Kind, pseudo: u64, seg: &[u8]) -> bool {
    let (header, udp) = match l4 {
        L4Kind::Tcp => (20, false),
        _ => (8, true),
    };
    seg.len() >= header && !(udp && be16(seg, 6) == 0) && verifies(pseudo + sum(seg))
}

/// The big-endian u16 at `at`.
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The sum of `b` as big-endian 16-bit words (an odd last byte padded with
/// a zero byte), carries not yet folded. Ring frames are at most
/// `MAX_FRAME_BYTES`, far from overflowing.
fn sum(b: &[u8]) -> u64 {
    b.chunks(2)
        .map(|w| u64::from(w[0]) << 8 | u64::from(*w.get(1).unwrap_or(&0)))
        .sum()
}

/// Whether a sum, its carries folded back in, is 0xFFFF.
fn verifies(mut s: u64) -> bool {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s == 0xFFFF
}

#[cfg(test)]
mod tests;
