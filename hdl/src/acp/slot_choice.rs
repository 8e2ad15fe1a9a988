use crate::first_set::FirstSet;
use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::ZeroExtend;
use pendulum_layout::params::{
    ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ACP_RESTATE_SHARE_LOG2 as SHARE,
};
use rust_hdl::prelude::*;

/// Width of a channel count, 0..=K.
const CB1: usize = CB + 1;

/// Slot choice for `RecordForm`: which channel each of the link's record
/// slots states (`../shared/ACP.md`, "Channels and slots").
///
/// A slot goes to a channel with news (`news`: its state changed and has
/// not been stated since), taking them in channel order from the one
/// after the last slot's, so each waits at most one pass over the
/// channels with news; the other slots restate the channels in use
/// (`active`) round-robin (`rr_ch`). One slot in
/// 2^`ACP_RESTATE_SHARE_LOG2`, even under load, is the restating share's:
/// it visits the channels round-robin on a pointer of its own
/// (`share_ch`) and restates the one it visits, unless the port took a
/// record of that channel since the share's last visit to it (`stated`):
/// then the share yields the slot to news (or a restate of the round),
/// since a restate would tell the peer nothing it was not told within one
/// pass of the share. The share's records are never dropped or replaced,
/// so every channel is stated at least once in 2 × 2^`ACP_RESTATE_SHARE_LOG2`
/// × K slots whatever else happens to the slots (a lost record costs
/// bounded time), and under full load the share costs no slot that news
/// could use. (Without the yield, one slot in eight at K = 256 restated a
/// channel waiting for its echo: 12 % of a paced port.)
/// Both pointers start again at 0 when the link goes Up. A channel never
/// gets two slots in a row for news.
///
/// Two records are in flight here: `ch`, the channel whose record
/// `RecordForm` forms this cycle (its state is on `RecordForm`'s inputs),
/// and `last_ch`, the channel of the record formed before it, waiting for
/// the port. `ch` is a register, so the payload and result RAMs read at it
/// need no logic in front of their address. A record is formed whenever
/// the port takes one (`advance`).
///
/// A paced port (100 GbE takes a record every 1.68 cycles) leaves both
/// waiting. Meanwhile a channel with news replaces a `ch` chosen only to
/// restate for want of news (`rot_spare`), and a waiting record that
/// restates a channel without news (`o_spare`) is dropped, as a lost
/// record would be, for the one formed after it when that one has news or
/// is the restating share's (`skip`, which also forms a record). The
/// share's restates are never replaced, and a record never follows one of
/// its own channel on the wire (`sent_ch`, the channel the port took last).
/// (Had the share used `rr_ch`, a port that waits in step with the share
/// would drop the spare before every share slot, the same channel each
/// time, and the peer would never hear that channel.)
#[derive(LogicBlock)]
pub struct SlotChoice {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The port takes the waiting record.
    pub tx_ready: Signal<In, Bit>,
    /// The link state (`Entangle`), and the channels in use.
    pub up: Signal<In, Bit>,
    pub go_up: Signal<In, Bit>,
    pub active: Signal<In, Bits<CB1>>,
    /// Channels with news (`ChannelState`), and whether `ch` has any.
    pub news: Signal<In, Bits<K>>,
    pub ch_news: Signal<In, Bit>,
    /// A record is waiting for the port (one was formed since reset).
    pub started: Signal<In, Bit>,
    /// The channel formed this cycle, and the one formed before (waiting
    /// for the port).
    pub ch: Signal<Out, Bits<CB>>,
    pub last_ch: Signal<Out, Bits<CB>>,
    /// The restating round (flips at each pass over the channels in use).
    pub round: Signal<Out, Bit>,
    /// A record is formed this cycle: the port took one, or `skip`.
    pub advance: Signal<Out, Bit>,
    /// The waiting record is dropped for the one formed now.
    pub skip: Signal<Out, Bit>,
    /// The waiting record restates a channel without news.
    pub spare_waiting: Signal<Out, Bit>,

    rot_ch: SDFF<Bits<CB>>,
    // Per channel i, whether i is `rot_ch`, and whether it comes after
    // it; and whether it is `prev_ch`: kept beside the channels so the next
    // channel's choice does not first decode them (its read address feeds
    // LUT-RAM). Each is stored XOR its value for channel 0, so all zeros,
    // the reset value, is channel 0's.
    rot_x: SDFF<Bits<K>>,
    after_x: SDFF<Bits<K>>,
    prev_x: SDFF<Bits<K>>,
    /// The same, as they are: `rot_ch`'s bit, the bits after it, `prev_ch`'s.
    is_rot: Signal<Local, Bits<K>>,
    after_rot: Signal<Local, Bits<K>>,
    is_prev: Signal<Local, Bits<K>>,
    c_k_one: Constant<Bits<K>>,
    c_k_ones: Constant<Bits<K>>,
    c_k_zero: Constant<Bits<K>>,
    c_k_after0: Constant<Bits<K>>,
    prev_ch: SDFF<Bits<CB>>,
    rr_ch: SDFF<Bits<CB>>,
    /// The restating share's own round: it never skips a channel, as
    /// `rr_ch`'s spare records may be dropped.
    share_ch: SDFF<Bits<CB>>,
    /// `share_ch`'s bit, stored XOR channel 0's as `rot_x` is, and as it
    /// is. Whether the share yields is read through it: a decode of
    /// `share_ch` in front of the K-wide test put the share's choice 9 LUT
    /// levels deep at K = 256.
    share_x: SDFF<Bits<K>>,
    share_bit: Signal<Local, Bits<K>>,
    /// Per channel, the port took a record of it since the share's last
    /// visit; and whether that holds for the channel the share visits now.
    stated: SDFF<Bits<K>>,
    stated_next: Signal<Local, Bits<K>>,
    share_yields: Signal<Local, Bit>,
    share_states: Signal<Local, Bit>,
    share_ext: ZeroExtend<CB, CB1>,
    share_count: Signal<Local, Bits<CB1>>,
    share_last: Signal<Local, Bit>,
    rot_round: SDFF<Bit>,
    share: SDFF<Bits<SHARE>>,
    rot_spare: SDFF<Bit>,
    o_spare: SDFF<Bit>,
    sent_ch: SDFF<Bits<CB>>,
    rot_last: Signal<Local, Bit>,
    rot_next: Signal<Local, Bits<CB>>,
    rot_ext: ZeroExtend<CB, CB1>,
    rot_count: Signal<Local, Bits<CB1>>,
    /// The first channel with news after `ch` (wrapping to the first but `ch`).
    /// The first channel with news after `rot_ch`, other than it, and
    /// other than it and `prev_ch` (balanced priority encoders).
    ev_after: FirstSet<K, CB>,
    ev_any: FirstSet<K, CB>,
    ev_wait: FirstSet<K, CB>,
    /// `rot_next` as its bit and the bits after it, chosen beside it from
    /// the encoders' one-hot outputs, so `rot_x` and `after_x` need no
    /// decoder behind the encoders.
    rot_next_bit: Signal<Local, Bits<K>>,
    rot_next_after: Signal<Local, Bits<K>>,
    c_one_cb: Constant<Bits<CB>>,
    c_one_cb1: Constant<Bits<CB1>>,
    c_one_share: Constant<Bits<SHARE>>,
    c_zero_cb: Constant<Bits<CB>>,
}

impl Default for SlotChoice {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tx_ready: Default::default(),
            up: Default::default(),
            go_up: Default::default(),
            active: Default::default(),
            news: Default::default(),
            ch_news: Default::default(),
            started: Default::default(),
            ch: Default::default(),
            last_ch: Default::default(),
            round: Default::default(),
            advance: Default::default(),
            skip: Default::default(),
            rot_ch: Default::default(),
            rot_x: Default::default(),
            after_x: Default::default(),
            prev_x: Default::default(),
            is_rot: Default::default(),
            after_rot: Default::default(),
            is_prev: Default::default(),
            c_k_one: Constant::new(Bits::<K>::default().replace_bit(0, true)),
            c_k_ones: Constant::new(Bits::<K>::mask()),
            c_k_zero: Constant::new(Bits::<K>::default()),
            c_k_after0: Constant::new(Bits::<K>::mask().replace_bit(0, false)),
            prev_ch: Default::default(),
            rr_ch: Default::default(),
            share_ch: Default::default(),
            share_x: Default::default(),
            share_bit: Default::default(),
            stated: Default::default(),
            stated_next: Default::default(),
            share_yields: Default::default(),
            share_states: Default::default(),
            share_ext: Default::default(),
            share_count: Default::default(),
            share_last: Default::default(),
            rot_round: Default::default(),
            share: Default::default(),
            rot_spare: Default::default(),
            o_spare: Default::default(),
            spare_waiting: Default::default(),
            sent_ch: Default::default(),
            rot_last: Default::default(),
            rot_next: Default::default(),
            rot_ext: Default::default(),
            rot_count: Default::default(),
            ev_after: Default::default(),
            ev_any: Default::default(),
            ev_wait: Default::default(),
            rot_next_bit: Default::default(),
            rot_next_after: Default::default(),
            c_one_cb: c(1),
            c_one_cb1: c(1),
            c_one_share: c(1),
            c_zero_cb: c(0),
        }
    }
}

impl Logic for SlotChoice {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rot_ch, rot_x, after_x, prev_x, prev_ch, rr_ch, share_ch, stated,
            rot_round, share, rot_spare, o_spare, sent_ch, share_x
        );
        self.rot_ch.reset.next = self.reset.val();
        self.rot_x.reset.next = self.reset.val();
        self.after_x.reset.next = self.reset.val();
        self.prev_x.reset.next = self.reset.val();
        self.is_rot.next = self.rot_x.q.val() ^ self.c_k_one.val();
        self.is_prev.next = self.prev_x.q.val() ^ self.c_k_one.val();
        self.after_rot.next = !(self.after_x.q.val() ^ self.c_k_one.val());
        self.prev_ch.reset.next = self.reset.val();
        self.rr_ch.reset.next = self.reset.val();
        self.share_ch.reset.next = self.reset.val();
        self.share_x.reset.next = self.reset.val();
        self.share_bit.next = self.share_x.q.val() ^ self.c_k_one.val();
        self.stated.reset.next = self.reset.val();
        self.rot_round.reset.next = self.reset.val();
        self.share.reset.next = self.reset.val();
        self.rot_spare.reset.next = self.reset.val();
        self.o_spare.reset.next = self.reset.val();
        self.sent_ch.reset.next = self.reset.val();
        self.ch.next = self.rot_ch.q.val();
        self.last_ch.next = self.prev_ch.q.val();
        self.round.next = self.rot_round.q.val();
        self.spare_waiting.next = self.o_spare.q.val();

        // The next channel with news, or restating.
        // (Channel 0 is never after another: `after_rot`'s bit 0 is 0.)
        self.ev_any.v.next = self.news.val() & !self.is_rot.val();
        self.ev_after.v.next = self.news.val() & self.after_rot.val();
        self.ev_wait.v.next = self.news.val() & !self.is_rot.val() & !self.is_prev.val();
        self.rot_ext.i.next = self.rr_ch.q.val();
        self.rot_count.next = self.rot_ext.o.val() + self.c_one_cb1.val();
        self.rot_last.next = self.rot_count.val() >= self.active.val();
        self.share_ext.i.next = self.share_ch.q.val();
        self.share_count.next = self.share_ext.o.val() + self.c_one_cb1.val();
        self.share_last.next = self.share_count.val() >= self.active.val();

        self.skip.next = !self.tx_ready.val()
            & self.up.val()
            & self.started.val()
            & self.o_spare.q.val()
            & !self.rot_spare.q.val()
            & (self.rot_ch.q.val() != self.sent_ch.q.val());
        self.advance.next = self.tx_ready.val() | self.skip.val();

        self.share_yields.next = (self.stated.q.val() & self.share_bit.val()).any();
        self.share_states.next = self.share.q.val().all() & !self.share_yields.val();
        self.rot_next.next = self.rot_ch.q.val();
        self.rot_next_bit.next = self.is_rot.val();
        self.rot_next_after.next = self.after_rot.val();
        self.stated_next.next = self.stated.q.val();
        if self.tx_ready.val() {
            self.sent_ch.d.next = self.prev_ch.q.val();
        }
        if self.advance.val() {
            self.o_spare.d.next = self.rot_spare.q.val() & !self.ch_news.val();
            self.share.d.next = self.share.q.val() + self.c_one_share.val();
            self.prev_ch.d.next = self.rot_ch.q.val();
            self.prev_x.d.next = self.rot_x.q.val();
            if self.share.q.val().all() {
                // The share's visit, whether it states the channel or yields.
                // (Past channel K - 1 the share is always last.)
                self.share_ch.d.next = self.share_ch.q.val() + self.c_one_cb.val();
                self.share_x.d.next = (self.share_bit.val() << 1) ^ self.c_k_one.val();
                if self.share_last.val() {
                    self.share_ch.d.next = self.c_zero_cb.val();
                    self.share_x.d.next = self.c_k_zero.val();
                }
                self.stated_next.next = self.stated.q.val() & !self.share_bit.val();
            }
            if self.share_states.val() {
                self.rot_next.next = self.share_ch.q.val();
                self.rot_next_bit.next = self.share_bit.val();
                self.rot_next_after.next = (self.c_k_ones.val() << self.share_ch.q.val()) << 1;
            } else if !self.ev_any.ok.val() {
                self.rot_next.next = self.rr_ch.q.val();
                self.rot_next_bit.next = self.c_k_one.val() << self.rr_ch.q.val();
                self.rot_next_after.next = (self.c_k_ones.val() << self.rr_ch.q.val()) << 1;
                self.rr_ch.d.next = self.rr_ch.q.val() + self.c_one_cb.val();
                if self.rot_last.val() {
                    self.rr_ch.d.next = self.c_zero_cb.val();
                    self.rot_round.d.next = !self.rot_round.q.val();
                }
            } else if self.ev_after.ok.val() {
                self.rot_next.next = self.ev_after.index.val();
                self.rot_next_bit.next = self.ev_after.one_hot.val();
                self.rot_next_after.next = self.ev_after.above.val();
            } else {
                self.rot_next.next = self.ev_any.index.val();
                self.rot_next_bit.next = self.ev_any.one_hot.val();
                self.rot_next_after.next = self.ev_any.above.val();
            }
            self.rot_spare.d.next = !self.ev_any.ok.val() & !self.share_states.val();
        } else if self.rot_spare.q.val() & self.ev_wait.ok.val() {
            // The slot's channel is chosen a slot before its record is
            // formed: news that comes while the port waits takes a slot
            // chosen only to restate (never the share's), so it is not a
            // slot later.
            self.rot_next.next = self.ev_wait.index.val();
            self.rot_next_bit.next = self.ev_wait.one_hot.val();
            self.rot_next_after.next = self.ev_wait.above.val();
            self.rot_spare.d.next = false;
        }
        if self.go_up.val() {
            self.rot_spare.d.next = false;
            self.rot_next.next = self.c_zero_cb.val();
            self.rot_next_bit.next = self.c_k_one.val();
            self.rot_next_after.next = self.c_k_ones.val() << 1;
            self.rr_ch.d.next = self.c_zero_cb.val();
            self.share_ch.d.next = self.c_zero_cb.val();
            self.share_x.d.next = self.c_k_zero.val();
            self.stated_next.next = self.c_k_zero.val();
        }
        // A record the port takes now counts from this visit on.
        if self.tx_ready.val() {
            self.stated_next.next =
                self.stated_next.val() | (self.c_k_one.val() << self.prev_ch.q.val());
        }
        self.stated.d.next = self.stated_next.val();
        self.rot_ch.d.next = self.rot_next.val();
        self.rot_x.d.next = self.rot_next_bit.val() ^ self.c_k_one.val();
        self.after_x.d.next = self.rot_next_after.val() ^ self.c_k_after0.val();
    }
}
