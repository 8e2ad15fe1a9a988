use crate::stream::Concat;
use pendulum_layout::frame::*;
use pendulum_layout::params::MAX_FRAME_BYTES;
use rust_hdl::prelude::*;

/// Frame length from the first beat's headers, by the rule of
/// `pendulum_layout::frame` (IPv4 total length, IPv6 payload length, ARP;
/// past up to two VLAN tags). Shared by RX (to check room before writing)
/// and TX (to split the ring's byte stream into frames). Combinational.
///
/// The tags' bytes `t` (0, 4 or 8) come from two TPID compares; they pick
/// the EtherType compares' results (each made at all three places side by
/// side), the length field window (`lens`) and the constants each rule
/// adds. Every output is then worked out for each rule straight from its
/// length field (one adder or comparator with a selected constant each),
/// and one select picks the rule's: no sum feeds another. The values are
/// those of `len` computed first and the rest from it, to the bit (16-bit
/// sums wrap alike).
#[derive(LogicBlock)]
pub struct FrameLenParser {
    /// Frame bytes 12..14 (the EtherType, or a tag's TPID) as they sit on
    /// the bus: byte 12 in bits 7..0.
    pub ethertype: Signal<In, Bits<16>>,
    /// Frame bytes 16..28 likewise: the IP length fields, and past up to
    /// two tags (bytes 14..16 are the first tag's control, read nowhere).
    pub head: Signal<In, Bits<HEAD_BITS>>,
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

    /// Frame bytes 16+t..20+t: the IPv4 and IPv6 length fields.
    lens: Signal<Local, Bits<32>>,
    len_v4: Concat<8, 8, 16>,
    len_v6: Concat<8, 8, 16>,
    /// The EtherTypes (or TPIDs) at bytes 16 and 20 (12 is `ethertype`).
    et: [Signal<Local, Bits<16>>; 3],
    tag0: Signal<Local, Bit>,
    tag1: Signal<Local, Bit>,
    /// `t` is 4, or 8.
    one_tag: Signal<Local, Bit>,
    two_tags: Signal<Local, Bit>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    is_arp: Signal<Local, Bit>,
    // Per rule: the length field plus the header bytes, plus also a beat
    // less one (slots), and the last beat's byte count less one.
    v4_len: Signal<Local, Bits<16>>,
    v6_len: Signal<Local, Bits<16>>,
    v4_round: Signal<Local, Bits<16>>,
    v6_round: Signal<Local, Bits<16>>,
    v4_tail: Signal<Local, Bits<6>>,
    v6_tail: Signal<Local, Bits<6>>,
    // The constants each rule adds, for the tags' bytes `t` selected.
    v4_add: Signal<Local, Bits<16>>,
    v6_add: Signal<Local, Bits<16>>,
    v4_round_sel: Signal<Local, Bits<16>>,
    v6_round_sel: Signal<Local, Bits<16>>,
    v4_tail_sel: Signal<Local, Bits<6>>,
    v6_tail_sel: Signal<Local, Bits<6>>,
    arp_len_sel: Signal<Local, Bits<16>>,
    arp_shift_sel: Signal<Local, Bits<6>>,
    // EtherTypes byte-swapped: the wire is big-endian, the bus little-endian.
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_arp: Constant<Bits<16>>,
    et_vlan: Constant<Bits<16>>,
    et_qinq: Constant<Bits<16>>,
    // Per tag count t = 0, 4, 8: header bytes; header bytes plus a beat
    // less one (rounds the sum up to whole slots); header bytes less one
    // (the last beat's byte count less one); ARP's length and last shift.
    v4_overhead: [Constant<Bits<16>>; 3],
    v6_overhead: [Constant<Bits<16>>; 3],
    v4_round_add: [Constant<Bits<16>>; 3],
    v6_round_add: [Constant<Bits<16>>; 3],
    v4_tail_add: [Constant<Bits<6>>; 3],
    v6_tail_add: [Constant<Bits<6>>; 3],
    arp_len: [Constant<Bits<16>>; 3],
    arp_shift: [Constant<Bits<6>>; 3],
    // Per t: the largest field each rule accepts (over it, the frame, tags
    // included, is over the MTU).
    v4_max: [Constant<Bits<16>>; 3],
    v6_max: [Constant<Bits<16>>; 3],
    v4_max_sel: Signal<Local, Bits<16>>,
    v6_max_sel: Signal<Local, Bits<16>>,
    // The ARP rule's (and an unknown EtherType's) other outputs, constant.
    arp_slots: Constant<Bits<16>>,
    arp_too_big: Constant<Bit>,
    beat_shift: Constant<Bits<16>>,
    // Bit positions inside `head`.
    /// Where bytes 16 and 20 (behind one tag, two) sit in `head`.
    at_et: [Constant<Bits<7>>; 2],
    at_lens: [Constant<Bits<7>>; 3],
    at_v4_len_hi: Constant<Bits<5>>,
    at_v4_len_lo: Constant<Bits<5>>,
    at_v6_len_hi: Constant<Bits<5>>,
    at_v6_len_lo: Constant<Bits<5>>,
}

/// Where `head` starts in the frame (past the EtherType and the first
/// tag's control), and its width: through the last byte of the IPv6 length
/// field behind two tags.
pub const HEAD_OFFSET: usize = ETHERTYPE_OFFSET + VLAN_TAG_BYTES;
pub const HEAD_BITS: usize =
    8 * (IPV6_LEN_OFFSET + 2 + MAX_VLAN_TAGS * VLAN_TAG_BYTES - HEAD_OFFSET);
/// Bit positions of the parser's inputs in a first beat.
pub const ETHERTYPE_BIT: u64 = 8 * ETHERTYPE_OFFSET as u64;
pub const HEAD_BIT: u64 = 8 * HEAD_OFFSET as u64;

impl FrameLenParser {
    pub fn new() -> Self {
        let c16 = |v: u32| Constant::new((v as u64).into());
        let swap = |et: u16| c16(et.swap_bytes() as u32);
        let c6 = |v: u32| Constant::new(((v & 63) as u64).into());
        // The tag bytes of each choice, and a constant per choice.
        let tags = |k: usize| (k * VLAN_TAG_BYTES) as u32;
        let per_t16 = |f: &dyn Fn(u32) -> u32| std::array::from_fn(|k| c16(f(tags(k))));
        let per_t6 = |f: &dyn Fn(u32) -> u32| std::array::from_fn(|k| c6(f(tags(k))));
        // Bit offsets inside `head` of frame byte `offset`, untagged.
        let head_at = |offset: usize| 8 * (offset - HEAD_OFFSET);
        // Bit offsets inside `lens` (frame bytes 16+t..20+t) of a field.
        let lens_at = |offset: usize| Constant::new((8 * (offset - IPV4_LEN_OFFSET) as u64).into());
        assert_eq!(
            IPV6_LEN_OFFSET + 2 - IPV4_LEN_OFFSET,
            4,
            "lens must hold both length fields"
        );
        assert_eq!(MAX_VLAN_TAGS, 2, "the select below knows of 0, 1 or 2 tags");
        let beat = pendulum_layout::BEAT_BYTES as u32;
        let v6_overhead = ETH_HEADER_BYTES + IPV6_HEADER_BYTES;
        // The per-rule limits below are MAX_FRAME_BYTES less the header bytes.
        assert!(v6_overhead + tags(MAX_VLAN_TAGS) <= MAX_FRAME_BYTES && MAX_FRAME_BYTES < 1 << 16);
        let max_arp = ARP_FRAME_BYTES + tags(MAX_VLAN_TAGS);
        assert!(
            max_arp <= beat,
            "an ARP frame fills one slot, tagged or not"
        );
        Self {
            ethertype: Default::default(),
            head: Default::default(),
            len: Default::default(),
            slots: Default::default(),
            known: Default::default(),
            too_big: Default::default(),
            last_shift: Default::default(),
            lens: Default::default(),
            len_v4: Default::default(),
            len_v6: Default::default(),
            et: Default::default(),
            tag0: Default::default(),
            tag1: Default::default(),
            one_tag: Default::default(),
            two_tags: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            is_arp: Default::default(),
            v4_len: Default::default(),
            v6_len: Default::default(),
            v4_round: Default::default(),
            v6_round: Default::default(),
            v4_tail: Default::default(),
            v6_tail: Default::default(),
            v4_add: Default::default(),
            v6_add: Default::default(),
            v4_round_sel: Default::default(),
            v6_round_sel: Default::default(),
            v4_tail_sel: Default::default(),
            v6_tail_sel: Default::default(),
            arp_len_sel: Default::default(),
            arp_shift_sel: Default::default(),
            et_ipv4: swap(ETHERTYPE_IPV4),
            et_ipv6: swap(ETHERTYPE_IPV6),
            et_arp: swap(ETHERTYPE_ARP),
            et_vlan: swap(ETHERTYPE_VLAN),
            et_qinq: swap(ETHERTYPE_QINQ),
            v4_overhead: per_t16(&|t| ETH_HEADER_BYTES + t),
            v6_overhead: per_t16(&|t| v6_overhead + t),
            v4_round_add: per_t16(&|t| ETH_HEADER_BYTES + t + beat - 1),
            v6_round_add: per_t16(&|t| v6_overhead + t + beat - 1),
            v4_tail_add: per_t6(&|t| (ETH_HEADER_BYTES + t).wrapping_sub(1)),
            v6_tail_add: per_t6(&|t| (v6_overhead + t).wrapping_sub(1)),
            arp_len: per_t16(&|t| ARP_FRAME_BYTES + t),
            arp_shift: per_t6(&|t| !(ARP_FRAME_BYTES + t).wrapping_sub(1)),
            v4_max: per_t16(&|t| MAX_FRAME_BYTES - ETH_HEADER_BYTES - t),
            v6_max: per_t16(&|t| MAX_FRAME_BYTES - v6_overhead - t),
            v4_max_sel: Default::default(),
            v6_max_sel: Default::default(),
            arp_slots: c16(1),
            arp_too_big: Constant::new(max_arp > MAX_FRAME_BYTES),
            beat_shift: c16(pendulum_layout::BEAT_BYTES_LOG2),
            at_et: std::array::from_fn(|k| {
                Constant::new((head_at(ETHERTYPE_OFFSET + (k + 1) * VLAN_TAG_BYTES) as u64).into())
            }),
            at_lens: std::array::from_fn(|k| {
                Constant::new((head_at(IPV4_LEN_OFFSET + k * VLAN_TAG_BYTES) as u64).into())
            }),
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
        self.et[0].next = self.ethertype.val();
        for k in 1..3 {
            self.et[k].next = self
                .head
                .val()
                .get_bits::<16>(self.at_et[k - 1].val().index());
        }
        self.tag0.next =
            (self.et[0].val() == self.et_vlan.val()) | (self.et[0].val() == self.et_qinq.val());
        self.tag1.next =
            (self.et[1].val() == self.et_vlan.val()) | (self.et[1].val() == self.et_qinq.val());
        self.one_tag.next = self.tag0.val() & !self.tag1.val();
        self.two_tags.next = self.tag0.val() & self.tag1.val();
        // Untagged; then one tag; then two (a third tag's TPID matches no rule).
        self.is_v4.next = self.et[0].val() == self.et_ipv4.val();
        self.is_v6.next = self.et[0].val() == self.et_ipv6.val();
        self.is_arp.next = self.et[0].val() == self.et_arp.val();
        self.lens.next = self
            .head
            .val()
            .get_bits::<32>(self.at_lens[0].val().index());
        self.v4_add.next = self.v4_overhead[0].val();
        self.v6_add.next = self.v6_overhead[0].val();
        self.v4_round_sel.next = self.v4_round_add[0].val();
        self.v6_round_sel.next = self.v6_round_add[0].val();
        self.v4_tail_sel.next = self.v4_tail_add[0].val();
        self.v6_tail_sel.next = self.v6_tail_add[0].val();
        self.arp_len_sel.next = self.arp_len[0].val();
        self.arp_shift_sel.next = self.arp_shift[0].val();
        self.v4_max_sel.next = self.v4_max[0].val();
        self.v6_max_sel.next = self.v6_max[0].val();
        if self.one_tag.val() {
            self.is_v4.next = self.et[1].val() == self.et_ipv4.val();
            self.is_v6.next = self.et[1].val() == self.et_ipv6.val();
            self.is_arp.next = self.et[1].val() == self.et_arp.val();
            self.lens.next = self
                .head
                .val()
                .get_bits::<32>(self.at_lens[1].val().index());
            self.v4_add.next = self.v4_overhead[1].val();
            self.v6_add.next = self.v6_overhead[1].val();
            self.v4_round_sel.next = self.v4_round_add[1].val();
            self.v6_round_sel.next = self.v6_round_add[1].val();
            self.v4_tail_sel.next = self.v4_tail_add[1].val();
            self.v6_tail_sel.next = self.v6_tail_add[1].val();
            self.arp_len_sel.next = self.arp_len[1].val();
            self.arp_shift_sel.next = self.arp_shift[1].val();
            self.v4_max_sel.next = self.v4_max[1].val();
            self.v6_max_sel.next = self.v6_max[1].val();
        }
        if self.two_tags.val() {
            self.is_v4.next = self.et[2].val() == self.et_ipv4.val();
            self.is_v6.next = self.et[2].val() == self.et_ipv6.val();
            self.is_arp.next = self.et[2].val() == self.et_arp.val();
            self.lens.next = self
                .head
                .val()
                .get_bits::<32>(self.at_lens[2].val().index());
            self.v4_add.next = self.v4_overhead[2].val();
            self.v6_add.next = self.v6_overhead[2].val();
            self.v4_round_sel.next = self.v4_round_add[2].val();
            self.v6_round_sel.next = self.v6_round_add[2].val();
            self.v4_tail_sel.next = self.v4_tail_add[2].val();
            self.v6_tail_sel.next = self.v6_tail_add[2].val();
            self.arp_len_sel.next = self.arp_len[2].val();
            self.arp_shift_sel.next = self.arp_shift[2].val();
            self.v4_max_sel.next = self.v4_max[2].val();
            self.v6_max_sel.next = self.v6_max[2].val();
        }
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
        self.v4_len.next = self.len_v4.o.val() + self.v4_add.val();
        self.v6_len.next = self.len_v6.o.val() + self.v6_add.val();
        self.v4_round.next = self.len_v4.o.val() + self.v4_round_sel.val();
        self.v6_round.next = self.len_v6.o.val() + self.v6_round_sel.val();
        self.v4_tail.next = self.len_v4.o.val().get_bits::<6>(0) + self.v4_tail_sel.val();
        self.v6_tail.next = self.len_v6.o.val().get_bits::<6>(0) + self.v6_tail_sel.val();
        self.known.next = false;
        self.len.next = self.arp_len_sel.val();
        self.slots.next = self.arp_slots.val();
        self.last_shift.next = self.arp_shift_sel.val();
        self.too_big.next = self.arp_too_big.val();
        if self.is_v4.val() {
            self.known.next = true;
            self.len.next = self.v4_len.val();
            self.slots.next = self.v4_round.val() >> self.beat_shift.val();
            self.last_shift.next = !self.v4_tail.val();
            // The field alone, so that the 16-bit sum cannot wrap below the limit.
            self.too_big.next = self.len_v4.o.val() > self.v4_max_sel.val();
        } else if self.is_v6.val() {
            self.known.next = true;
            self.len.next = self.v6_len.val();
            self.slots.next = self.v6_round.val() >> self.beat_shift.val();
            self.last_shift.next = !self.v6_tail.val();
            self.too_big.next = self.len_v6.o.val() > self.v6_max_sel.val();
        } else if self.is_arp.val() {
            self.known.next = true;
        }
    }
}
