use super::check::ENTANGLE_FIELD_BITS;
use super::Crc32c;
use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::acp;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ACP_FAIL_AFTER};
use rust_hdl::prelude::*;

/// Width of a channel count, 0..=K.
const CB1: usize = CB + 1;

/// Entanglement: the ACP link's state (`pendulum_layout::acp::link_state`),
/// its nonces and incarnations, the channel count agreed with the peer, and
/// the session terms that bind every channel record to one entanglement
/// (`pendulum_layout::acp::session_term`).
///
/// - Failure: loss of signal (`link_up` low), or `ACP_FAIL_AFTER` slots in a
///   row whose record fails its check (a garbled link, or a peer in another
///   session). An Up side that hears an ENTANGLE record with a nonce other
///   than its peer's joins the peer's re-entangling.
/// - Entangling: every slot carries our ENTANGLE record (`fields`: our
///   nonce, the peer's nonce once heard, our incarnation, the channels we
///   offer, latched when we draw the nonce). We go Up on the peer's ENTANGLE
///   record that names our nonce, or on a channel record of our session: its
///   check word passes only under the session of our nonce and the peer's,
///   so it proves the peer is Up with us (a record the peer sent before it
///   re-entangled fails it). Equal nonces draw again.
/// - Going Up with a peer whose incarnation is not the one we last
///   entangled with (it lost its state) pulses `flush_peer`; `reset_link`
///   pulses `flush_local` and takes a new incarnation.
///
/// Latency: two cycles from the heard record to `go_up`/`state` (the
/// decision to go Up is registered, and acted on in the next cycle, while
/// the records heard meanwhile wait); a garbled slot counts one cycle after
/// `slot_bad`; the session terms follow a nonce change two cycles later.
#[derive(LogicBlock)]
pub struct Entangle {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The physical layer has signal.
    pub link_up: Signal<In, Bit>,
    /// One-cycle pulse: drop our link state and re-entangle.
    pub reset_link: Signal<In, Bit>,
    /// Mixed into the nonce generator when `seed_write` pulses.
    pub seed: Signal<In, Bits<32>>,
    pub seed_write: Signal<In, Bit>,
    /// Channels this side offers to use, 1..=K (LINK_CHANNELS).
    pub channels_cfg: Signal<In, Bits<CB1>>,
    /// The record heard this cycle (`RecordCheck`'s output).
    pub heard_valid: Signal<In, Bit>,
    pub heard_op: Signal<In, Bits<8>>,
    /// Its first 112 payload bits: an ENTANGLE record's nonce, nonce heard,
    /// incarnation and channels (the version was checked already).
    pub heard_fields: Signal<In, Bits<112>>,
    /// A slot's record passed, or failed, its check word (`RecordCheck`).
    pub slot_good: Signal<In, Bit>,
    pub slot_bad: Signal<In, Bit>,
    /// `pendulum_layout::acp::link_state`, and whether it is UP.
    pub state: Signal<Out, Bits<2>>,
    pub up: Signal<Out, Bit>,
    /// One-cycle pulses: going Up now (with `agreed` channels, told per
    /// channel by `past_agreed`); the peer lost its state (drop what we
    /// share with it); our own reset.
    pub go_up: Signal<Out, Bit>,
    agreed: Signal<Local, Bits<CB1>>,
    pub flush_peer: Signal<Out, Bit>,
    pub flush_local: Signal<Out, Bit>,
    /// Channels in use since the last entanglement.
    pub active: Signal<Out, Bits<CB1>>,
    /// Per channel: in use (below `active`), and past the count `agreed`.
    /// A register, and a shift of all ones by a register, not K compares
    /// with a count: Yosys made each compare a chain of 6 LUTs at K = 64,
    /// ahead of every channel's load and flush (`ChannelState`).
    pub in_use: Signal<Out, Bits<K>>,
    pub past_agreed: Signal<Out, Bits<K>>,
    /// Session terms: of the channel records we send, and of those we hear.
    pub session_tx: Signal<Out, Bits<32>>,
    pub session_rx: Signal<Out, Bits<32>>,
    /// Our ENTANGLE record's fields (payload bytes 0..15).
    pub fields: Signal<Out, Bits<ENTANGLE_FIELD_BITS>>,
    pub ev_failure: Signal<Out, Bit>,
    pub ev_entangle: Signal<Out, Bit>,

    lstate: SDFF<Bits<2>>,
    nonce: SDFF<Bits<32>>,
    peer_nonce: SDFF<Bits<32>>,
    /// The incarnation the peer states in this round of entangling.
    heard_inc: SDFF<Bits<32>>,
    /// The peer's incarnation at our last entanglement (0: none since our start or reset).
    peer_inc: SDFF<Bits<32>>,
    heard_peer: SDFF<Bit>,
    /// Ours: drawn at our first entanglement and at every reset of our link state.
    incarnation: SDFF<Bits<32>>,
    // The one register a reset leaves alone (rust-hdl's DFF, no reset): the
    // nonce generator runs on through a reset, so the nonces drawn after it
    // never replay the ones drawn since power-up, and the peer always sees
    // a reset side as a new incarnation.
    lfsr: DFF<Bits<32>>,
    bad_run: SDFF<Bits<8>>,
    /// `slot_good`/`slot_bad`, registered: the run of garbled slots is
    /// counted a cycle later, from registers (the check word's compare is deep).
    slot_good_r: SDFF<Bit>,
    slot_bad_r: SDFF<Bit>,
    /// Going Up next cycle, with `agreed_r` channels; whether the peer lost
    /// its state. Registered so that what going Up drives (every channel's
    /// flush) starts from registers.
    going_r: SDFF<Bit>,
    agreed_r: SDFF<Bits<CB1>>,
    flush_peer_r: SDFF<Bit>,
    /// The peer's incarnation to remember once Up (taken only if we do go Up).
    up_inc_r: SDFF<Bits<32>>,
    active_r: SDFF<Bits<CB1>>,
    in_use_r: SDFF<Bits<K>>,
    c_k_ones: Constant<Bits<K>>,
    /// The channels we offer, latched with each nonce.
    offer: SDFF<Bits<CB1>>,
    peer_channels: SDFF<Bits<16>>,
    session_tx_r: SDFF<Bits<32>>,
    session_rx_r: SDFF<Bits<32>>,
    tx_key: Concat<32, 32, 64>,
    rx_key: Concat<32, 32, 64>,
    tx_term: Crc32c<64>,
    rx_term: Crc32c<64>,
    offer16: ZeroExtend<CB1, 16>,
    f_lo: Concat<32, 32, 64>,
    f_mid: Concat<32, 64, 96>,
    f_hi: Concat<16, 96, 112>,
    f_all: Concat<8, 112, 120>,
    heard_or_zero: Signal<Local, Bits<32>>,
    new_nonce: Signal<Local, Bits<32>>,
    new_inc: Signal<Local, Bits<32>>,
    bad_run_next: Signal<Local, Bits<8>>,
    is_entangle: Signal<Local, Bit>,
    is_data: Signal<Local, Bit>,
    h_nonce: Signal<Local, Bits<32>>,
    h_heard: Signal<Local, Bits<32>>,
    h_inc: Signal<Local, Bits<32>>,
    h_channels: Signal<Local, Bits<16>>,
    fresh: Signal<Local, Bit>,
    /// The decision to go Up, and what it goes Up with (acted on next cycle).
    up_now: Signal<Local, Bit>,
    agreed_now: Signal<Local, Bits<CB1>>,
    flush_peer_now: Signal<Local, Bit>,
    c_op_entangle: Constant<Bits<8>>,
    c_version: Constant<Bits<8>>,
    c_ls_down: Constant<Bits<2>>,
    c_ls_entangling: Constant<Bits<2>>,
    c_ls_up: Constant<Bits<2>>,
    c_fail_after: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_lfsr_taps: Constant<Bits<32>>,
    c_lfsr_start: Constant<Bits<32>>,
}

impl Entangle {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link_up: Default::default(),
            reset_link: Default::default(),
            seed: Default::default(),
            seed_write: Default::default(),
            channels_cfg: Default::default(),
            heard_valid: Default::default(),
            heard_op: Default::default(),
            heard_fields: Default::default(),
            slot_good: Default::default(),
            slot_bad: Default::default(),
            state: Default::default(),
            up: Default::default(),
            go_up: Default::default(),
            agreed: Default::default(),
            flush_peer: Default::default(),
            flush_local: Default::default(),
            active: Default::default(),
            in_use: Default::default(),
            past_agreed: Default::default(),
            session_tx: Default::default(),
            session_rx: Default::default(),
            fields: Default::default(),
            ev_failure: Default::default(),
            ev_entangle: Default::default(),
            lstate: Default::default(),
            nonce: Default::default(),
            peer_nonce: Default::default(),
            heard_inc: Default::default(),
            peer_inc: Default::default(),
            heard_peer: Default::default(),
            incarnation: Default::default(),
            lfsr: Default::default(),
            bad_run: Default::default(),
            slot_good_r: Default::default(),
            slot_bad_r: Default::default(),
            going_r: Default::default(),
            agreed_r: Default::default(),
            flush_peer_r: Default::default(),
            up_inc_r: Default::default(),
            active_r: Default::default(),
            in_use_r: Default::default(),
            c_k_ones: Constant::new(Bits::<K>::mask()),
            offer: Default::default(),
            peer_channels: Default::default(),
            session_tx_r: Default::default(),
            session_rx_r: Default::default(),
            tx_key: Default::default(),
            rx_key: Default::default(),
            tx_term: Default::default(),
            rx_term: Default::default(),
            offer16: Default::default(),
            f_lo: Default::default(),
            f_mid: Default::default(),
            f_hi: Default::default(),
            f_all: Default::default(),
            heard_or_zero: Default::default(),
            new_nonce: Default::default(),
            new_inc: Default::default(),
            bad_run_next: Default::default(),
            is_entangle: Default::default(),
            is_data: Default::default(),
            h_nonce: Default::default(),
            h_heard: Default::default(),
            h_inc: Default::default(),
            h_channels: Default::default(),
            fresh: Default::default(),
            up_now: Default::default(),
            agreed_now: Default::default(),
            flush_peer_now: Default::default(),
            c_op_entangle: c(acp::OP_ENTANGLE as u64),
            c_version: c(acp::PROTOCOL_VERSION as u64),
            c_ls_down: c(acp::link_state::DOWN as u64),
            c_ls_entangling: c(acp::link_state::ENTANGLING as u64),
            c_ls_up: c(acp::link_state::UP as u64),
            c_fail_after: c(ACP_FAIL_AFTER as u64),
            c_one8: c(1),
            c_zero8: c(0),
            c_zero16: c(0),
            c_zero32: c(0),
            c_one32: c(1),
            // Galois LFSR x^32 + x^22 + x^2 + x + 1 (maximal length).
            c_lfsr_taps: c(0x8020_0003),
            c_lfsr_start: c(0x5EED_1234),
        }
    }
}

impl Default for Entangle {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for Entangle {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lstate,
            nonce,
            peer_nonce,
            heard_inc,
            peer_inc,
            heard_peer,
            incarnation,
            lfsr,
            bad_run,
            slot_good_r,
            slot_bad_r,
            going_r,
            agreed_r,
            flush_peer_r,
            up_inc_r,
            active_r,
            in_use_r,
            offer,
            peer_channels,
            session_tx_r,
            session_rx_r
        );
        self.lstate.reset.next = self.reset.val();
        self.nonce.reset.next = self.reset.val();
        self.peer_nonce.reset.next = self.reset.val();
        self.heard_inc.reset.next = self.reset.val();
        self.peer_inc.reset.next = self.reset.val();
        self.heard_peer.reset.next = self.reset.val();
        self.incarnation.reset.next = self.reset.val();
        self.bad_run.reset.next = self.reset.val();
        self.slot_good_r.reset.next = self.reset.val();
        self.slot_bad_r.reset.next = self.reset.val();
        self.going_r.reset.next = self.reset.val();
        self.agreed_r.reset.next = self.reset.val();
        self.flush_peer_r.reset.next = self.reset.val();
        self.up_inc_r.reset.next = self.reset.val();
        self.active_r.reset.next = self.reset.val();
        self.in_use_r.reset.next = self.reset.val();
        self.offer.reset.next = self.reset.val();
        self.peer_channels.reset.next = self.reset.val();
        self.session_tx_r.reset.next = self.reset.val();
        self.session_rx_r.reset.next = self.reset.val();
        self.state.next = self.lstate.q.val();
        self.up.next = self.lstate.q.val() == self.c_ls_up.val();
        self.active.next = self.active_r.q.val();
        self.in_use.next = self.in_use_r.q.val();
        self.ev_failure.next = false;
        self.ev_entangle.next = false;

        // Nonce generator: a free-running LFSR, stirred by the seed register.
        self.lfsr.d.next = self.lfsr.q.val() >> 1;
        if self.lfsr.q.val().get_bit(0) {
            self.lfsr.d.next = (self.lfsr.q.val() >> 1) ^ self.c_lfsr_taps.val();
        }
        if self.seed_write.val() {
            self.lfsr.d.next = self.lfsr.q.val() ^ self.seed.val();
        }
        if self.lfsr.q.val() == self.c_zero32.val() {
            self.lfsr.d.next = self.c_lfsr_start.val();
        }
        self.new_nonce.next = self.lfsr.q.val() | self.c_one32.val();
        self.new_inc.next = !self.lfsr.q.val() | self.c_one32.val();

        // Session terms: sender's nonce first (pendulum_layout::acp::session_term).
        self.tx_key.hi.next = self.peer_nonce.q.val();
        self.tx_key.lo.next = self.nonce.q.val();
        self.rx_key.hi.next = self.nonce.q.val();
        self.rx_key.lo.next = self.peer_nonce.q.val();
        self.tx_term.data.next = self.tx_key.o.val();
        self.rx_term.data.next = self.rx_key.o.val();
        self.session_tx_r.d.next = self.tx_term.crc.val();
        self.session_rx_r.d.next = self.rx_term.crc.val();
        self.session_tx.next = self.session_tx_r.q.val();
        self.session_rx.next = self.session_rx_r.q.val();

        // Our ENTANGLE fields: nonce, nonce heard, incarnation, channels, version.
        self.heard_or_zero.next = self.c_zero32.val();
        if self.heard_peer.q.val() {
            self.heard_or_zero.next = self.peer_nonce.q.val();
        }
        self.offer16.i.next = self.offer.q.val();
        self.f_lo.hi.next = self.heard_or_zero.val();
        self.f_lo.lo.next = self.nonce.q.val();
        self.f_mid.hi.next = self.incarnation.q.val();
        self.f_mid.lo.next = self.f_lo.o.val();
        self.f_hi.hi.next = self.offer16.o.val();
        self.f_hi.lo.next = self.f_mid.o.val();
        self.f_all.hi.next = self.c_version.val();
        self.f_all.lo.next = self.f_hi.o.val();
        self.fields.next = self.f_all.o.val();

        // The record heard.
        self.is_entangle.next =
            self.heard_valid.val() & (self.heard_op.val() == self.c_op_entangle.val());
        self.is_data.next =
            self.heard_valid.val() & (self.heard_op.val() != self.c_op_entangle.val());
        self.h_nonce.next = self.heard_fields.val().get_bits::<32>(0);
        self.h_heard.next = self.heard_fields.val().get_bits::<32>(32);
        self.h_inc.next = self.heard_fields.val().get_bits::<32>(64);
        self.h_channels.next = self.heard_fields.val().get_bits::<16>(96);

        // Failure by garbled slots in a row.
        self.slot_good_r.d.next = self.slot_good.val();
        self.slot_bad_r.d.next = self.slot_bad.val();
        self.bad_run_next.next = self.bad_run.q.val();
        if self.slot_good_r.q.val() {
            self.bad_run_next.next = self.c_zero8.val();
        } else if self.slot_bad_r.q.val() & (self.bad_run.q.val() != self.c_fail_after.val()) {
            self.bad_run_next.next = self.bad_run.q.val() + self.c_one8.val();
        }
        self.bad_run.d.next = self.bad_run_next.val();

        // Channels agreed on going up: the smaller offer (a peer offering 0 counts as ours).
        self.agreed_now.next = self.offer.q.val();
        if (self.peer_channels.q.val() < self.offer16.o.val())
            & (self.peer_channels.q.val() != self.c_zero16.val())
        {
            self.agreed_now.next = self.peer_channels.q.val().get_bits::<CB1>(0);
        }
        if self.is_entangle.val()
            & (self.h_channels.val() < self.offer16.o.val())
            & (self.h_channels.val() != self.c_zero16.val())
        {
            self.agreed_now.next = self.h_channels.val().get_bits::<CB1>(0);
        }
        self.agreed_r.d.next = self.agreed_now.val();
        self.agreed.next = self.agreed_r.q.val();
        self.past_agreed.next = self.c_k_ones.val() << self.agreed_r.q.val();

        // Going Up, decided last cycle: still Entangling (nothing but the
        // loss of signal or our reset can have changed that since).
        self.go_up.next = self.going_r.q.val() & self.link_up.val() & !self.reset_link.val();
        self.flush_peer.next = self.flush_peer_r.q.val() & self.go_up.val();
        self.up_now.next = false;
        self.flush_peer_now.next = false;
        self.fresh.next = false;
        self.flush_local.next = self.reset_link.val();
        if !self.link_up.val() {
            if self.lstate.q.val() == self.c_ls_up.val() {
                self.ev_failure.next = true;
            }
            self.lstate.d.next = self.c_ls_down.val();
            self.heard_peer.d.next = false;
        } else if (self.lstate.q.val() == self.c_ls_down.val()) | self.reset_link.val() {
            // Signal back, or our own reset: a new round with a new nonce.
            self.lstate.d.next = self.c_ls_entangling.val();
            self.fresh.next = true;
        } else if self.lstate.q.val() == self.c_ls_up.val() {
            if self.bad_run_next.val() == self.c_fail_after.val() {
                self.ev_failure.next = true;
                self.lstate.d.next = self.c_ls_entangling.val();
                self.fresh.next = true;
            } else if self.is_entangle.val() & (self.h_nonce.val() != self.peer_nonce.q.val()) {
                // The peer is re-entangling (a new nonce): join it.
                self.lstate.d.next = self.c_ls_entangling.val();
                self.fresh.next = true;
            }
        } else if self.going_r.q.val() {
            // Going Up this cycle: what is heard now waits until we are Up.
        } else if self.is_entangle.val() {
            if self.h_nonce.val() == self.nonce.q.val() {
                // Both drew the same nonce: neither can tell its echo; draw again.
                self.fresh.next = true;
            } else {
                self.peer_nonce.d.next = self.h_nonce.val();
                self.heard_inc.d.next = self.h_inc.val();
                self.peer_channels.d.next = self.h_channels.val();
                self.heard_peer.d.next = true;
                if self.h_heard.val() == self.nonce.q.val() {
                    self.up_now.next = true;
                    self.flush_peer_now.next = (self.peer_inc.q.val() != self.c_zero32.val())
                        & (self.h_inc.val() != self.peer_inc.q.val());
                    self.up_inc_r.d.next = self.h_inc.val();
                }
            }
        } else if self.is_data.val() & self.heard_peer.q.val() {
            // A channel record of our session: the peer is Up with our nonce.
            self.up_now.next = true;
            self.flush_peer_now.next = (self.peer_inc.q.val() != self.c_zero32.val())
                & (self.heard_inc.q.val() != self.peer_inc.q.val());
            self.up_inc_r.d.next = self.heard_inc.q.val();
        }
        self.going_r.d.next = self.up_now.val();
        self.flush_peer_r.d.next = self.flush_peer_now.val();
        if self.fresh.val() {
            self.nonce.d.next = self.new_nonce.val();
            self.heard_peer.d.next = false;
            self.offer.d.next = self.channels_cfg.val();
            if self.incarnation.q.val() == self.c_zero32.val() {
                self.incarnation.d.next = self.new_inc.val();
            }
        }
        if self.go_up.val() {
            self.lstate.d.next = self.c_ls_up.val();
            self.peer_inc.d.next = self.up_inc_r.q.val();
            self.ev_entangle.next = true;
            // At most K: ours is, and the agreement is the smaller.
            self.active_r.d.next = self.agreed.val();
            self.in_use_r.d.next = !(self.c_k_ones.val() << self.agreed.val());
        }
        if self.reset_link.val() {
            // A new life: the peer will see it and drop what it shared with the old one.
            self.incarnation.d.next = self.new_inc.val();
            self.peer_inc.d.next = self.c_zero32.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entangle_is_synthesizable() {
        let mut uut = Entangle::new();
        uut.connect_all();
        yosys_validate("acp_entangle", &generate_verilog(&uut)).unwrap();
    }
}
