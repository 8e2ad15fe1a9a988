use super::{Crc32, Crc32c};
use crate::reset::SDFF;
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::acp;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// Record check: the first receive stage of the ACP link
/// (`pendulum_layout::acp`). Registers the record of each slot, then checks
/// its check word (a channel record under the session term `session`, an
/// ENTANGLE record under none), its opcode, channel and state byte, and an
/// ENTANGLE record's two copies of its fields and its protocol version. A
/// record that passes comes out decoded a cycle later, with the CRC-32 of
/// its payload (an offer's digest) and of its result bytes; one that fails
/// is never heard, only counted.
///
/// A COMMIT_OFFER's OFFER record (`pendulum_layout::acp::machine`) carries
/// its decision check D folded into its check word: it passes if the
/// residue (the CRC-32C XOR the session term XOR the check word) is the
/// check its channel expects, `exp_x` (the echo check of what we hold) if
/// it states the sender role at our receiver bit `exp_rx_bit`, our proof
/// `exp_p` if at the other. Those come from the channel's state, read in
/// the check cycle (`peek_channel`); `decision_at_our_rx_bit` says which
/// of the two a record that came out passed against (its check passed
/// whole, so only the bit it was compared at is left to say).
///
/// An offer with state bit 7 set (`acp::STATE_ECHO_FOLDED`) carries its
/// sender's echo E in the check word too: the residue must then be
/// E_exp (XOR the decision check expected, if it folds one as well),
/// where E_exp is `exp_e_tx` (the echo we expect of our payload) if the
/// record states its receiver role at our sender bit `exp_tx_bit`, and
/// `exp_e_next` (of our next payload) if at the other. `echo_folded` and
/// `echo_at_our_tx_bit` say so with the decoded record, and `echo_value`
/// is the E_exp it matched.
///
/// Latency 2 cycles (register, check); one record per cycle; never stalls.
#[derive(LogicBlock)]
pub struct RecordCheck {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// The record of the current slot, if any.
    pub rx_data: Signal<In, Bits<512>>,
    pub rx_valid: Signal<In, Bit>,
    /// The term channel records must carry: `acp::session_term` of the
    /// peer's nonce and ours.
    pub session: Signal<In, Bits<32>>,
    /// What `peek_channel` expects of a folded decision check.
    pub exp_x: Signal<In, Bits<32>>,
    pub exp_p: Signal<In, Bits<32>>,
    pub exp_rx_bit: Signal<In, Bit>,
    /// What `peek_channel` expects of a folded echo.
    pub exp_e_tx: Signal<In, Bits<32>>,
    pub exp_e_next: Signal<In, Bits<32>>,
    pub exp_tx_bit: Signal<In, Bit>,
    /// The record being checked, a cycle before it comes out (it may yet
    /// fail its check): its channel, first payload slice and the CRC-32 of its
    /// result bytes. What is read or compared with it is ready with the record.
    pub peek_channel: Signal<Out, Bits<CB>>,
    pub peek_slice1: Signal<Out, Bits<64>>,
    pub peek_result_crc: Signal<Out, Bits<32>>,
    /// One-cycle pulses in the check cycle: a slot whose record passed its
    /// check word, or failed it (for failure detection).
    pub slot_good: Signal<Out, Bit>,
    pub slot_bad: Signal<Out, Bit>,
    /// One-cycle pulses for the counters: a record heard; one whose check
    /// passed but which is not one of ours (it is ignored).
    pub ev_record: Signal<Out, Bit>,
    pub ev_bad_record: Signal<Out, Bit>,
    /// The record heard, decoded (valid for one cycle).
    pub valid: Signal<Out, Bit>,
    pub op: Signal<Out, Bits<8>>,
    pub channel: Signal<Out, Bits<CB>>,
    /// Sender-role {bit, state} and receiver-role {bit, state}.
    pub tx: Signal<Out, Bits<4>>,
    pub rx: Signal<Out, Bits<3>>,
    /// Slices 1..=7.
    pub payload: Signal<Out, Bits<448>>,
    /// CRC-32 of the payload slices: an offer's digest.
    pub digest: Signal<Out, Bits<32>>,
    /// CRC-32 of the result bytes (payload bytes 8..56).
    pub result_crc: Signal<Out, Bits<32>>,
    /// The record folds its decision check into its check word; and the
    /// sender role it states is at our receiver bit, so (it came out: the
    /// check passed) the decision is on the echo check we expected, not on
    /// our proof.
    pub folded: Signal<Out, Bit>,
    pub decision_at_our_rx_bit: Signal<Out, Bit>,
    /// The record folds its sender's echo into its check word; and the
    /// receiver role it states is at our sender bit, so (it came out) the
    /// echo is the one we expect of our payload, not of our next one; the
    /// echo it carries.
    pub echo_folded: Signal<Out, Bit>,
    pub echo_at_our_tx_bit: Signal<Out, Bit>,
    pub echo_value: Signal<Out, Bits<32>>,

    r_data: SDFF<Bits<512>>,
    r_valid: SDFF<Bit>,
    h_valid: SDFF<Bit>,
    h_op: SDFF<Bits<8>>,
    h_ch: SDFF<Bits<CB>>,
    h_tx: SDFF<Bits<4>>,
    h_rx: SDFF<Bits<3>>,
    h_payload: SDFF<Bits<448>>,
    h_digest: SDFF<Bits<32>>,
    h_result_crc: SDFF<Bits<32>>,
    h_folded: SDFF<Bit>,
    h_fold_x: SDFF<Bit>,
    h_efold: SDFF<Bit>,
    h_e_tx: SDFF<Bit>,
    h_e_value: SDFF<Bits<32>>,
    covered: Concat<448, 32, 480>,
    check: Crc32c<480>,
    payload_crc: Crc32<448>,
    result_crc_of: Crc32<384>,
    head: Signal<Local, Bits<32>>,
    state: Signal<Local, Bits<8>>,
    op_now: Signal<Local, Bits<8>>,
    chan: Signal<Local, Bits<8>>,
    is_entangle: Signal<Local, Bit>,
    term: Signal<Local, Bits<32>>,
    cw: Signal<Local, Bits<32>>,
    folds: Signal<Local, Bit>,
    fold_x: Signal<Local, Bit>,
    /// The record folds an echo; its receiver bit is our sender bit; the
    /// echo expected; what the residue must be.
    efolds: Signal<Local, Bit>,
    e_at_tx: Signal<Local, Bit>,
    e_exp: Signal<Local, Bits<32>>,
    d_exp: Signal<Local, Bits<32>>,
    residue_exp: Signal<Local, Bits<32>>,
    is_offer: Signal<Local, Bit>,
    good: Signal<Local, Bit>,
    known: Signal<Local, Bit>,
    state_ok: Signal<Local, Bit>,
    entangle_ok: Signal<Local, Bit>,
    /// Bit offsets in the record.
    at_check: Constant<Bits<9>>,
    at_result: Constant<Bits<9>>,
    at_fields: Constant<Bits<9>>,
    at_copy: Constant<Bits<9>>,
    at_version: Constant<Bits<9>>,
    c_op_state: Constant<Bits<8>>,
    c_op_offer: Constant<Bits<8>>,
    c_op_offer_verb: Constant<Bits<8>>,
    c_op_echo: Constant<Bits<8>>,
    c_op_entangle: Constant<Bits<8>>,
    c_version: Constant<Bits<8>>,
    /// The channel byte widened by a bit, so K = 256 compares too (`chan <=
    /// K - 1` in eight bits would be constant there: Verilator CMPCONST).
    chan9: ZeroExtend<8, 9>,
    c_k9: Constant<Bits<9>>,
    c_tx_max: Constant<Bits<3>>,
    c_tx_commit_offer: Constant<Bits<3>>,
    c_rx_none: Constant<Bits<2>>,
    c_rx_tentative: Constant<Bits<2>>,
    c_zero32: Constant<Bits<32>>,
}

/// Bits of an ENTANGLE record's fields (nonce, heard, incarnation, channels, version).
pub const ENTANGLE_FIELD_BITS: usize = 8 * acp::ENTANGLE_FIELD_BYTES;

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl RecordCheck {
    pub fn new() -> Self {
        assert_eq!(ENTANGLE_FIELD_BITS, 120);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            session: Default::default(),
            exp_x: Default::default(),
            exp_p: Default::default(),
            exp_rx_bit: Default::default(),
            exp_e_tx: Default::default(),
            exp_e_next: Default::default(),
            exp_tx_bit: Default::default(),
            peek_channel: Default::default(),
            peek_slice1: Default::default(),
            peek_result_crc: Default::default(),
            slot_good: Default::default(),
            slot_bad: Default::default(),
            ev_record: Default::default(),
            ev_bad_record: Default::default(),
            valid: Default::default(),
            op: Default::default(),
            channel: Default::default(),
            tx: Default::default(),
            rx: Default::default(),
            payload: Default::default(),
            digest: Default::default(),
            result_crc: Default::default(),
            folded: Default::default(),
            decision_at_our_rx_bit: Default::default(),
            echo_folded: Default::default(),
            echo_at_our_tx_bit: Default::default(),
            echo_value: Default::default(),
            r_data: Default::default(),
            r_valid: Default::default(),
            h_valid: Default::default(),
            h_op: Default::default(),
            h_ch: Default::default(),
            h_tx: Default::default(),
            h_rx: Default::default(),
            h_payload: Default::default(),
            h_digest: Default::default(),
            h_result_crc: Default::default(),
            h_folded: Default::default(),
            h_fold_x: Default::default(),
            h_efold: Default::default(),
            h_e_tx: Default::default(),
            h_e_value: Default::default(),
            covered: Default::default(),
            check: Default::default(),
            payload_crc: Default::default(),
            result_crc_of: Default::default(),
            head: Default::default(),
            state: Default::default(),
            op_now: Default::default(),
            chan: Default::default(),
            is_entangle: Default::default(),
            term: Default::default(),
            cw: Default::default(),
            folds: Default::default(),
            fold_x: Default::default(),
            efolds: Default::default(),
            e_at_tx: Default::default(),
            e_exp: Default::default(),
            d_exp: Default::default(),
            residue_exp: Default::default(),
            is_offer: Default::default(),
            good: Default::default(),
            known: Default::default(),
            state_ok: Default::default(),
            entangle_ok: Default::default(),
            at_check: c((8 * acp::BYTE_CHECK) as u64),
            at_result: c((8 * (acp::PAYLOAD_OFFSET + acp::ECHO_RESULT_OFFSET)) as u64),
            at_fields: c((8 * acp::PAYLOAD_OFFSET) as u64),
            at_copy: c((8 * (acp::PAYLOAD_OFFSET + acp::ENTANGLE_COPY_OFFSET)) as u64),
            at_version: c((8 * (acp::PAYLOAD_OFFSET + acp::ENTANGLE_FIELD_BYTES - 1)) as u64),
            c_op_state: c(acp::OP_STATE as u64),
            c_op_offer: c(acp::OP_OFFER as u64),
            c_op_offer_verb: c(acp::OP_OFFER_VERB as u64),
            c_op_echo: c(acp::OP_ECHO as u64),
            c_op_entangle: c(acp::OP_ENTANGLE as u64),
            c_version: c(acp::PROTOCOL_VERSION as u64),
            chan9: Default::default(),
            c_k9: c(K as u64),
            c_tx_max: c(acp::tx_state::COMMIT_OFFER as u64),
            c_tx_commit_offer: c(acp::tx_state::COMMIT_OFFER as u64),
            c_rx_none: c(3),
            c_rx_tentative: c(acp::rx_state::TENTATIVE as u64),
            c_zero32: c(0),
        }
    }
}

impl Default for RecordCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RecordCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_data,
            r_valid,
            h_valid,
            h_op,
            h_ch,
            h_tx,
            h_rx,
            h_payload,
            h_digest,
            h_result_crc,
            h_folded,
            h_fold_x,
            h_efold,
            h_e_tx,
            h_e_value
        );
        self.h_efold.reset.next = self.reset.val();
        self.h_e_tx.reset.next = self.reset.val();
        self.h_e_value.reset.next = self.reset.val();
        self.h_folded.reset.next = self.reset.val();
        self.h_fold_x.reset.next = self.reset.val();
        self.r_data.reset.next = self.reset.val();
        self.r_valid.reset.next = self.reset.val();
        self.h_valid.reset.next = self.reset.val();
        self.h_op.reset.next = self.reset.val();
        self.h_ch.reset.next = self.reset.val();
        self.h_tx.reset.next = self.reset.val();
        self.h_rx.reset.next = self.reset.val();
        self.h_payload.reset.next = self.reset.val();
        self.h_digest.reset.next = self.reset.val();
        self.h_result_crc.reset.next = self.reset.val();
        // Stage 1: register the slot.
        self.r_data.d.next = self.rx_data.val();
        self.r_valid.d.next = self.rx_valid.val();
        // Stage 2: check it. Slice 0 is {check, transition, state, channel, opcode}.
        self.head.next = self.r_data.q.val().get_bits::<32>(0);
        self.op_now.next = self.head.val().get_bits::<8>(0);
        self.chan.next = self.head.val().get_bits::<8>(8);
        self.chan9.i.next = self.chan.val();
        self.state.next = self.head.val().get_bits::<8>(16);
        self.peek_channel.next = self.chan.val().get_bits::<CB>(0);
        self.peek_slice1.next = self.r_data.q.val().get_bits::<64>(64);
        self.peek_result_crc.next = self.result_crc_of.crc.val();
        self.covered.hi.next = self.r_data.q.val().get_bits::<448>(64);
        self.covered.lo.next = self.head.val();
        self.check.data.next = self.covered.o.val();
        self.payload_crc.data.next = self.r_data.q.val().get_bits::<448>(64);
        self.result_crc_of.data.next = self
            .r_data
            .q
            .val()
            .get_bits::<384>(self.at_result.val().index());
        self.is_entangle.next = self.op_now.val() == self.c_op_entangle.val();
        self.term.next = self.session.val();
        if self.is_entangle.val() {
            self.term.next = self.c_zero32.val();
        }
        self.cw.next = self
            .r_data
            .q
            .val()
            .get_bits::<32>(self.at_check.val().index());
        // A COMMIT_OFFER's OFFER: the residue is its folded decision check
        // (the one expected at its bit), XOR a folded echo's (likewise).
        self.is_offer.next = (self.op_now.val() == self.c_op_offer.val())
            | (self.op_now.val() == self.c_op_offer_verb.val());
        self.folds.next = (self.state.val().get_bits::<3>(0) == self.c_tx_commit_offer.val())
            & self.is_offer.val();
        self.efolds.next = self.state.val().get_bit(7) & self.is_offer.val();
        self.fold_x.next = self.state.val().get_bit(3) == self.exp_rx_bit.val();
        self.d_exp.next = self.c_zero32.val();
        if self.folds.val() {
            self.d_exp.next = self.exp_p.val();
            if self.fold_x.val() {
                self.d_exp.next = self.exp_x.val();
            }
        }
        self.e_at_tx.next = self.state.val().get_bit(6) == self.exp_tx_bit.val();
        self.e_exp.next = self.exp_e_next.val();
        if self.e_at_tx.val() {
            self.e_exp.next = self.exp_e_tx.val();
        }
        self.residue_exp.next = self.d_exp.val();
        if self.efolds.val() {
            self.residue_exp.next = self.d_exp.val() ^ self.e_exp.val();
        }
        self.good.next =
            (self.check.crc.val() ^ self.term.val() ^ self.residue_exp.val()) == self.cw.val();
        // A state in both roles: sender 0..=COMMIT_OFFER, receiver not 3,
        // bit 7 only in an offer stating TENTATIVE.
        self.state_ok.next = (self.state.val().get_bits::<3>(0) <= self.c_tx_max.val())
            & (self.state.val().get_bits::<2>(4) != self.c_rx_none.val())
            & (!self.state.val().get_bit(7)
                | (self.is_offer.val()
                    & (self.state.val().get_bits::<2>(4) == self.c_rx_tentative.val())));
        // Both copies of an ENTANGLE record's fields agree, and its version is ours.
        self.entangle_ok.next = (self
            .r_data
            .q
            .val()
            .get_bits::<ENTANGLE_FIELD_BITS>(self.at_fields.val().index())
            == self
                .r_data
                .q
                .val()
                .get_bits::<ENTANGLE_FIELD_BITS>(self.at_copy.val().index()))
            & (self
                .r_data
                .q
                .val()
                .get_bits::<8>(self.at_version.val().index())
                == self.c_version.val());
        self.known.next = (self.is_entangle.val() & self.entangle_ok.val())
            | (((self.op_now.val() == self.c_op_state.val())
                | (self.op_now.val() == self.c_op_offer.val())
                | (self.op_now.val() == self.c_op_offer_verb.val())
                | (self.op_now.val() == self.c_op_echo.val()))
                & (self.chan9.o.val() < self.c_k9.val())
                & self.state_ok.val());
        self.slot_good.next = self.r_valid.q.val() & self.good.val();
        self.slot_bad.next = self.r_valid.q.val() & !self.good.val();
        self.ev_record.next = self.r_valid.q.val() & self.good.val() & self.known.val();
        self.ev_bad_record.next = self.r_valid.q.val() & self.good.val() & !self.known.val();
        self.h_valid.d.next = self.r_valid.q.val() & self.good.val() & self.known.val();
        self.h_folded.d.next = self.folds.val();
        self.h_fold_x.d.next = self.fold_x.val();
        self.h_efold.d.next = self.efolds.val();
        self.h_e_tx.d.next = self.e_at_tx.val();
        self.h_e_value.d.next = self.e_exp.val();
        self.h_op.d.next = self.op_now.val();
        self.h_ch.d.next = self.chan.val().get_bits::<CB>(0);
        self.h_tx.d.next = self.state.val().get_bits::<4>(0);
        self.h_rx.d.next = self.state.val().get_bits::<3>(4);
        self.h_payload.d.next = self.r_data.q.val().get_bits::<448>(64);
        self.h_digest.d.next = self.payload_crc.crc.val();
        self.h_result_crc.d.next = self.result_crc_of.crc.val();
        // The decoded record.
        self.valid.next = self.h_valid.q.val();
        self.op.next = self.h_op.q.val();
        self.channel.next = self.h_ch.q.val();
        self.tx.next = self.h_tx.q.val();
        self.rx.next = self.h_rx.q.val();
        self.payload.next = self.h_payload.q.val();
        self.digest.next = self.h_digest.q.val();
        self.result_crc.next = self.h_result_crc.q.val();
        self.folded.next = self.h_folded.q.val();
        self.decision_at_our_rx_bit.next = self.h_fold_x.q.val();
        self.echo_folded.next = self.h_efold.q.val();
        self.echo_at_our_tx_bit.next = self.h_e_tx.q.val();
        self.echo_value.next = self.h_e_value.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_check_is_synthesizable() {
        let mut uut = RecordCheck::new();
        uut.connect_all();
        yosys_validate("acp_record_check", &generate_verilog(&uut)).unwrap();
    }
}
