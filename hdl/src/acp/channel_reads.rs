use super::channel_views::{HeardChannel, SlotChannel};
use crate::konst as c;
use pendulum_layout::acp::{rx_state as rs, tx_state as ts};
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// `ChannelState`'s read ports: one channel's flags among K, at five
/// channel numbers, a moment after it (combinational). The record being
/// checked (`heard_*`, with the words `ChannelWords` read there), the
/// record being formed (`slot_*`, likewise), the hand-back scanner
/// (`scan_*`), the verb result just back (`res_*`) and the move applied
/// (`apply_*`). Also whole: the flags the load's choice scans, and which
/// channels have news for `SlotChoice`.
///
/// Each flag is gathered into a K-bit vector, a bit per channel, and read
/// with the channel number as a vector index. Yosys makes that a balanced
/// multiplexer tree. The same read written as K `if`s, each overriding the
/// last (`if ch == i { x = flag[i] }`), keeps the `if`s' order, and ABC
/// maps it to a chain of a multiplexer per 2–4 channels: 16 LUT levels at
/// K = 64 on the heard port.
#[derive(LogicBlock)]
pub struct ChannelReads {
    /// Each channel's flags (`ChannelState`'s registers, by the same names).
    pub tx: [Signal<In, Bits<4>>; K],
    pub rx: [Signal<In, Bits<3>>; K],
    pub trans: [Signal<In, Bits<8>>; K],
    pub holding: [Signal<In, Bit>; K],
    pub returning: [Signal<In, Bit>; K],
    pub in_doubt: [Signal<In, Bit>; K],
    pub tx_verb: [Signal<In, Bit>; K],
    pub next_held: [Signal<In, Bit>; K],
    pub next_verb: [Signal<In, Bit>; K],
    pub head: [Signal<In, Bit>; K],
    pub rbuf: [Signal<In, Bit>; K],
    pub result_pending: [Signal<In, Bit>; K],
    pub proof_due: [Signal<In, Bit>; K],
    pub rx_verb: [Signal<In, Bit>; K],
    pub res_ready: [Signal<In, Bit>; K],
    pub pverb: [Signal<In, Bit>; K],
    pub tx_news: [Signal<In, Bit>; K],
    pub rx_news: [Signal<In, Bit>; K],
    pub turn: [Signal<In, Bit>; K],
    pub pturn: [Signal<In, Bit>; K],
    pub heard_ch: Signal<In, Bits<CB>>,
    pub slot_ch: Signal<In, Bits<CB>>,
    pub scan_ch: Signal<In, Bits<CB>>,
    pub res_ch: Signal<In, Bits<CB>>,
    pub apply_ch: Signal<In, Bits<CB>>,
    /// The words `ChannelWords` read at `heard_ch` (its echo buffers at
    /// `heard_head`) and at `slot_ch`.
    pub heard_tx_echo: Signal<In, Bits<32>>,
    pub heard_next_echo: Signal<In, Bits<32>>,
    pub heard_proof: Signal<In, Bits<32>>,
    pub heard_rx_x: Signal<In, Bits<32>>,
    pub slot_auth: Signal<In, Bits<32>>,
    pub slot_proof: Signal<In, Bits<32>>,
    pub slot_rx_digest: Signal<In, Bits<32>>,
    /// Hold back lone echoes (`ChannelState::defer_echo`).
    pub defer_echo: Signal<In, Bit>,

    pub heard: Signal<Out, HeardChannel>,
    pub heard_head: Signal<Out, Bit>,
    pub slot: Signal<Out, SlotChannel>,
    pub scan_returning: Signal<Out, Bit>,
    pub scan_in_doubt: Signal<Out, Bit>,
    pub scan_verb: Signal<Out, Bit>,
    pub scan_head: Signal<Out, Bit>,
    /// The receiver bit of `res_ch`.
    pub res_bit: Signal<Out, Bit>,
    /// The applied channel holds a next payload; its head buffer.
    pub apply_next: Signal<Out, Bit>,
    pub apply_head: Signal<Out, Bit>,
    /// Per channel: a payload held, being handed back, a next one held,
    /// the head buffer; news for the slots.
    pub v_holding: Signal<Out, Bits<K>>,
    pub v_returning: Signal<Out, Bits<K>>,
    pub v_next_held: Signal<Out, Bits<K>>,
    pub v_head: Signal<Out, Bits<K>>,
    pub news: Signal<Out, Bits<K>>,

    /// The flags as vectors (multi-bit ones a vector per bit).
    v_tx: [Signal<Local, Bits<K>>; 4],
    v_rx: [Signal<Local, Bits<K>>; 3],
    v_trans: [Signal<Local, Bits<K>>; 8],
    v_in_doubt: Signal<Local, Bits<K>>,
    v_tx_verb: Signal<Local, Bits<K>>,
    v_next_verb: Signal<Local, Bits<K>>,
    v_rbuf: Signal<Local, Bits<K>>,
    v_result: Signal<Local, Bits<K>>,
    v_proof_due: Signal<Local, Bits<K>>,
    v_rx_verb: Signal<Local, Bits<K>>,
    v_res_ready: Signal<Local, Bits<K>>,
    v_pverb: Signal<Local, Bits<K>>,
    v_tx_news: Signal<Local, Bits<K>>,
    v_rx_news: Signal<Local, Bits<K>>,
    v_turn: Signal<Local, Bits<K>>,
    v_pturn: Signal<Local, Bits<K>>,
    /// Channel i's bit; bit j of a 4-, 3- and 8-bit field.
    c_ch_bit: [Constant<Bits<K>>; K],
    c_k_zero: Constant<Bits<K>>,
    c_bit4: [Constant<Bits<4>>; 4],
    c_bit3: [Constant<Bits<3>>; 3],
    c_bit8: [Constant<Bits<8>>; 8],
    c_zero4: Constant<Bits<4>>,
    c_zero3: Constant<Bits<3>>,
    c_zero8: Constant<Bits<8>>,
    c_tx_commit_offer: Constant<Bits<3>>,
    c_rx_tentative: Constant<Bits<2>>,
}

impl Default for ChannelReads {
    fn default() -> Self {
        Self {
            tx: std::array::from_fn(|_| Default::default()),
            rx: std::array::from_fn(|_| Default::default()),
            trans: std::array::from_fn(|_| Default::default()),
            holding: std::array::from_fn(|_| Default::default()),
            returning: std::array::from_fn(|_| Default::default()),
            in_doubt: std::array::from_fn(|_| Default::default()),
            tx_verb: std::array::from_fn(|_| Default::default()),
            next_held: std::array::from_fn(|_| Default::default()),
            next_verb: std::array::from_fn(|_| Default::default()),
            head: std::array::from_fn(|_| Default::default()),
            rbuf: std::array::from_fn(|_| Default::default()),
            result_pending: std::array::from_fn(|_| Default::default()),
            proof_due: std::array::from_fn(|_| Default::default()),
            rx_verb: std::array::from_fn(|_| Default::default()),
            res_ready: std::array::from_fn(|_| Default::default()),
            pverb: std::array::from_fn(|_| Default::default()),
            tx_news: std::array::from_fn(|_| Default::default()),
            rx_news: std::array::from_fn(|_| Default::default()),
            turn: std::array::from_fn(|_| Default::default()),
            pturn: std::array::from_fn(|_| Default::default()),
            heard_ch: Default::default(),
            slot_ch: Default::default(),
            scan_ch: Default::default(),
            res_ch: Default::default(),
            apply_ch: Default::default(),
            heard_tx_echo: Default::default(),
            heard_next_echo: Default::default(),
            heard_proof: Default::default(),
            heard_rx_x: Default::default(),
            slot_auth: Default::default(),
            slot_proof: Default::default(),
            slot_rx_digest: Default::default(),
            defer_echo: Default::default(),
            heard: Default::default(),
            heard_head: Default::default(),
            slot: Default::default(),
            scan_returning: Default::default(),
            scan_in_doubt: Default::default(),
            scan_verb: Default::default(),
            scan_head: Default::default(),
            res_bit: Default::default(),
            apply_next: Default::default(),
            apply_head: Default::default(),
            v_holding: Default::default(),
            v_returning: Default::default(),
            v_next_held: Default::default(),
            v_head: Default::default(),
            news: Default::default(),
            v_tx: std::array::from_fn(|_| Default::default()),
            v_rx: std::array::from_fn(|_| Default::default()),
            v_trans: std::array::from_fn(|_| Default::default()),
            v_in_doubt: Default::default(),
            v_tx_verb: Default::default(),
            v_next_verb: Default::default(),
            v_rbuf: Default::default(),
            v_result: Default::default(),
            v_proof_due: Default::default(),
            v_rx_verb: Default::default(),
            v_res_ready: Default::default(),
            v_pverb: Default::default(),
            v_tx_news: Default::default(),
            v_rx_news: Default::default(),
            v_turn: Default::default(),
            v_pturn: Default::default(),
            c_ch_bit: crate::one_hots(),
            c_k_zero: Constant::new(Bits::<K>::default()),
            c_bit4: std::array::from_fn(|j| c(1 << j)),
            c_bit3: std::array::from_fn(|j| c(1 << j)),
            c_bit8: std::array::from_fn(|j| c(1 << j)),
            c_zero4: c(0),
            c_zero3: c(0),
            c_zero8: c(0),
            c_tx_commit_offer: c(ts::COMMIT_OFFER as u64),
            c_rx_tentative: c(rs::TENTATIVE as u64),
        }
    }
}

impl Logic for ChannelReads {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- The vectors ----
        for j in 0..4 {
            self.v_tx[j].next = self.c_k_zero.val();
        }
        for j in 0..3 {
            self.v_rx[j].next = self.c_k_zero.val();
        }
        for j in 0..8 {
            self.v_trans[j].next = self.c_k_zero.val();
        }
        self.v_holding.next = self.c_k_zero.val();
        self.v_returning.next = self.c_k_zero.val();
        self.v_next_held.next = self.c_k_zero.val();
        self.v_head.next = self.c_k_zero.val();
        self.news.next = self.c_k_zero.val();
        self.v_in_doubt.next = self.c_k_zero.val();
        self.v_tx_verb.next = self.c_k_zero.val();
        self.v_next_verb.next = self.c_k_zero.val();
        self.v_rbuf.next = self.c_k_zero.val();
        self.v_result.next = self.c_k_zero.val();
        self.v_proof_due.next = self.c_k_zero.val();
        self.v_rx_verb.next = self.c_k_zero.val();
        self.v_res_ready.next = self.c_k_zero.val();
        self.v_pverb.next = self.c_k_zero.val();
        self.v_tx_news.next = self.c_k_zero.val();
        self.v_rx_news.next = self.c_k_zero.val();
        self.v_turn.next = self.c_k_zero.val();
        self.v_pturn.next = self.c_k_zero.val();
        for i in 0..K {
            for j in 0..4 {
                if self.tx[i].val().get_bit(j) {
                    self.v_tx[j].next = self.v_tx[j].val() | self.c_ch_bit[i].val();
                }
            }
            for j in 0..3 {
                if self.rx[i].val().get_bit(j) {
                    self.v_rx[j].next = self.v_rx[j].val() | self.c_ch_bit[i].val();
                }
            }
            for j in 0..8 {
                if self.trans[i].val().get_bit(j) {
                    self.v_trans[j].next = self.v_trans[j].val() | self.c_ch_bit[i].val();
                }
            }
            if self.holding[i].val() {
                self.v_holding.next = self.v_holding.val() | self.c_ch_bit[i].val();
            }
            if self.returning[i].val() {
                self.v_returning.next = self.v_returning.val() | self.c_ch_bit[i].val();
            }
            if self.next_held[i].val() {
                self.v_next_held.next = self.v_next_held.val() | self.c_ch_bit[i].val();
            }
            if self.head[i].val() {
                self.v_head.next = self.v_head.val() | self.c_ch_bit[i].val();
            }
            if self.in_doubt[i].val() {
                self.v_in_doubt.next = self.v_in_doubt.val() | self.c_ch_bit[i].val();
            }
            if self.tx_verb[i].val() {
                self.v_tx_verb.next = self.v_tx_verb.val() | self.c_ch_bit[i].val();
            }
            if self.next_verb[i].val() {
                self.v_next_verb.next = self.v_next_verb.val() | self.c_ch_bit[i].val();
            }
            if self.rbuf[i].val() {
                self.v_rbuf.next = self.v_rbuf.val() | self.c_ch_bit[i].val();
            }
            if self.result_pending[i].val() {
                self.v_result.next = self.v_result.val() | self.c_ch_bit[i].val();
            }
            if self.proof_due[i].val() {
                self.v_proof_due.next = self.v_proof_due.val() | self.c_ch_bit[i].val();
            }
            if self.rx_verb[i].val() {
                self.v_rx_verb.next = self.v_rx_verb.val() | self.c_ch_bit[i].val();
            }
            if self.res_ready[i].val() {
                self.v_res_ready.next = self.v_res_ready.val() | self.c_ch_bit[i].val();
            }
            if self.pverb[i].val() {
                self.v_pverb.next = self.v_pverb.val() | self.c_ch_bit[i].val();
            }
            if self.tx_news[i].val() {
                self.v_tx_news.next = self.v_tx_news.val() | self.c_ch_bit[i].val();
            }
            if self.rx_news[i].val() {
                self.v_rx_news.next = self.v_rx_news.val() | self.c_ch_bit[i].val();
            }
            if self.turn[i].val() {
                self.v_turn.next = self.v_turn.val() | self.c_ch_bit[i].val();
            }
            if self.pturn[i].val() {
                self.v_pturn.next = self.v_pturn.val() | self.c_ch_bit[i].val();
            }
            // News for the slots. "Receiver TENTATIVE and not a verb" is
            // `RecordForm`'s `echo_foldable` (an echo that can ride in an
            // offer), read here per channel; change the two together.
            if self.tx_news[i].val()
                | (self.rx_news[i].val()
                    & !(self.defer_echo.val()
                        & (self.tx[i].val().get_bits::<3>(0) == self.c_tx_commit_offer.val())
                        & (self.rx[i].val().get_bits::<2>(0) == self.c_rx_tentative.val())
                        & !self.rx_verb[i].val()))
            {
                self.news.next = self.news.val() | self.c_ch_bit[i].val();
            }
        }

        // ---- The heard port ----
        self.heard.next.tx = self.c_zero4.val();
        self.slot.next.tx = self.c_zero4.val();
        for j in 0..4 {
            if self.v_tx[j].val().get_bit(self.heard_ch.val().index()) {
                self.heard.next.tx = self.heard.val().tx | self.c_bit4[j].val();
            }
            if self.v_tx[j].val().get_bit(self.slot_ch.val().index()) {
                self.slot.next.tx = self.slot.val().tx | self.c_bit4[j].val();
            }
        }
        self.heard.next.rx = self.c_zero3.val();
        self.slot.next.rx = self.c_zero3.val();
        for j in 0..3 {
            if self.v_rx[j].val().get_bit(self.heard_ch.val().index()) {
                self.heard.next.rx = self.heard.val().rx | self.c_bit3[j].val();
            }
            if self.v_rx[j].val().get_bit(self.slot_ch.val().index()) {
                self.slot.next.rx = self.slot.val().rx | self.c_bit3[j].val();
            }
        }
        self.heard.next.holding = self.v_holding.val().get_bit(self.heard_ch.val().index());
        self.heard.next.returning = self.v_returning.val().get_bit(self.heard_ch.val().index());
        self.heard.next.proof_due = self.v_proof_due.val().get_bit(self.heard_ch.val().index());
        self.heard.next.tx_verb = self.v_tx_verb.val().get_bit(self.heard_ch.val().index());
        self.heard.next.rx_verb = self.v_rx_verb.val().get_bit(self.heard_ch.val().index());
        self.heard.next.result_pending = self.v_result.val().get_bit(self.heard_ch.val().index());
        self.heard.next.next_held = self.v_next_held.val().get_bit(self.heard_ch.val().index());
        self.heard.next.rbuf = self.v_rbuf.val().get_bit(self.heard_ch.val().index());
        self.heard_head.next = self.v_head.val().get_bit(self.heard_ch.val().index());
        self.heard.next.tx_echo = self.heard_tx_echo.val();
        self.heard.next.next_echo = self.heard_next_echo.val();
        self.heard.next.proof = self.heard_proof.val();
        self.heard.next.rx_x = self.heard_rx_x.val();

        // ---- The slot port ----
        self.slot.next.trans = self.c_zero8.val();
        for j in 0..8 {
            if self.v_trans[j].val().get_bit(self.slot_ch.val().index()) {
                self.slot.next.trans = self.slot.val().trans | self.c_bit8[j].val();
            }
        }
        self.slot.next.proof_due = self.v_proof_due.val().get_bit(self.slot_ch.val().index());
        self.slot.next.tx_verb = self.v_tx_verb.val().get_bit(self.slot_ch.val().index());
        self.slot.next.rx_verb = self.v_rx_verb.val().get_bit(self.slot_ch.val().index());
        self.slot.next.res_ready = self.v_res_ready.val().get_bit(self.slot_ch.val().index());
        self.slot.next.tx_news = self.v_tx_news.val().get_bit(self.slot_ch.val().index());
        self.slot.next.rx_news = self.v_rx_news.val().get_bit(self.slot_ch.val().index());
        self.slot.next.head = self.v_head.val().get_bit(self.slot_ch.val().index());
        self.slot.next.next_verb = self.v_next_verb.val().get_bit(self.slot_ch.val().index());
        self.slot.next.turn = self.v_turn.val().get_bit(self.slot_ch.val().index());
        self.slot.next.pturn = self.v_pturn.val().get_bit(self.slot_ch.val().index());
        self.slot.next.pverb = self.v_pverb.val().get_bit(self.slot_ch.val().index());
        self.slot.next.auth = self.slot_auth.val();
        self.slot.next.proof = self.slot_proof.val();
        self.slot.next.rx_digest = self.slot_rx_digest.val();

        // ---- The scanner, the result back, the move applied ----
        self.scan_returning.next = self.v_returning.val().get_bit(self.scan_ch.val().index());
        self.scan_in_doubt.next = self.v_in_doubt.val().get_bit(self.scan_ch.val().index());
        self.scan_verb.next = self.v_tx_verb.val().get_bit(self.scan_ch.val().index());
        self.scan_head.next = self.v_head.val().get_bit(self.scan_ch.val().index());
        // The receiver's bit is bit 2 of `rx`.
        self.res_bit.next = self.v_rx[2].val().get_bit(self.res_ch.val().index());
        self.apply_next.next = self.v_next_held.val().get_bit(self.apply_ch.val().index());
        self.apply_head.next = self.v_head.val().get_bit(self.apply_ch.val().index());
    }
}
