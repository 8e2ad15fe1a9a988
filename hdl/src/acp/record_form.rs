use super::channel_views::SlotChannel;
use super::check::ENTANGLE_FIELD_BITS;
use super::slot_choice::SlotChoice;
use super::Crc32c;
use crate::konst as c;
use crate::reset::SDFF;
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::acp::{self, rx_state as rs, tx_state as ts};
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// Width of a channel count, 0..=K.
const CB1: usize = CB + 1;

/// Record formation for `AcpLink`: the 64-byte record that states each
/// slot's channel (layout in `pendulum_layout::acp`). `SlotChoice` chooses
/// the channel: `ch` is the channel of the record being formed (the link
/// muxes that channel's state onto the inputs, and reads its payload and
/// result RAMs at it).
/// `clear_tx`/`clear_rx` say which of `ch`'s news its record states, as it
/// is formed. A record is formed one cycle ahead of the port and its check
/// word computed at the port side of the register: a channel record's
/// check word carries `session` (the session term), an ENTANGLE record's
/// none. Before the link is Up every slot carries the ENTANGLE fields,
/// twice.
///
/// The port queues what it is handed (the NIC's skid buffer holds two
/// records), and a record waits there for every record ahead of it: 1.68
/// cycles each at 100 GbE. So a record that only restates for want of
/// news is offered to the port only when the port holds none
/// (`port_idle`, which the NIC judges from registers: its skid empty, or a
/// port ready in each of the last three cycles, which takes one a cycle);
/// while it waits, news formed after it may take its place (`SlotChoice`'s
/// `skip`). News, and the restating share's records, go at the port's full
/// rate. Without this, news waited behind two restates at each end of a
/// round: a paced round at RTT 64 took 70.5 cycles, with it 68.5.
///
/// A side that both offers and needs the payload slices for its receiver
/// role (an echo, or the proof its peer waits for) sends first the role
/// with news (the receiver's if both), and when restating takes the two in
/// alternate rounds (`pendulum_layout::acp::carries_echo`). When what the
/// receiver role needs is the echo of a message, an offer carries it in
/// its check word (state bit 7, `pendulum_layout::acp::STATE_ECHO_FOLDED`):
/// then news of both roles goes in one record, and only the restating
/// rounds that carry the receiver's fields send the echo explicitly (the
/// form a peer that expects another echo still hears).
///
/// A channel in COMMIT_OFFER (the merged decision,
/// `pendulum_layout::acp::machine`) sends its records in turns: an OFFER of
/// the next payload with the decision check folded into the check word
/// (XORed in), then a plain record stating the decision check in the
/// payload slices (with the receiver role's fields, if it needs them). A
/// tentative receiver whose peer is behind (it stored the next payload of
/// a merged decision) sends its echo and its proof in turns. Each channel
/// keeps its two turn bits (`ChannelState`).
#[derive(LogicBlock)]
pub struct RecordForm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The state of channel `ch` (`ChannelState`).
    pub state: Signal<In, SlotChannel>,
    /// RAM reads at `ch` (combinational `LutRam`s, so they see a write of
    /// the cycle before): the payload in each of the channel's two buffers
    /// (`state.head` names the one held), and the verb result in each of
    /// its two result buffers (the receiver bit names the tentative verb's;
    /// the other holds the last delivered one's).
    pub payload_0: Signal<In, Bits<448>>,
    pub payload_1: Signal<In, Bits<448>>,
    pub result_0: Signal<In, Bits<384>>,
    pub result_1: Signal<In, Bits<384>>,
    /// The link state (`Entangle`).
    pub up: Signal<In, Bit>,
    pub go_up: Signal<In, Bit>,
    pub active: Signal<In, Bits<CB1>>,
    /// Channels with news (`ChannelState`), a bit per channel.
    pub news: Signal<In, Bits<K>>,
    pub ent_fields: Signal<In, Bits<ENTANGLE_FIELD_BITS>>,
    pub session: Signal<In, Bits<32>>,
    /// The slot channel (a register: the payload and result RAMs' read address).
    pub ch: Signal<Out, Bits<CB>>,
    /// The record taken by the port states `ch`'s sender-role news, its
    /// receiver-role news.
    pub clear_tx: Signal<Out, Bit>,
    pub clear_rx: Signal<Out, Bit>,
    /// The record taken by the port was `ch`'s: flip its turn, and its
    /// echo/proof turn (a tentative receiver whose peer is behind sent one).
    pub flip_turn: Signal<Out, Bit>,
    pub flip_pturn: Signal<Out, Bit>,
    /// The port.
    pub tx_data: Signal<Out, Bits<512>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// The port holds no record: a waiting record that only restates goes
    /// to it only then, so news formed after it does not queue behind it.
    pub port_idle: Signal<In, Bit>,

    /// Which channel each slot states.
    slots: SlotChoice,
    /// The waiting record is offered to the port, and the port takes it.
    offered: Signal<Local, Bit>,
    takes: Signal<Local, Bit>,
    needs_fields: Signal<Local, Bit>,
    echo_waits: Signal<Local, Bit>,
    /// The slot channel's two roles, `{bit, state}`.
    s_tx: Signal<Local, Bits<4>>,
    s_rx: Signal<Local, Bits<3>>,
    offering: Signal<Local, Bit>,
    /// COMMIT_OFFER; this record folds its decision into an OFFER.
    merged: Signal<Local, Bit>,
    folded: Signal<Local, Bit>,
    /// The record carries a payload (an OFFER), or the receiver role's fields.
    payload_turn: Signal<Local, Bit>,
    /// A tentative receiver sends its proof instead of its echo.
    shows_proof: Signal<Local, Bit>,
    payload: Signal<Local, Bits<448>>,
    offered_verb: Signal<Local, Bit>,
    fold: Signal<Local, Bits<32>>,
    tentative: Signal<Local, Bit>,
    deciding: Signal<Local, Bit>,
    echo_ready: Signal<Local, Bit>,
    fields_turn: Signal<Local, Bit>,
    res: Signal<Local, Bits<384>>,
    receiver_field: Signal<Local, Bits<32>>,
    decision: Signal<Local, Bits<32>>,
    fields_lo: Concat<32, 32, 64>,
    fields: Concat<384, 64, 448>,
    op: Signal<Local, Bits<8>>,
    body: Signal<Local, Bits<448>>,
    head32: Signal<Local, Bits<32>>,
    state7: Concat<3, 4, 7>,
    state8: ZeroExtend<7, 8>,
    /// The receiver role's echo could ride in an offer's check word (a
    /// message held tentatively), and this record carries it so.
    echo_foldable: Signal<Local, Bit>,
    echo_in_offer: Signal<Local, Bit>,
    state_byte: Signal<Local, Bits<8>>,
    c_echo_folded: Constant<Bits<8>>,
    chan8: ZeroExtend<CB, 8>,
    head_hi: Concat<8, 8, 16>,
    head_lo: Concat<8, 8, 16>,
    head: Concat<16, 16, 32>,
    op_head: ZeroExtend<8, 32>,
    ent_first: ZeroExtend<ENTANGLE_FIELD_BITS, 256>,
    ent_both: Concat<ENTANGLE_FIELD_BITS, 256, 376>,
    ent448: ZeroExtend<376, 448>,
    o_body: SDFF<Bits<448>>,
    o_head: SDFF<Bits<32>>,
    /// The record formed is an ENTANGLE record (its check word has no session term).
    o_is_entangle: SDFF<Bit>,
    /// The decision check folded into the check word (0 in a plain record).
    o_fold: SDFF<Bits<32>>,
    /// A record has been formed (the port is silent only before the first).
    o_started: SDFF<Bit>,
    o_cat: Concat<448, 32, 480>,
    o_check: Crc32c<480>,
    o_term: Signal<Local, Bits<32>>,
    o_check_head: Concat<32, 32, 64>,
    o_record: Concat<448, 64, 512>,

    c_zero32: Constant<Bits<32>>,
    c_zero384: Constant<Bits<384>>,
    c_tx_offer: Constant<Bits<3>>,
    c_tx_commit: Constant<Bits<3>>,
    c_tx_reverse: Constant<Bits<3>>,
    c_tx_commit_offer: Constant<Bits<3>>,
    c_rx_tentative: Constant<Bits<2>>,
    c_op_state: Constant<Bits<8>>,
    c_op_offer: Constant<Bits<8>>,
    c_op_echo: Constant<Bits<8>>,
    c_op_offer_verb: Constant<Bits<8>>,
    c_op_entangle: Constant<Bits<8>>,
}

impl Default for RecordForm {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            state: Default::default(),
            payload_0: Default::default(),
            payload_1: Default::default(),
            result_0: Default::default(),
            result_1: Default::default(),
            up: Default::default(),
            go_up: Default::default(),
            active: Default::default(),
            ent_fields: Default::default(),
            session: Default::default(),
            ch: Default::default(),
            clear_tx: Default::default(),
            clear_rx: Default::default(),
            flip_turn: Default::default(),
            flip_pturn: Default::default(),
            news: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            port_idle: Default::default(),
            offered: Default::default(),
            takes: Default::default(),
            needs_fields: Default::default(),
            echo_waits: Default::default(),
            slots: SlotChoice::default(),
            s_tx: Default::default(),
            s_rx: Default::default(),
            offering: Default::default(),
            merged: Default::default(),
            folded: Default::default(),
            payload_turn: Default::default(),
            shows_proof: Default::default(),
            payload: Default::default(),
            offered_verb: Default::default(),
            fold: Default::default(),
            tentative: Default::default(),
            deciding: Default::default(),
            echo_ready: Default::default(),
            fields_turn: Default::default(),
            res: Default::default(),
            receiver_field: Default::default(),
            decision: Default::default(),
            fields_lo: Default::default(),
            fields: Default::default(),
            op: Default::default(),
            body: Default::default(),
            head32: Default::default(),
            state7: Default::default(),
            state8: Default::default(),
            echo_foldable: Default::default(),
            echo_in_offer: Default::default(),
            state_byte: Default::default(),
            c_echo_folded: c(acp::STATE_ECHO_FOLDED as u64),
            chan8: Default::default(),
            head_hi: Default::default(),
            head_lo: Default::default(),
            head: Default::default(),
            op_head: Default::default(),
            ent_first: Default::default(),
            ent_both: Default::default(),
            ent448: Default::default(),
            o_body: Default::default(),
            o_head: Default::default(),
            o_is_entangle: Default::default(),
            o_fold: Default::default(),
            o_started: Default::default(),
            o_cat: Default::default(),
            o_check: Default::default(),
            o_term: Default::default(),
            o_check_head: Default::default(),
            o_record: Default::default(),
            c_zero32: c(0),
            c_zero384: c(0),
            c_tx_offer: c(ts::OFFER as u64),
            c_tx_commit: c(ts::COMMIT as u64),
            c_tx_reverse: c(ts::REVERSE as u64),
            c_tx_commit_offer: c(ts::COMMIT_OFFER as u64),
            c_rx_tentative: c(rs::TENTATIVE as u64),
            c_op_state: c(acp::OP_STATE as u64),
            c_op_offer: c(acp::OP_OFFER as u64),
            c_op_echo: c(acp::OP_ECHO as u64),
            c_op_offer_verb: c(acp::OP_OFFER_VERB as u64),
            c_op_entangle: c(acp::OP_ENTANGLE as u64),
        }
    }
}

impl Logic for RecordForm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            o_body,
            o_head,
            o_is_entangle,
            o_fold,
            o_started
        );
        self.o_fold.reset.next = self.reset.val();
        self.o_body.reset.next = self.reset.val();
        self.o_head.reset.next = self.reset.val();
        self.o_is_entangle.reset.next = self.reset.val();
        self.o_started.reset.next = self.reset.val();
        self.slots.clock.next = self.clock.val();
        self.slots.reset.next = self.reset.val();
        self.offered.next = self.port_idle.val() | !self.slots.spare_waiting.val();
        self.takes.next = self.tx_ready.val() & self.offered.val();
        self.slots.tx_ready.next = self.takes.val();
        self.slots.up.next = self.up.val();
        self.slots.go_up.next = self.go_up.val();
        self.slots.active.next = self.active.val();
        self.slots.news.next = self.news.val();
        self.slots.ch_news.next = self.state.val().tx_news | self.state.val().rx_news;
        self.slots.started.next = self.o_started.q.val();
        self.ch.next = self.slots.ch.val();

        self.s_tx.next = self.state.val().tx;
        self.s_rx.next = self.state.val().rx;
        self.offering.next = self.s_tx.val().get_bits::<3>(0) == self.c_tx_offer.val();
        self.merged.next = self.s_tx.val().get_bits::<3>(0) == self.c_tx_commit_offer.val();
        self.deciding.next = (self.s_tx.val().get_bits::<3>(0) == self.c_tx_commit.val())
            | (self.s_tx.val().get_bits::<3>(0) == self.c_tx_reverse.val())
            | self.merged.val();
        self.tentative.next = self.s_rx.val().get_bits::<2>(0) == self.c_rx_tentative.val();
        // A tentative verb is echoed only once its result is back from the
        // unit (written to its RAM last cycle at the latest, which the read
        // sees).
        self.echo_ready.next =
            self.tentative.val() & (!self.state.val().rx_verb | self.state.val().res_ready);
        // The receiver role needs the payload slices for its echo, or for the
        // proof its peer waits for; when the sender role offers too, the
        // role with news goes first (the receiver's if both), and restated
        // they take turns by round (pendulum_layout::acp::carries_echo). A
        // merged decision folds into an OFFER of the next payload every
        // other record of the channel.
        self.echo_waits.next = self.tentative.val() & !self.echo_ready.val();
        self.needs_fields.next =
            self.echo_ready.val() | (!self.tentative.val() & self.state.val().proof_due);
        self.folded.next = self.merged.val() & !self.state.val().turn;
        // A message's echo rides in an offer's check word, so its news
        // does not hold the offer back; restating, the explicit echo still
        // takes every other round. (`ChannelState` holds back such news on
        // one side of the pair by the same test: change the two together.)
        self.echo_foldable.next = self.tentative.val() & !self.state.val().rx_verb;
        self.payload_turn.next = self.folded.val()
            | (self.offering.val()
                & !(self.needs_fields.val()
                    & ((self.state.val().rx_news & !self.echo_foldable.val())
                        | (!self.state.val().tx_news & self.slots.round.val()))));
        self.fields_turn.next = self.needs_fields.val() & !self.payload_turn.val();
        self.echo_in_offer.next = self.payload_turn.val() & self.echo_foldable.val();
        // A tentative receiver whose peer is behind (waiting for the proof
        // of what we delivered last) sends that proof every other time.
        self.shows_proof.next =
            self.tentative.val() & self.state.val().proof_due & self.state.val().pturn;
        // The payload offered: the one held, or the next one (the other buffer).
        self.payload.next = self.payload_0.val();
        if self.state.val().head ^ self.merged.val() {
            self.payload.next = self.payload_1.val();
        }
        self.offered_verb.next = self.state.val().tx_verb;
        if self.merged.val() {
            self.offered_verb.next = self.state.val().next_verb;
        }
        // The fields of a record that offers nothing: the receiver role's
        // digest or proof, the sender role's decision check, a verb's result.
        // An echo carries the tentative verb's result, a proof the last
        // delivered verb's (0 for messages).
        self.res.next = self.c_zero384.val();
        if self.tentative.val() & !self.shows_proof.val() {
            if self.state.val().rx_verb {
                self.res.next = self.result_0.val();
                if self.s_rx.val().get_bit(2) {
                    self.res.next = self.result_1.val();
                }
            }
        } else if self.state.val().pverb {
            self.res.next = self.result_1.val();
            if self.s_rx.val().get_bit(2) {
                self.res.next = self.result_0.val();
            }
        }
        self.receiver_field.next = self.state.val().proof;
        if self.tentative.val() & !self.shows_proof.val() {
            self.receiver_field.next = self.state.val().rx_digest;
        }
        self.decision.next = self.c_zero32.val();
        if self.deciding.val() {
            self.decision.next = self.state.val().auth;
        }
        self.fields_lo.hi.next = self.decision.val();
        self.fields_lo.lo.next = self.receiver_field.val();
        self.fields.hi.next = self.res.val();
        self.fields.lo.next = self.fields_lo.o.val();

        self.op.next = self.c_op_state.val();
        self.body.next = self.fields.o.val();
        self.fold.next = self.c_zero32.val();
        if self.payload_turn.val() {
            self.op.next = self.c_op_offer.val();
            if self.offered_verb.val() {
                self.op.next = self.c_op_offer_verb.val();
            }
            self.body.next = self.payload.val();
            if self.folded.val() & self.echo_in_offer.val() {
                self.fold.next = self.state.val().auth ^ self.state.val().rx_digest;
            } else if self.folded.val() {
                self.fold.next = self.state.val().auth;
            } else if self.echo_in_offer.val() {
                self.fold.next = self.state.val().rx_digest;
            }
        } else if self.fields_turn.val() & self.echo_ready.val() & !self.shows_proof.val() {
            self.op.next = self.c_op_echo.val();
        }
        self.state7.hi.next = self.s_rx.val();
        self.state7.lo.next = self.s_tx.val();
        self.state8.i.next = self.state7.o.val();
        self.chan8.i.next = self.slots.ch.val();
        self.head_hi.hi.next = self.state.val().trans;
        self.state_byte.next = self.state8.o.val();
        if self.echo_in_offer.val() {
            self.state_byte.next = self.state8.o.val() | self.c_echo_folded.val();
        }
        self.head_hi.lo.next = self.state_byte.val();
        self.head_lo.hi.next = self.chan8.o.val();
        self.head_lo.lo.next = self.op.val();
        self.head.hi.next = self.head_hi.o.val();
        self.head.lo.next = self.head_lo.o.val();
        self.head32.next = self.head.o.val();
        // Not up: every slot carries our ENTANGLE record, its fields twice.
        self.ent_first.i.next = self.ent_fields.val();
        self.ent_both.hi.next = self.ent_fields.val();
        self.ent_both.lo.next = self.ent_first.o.val();
        self.ent448.i.next = self.ent_both.o.val();
        self.op_head.i.next = self.c_op_entangle.val();
        if !self.up.val() {
            self.head32.next = self.op_head.o.val();
            self.body.next = self.ent448.o.val();
        }

        // What the record taken states: the sender role's news unless the
        // record carries the receiver role's fields while it offers; the
        // receiver role's unless its echo is still to come, or it needed
        // the fields and the record carries the offer.
        // A record right after one of the same channel clears nothing: the
        // peer does not hear it if the one before changed the channel there
        // (`AcpLink`), so its news is stated again.
        self.clear_tx.next = false;
        self.clear_rx.next = false;
        // (A record formed on `skip` follows one of another channel.)
        if self.up.val()
            & ((self.takes.val() & (self.slots.last_ch.val() != self.slots.ch.val()))
                | self.slots.skip.val())
        {
            self.clear_tx.next = !self.offering.val() | self.payload_turn.val();
            self.clear_rx.next = !self.echo_waits.val()
                & (self.fields_turn.val() | !self.needs_fields.val() | self.echo_in_offer.val());
        }
        self.flip_turn.next = self.slots.advance.val() & self.up.val();
        self.flip_pturn.next = self.slots.advance.val()
            & self.up.val()
            & self.fields_turn.val()
            & self.tentative.val()
            & self.state.val().proof_due;

        // The record formed: latched when the port takes the one before
        // it, or drops it (`SlotChoice`).
        if self.slots.advance.val() {
            self.o_body.d.next = self.body.val();
            self.o_head.d.next = self.head32.val();
            self.o_is_entangle.d.next = !self.up.val();
            self.o_fold.d.next = self.fold.val();
            if !self.up.val() {
                self.o_fold.d.next = self.c_zero32.val();
            }
            self.o_started.d.next = true;
        }
        // The check word: a channel record's carries our session's term.
        self.o_cat.hi.next = self.o_body.q.val();
        self.o_cat.lo.next = self.o_head.q.val();
        self.o_check.data.next = self.o_cat.o.val();
        self.o_term.next = self.session.val();
        if self.o_is_entangle.q.val() {
            self.o_term.next = self.c_zero32.val();
        }
        self.o_check_head.hi.next =
            self.o_check.crc.val() ^ self.o_term.val() ^ self.o_fold.q.val();
        self.o_check_head.lo.next = self.o_head.q.val();
        self.o_record.hi.next = self.o_body.q.val();
        self.o_record.lo.next = self.o_check_head.o.val();
        self.tx_data.next = self.o_record.o.val();
        self.tx_valid.next = self.o_started.q.val() & self.offered.val();
    }
}
