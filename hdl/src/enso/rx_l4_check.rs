use super::rx_flags::ip_at;
use crate::konst as k;
use crate::reset::SDFF;
use crate::stream::ZeroExtend;
use crate::word_sum::WordSum;
use pendulum_layout::frame::IPV6_HEADER_BYTES;
use pendulum_layout::BEAT_BYTES;
use rust_hdl::prelude::*;

/// Bytes of the first beat the check sees: 12..64.
const BYTES: usize = 52;
/// Their 16-bit words.
const WORDS: usize = 26;
/// The first byte it sees.
const FIRST: u64 = 12;

/// TCP/UDP checksum check: the L4_CSUM_OK bit of a frame's FLAGS
/// (`pendulum_layout::ring::rx_flags`, with its first-beat rules), a stage
/// of `RxFlagsParser` that moves with it (`advance`).
///
/// The frame's own sum (`sum`: bytes 12 on, as little-endian words, from
/// `stream::FrameSum`) holds the L4 bytes and more. When the IP datagram
/// ends past the first beat (and so, by the rules, at the frame's end),
/// the check takes away the first beat's bytes before the L4 bytes (a
/// ones'-complement minus is a complement: word `w` counts as `!w`), but
/// not the source and destination addresses, which the pseudo-header adds
/// back. When it ends within the first beat, the frame's sum is not used:
/// the check adds the first beat's L4 bytes and addresses itself, and
/// padding past the datagram never counts. The pseudo-header's length and
/// protocol words are added in both cases. The total verifies when it is 0
/// modulo 0xFFFF (folded: 0xFFFF, or 0), which for a sum holding the
/// protocol's non-zero word is RFC 1071's "0xFFFF".
///
/// Stage 1 takes the parser's decoding (the tags, IPv4 or IPv6, TCP or
/// UDP, IHL) and the beat; stage 2 reads the length field past the tags;
/// stage 3 finds the L4 bytes' start and the datagram's end; stage 4
/// masks and complements the words and settles the rules; stages 5 to 7
/// add, and stage 8 folds and compares.
///
/// Latency 8 (`ok`, for the item that went in 8 advances ago).
#[derive(LogicBlock)]
pub struct RxL4Check {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The parser's stages move.
    pub advance: Signal<In, Bit>,
    /// Bytes 12..64 of the first beat, the frame's length and sum.
    pub data: Signal<In, Bits<416>>,
    pub len: Signal<In, Bits<16>>,
    pub sum: Signal<In, Bits<32>>,
    /// The parser's decoding: TCP or UDP over IPv4 or IPv6 (`check`), which
    /// one, past how many tags (0..2), and IPv4's IHL.
    pub check: Signal<In, Bit>,
    pub udp: Signal<In, Bit>,
    pub v6: Signal<In, Bit>,
    pub tags: Signal<In, Bits<2>>,
    pub ihl: Signal<In, Bits<4>>,
    pub ok: Signal<Out, Bit>,

    // ---- Stage 1: the inputs ----
    r_data: SDFF<Bits<416>>,
    r_len: SDFF<Bits<16>>,
    r_sum: SDFF<Bits<32>>,
    r_check: SDFF<Bit>,
    r_udp: SDFF<Bit>,
    r_v6: SDFF<Bit>,
    r_tags: SDFF<Bits<2>>,
    r_ihl: SDFF<Bits<4>>,
    // ---- Stage 2: the length field, and where the IP header is ----
    // The IPv4 total length and IPv6 payload length past each tag count.
    field: [Signal<Local, Bits<16>>; 6],
    // What follows `base` (the IPv4 header, or the IPv6 fixed header's
    // end): the datagram's bytes and the header's before the L4 bytes.
    dlen: Signal<Local, Bits<16>>,
    hlen: Signal<Local, Bits<16>>,
    base: Signal<Local, Bits<16>>,
    ihl16: ZeroExtend<4, 16>,
    p_dlen: SDFF<Bits<16>>,
    p_hlen: SDFF<Bits<16>>,
    p_base: SDFF<Bits<16>>,
    p_addr_lo: SDFF<Bits<16>>,
    p_addr_hi: SDFF<Bits<16>>,
    p_ok: SDFF<Bit>,
    p_data: SDFF<Bits<416>>,
    p_len: SDFF<Bits<16>>,
    p_sum: SDFF<Bits<32>>,
    p_udp: SDFF<Bit>,
    // ---- Stage 3: where the L4 bytes start and the datagram ends ----
    s2_l4_at: SDFF<Bits<16>>,
    s2_end: SDFF<Bits<16>>,
    s2_seg: SDFF<Bits<16>>,
    s2_addr_lo: SDFF<Bits<16>>,
    s2_addr_hi: SDFF<Bits<16>>,
    s2_ok: SDFF<Bit>,
    s2_data: SDFF<Bits<416>>,
    s2_len: SDFF<Bits<16>>,
    s2_sum: SDFF<Bits<32>>,
    s2_udp: SDFF<Bit>,
    // ---- Stage 4: the words, and the rules ----
    use_sum: Signal<Local, Bit>,
    ge_l4: [Signal<Local, Bit>; BYTES],
    lt_end: [Signal<Local, Bit>; BYTES],
    addr: [Signal<Local, Bit>; BYTES],
    take: [Signal<Local, Bit>; BYTES],
    word: [Signal<Local, Bits<16>>; WORDS],
    udp_field: [Signal<Local, Bit>; WORDS],
    udp_nonzero: Signal<Local, Bit>,
    // The words as they count: masked, and complemented when taken away.
    c: [Signal<Local, Bits<16>>; WORDS],
    s3_c: [SDFF<Bits<16>>; WORDS],
    s3_len_word: SDFF<Bits<16>>,
    s3_proto_word: SDFF<Bits<16>>,
    s3_sum: SDFF<Bits<32>>,
    s3_ok: SDFF<Bit>,
    s3_fit: SDFF<Bit>,
    s3_ends: SDFF<Bit>,
    s3_seg: SDFF<Bit>,
    s3_head: SDFF<Bit>,
    s3_field: SDFF<Bit>,
    // ---- Stages 5 to 7: six sums of five, their sum, and the frame's ----
    // (Named, not an array: hdl_gen cannot index an array port of a child
    // in an array.)
    g0: WordSum<5, 16, 19>,
    g1: WordSum<5, 16, 19>,
    g2: WordSum<5, 16, 19>,
    g3: WordSum<5, 16, 19>,
    g4: WordSum<5, 16, 19>,
    g5: WordSum<5, 16, 19>,
    s4_g: [SDFF<Bits<19>>; 6],
    s4_sum: SDFF<Bits<32>>,
    s4_ok: SDFF<Bit>,
    all: WordSum<6, 19, 22>,
    s5_t: SDFF<Bits<22>>,
    s5_sum: SDFF<Bits<32>>,
    s5_ok: SDFF<Bit>,
    t32: ZeroExtend<22, 32>,
    s6_y: SDFF<Bits<32>>,
    s6_ok: SDFF<Bit>,
    // ---- Stage 8: folded and compared ----
    fold1: Signal<Local, Bits<32>>,
    fold2: Signal<Local, Bits<32>>,
    s7_ok: SDFF<Bit>,

    // Per tag count: where the IP header starts, and (IPv6) its fixed
    // header's end; where the addresses are (IPv4, IPv6).
    ip_at: [Constant<Bits<16>>; 3],
    v6_base: [Constant<Bits<16>>; 3],
    v4_addr_lo: [Constant<Bits<16>>; 3],
    v4_addr_hi: [Constant<Bits<16>>; 3],
    v6_addr_lo: [Constant<Bits<16>>; 3],
    v6_addr_hi: [Constant<Bits<16>>; 3],
    byte_at: [Constant<Bits<16>>; BYTES],
    // Byte l4_at + 6 is the first of word k when l4_at is 2k + 6.
    field_at: [Constant<Bits<16>>; WORDS],
    beat_end: Constant<Bits<16>>,
    udp_head_end: Constant<Bits<16>>,
    ihl_min: Constant<Bits<4>>,
    too_long: Constant<Bits<16>>,
    udp_min: Constant<Bits<16>>,
    tcp_min: Constant<Bits<16>>,
    // The pseudo-header's protocol word, little-endian.
    proto_tcp: Constant<Bits<16>>,
    proto_udp: Constant<Bits<16>>,
    t1: Constant<Bits<2>>,
    t2: Constant<Bits<2>>,
    lo8: Constant<Bits<16>>,
    hi8: Constant<Bits<16>>,
    ones16: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
}

impl RxL4Check {
    pub fn new() -> Self {
        let v6_fixed = IPV6_HEADER_BYTES as u64;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            data: Default::default(),
            len: Default::default(),
            sum: Default::default(),
            check: Default::default(),
            udp: Default::default(),
            v6: Default::default(),
            tags: Default::default(),
            ihl: Default::default(),
            ok: Default::default(),
            r_data: Default::default(),
            r_len: Default::default(),
            r_sum: Default::default(),
            r_check: Default::default(),
            r_udp: Default::default(),
            r_v6: Default::default(),
            r_tags: Default::default(),
            r_ihl: Default::default(),
            field: Default::default(),
            dlen: Default::default(),
            hlen: Default::default(),
            base: Default::default(),
            ihl16: Default::default(),
            p_dlen: Default::default(),
            p_hlen: Default::default(),
            p_base: Default::default(),
            p_addr_lo: Default::default(),
            p_addr_hi: Default::default(),
            p_ok: Default::default(),
            p_data: Default::default(),
            p_len: Default::default(),
            p_sum: Default::default(),
            p_udp: Default::default(),
            s2_l4_at: Default::default(),
            s2_end: Default::default(),
            s2_seg: Default::default(),
            s2_addr_lo: Default::default(),
            s2_addr_hi: Default::default(),
            s2_ok: Default::default(),
            s2_data: Default::default(),
            s2_len: Default::default(),
            s2_sum: Default::default(),
            s2_udp: Default::default(),
            use_sum: Default::default(),
            ge_l4: std::array::from_fn(|_| Default::default()),
            lt_end: std::array::from_fn(|_| Default::default()),
            addr: std::array::from_fn(|_| Default::default()),
            take: std::array::from_fn(|_| Default::default()),
            word: Default::default(),
            udp_field: Default::default(),
            udp_nonzero: Default::default(),
            c: Default::default(),
            s3_c: Default::default(),
            s3_len_word: Default::default(),
            s3_proto_word: Default::default(),
            s3_sum: Default::default(),
            s3_ok: Default::default(),
            s3_fit: Default::default(),
            s3_ends: Default::default(),
            s3_seg: Default::default(),
            s3_head: Default::default(),
            s3_field: Default::default(),
            g0: Default::default(),
            g1: Default::default(),
            g2: Default::default(),
            g3: Default::default(),
            g4: Default::default(),
            g5: Default::default(),
            s4_g: Default::default(),
            s4_sum: Default::default(),
            s4_ok: Default::default(),
            all: Default::default(),
            s5_t: Default::default(),
            s5_sum: Default::default(),
            s5_ok: Default::default(),
            t32: Default::default(),
            s6_y: Default::default(),
            s6_ok: Default::default(),
            fold1: Default::default(),
            fold2: Default::default(),
            s7_ok: Default::default(),
            ip_at: std::array::from_fn(|t| k(ip_at(t))),
            v6_base: std::array::from_fn(|t| k(ip_at(t) + v6_fixed)),
            v4_addr_lo: std::array::from_fn(|t| k(ip_at(t) + 12)),
            v4_addr_hi: std::array::from_fn(|t| k(ip_at(t) + 20)),
            v6_addr_lo: std::array::from_fn(|t| k(ip_at(t) + 8)),
            v6_addr_hi: std::array::from_fn(|t| k(ip_at(t) + v6_fixed)),
            byte_at: std::array::from_fn(|b| k(FIRST + b as u64)),
            field_at: std::array::from_fn(|w| k(FIRST + 2 * w as u64 - 6)),
            beat_end: k(BEAT_BYTES as u64),
            udp_head_end: k(BEAT_BYTES as u64 - 8),
            ihl_min: k(5),
            // A datagram this long is longer than any frame (MAX_FRAME_BYTES
            // is under 2^14): the 16-bit sums below cannot wrap.
            too_long: k(0xC000),
            udp_min: k(8),
            tcp_min: k(20),
            proto_tcp: k(6 << 8),
            proto_udp: k(17 << 8),
            t1: k(1),
            t2: k(2),
            lo8: k(0x00FF),
            hi8: k(0xFF00),
            ones16: k(0xFFFF),
            zero16: k(0),
            zero32: k(0),
        }
    }
}

impl Default for RxL4Check {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxL4Check {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_data,
            r_len,
            r_sum,
            r_check,
            r_udp,
            r_v6,
            r_tags,
            r_ihl,
            p_dlen,
            p_hlen,
            p_base,
            p_addr_lo,
            p_addr_hi,
            p_ok,
            p_data,
            p_len,
            p_sum,
            p_udp,
            s2_l4_at,
            s2_end,
            s2_seg,
            s2_addr_lo,
            s2_addr_hi,
            s2_ok,
            s2_data,
            s2_len,
            s2_sum,
            s2_udp,
            s3_len_word,
            s3_proto_word,
            s3_sum,
            s3_ok,
            s3_fit,
            s3_ends,
            s3_seg,
            s3_head,
            s3_field,
            s4_sum,
            s4_ok,
            s5_t,
            s5_sum,
            s5_ok,
            s6_y,
            s6_ok,
            s7_ok
        );
        self.r_data.reset.next = self.reset.val();
        self.r_len.reset.next = self.reset.val();
        self.r_sum.reset.next = self.reset.val();
        self.r_check.reset.next = self.reset.val();
        self.r_udp.reset.next = self.reset.val();
        self.r_v6.reset.next = self.reset.val();
        self.r_tags.reset.next = self.reset.val();
        self.r_ihl.reset.next = self.reset.val();
        self.p_dlen.reset.next = self.reset.val();
        self.p_hlen.reset.next = self.reset.val();
        self.p_base.reset.next = self.reset.val();
        self.p_addr_lo.reset.next = self.reset.val();
        self.p_addr_hi.reset.next = self.reset.val();
        self.p_ok.reset.next = self.reset.val();
        self.p_data.reset.next = self.reset.val();
        self.p_len.reset.next = self.reset.val();
        self.p_sum.reset.next = self.reset.val();
        self.p_udp.reset.next = self.reset.val();
        self.s2_l4_at.reset.next = self.reset.val();
        self.s2_end.reset.next = self.reset.val();
        self.s2_seg.reset.next = self.reset.val();
        self.s2_addr_lo.reset.next = self.reset.val();
        self.s2_addr_hi.reset.next = self.reset.val();
        self.s2_ok.reset.next = self.reset.val();
        self.s2_data.reset.next = self.reset.val();
        self.s2_len.reset.next = self.reset.val();
        self.s2_sum.reset.next = self.reset.val();
        self.s2_udp.reset.next = self.reset.val();
        self.s3_len_word.reset.next = self.reset.val();
        self.s3_proto_word.reset.next = self.reset.val();
        self.s3_sum.reset.next = self.reset.val();
        self.s3_ok.reset.next = self.reset.val();
        self.s3_fit.reset.next = self.reset.val();
        self.s3_ends.reset.next = self.reset.val();
        self.s3_seg.reset.next = self.reset.val();
        self.s3_head.reset.next = self.reset.val();
        self.s3_field.reset.next = self.reset.val();
        self.s4_sum.reset.next = self.reset.val();
        self.s4_ok.reset.next = self.reset.val();
        self.s5_t.reset.next = self.reset.val();
        self.s5_sum.reset.next = self.reset.val();
        self.s5_ok.reset.next = self.reset.val();
        self.s6_y.reset.next = self.reset.val();
        self.s6_ok.reset.next = self.reset.val();
        self.s7_ok.reset.next = self.reset.val();
        for w in 0..WORDS {
            self.s3_c[w].clock.next = self.clock.val();
            self.s3_c[w].reset.next = self.reset.val();
            self.s3_c[w].d.next = self.s3_c[w].q.val();
        }
        for g in 0..6 {
            self.s4_g[g].clock.next = self.clock.val();
            self.s4_g[g].reset.next = self.reset.val();
            self.s4_g[g].d.next = self.s4_g[g].q.val();
        }

        // ---- Stage 1 ----
        if self.advance.val() {
            self.r_data.d.next = self.data.val();
            self.r_len.d.next = self.len.val();
            self.r_sum.d.next = self.sum.val();
            self.r_check.d.next = self.check.val();
            self.r_udp.d.next = self.udp.val();
            self.r_v6.d.next = self.v6.val();
            self.r_tags.d.next = self.tags.val();
            self.r_ihl.d.next = self.ihl.val();
        }

        // ---- Stage 2 ----
        // The length fields, big-endian on the wire: IPv4's total length at
        // IP byte 2, IPv6's payload length at IP byte 4, past t tags.
        for t in 0..3 {
            self.field[t].next = self.r_data.q.val().get_bits::<16>(32 + 32 * t);
            self.field[3 + t].next = self.r_data.q.val().get_bits::<16>(48 + 32 * t);
        }
        for f in 0..6 {
            self.field[f].next = ((self.field[f].val() & self.lo8.val()) << 8)
                | ((self.field[f].val() & self.hi8.val()) >> 8);
        }
        self.ihl16.i.next = self.r_ihl.q.val();
        self.dlen.next = self.field[0].val();
        self.base.next = self.ip_at[0].val();
        self.p_addr_lo.d.next = self.v4_addr_lo[0].val();
        self.p_addr_hi.d.next = self.v4_addr_hi[0].val();
        if self.r_tags.q.val() == self.t1.val() {
            self.dlen.next = self.field[1].val();
            self.base.next = self.ip_at[1].val();
            self.p_addr_lo.d.next = self.v4_addr_lo[1].val();
            self.p_addr_hi.d.next = self.v4_addr_hi[1].val();
        } else if self.r_tags.q.val() == self.t2.val() {
            self.dlen.next = self.field[2].val();
            self.base.next = self.ip_at[2].val();
            self.p_addr_lo.d.next = self.v4_addr_lo[2].val();
            self.p_addr_hi.d.next = self.v4_addr_hi[2].val();
        }
        self.hlen.next = self.ihl16.o.val() << 2;
        if self.r_v6.q.val() {
            self.hlen.next = self.zero16.val();
            self.dlen.next = self.field[3].val();
            self.base.next = self.v6_base[0].val();
            self.p_addr_lo.d.next = self.v6_addr_lo[0].val();
            self.p_addr_hi.d.next = self.v6_addr_hi[0].val();
            if self.r_tags.q.val() == self.t1.val() {
                self.dlen.next = self.field[4].val();
                self.base.next = self.v6_base[1].val();
                self.p_addr_lo.d.next = self.v6_addr_lo[1].val();
                self.p_addr_hi.d.next = self.v6_addr_hi[1].val();
            } else if self.r_tags.q.val() == self.t2.val() {
                self.dlen.next = self.field[5].val();
                self.base.next = self.v6_base[2].val();
                self.p_addr_lo.d.next = self.v6_addr_lo[2].val();
                self.p_addr_hi.d.next = self.v6_addr_hi[2].val();
            }
        }
        if !self.advance.val() {
            self.p_addr_lo.d.next = self.p_addr_lo.q.val();
            self.p_addr_hi.d.next = self.p_addr_hi.q.val();
        }
        if self.advance.val() {
            self.p_dlen.d.next = self.dlen.val();
            self.p_hlen.d.next = self.hlen.val();
            self.p_base.d.next = self.base.val();
            self.p_ok.d.next = self.r_check.q.val()
                & (self.r_v6.q.val() | (self.r_ihl.q.val() >= self.ihl_min.val()))
                & (self.dlen.val() < self.too_long.val());
            self.p_data.d.next = self.r_data.q.val();
            self.p_len.d.next = self.r_len.q.val();
            self.p_sum.d.next = self.r_sum.q.val();
            self.p_udp.d.next = self.r_udp.q.val();
        }

        // ---- Stage 3: the sums, from registers (a wide adder's inputs come
        // from registers: logic before a carry chain is mapped on its own
        // and can come out as deep as a stage may be) ----
        if self.advance.val() {
            self.s2_l4_at.d.next = self.p_base.q.val() + self.p_hlen.q.val();
            self.s2_end.d.next = self.p_base.q.val() + self.p_dlen.q.val();
            self.s2_seg.d.next = self.p_dlen.q.val() - self.p_hlen.q.val();
            self.s2_ok.d.next = self.p_ok.q.val() & (self.p_dlen.q.val() >= self.p_hlen.q.val());
            self.s2_addr_lo.d.next = self.p_addr_lo.q.val();
            self.s2_addr_hi.d.next = self.p_addr_hi.q.val();
            self.s2_data.d.next = self.p_data.q.val();
            self.s2_len.d.next = self.p_len.q.val();
            self.s2_sum.d.next = self.p_sum.q.val();
            self.s2_udp.d.next = self.p_udp.q.val();
        }

        // ---- Stage 4 ----
        // The frame's sum is used when the datagram ends past the first beat.
        self.use_sum.next = self.s2_end.q.val() > self.beat_end.val();
        for b in 0..BYTES {
            self.ge_l4[b].next = self.s2_l4_at.q.val() <= self.byte_at[b].val();
            self.lt_end[b].next = self.byte_at[b].val() < self.s2_end.q.val();
            self.addr[b].next = (self.s2_addr_lo.q.val() <= self.byte_at[b].val())
                & (self.byte_at[b].val() < self.s2_addr_hi.q.val());
            // Bytes to take away from the frame's sum, or to add.
            self.take[b].next = (self.ge_l4[b].val() & self.lt_end[b].val()) | self.addr[b].val();
            if self.use_sum.val() {
                self.take[b].next = !self.ge_l4[b].val() & !self.addr[b].val();
            }
        }
        for w in 0..WORDS {
            self.word[w].next = self.s2_data.q.val().get_bits::<16>(16 * w);
            self.udp_field[w].next = (self.s2_l4_at.q.val() == self.field_at[w].val())
                & (self.word[w].val() != self.zero16.val());
        }
        self.udp_nonzero.next = false;
        for w in 0..WORDS {
            self.udp_nonzero.next = self.udp_nonzero.val() | self.udp_field[w].val();
        }
        for w in 0..WORDS {
            self.c[w].next = self.word[w].val();
            if !self.take[2 * w].val() {
                self.c[w].next = self.c[w].val() & self.hi8.val();
            }
            if !self.take[2 * w + 1].val() {
                self.c[w].next = self.c[w].val() & self.lo8.val();
            }
            if self.use_sum.val() {
                self.c[w].next = !self.c[w].val();
            }
        }
        if self.advance.val() {
            for w in 0..WORDS {
                self.s3_c[w].d.next = self.c[w].val();
            }
            // The pseudo-header's L4 length and protocol, as little-endian words.
            self.s3_len_word.d.next = ((self.s2_seg.q.val() & self.lo8.val()) << 8)
                | ((self.s2_seg.q.val() & self.hi8.val()) >> 8);
            self.s3_proto_word.d.next = self.proto_tcp.val();
            if self.s2_udp.q.val() {
                self.s3_proto_word.d.next = self.proto_udp.val();
            }
            self.s3_sum.d.next = self.zero32.val();
            if self.use_sum.val() {
                self.s3_sum.d.next = self.s2_sum.q.val();
            }
            self.s3_ok.d.next = self.s2_ok.q.val();
            self.s3_fit.d.next = self.s2_end.q.val() <= self.s2_len.q.val();
            self.s3_ends.d.next =
                !self.use_sum.val() | (self.s2_end.q.val() == self.s2_len.q.val());
            self.s3_seg.d.next = self.s2_seg.q.val() >= self.tcp_min.val();
            self.s3_head.d.next = self.s2_l4_at.q.val() <= self.beat_end.val();
            self.s3_field.d.next = true;
            if self.s2_udp.q.val() {
                self.s3_seg.d.next = self.s2_seg.q.val() >= self.udp_min.val();
                self.s3_head.d.next = self.s2_l4_at.q.val() <= self.udp_head_end.val();
                self.s3_field.d.next = self.udp_nonzero.val();
            }
        }

        // ---- Stage 5: six sums of five ----
        for j in 0..5 {
            self.g0.i[j].next = self.s3_c[j].q.val();
            self.g1.i[j].next = self.s3_c[5 + j].q.val();
            self.g2.i[j].next = self.s3_c[10 + j].q.val();
            self.g3.i[j].next = self.s3_c[15 + j].q.val();
            self.g4.i[j].next = self.s3_c[20 + j].q.val();
        }
        self.g5.i[0].next = self.s3_c[25].q.val();
        self.g5.i[1].next = self.s3_len_word.q.val();
        self.g5.i[2].next = self.s3_proto_word.q.val();
        self.g5.i[3].next = self.zero16.val();
        self.g5.i[4].next = self.zero16.val();
        if self.advance.val() {
            self.s4_g[0].d.next = self.g0.o.val();
            self.s4_g[1].d.next = self.g1.o.val();
            self.s4_g[2].d.next = self.g2.o.val();
            self.s4_g[3].d.next = self.g3.o.val();
            self.s4_g[4].d.next = self.g4.o.val();
            self.s4_g[5].d.next = self.g5.o.val();
            self.s4_sum.d.next = self.s3_sum.q.val();
            self.s4_ok.d.next = self.s3_ok.q.val()
                & self.s3_fit.q.val()
                & self.s3_ends.q.val()
                & self.s3_seg.q.val()
                & self.s3_head.q.val()
                & self.s3_field.q.val();
        }
        // ---- Stage 6 ----
        for g in 0..6 {
            self.all.i[g].next = self.s4_g[g].q.val();
        }
        if self.advance.val() {
            self.s5_t.d.next = self.all.o.val();
            self.s5_sum.d.next = self.s4_sum.q.val();
            self.s5_ok.d.next = self.s4_ok.q.val();
        }
        // ---- Stage 7 ----
        self.t32.i.next = self.s5_t.q.val();
        if self.advance.val() {
            self.s6_y.d.next = self.s5_sum.q.val() + self.t32.o.val();
            self.s6_ok.d.next = self.s5_ok.q.val();
        }
        // ---- Stage 8: carries folded back in; 0 modulo 0xFFFF verifies ----
        self.fold1.next = (self.s6_y.q.val() & self.ones16.val()) + (self.s6_y.q.val() >> 16);
        self.fold2.next = (self.fold1.val() & self.ones16.val()) + (self.fold1.val() >> 16);
        if self.advance.val() {
            self.s7_ok.d.next = self.s6_ok.q.val()
                & ((self.fold2.val() == self.ones16.val())
                    | (self.fold2.val() == self.zero32.val()));
        }
        self.ok.next = self.s7_ok.q.val();
    }
}
