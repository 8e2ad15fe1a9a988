use crate::stream::Concat;
use pendulum_layout::frame::*;
use pendulum_layout::params::MAX_FRAME_BYTES;
use rust_hdl::prelude::*;

/// Frame length from the first beat's headers, by the rule of
/// `pendulum_layout::frame` (IPv4 total length, IPv6 payload length, ARP).
/// Shared by RX (to check room before writing) and TX (to split the ring's
/// byte stream into frames). Combinational.
///
/// Every output is worked out for each rule straight from its length field
/// (one adder or comparator with a constant each, side by side with the
/// EtherType compares), then one select picks the rule's: no sum feeds
/// another, so it stays about three LUTs deep. The values are those of
/// `len` computed first and the rest from it, to the bit (16-bit sums wrap
/// alike).
#[derive(LogicBlock)]
pub struct FrameLenParser {
    /// Frame bytes 12..14 (the EtherType) as they sit on the bus: byte 12 in bits 7..0.
    pub ethertype: Signal<In, Bits<16>>,
    /// Frame bytes 16..20 (IPv4 total length, or IPv6 payload length at 18..20), likewise.
    pub lens: Signal<In, Bits<32>>,
    /// Frame length in bytes as the header states it (meaningful when `known`).
    pub len: Signal<Out, Bits<16>>,
    /// 64-byte slots the frame occupies.
    pub slots: Signal<Out, Bits<16>>,
    /// The EtherType has a length rule.
    pub known: Signal<Out, Bit>,
    /// The stated length is over the MTU.
    pub too_big: Signal<Out, Bit>,
    /// 63 - ((len - 1) mod 64): a full keep shifted right by this is the
    /// keep of the frame's last beat (bytes 0..=(len - 1) mod 64). Only the
    /// length's low 6 bits are involved, so it stays a few LUTs deep.
    pub last_shift: Signal<Out, Bits<6>>,

    len_v4: Concat<8, 8, 16>,
    len_v6: Concat<8, 8, 16>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    // Per rule: the length field plus the header bytes, plus also a beat
    // less one (slots), and the last beat's byte count less one.
    v4_len: Signal<Local, Bits<16>>,
    v6_len: Signal<Local, Bits<16>>,
    v4_round: Signal<Local, Bits<16>>,
    v6_round: Signal<Local, Bits<16>>,
    v4_tail: Signal<Local, Bits<6>>,
    v6_tail: Signal<Local, Bits<6>>,
    // EtherTypes byte-swapped: the wire is big-endian, the bus little-endian.
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_arp: Constant<Bits<16>>,
    v4_overhead: Constant<Bits<16>>,
    v6_overhead: Constant<Bits<16>>,
    arp_len: Constant<Bits<16>>,
    // The largest field each rule accepts: over it, the frame is over the MTU.
    v4_max: Constant<Bits<16>>,
    v6_max: Constant<Bits<16>>,
    // Header bytes plus a beat less one (rounds the sum up to whole slots),
    // and header bytes less one (the last beat's byte count less one).
    v4_round_add: Constant<Bits<16>>,
    v6_round_add: Constant<Bits<16>>,
    v4_tail_add: Constant<Bits<6>>,
    v6_tail_add: Constant<Bits<6>>,
    // The ARP rule's (and an unknown EtherType's) outputs, all constant.
    arp_slots: Constant<Bits<16>>,
    arp_shift: Constant<Bits<6>>,
    arp_too_big: Constant<Bit>,
    beat_shift: Constant<Bits<16>>,
    // Bit positions inside `lens`.
    at_v4_len_hi: Constant<Bits<5>>,
    at_v4_len_lo: Constant<Bits<5>>,
    at_v6_len_hi: Constant<Bits<5>>,
    at_v6_len_lo: Constant<Bits<5>>,
}

/// Where `lens` starts in the frame.
pub const LENS_OFFSET: usize = IPV4_LEN_OFFSET;
/// Bit positions of the parser's inputs in a first beat.
pub const ETHERTYPE_BIT: u64 = 8 * ETHERTYPE_OFFSET as u64;
pub const LENS_BIT: u64 = 8 * LENS_OFFSET as u64;

impl FrameLenParser {
    pub fn new() -> Self {
        let c16 = |v: u32| Constant::new((v as u64).into());
        let lens_at = |offset: usize| Constant::new((8 * (offset - LENS_OFFSET) as u64).into());
        let swap = |et: u16| c16(et.swap_bytes() as u32);
        let c6 = |v: u32| Constant::new(((v & 63) as u64).into());
        assert_eq!(
            IPV6_LEN_OFFSET + 2 - LENS_OFFSET,
            4,
            "lens must hold both length fields"
        );
        let beat = pendulum_layout::BEAT_BYTES as u32;
        let v6_overhead = ETH_HEADER_BYTES + IPV6_HEADER_BYTES;
        // The per-rule limits below are MAX_FRAME_BYTES less the header bytes.
        assert!(v6_overhead <= MAX_FRAME_BYTES && MAX_FRAME_BYTES < 1 << 16);
        let arp_slots = (ARP_FRAME_BYTES + beat - 1) >> pendulum_layout::BEAT_BYTES_LOG2;
        Self {
            ethertype: Default::default(),
            lens: Default::default(),
            len: Default::default(),
            slots: Default::default(),
            known: Default::default(),
            too_big: Default::default(),
            last_shift: Default::default(),
            len_v4: Default::default(),
            len_v6: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            v4_len: Default::default(),
            v6_len: Default::default(),
            v4_round: Default::default(),
            v6_round: Default::default(),
            v4_tail: Default::default(),
            v6_tail: Default::default(),
            et_ipv4: swap(ETHERTYPE_IPV4),
            et_ipv6: swap(ETHERTYPE_IPV6),
            et_arp: swap(ETHERTYPE_ARP),
            v4_overhead: c16(ETH_HEADER_BYTES),
            v6_overhead: c16(ETH_HEADER_BYTES + IPV6_HEADER_BYTES),
            arp_len: c16(ARP_FRAME_BYTES),
            v4_max: c16(MAX_FRAME_BYTES - ETH_HEADER_BYTES),
            v6_max: c16(MAX_FRAME_BYTES - v6_overhead),
            v4_round_add: c16(ETH_HEADER_BYTES + beat - 1),
            v6_round_add: c16(v6_overhead + beat - 1),
            v4_tail_add: c6(ETH_HEADER_BYTES.wrapping_sub(1)),
            v6_tail_add: c6(v6_overhead.wrapping_sub(1)),
            arp_slots: c16(arp_slots),
            arp_shift: c6(!(ARP_FRAME_BYTES.wrapping_sub(1))),
            arp_too_big: Constant::new(ARP_FRAME_BYTES > MAX_FRAME_BYTES),
            beat_shift: c16(pendulum_layout::BEAT_BYTES_LOG2),
            at_v4_len_hi: lens_at(IPV4_LEN_OFFSET),
            at_v4_len_lo: lens_at(IPV4_LEN_OFFSET + 1),
            at_v6_len_hi: lens_at(IPV6_LEN_OFFSET),
            at_v6_len_lo: lens_at(IPV6_LEN_OFFSET + 1),
        }
    }
}

impl Default for FrameLenParser {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for FrameLenParser {
    #[hdl_gen]
    fn update(&mut self) {
        self.len_v4.hi.next = self
            .lens
            .val()
            .get_bits::<8>(self.at_v4_len_hi.val().index());
        self.len_v4.lo.next = self
            .lens
            .val()
            .get_bits::<8>(self.at_v4_len_lo.val().index());
        self.len_v6.hi.next = self
            .lens
            .val()
            .get_bits::<8>(self.at_v6_len_hi.val().index());
        self.len_v6.lo.next = self
            .lens
            .val()
            .get_bits::<8>(self.at_v6_len_lo.val().index());
        self.is_v4.next = self.ethertype.val() == self.et_ipv4.val();
        self.is_v6.next = self.ethertype.val() == self.et_ipv6.val();
        self.v4_len.next = self.len_v4.o.val() + self.v4_overhead.val();
        self.v6_len.next = self.len_v6.o.val() + self.v6_overhead.val();
        self.v4_round.next = self.len_v4.o.val() + self.v4_round_add.val();
        self.v6_round.next = self.len_v6.o.val() + self.v6_round_add.val();
        self.v4_tail.next = self.len_v4.o.val().get_bits::<6>(0) + self.v4_tail_add.val();
        self.v6_tail.next = self.len_v6.o.val().get_bits::<6>(0) + self.v6_tail_add.val();
        self.known.next = true;
        self.len.next = self.arp_len.val();
        self.slots.next = self.arp_slots.val();
        self.last_shift.next = self.arp_shift.val();
        self.too_big.next = self.arp_too_big.val();
        if self.is_v4.val() {
            self.len.next = self.v4_len.val();
            self.slots.next = self.v4_round.val() >> self.beat_shift.val();
            self.last_shift.next = !self.v4_tail.val();
            // The field alone, so that the 16-bit sum cannot wrap below the limit.
            self.too_big.next = self.len_v4.o.val() > self.v4_max.val();
        } else if self.is_v6.val() {
            self.len.next = self.v6_len.val();
            self.slots.next = self.v6_round.val() >> self.beat_shift.val();
            self.last_shift.next = !self.v6_tail.val();
            self.too_big.next = self.len_v6.o.val() > self.v6_max.val();
        } else if self.ethertype.val() != self.et_arp.val() {
            self.known.next = false;
        }
    }
}
