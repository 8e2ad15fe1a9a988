use super::channel_reads::ChannelReads;
use super::channel_views::{HeardChannel, SlotChannel};
use super::channel_words::ChannelWords;
use super::load_choice::LoadChoice;
use super::offer_events::OfferEvents;
use crate::konst as c;
use crate::reset::SDFF;
use pendulum_layout::acp::machine::moves;
use pendulum_layout::acp::{rx_state as rs, tx_state as ts};
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// The state of `AcpLink`'s K channels, both roles, in registers: the one
/// home of it. Four read ports, each a channel in and its state out a
/// moment later (combinational): the record being checked (`heard_*`), the
/// record being formed (`slot_*`), the hand-back scanner (`scan_*`) and the
/// verb result just back (`result_*`). `ChannelReads` reads the flags (as
/// vector indexes, balanced trees) and `ChannelWords` the 32-bit words.
/// The writers, in the order they take effect when two touch one channel
/// in a cycle (the later wins):
///
/// 1. a verb result back from our unit (`res_set`, `x_set`);
/// 2. the move of the heard channel (`apply`, what `ChannelMachine` said);
/// 3. the hand-back taking a proven result (`result_taken`), or the
///    scanner a payload;
/// 4. the offer of a payload held by an idle channel whose last heard
///    record left `peer_ready` (`offers_on_load`; a cycle after the load, so
///    the record that offers it reads the payload RAM after the write),
///    checked only on the channels an event named last cycle (see writer
///    4), not on every channel every cycle;
/// 5. flushes: our reset, a peer that lost its state, and the channels past
///    the count agreed on going Up — the channel's state is zeroed, a
///    tentative verb rolled back, and what we held marked to hand back
///    (in doubt if we had decided COMMIT; a next payload after it, not
///    delivered, on our reset; kept and offered again when the peer lost
///    its state);
/// 6. a payload loaded (`load_ch`): into the buffer the heard channel's
///    PASSED frees, joining its new decision in the same move (COMMIT_OFFER
///    at once, as SPIN's host may load right after hearing a record and
///    before forming the next); else into the first idle channel in use;
///    else beside the payload of the first channel holding one (`LoadChoice`:
///    each choice a balanced priority encoder, made a cycle ahead).
///
/// Each channel has two news flags (`news`: either set), set by a move of
/// its role that changes its state (2 and 4) and cleared when the slot
/// channel's record has stated it (`clear_tx`, `clear_rx`, before the
/// writers above, so news of the same cycle is kept); `SlotChoice` gives
/// the slots to channels with news first.
///
/// The sender role holds up to two payloads per channel: the one held, in
/// payload buffer `head`, and the next one in the other
/// (`pendulum_layout::acp::machine`'s merged decision). A load goes to the
/// first idle channel, or else to the first channel holding one payload;
/// a confirmation makes the next payload the one held. A next payload
/// held while COMMIT joins the decision (OFFER_NEXT, writer 4, guarded as
/// the offer on load is). A verb's result has two buffers per channel too:
/// decisions keep the result of the echo decided on in buffer `rbuf`, and
/// a confirmation flips it, leaving the confirmed result to hand up.
///
/// `release` and `rollback` pulse for a tentative verb made permanent or
/// undone (the atomic unit's per-channel undo entries).
#[derive(LogicBlock)]
pub struct ChannelState {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,

    /// Read: the heard channel (sender role `{bit, state}`, receiver role
    /// `{bit, state}`, what it holds and what it waits for).
    pub heard_ch: Signal<In, Bits<CB>>,
    pub heard: Signal<Out, HeardChannel>,
    /// Read: the slot's channel, what its record states.
    pub slot_ch: Signal<In, Bits<CB>>,
    pub slot: Signal<Out, SlotChannel>,
    /// Read and clear: the scanner's channel.
    pub scan_ch: Signal<In, Bits<CB>>,
    pub scan_returning: Signal<Out, Bit>,
    pub scan_in_doubt: Signal<Out, Bit>,
    /// The payload handed back next is a verb (the head's kind).
    pub scan_verb: Signal<Out, Bit>,
    /// The payload buffer of the scanner's channel's payload held.
    pub scan_head: Signal<Out, Bit>,
    pub scan_took_return: Signal<In, Bit>,
    /// Clear: the proven result of `result_taken_ch` went up (`HandBack`).
    pub result_taken: Signal<In, Bit>,
    pub result_taken_ch: Signal<In, Bits<CB>>,
    /// A verb's result is back from our unit (`res_set` on `res_ch`); a
    /// cycle later its echo check is `x_value` (on `result_ch`, whose
    /// tentative digest `result_rx_digest` is).
    pub res_set: Signal<In, Bit>,
    pub res_ch: Signal<In, Bits<CB>>,
    pub result_ch: Signal<In, Bits<CB>>,
    pub result_rx_digest: Signal<Out, Bits<32>>,
    /// The receiver bit of `res_ch`: the result buffer its result goes to.
    pub res_bit: Signal<Out, Bit>,
    pub x_set: Signal<In, Bit>,
    pub x_value: Signal<In, Bits<32>>,
    /// The heard channel's move (`ChannelMachine`), on `apply_ch`.
    pub apply: Signal<In, Bit>,
    pub apply_ch: Signal<In, Bits<CB>>,
    pub n_tx: Signal<In, Bits<4>>,
    pub n_rx: Signal<In, Bits<3>>,
    pub moved: Signal<In, Bit>,
    pub transition: Signal<In, Bits<8>>,
    pub set_check: Signal<In, Bit>,
    pub check_value: Signal<In, Bits<32>>,
    /// Confirmed: the copy is free (`confirm_verb`: a verb's result waits
    /// to be handed up); `key_value`, the proof heard, is the key of the
    /// channel's next echo.
    pub confirm: Signal<In, Bit>,
    pub confirm_verb: Signal<In, Bit>,
    pub key_value: Signal<In, Bits<32>>,
    /// Confirmed by the next payload's echo (PASSED): the proof is our
    /// decision check, and the next payload's echo was already expected.
    pub confirm_by_echo: Signal<In, Bit>,
    /// Stored tentatively: its digest, whether it is a verb, its echo check.
    pub store: Signal<In, Bit>,
    pub store_digest: Signal<In, Bits<32>>,
    pub store_verb: Signal<In, Bit>,
    pub store_x: Signal<In, Bits<32>>,
    /// Delivered: the proof of it.
    pub deliver: Signal<In, Bit>,
    pub proof_value: Signal<In, Bits<32>>,
    pub n_proof_due: Signal<In, Bit>,
    pub release_now: Signal<In, Bit>,
    pub rollback_now: Signal<In, Bit>,
    /// Flushes (`Entangle`), and per channel past the count agreed.
    pub flush_local: Signal<In, Bit>,
    pub flush_peer: Signal<In, Bit>,
    pub go_up: Signal<In, Bit>,
    pub past_agreed: Signal<In, Bits<K>>,
    /// Loading: per channel, in use (`Entangle`); the first idle channel in
    /// use (`load_ok`), and the payload's digest and kind when `load`
    /// writes it there.
    pub in_use: Signal<In, Bits<K>>,
    pub load_ok: Signal<Out, Bit>,
    pub load_ch: Signal<Out, Bits<CB>>,
    /// The payload buffer the load writes (`load_ch`'s other one if it holds a payload).
    pub load_bit: Signal<Out, Bit>,
    pub load: Signal<In, Bit>,
    /// A payload waits to load (the choice a cycle ahead skips the channel
    /// it loads now).
    pub load_want: Signal<In, Bit>,
    pub load_digest: Signal<In, Bits<32>>,
    pub load_verb: Signal<In, Bit>,
    /// The slot channel's record has stated its sender role's news, its
    /// receiver role's.
    pub clear_tx: Signal<In, Bit>,
    pub clear_rx: Signal<In, Bit>,
    /// The slot channel's record was taken: flip its turns (`SlotChannel`).
    pub flip_turn: Signal<In, Bit>,
    pub flip_pturn: Signal<In, Bit>,
    /// Channels with news (either role), a bit per channel.
    pub news: Signal<Out, Bits<K>>,
    /// This side holds back a lone echo: the news of a receiver role that
    /// stored a message while its sender role waits in COMMIT_OFFER for
    /// the echo of its next payload is not news for the slots (see
    /// `AcpLink`: one side of the pair does, so the pair's records take
    /// turns instead of crossing). The echo goes folded into the offer
    /// that follows the peer's echo, or when the channel is restated.
    pub defer_echo: Signal<In, Bit>,
    /// The heard record leaves the sender role ready to offer (`n_peer_ready`).
    pub n_peer_ready: Signal<In, Bit>,
    pub release: [Signal<Out, Bit>; K],
    pub rollback: [Signal<Out, Bit>; K],

    /// The channels' 32-bit words (keys, checks, digests, proofs), in
    /// LUT-RAM.
    words: ChannelWords,
    /// Per channel: flushed this cycle (writer 5); and the channel whose
    /// move is applied holds a next payload.
    flush_ch: [Signal<Local, Bit>; K],
    apply_next: Signal<Local, Bit>,
    /// Sender role: {bit, state}; a payload held; it is a verb.
    tx_sb: [SDFF<Bits<4>>; K],
    holding: [SDFF<Bit>; K],
    tx_verb: [SDFF<Bit>; K],
    /// Sender role, the next payload: held; its buffer is the other one
    /// (`head` names the held one's); it is a verb.
    next: [SDFF<Bit>; K],
    head: [SDFF<Bit>; K],
    next_verb: [SDFF<Bit>; K],
    /// The verb result buffer decisions write (`HeardChannel`); it flips at
    /// each confirmation, which leaves the confirmed result in the other.
    rbuf: [SDFF<Bit>; K],
    /// Record turns (`SlotChannel`).
    turn: [SDFF<Bit>; K],
    pturn: [SDFF<Bit>; K],
    /// The next payload is handed back after the one held.
    ret_next: [SDFF<Bit>; K],
    /// Sender role: handed back (in doubt), and a verb result to hand up.
    ret_pending: [SDFF<Bit>; K],
    ret_doubt: [SDFF<Bit>; K],
    vres_pending: [SDFF<Bit>; K],
    /// Receiver role: {bit, state}; the peer waits for the proof of its
    /// last delivery; the tentative payload is a verb, and its result is
    /// back.
    rx_sb: [SDFF<Bits<3>>; K],
    proof_due: [SDFF<Bit>; K],
    rx_verb: [SDFF<Bit>; K],
    res_ready: [SDFF<Bit>; K],
    /// Receiver role: the last delivery was a verb.
    pverb: [SDFF<Bit>; K],
    /// The channel's last move (the transition byte).
    trans: [SDFF<Bits<8>>; K],
    /// News of each role; the last heard record would make an idle sender offer.
    tx_news: [SDFF<Bit>; K],
    rx_news: [SDFF<Bit>; K],
    peer_ready: [SDFF<Bit>; K],
    /// The sender role moved to its other bit, and no record has stated it
    /// there yet (see writer 0).
    new_bit: [SDFF<Bit>; K],

    /// The channels writer 4 checks this cycle.
    offers: OfferEvents,

    /// The read ports, and the flag vectors the load's choice scans.
    reads: ChannelReads,

    flush_any: Signal<Local, Bit>,
    /// Where a load goes: the channel passing, else the first idle channel
    /// in use, else the first holding one payload that is not being
    /// decided on; the buffer it loads.
    choice: LoadChoice,
    /// The heard channel's move is PASSED (its next payload now the one
    /// held and decided on), and a load may take the buffer it frees.
    passing: Signal<Local, Bit>,
    pass_bit: Signal<Local, Bit>,
    c_tx_commit: Constant<Bits<3>>,
    c_tx_idle: Constant<Bits<3>>,
    c_tx_offer: Constant<Bits<3>>,
    c_tx_commit_offer: Constant<Bits<3>>,
    c_commit_offer4: Constant<Bits<4>>,
    c_offer_next_move: Constant<Bits<8>>,
    c_bit4: Constant<Bits<4>>,
    c_offer4: Constant<Bits<4>>,
    c_offer_move: Constant<Bits<8>>,
    c_rx_tentative: Constant<Bits<2>>,
    c_zero4: Constant<Bits<4>>,
    c_zero3: Constant<Bits<3>>,
    c_no_move: Constant<Bits<8>>,
}

impl Default for ChannelState {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            heard_ch: Default::default(),
            heard: Default::default(),
            slot_ch: Default::default(),
            slot: Default::default(),
            scan_ch: Default::default(),
            scan_returning: Default::default(),
            scan_in_doubt: Default::default(),
            scan_verb: Default::default(),
            scan_head: Default::default(),
            result_taken: Default::default(),
            result_taken_ch: Default::default(),
            scan_took_return: Default::default(),
            res_set: Default::default(),
            res_ch: Default::default(),
            result_ch: Default::default(),
            result_rx_digest: Default::default(),
            res_bit: Default::default(),
            x_set: Default::default(),
            x_value: Default::default(),
            apply: Default::default(),
            apply_ch: Default::default(),
            n_tx: Default::default(),
            n_rx: Default::default(),
            moved: Default::default(),
            transition: Default::default(),
            set_check: Default::default(),
            check_value: Default::default(),
            confirm: Default::default(),
            confirm_verb: Default::default(),
            key_value: Default::default(),
            confirm_by_echo: Default::default(),
            store: Default::default(),
            store_digest: Default::default(),
            store_verb: Default::default(),
            store_x: Default::default(),
            deliver: Default::default(),
            proof_value: Default::default(),
            n_proof_due: Default::default(),
            release_now: Default::default(),
            rollback_now: Default::default(),
            flush_local: Default::default(),
            flush_peer: Default::default(),
            go_up: Default::default(),
            past_agreed: Default::default(),
            in_use: Default::default(),
            load_ok: Default::default(),
            load_ch: Default::default(),
            load_bit: Default::default(),
            load: Default::default(),
            load_want: Default::default(),
            load_digest: Default::default(),
            load_verb: Default::default(),
            release: std::array::from_fn(|_| Default::default()),
            rollback: std::array::from_fn(|_| Default::default()),
            clear_tx: Default::default(),
            clear_rx: Default::default(),
            flip_turn: Default::default(),
            defer_echo: Default::default(),
            flip_pturn: Default::default(),
            news: Default::default(),
            n_peer_ready: Default::default(),
            words: Default::default(),
            flush_ch: std::array::from_fn(|_| Default::default()),
            apply_next: Default::default(),
            tx_sb: std::array::from_fn(|_| Default::default()),
            holding: std::array::from_fn(|_| Default::default()),
            tx_verb: std::array::from_fn(|_| Default::default()),
            next: std::array::from_fn(|_| Default::default()),
            head: std::array::from_fn(|_| Default::default()),
            next_verb: std::array::from_fn(|_| Default::default()),
            turn: std::array::from_fn(|_| Default::default()),
            rbuf: std::array::from_fn(|_| Default::default()),
            pturn: std::array::from_fn(|_| Default::default()),
            ret_next: std::array::from_fn(|_| Default::default()),
            ret_pending: std::array::from_fn(|_| Default::default()),
            ret_doubt: std::array::from_fn(|_| Default::default()),
            vres_pending: std::array::from_fn(|_| Default::default()),
            rx_sb: std::array::from_fn(|_| Default::default()),
            proof_due: std::array::from_fn(|_| Default::default()),
            rx_verb: std::array::from_fn(|_| Default::default()),
            res_ready: std::array::from_fn(|_| Default::default()),
            pverb: std::array::from_fn(|_| Default::default()),
            trans: std::array::from_fn(|_| Default::default()),
            tx_news: std::array::from_fn(|_| Default::default()),
            rx_news: std::array::from_fn(|_| Default::default()),
            peer_ready: std::array::from_fn(|_| Default::default()),
            new_bit: std::array::from_fn(|_| Default::default()),
            offers: Default::default(),
            reads: Default::default(),
            flush_any: Default::default(),
            choice: Default::default(),
            passing: Default::default(),
            pass_bit: Default::default(),
            c_tx_commit: c(ts::COMMIT as u64),
            c_tx_idle: c(ts::IDLE as u64),
            c_tx_offer: c(ts::OFFER as u64),
            c_tx_commit_offer: c(ts::COMMIT_OFFER as u64),
            c_commit_offer4: c(ts::COMMIT_OFFER as u64),
            c_offer_next_move: c(moves::OFFER_NEXT as u64),
            c_bit4: c(8),
            c_offer4: c(ts::OFFER as u64),
            c_offer_move: c(moves::OFFER as u64),
            c_rx_tentative: c(rs::TENTATIVE as u64),
            c_zero4: c(0),
            c_zero3: c(0),
            c_no_move: c(0),
        }
    }
}

impl Logic for ChannelState {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..K {
            self.tx_sb[i].clock.next = self.clock.val();
            self.tx_sb[i].reset.next = self.reset.val();
            self.holding[i].clock.next = self.clock.val();
            self.holding[i].reset.next = self.reset.val();
            self.tx_verb[i].clock.next = self.clock.val();
            self.tx_verb[i].reset.next = self.reset.val();
            self.ret_pending[i].clock.next = self.clock.val();
            self.ret_pending[i].reset.next = self.reset.val();
            self.ret_doubt[i].clock.next = self.clock.val();
            self.ret_doubt[i].reset.next = self.reset.val();
            self.vres_pending[i].clock.next = self.clock.val();
            self.vres_pending[i].reset.next = self.reset.val();
            self.rx_sb[i].clock.next = self.clock.val();
            self.rx_sb[i].reset.next = self.reset.val();
            self.proof_due[i].clock.next = self.clock.val();
            self.proof_due[i].reset.next = self.reset.val();
            self.rx_verb[i].clock.next = self.clock.val();
            self.rx_verb[i].reset.next = self.reset.val();
            self.rbuf[i].clock.next = self.clock.val();
            self.rbuf[i].reset.next = self.reset.val();
            self.rbuf[i].d.next = self.rbuf[i].q.val();
            self.pverb[i].clock.next = self.clock.val();
            self.pverb[i].reset.next = self.reset.val();
            self.pverb[i].d.next = self.pverb[i].q.val();
            self.res_ready[i].clock.next = self.clock.val();
            self.res_ready[i].reset.next = self.reset.val();
            self.trans[i].clock.next = self.clock.val();
            self.trans[i].reset.next = self.reset.val();
            self.tx_news[i].clock.next = self.clock.val();
            self.tx_news[i].reset.next = self.reset.val();
            self.rx_news[i].clock.next = self.clock.val();
            self.rx_news[i].reset.next = self.reset.val();
            self.peer_ready[i].clock.next = self.clock.val();
            self.peer_ready[i].reset.next = self.reset.val();
            self.new_bit[i].clock.next = self.clock.val();
            self.new_bit[i].reset.next = self.reset.val();
            self.next[i].clock.next = self.clock.val();
            self.next[i].reset.next = self.reset.val();
            self.head[i].clock.next = self.clock.val();
            self.head[i].reset.next = self.reset.val();
            self.next_verb[i].clock.next = self.clock.val();
            self.next_verb[i].reset.next = self.reset.val();
            self.turn[i].clock.next = self.clock.val();
            self.turn[i].reset.next = self.reset.val();
            self.pturn[i].clock.next = self.clock.val();
            self.pturn[i].reset.next = self.reset.val();
            self.ret_next[i].clock.next = self.clock.val();
            self.ret_next[i].reset.next = self.reset.val();
            self.tx_sb[i].d.next = self.tx_sb[i].q.val();
            self.next[i].d.next = self.next[i].q.val();
            self.head[i].d.next = self.head[i].q.val();
            self.next_verb[i].d.next = self.next_verb[i].q.val();
            self.turn[i].d.next = self.turn[i].q.val();
            self.pturn[i].d.next = self.pturn[i].q.val();
            self.ret_next[i].d.next = self.ret_next[i].q.val();
            self.holding[i].d.next = self.holding[i].q.val();
            self.tx_verb[i].d.next = self.tx_verb[i].q.val();
            self.ret_pending[i].d.next = self.ret_pending[i].q.val();
            self.ret_doubt[i].d.next = self.ret_doubt[i].q.val();
            self.vres_pending[i].d.next = self.vres_pending[i].q.val();
            self.rx_sb[i].d.next = self.rx_sb[i].q.val();
            self.proof_due[i].d.next = self.proof_due[i].q.val();
            self.rx_verb[i].d.next = self.rx_verb[i].q.val();
            self.res_ready[i].d.next = self.res_ready[i].q.val();
            self.trans[i].d.next = self.trans[i].q.val();
            self.tx_news[i].d.next = self.tx_news[i].q.val();
            self.rx_news[i].d.next = self.rx_news[i].q.val();
            self.peer_ready[i].d.next = self.peer_ready[i].q.val();
            self.new_bit[i].d.next = self.new_bit[i].q.val();
            self.release[i].next = false;
            self.rollback[i].next = false;
        }

        // ---- Reads (`ChannelReads`; the words from `ChannelWords`) ----
        self.words.clock.next = self.clock.val();
        self.words.reset.next = self.reset.val();
        self.words.heard_ch.next = self.heard_ch.val();
        self.words.heard_head.next = self.reads.heard_head.val();
        self.words.slot_ch.next = self.slot_ch.val();
        self.words.result_ch.next = self.result_ch.val();
        self.result_rx_digest.next = self.words.result_rx_digest.val();
        for i in 0..K {
            self.reads.tx[i].next = self.tx_sb[i].q.val();
            self.reads.rx[i].next = self.rx_sb[i].q.val();
            self.reads.trans[i].next = self.trans[i].q.val();
            self.reads.holding[i].next = self.holding[i].q.val();
            self.reads.returning[i].next = self.ret_pending[i].q.val();
            self.reads.in_doubt[i].next = self.ret_doubt[i].q.val();
            self.reads.tx_verb[i].next = self.tx_verb[i].q.val();
            self.reads.next_held[i].next = self.next[i].q.val();
            self.reads.next_verb[i].next = self.next_verb[i].q.val();
            self.reads.head[i].next = self.head[i].q.val();
            self.reads.rbuf[i].next = self.rbuf[i].q.val();
            self.reads.result_pending[i].next = self.vres_pending[i].q.val();
            self.reads.proof_due[i].next = self.proof_due[i].q.val();
            self.reads.rx_verb[i].next = self.rx_verb[i].q.val();
            self.reads.res_ready[i].next = self.res_ready[i].q.val();
            self.reads.pverb[i].next = self.pverb[i].q.val();
            self.reads.tx_news[i].next = self.tx_news[i].q.val();
            self.reads.rx_news[i].next = self.rx_news[i].q.val();
            self.reads.turn[i].next = self.turn[i].q.val();
            self.reads.pturn[i].next = self.pturn[i].q.val();
        }
        self.reads.heard_ch.next = self.heard_ch.val();
        self.reads.slot_ch.next = self.slot_ch.val();
        self.reads.scan_ch.next = self.scan_ch.val();
        self.reads.res_ch.next = self.res_ch.val();
        self.reads.apply_ch.next = self.apply_ch.val();
        self.reads.heard_tx_echo.next = self.words.heard_tx_echo.val();
        self.reads.heard_next_echo.next = self.words.heard_next_echo.val();
        self.reads.heard_proof.next = self.words.heard_proof.val();
        self.reads.heard_rx_x.next = self.words.heard_rx_x.val();
        self.reads.slot_auth.next = self.words.slot_auth.val();
        self.reads.slot_proof.next = self.words.slot_proof.val();
        self.reads.slot_rx_digest.next = self.words.slot_rx_digest.val();
        self.reads.defer_echo.next = self.defer_echo.val();
        self.heard.next = self.reads.heard.val();
        self.slot.next = self.reads.slot.val();
        self.scan_returning.next = self.reads.scan_returning.val();
        self.scan_in_doubt.next = self.reads.scan_in_doubt.val();
        self.scan_verb.next = self.reads.scan_verb.val();
        self.scan_head.next = self.reads.scan_head.val();
        self.res_bit.next = self.reads.res_bit.val();
        self.news.next = self.reads.news.val();

        // ---- 0. News stated by the slot's record ----
        for i in 0..K {
            if self.slot_ch.val().index() == i {
                // The first record at a new sender bit, if it offers, is
                // news once more: the peer's receiver, which just
                // delivered at the other bit, owes us its proof until it
                // hears us at this one, and does not take an offer that is
                // the first record it hears there (`machine::hear`, "peer
                // heard at b before"). Without the second record the offer
                // would wait for the restating share (thousands of cycles
                // with 256 channels busy). A plain COMMIT's confirmation
                // leaves us IDLE at the new bit, whose record goes first
                // unless a payload loaded before it; a merged decision
                // confirmed by a STATE (the peer did not take the next
                // payload) leaves us offering there at once.
                if self.clear_tx.val() {
                    self.tx_news[i].d.next = self.new_bit[i].q.val()
                        & (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_offer.val());
                    self.new_bit[i].d.next = false;
                }
                if self.clear_rx.val() {
                    self.rx_news[i].d.next = false;
                }
                if self.flip_turn.val() {
                    self.turn[i].d.next = !self.turn[i].q.val();
                }
                if self.flip_pturn.val() {
                    self.pturn[i].d.next = !self.pturn[i].q.val();
                }
            }
        }

        // ---- 1. A verb's result back from our unit ----
        self.words.x_set.next = self.x_set.val();
        self.words.x_value.next = self.x_value.val();
        for i in 0..K {
            if self.res_set.val() & (self.res_ch.val().index() == i) {
                self.res_ready[i].d.next = true;
                // Its echo is ready: the store's news (writer 2).
                self.rx_news[i].d.next = true;
            }
        }

        // ---- 2. The heard channel's move ----
        // Its words: the key on a confirmation (the decision check if the
        // next payload's echo confirmed), the new check, a delivery's
        // proof, what a store holds.
        self.apply_next.next = self.reads.apply_next.val();
        self.words.apply.next = self.apply.val();
        self.words.apply_ch.next = self.apply_ch.val();
        self.words.confirm.next = self.confirm.val();
        self.words.key_value.next = self.key_value.val();
        self.words.key_from_auth.next = self.confirm_by_echo.val() & self.apply_next.val();
        self.words.set_check.next = self.set_check.val();
        self.words.check_value.next = self.check_value.val();
        self.words.deliver.next = self.deliver.val();
        self.words.proof_value.next = self.proof_value.val();
        self.words.store.next = self.store.val();
        self.words.store_digest.next = self.store_digest.val();
        self.words.store_x.next = self.store_x.val();
        if self.apply.val() {
            for i in 0..K {
                if self.apply_ch.val().index() == i {
                    // A new decision check on an unchanged state (the check
                    // of a newer echo: the same, unless an echo was damaged
                    // and passed its checks) is not news: each echo B
                    // restates would take a slot of ours to state it
                    // again. The restating slots state it, in bounded time.
                    if self.n_tx.val() != self.tx_sb[i].q.val() {
                        self.tx_news[i].d.next = true;
                    }
                    if self.n_tx.val().get_bit(3) != self.tx_sb[i].q.val().get_bit(3) {
                        self.new_bit[i].d.next = true;
                    }
                    // A stored verb's news waits for its result (writer
                    // 1): a record before it has no echo to state, and a
                    // news bit that no record can clear would take the
                    // news slots from channels that have something to say.
                    if (self.n_rx.val() != self.rx_sb[i].q.val())
                        & !(self.store.val() & self.store_verb.val())
                    {
                        self.rx_news[i].d.next = true;
                    }
                    self.peer_ready[i].d.next = self.n_peer_ready.val();
                    self.tx_sb[i].d.next = self.n_tx.val();
                    self.rx_sb[i].d.next = self.n_rx.val();
                    if self.moved.val() {
                        self.trans[i].d.next = self.transition.val();
                    }
                    // The merged decision's first record folds it. (Decided
                    // on a record that moved the receiver role too, the
                    // transition byte names the receiver's move, so the
                    // state entered says it, not the move named.)
                    if (self.n_tx.val().get_bits::<3>(0) == self.c_tx_commit_offer.val())
                        & (self.tx_sb[i].q.val().get_bits::<3>(0) != self.c_tx_commit_offer.val())
                    {
                        self.turn[i].d.next = false;
                    }
                    if self.confirm.val() {
                        // The next payload, if held, is the one held now.
                        self.head[i].d.next = !self.head[i].q.val();
                        self.rbuf[i].d.next = !self.rbuf[i].q.val();
                        if self.next[i].q.val() {
                            self.next[i].d.next = false;
                            self.tx_verb[i].d.next = self.next_verb[i].q.val();
                        } else {
                            self.holding[i].d.next = false;
                        }
                        if self.confirm_verb.val() {
                            self.vres_pending[i].d.next = true;
                        }
                    }
                    if self.store.val() {
                        // A receiver that stores while its peer waits for
                        // its proof (DELIVER_STORE) echoes first: the echo
                        // is that proof too (PASSED), and the plain proof
                        // would make the peer offer the stored payload again.
                        self.pturn[i].d.next = false;
                        self.rx_verb[i].d.next = self.store_verb.val();
                        self.res_ready[i].d.next = false;
                    }
                    if self.deliver.val() {
                        self.pverb[i].d.next = self.rx_verb[i].q.val();
                    }
                    self.proof_due[i].d.next = self.n_proof_due.val();
                    self.release[i].next = self.release_now.val();
                    self.rollback[i].next = self.rollback_now.val();
                }
            }
        }

        // ---- 3. Hand-back: a proven result taken, a payload handed back ----
        for i in 0..K {
            if self.result_taken.val() & (self.result_taken_ch.val().index() == i) {
                self.vres_pending[i].d.next = false;
            }
            if self.scan_took_return.val() & (self.scan_ch.val().index() == i) {
                if self.ret_next[i].q.val() {
                    // Then the next payload, not delivered (never decided).
                    self.ret_next[i].d.next = false;
                    self.next[i].d.next = false;
                    self.head[i].d.next = !self.head[i].q.val();
                    self.tx_verb[i].d.next = self.next_verb[i].q.val();
                    self.ret_doubt[i].d.next = false;
                } else if self.next[i].q.val() {
                    // The next payload is the one held, offered again.
                    self.next[i].d.next = false;
                    self.head[i].d.next = !self.head[i].q.val();
                    self.tx_verb[i].d.next = self.next_verb[i].q.val();
                    self.ret_pending[i].d.next = false;
                } else {
                    self.ret_pending[i].d.next = false;
                    self.holding[i].d.next = false;
                }
            }
        }

        // ---- 4. Offers made without a record heard ----
        // A payload held by an idle channel whose last heard record left
        // `peer_ready` (pendulum_layout::acp::machine::offers_on_load: that
        // record heard again), and a next payload beside a COMMIT
        // (`offers_next_on_load`). Made once the payload is held (a load,
        // or a confirmation with the next one held) and the channel is
        // neither decided on (its move comes first) nor read for the
        // decision next cycle (that decision would act on the state from
        // before the offer; the link's other writers leave a state as it
        // would be had the record been decided a cycle earlier).
        //
        // Only three writers can make the condition true (`OfferEvents`),
        // so the check is made on the channels they named last cycle, not
        // on all K: with the state in RAM, each is one read and one write.
        self.offers.clock.next = self.clock.val();
        self.offers.reset.next = self.reset.val();
        self.offers.apply.next = self.apply.val();
        self.offers.apply_ch.next = self.apply_ch.val();
        self.offers.scan.next = self.scan_took_return.val();
        self.offers.scan_ch.next = self.scan_ch.val();
        self.offers.heard_ch.next = self.heard_ch.val();
        for i in 0..K {
            if self.offers.check[i].val()
                & !(self.apply.val() & (self.apply_ch.val().index() == i))
                & (self.heard_ch.val().index() != i)
                & self.holding[i].q.val()
                & !self.ret_pending[i].q.val()
            {
                // IDLE b to OFFER b.
                if self.peer_ready[i].q.val()
                    & (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_idle.val())
                {
                    self.tx_sb[i].d.next =
                        (self.tx_sb[i].q.val() & self.c_bit4.val()) | self.c_offer4.val();
                    self.trans[i].d.next = self.c_offer_move.val();
                    self.tx_news[i].d.next = true;
                }
                // OFFER_NEXT: COMMIT b to COMMIT_OFFER b.
                if self.next[i].q.val()
                    & (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit.val())
                {
                    self.tx_sb[i].d.next =
                        (self.tx_sb[i].q.val() & self.c_bit4.val()) | self.c_commit_offer4.val();
                    self.trans[i].d.next = self.c_offer_next_move.val();
                    self.tx_news[i].d.next = true;
                    self.turn[i].d.next = false;
                }
            }
        }

        // ---- 5. Flushes: channel states the peer no longer shares ----
        self.flush_any.next = self.flush_local.val() | self.flush_peer.val();
        for i in 0..K {
            self.flush_ch[i].next =
                self.flush_any.val() | (self.go_up.val() & self.past_agreed.val().get_bit(i));
            // Its words: `key`, `auth`, the proof and `rx_x` read as 0 now.
            self.words.flush[i].next = self.flush_ch[i].val();
            if self.flush_ch[i].val() {
                self.tx_sb[i].d.next = self.c_zero4.val();
                self.rx_sb[i].d.next = self.c_zero3.val();
                self.pverb[i].d.next = false;
                self.proof_due[i].d.next = false;
                self.turn[i].d.next = false;
                self.pturn[i].d.next = false;
                self.peer_ready[i].d.next = false;
                // Stated again by the restating slots (channels past the
                // count agreed never again).
                self.tx_news[i].d.next = false;
                self.rx_news[i].d.next = false;
                self.new_bit[i].d.next = false;
                // A flushed channel has made no move yet.
                self.trans[i].d.next = self.c_no_move.val();
                // A tentative verb the flush erases is undone.
                if self.rx_verb[i].q.val()
                    & (self.rx_sb[i].q.val().get_bits::<2>(0) == self.c_rx_tentative.val())
                {
                    self.rollback[i].next = true;
                }
            }
            if self.holding[i].q.val() & !self.ret_pending[i].q.val() {
                if self.flush_local.val() | (self.go_up.val() & self.past_agreed.val().get_bit(i)) {
                    // Ours, dropped by our own reset or with its channel:
                    // certainly not delivered unless we had decided COMMIT
                    // (the peer drops the channel's tentative payload too).
                    // A next payload goes back after it, not delivered.
                    self.ret_pending[i].d.next = true;
                    self.ret_next[i].d.next = self.next[i].q.val();
                    self.ret_doubt[i].d.next = (self.tx_sb[i].q.val().get_bits::<3>(0)
                        == self.c_tx_commit.val())
                        | (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit_offer.val());
                } else if self.flush_peer.val()
                    & ((self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit.val())
                        | (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit_offer.val()))
                {
                    // Decided COMMIT, never proven delivered, and the peer
                    // lost its state. A next payload was never decided on:
                    // it is offered again once this one is handed back.
                    self.ret_pending[i].d.next = true;
                    self.ret_doubt[i].d.next = true;
                }
            }
        }

        // ---- 6. Loading: the channel passing, else the first idle channel in use, else the first holding one ----
        // A channel is back in service a cycle after its last transfer is
        // proven (`LoadChoice` chooses a cycle ahead). A next payload goes
        // to a channel not being decided on (a confirmation would free the
        // buffer it is written to), except the one whose move is PASSED:
        // that frees the buffer of the payload it confirmed, and the load
        // takes that buffer and joins the new decision at once (PASSED then OFFER_NEXT, with no record between:
        // `pendulum_layout::acp::machine::offers_next_on_load`), so the
        // decision never goes out without the next offer while one waits.
        // One read for the next decision is safe: that decision sees no
        // next payload and makes no merged move, and a confirmation then
        // takes the next payload from these registers.
        self.passing.next = self.apply.val()
            & self.confirm.val()
            & self.confirm_by_echo.val()
            & !self.flush_local.val()
            & !self.flush_peer.val();
        self.pass_bit.next = self.reads.apply_head.val();
        self.choice.clock.next = self.clock.val();
        self.choice.reset.next = self.reset.val();
        self.choice.v_holding.next = self.reads.v_holding.val();
        self.choice.v_next_held.next = self.reads.v_next_held.val();
        self.choice.v_returning.next = self.reads.v_returning.val();
        self.choice.v_head.next = self.reads.v_head.val();
        self.choice.in_use.next = self.in_use.val();
        self.choice.apply.next = self.apply.val();
        self.choice.apply_ch.next = self.apply_ch.val();
        self.choice.heard_ch.next = self.heard_ch.val();
        self.choice.passing.next = self.passing.val();
        self.choice.pass_bit.next = self.pass_bit.val();
        self.choice.want.next = self.load_want.val();
        self.load_ok.next = self.choice.ok.val();
        self.load_ch.next = self.choice.ch.val();
        self.load_bit.next = self.choice.buffer.val();
        // The payload's digest, into its buffer (`ChannelWords`); the
        // load's channel is known only now.
        self.words.load.next = self.load.val();
        self.words.load_ch.next = self.load_ch.val();
        self.words.load_bit.next = self.load_bit.val();
        self.words.load_digest.next = self.load_digest.val();
        // Writer 4's load event.
        self.offers.load.next = self.load.val();
        self.offers.load_ch.next = self.load_ch.val();
        if self.load.val() {
            for i in 0..K {
                if self.load_ch.val().index() == i {
                    if self.choice.to_idle.val() {
                        self.holding[i].d.next = true;
                        self.tx_verb[i].d.next = self.load_verb.val();
                    } else {
                        self.next[i].d.next = true;
                        self.next_verb[i].d.next = self.load_verb.val();
                    }
                    if self.passing.val() {
                        // COMMIT !b to COMMIT_OFFER !b in the PASSED cycle;
                        // its first record folds.
                        self.tx_sb[i].d.next =
                            (self.n_tx.val() & self.c_bit4.val()) | self.c_commit_offer4.val();
                        self.trans[i].d.next = self.c_offer_next_move.val();
                        self.turn[i].d.next = false;
                    }
                }
            }
        }
    }
}
