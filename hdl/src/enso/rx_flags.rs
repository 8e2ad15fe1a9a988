use super::RxL4Check;
use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource, ZeroExtend};
use crate::word_sum::WordSum;
use pendulum_layout::frame::{
    ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_QINQ, ETHERTYPE_VLAN,
    ETH_HEADER_BYTES, IPV4_HEADER_BYTES, IPV6_HEADER_BYTES, VLAN_TAG_BYTES,
};
use pendulum_layout::ring::flags;
use pendulum_layout::BEAT_BYTES;
use rust_hdl::prelude::*;

/// Words of the IPv4 header window: bytes 14..64 of an untagged frame.
const WORDS: usize = 25;

/// A frame's first beat from its EtherType on (bytes 12..64: the MAC
/// addresses are no flag's business), the frame's length (the MAC's), and
/// the sum of its bytes from byte 12 on (`stream::FrameSum`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct FirstBeat {
    pub data: Bits<416>,
    pub len: Bits<16>,
    pub sum: Bits<32>,
}

/// RX flags parser: the FLAGS field of a frame's ring header
/// (`pendulum_layout::ring::rx_flags`) from its first beat: the VLAN tags,
/// L3 and L4 kinds, an IPv4 fragment, whether the IPv4 header checksum
/// verifies, and whether the TCP or UDP checksum does (`RxL4Check`, a stage
/// beside this one's, from the frame's sum). `FLOW_HIT` is not its to set
/// (the flow director's).
///
/// The IPv4 header is summed as little-endian 16-bit words: a ones'
/// complement sum commutes with swapping the bytes of every word, and
/// 0xFFFF is its own swap. The header's words (up to 25, as many as the
/// beat holds past the tags) are chosen by the tag count and masked by IHL
/// in the first stage, summed five at a time in the second, then in full in
/// the third, and folded and compared in the fourth.
///
/// Latency 8 cycles (the L4 check's; the other bits wait for it in
/// stages 5 to 8); 1 beat/cycle; all stages move together, held while `m`
/// is not taken.
#[derive(LogicBlock)]
pub struct RxFlagsParser {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// First beats only.
    pub s: StreamSink<FirstBeat>,
    /// Their FLAGS, in order.
    pub m: StreamSource<Bits<16>>,

    data: Signal<Local, Bits<416>>,
    len: Signal<Local, Bits<16>>,
    advance: Signal<Local, Bit>,
    // ---- Stage 1: tags, kinds, the header's words ----
    tpid0: Signal<Local, Bit>,
    tpid1: Signal<Local, Bit>,
    tpid2: Signal<Local, Bit>,
    // How far the frame reaches: the EtherTypes at 12, 16 and 20, and an
    // IPv4 (20-byte) or IPv6 (40-byte) header past 0, 1 or 2 tags.
    has14: Signal<Local, Bit>,
    has18: Signal<Local, Bit>,
    has22: Signal<Local, Bit>,
    // Tags looked past (0..2), a third tag, and whether the EtherType was read.
    tags: Signal<Local, Bits<2>>,
    third: Signal<Local, Bit>,
    known: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    ip4_room: Signal<Local, Bit>,
    ip6_room: Signal<Local, Bit>,
    ihl: Signal<Local, Bits<4>>,
    proto: Signal<Local, Bits<8>>,
    next_header: Signal<Local, Bits<8>>,
    mf: Signal<Local, Bit>,
    frag_off: Signal<Local, Bit>,
    // IHL x 4 within the beat (within the frame: stage 2).
    hdr_in_beat: Signal<Local, Bit>,
    ihl16: ZeroExtend<4, 16>,
    // Where the IP header starts (14 + 4 x tags) and where IHL says it ends.
    ip_at: Signal<Local, Bits<16>>,
    hdr_end: Signal<Local, Bits<16>>,
    flags1: Signal<Local, Bits<16>>,
    l3: Signal<Local, Bits<2>>,
    l4: Signal<Local, Bits<2>>,
    frag: Signal<Local, Bit>,
    w_t0: [Signal<Local, Bits<16>>; WORDS],
    w_t1: [Signal<Local, Bits<16>>; 23],
    w_t2: [Signal<Local, Bits<16>>; 21],
    s1_valid: SDFF<Bit>,
    s1_flags: SDFF<Bits<16>>,
    s1_check: SDFF<Bit>,
    // Where IHL says the header ends, and the frame's length: compared in
    // stage 2, not behind stage 1's tag and IHL choice.
    s1_hdr_end: SDFF<Bits<16>>,
    s1_len: SDFF<Bits<16>>,
    s1_w: [SDFF<Bits<16>>; WORDS],
    // ---- Stage 2: five sums of five words ----
    s2_valid: SDFF<Bit>,
    s2_flags: SDFF<Bits<16>>,
    s2_check: SDFF<Bit>,
    s2_part: [SDFF<Bits<19>>; 5],
    // (Five fields, not an array: hdl_gen cannot index an array port of a
    // child in an array.)
    sum_a: WordSum<5, 16, 19>,
    sum_b: WordSum<5, 16, 19>,
    sum_c: WordSum<5, 16, 19>,
    sum_d: WordSum<5, 16, 19>,
    sum_e: WordSum<5, 16, 19>,
    sum_all: WordSum<5, 19, 22>,
    // ---- Stage 3: the sum ----
    s3_valid: SDFF<Bit>,
    s3_flags: SDFF<Bits<16>>,
    s3_check: SDFF<Bit>,
    s3_sum: SDFF<Bits<22>>,
    // ---- Stage 4: folded and compared ----
    fold1: Signal<Local, Bits<22>>,
    fold2: Signal<Local, Bits<22>>,
    s4_valid: SDFF<Bit>,
    s4_flags: SDFF<Bits<16>>,
    // ---- Stages 5 to 8: the L4 checksum ----
    l4_check: RxL4Check,
    s5_valid: SDFF<Bit>,
    s5_flags: SDFF<Bits<16>>,
    s6_valid: SDFF<Bit>,
    s6_flags: SDFF<Bits<16>>,
    s7_valid: SDFF<Bit>,
    s7_flags: SDFF<Bits<16>>,
    s8_valid: SDFF<Bit>,
    s8_flags: SDFF<Bits<16>>,
    l4_ok: Constant<Bits<16>>,

    tpid_vlan: Constant<Bits<16>>,
    tpid_qinq: Constant<Bits<16>>,
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_arp: Constant<Bits<16>>,
    // By the tags looked past (0, 1, 2): where the IP header starts, where
    // an IPv4 and an IPv6 fixed header end, and the most IHL whose header
    // ends within the beat. (The EtherType's end is where the IP header
    // starts: the frame holds the EtherType past t tags when it reaches it.)
    ip_start: [Constant<Bits<16>>; 3],
    v4_end: [Constant<Bits<16>>; 3],
    v6_end: [Constant<Bits<16>>; 3],
    ihl_max: [Constant<Bits<4>>; 3],
    ihl_min: Constant<Bits<4>>,
    // k / 2 for word k: the word is in the header when IHL is above it.
    half_word: [Constant<Bits<4>>; WORDS],
    bit: [Constant<Bits<16>>; 6],
    proto_tcp: Constant<Bits<8>>,
    proto_udp: Constant<Bits<8>>,
    t0: Constant<Bits<2>>,
    t1: Constant<Bits<2>>,
    t2: Constant<Bits<2>>,
    l4_tcp: Constant<Bits<2>>,
    l4_udp: Constant<Bits<2>>,
    zero2: Constant<Bits<2>>,
    zero5: Constant<Bits<5>>,
    zero16: Constant<Bits<16>>,
    zero8: Constant<Bits<8>>,
    l3_v4: Constant<Bits<2>>,
    l3_v6: Constant<Bits<2>>,
    l3_arp: Constant<Bits<2>>,
    ones16: Constant<Bits<22>>,
    ip4_ok: Constant<Bits<16>>,
    frag_bit: Constant<Bits<16>>,
}

/// Where the IP header starts past `tags` VLAN tags.
pub(super) fn ip_at(tags: usize) -> u64 {
    (ETH_HEADER_BYTES as usize + tags * VLAN_TAG_BYTES) as u64
}

/// A 16-bit EtherType as the beat holds it (byte 0 first, in bits 7..0).
fn wire16(v: u16) -> Constant<Bits<16>> {
    Constant::new((v.swap_bytes() as u64).into())
}

impl RxFlagsParser {
    pub fn new() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            data: Default::default(),
            len: Default::default(),
            advance: Default::default(),
            tpid0: Default::default(),
            tpid1: Default::default(),
            tpid2: Default::default(),
            has14: Default::default(),
            has18: Default::default(),
            has22: Default::default(),
            tags: Default::default(),
            third: Default::default(),
            known: Default::default(),
            ethertype: Default::default(),
            ip4_room: Default::default(),
            ip6_room: Default::default(),
            ihl: Default::default(),
            proto: Default::default(),
            next_header: Default::default(),
            mf: Default::default(),
            frag_off: Default::default(),
            hdr_in_beat: Default::default(),
            ihl16: Default::default(),
            ip_at: Default::default(),
            hdr_end: Default::default(),
            flags1: Default::default(),
            l3: Default::default(),
            l4: Default::default(),
            frag: Default::default(),
            w_t0: std::array::from_fn(|_| Default::default()),
            w_t1: std::array::from_fn(|_| Default::default()),
            w_t2: std::array::from_fn(|_| Default::default()),
            s1_valid: Default::default(),
            s1_flags: Default::default(),
            s1_check: Default::default(),
            s1_hdr_end: Default::default(),
            s1_len: Default::default(),
            s1_w: std::array::from_fn(|_| Default::default()),
            s2_valid: Default::default(),
            s2_flags: Default::default(),
            s2_check: Default::default(),
            s2_part: Default::default(),
            sum_a: Default::default(),
            sum_b: Default::default(),
            sum_c: Default::default(),
            sum_d: Default::default(),
            sum_e: Default::default(),
            sum_all: Default::default(),
            s3_valid: Default::default(),
            s3_flags: Default::default(),
            s3_check: Default::default(),
            s3_sum: Default::default(),
            fold1: Default::default(),
            fold2: Default::default(),
            s4_valid: Default::default(),
            s4_flags: Default::default(),
            l4_check: RxL4Check::new(),
            s5_valid: Default::default(),
            s5_flags: Default::default(),
            s6_valid: Default::default(),
            s6_flags: Default::default(),
            s7_valid: Default::default(),
            s7_flags: Default::default(),
            s8_valid: Default::default(),
            s8_flags: Default::default(),
            l4_ok: Constant::new((flags::L4_CSUM_OK as u64).into()),
            tpid_vlan: wire16(ETHERTYPE_VLAN),
            tpid_qinq: wire16(ETHERTYPE_QINQ),
            et_ipv4: wire16(ETHERTYPE_IPV4),
            et_ipv6: wire16(ETHERTYPE_IPV6),
            et_arp: wire16(ETHERTYPE_ARP),
            ip_start: std::array::from_fn(|t| c16(ip_at(t))),
            v4_end: std::array::from_fn(|t| c16(ip_at(t) + IPV4_HEADER_BYTES as u64)),
            v6_end: std::array::from_fn(|t| c16(ip_at(t) + IPV6_HEADER_BYTES as u64)),
            ihl_max: std::array::from_fn(|t| {
                Constant::new(((BEAT_BYTES as u64 - ip_at(t)) / 4).into())
            }),
            ihl_min: Constant::new(5u64.into()),
            half_word: std::array::from_fn(|k| Constant::new(((k / 2) as u64).into())),
            bit: std::array::from_fn(|k| Constant::new((1u64 << k).into())),
            proto_tcp: Constant::new((pendulum_layout::flow::PROTO_TCP as u64).into()),
            proto_udp: Constant::new((pendulum_layout::flow::PROTO_UDP as u64).into()),
            t0: Constant::new(0u64.into()),
            t1: Constant::new(1u64.into()),
            t2: Constant::new(2u64.into()),
            l4_tcp: Constant::new((pendulum_layout::ring::L4Kind::Tcp as u64).into()),
            l4_udp: Constant::new((pendulum_layout::ring::L4Kind::Udp as u64).into()),
            zero2: Constant::new(0u64.into()),
            zero5: Constant::new(0u64.into()),
            zero16: Constant::new(0u64.into()),
            zero8: Constant::new(0u64.into()),
            l3_v4: Constant::new((pendulum_layout::ring::L3Kind::Ipv4 as u64).into()),
            l3_v6: Constant::new((pendulum_layout::ring::L3Kind::Ipv6 as u64).into()),
            l3_arp: Constant::new((pendulum_layout::ring::L3Kind::Arp as u64).into()),
            ones16: Constant::new(0xFFFFu64.into()),
            ip4_ok: Constant::new((flags::IP4_CSUM_OK as u64).into()),
            frag_bit: Constant::new((flags::FRAGMENT as u64).into()),
        }
    }
}

impl Default for RxFlagsParser {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxFlagsParser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_flags, s1_check, s1_hdr_end, s1_len, s2_valid, s2_flags,
            s2_check, s3_valid, s3_flags, s3_check, s3_sum, s4_valid, s4_flags, s5_valid, s5_flags,
            s6_valid, s6_flags, s7_valid, s7_flags, s8_valid, s8_flags
        );
        self.s5_valid.reset.next = self.reset.val();
        self.s5_flags.reset.next = self.reset.val();
        self.s6_valid.reset.next = self.reset.val();
        self.s6_flags.reset.next = self.reset.val();
        self.s7_valid.reset.next = self.reset.val();
        self.s7_flags.reset.next = self.reset.val();
        self.s8_valid.reset.next = self.reset.val();
        self.s8_flags.reset.next = self.reset.val();
        self.l4_check.clock.next = self.clock.val();
        self.l4_check.reset.next = self.reset.val();
        self.s1_valid.reset.next = self.reset.val();
        self.s1_flags.reset.next = self.reset.val();
        self.s1_check.reset.next = self.reset.val();
        self.s1_hdr_end.reset.next = self.reset.val();
        self.s1_len.reset.next = self.reset.val();
        self.s2_valid.reset.next = self.reset.val();
        self.s2_flags.reset.next = self.reset.val();
        self.s2_check.reset.next = self.reset.val();
        self.s3_valid.reset.next = self.reset.val();
        self.s3_flags.reset.next = self.reset.val();
        self.s3_check.reset.next = self.reset.val();
        self.s3_sum.reset.next = self.reset.val();
        self.s4_valid.reset.next = self.reset.val();
        self.s4_flags.reset.next = self.reset.val();
        for k in 0..WORDS {
            self.s1_w[k].clock.next = self.clock.val();
            self.s1_w[k].reset.next = self.reset.val();
            self.s1_w[k].d.next = self.s1_w[k].q.val();
        }
        for k in 0..5 {
            self.s2_part[k].clock.next = self.clock.val();
            self.s2_part[k].reset.next = self.reset.val();
            self.s2_part[k].d.next = self.s2_part[k].q.val();
        }

        // All stages move together, unless the output waits.
        self.advance.next = !self.s8_valid.q.val() | self.m.ready.val();
        self.s.ready.next = self.advance.val();
        self.data.next = self.s.data.val().data;
        self.len.next = self.s.data.val().len;

        // ---- Stage 1 ----
        self.tpid0.next = (self.data.val().get_bits::<16>(0) == self.tpid_vlan.val())
            | (self.data.val().get_bits::<16>(0) == self.tpid_qinq.val());
        self.tpid1.next = (self.data.val().get_bits::<16>(32) == self.tpid_vlan.val())
            | (self.data.val().get_bits::<16>(32) == self.tpid_qinq.val());
        self.tpid2.next = (self.data.val().get_bits::<16>(64) == self.tpid_vlan.val())
            | (self.data.val().get_bits::<16>(64) == self.tpid_qinq.val());
        self.has14.next = self.len.val() >= self.ip_start[0].val();
        self.has18.next = self.len.val() >= self.ip_start[1].val();
        self.has22.next = self.len.val() >= self.ip_start[2].val();
        // The EtherType past the tags (`frame::inner_ethertype`), and what
        // of the IP header the frame holds.
        self.tags.next = self.t0.val();
        self.third.next = false;
        self.known.next = self.has14.val();
        self.ethertype.next = self.data.val().get_bits::<16>(0);
        self.ip4_room.next = self.len.val() >= self.v4_end[0].val();
        self.ip6_room.next = self.len.val() >= self.v6_end[0].val();
        self.ihl.next = self.data.val().get_bits::<4>(16);
        self.proto.next = self.data.val().get_bits::<8>(88);
        self.next_header.next = self.data.val().get_bits::<8>(64);
        self.mf.next = self.data.val().get_bit(69);
        self.frag_off.next = (self.data.val().get_bits::<5>(64) != self.zero5.val())
            | (self.data.val().get_bits::<8>(72) != self.zero8.val());
        self.hdr_in_beat.next = self.data.val().get_bits::<4>(16) <= self.ihl_max[0].val();
        self.ip_at.next = self.ip_start[0].val();
        if self.tpid0.val() {
            self.ip_at.next = self.ip_start[1].val();
            self.tags.next = self.t1.val();
            self.known.next = self.has18.val();
            self.ethertype.next = self.data.val().get_bits::<16>(32);
            self.ip4_room.next = self.len.val() >= self.v4_end[1].val();
            self.ip6_room.next = self.len.val() >= self.v6_end[1].val();
            self.ihl.next = self.data.val().get_bits::<4>(48);
            self.proto.next = self.data.val().get_bits::<8>(120);
            self.next_header.next = self.data.val().get_bits::<8>(96);
            self.mf.next = self.data.val().get_bit(101);
            self.frag_off.next = (self.data.val().get_bits::<5>(96) != self.zero5.val())
                | (self.data.val().get_bits::<8>(104) != self.zero8.val());
            self.hdr_in_beat.next = self.data.val().get_bits::<4>(48) <= self.ihl_max[1].val();
            if self.tpid1.val() {
                self.ip_at.next = self.ip_start[2].val();
                self.tags.next = self.t2.val();
                self.known.next = self.has22.val();
                self.ethertype.next = self.data.val().get_bits::<16>(64);
                self.third.next = self.tpid2.val();
                self.ip4_room.next = self.len.val() >= self.v4_end[2].val();
                self.ip6_room.next = self.len.val() >= self.v6_end[2].val();
                self.ihl.next = self.data.val().get_bits::<4>(80);
                self.proto.next = self.data.val().get_bits::<8>(152);
                self.next_header.next = self.data.val().get_bits::<8>(128);
                self.mf.next = self.data.val().get_bit(133);
                self.frag_off.next = (self.data.val().get_bits::<5>(128) != self.zero5.val())
                    | (self.data.val().get_bits::<8>(136) != self.zero8.val());
                self.hdr_in_beat.next = self.data.val().get_bits::<4>(80) <= self.ihl_max[2].val();
            }
        }
        // IHL x 4 bytes from the IP header on, within the frame.
        self.ihl16.i.next = self.ihl.val();
        self.hdr_end.next = self.ip_at.val() + (self.ihl16.o.val() << 2);
        self.l3.next = self.zero2.val();
        if !self.third.val() {
            if self.ethertype.val() == self.et_ipv4.val() {
                self.l3.next = self.l3_v4.val();
            } else if self.ethertype.val() == self.et_ipv6.val() {
                self.l3.next = self.l3_v6.val();
            } else if self.ethertype.val() == self.et_arp.val() {
                self.l3.next = self.l3_arp.val();
            }
        }
        self.frag.next = (self.l3.val() == self.l3_v4.val())
            & self.ip4_room.val()
            & (self.mf.val() | self.frag_off.val());
        self.l4.next = self.zero2.val();
        if (self.l3.val() == self.l3_v4.val()) & self.ip4_room.val() & !self.frag.val() {
            if self.proto.val() == self.proto_tcp.val() {
                self.l4.next = self.l4_tcp.val();
            } else if self.proto.val() == self.proto_udp.val() {
                self.l4.next = self.l4_udp.val();
            }
        }
        if (self.l3.val() == self.l3_v6.val()) & self.ip6_room.val() {
            if self.next_header.val() == self.proto_tcp.val() {
                self.l4.next = self.l4_tcp.val();
            } else if self.next_header.val() == self.proto_udp.val() {
                self.l4.next = self.l4_udp.val();
            }
        }
        // TAGS (bits 0..2), L3 (2..4), L4 (4..6), FRAGMENT: a third tag has
        // TAGS 3 and L3 other; a fragment L4 other.
        self.flags1.next = self.zero16.val();
        if self.tags.val().get_bit(0) | self.third.val() {
            self.flags1.next = self.flags1.val() | self.bit[0].val();
        }
        if self.tags.val().get_bit(1) | self.third.val() {
            self.flags1.next = self.flags1.val() | self.bit[1].val();
        }
        if self.l3.val().get_bit(0) {
            self.flags1.next = self.flags1.val() | self.bit[2].val();
        }
        if self.l3.val().get_bit(1) {
            self.flags1.next = self.flags1.val() | self.bit[3].val();
        }
        if self.l4.val().get_bit(0) {
            self.flags1.next = self.flags1.val() | self.bit[4].val();
        }
        if self.l4.val().get_bit(1) {
            self.flags1.next = self.flags1.val() | self.bit[5].val();
        }
        if self.frag.val() {
            self.flags1.next = self.flags1.val() | self.frag_bit.val();
        }
        // The header's words: those below 2 x IHL (word k where IHL > k / 2:
        // a compare per word, not a shift), past the tags. (For IHL over 12
        // the header is not in the beat.)
        for k in 0..WORDS {
            self.w_t0[k].next = self.data.val().get_bits::<16>(16 + 16 * k);
        }
        for k in 0..23 {
            self.w_t1[k].next = self.data.val().get_bits::<16>(48 + 16 * k);
        }
        for k in 0..21 {
            self.w_t2[k].next = self.data.val().get_bits::<16>(80 + 16 * k);
        }
        if self.advance.val() {
            self.s1_valid.d.next = self.s.valid.val();
            self.s1_flags.d.next = self.flags1.val();
            if !self.known.val() {
                self.s1_flags.d.next = self.zero16.val();
            }
            self.s1_check.d.next = (self.l3.val() == self.l3_v4.val())
                & self.known.val()
                & self.ip4_room.val()
                & (self.ihl.val() >= self.ihl_min.val())
                & self.hdr_in_beat.val();
            self.s1_hdr_end.d.next = self.hdr_end.val();
            self.s1_len.d.next = self.len.val();
            for k in 0..21 {
                self.s1_w[k].d.next = self.w_t0[k].val();
                if self.tags.val() == self.t1.val() {
                    self.s1_w[k].d.next = self.w_t1[k].val();
                } else if self.tags.val() == self.t2.val() {
                    self.s1_w[k].d.next = self.w_t2[k].val();
                }
            }
            for k in 21..23 {
                self.s1_w[k].d.next = self.w_t0[k].val();
                if self.tags.val() == self.t1.val() {
                    self.s1_w[k].d.next = self.w_t1[k].val();
                }
            }
            for k in 23..WORDS {
                self.s1_w[k].d.next = self.w_t0[k].val();
            }
            for k in 0..WORDS {
                if self.ihl.val() <= self.half_word[k].val() {
                    self.s1_w[k].d.next = self.zero16.val();
                }
            }
        }

        // ---- Stage 2: five sums of five ----
        self.sum_a.i[0].next = self.s1_w[0].q.val();
        self.sum_a.i[1].next = self.s1_w[1].q.val();
        self.sum_a.i[2].next = self.s1_w[2].q.val();
        self.sum_a.i[3].next = self.s1_w[3].q.val();
        self.sum_a.i[4].next = self.s1_w[4].q.val();
        self.sum_b.i[0].next = self.s1_w[5].q.val();
        self.sum_b.i[1].next = self.s1_w[6].q.val();
        self.sum_b.i[2].next = self.s1_w[7].q.val();
        self.sum_b.i[3].next = self.s1_w[8].q.val();
        self.sum_b.i[4].next = self.s1_w[9].q.val();
        self.sum_c.i[0].next = self.s1_w[10].q.val();
        self.sum_c.i[1].next = self.s1_w[11].q.val();
        self.sum_c.i[2].next = self.s1_w[12].q.val();
        self.sum_c.i[3].next = self.s1_w[13].q.val();
        self.sum_c.i[4].next = self.s1_w[14].q.val();
        self.sum_d.i[0].next = self.s1_w[15].q.val();
        self.sum_d.i[1].next = self.s1_w[16].q.val();
        self.sum_d.i[2].next = self.s1_w[17].q.val();
        self.sum_d.i[3].next = self.s1_w[18].q.val();
        self.sum_d.i[4].next = self.s1_w[19].q.val();
        self.sum_e.i[0].next = self.s1_w[20].q.val();
        self.sum_e.i[1].next = self.s1_w[21].q.val();
        self.sum_e.i[2].next = self.s1_w[22].q.val();
        self.sum_e.i[3].next = self.s1_w[23].q.val();
        self.sum_e.i[4].next = self.s1_w[24].q.val();
        if self.advance.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_flags.d.next = self.s1_flags.q.val();
            self.s2_check.d.next =
                self.s1_check.q.val() & (self.s1_len.q.val() >= self.s1_hdr_end.q.val());
            self.s2_part[0].d.next = self.sum_a.o.val();
            self.s2_part[1].d.next = self.sum_b.o.val();
            self.s2_part[2].d.next = self.sum_c.o.val();
            self.s2_part[3].d.next = self.sum_d.o.val();
            self.s2_part[4].d.next = self.sum_e.o.val();
        }
        // ---- Stage 3: the sum ----
        for g in 0..5 {
            self.sum_all.i[g].next = self.s2_part[g].q.val();
        }
        if self.advance.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_flags.d.next = self.s2_flags.q.val();
            self.s3_check.d.next = self.s2_check.q.val();
            self.s3_sum.d.next = self.sum_all.o.val();
        }
        // ---- Stage 4: carries folded back in; 0xFFFF verifies ----
        self.fold1.next = (self.s3_sum.q.val() & self.ones16.val()) + (self.s3_sum.q.val() >> 16);
        self.fold2.next = (self.fold1.val() & self.ones16.val()) + (self.fold1.val() >> 16);
        if self.advance.val() {
            self.s4_valid.d.next = self.s3_valid.q.val();
            self.s4_flags.d.next = self.s3_flags.q.val();
            if self.s3_check.q.val() & (self.fold2.val() == self.ones16.val()) {
                self.s4_flags.d.next = self.s3_flags.q.val() | self.ip4_ok.val();
            }
        }
        // ---- Stages 5 to 8: waiting for the L4 check ----
        self.l4_check.advance.next = self.advance.val();
        self.l4_check.data.next = self.data.val();
        self.l4_check.len.next = self.len.val();
        self.l4_check.sum.next = self.s.data.val().sum;
        self.l4_check.check.next = self.known.val() & (self.l4.val() != self.zero2.val());
        self.l4_check.udp.next = self.l4.val() == self.l4_udp.val();
        self.l4_check.v6.next = self.l3.val() == self.l3_v6.val();
        self.l4_check.tags.next = self.tags.val();
        self.l4_check.ihl.next = self.ihl.val();
        if self.advance.val() {
            self.s5_valid.d.next = self.s4_valid.q.val();
            self.s5_flags.d.next = self.s4_flags.q.val();
            self.s6_valid.d.next = self.s5_valid.q.val();
            self.s6_flags.d.next = self.s5_flags.q.val();
            self.s7_valid.d.next = self.s6_valid.q.val();
            self.s7_flags.d.next = self.s6_flags.q.val();
            self.s8_valid.d.next = self.s7_valid.q.val();
            self.s8_flags.d.next = self.s7_flags.q.val();
        }
        self.m.valid.next = self.s8_valid.q.val();
        self.m.data.next = self.s8_flags.q.val();
        if self.l4_check.ok.val() {
            self.m.data.next = self.s8_flags.q.val() | self.l4_ok.val();
        }
    }
}
