use crate::stream::Concat;
use pendulum_layout::frame::*;
use pendulum_layout::params::MAX_FRAME_BYTES;
use rust_hdl::prelude::*;

/// Frame length from the first beat's headers, by the rule of
/// `pendulum_layout::frame` (IPv4 total length, IPv6 payload length, ARP).
/// Shared by RX (to check room before writing) and TX (to split the ring's
/// byte stream into frames). Combinational.
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
    // EtherTypes byte-swapped: the wire is big-endian, the bus little-endian.
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_arp: Constant<Bits<16>>,
    v4_overhead: Constant<Bits<16>>,
    v6_overhead: Constant<Bits<16>>,
    arp_len: Constant<Bits<16>>,
    max_frame: Constant<Bits<16>>,
    one6: Constant<Bits<6>>,
    beat_round: Constant<Bits<16>>,
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
        assert_eq!(
            IPV6_LEN_OFFSET + 2 - LENS_OFFSET,
            4,
            "lens must hold both length fields"
        );
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
            et_ipv4: swap(ETHERTYPE_IPV4),
            et_ipv6: swap(ETHERTYPE_IPV6),
            et_arp: swap(ETHERTYPE_ARP),
            v4_overhead: c16(ETH_HEADER_BYTES),
            v6_overhead: c16(ETH_HEADER_BYTES + IPV6_HEADER_BYTES),
            arp_len: c16(ARP_FRAME_BYTES),
            max_frame: c16(MAX_FRAME_BYTES),
            one6: Constant::new(1u64.into()),
            beat_round: c16(pendulum_layout::BEAT_BYTES as u32 - 1),
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
        self.known.next = true;
        self.too_big.next = false;
        self.len.next = self.arp_len.val();
        if self.ethertype.val() == self.et_ipv4.val() {
            self.len.next = self.len_v4.o.val() + self.v4_overhead.val();
            // Checked before the sum so that it cannot wrap.
            self.too_big.next = self.len_v4.o.val() > self.max_frame.val();
        } else if self.ethertype.val() == self.et_ipv6.val() {
            self.len.next = self.len_v6.o.val() + self.v6_overhead.val();
            self.too_big.next = self.len_v6.o.val() > self.max_frame.val();
        } else if self.ethertype.val() != self.et_arp.val() {
            self.known.next = false;
        }
        if self.len.val() > self.max_frame.val() {
            self.too_big.next = true;
        }
        self.slots.next = (self.len.val() + self.beat_round.val()) >> self.beat_shift.val();
        self.last_shift.next = !(self.len.val().get_bits::<6>(0) - self.one6.val());
    }
}
