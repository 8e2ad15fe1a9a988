use crate::first_set::FirstSet;
use crate::reset::SDFF;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// Where `ChannelState`'s writer 6 loads a payload: into the buffer the
/// heard channel's PASSED frees (`passing`, chosen by the caller), else
/// into the first idle channel in use, else beside the payload of the
/// first channel holding one.
///
/// **The two choices are made a cycle ahead and registered.** A choice
/// among K channels is a priority encoder (`FirstSet`) over a K-bit vector:
/// about five LUT levels at K = 256. Made in the cycle of the load, it sat
/// between the channel flags and every writer of the loaded channel (the
/// flags, the payload RAMs' write enables, the digest words), 11 levels
/// deep with K = 256. Here the encoders read the flags of cycle t and their
/// answer is a register at t + 1, so the load's channel and one-hot come
/// straight from flip-flops.
///
/// A choice is used a cycle after it is made, so at the load the chosen
/// channel's flags are read again (a vector index by a register: two LUT
/// levels), and a channel that can no longer take the payload voids the
/// choice for that cycle: a load goes only where the flags of its own cycle
/// allow, as when the choice was made in that cycle. A next payload also
/// never goes to the channel being decided on (`next_hit`: its confirmation
/// would free the buffer the load writes). The channel and buffer follow
/// the registered choice alone (an idle channel's first) and the reads only
/// say whether the load may go, since the writers decode the channel: an
/// idle choice voided (after a flush) takes no next payload in its place.
///
/// To keep loads one a cycle, the choice made while a payload waits
/// (`want`) skips the channel chosen now, which the load is about to fill;
/// but not a next-payload channel being decided on now, which does not
/// load (`apply_x`: `apply_ch`'s one-hot, decoded a cycle early from
/// `heard_ch`): skipped, a channel decided on every other cycle was chosen
/// only in the cycles it was decided on, and with one channel in use the
/// link moved one payload per two round trips. A channel freed at t loads
/// from t + 2, a cycle later than a same-cycle choice would allow.
#[derive(LogicBlock)]
pub struct LoadChoice {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The channel flags, a bit per channel (`ChannelReads`), and in use.
    pub v_holding: Signal<In, Bits<K>>,
    pub v_next_held: Signal<In, Bits<K>>,
    pub v_returning: Signal<In, Bits<K>>,
    pub v_head: Signal<In, Bits<K>>,
    pub in_use: Signal<In, Bits<K>>,
    pub apply: Signal<In, Bit>,
    pub apply_ch: Signal<In, Bits<CB>>,
    /// The channel whose record is checked now: its move, if any, is next
    /// cycle's (`apply_ch` is `heard_ch` a cycle later).
    pub heard_ch: Signal<In, Bits<CB>>,
    /// The move applied is PASSED, and the buffer it frees.
    pub passing: Signal<In, Bit>,
    pub pass_bit: Signal<In, Bit>,
    /// A payload waits to load.
    pub want: Signal<In, Bit>,
    /// Where a load goes now: ok, the channel, its buffer, and whether it
    /// is the channel's first payload (`holding`) or its next one.
    pub ok: Signal<Out, Bit>,
    pub ch: Signal<Out, Bits<CB>>,
    pub buffer: Signal<Out, Bit>,
    pub to_idle: Signal<Out, Bit>,

    idle_first: FirstSet<K, CB>,
    next_first: FirstSet<K, CB>,
    idle_ok: SDFF<Bit>,
    idle_ch: SDFF<Bits<CB>>,
    idle_x: SDFF<Bits<K>>,
    next_ok: SDFF<Bit>,
    next_ch: SDFF<Bits<CB>>,
    next_x: SDFF<Bits<K>>,
    /// `apply_ch`'s one-hot, decoded a cycle early from `heard_ch`.
    apply_x: SDFF<Bits<K>>,
    /// The move applied now is on the next-payload choice's channel.
    next_hit: Signal<Local, Bit>,
    idle_now: Signal<Local, Bit>,
    next_now: Signal<Local, Bit>,
    want_k: Signal<Local, Bits<K>>,
    apply_k: Signal<Local, Bits<K>>,
    /// Per channel: it may take a first payload, a next one.
    idle_avail: Signal<Local, Bits<K>>,
    next_avail: Signal<Local, Bits<K>>,
    c_k_zero: Constant<Bits<K>>,
    c_k_one: Constant<Bits<K>>,
    c_k_ones: Constant<Bits<K>>,
}

// By hand: `Default` is derived for arrays of at most 32, and the
// constants need their values.
impl Default for LoadChoice {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            v_holding: Default::default(),
            v_next_held: Default::default(),
            v_returning: Default::default(),
            v_head: Default::default(),
            in_use: Default::default(),
            apply: Default::default(),
            apply_ch: Default::default(),
            heard_ch: Default::default(),
            passing: Default::default(),
            pass_bit: Default::default(),
            want: Default::default(),
            ok: Default::default(),
            ch: Default::default(),
            buffer: Default::default(),
            to_idle: Default::default(),
            idle_first: Default::default(),
            next_first: Default::default(),
            idle_ok: Default::default(),
            idle_ch: Default::default(),
            idle_x: Default::default(),
            next_ok: Default::default(),
            next_ch: Default::default(),
            next_x: Default::default(),
            apply_x: Default::default(),
            next_hit: Default::default(),
            idle_now: Default::default(),
            next_now: Default::default(),
            want_k: Default::default(),
            apply_k: Default::default(),
            idle_avail: Default::default(),
            next_avail: Default::default(),
            c_k_zero: Constant::new(Bits::<K>::default()),
            c_k_one: Constant::new(Bits::<K>::default().replace_bit(0, true)),
            c_k_ones: Constant::new(!Bits::<K>::default()),
        }
    }
}

impl Logic for LoadChoice {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idle_ok, idle_ch, idle_x, next_ok, next_ch, next_x, apply_x);
        self.idle_ok.reset.next = self.reset.val();
        self.idle_ch.reset.next = self.reset.val();
        self.idle_x.reset.next = self.reset.val();
        self.next_ok.reset.next = self.reset.val();
        self.next_ch.reset.next = self.reset.val();
        self.next_x.reset.next = self.reset.val();
        self.apply_x.reset.next = self.reset.val();

        // ---- Cycle t: choose for t + 1 ----
        self.want_k.next = self.c_k_zero.val();
        if self.want.val() {
            self.want_k.next = self.c_k_ones.val();
        }
        self.idle_avail.next = !self.v_holding.val() & !self.v_returning.val() & self.in_use.val();
        self.next_avail.next = self.v_holding.val()
            & !self.v_next_held.val()
            & !self.v_returning.val()
            & self.in_use.val();
        self.idle_first.v.next = self.idle_avail.val() & !(self.idle_x.q.val() & self.want_k.val());
        // A next payload chosen now does not load if its channel is being
        // decided on (`next_hit`); then it is not skipped, or a channel
        // decided on every other cycle would be skipped in the cycles it
        // could load.
        self.apply_k.next = self.c_k_zero.val();
        if self.apply.val() {
            self.apply_k.next = self.apply_x.q.val();
        }
        self.next_first.v.next = self.next_avail.val()
            & !(self.next_x.q.val() & self.want_k.val() & !self.apply_k.val());
        self.idle_ok.d.next = self.idle_first.ok.val();
        self.idle_ch.d.next = self.idle_first.index.val();
        self.idle_x.d.next = self.idle_first.one_hot.val();
        self.next_ok.d.next = self.next_first.ok.val();
        self.next_ch.d.next = self.next_first.index.val();
        self.next_x.d.next = self.next_first.one_hot.val();
        self.apply_x.d.next = self.c_k_one.val() << self.heard_ch.val();

        // ---- Cycle t + 1: load where chosen ----
        self.next_hit.next = self.apply.val() & (self.apply_ch.val() == self.next_ch.q.val());
        self.idle_now.next =
            self.idle_ok.q.val() & self.idle_avail.val().get_bit(self.idle_ch.q.val().index());
        self.next_now.next = self.next_ok.q.val()
            & self.next_avail.val().get_bit(self.next_ch.q.val().index())
            & !self.next_hit.val();
        // The channel and buffer follow the registered choice alone (an
        // idle channel chosen goes first), not the reads: the writers
        // decode `ch`, and the reads only say whether the load may go.
        self.ok.next = self.passing.val() | self.next_now.val();
        self.ch.next = self.next_ch.q.val();
        self.buffer.next = !self.v_head.val().get_bit(self.next_ch.q.val().index());
        if self.idle_ok.q.val() {
            self.ok.next = self.passing.val() | self.idle_now.val();
            self.ch.next = self.idle_ch.q.val();
            self.buffer.next = self.v_head.val().get_bit(self.idle_ch.q.val().index());
        }
        self.to_idle.next = self.idle_ok.q.val() & !self.passing.val();
        if self.passing.val() {
            self.ch.next = self.apply_ch.val();
            self.buffer.next = self.pass_bit.val();
        }
    }
}
