use super::{FlowKeyParser, Toeplitz};
use crate::reset::{Clear, SDFF};
use crate::stream::{Concat, SkidBuffer, StreamSink, StreamSource};
use crate::types::RxBeat;
use pendulum_layout::flow::{FALLBACK_TRIES, KEY_MATCH_BYTES};
use pendulum_layout::params::{FLOW_BUCKET_BITS as BB, FLOW_SLOT_BITS, FLOW_WAYS, PIPE_BITS};
use rust_hdl::prelude::*;

/// Key bits the table compares.
pub const MATCH_BITS: usize = 8 * KEY_MATCH_BYTES;
/// A table entry's tag: valid (top bit) and pipe.
const TAG_BITS: usize = PIPE_BITS + 1;
/// Widths of bit indices into a tag and a slot number (Verilog wants them exact).
const TAG_INDEX_BITS: usize = (usize::BITS - (TAG_BITS - 1).leading_zeros()) as usize;
const SLOT_INDEX_BITS: usize = (usize::BITS - (FLOW_SLOT_BITS - 1).leading_zeros()) as usize;

/// Flow director: chooses each received frame's pipe by the rules of
/// `pendulum_layout::flow` (`steer`): non-IP frames to the default pipe; IP
/// frames by an exact-match table on their flow key, and on a miss by their
/// RSS hash over the fallback pipes; never to a reserved pipe (the atomic
/// unit's or the link's, `reserved_pipe`): an entry naming one is a miss, and
/// a miss tries the next pipes of the fallback range, then the default pipe
/// (which the register file never lets be reserved).
///
/// The table has `FLOW_WAYS` ways, each a block RAM of key and tag, read in
/// parallel at the bucket the key's hash gives for that way (d-left hashing:
/// four candidate slots per key). Software places entries (FLOW_WRITE); the
/// hardware only looks up.
///
/// Four stages, then an output register: 1 parse the key from the first
/// beat, 2 hash it (Toeplitz, one XOR tree), 3 compare the four ways read at
/// the hash's buckets (and hold the fallback range's candidate pipes), 4 pick
/// the pipe (from the ways that hit a pipe not reserved, and the first
/// candidate not reserved, both chosen on the way in). Every beat of a frame moves through
/// the stages; only the first beat's pipe counts. The RAMs are read one
/// cycle ahead at the buckets of whichever beat will sit in stage 3 next
/// cycle, so a stall never mixes one frame's entries with another's key.
/// (The compare and the pick have a stage each: the RAM's read, the wide
/// compare and the choice among the ways are too deep for one cycle.)
///
/// A frame's first beat leaves with its ring header's HASH (the key's RSS
/// hash; 0 for a frame with no key) and, on a hit, FLOW_HIT in its FLAGS.
///
/// Latency 5 cycles; 1 beat/cycle; stalls only on `m.ready`. A table write
/// applies to frames looked up after it; one in flight may see either.
#[derive(LogicBlock)]
pub struct FlowDirector {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The reset's table sweep (`crate::reset::Clear`): every entry's tag
    /// is zeroed, one bucket a cycle, while it is active. A zero tag is an
    /// empty entry, whatever its key RAM holds, so the keys are left.
    pub clear: Clear<BB>,
    /// Beats from the parse stage (their `pipe` is ignored).
    pub s: StreamSink<RxBeat>,
    /// The same beats with `pipe` chosen.
    pub m: StreamSource<RxBeat>,
    /// A table write: slot (way * buckets + bucket), install or empty, key
    /// (the bytes compared), pipe.
    pub wr: Signal<In, Bit>,
    pub wr_slot: Signal<In, Bits<FLOW_SLOT_BITS>>,
    pub wr_valid: Signal<In, Bit>,
    pub wr_key: Signal<In, Bits<MATCH_BITS>>,
    pub wr_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub default_pipe: Signal<In, Bits<PIPE_BITS>>,
    pub fallback_first: Signal<In, Bits<PIPE_BITS>>,
    /// count - 1 (count a power of two).
    pub fallback_mask: Signal<In, Bits<PIPE_BITS>>,
    /// Pipes no frame may go to (the link's and the atomic unit's RX pipes),
    /// each while its `reserved_on` is set.
    pub reserved_pipe: [Signal<In, Bits<PIPE_BITS>>; 2],
    pub reserved_on: [Signal<In, Bit>; 2],
    /// One-cycle events as an IP frame's first beat leaves: hit or miss (a
    /// hit on a reserved pipe is a miss).
    pub ev_hit: Signal<Out, Bit>,
    pub ev_miss: Signal<Out, Bit>,

    parser: FlowKeyParser,
    hash4: Toeplitz<96>,
    hash6: Toeplitz<288>,
    key_ram: [RAM<Bits<MATCH_BITS>, BB>; FLOW_WAYS],
    tag_ram: [RAM<Bits<TAG_BITS>, BB>; FLOW_WAYS],
    wr_tag: Concat<1, PIPE_BITS, TAG_BITS>,
    zero_tag: Constant<Bits<TAG_BITS>>,
    zero_hash: Constant<Bits<32>>,
    flow_hit_flag: Constant<Bits<16>>,

    // Stage 1: the key parsed.
    s1_valid: SDFF<Bit>,
    s1_beat: SDFF<RxBeat>,
    s1_key: SDFF<Bits<320>>,
    s1_ip: SDFF<Bit>,
    s1_v6: SDFF<Bit>,
    s1_v4_in: SDFF<Bits<96>>,
    // Stage 2: hashed.
    s2_valid: SDFF<Bit>,
    s2_beat: SDFF<RxBeat>,
    s2_key: SDFF<Bits<320>>,
    s2_ip: SDFF<Bit>,
    s2_hash: SDFF<Bits<32>>,
    // Stage 3: the ways read at its buckets arrive this cycle.
    s3_valid: SDFF<Bit>,
    s3_beat: SDFF<RxBeat>,
    s3_key: SDFF<Bits<320>>,
    s3_ip: SDFF<Bit>,
    s3_hash: SDFF<Bits<32>>,
    // The fallback range's pipes for hash + k, k = 0..FALLBACK_TRIES.
    s3_cand: [SDFF<Bits<PIPE_BITS>>; FALLBACK_TRIES],
    // Stage 4: which ways hit, their pipes and whether those are reserved,
    // and the fallback pipe (the first candidate not reserved, else the
    // default pipe).
    s4_valid: SDFF<Bit>,
    s4_beat: SDFF<RxBeat>,
    s4_ip: SDFF<Bit>,
    s4_hash: SDFF<Bits<32>>,
    s4_hit: [SDFF<Bit>; FLOW_WAYS],
    s4_pipe: [SDFF<Bits<PIPE_BITS>>; FLOW_WAYS],
    s4_reserved: [SDFF<Bit>; FLOW_WAYS],
    s4_fallback: SDFF<Bits<PIPE_BITS>>,
    out: SkidBuffer<RxBeat>,

    move1: Signal<Local, Bit>,
    move2: Signal<Local, Bit>,
    move3: Signal<Local, Bit>,
    move4: Signal<Local, Bit>,
    hit: [Signal<Local, Bit>; FLOW_WAYS],
    way_reserved: [Signal<Local, Bit>; FLOW_WAYS],
    cand_reserved: [Signal<Local, Bit>; FALLBACK_TRIES],
    tries: [Constant<Bits<PIPE_BITS>>; FALLBACK_TRIES],
    any_hit: Signal<Local, Bit>,
    sel_pipe: Signal<Local, Bits<PIPE_BITS>>,
    wr_way: Signal<Local, Bits<2>>,
    rd_hash: Signal<Local, Bits<32>>,
    way_id: [Constant<Bits<2>>; FLOW_WAYS],
    at_way: Constant<Bits<SLOT_INDEX_BITS>>,
    at_valid: Constant<Bits<TAG_INDEX_BITS>>,
}

impl FlowDirector {
    pub fn new() -> Self {
        const {
            assert!(
                FLOW_WAYS <= 4 && FLOW_SLOT_BITS == BB + 2,
                "FLOW_WAYS is at most 4 (a 2-bit way in the slot number)"
            )
        };
        const {
            assert!(
                FALLBACK_TRIES == 3,
                "stage 4's fallback pick is written out for three candidates"
            )
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            zero_tag: Constant::new(0u64.into()),
            zero_hash: Constant::new(0u64.into()),
            flow_hit_flag: Constant::new((pendulum_layout::ring::flags::FLOW_HIT as u64).into()),
            s: Default::default(),
            m: Default::default(),
            wr: Default::default(),
            wr_slot: Default::default(),
            wr_valid: Default::default(),
            wr_key: Default::default(),
            wr_pipe: Default::default(),
            default_pipe: Default::default(),
            fallback_first: Default::default(),
            fallback_mask: Default::default(),
            reserved_pipe: Default::default(),
            reserved_on: Default::default(),
            ev_hit: Default::default(),
            ev_miss: Default::default(),
            parser: Default::default(),
            hash4: Default::default(),
            hash6: Default::default(),
            key_ram: Default::default(),
            tag_ram: Default::default(),
            wr_tag: Default::default(),
            s1_valid: Default::default(),
            s1_beat: Default::default(),
            s1_key: Default::default(),
            s1_ip: Default::default(),
            s1_v6: Default::default(),
            s1_v4_in: Default::default(),
            s2_valid: Default::default(),
            s2_beat: Default::default(),
            s2_key: Default::default(),
            s2_ip: Default::default(),
            s2_hash: Default::default(),
            s3_valid: Default::default(),
            s3_beat: Default::default(),
            s3_key: Default::default(),
            s3_ip: Default::default(),
            s3_hash: Default::default(),
            s3_cand: Default::default(),
            s4_valid: Default::default(),
            s4_beat: Default::default(),
            s4_ip: Default::default(),
            s4_hash: Default::default(),
            s4_hit: Default::default(),
            s4_pipe: Default::default(),
            s4_reserved: Default::default(),
            s4_fallback: Default::default(),
            out: Default::default(),
            move1: Default::default(),
            move2: Default::default(),
            move3: Default::default(),
            move4: Default::default(),
            hit: Default::default(),
            way_reserved: Default::default(),
            cand_reserved: Default::default(),
            tries: std::array::from_fn(|k| Constant::new((k as u64).into())),
            any_hit: Default::default(),
            sel_pipe: Default::default(),
            wr_way: Default::default(),
            rd_hash: Default::default(),
            way_id: std::array::from_fn(|w| Constant::new((w as u64).into())),
            at_way: Constant::new((BB as u64).into()),
            at_valid: Constant::new((PIPE_BITS as u64).into()),
        }
    }
}

impl Default for FlowDirector {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for FlowDirector {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_beat,
            s1_key,
            s1_ip,
            s1_v6,
            s1_v4_in,
            s2_valid,
            s2_beat,
            s2_key,
            s2_ip,
            s2_hash,
            s3_valid,
            s3_beat,
            s3_key,
            s3_ip,
            s3_hash,
            s4_valid,
            s4_beat,
            s4_ip,
            s4_hash,
            s4_fallback
        );
        self.s1_valid.reset.next = self.reset.val();
        self.s1_beat.reset.next = self.reset.val();
        self.s1_key.reset.next = self.reset.val();
        self.s1_ip.reset.next = self.reset.val();
        self.s1_v6.reset.next = self.reset.val();
        self.s1_v4_in.reset.next = self.reset.val();
        self.s2_valid.reset.next = self.reset.val();
        self.s2_beat.reset.next = self.reset.val();
        self.s2_key.reset.next = self.reset.val();
        self.s2_ip.reset.next = self.reset.val();
        self.s2_hash.reset.next = self.reset.val();
        self.s3_valid.reset.next = self.reset.val();
        self.s3_beat.reset.next = self.reset.val();
        self.s3_key.reset.next = self.reset.val();
        self.s3_ip.reset.next = self.reset.val();
        self.s3_hash.reset.next = self.reset.val();
        self.s4_valid.reset.next = self.reset.val();
        self.s4_beat.reset.next = self.reset.val();
        self.s4_ip.reset.next = self.reset.val();
        self.s4_hash.reset.next = self.reset.val();
        self.s4_fallback.reset.next = self.reset.val();
        for w in 0..FLOW_WAYS {
            self.s4_hit[w].clock.next = self.clock.val();
            self.s4_hit[w].reset.next = self.reset.val();
            self.s4_pipe[w].clock.next = self.clock.val();
            self.s4_pipe[w].reset.next = self.reset.val();
            self.s4_hit[w].d.next = self.s4_hit[w].q.val();
            self.s4_pipe[w].d.next = self.s4_pipe[w].q.val();
            self.s4_reserved[w].clock.next = self.clock.val();
            self.s4_reserved[w].reset.next = self.reset.val();
            self.s4_reserved[w].d.next = self.s4_reserved[w].q.val();
        }
        for k in 0..FALLBACK_TRIES {
            self.s3_cand[k].clock.next = self.clock.val();
            self.s3_cand[k].reset.next = self.reset.val();
            self.s3_cand[k].d.next = self.s3_cand[k].q.val();
        }
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // A stage takes the one before it when it is empty or handing on.
        self.move4.next = !self.s4_valid.q.val() | self.out.s.ready.val();
        self.move3.next = !self.s3_valid.q.val() | self.move4.val();
        self.move2.next = !self.s2_valid.q.val() | self.move3.val();
        self.move1.next = !self.s1_valid.q.val() | self.move2.val();
        self.s.ready.next = self.move1.val();

        // Stage 1.
        self.parser.beat.next = self.s.data.val().data;
        if self.move1.val() {
            self.s1_valid.d.next = self.s.valid.val();
            self.s1_beat.d.next = self.s.data.val();
            self.s1_key.d.next = self.parser.key.val();
            self.s1_ip.d.next = self.parser.ip.val();
            self.s1_v6.d.next = self.parser.v6.val();
            self.s1_v4_in.d.next = self.parser.v4_in.val();
        }

        // Stage 2.
        self.hash4.data.next = self.s1_v4_in.q.val();
        self.hash6.data.next = self.s1_key.q.val().get_bits::<288>(0);
        if self.move2.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_beat.d.next = self.s1_beat.q.val();
            self.s2_key.d.next = self.s1_key.q.val();
            self.s2_ip.d.next = self.s1_ip.q.val();
            self.s2_hash.d.next = self.hash4.hash.val();
            if self.s1_v6.q.val() {
                self.s2_hash.d.next = self.hash6.hash.val();
            }
        }

        // Stage 3, and the table: read at the buckets of what stage 3 holds
        // next cycle; written from the registers.
        if self.move3.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_beat.d.next = self.s2_beat.q.val();
            self.s3_key.d.next = self.s2_key.q.val();
            self.s3_ip.d.next = self.s2_ip.q.val();
            self.s3_hash.d.next = self.s2_hash.q.val();
            for k in 0..FALLBACK_TRIES {
                self.s3_cand[k].d.next = self.fallback_first.val()
                    + ((self.s2_hash.q.val().get_bits::<PIPE_BITS>(0) + self.tries[k].val())
                        & self.fallback_mask.val());
            }
        }
        // The hash of what stage 3 holds next cycle: its buckets are read now.
        self.rd_hash.next = self.s3_hash.q.val();
        if self.move3.val() {
            self.rd_hash.next = self.s2_hash.q.val();
        }
        self.wr_way.next = self.wr_slot.val().get_bits::<2>(self.at_way.val().index());
        self.wr_tag.hi.next = self.wr_valid.val().into();
        self.wr_tag.lo.next = self.wr_pipe.val();
        for w in 0..FLOW_WAYS {
            self.key_ram[w].read_clock.next = self.clock.val();
            self.key_ram[w].write_clock.next = self.clock.val();
            self.tag_ram[w].read_clock.next = self.clock.val();
            self.tag_ram[w].write_clock.next = self.clock.val();
            self.key_ram[w].read_address.next = self.rd_hash.val().get_bits::<BB>(8 * w);
            self.tag_ram[w].read_address.next = self.rd_hash.val().get_bits::<BB>(8 * w);
            self.key_ram[w].write_address.next = self.wr_slot.val().get_bits::<BB>(0);
            self.tag_ram[w].write_address.next = self.wr_slot.val().get_bits::<BB>(0);
            self.key_ram[w].write_data.next = self.wr_key.val();
            self.tag_ram[w].write_data.next = self.wr_tag.o.val();
            self.key_ram[w].write_enable.next =
                self.wr.val() & (self.wr_way.val() == self.way_id[w].val());
            self.tag_ram[w].write_enable.next =
                self.wr.val() & (self.wr_way.val() == self.way_id[w].val());
            if self.clear.active.val() {
                self.tag_ram[w].write_enable.next = true;
                self.tag_ram[w].write_address.next = self.clear.addr.val();
                self.tag_ram[w].write_data.next = self.zero_tag.val();
            }
            self.hit[w].next = self.tag_ram[w]
                .read_data
                .val()
                .get_bit(self.at_valid.val().index())
                & (self.key_ram[w].read_data.val()
                    == self.s3_key.q.val().get_bits::<MATCH_BITS>(0));
            self.way_reserved[w].next = (self.reserved_on[0].val()
                & (self.tag_ram[w].read_data.val().get_bits::<PIPE_BITS>(0)
                    == self.reserved_pipe[0].val()))
                | (self.reserved_on[1].val()
                    & (self.tag_ram[w].read_data.val().get_bits::<PIPE_BITS>(0)
                        == self.reserved_pipe[1].val()));
        }
        for k in 0..FALLBACK_TRIES {
            self.cand_reserved[k].next = (self.reserved_on[0].val()
                & (self.s3_cand[k].q.val() == self.reserved_pipe[0].val()))
                | (self.reserved_on[1].val()
                    & (self.s3_cand[k].q.val() == self.reserved_pipe[1].val()));
        }

        // Stage 4 takes the ways' verdicts.
        if self.move4.val() {
            self.s4_valid.d.next = self.s3_valid.q.val();
            self.s4_beat.d.next = self.s3_beat.q.val();
            self.s4_ip.d.next = self.s3_ip.q.val();
            self.s4_hash.d.next = self.s3_hash.q.val();
            // The first candidate that is not reserved, else the default pipe.
            self.s4_fallback.d.next = self.default_pipe.val();
            if !self.cand_reserved[2].val() {
                self.s4_fallback.d.next = self.s3_cand[2].q.val();
            }
            if !self.cand_reserved[1].val() {
                self.s4_fallback.d.next = self.s3_cand[1].q.val();
            }
            if !self.cand_reserved[0].val() {
                self.s4_fallback.d.next = self.s3_cand[0].q.val();
            }
            for w in 0..FLOW_WAYS {
                self.s4_hit[w].d.next = self.hit[w].val();
                self.s4_pipe[w].d.next = self.tag_ram[w].read_data.val().get_bits::<PIPE_BITS>(0);
                self.s4_reserved[w].d.next = self.way_reserved[w].val();
            }
        }

        // The pipe: a hit's (on a pipe not reserved), else the fallback for
        // IP, else the default.
        self.any_hit.next = false;
        self.sel_pipe.next = self.s4_fallback.q.val();
        for w in 0..FLOW_WAYS {
            if self.s4_hit[w].q.val() & !self.s4_reserved[w].q.val() {
                self.any_hit.next = true;
                self.sel_pipe.next = self.s4_pipe[w].q.val();
            }
        }
        if !self.s4_ip.q.val() {
            self.sel_pipe.next = self.default_pipe.val();
        }

        self.out.s.data.next = self.s4_beat.q.val();
        self.out.s.data.next.pipe = self.sel_pipe.val();
        // The ring header's HASH (0 without a flow key) and FLOW_HIT.
        self.out.s.data.next.hash = self.zero_hash.val();
        if self.s4_ip.q.val() {
            self.out.s.data.next.hash = self.s4_hash.q.val();
        }
        if self.s4_ip.q.val() & self.any_hit.val() {
            self.out.s.data.next.flags = self.s4_beat.q.val().flags | self.flow_hit_flag.val();
        }
        self.out.s.valid.next = self.s4_valid.q.val();
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();

        self.ev_hit.next = false;
        self.ev_miss.next = false;
        if self.s4_valid.q.val()
            & self.out.s.ready.val()
            & self.s4_beat.q.val().sop
            & self.s4_ip.q.val()
        {
            self.ev_hit.next = self.any_hit.val();
            self.ev_miss.next = !self.any_hit.val();
        }
    }
}
