use crate::konst as k;
use crate::stream::ZeroExtend;
use pendulum_layout::params::{MAX_FRAME_BYTES, SLOT_BITS};
use pendulum_layout::ring::{LEN, UNIT_BYTES};
use rust_hdl::prelude::*;

/// Units in a 64-byte line.
const LINE_UNITS: usize = 4;

/// Reads the LEN field of each 16-byte unit of a 64-byte line as if the
/// unit were a ring entry's header (`pendulum_layout::ring`), and says what
/// it would make of the entry: the frame's units, whether the length can be sent, and which beat
/// counts it fits in. The ring unpacker decodes every line as it enters its
/// window, so that the one unit that is a header is read from registers.
///
/// Combinational.
#[derive(LogicBlock)]
pub struct EntryLens {
    /// Each unit's first 16 bits (where a header holds LEN).
    pub len: [Signal<In, Bits<16>>; LINE_UNITS],
    /// The frame's units, `ceil(LEN / 16)`.
    pub data_units: [Signal<Out, Bits<16>>; LINE_UNITS],
    /// The entry's units, its header's included: `entry_units(LEN)`.
    pub entry_units: [Signal<Out, Bits<SLOT_BITS>>; LINE_UNITS],
    /// LEN is 0 or over the MTU.
    pub bad: [Signal<Out, Bit>; LINE_UNITS],
    /// The frame fits one, two or three 64-byte beats.
    pub le1: [Signal<Out, Bit>; LINE_UNITS],
    pub le2: [Signal<Out, Bit>; LINE_UNITS],
    pub le3: [Signal<Out, Bit>; LINE_UNITS],
    /// The frame's last beat's byte enables are all ones shifted right by
    /// this: 64 less LEN mod 64, mod 64.
    pub keep_shift: [Signal<Out, Bits<6>>; LINE_UNITS],
    /// For the header at unit u: where the first beat's units end, counted
    /// from the line's unit 0 (u + 1 + min(data units, 4)), and whether
    /// that is past the line (the beat needs the next line too).
    pub first_end: [Signal<Out, Bits<4>>; LINE_UNITS],
    pub first_next: [Signal<Out, Bit>; LINE_UNITS],

    first_units: [Signal<Local, Bits<4>>; LINE_UNITS],
    // Unit u + 1.
    after: [Constant<Bits<4>>; LINE_UNITS],
    four4: Constant<Bits<4>>,
    zero6: Constant<Bits<6>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    // LEN over 16, as wide as a ring position.
    len_units: [ZeroExtend<12, SLOT_BITS>; LINE_UNITS],
    one_pos: Constant<Bits<SLOT_BITS>>,
    two_pos: Constant<Bits<SLOT_BITS>>,
    zero4: Constant<Bits<4>>,
    mtu: Constant<Bits<16>>,
    beat1: Constant<Bits<16>>,
    beat2: Constant<Bits<16>>,
    beat3: Constant<Bits<16>>,
}

impl EntryLens {
    pub fn new() -> Self {
        let beat = 4 * UNIT_BYTES as u64;
        Self {
            len: Default::default(),
            data_units: Default::default(),
            entry_units: Default::default(),
            bad: Default::default(),
            le1: Default::default(),
            le2: Default::default(),
            le3: Default::default(),
            keep_shift: Default::default(),
            first_end: Default::default(),
            first_next: Default::default(),
            first_units: Default::default(),
            after: [k(1), k(2), k(3), k(4)],
            four4: k(4),
            zero6: k(0),
            zero16: k(0),
            one16: k(1),
            len_units: Default::default(),
            one_pos: k(1),
            two_pos: k(2),
            zero4: k(0),
            mtu: k(MAX_FRAME_BYTES as u64),
            beat1: k(beat),
            beat2: k(2 * beat),
            beat3: k(3 * beat),
        }
    }
}

impl Default for EntryLens {
    fn default() -> Self {
        Self::new()
    }
}

// The header's LEN field is its first 16 bits (checked below).
const _: () = assert!(LEN.lsb == 0 && LEN.width == 16 && UNIT_BYTES == 16);

impl Logic for EntryLens {
    #[hdl_gen]
    fn update(&mut self) {
        for u in 0..4 {
            self.data_units[u].next = self.len[u].val() >> 4;
            self.len_units[u].i.next = self.len[u].val().get_bits::<12>(4);
            self.entry_units[u].next = self.len_units[u].o.val() + self.one_pos.val();
            if self.len[u].val().get_bits::<4>(0) != self.zero4.val() {
                self.data_units[u].next = (self.len[u].val() >> 4) + self.one16.val();
                self.entry_units[u].next = self.len_units[u].o.val() + self.two_pos.val();
            }
            self.bad[u].next =
                (self.len[u].val() == self.zero16.val()) | (self.len[u].val() > self.mtu.val());
            self.le1[u].next = self.len[u].val() <= self.beat1.val();
            self.le2[u].next = self.len[u].val() <= self.beat2.val();
            self.le3[u].next = self.len[u].val() <= self.beat3.val();
            self.keep_shift[u].next = self.zero6.val() - self.len[u].val().get_bits::<6>(0);
            // min(data units, 4): LEN <= 64 makes at most 4.
            self.first_units[u].next = self.four4.val();
            if self.le1[u].val() {
                self.first_units[u].next = self.data_units[u].val().get_bits::<4>(0);
            }
            self.first_end[u].next = self.after[u].val() + self.first_units[u].val();
            self.first_next[u].next = self.first_end[u].val() > self.four4.val();
        }
    }
}
