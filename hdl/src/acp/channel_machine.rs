use crate::konst as c;
use pendulum_layout::acp::machine::moves;
use pendulum_layout::acp::{self, rx_state as rs, tx_state as ts};
use rust_hdl::prelude::*;

/// The channel machine (`pendulum_layout::acp::machine::hear`, whose module
/// docs hold the move tables): what one channel's state becomes when a
/// record on it is heard. Combinational; `AcpLink` feeds it the heard
/// channel's state from registers and applies what it says.
/// `hdl/tests/blocks/acp_channel_machine.rs` compares it with `hear` on
/// every input, the merged decision's moves included (COMMIT_OFFER, the next
/// payload, PASSED, DELIVER_STORE).
///
/// States are `{bit, state}`: sender role 4 bits (bit 3 the alternation
/// bit), receiver role 3 bits (bit 2).
#[derive(LogicBlock)]
pub struct ChannelMachine {
    /// The channel, both roles.
    pub tx: Signal<In, Bits<4>>,
    pub rx: Signal<In, Bits<3>>,
    pub holding: Signal<In, Bit>,
    /// The next payload is held beside the one held.
    pub next_held: Signal<In, Bit>,
    pub returning: Signal<In, Bit>,
    pub result_pending: Signal<In, Bit>,
    pub proof_due: Signal<In, Bit>,
    /// Room to store a message, and to run a verb.
    pub room: Signal<In, Bit>,
    pub verb_room: Signal<In, Bit>,
    /// The record heard: opcode, the peer's two roles, and its checks
    /// against what we hold.
    pub h_op: Signal<In, Bits<8>>,
    pub h_tx: Signal<In, Bits<4>>,
    pub h_rx: Signal<In, Bits<3>>,
    pub receiver_is_digest: Signal<In, Bit>,
    /// The echo is the next payload's (its digest with our decision check).
    pub receiver_is_next_digest: Signal<In, Bit>,
    pub echo_check_is_digest: Signal<In, Bit>,
    pub decision_commits: Signal<In, Bit>,
    pub decision_reverses: Signal<In, Bit>,
    /// The decision check is our proof (of our last delivery).
    pub decision_is_proof: Signal<In, Bit>,
    /// An offer with the peer's echo folded into its check word (state
    /// bit 7): an ECHO too, heard only if that echo is the one expected.
    pub echo_folded: Signal<In, Bit>,
    /// The channel's new state, and the transition byte of its move (valid with `moved`).
    pub n_tx: Signal<Out, Bits<4>>,
    pub n_rx: Signal<Out, Bits<3>>,
    pub transition: Signal<Out, Bits<8>>,
    pub moved: Signal<Out, Bit>,
    /// Set the decision check: the heard echo check, or (`check_complement`) its complement.
    pub set_check: Signal<Out, Bit>,
    pub check_complement: Signal<Out, Bit>,
    pub confirm: Signal<Out, Bit>,
    /// Confirmed by the next payload's echo: the result final is the one
    /// kept from the echo decided on, not the record's.
    pub confirm_by_echo: Signal<Out, Bit>,
    /// A COMMIT_OFFER's OFFER record whose folded check is not the one we
    /// expect: not heard (nothing else is set).
    pub not_heard: Signal<Out, Bit>,
    pub store: Signal<Out, Bit>,
    pub exec: Signal<Out, Bit>,
    pub deliver: Signal<Out, Bit>,
    pub erase: Signal<Out, Bit>,
    pub n_proof_due: Signal<Out, Bit>,
    /// The sender role is left IDLE and the record states the peer's
    /// receiver role at our bit, not REJECT: a payload loaded now is offered
    /// at once (`pendulum_layout::acp::machine::offers_on_load`).
    pub n_peer_ready: Signal<Out, Bit>,
    pub ev_commit: Signal<Out, Bit>,
    pub ev_reverse: Signal<Out, Bit>,
    pub ev_reject: Signal<Out, Bit>,

    our_ts: Signal<Local, Bits<3>>,
    our_rs: Signal<Local, Bits<2>>,
    h_ts: Signal<Local, Bits<3>>,
    h_rs: Signal<Local, Bits<2>>,
    /// The peer's receiver bit is our sender bit, and the reverse.
    tb_match: Signal<Local, Bit>,
    rb_match: Signal<Local, Bit>,
    is_state: Signal<Local, Bit>,
    is_echo: Signal<Local, Bit>,
    /// The record is an ECHO to the sender role: explicit, or folded into an offer.
    hears_echo: Signal<Local, Bit>,
    folds_echo: Signal<Local, Bit>,
    /// What a folded echo must be: our payload's at our bit, the next one's at the other.
    folded_echo_ok: Signal<Local, Bit>,
    is_offer: Signal<Local, Bit>,
    is_verb: Signal<Local, Bit>,
    /// The peer's sender role is COMMIT_OFFER, and its record offers.
    merged_offer: Signal<Local, Bit>,
    /// What a merged offer's folded check must be: our echo's check at our
    /// bit, our proof at the other.
    folded_ok: Signal<Local, Bit>,
    /// The record offers a payload we may store (EXPECT aside).
    takes_offer: Signal<Local, Bit>,
    /// The peer restates the echo we decided on.
    newer_echo: Signal<Local, Bit>,

    c_tx_idle: Constant<Bits<3>>,
    c_tx_offer: Constant<Bits<3>>,
    c_tx_commit: Constant<Bits<3>>,
    c_tx_reverse: Constant<Bits<3>>,
    c_tx_commit_offer: Constant<Bits<3>>,
    c_commit_offer4: Constant<Bits<4>>,
    c_rx_expect: Constant<Bits<2>>,
    c_rx_tentative: Constant<Bits<2>>,
    c_rx_reject: Constant<Bits<2>>,
    c_bit4: Constant<Bits<4>>,
    c_bit3: Constant<Bits<3>>,
    c_offer4: Constant<Bits<4>>,
    c_commit4: Constant<Bits<4>>,
    c_reverse4: Constant<Bits<4>>,
    c_tent3: Constant<Bits<3>>,
    c_reject3: Constant<Bits<3>>,
    c_op_state: Constant<Bits<8>>,
    c_op_offer: Constant<Bits<8>>,
    c_op_echo: Constant<Bits<8>>,
    c_op_offer_verb: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_t_offer: Constant<Bits<8>>,
    c_t_commit: Constant<Bits<8>>,
    c_t_reverse: Constant<Bits<8>>,
    c_t_stray: Constant<Bits<8>>,
    c_t_rejected: Constant<Bits<8>>,
    c_t_confirmed: Constant<Bits<8>>,
    c_t_reoffer: Constant<Bits<8>>,
    c_t_store: Constant<Bits<8>>,
    c_t_reject: Constant<Bits<8>>,
    c_t_deliver: Constant<Bits<8>>,
    c_t_erase: Constant<Bits<8>>,
    c_t_unreject: Constant<Bits<8>>,
    c_t_commit_next: Constant<Bits<8>>,
    c_t_passed: Constant<Bits<8>>,
    c_t_confirmed_offering: Constant<Bits<8>>,
    c_t_confirmed_rejected: Constant<Bits<8>>,
    c_t_deliver_store: Constant<Bits<8>>,
    c_t_deliver_reject: Constant<Bits<8>>,
}

impl Default for ChannelMachine {
    fn default() -> Self {
        Self {
            tx: Default::default(),
            rx: Default::default(),
            holding: Default::default(),
            next_held: Default::default(),
            returning: Default::default(),
            result_pending: Default::default(),
            proof_due: Default::default(),
            room: Default::default(),
            verb_room: Default::default(),
            h_op: Default::default(),
            h_tx: Default::default(),
            h_rx: Default::default(),
            receiver_is_digest: Default::default(),
            receiver_is_next_digest: Default::default(),
            echo_check_is_digest: Default::default(),
            decision_commits: Default::default(),
            decision_reverses: Default::default(),
            decision_is_proof: Default::default(),
            n_tx: Default::default(),
            n_rx: Default::default(),
            transition: Default::default(),
            moved: Default::default(),
            set_check: Default::default(),
            check_complement: Default::default(),
            confirm: Default::default(),
            confirm_by_echo: Default::default(),
            not_heard: Default::default(),
            store: Default::default(),
            exec: Default::default(),
            deliver: Default::default(),
            erase: Default::default(),
            n_proof_due: Default::default(),
            n_peer_ready: Default::default(),
            ev_commit: Default::default(),
            ev_reverse: Default::default(),
            ev_reject: Default::default(),
            our_ts: Default::default(),
            our_rs: Default::default(),
            h_ts: Default::default(),
            h_rs: Default::default(),
            tb_match: Default::default(),
            rb_match: Default::default(),
            is_state: Default::default(),
            is_echo: Default::default(),
            hears_echo: Default::default(),
            folds_echo: Default::default(),
            folded_echo_ok: Default::default(),
            echo_folded: Default::default(),
            is_offer: Default::default(),
            is_verb: Default::default(),
            merged_offer: Default::default(),
            folded_ok: Default::default(),
            takes_offer: Default::default(),
            newer_echo: Default::default(),
            c_tx_idle: c(ts::IDLE as u64),
            c_tx_offer: c(ts::OFFER as u64),
            c_tx_commit: c(ts::COMMIT as u64),
            c_tx_reverse: c(ts::REVERSE as u64),
            c_tx_commit_offer: c(ts::COMMIT_OFFER as u64),
            c_commit_offer4: c(ts::COMMIT_OFFER as u64),
            c_rx_expect: c(rs::EXPECT as u64),
            c_rx_tentative: c(rs::TENTATIVE as u64),
            c_rx_reject: c(rs::REJECT as u64),
            c_bit4: c(8),
            c_bit3: c(4),
            c_offer4: c(ts::OFFER as u64),
            c_commit4: c(ts::COMMIT as u64),
            c_reverse4: c(ts::REVERSE as u64),
            c_tent3: c(rs::TENTATIVE as u64),
            c_reject3: c(rs::REJECT as u64),
            c_op_state: c(acp::OP_STATE as u64),
            c_op_offer: c(acp::OP_OFFER as u64),
            c_op_echo: c(acp::OP_ECHO as u64),
            c_op_offer_verb: c(acp::OP_OFFER_VERB as u64),
            c_zero8: c(0),
            c_t_offer: c(moves::OFFER as u64),
            c_t_commit: c(moves::COMMIT as u64),
            c_t_reverse: c(moves::REVERSE as u64),
            c_t_stray: c(moves::STRAY as u64),
            c_t_rejected: c(moves::REJECTED as u64),
            c_t_confirmed: c(moves::CONFIRMED as u64),
            c_t_reoffer: c(moves::REOFFER as u64),
            c_t_store: c(moves::STORE as u64),
            c_t_reject: c(moves::REJECT as u64),
            c_t_deliver: c(moves::DELIVER as u64),
            c_t_erase: c(moves::ERASE as u64),
            c_t_unreject: c(moves::UNREJECT as u64),
            c_t_commit_next: c(moves::COMMIT_NEXT as u64),
            c_t_passed: c(moves::PASSED as u64),
            c_t_confirmed_offering: c(moves::CONFIRMED_OFFERING as u64),
            c_t_confirmed_rejected: c(moves::CONFIRMED_REJECTED as u64),
            c_t_deliver_store: c(moves::DELIVER_STORE as u64),
            c_t_deliver_reject: c(moves::DELIVER_REJECT as u64),
        }
    }
}

impl Logic for ChannelMachine {
    #[hdl_gen]
    fn update(&mut self) {
        self.our_ts.next = self.tx.val().get_bits::<3>(0);
        self.our_rs.next = self.rx.val().get_bits::<2>(0);
        self.h_ts.next = self.h_tx.val().get_bits::<3>(0);
        self.h_rs.next = self.h_rx.val().get_bits::<2>(0);
        self.tb_match.next = self.h_rx.val().get_bit(2) == self.tx.val().get_bit(3);
        self.rb_match.next = self.h_tx.val().get_bit(3) == self.rx.val().get_bit(2);
        self.is_state.next = self.h_op.val() == self.c_op_state.val();
        self.is_echo.next = self.h_op.val() == self.c_op_echo.val();
        self.is_offer.next = self.h_op.val() == self.c_op_offer.val();
        self.is_verb.next = self.h_op.val() == self.c_op_offer_verb.val();
        self.merged_offer.next = (self.h_ts.val() == self.c_tx_commit_offer.val())
            & (self.is_offer.val() | self.is_verb.val());
        if self.rb_match.val() {
            self.folded_ok.next = self.decision_commits.val();
        } else {
            self.folded_ok.next = self.decision_is_proof.val();
        }
        self.folds_echo.next = self.echo_folded.val() & (self.is_offer.val() | self.is_verb.val());
        if self.tb_match.val() {
            self.folded_echo_ok.next = self.receiver_is_digest.val();
        } else {
            self.folded_echo_ok.next = self.receiver_is_next_digest.val();
        }
        self.hears_echo.next = self.is_echo.val() | self.folds_echo.val();
        self.not_heard.next = (self.merged_offer.val() & !self.folded_ok.val())
            | (self.folds_echo.val() & !self.folded_echo_ok.val());
        // An echo of the payload we decided on, stated again (COMMIT, COMMIT_OFFER).
        self.newer_echo.next = self.tb_match.val()
            & (self.h_rs.val() == self.c_rx_tentative.val())
            & self.hears_echo.val()
            & self.receiver_is_digest.val();

        // Sender role, on the peer's receiver state.
        self.n_tx.next = self.tx.val();
        self.transition.next = self.c_zero8.val();
        self.moved.next = false;
        self.set_check.next = false;
        self.check_complement.next = false;
        self.confirm.next = false;
        self.confirm_by_echo.next = false;
        self.ev_commit.next = false;
        self.ev_reverse.next = false;
        self.ev_reject.next = false;
        self.n_rx.next = self.rx.val();
        self.store.next = false;
        self.exec.next = false;
        self.deliver.next = false;
        self.erase.next = false;
        if self.not_heard.val() {
            // Nothing changes.
        } else if self.our_ts.val() == self.c_tx_idle.val() {
            if self.tb_match.val()
                & self.holding.val()
                & !self.returning.val()
                & ((self.h_rs.val() == self.c_rx_expect.val())
                    | (self.h_rs.val() == self.c_rx_tentative.val()))
            {
                // (TENTATIVE: the REJECT we heard was damaged; offer again and decide.)
                self.n_tx.next = (self.tx.val() & self.c_bit4.val()) | self.c_offer4.val();
                self.transition.next = self.c_t_offer.val();
                self.moved.next = true;
            } else if self.tb_match.val()
                & !self.holding.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.hears_echo.val()
            {
                // It holds what we never offered (a damaged record stored it): have it erased.
                self.n_tx.next = (self.tx.val() & self.c_bit4.val()) | self.c_reverse4.val();
                self.transition.next = self.c_t_stray.val();
                self.set_check.next = true;
                self.check_complement.next = true;
                self.ev_reverse.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_offer.val() {
            if self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.hears_echo.val()
            {
                // The decision: the commit point of the transfer (with the
                // next payload held, offered in the same records).
                self.set_check.next = true;
                if self.receiver_is_digest.val() & self.next_held.val() {
                    self.n_tx.next =
                        (self.tx.val() & self.c_bit4.val()) | self.c_commit_offer4.val();
                    self.transition.next = self.c_t_commit_next.val();
                    self.ev_commit.next = true;
                } else if self.receiver_is_digest.val() {
                    self.n_tx.next = (self.tx.val() & self.c_bit4.val()) | self.c_commit4.val();
                    self.transition.next = self.c_t_commit.val();
                    self.ev_commit.next = true;
                } else {
                    self.n_tx.next = (self.tx.val() & self.c_bit4.val()) | self.c_reverse4.val();
                    self.transition.next = self.c_t_reverse.val();
                    self.check_complement.next = true;
                    self.ev_reverse.next = true;
                }
                self.moved.next = true;
            } else if self.tb_match.val() & (self.h_rs.val() == self.c_rx_reject.val()) {
                self.n_tx.next = self.tx.val() & self.c_bit4.val();
                self.transition.next = self.c_t_rejected.val();
                self.ev_reject.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_commit.val() {
            if self.newer_echo.val() {
                // The check of the newest echo (the one we decided on may
                // have reached us with its result damaged).
                self.set_check.next = true;
            } else if !self.tb_match.val()
                & self.is_state.val()
                & (self.h_rs.val() != self.c_rx_tentative.val())
                & self.echo_check_is_digest.val()
                & !self.result_pending.val()
            {
                // The proof of delivery. (Taken only once the channel's last
                // result is handed up: the peer restates it.)
                self.n_tx.next = (self.tx.val() & self.c_bit4.val()) ^ self.c_bit4.val();
                self.transition.next = self.c_t_confirmed.val();
                self.confirm.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_commit_offer.val() {
            if self.newer_echo.val() {
                // The check of the newest echo, as in COMMIT.
                self.set_check.next = true;
            } else if !self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.hears_echo.val()
                & self.receiver_is_next_digest.val()
                & !self.result_pending.val()
            {
                // The next payload's echo proves the one held delivered and
                // decides the next: COMMIT at the other bit.
                self.n_tx.next = ((self.tx.val() & self.c_bit4.val()) ^ self.c_bit4.val())
                    | self.c_commit4.val();
                self.transition.next = self.c_t_passed.val();
                self.confirm.next = true;
                self.confirm_by_echo.next = true;
                self.set_check.next = true;
                self.ev_commit.next = true;
                self.moved.next = true;
            } else if !self.tb_match.val()
                & self.is_state.val()
                & self.echo_check_is_digest.val()
                & !self.result_pending.val()
            {
                // The proof of the one held: the next is offered on its own,
                // or was refused.
                self.confirm.next = true;
                if self.h_rs.val() == self.c_rx_reject.val() {
                    self.n_tx.next = (self.tx.val() & self.c_bit4.val()) ^ self.c_bit4.val();
                    self.transition.next = self.c_t_confirmed_rejected.val();
                    self.ev_reject.next = true;
                } else {
                    self.n_tx.next = ((self.tx.val() & self.c_bit4.val()) ^ self.c_bit4.val())
                        | self.c_offer4.val();
                    self.transition.next = self.c_t_confirmed_offering.val();
                }
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_reverse.val() {
            if self.tb_match.val() & (self.h_rs.val() != self.c_rx_tentative.val()) {
                // Erased at the peer (or never stored): hold it and offer it again.
                self.n_tx.next = self.tx.val() & self.c_bit4.val();
                self.transition.next = self.c_t_reoffer.val();
                self.moved.next = true;
            } else if self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.hears_echo.val()
            {
                self.set_check.next = true;
                self.check_complement.next = true;
            }
        }

        // Receiver role, on the peer's sender state and decision check. An
        // offer is stored only once the sender was heard at our bit before:
        // right after a delivery it is behind (waiting for our proof), so a
        // damaged record cannot make us store then. Or it is the next
        // payload of a merged decision on what we delivered last: its
        // folded check is our proof (the sender is one bit behind us).
        if self.rb_match.val() {
            self.takes_offer.next = (self.h_ts.val() == self.c_tx_offer.val())
                & (self.is_offer.val() | self.is_verb.val())
                & !self.proof_due.val();
        } else {
            self.takes_offer.next = self.merged_offer.val();
        }
        if self.not_heard.val() {
            // Nothing changes.
        } else if (self.our_rs.val() == self.c_rx_expect.val()) & self.takes_offer.val() {
            // A verb also needs the atomic unit free and its line not held.
            if self.room.val() & (!self.is_verb.val() | self.verb_room.val()) {
                self.n_rx.next = (self.rx.val() & self.c_bit3.val()) | self.c_tent3.val();
                self.transition.next = self.c_t_store.val();
                self.store.next = true;
                self.exec.next = self.is_verb.val();
            } else {
                self.n_rx.next = (self.rx.val() & self.c_bit3.val()) | self.c_reject3.val();
                self.transition.next = self.c_t_reject.val();
            }
            self.moved.next = true;
        } else if self.rb_match.val() {
            if self.our_rs.val() == self.c_rx_tentative.val() {
                if (self.h_ts.val() == self.c_tx_commit.val())
                    & (self.is_state.val() | self.is_echo.val())
                    & self.decision_commits.val()
                {
                    self.n_rx.next = (self.rx.val() & self.c_bit3.val()) ^ self.c_bit3.val();
                    self.transition.next = self.c_t_deliver.val();
                    self.deliver.next = true;
                    self.moved.next = true;
                } else if (self.h_ts.val() == self.c_tx_commit_offer.val())
                    & self.decision_commits.val()
                {
                    // Deliver, and take the next payload the record offers.
                    self.deliver.next = true;
                    if (self.is_offer.val() | self.is_verb.val())
                        & self.room.val()
                        & (!self.is_verb.val() | self.verb_room.val())
                    {
                        self.n_rx.next = ((self.rx.val() & self.c_bit3.val()) ^ self.c_bit3.val())
                            | self.c_tent3.val();
                        self.transition.next = self.c_t_deliver_store.val();
                        self.store.next = true;
                        self.exec.next = self.is_verb.val();
                    } else if self.is_offer.val() | self.is_verb.val() {
                        self.n_rx.next = ((self.rx.val() & self.c_bit3.val()) ^ self.c_bit3.val())
                            | self.c_reject3.val();
                        self.transition.next = self.c_t_deliver_reject.val();
                    } else {
                        self.n_rx.next = (self.rx.val() & self.c_bit3.val()) ^ self.c_bit3.val();
                        self.transition.next = self.c_t_deliver.val();
                    }
                    self.moved.next = true;
                } else if (self.h_ts.val() == self.c_tx_reverse.val())
                    & (self.is_state.val() | self.is_echo.val())
                    & self.decision_reverses.val()
                {
                    self.n_rx.next = self.rx.val() & self.c_bit3.val();
                    self.transition.next = self.c_t_erase.val();
                    self.erase.next = true;
                    self.moved.next = true;
                }
            } else if (self.our_rs.val() == self.c_rx_reject.val())
                & (self.h_ts.val() == self.c_tx_idle.val())
            {
                self.n_rx.next = self.rx.val() & self.c_bit3.val();
                self.transition.next = self.c_t_unreject.val();
                self.moved.next = true;
            }
        }
        if self.not_heard.val() {
            self.n_proof_due.next = self.proof_due.val();
        } else {
            self.n_proof_due.next = self.h_tx.val().get_bit(3) != self.n_rx.val().get_bit(2);
        }
        self.n_peer_ready.next = !self.not_heard.val()
            & (self.n_tx.val().get_bits::<3>(0) == self.c_tx_idle.val())
            & (self.h_rx.val().get_bit(2) == self.n_tx.val().get_bit(3))
            & (self.h_rs.val() != self.c_rx_reject.val());
    }
}
