use super::entry_lens::EntryLens;
use crate::konst as k;
use crate::reset::SDFF;
use crate::stream::{Join, SkidBuffer, StreamSink, StreamSource, ZeroExtend};
use crate::types::{CplBeat, TxEntryBeat, TxReadInfo};
use pendulum_layout::params::{SLOT_BITS, TX_PIPE_BITS};
use rust_hdl::prelude::*;

// A header's TX stamp request is bit 31 of its unit (FLAGS bit 15; hdl_gen
// takes a literal bit index).
const _: () = assert!(
    pendulum_layout::ring::FLAGS.lsb
        + pendulum_layout::ring::tx_flags::STAMP.trailing_zeros() as usize
        == 31
);

/// Ring unpacker: the TX side's mirror of `RingPacker`. It reads the
/// 64-byte lines of a TX ring (v2, `pendulum_layout::ring`: entries of a
/// 16-byte header and a frame padded to 16-byte units, back to back from
/// any unit) and hands out each entry's frame realigned to start at byte 0
/// of a beat, with the entry's length, its place in the ring and, on its
/// last beat, the byte enables its LEN gives. The length comes from the
/// header only; nothing parses the frame.
///
/// Reads come in request order, each with a `TxReadInfo`. A read that
/// starts a run says where the run's first entry starts and how many units
/// the run has (up to the tail software rang); later reads of the run follow
/// line after line. Within a run, each entry's header says where the next
/// one starts. Past the run's tail the rest of its line is skipped, and so
/// is every line up to the next run's first.
///
/// An entry that cannot be sent becomes one beat marked `bad` (`sop` and
/// `last`), and the unpacker skips its units itself:
/// - LEN 0 or over the MTU, within the run: its `entry_units(LEN)` units,
///   so the entries behind it are still found;
/// - running past the run's tail: everything to the tail.
///
/// A run that ends inside a frame (its pipe restarted: the fetcher stops
/// the run, and the next line starts another) ends that frame with a
/// `last` beat marked `abort`.
///
/// The window: two line registers (`l0`, `l1`). The next unit to take is
/// at `pos` in `l0`; a beat takes up to five units (a header and four
/// frame units), so it needs `l1` too when they run past `l0`, and uses up
/// 0, 1 or 2 lines. Each line's units are decoded as headers (`EntryLens`)
/// as the line enters `l0`, so the header at `pos` is read from registers.
///
/// 1 line/cycle in, 1 beat/cycle out; a 64-byte frame's entry is 5 units,
/// so back-to-back 64-byte frames leave at 4 in 5 cycles (200 Mpps at
/// 250 MHz, above 100 GbE's 148.8 Mpps). Latency: 3 cycles from a line on
/// `s_line` to its beat on `m` (input skid, window, output skid).
#[derive(LogicBlock)]
pub struct RingUnpacker {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// Read completions, in request order: 64-byte lines, `last` on each
    /// read's last line.
    pub s_line: StreamSink<CplBeat>,
    /// One entry per read, taken with the read's first line.
    pub s_info: StreamSink<TxReadInfo>,
    pub m: StreamSource<TxEntryBeat>,
    /// A line left `s_line` (a completion beat's credit goes back).
    pub line_taken: Signal<Out, Bit>,

    inp: SkidBuffer<CplBeat>,
    out: SkidBuffer<TxEntryBeat>,
    in_data: Signal<Local, Bits<512>>,
    in_ok: Signal<Local, Bit>,
    in_rs: Signal<Local, Bit>,
    dec_l1: EntryLens,
    dec_in: EntryLens,

    // ---- The window ----
    l0: SDFF<Bits<512>>,
    l1: SDFF<Bits<512>>,
    v0: SDFF<Bit>,
    v1: SDFF<Bit>,
    // The read info that came with the line (`run_start` only on a run's
    // first line, cleared once the run is taken up).
    i0: SDFF<TxReadInfo>,
    i1: SDFF<TxReadInfo>,
    i0v: Signal<Local, TxReadInfo>,
    i0_unit: Signal<Local, Bits<SLOT_BITS>>,
    rs0: Signal<Local, Bit>,
    rs1: Signal<Local, Bit>,
    in_beat: Signal<Local, CplBeat>,
    // The lines taken so far are inside a read (its last not yet taken).
    mid: SDFF<Bit>,
    // `l0`'s units read as headers.
    f_units: [SDFF<Bits<16>>; 4],
    f_units1: [SDFF<Bits<SLOT_BITS>>; 4],
    f_bad: [SDFF<Bit>; 4],
    f_le1: [SDFF<Bit>; 4],
    f_le2: [SDFF<Bit>; 4],
    f_le3: [SDFF<Bit>; 4],
    f_shift: [SDFF<Bits<6>>; 4],
    f_first_end: [SDFF<Bits<4>>; 4],
    f_first_next: [SDFF<Bit>; 4],
    // The read being taken in is its run's last (then its last line is the
    // run's: a line's `run_end` says so in `i0`, `i1`).
    read_end: SDFF<Bit>,
    in_fin: Signal<Local, Bit>,
    fin0: Signal<Local, Bit>,

    // ---- The run and the entry ----
    // The next unit to take, in `l0`, and its place in the ring.
    pos: SDFF<Bits<4>>,
    at: SDFF<Bits<SLOT_BITS>>,
    mask: SDFF<Bits<SLOT_BITS>>,
    pipe: SDFF<Bits<TX_PIPE_BITS>>,
    // Units of the run from `at` on (the entries started are taken off
    // whole), and whether any are left.
    run_left: SDFF<Bits<SLOT_BITS>>,
    run_live: SDFF<Bit>,
    // The unit after the run (the tail software rang).
    run_tail: SDFF<Bits<SLOT_BITS>>,
    // A frame is being handed out: its units still to take, and whether
    // they fit one beat or two.
    in_entry: SDFF<Bit>,
    left: SDFF<Bits<16>>,
    left_le1: SDFF<Bit>,
    left_le2: SDFF<Bit>,
    // A bad entry's units still to skip.
    skip: SDFF<Bit>,
    skip_left: SDFF<Bits<16>>,
    e_len: SDFF<Bits<16>>,
    e_start: SDFF<Bits<SLOT_BITS>>,
    e_end: SDFF<Bits<SLOT_BITS>>,
    e_shift: SDFF<Bits<6>>,

    // ---- This cycle ----
    wu: [Signal<Local, Bits<128>>; 8],
    lane: Join<4, 128, 512>,
    p0: Signal<Local, Bit>,
    p1: Signal<Local, Bit>,
    hd_units: Signal<Local, Bits<16>>,
    hd_units1: Signal<Local, Bits<SLOT_BITS>>,
    hd_bad: Signal<Local, Bit>,
    hd_le1: Signal<Local, Bit>,
    hd_le2: Signal<Local, Bit>,
    hd_le3: Signal<Local, Bit>,
    hd_shift: Signal<Local, Bits<6>>,
    hd_len: Signal<Local, Bits<16>>,
    hd_stamp: Signal<Local, Bit>,
    hd_first_end: Signal<Local, Bits<4>>,
    hd_first_next: Signal<Local, Bit>,
    // The entry runs past its run: it is bad, and the rest of the run is skipped.
    stop: Signal<Local, Bit>,
    s_off: Signal<Local, Bits<4>>,
    // Where the next beat of the frame being handed out ends (as `t_end`),
    // set as the beat before it goes.
    e_tend: SDFF<Bits<4>>,
    // The low bits of the frame's units left after this beat, minus 4.
    nl4: Signal<Local, Bits<4>>,
    t_end: Signal<Local, Bits<4>>,
    need2: Signal<Local, Bit>,
    cut: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    end_ok: Signal<Local, Bits<SLOT_BITS>>,
    pos16: ZeroExtend<4, 16>,
    room: Signal<Local, Bits<4>>,
    skip_ge_room: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    k1: Signal<Local, Bit>,
    k2: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    o_shift: Signal<Local, Bits<6>>,
    o_last: Signal<Local, Bit>,
    // The frame's last beat (a bad or aborted one's byte enables mean nothing).
    o_frame_last: Signal<Local, Bit>,

    ku: [Constant<Bits<4>>; 5],
    k8: Constant<Bits<4>>,
    four16: Constant<Bits<16>>,
    zero_pos: Constant<Bits<SLOT_BITS>>,
    twelve16: Constant<Bits<16>>,
    zero12: Constant<Bits<12>>,
    all_keep: Constant<Bits<64>>,
}

impl RingUnpacker {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_line: Default::default(),
            s_info: Default::default(),
            m: Default::default(),
            line_taken: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            in_data: Default::default(),
            in_ok: Default::default(),
            in_rs: Default::default(),
            dec_l1: EntryLens::new(),
            dec_in: EntryLens::new(),
            l0: Default::default(),
            l1: Default::default(),
            v0: Default::default(),
            v1: Default::default(),
            i0: Default::default(),
            i1: Default::default(),
            i0v: Default::default(),
            i0_unit: Default::default(),
            rs0: Default::default(),
            rs1: Default::default(),
            in_beat: Default::default(),
            mid: Default::default(),
            f_units: Default::default(),
            f_units1: Default::default(),
            f_bad: Default::default(),
            f_le1: Default::default(),
            f_le2: Default::default(),
            f_le3: Default::default(),
            f_shift: Default::default(),
            f_first_end: Default::default(),
            f_first_next: Default::default(),
            fin0: Default::default(),
            read_end: Default::default(),
            in_fin: Default::default(),
            pos: Default::default(),
            at: Default::default(),
            mask: Default::default(),
            pipe: Default::default(),
            run_left: Default::default(),
            run_live: Default::default(),
            run_tail: Default::default(),
            in_entry: Default::default(),
            left: Default::default(),
            left_le1: Default::default(),
            left_le2: Default::default(),
            skip: Default::default(),
            skip_left: Default::default(),
            e_len: Default::default(),
            e_start: Default::default(),
            e_end: Default::default(),
            e_shift: Default::default(),
            wu: Default::default(),
            lane: Default::default(),
            p0: Default::default(),
            p1: Default::default(),
            hd_units: Default::default(),
            hd_units1: Default::default(),
            hd_bad: Default::default(),
            hd_le1: Default::default(),
            hd_le2: Default::default(),
            hd_le3: Default::default(),
            hd_shift: Default::default(),
            hd_len: Default::default(),
            hd_stamp: Default::default(),
            hd_first_end: Default::default(),
            hd_first_next: Default::default(),
            stop: Default::default(),
            s_off: Default::default(),
            e_tend: Default::default(),
            nl4: Default::default(),
            t_end: Default::default(),
            need2: Default::default(),
            cut: Default::default(),
            over: Default::default(),
            end_ok: Default::default(),
            pos16: Default::default(),
            room: Default::default(),
            skip_ge_room: Default::default(),
            consume: Default::default(),
            k1: Default::default(),
            k2: Default::default(),
            take: Default::default(),
            o_shift: Default::default(),
            o_last: Default::default(),
            o_frame_last: Default::default(),
            ku: [k(0), k(1), k(2), k(3), k(4)],
            k8: k(8),
            four16: k(4),
            zero_pos: k(0),
            twelve16: k(12),
            zero12: k(0),
            all_keep: Constant::new(u64::MAX.into()),
        }
    }
}

impl Default for RingUnpacker {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RingUnpacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, l0, l1, v0, v1, i0, i1, read_end, e_tend, mid, pos, at, mask, pipe,
            run_left, run_live, run_tail, in_entry, left, left_le1, left_le2, skip, skip_left,
            e_len, e_start, e_end, e_shift
        );
        self.l0.reset.next = self.reset.val();
        self.l1.reset.next = self.reset.val();
        self.v0.reset.next = self.reset.val();
        self.v1.reset.next = self.reset.val();
        self.i0.reset.next = self.reset.val();
        self.i1.reset.next = self.reset.val();
        self.mid.reset.next = self.reset.val();
        self.e_tend.reset.next = self.reset.val();
        self.read_end.reset.next = self.reset.val();
        self.pos.reset.next = self.reset.val();
        self.at.reset.next = self.reset.val();
        self.mask.reset.next = self.reset.val();
        self.pipe.reset.next = self.reset.val();
        self.run_left.reset.next = self.reset.val();
        self.run_live.reset.next = self.reset.val();
        self.run_tail.reset.next = self.reset.val();
        self.in_entry.reset.next = self.reset.val();
        self.left.reset.next = self.reset.val();
        self.left_le1.reset.next = self.reset.val();
        self.left_le2.reset.next = self.reset.val();
        self.skip.reset.next = self.reset.val();
        self.skip_left.reset.next = self.reset.val();
        self.e_len.reset.next = self.reset.val();
        self.e_start.reset.next = self.reset.val();
        self.e_end.reset.next = self.reset.val();
        self.e_shift.reset.next = self.reset.val();
        for u in 0..4 {
            self.f_units[u].clock.next = self.clock.val();
            self.f_units[u].reset.next = self.reset.val();
            self.f_units[u].d.next = self.f_units[u].q.val();
            self.f_units1[u].clock.next = self.clock.val();
            self.f_units1[u].reset.next = self.reset.val();
            self.f_units1[u].d.next = self.f_units1[u].q.val();
            self.f_bad[u].clock.next = self.clock.val();
            self.f_bad[u].reset.next = self.reset.val();
            self.f_bad[u].d.next = self.f_bad[u].q.val();
            self.f_le1[u].clock.next = self.clock.val();
            self.f_le1[u].reset.next = self.reset.val();
            self.f_le1[u].d.next = self.f_le1[u].q.val();
            self.f_le2[u].clock.next = self.clock.val();
            self.f_le2[u].reset.next = self.reset.val();
            self.f_le2[u].d.next = self.f_le2[u].q.val();
            self.f_le3[u].clock.next = self.clock.val();
            self.f_le3[u].reset.next = self.reset.val();
            self.f_le3[u].d.next = self.f_le3[u].q.val();
            self.f_shift[u].clock.next = self.clock.val();
            self.f_shift[u].reset.next = self.reset.val();
            self.f_shift[u].d.next = self.f_shift[u].q.val();
            self.f_first_end[u].clock.next = self.clock.val();
            self.f_first_end[u].reset.next = self.reset.val();
            self.f_first_end[u].d.next = self.f_first_end[u].q.val();
            self.f_first_next[u].clock.next = self.clock.val();
            self.f_first_next[u].reset.next = self.reset.val();
            self.f_first_next[u].d.next = self.f_first_next[u].q.val();
        }
        self.inp.clock.next = self.clock.val();
        self.inp.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.inp.s.data.next = self.s_line.data.val();
        self.inp.s.valid.next = self.s_line.valid.val();
        self.s_line.ready.next = self.inp.s.ready.val();
        self.line_taken.next = self.s_line.valid.val() & self.inp.s.ready.val();
        self.m.data.next = self.out.m.data.val();
        self.m.valid.next = self.out.m.valid.val();
        self.out.m.ready.next = self.m.ready.val();

        // ---- The line on offer, and the header at `pos` ----
        self.in_beat.next = self.inp.m.data.val();
        self.in_data.next = self.in_beat.val().data;
        self.i0v.next = self.i0.q.val();
        self.i0_unit.next = self.i0v.val().unit;
        self.rs0.next = self.i0v.val().run_start;
        self.fin0.next = self.i0v.val().run_end;
        self.rs1.next = self.i1.q.val().run_start;
        // A read's first line enters with its info.
        self.in_ok.next = self.inp.m.valid.val() & (self.mid.q.val() | self.s_info.valid.val());
        self.in_rs.next = !self.mid.q.val() & self.s_info.data.val().run_start;
        self.in_fin.next = self.read_end.q.val() & self.in_beat.val().last;
        if !self.mid.q.val() {
            self.in_fin.next = self.s_info.data.val().run_end & self.in_beat.val().last;
        }
        self.dec_l1.len[0].next = self.l1.q.val().get_bits::<16>(0);
        self.dec_l1.len[1].next = self.l1.q.val().get_bits::<16>(128);
        self.dec_l1.len[2].next = self.l1.q.val().get_bits::<16>(256);
        self.dec_l1.len[3].next = self.l1.q.val().get_bits::<16>(384);
        self.dec_in.len[0].next = self.in_data.val().get_bits::<16>(0);
        self.dec_in.len[1].next = self.in_data.val().get_bits::<16>(128);
        self.dec_in.len[2].next = self.in_data.val().get_bits::<16>(256);
        self.dec_in.len[3].next = self.in_data.val().get_bits::<16>(384);
        self.wu[0].next = self.l0.q.val().get_bits::<128>(0);
        self.wu[1].next = self.l0.q.val().get_bits::<128>(128);
        self.wu[2].next = self.l0.q.val().get_bits::<128>(256);
        self.wu[3].next = self.l0.q.val().get_bits::<128>(384);
        self.wu[4].next = self.l1.q.val().get_bits::<128>(0);
        self.wu[5].next = self.l1.q.val().get_bits::<128>(128);
        self.wu[6].next = self.l1.q.val().get_bits::<128>(256);
        self.wu[7].next = self.l1.q.val().get_bits::<128>(384);
        // The header at `pos`: a 4:1 choice on its two bits (one LUT a bit;
        // a compare per value would chain them).
        self.p0.next = self.pos.q.val().get_bit(0);
        self.p1.next = self.pos.q.val().get_bit(1);
        if self.p1.val() {
            if self.p0.val() {
                self.hd_units.next = self.f_units[3].q.val();
                self.hd_units1.next = self.f_units1[3].q.val();
                self.hd_bad.next = self.f_bad[3].q.val();
                self.hd_le1.next = self.f_le1[3].q.val();
                self.hd_le2.next = self.f_le2[3].q.val();
                self.hd_le3.next = self.f_le3[3].q.val();
                self.hd_shift.next = self.f_shift[3].q.val();
                self.hd_len.next = self.wu[3].val().get_bits::<16>(0);
                self.hd_stamp.next = self.wu[3].val().get_bit(31);
                self.hd_first_end.next = self.f_first_end[3].q.val();
                self.hd_first_next.next = self.f_first_next[3].q.val();
            } else {
                self.hd_units.next = self.f_units[2].q.val();
                self.hd_units1.next = self.f_units1[2].q.val();
                self.hd_bad.next = self.f_bad[2].q.val();
                self.hd_le1.next = self.f_le1[2].q.val();
                self.hd_le2.next = self.f_le2[2].q.val();
                self.hd_le3.next = self.f_le3[2].q.val();
                self.hd_shift.next = self.f_shift[2].q.val();
                self.hd_len.next = self.wu[2].val().get_bits::<16>(0);
                self.hd_stamp.next = self.wu[2].val().get_bit(31);
                self.hd_first_end.next = self.f_first_end[2].q.val();
                self.hd_first_next.next = self.f_first_next[2].q.val();
            }
        } else if self.p0.val() {
            self.hd_units.next = self.f_units[1].q.val();
            self.hd_units1.next = self.f_units1[1].q.val();
            self.hd_bad.next = self.f_bad[1].q.val();
            self.hd_le1.next = self.f_le1[1].q.val();
            self.hd_le2.next = self.f_le2[1].q.val();
            self.hd_le3.next = self.f_le3[1].q.val();
            self.hd_shift.next = self.f_shift[1].q.val();
            self.hd_len.next = self.wu[1].val().get_bits::<16>(0);
            self.hd_stamp.next = self.wu[1].val().get_bit(31);
            self.hd_first_end.next = self.f_first_end[1].q.val();
            self.hd_first_next.next = self.f_first_next[1].q.val();
        } else {
            self.hd_units.next = self.f_units[0].q.val();
            self.hd_units1.next = self.f_units1[0].q.val();
            self.hd_bad.next = self.f_bad[0].q.val();
            self.hd_le1.next = self.f_le1[0].q.val();
            self.hd_le2.next = self.f_le2[0].q.val();
            self.hd_le3.next = self.f_le3[0].q.val();
            self.hd_shift.next = self.f_shift[0].q.val();
            self.hd_len.next = self.wu[0].val().get_bits::<16>(0);
            self.hd_stamp.next = self.wu[0].val().get_bit(31);
            self.hd_first_end.next = self.f_first_end[0].q.val();
            self.hd_first_next.next = self.f_first_next[0].q.val();
        }

        // ---- What this cycle takes ----
        // A beat's units: from `s_off` (in `l0`, or 4: `l1`'s first),
        // `n_take` of them, ending at `t_end`.
        // (A first beat's end was decoded with its line, a later beat's set
        // as the beat before it went.)
        self.s_off.next = self.pos.q.val();
        self.t_end.next = self.e_tend.q.val();
        self.need2.next = self.t_end.val() > self.ku[4].val();
        if !self.in_entry.q.val() {
            self.s_off.next = self.pos.q.val() + self.ku[1].val();
            self.t_end.next = self.hd_first_end.val();
            self.need2.next = self.hd_first_next.val();
        }
        // The units this beat needs run into a line of the next run.
        self.cut.next = self.need2.val() & self.v1.q.val() & self.rs1.val();
        self.over.next = self.hd_units1.val() > self.run_left.q.val();
        self.stop.next = self.over.val() | self.cut.val() | (self.need2.val() & self.fin0.val());
        self.end_ok.next = (self.at.q.val() + self.hd_units1.val()) & self.mask.q.val();
        self.pos16.i.next = self.pos.q.val();
        self.room.next = self.ku[4].val() - self.pos.q.val();
        self.skip_ge_room.next = (self.skip_left.q.val().get_bits::<12>(4) != self.zero12.val())
            | (self.skip_left.q.val().get_bits::<4>(0) >= self.room.val());

        self.consume.next = false;
        self.nl4.next = self.ku[0].val();
        self.k1.next = false;
        self.k2.next = false;
        self.out.s.valid.next = false;
        self.out.s.data.next.sop = false;
        self.o_last.next = false;
        self.o_frame_last.next = self.left_le1.q.val();
        if !self.in_entry.q.val() {
            self.o_frame_last.next = self.hd_le1.val();
        }
        self.out.s.data.next.bad = false;
        self.out.s.data.next.abort = false;
        self.out.s.data.next.len = self.e_len.q.val();
        self.out.s.data.next.stamp = false;
        self.out.s.data.next.pipe = self.pipe.q.val();
        self.out.s.data.next.start = self.e_start.q.val();
        self.out.s.data.next.end = self.e_end.q.val();
        self.o_shift.next = self.e_shift.q.val();
        if self.v0.q.val() & self.rs0.val() {
            if self.in_entry.q.val() {
                // The run ended inside a frame: cut it short here.
                self.out.s.valid.next = true;
                self.o_last.next = true;
                self.out.s.data.next.abort = true;
                if self.out.s.ready.val() {
                    self.in_entry.d.next = false;
                }
            } else {
                // A run starts at `l0`'s unit `unit` mod 4.
                self.pos.d.next = self.i0_unit.val().get_bits::<4>(0) & self.ku[3].val();
                self.at.d.next = self.i0_unit.val();
                self.run_left.d.next = self.i0v.val().run_units;
                self.run_live.d.next = self.i0v.val().run_units != self.zero_pos.val();
                self.run_tail.d.next =
                    (self.i0_unit.val() + self.i0v.val().run_units) & self.i0v.val().mask;
                self.mask.d.next = self.i0v.val().mask;
                self.pipe.d.next = self.i0v.val().pipe;
                self.skip.d.next = false;
                self.i0.d.next.run_start = false;
            }
        } else if self.v0.q.val() & self.skip.q.val() {
            // A bad entry's units, to `l0`'s end at most.
            if self.skip_ge_room.val() {
                self.k1.next = true;
                self.pos.d.next = self.ku[0].val();
                self.skip_left.d.next =
                    self.skip_left.q.val() + self.pos16.o.val() - self.four16.val();
                self.skip.d.next = (self.skip_left.q.val().get_bits::<4>(0) != self.room.val())
                    | (self.skip_left.q.val().get_bits::<12>(4) != self.zero12.val());
            } else {
                self.pos.d.next = self.pos.q.val() + self.skip_left.q.val().get_bits::<4>(0);
                self.skip.d.next = false;
            }
        } else if self.v0.q.val() & self.in_entry.q.val() {
            if self.cut.val() {
                // The run ended inside the frame: cut it short, drop `l0`.
                self.out.s.valid.next = true;
                self.o_last.next = true;
                self.out.s.data.next.abort = true;
                if self.out.s.ready.val() {
                    self.in_entry.d.next = false;
                    self.run_live.d.next = false;
                    self.k1.next = true;
                    self.pos.d.next = self.ku[0].val();
                }
            } else if !self.need2.val() | self.v1.q.val() {
                self.out.s.valid.next = true;
                self.o_last.next = self.left_le1.q.val();
                if self.out.s.ready.val() {
                    self.consume.next = true;
                    self.left.d.next = self.left.q.val() - self.four16.val();
                    self.left_le1.d.next = self.left_le2.q.val();
                    self.left_le2.d.next = self.left.q.val() <= self.twelve16.val();
                    self.nl4.next = self.left.q.val().get_bits::<4>(0) - self.ku[4].val();
                    self.e_tend.d.next = (self.t_end.val() & self.ku[3].val()) + self.ku[4].val();
                    if self.left_le2.q.val() {
                        self.e_tend.d.next = (self.t_end.val() & self.ku[3].val()) + self.nl4.val();
                    }
                    self.in_entry.d.next = !self.left_le1.q.val();
                }
            }
        } else if self.v0.q.val() & !self.run_live.q.val() {
            // Past the run's tail: the rest of the line is not the run's.
            self.k1.next = true;
            self.pos.d.next = self.ku[0].val();
        } else if self.v0.q.val() & (!self.need2.val() | self.v1.q.val() | self.fin0.val()) {
            // An entry starts at `pos`. One whose first beat would need
            // units past the run's last line runs past its tail: it needs
            // no more lines, and the rest of the run is skipped.
            self.out.s.valid.next = true;
            self.out.s.data.next.sop = true;
            self.o_last.next = self.hd_bad.val() | self.stop.val() | self.hd_le1.val();
            self.out.s.data.next.bad = self.hd_bad.val() | self.stop.val();
            self.out.s.data.next.len = self.hd_len.val();
            self.out.s.data.next.stamp = self.hd_stamp.val();
            self.out.s.data.next.start = self.at.q.val();
            self.out.s.data.next.end = self.end_ok.val();
            if self.stop.val() {
                self.out.s.data.next.end = self.run_tail.q.val();
            }
            self.o_shift.next = self.hd_shift.val();
            if self.out.s.ready.val() {
                if self.stop.val() {
                    self.k1.next = true;
                    self.pos.d.next = self.ku[0].val();
                } else {
                    self.consume.next = true;
                }
                self.e_len.d.next = self.hd_len.val();
                self.e_start.d.next = self.at.q.val();
                self.e_end.d.next = self.end_ok.val();
                self.e_shift.d.next = self.hd_shift.val();
                self.at.d.next = self.end_ok.val();
                if self.stop.val() {
                    self.e_end.d.next = self.run_tail.q.val();
                    self.at.d.next = self.run_tail.q.val();
                    self.run_left.d.next = self.zero_pos.val();
                    self.run_live.d.next = false;
                } else {
                    self.run_left.d.next = self.run_left.q.val() - self.hd_units1.val();
                    self.run_live.d.next = self.run_left.q.val() != self.hd_units1.val();
                    if self.hd_bad.val() {
                        self.skip.d.next = !self.hd_le1.val();
                        self.skip_left.d.next = self.hd_units.val() - self.four16.val();
                    } else {
                        self.in_entry.d.next = !self.hd_le1.val();
                        self.left.d.next = self.hd_units.val() - self.four16.val();
                        self.left_le1.d.next = self.hd_le2.val();
                        self.left_le2.d.next = self.hd_le3.val();
                        self.nl4.next = self.hd_units.val().get_bits::<4>(0) - self.ku[4].val();
                        self.e_tend.d.next =
                            (self.t_end.val() & self.ku[3].val()) + self.ku[4].val();
                        if self.hd_le2.val() {
                            self.e_tend.d.next =
                                (self.t_end.val() & self.ku[3].val()) + self.nl4.val();
                        }
                    }
                }
            }
        }
        // A beat's units taken: 0, 1 or 2 lines used up.
        if self.consume.val() {
            self.pos.d.next = self.t_end.val() & self.ku[3].val();
            self.k1.next =
                (self.t_end.val() >= self.ku[4].val()) & (self.t_end.val() < self.k8.val());
            self.k2.next = self.t_end.val() == self.k8.val();
        }

        // ---- The beat: four units from `s_off`, realigned ----
        for j in 0..4 {
            self.lane.i[j].next = self.wu[j].val();
        }
        if self.s_off.val() == self.ku[1].val() {
            self.lane.i[0].next = self.wu[1].val();
            self.lane.i[1].next = self.wu[2].val();
            self.lane.i[2].next = self.wu[3].val();
            self.lane.i[3].next = self.wu[4].val();
        } else if self.s_off.val() == self.ku[2].val() {
            self.lane.i[0].next = self.wu[2].val();
            self.lane.i[1].next = self.wu[3].val();
            self.lane.i[2].next = self.wu[4].val();
            self.lane.i[3].next = self.wu[5].val();
        } else if self.s_off.val() == self.ku[3].val() {
            self.lane.i[0].next = self.wu[3].val();
            self.lane.i[1].next = self.wu[4].val();
            self.lane.i[2].next = self.wu[5].val();
            self.lane.i[3].next = self.wu[6].val();
        } else if self.s_off.val() == self.ku[4].val() {
            self.lane.i[0].next = self.wu[4].val();
            self.lane.i[1].next = self.wu[5].val();
            self.lane.i[2].next = self.wu[6].val();
            self.lane.i[3].next = self.wu[7].val();
        }
        self.out.s.data.next.data = self.lane.o.val();
        // A last beat's bytes: LEN mod 64 (0 for 64).
        self.out.s.data.next.keep = self.all_keep.val();
        self.out.s.data.next.last = self.o_last.val();
        if self.o_frame_last.val() {
            self.out.s.data.next.keep = self.all_keep.val() >> self.o_shift.val();
        }

        // ---- The window moves on ----
        self.take.next = self.in_ok.val() & (self.k1.val() | self.k2.val() | !self.v1.q.val());
        self.inp.m.ready.next = self.take.val();
        self.s_info.ready.next = self.take.val() & !self.mid.q.val();
        if self.take.val() {
            self.mid.d.next = !self.in_beat.val().last;
            if !self.mid.q.val() {
                self.read_end.d.next = self.s_info.data.val().run_end;
            }
        }
        if self.k1.val() {
            // `l1` moves down, and the line on offer follows.
            self.l0.d.next = self.l1.q.val();
            self.i0.d.next = self.i1.q.val();
            self.v0.d.next = self.v1.q.val();
            self.v1.d.next = false;
            for u in 0..4 {
                self.f_units[u].d.next = self.dec_l1.data_units[u].val();
                self.f_units1[u].d.next = self.dec_l1.entry_units[u].val();
                self.f_bad[u].d.next = self.dec_l1.bad[u].val();
                self.f_le1[u].d.next = self.dec_l1.le1[u].val();
                self.f_le2[u].d.next = self.dec_l1.le2[u].val();
                self.f_le3[u].d.next = self.dec_l1.le3[u].val();
                self.f_shift[u].d.next = self.dec_l1.keep_shift[u].val();
                self.f_first_end[u].d.next = self.dec_l1.first_end[u].val();
                self.f_first_next[u].d.next = self.dec_l1.first_next[u].val();
            }
            if self.take.val() & self.v1.q.val() {
                self.l1.d.next = self.in_data.val();
                self.i1.d.next = self.s_info.data.val();
                self.i1.d.next.run_start = self.in_rs.val();
                self.i1.d.next.run_end = self.in_fin.val();
                self.v1.d.next = true;
            }
        } else if self.k2.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
        } else if self.take.val() & self.v0.q.val() {
            self.l1.d.next = self.in_data.val();
            self.i1.d.next = self.s_info.data.val();
            self.i1.d.next.run_start = self.in_rs.val();
            self.i1.d.next.run_end = self.in_fin.val();
            self.v1.d.next = true;
        }
        // The line on offer into an empty `l0`.
        if self.take.val() & (self.k2.val() | !self.v0.q.val() | (self.k1.val() & !self.v1.q.val()))
        {
            self.l0.d.next = self.in_data.val();
            self.i0.d.next = self.s_info.data.val();
            self.i0.d.next.run_start = self.in_rs.val();
            self.i0.d.next.run_end = self.in_fin.val();
            self.v0.d.next = true;
            for u in 0..4 {
                self.f_units[u].d.next = self.dec_in.data_units[u].val();
                self.f_units1[u].d.next = self.dec_in.entry_units[u].val();
                self.f_bad[u].d.next = self.dec_in.bad[u].val();
                self.f_le1[u].d.next = self.dec_in.le1[u].val();
                self.f_le2[u].d.next = self.dec_in.le2[u].val();
                self.f_le3[u].d.next = self.dec_in.le3[u].val();
                self.f_shift[u].d.next = self.dec_in.keep_shift[u].val();
                self.f_first_end[u].d.next = self.dec_in.first_end[u].val();
                self.f_first_next[u].d.next = self.dec_in.first_next[u].val();
            }
        }
    }
}
