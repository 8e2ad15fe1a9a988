use super::channel_machine::ChannelMachine;
use super::channel_state::ChannelState;
use super::channel_views::HeardChannel;
use super::check::RecordCheck;
use super::entangle::Entangle;
use super::hand_back::HandBack;
use super::record_form::RecordForm;
use super::Crc32;
use crate::lut_ram::LutRam;
use crate::reset::SDFF;
use crate::stream::{StreamSink, StreamSource};
use crate::types::{AcpMsg, AcpSend, RemoteResult, RemoteVerb};
use pendulum_layout::acp;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ATOMIC_LINE_BITS};
use rust_hdl::prelude::*;

/// Width of a channel count, 0..=K.
const CB1: usize = CB + 1;

// The payload slices start at bit 64 (after slice 0).
// The receiver field and the decision check lie in the first payload slice.
const _: () = assert!(acp::RECEIVER_FIELD_OFFSET + 4 <= 8 && acp::DECISION_OFFSET + 4 <= 8);
const _: () = assert!(acp::PAYLOAD_OFFSET * 8 == 64);
const _: () = assert!(1 << CB == K, "ACP_CHANNELS must be 2^ACP_CHANNEL_BITS");

/// The ACP link engine (`shared/ACP.md`, layout and move tables in
/// `pendulum_layout::acp`).
///
/// K token channels (the first `active` of them, agreed when entangling)
/// share the port's record slots by event (`SlotChoice`): a channel whose
/// state changed is stated in one of the next slots, the others are
/// restated round-robin, one slot in 2^`ACP_RESTATE_SHARE_LOG2` at least. A
/// record states one channel, both roles at once. A side changes a
/// channel's state only on hearing the peer's state, guarded by the
/// alternation bits, and acts on a decision or a confirmation only when its
/// check matches what it holds (`ChannelMachine`, defined by
/// `pendulum_layout::acp::machine`), so
/// lost, garbled, repeated or damaged records cost time and nothing else.
/// There is no timer.
///
/// This block keeps the channels' state and applies moves; its parts each
/// have a file: `RecordCheck` checks what arrives (a record of another
/// entanglement fails its check word), `Entangle` keeps the link state,
/// `ChannelMachine` says what the heard channel's state becomes,
/// `SlotChoice` chooses each slot's channel, `RecordForm` forms its record, and
/// `HandBack` is the one way to the host (`m_msg`).
///
/// - Sender role: payloads from `s_send` are loaded into idle channels, or
///   beside the payload a channel holds (two 56-byte buffers each, kept
///   until the peer proves the delivery), offered, committed or reversed on
///   the peer's digest echo, and freed on the peer's proof of delivery. A
///   decision travels with the offer of the next payload of its channel
///   (COMMIT_OFFER), and the echo of that one proves the first delivered:
///   a channel moves one payload (a message or a verb) per round trip.
/// - Receiver role: an offer is stored tentatively (one buffer per channel)
///   and echoed; it reaches `m_msg` only on a COMMIT whose decision check is
///   the echo's, and is erased on such a REVERSE. A store needs room for every
///   channel's possible commit in the message FIFO, so a commit never waits;
///   without room the offer is REJECTed.
/// - Atomic verbs (`verb` payloads) travel as OFFER_VERB. The responder
///   hands a stored one to its atomic unit (`m_verb`; REJECT when the unit
///   cannot take it now, or its line is held by another tentative verb, and
///   the requester offers it again), echoes the unit's result with the
///   digest, then `release`s it on COMMIT or has it `rollback` on REVERSE or
///   a flush. The requester hands the result up (`m_msg`, KIND_VERB_RESULT)
///   when the responder's proof of delivery arrives, with the result the
///   proof carries: a result handed up is final. Until it is handed up, the
///   channel's next transfer may be offered and decided but not confirmed
///   (back-pressure from a slow host, no result lost or overwritten).
/// - A peer that lost its state (a new incarnation), our own `reset_link`,
///   and channels dropped by a smaller agreed count flush the channel
///   states: what we decided COMMIT on but saw no proof for is handed back
///   on `m_msg` as in doubt; what our reset or a dropped channel drops is
///   handed back as not delivered; the rest is offered again.
///
/// Latency: a record is registered, then checked (`RecordCheck`) while its
/// channel's state is read and compared with it, and acted on in the next
/// cycle, from registers: its effects show 3 cycles after it arrives. A
/// record checked while the one before it changes the same channel (or
/// while channels are flushed) is not heard: the peer restates it (it never
/// gives a channel two slots in a row for news, and a record right after one
/// of the same channel leaves the news to state again).
/// The record sent is formed one cycle ahead of the port; one that only
/// restates goes to the port only when the port holds none (`port_idle`,
/// `RecordForm`). Event pulses
/// (`ev_*`) leave a cycle after what they count; `m_msg` leaves through a
/// skid buffer (1 cycle). One record per slot each way; nothing stalls the
/// receive side.
#[derive(LogicBlock)]
pub struct AcpLink {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    /// A record from the peer (no back-pressure: every slot is taken).
    pub rx_data: Signal<In, Bits<512>>,
    pub rx_valid: Signal<In, Bit>,
    /// The physical layer has signal.
    pub link_up: Signal<In, Bit>,
    /// The record for the current slot (valid from the first cycle on).
    pub tx_data: Signal<Out, Bits<512>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// The port holds no record (a registered view of its queue).
    pub port_idle: Signal<In, Bit>,
    /// Payloads to send, 56 bytes each (messages, or verbs for the peer's atomic unit).
    pub s_send: StreamSink<AcpSend>,
    /// Payloads delivered by the peer, and ours handed back.
    pub m_msg: StreamSource<AcpMsg>,
    /// One-cycle pulse: drop our link state, hand back what we hold, re-entangle.
    pub reset_link: Signal<In, Bit>,
    /// Mixed into the nonce generator when `seed_write` pulses.
    pub seed: Signal<In, Bits<32>>,
    pub seed_write: Signal<In, Bit>,
    /// Channels this side offers to use, 1..=K (LINK_CHANNELS).
    pub channels_cfg: Signal<In, Bits<CB1>>,
    /// Channels in use since the last entanglement.
    pub active: Signal<Out, Bits<CB1>>,
    /// `pendulum_layout::acp::link_state`.
    pub state: Signal<Out, Bits<2>>,
    /// One-cycle event pulses for the counters.
    pub ev_record: Signal<Out, Bit>,
    pub ev_bad_check: Signal<Out, Bit>,
    pub ev_bad_record: Signal<Out, Bit>,
    pub ev_commit: Signal<Out, Bit>,
    pub ev_deliver: Signal<Out, Bit>,
    pub ev_reject: Signal<Out, Bit>,
    pub ev_reverse: Signal<Out, Bit>,
    pub ev_failure: Signal<Out, Bit>,
    pub ev_entangle: Signal<Out, Bit>,
    pub ev_return: Signal<Out, Bit>,
    /// To and from our atomic unit (`AtomicUnit`'s remote port): a verb the
    /// peer offered, taken only while `verb_free` and its line not `q_held`.
    pub verb_valid: Signal<Out, Bit>,
    pub verb: Signal<Out, RemoteVerb>,
    pub verb_free: Signal<In, Bit>,
    pub q_line: Signal<Out, Bits<ATOMIC_LINE_BITS>>,
    pub q_held: Signal<In, Bit>,
    pub res_valid: Signal<In, Bit>,
    pub res: Signal<In, RemoteResult>,
    pub release: [Signal<Out, Bit>; K],
    pub rollback: [Signal<Out, Bit>; K],

    check: RecordCheck,
    ent: Entangle,
    mach: ChannelMachine,
    form: RecordForm,
    hb: HandBack,
    chans: ChannelState,

    // ---- Payload buffers ----
    /// Payload buffers: what each channel sends, two buffers a channel (the
    /// payload held and the next one, `ChannelState`'s `head`), each in two
    /// copies, one read by record formation, one by the hand-back scanner;
    /// and what it holds tentatively. Record formation's copies (and its
    /// result buffers below) are `LutRam`s read at the slot channel's
    /// register, so the slot choice ends at that register, not at a RAM's
    /// read address; a read sees a write of the cycle before.
    tx_ram_form_0: LutRam<Bits<448>, CB>,
    tx_ram_form_1: LutRam<Bits<448>, CB>,
    tx_ram_ret_0: RAM<Bits<448>, CB>,
    tx_ram_ret_1: RAM<Bits<448>, CB>,
    rx_ram: RAM<Bits<448>, CB>,
    /// Receiver role: verb results from our unit, two buffers a channel
    /// (at the receiver bit of the verb: the tentative one's, and the last
    /// delivered one's for the proof).
    res_ram_0: LutRam<Bits<384>, CB>,
    res_ram_1: LutRam<Bits<384>, CB>,
    /// The result of a tentative verb, for its echo check.
    res_crc: Crc32<384>,
    /// Sender role: a verb's result, from the echo decided on or the proof
    /// of its delivery, two buffers a channel (`HeardChannel::rbuf`): a
    /// confirmed result waits in one to be handed up while the next
    /// transfer's decision keeps its result in the other.
    vres_ram_0: RAM<Bits<384>, CB>,
    vres_ram_1: RAM<Bits<384>, CB>,
    vres_we: Signal<Local, Bit>,
    /// The result bytes of the record decided on.
    h_result: Signal<Local, Bits<384>>,
    vres_bit: Signal<Local, Bit>,

    // ---- Verb results from our unit ----
    /// The result from our unit, registered for its echo check.
    res_got: SDFF<Bit>,
    res_got_ch: SDFF<Bits<CB>>,
    res_got_result: SDFF<Bits<384>>,

    /// Event pulses, registered on their way out.
    ev_record_r: SDFF<Bit>,
    ev_bad_check_r: SDFF<Bit>,
    ev_bad_record_r: SDFF<Bit>,
    ev_commit_r: SDFF<Bit>,
    ev_deliver_r: SDFF<Bit>,
    ev_reject_r: SDFF<Bit>,
    ev_reverse_r: SDFF<Bit>,
    ev_failure_r: SDFF<Bit>,
    ev_entangle_r: SDFF<Bit>,
    ev_return_r: SDFF<Bit>,
    e_deliver: Signal<Local, Bit>,

    // ---- Receive, in the check cycle: the heard channel's state, read and compared ----
    h_receiver_field: Signal<Local, Bits<32>>,
    h_decision: Signal<Local, Bits<32>>,
    /// The heard record's echo check: its receiver field XOR the CRC of its result.
    x_heard: Signal<Local, Bits<32>>,
    /// Read and compared in the check cycle: the channel's state, and the
    /// comparisons the decision needs.
    /// The record decided on while this one was checked changed the same channel.
    p_hazard: SDFF<Bit>,
    p_heard: SDFF<HeardChannel>,
    p_verb_ok: SDFF<Bit>,
    /// The receiver field is the digest we hold; the echo check is.
    p_rf_is_digest: SDFF<Bit>,
    p_x_is_digest: SDFF<Bit>,
    /// The receiver field is the echo we expect of our next payload.
    p_rf_is_next: SDFF<Bit>,
    /// The decision check states COMMIT, or REVERSE, of our echo.
    p_commit_ok: SDFF<Bit>,
    p_reverse_ok: SDFF<Bit>,
    /// A rollback started last cycle (`q_held` was read before it).
    rb_started: SDFF<Bit>,
    /// This side holds back lone echoes (`ChannelState::defer_echo`).
    defer_echo: SDFF<Bit>,
    /// A verb was handed to the unit last cycle, and the line of the verb
    /// decided on now is its line (the unit's `q_held` did not see it yet).
    handed: SDFF<Bit>,
    p_same_line: SDFF<Bit>,

    // ---- Receive, the decision: what the heard channel's state becomes ----
    applying: Signal<Local, Bit>,
    /// The echo check of the record decided on (its receiver field XOR the CRC of its result).
    h_x: Signal<Local, Bits<32>>,
    /// The receiver field of the record decided on.
    h_field: Signal<Local, Bits<32>>,
    /// The receiver role `{bit, state}` read for the record checked, and for
    /// the record decided on (a struct field is sliced only through a local).
    peek_rx: Signal<Local, Bits<3>>,
    peek_tx: Signal<Local, Bits<4>>,
    p_rx: Signal<Local, Bits<3>>,
    /// A message's or verb's digest as the receiver echoes it: XOR our proof
    /// (the one about to be, when the record delivers and stores at once).
    store_digest: Signal<Local, Bits<32>>,
    new_auth: Signal<Local, Bits<32>>,
    verb_ok: Signal<Local, Bit>,

    // ---- Send ----
    send_dig: Crc32<448>,

    // ---- Constants ----
    at_receiver_field: Constant<Bits<9>>,
    /// The same two, in the first payload slice (`RecordCheck::peek_slice1`).
    at_receiver_field_s1: Constant<Bits<6>>,
    at_decision_s1: Constant<Bits<6>>,
    at_result: Constant<Bits<9>>,
    c_op_entangle: Constant<Bits<8>>,
    /// CRC-32 of a message's result bytes (48 zero bytes).
    c_crc_no_result: Constant<Bits<32>>,
    c_rx_tentative3: Constant<Bits<3>>,
    c_rx_bit3: Constant<Bits<3>>,
    c_tx_bit4: Constant<Bits<4>>,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl AcpLink {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            link_up: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            port_idle: Default::default(),
            s_send: Default::default(),
            m_msg: Default::default(),
            reset_link: Default::default(),
            seed: Default::default(),
            seed_write: Default::default(),
            channels_cfg: Default::default(),
            active: Default::default(),
            state: Default::default(),
            ev_record: Default::default(),
            ev_bad_check: Default::default(),
            ev_bad_record: Default::default(),
            ev_commit: Default::default(),
            ev_deliver: Default::default(),
            ev_reject: Default::default(),
            ev_reverse: Default::default(),
            ev_failure: Default::default(),
            ev_entangle: Default::default(),
            ev_return: Default::default(),
            verb_valid: Default::default(),
            verb: Default::default(),
            verb_free: Default::default(),
            q_line: Default::default(),
            q_held: Default::default(),
            res_valid: Default::default(),
            res: Default::default(),
            release: std::array::from_fn(|_| Default::default()),
            rollback: std::array::from_fn(|_| Default::default()),
            check: RecordCheck::new(),
            mach: ChannelMachine::default(),
            form: RecordForm::default(),
            hb: HandBack::default(),
            chans: ChannelState::default(),
            ent: Entangle::new(),
            tx_ram_form_0: Default::default(),
            tx_ram_form_1: Default::default(),
            tx_ram_ret_0: Default::default(),
            tx_ram_ret_1: Default::default(),
            rx_ram: Default::default(),
            res_ram_0: Default::default(),
            res_ram_1: Default::default(),
            res_crc: Default::default(),
            vres_ram_0: Default::default(),
            vres_ram_1: Default::default(),
            vres_we: Default::default(),
            h_result: Default::default(),
            vres_bit: Default::default(),
            res_got: Default::default(),
            res_got_ch: Default::default(),
            res_got_result: Default::default(),
            ev_record_r: Default::default(),
            ev_bad_check_r: Default::default(),
            ev_bad_record_r: Default::default(),
            ev_commit_r: Default::default(),
            ev_deliver_r: Default::default(),
            ev_reject_r: Default::default(),
            ev_reverse_r: Default::default(),
            ev_failure_r: Default::default(),
            ev_entangle_r: Default::default(),
            ev_return_r: Default::default(),
            e_deliver: Default::default(),
            p_hazard: Default::default(),
            p_heard: Default::default(),
            p_verb_ok: Default::default(),
            handed: Default::default(),
            p_same_line: Default::default(),
            p_rf_is_digest: Default::default(),
            p_x_is_digest: Default::default(),
            p_rf_is_next: Default::default(),
            p_commit_ok: Default::default(),
            p_reverse_ok: Default::default(),
            rb_started: Default::default(),
            defer_echo: Default::default(),
            applying: Default::default(),
            h_x: Default::default(),
            h_field: Default::default(),
            peek_rx: Default::default(),
            peek_tx: Default::default(),
            p_rx: Default::default(),
            store_digest: Default::default(),
            h_receiver_field: Default::default(),
            h_decision: Default::default(),
            x_heard: Default::default(),
            new_auth: Default::default(),
            verb_ok: Default::default(),
            send_dig: Default::default(),
            at_receiver_field: c((8 * acp::RECEIVER_FIELD_OFFSET) as u64),
            at_receiver_field_s1: c((8 * acp::RECEIVER_FIELD_OFFSET) as u64),
            at_decision_s1: c((8 * acp::DECISION_OFFSET) as u64),
            at_result: c((8 * acp::ECHO_RESULT_OFFSET) as u64),
            c_op_entangle: c(acp::OP_ENTANGLE as u64),
            c_crc_no_result: c(acp::crc32(&[0; acp::ECHO_RESULT_BYTES]) as u64),
            c_rx_tentative3: c(acp::rx_state::TENTATIVE as u64),
            c_rx_bit3: c(4),
            c_tx_bit4: c(8),
        }
    }
}

impl Default for AcpLink {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AcpLink {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            res_got,
            res_got_ch,
            res_got_result,
            ev_record_r,
            ev_bad_check_r,
            ev_bad_record_r,
            ev_commit_r,
            ev_deliver_r,
            ev_reject_r,
            ev_reverse_r,
            ev_failure_r,
            ev_entangle_r,
            ev_return_r,
            p_hazard,
            p_heard,
            p_verb_ok,
            handed,
            p_same_line,
            p_rf_is_digest,
            p_x_is_digest,
            p_rf_is_next,
            p_commit_ok,
            p_reverse_ok,
            rb_started,
            defer_echo
        );
        self.defer_echo.reset.next = self.reset.val();
        self.res_got.reset.next = self.reset.val();
        self.res_got_ch.reset.next = self.reset.val();
        self.res_got_result.reset.next = self.reset.val();
        self.ev_record_r.reset.next = self.reset.val();
        self.ev_bad_check_r.reset.next = self.reset.val();
        self.ev_bad_record_r.reset.next = self.reset.val();
        self.ev_commit_r.reset.next = self.reset.val();
        self.ev_deliver_r.reset.next = self.reset.val();
        self.ev_reject_r.reset.next = self.reset.val();
        self.ev_reverse_r.reset.next = self.reset.val();
        self.ev_failure_r.reset.next = self.reset.val();
        self.ev_entangle_r.reset.next = self.reset.val();
        self.ev_return_r.reset.next = self.reset.val();
        self.p_hazard.reset.next = self.reset.val();
        self.p_heard.reset.next = self.reset.val();
        self.p_verb_ok.reset.next = self.reset.val();
        self.handed.reset.next = self.reset.val();
        self.p_same_line.reset.next = self.reset.val();
        self.p_rf_is_digest.reset.next = self.reset.val();
        self.p_x_is_digest.reset.next = self.reset.val();
        self.p_rf_is_next.reset.next = self.reset.val();
        self.p_commit_ok.reset.next = self.reset.val();
        self.p_reverse_ok.reset.next = self.reset.val();
        self.rb_started.reset.next = self.reset.val();
        self.check.clock.next = self.clock.val();
        self.check.reset.next = self.reset.val();
        self.ent.clock.next = self.clock.val();
        self.ent.reset.next = self.reset.val();
        self.tx_ram_form_0.write_clock.next = self.clock.val();
        self.tx_ram_form_1.write_clock.next = self.clock.val();
        self.tx_ram_ret_0.read_clock.next = self.clock.val();
        self.tx_ram_ret_0.write_clock.next = self.clock.val();
        self.tx_ram_ret_1.read_clock.next = self.clock.val();
        self.tx_ram_ret_1.write_clock.next = self.clock.val();
        self.rx_ram.read_clock.next = self.clock.val();
        self.rx_ram.write_clock.next = self.clock.val();
        self.res_ram_0.write_clock.next = self.clock.val();
        self.res_ram_1.write_clock.next = self.clock.val();
        self.vres_ram_0.read_clock.next = self.clock.val();
        self.vres_ram_0.write_clock.next = self.clock.val();
        self.vres_ram_1.read_clock.next = self.clock.val();
        self.vres_ram_1.write_clock.next = self.clock.val();
        self.chans.clock.next = self.clock.val();
        // With both directions loaded, the two sides' records of a channel
        // can cross: each carries an offer and the echo of what the other
        // offered a round before, and the echo of the offer it crosses
        // then needs a record of its own, so a channel moves a payload
        // each way per two records. If one side holds that lone echo back
        // until it can fold it into its next offer (after the peer's echo
        // of ours, which the peer sends at once), the records take turns
        // and every one carries a payload. The side whose session term is
        // the smaller holds back (the terms differ unless the nonces
        // collide, 2^-32; then neither does). Held back is only news: the
        // restating share still states the channel.
        self.defer_echo.d.next = self.ent.session_tx.val() < self.ent.session_rx.val();
        self.chans.defer_echo.next = self.defer_echo.q.val();
        self.chans.reset.next = self.reset.val();
        self.form.news.next = self.chans.news.val();
        for i in 0..K {
            self.release[i].next = self.chans.release[i].val();
            self.rollback[i].next = self.chans.rollback[i].val();
        }

        // ---- Receive, stage 1 (RecordCheck) and the link state (Entangle) ----
        self.check.rx_data.next = self.rx_data.val();
        self.check.rx_valid.next = self.rx_valid.val();
        self.check.session.next = self.ent.session_rx.val();
        // What the record checked expects of a folded decision check: read
        // with the channel's state below.
        self.check.exp_x.next = self.chans.heard.val().rx_x;
        self.check.exp_p.next = self.chans.heard.val().proof;
        self.peek_rx.next = self.chans.heard.val().rx;
        // {bit, state} with state <= REJECT: the bit is set from 4 up.
        self.check.exp_rx_bit.next = self.peek_rx.val() >= self.c_rx_bit3.val();
        // ... and of a folded echo.
        self.check.exp_e_tx.next = self.chans.heard.val().tx_echo;
        self.check.exp_e_next.next = self.chans.heard.val().next_echo;
        self.peek_tx.next = self.chans.heard.val().tx;
        // {bit, state}: the bit is set from 8 up.
        self.check.exp_tx_bit.next = self.peek_tx.val() >= self.c_tx_bit4.val();
        self.ent.link_up.next = self.link_up.val();
        self.ent.reset_link.next = self.reset_link.val();
        self.ent.seed.next = self.seed.val();
        self.ent.seed_write.next = self.seed_write.val();
        self.ent.channels_cfg.next = self.channels_cfg.val();
        self.ent.heard_valid.next = self.check.valid.val();
        self.ent.heard_op.next = self.check.op.val();
        self.ent.heard_fields.next = self.check.payload.val().get_bits::<112>(0);
        self.ent.slot_good.next = self.check.slot_good.val();
        self.ent.slot_bad.next = self.check.slot_bad.val();
        self.state.next = self.ent.state.val();
        self.active.next = self.ent.active.val();
        // The event pulses leave from registers.
        self.ev_record_r.d.next = self.check.ev_record.val();
        self.ev_bad_check_r.d.next = self.check.slot_bad.val();
        self.ev_bad_record_r.d.next = self.check.ev_bad_record.val();
        self.ev_failure_r.d.next = self.ent.ev_failure.val();
        self.ev_entangle_r.d.next = self.ent.ev_entangle.val();
        self.ev_record.next = self.ev_record_r.q.val();
        self.ev_bad_check.next = self.ev_bad_check_r.q.val();
        self.ev_bad_record.next = self.ev_bad_record_r.q.val();
        self.ev_commit.next = self.ev_commit_r.q.val();
        self.ev_deliver.next = self.ev_deliver_r.q.val();
        self.ev_reject.next = self.ev_reject_r.q.val();
        self.ev_reverse.next = self.ev_reverse_r.q.val();
        self.ev_failure.next = self.ev_failure_r.q.val();
        self.ev_entangle.next = self.ev_entangle_r.q.val();
        self.ev_return.next = self.ev_return_r.q.val();

        // ---- Receive, in the check cycle: read the channel's state, compare ----
        // While `RecordCheck` checks a record, its channel's state is read and
        // compared with it, and registered: the next cycle decides from
        // registers. The state read is that of the cycle before the decision:
        // the record decided on meanwhile is the only writer that could make
        // it wrong (see `p_hazard`); the other writers leave it as it would
        // be had the record been decided on a cycle earlier.
        self.chans.heard_ch.next = self.check.peek_channel.val();
        self.p_heard.d.next = self.chans.heard.val();
        // The heard channel's tentative payload, ready with the decision.
        self.rx_ram.read_address.next = self.check.peek_channel.val();
        // An offered verb: can our atomic unit take it now? (The verb's byte
        // address is payload bytes 4..8; its line, bits 6 and up.) The
        // decision also asks `verb_free` again, and that no rollback started
        // meanwhile.
        self.q_line.next = self
            .check
            .peek_slice1
            .val()
            .get_bits::<ATOMIC_LINE_BITS>(32 + 6);
        self.p_verb_ok.d.next = self.verb_free.val() & !self.q_held.val();
        // The verb handed over in this cycle, if any, is the record decided
        // on now: its line is held from the next.
        self.p_same_line.d.next = self
            .check
            .payload
            .val()
            .get_bits::<ATOMIC_LINE_BITS>(32 + 6)
            == self.q_line.val();
        self.h_receiver_field.next = self
            .check
            .peek_slice1
            .val()
            .get_bits::<32>(self.at_receiver_field_s1.val().index());
        self.h_decision.next = self
            .check
            .peek_slice1
            .val()
            .get_bits::<32>(self.at_decision_s1.val().index());
        self.x_heard.next = self.h_receiver_field.val() ^ self.check.peek_result_crc.val();
        self.p_rf_is_digest.d.next = self.h_receiver_field.val() == self.chans.heard.val().tx_echo;
        self.p_x_is_digest.d.next = self.x_heard.val() == self.chans.heard.val().tx_echo;
        self.p_rf_is_next.d.next = self.h_receiver_field.val() == self.chans.heard.val().next_echo;
        self.p_commit_ok.d.next = self.h_decision.val() == self.chans.heard.val().rx_x;
        self.p_reverse_ok.d.next = self.h_decision.val() == !self.chans.heard.val().rx_x;

        // ---- Receive, the next cycle: decide and act, from registers ----
        // Moves apply to a channel record heard while Up, not in a reset cycle.
        self.applying.next = self.check.valid.val()
            & (self.check.op.val() != self.c_op_entangle.val())
            & self.ent.up.val()
            & !self.reset_link.val()
            & !self.p_hazard.q.val();
        self.h_field.next = self
            .check
            .payload
            .val()
            .get_bits::<32>(self.at_receiver_field.val().index());
        self.h_x.next = self.h_field.val() ^ self.check.result_crc.val();
        // A folded echo is a message's: no result bytes.
        if self.check.echo_folded.val() {
            self.h_x.next = self.check.echo_value.val() ^ self.c_crc_no_result.val();
        }
        self.verb_ok.next = self.p_verb_ok.q.val()
            & self.verb_free.val()
            & !self.rb_started.q.val()
            & !(self.handed.q.val() & self.p_same_line.q.val());
        // The channel machine (pendulum_layout::acp::machine), on the heard
        // channel's state and the comparisons made in the check cycle.
        self.mach.tx.next = self.p_heard.q.val().tx;
        self.mach.rx.next = self.p_heard.q.val().rx;
        self.mach.holding.next = self.p_heard.q.val().holding;
        self.mach.returning.next = self.p_heard.q.val().returning;
        self.mach.result_pending.next = self.p_heard.q.val().result_pending;
        self.mach.proof_due.next = self.p_heard.q.val().proof_due;
        self.mach.room.next = self.hb.room.val();
        self.mach.verb_room.next = self.verb_ok.val();
        self.mach.h_op.next = self.check.op.val();
        self.mach.h_tx.next = self.check.tx.val();
        self.mach.h_rx.next = self.check.rx.val();
        // A folded echo was compared by `RecordCheck`.
        self.mach.echo_folded.next = self.check.echo_folded.val();
        self.mach.receiver_is_digest.next = self.p_rf_is_digest.q.val();
        if self.check.echo_folded.val() {
            self.mach.receiver_is_digest.next = self.check.echo_at_our_tx_bit.val();
        }
        self.mach.echo_check_is_digest.next = self.p_x_is_digest.q.val();
        // A folded decision check was compared by `RecordCheck`.
        self.mach.decision_commits.next = self.p_commit_ok.q.val();
        if self.check.folded.val() {
            self.mach.decision_commits.next = self.check.decision_at_our_rx_bit.val();
        }
        self.mach.decision_reverses.next = self.p_reverse_ok.q.val();
        self.mach.decision_is_proof.next =
            self.check.folded.val() & !self.check.decision_at_our_rx_bit.val();
        self.mach.next_held.next = self.p_heard.q.val().next_held;
        self.mach.receiver_is_next_digest.next = self.p_rf_is_next.q.val();
        if self.check.echo_folded.val() {
            self.mach.receiver_is_next_digest.next = !self.check.echo_at_our_tx_bit.val();
        }
        self.new_auth.next = self.h_x.val();
        if self.mach.check_complement.val() {
            self.new_auth.next = !self.h_x.val();
        }

        // A tentative verb's result, back from our unit. It is ready to echo
        // at once; its echo check (the result's CRC) is taken a cycle later,
        // from registers: a decision on the echo comes a round trip after it.
        self.res_ram_0.write_enable.next = self.res_valid.val() & !self.chans.res_bit.val();
        self.res_ram_1.write_enable.next = self.res_valid.val() & self.chans.res_bit.val();
        self.res_ram_0.write_address.next = self.res.val().channel;
        self.res_ram_0.write_data.next = self.res.val().result;
        self.res_ram_1.write_address.next = self.res.val().channel;
        self.res_ram_1.write_data.next = self.res.val().result;
        self.res_got.d.next = self.res_valid.val();
        self.res_got_ch.d.next = self.res.val().channel;
        self.res_got_result.d.next = self.res.val().result;
        self.chans.res_set.next = self.res_valid.val();
        self.chans.res_ch.next = self.res.val().channel;
        self.res_crc.data.next = self.res_got_result.q.val();
        self.chans.result_ch.next = self.res_got_ch.q.val();
        self.chans.x_set.next = self.res_got.q.val();
        self.chans.x_value.next = self.chans.result_rx_digest.val() ^ self.res_crc.crc.val();

        // Apply the heard channel's moves.
        self.hb.deliver.next = false;
        self.verb_valid.next = false;
        self.verb.next.payload = self.check.payload.val();
        self.verb.next.channel = self.check.channel.val();
        // The result an echo decided on, or a proof of delivery, carries
        // (kept for every transfer; handed up for a verb): at the decision
        // the transfer's buffer, at PASSED the next one's (the confirmed
        // one's result was kept from its decision).
        self.vres_we.next = false;
        self.vres_bit.next = self.p_heard.q.val().rbuf ^ self.mach.confirm_by_echo.val();
        self.h_result.next = self
            .check
            .payload
            .val()
            .get_bits::<384>(self.at_result.val().index());
        self.vres_ram_0.write_address.next = self.check.channel.val();
        self.vres_ram_0.write_data.next = self.h_result.val();
        self.vres_ram_1.write_address.next = self.check.channel.val();
        self.vres_ram_1.write_data.next = self.h_result.val();
        self.rx_ram.write_enable.next = false;
        self.rx_ram.write_address.next = self.check.channel.val();
        self.rx_ram.write_data.next = self.check.payload.val();
        self.e_deliver.next = false;
        self.rb_started.d.next = false;
        self.handed.d.next = false;
        self.chans.apply.next = self.applying.val();
        self.chans.apply_ch.next = self.check.channel.val();
        self.chans.n_tx.next = self.mach.n_tx.val();
        self.chans.n_rx.next = self.mach.n_rx.val();
        self.chans.moved.next = self.mach.moved.val();
        self.chans.transition.next = self.mach.transition.val();
        self.chans.set_check.next = self.mach.set_check.val();
        self.chans.check_value.next = self.new_auth.val();
        self.chans.confirm.next = self.mach.confirm.val();
        self.chans.confirm_verb.next = self.p_heard.q.val().tx_verb;
        self.chans.confirm_by_echo.next = self.mach.confirm_by_echo.val();
        // The proof that confirms is the key of the channel's next echo.
        self.chans.key_value.next = self.h_field.val();
        self.chans.store.next = self.mach.store.val();
        // The echo carries the digest XOR our proof of the last delivery: a
        // tentative receiver that stores delivers in the same move
        // (DELIVER_STORE), and its proof is then what it held.
        self.store_digest.next = self.check.digest.val() ^ self.p_heard.q.val().proof;
        self.p_rx.next = self.p_heard.q.val().rx;
        if (self.p_rx.val() == self.c_rx_tentative3.val())
            | (self.p_rx.val() == (self.c_rx_tentative3.val() | self.c_rx_bit3.val()))
        {
            self.store_digest.next = self.check.digest.val() ^ self.p_heard.q.val().rx_x;
        }
        self.chans.store_digest.next = self.store_digest.val();
        self.chans.store_verb.next = self.mach.exec.val();
        // A message's echo check is known at once; a verb's follows its result.
        self.chans.store_x.next = self.store_digest.val() ^ self.c_crc_no_result.val();
        self.chans.deliver.next = self.mach.deliver.val();
        self.chans.proof_value.next = self.p_heard.q.val().rx_x;
        self.chans.n_proof_due.next = self.mach.n_proof_due.val();
        self.chans.n_peer_ready.next = self.mach.n_peer_ready.val();
        // A tentative verb is made permanent, or undone.
        self.chans.release_now.next = self.mach.deliver.val() & self.p_heard.q.val().rx_verb;
        self.chans.rollback_now.next = self.mach.erase.val() & self.p_heard.q.val().rx_verb;
        if self.applying.val() {
            self.rb_started.d.next = self.mach.erase.val() & self.p_heard.q.val().rx_verb;
            if self.mach.deliver.val() & !self.p_heard.q.val().rx_verb {
                self.hb.deliver.next = true;
                self.e_deliver.next = true;
            }
            self.verb_valid.next = self.mach.exec.val();
            self.handed.d.next = self.mach.exec.val();
            // (A folded echo is a message's, with no result bytes to keep.)
            self.vres_we.next = ((self.mach.set_check.val() & !self.mach.check_complement.val())
                | (self.mach.confirm.val() & !self.mach.confirm_by_echo.val()))
                & !self.check.echo_folded.val();
            // A commit for this channel comes at least a link round trip
            // after the store, so the RAM's read-before-write never matters.
            self.rx_ram.write_enable.next = self.mach.store.val();
        }
        // The record decided on changes the same channel: what was read
        // for the record being checked is stale, so this one is not heard (it is restated).
        // So is every record read while channels are flushed (going Up, or
        // our reset).
        self.p_hazard.d.next = (self.applying.val()
            & (self.mach.moved.val()
                | self.mach.set_check.val()
                | (self.mach.n_proof_due.val() != self.p_heard.q.val().proof_due))
            & (self.check.channel.val() == self.check.peek_channel.val()))
            | self.ent.go_up.val()
            | self.ent.flush_local.val();
        self.ev_commit_r.d.next = self.applying.val() & self.mach.ev_commit.val();
        self.ev_reverse_r.d.next = self.applying.val() & self.mach.ev_reverse.val();
        self.ev_reject_r.d.next = self.applying.val() & self.mach.ev_reject.val();
        self.ev_deliver_r.d.next = self.e_deliver.val();

        // ---- Hand-back (`HandBack`): deliveries, verb results, payloads handed back ----
        self.hb.clock.next = self.clock.val();
        self.hb.reset.next = self.reset.val();
        self.hb.deliver_channel.next = self.check.channel.val();
        self.hb.deliver_payload.next = self.rx_ram.read_data.val();
        self.tx_ram_ret_0.read_address.next = self.hb.scan_next.val();
        self.tx_ram_ret_1.read_address.next = self.hb.scan_next.val();
        self.vres_ram_0.write_enable.next = self.vres_we.val() & !self.vres_bit.val();
        self.vres_ram_1.write_enable.next = self.vres_we.val() & self.vres_bit.val();
        self.vres_ram_0.read_address.next = self.hb.result_ch.val();
        self.vres_ram_1.read_address.next = self.hb.result_ch.val();
        self.hb.ret_payload.next = self.tx_ram_ret_0.read_data.val();
        if self.chans.scan_head.val() {
            self.hb.ret_payload.next = self.tx_ram_ret_1.read_data.val();
        }
        // A confirmed result waits in the buffer decisions no longer write:
        // the one the channel's confirming record read (its `rbuf` before
        // the confirmation flips it).
        self.hb.proven.next =
            self.applying.val() & self.mach.confirm.val() & self.p_heard.q.val().tx_verb;
        self.hb.proven_ch.next = self.check.channel.val();
        self.hb.proven_buf.next = self.p_heard.q.val().rbuf;
        self.hb.result.next = self.vres_ram_0.read_data.val();
        if self.hb.took_result_buf.val() {
            self.hb.result.next = self.vres_ram_1.read_data.val();
        }
        self.chans.scan_ch.next = self.hb.scan.val();
        self.hb.in_doubt.next = self.chans.scan_in_doubt.val();
        self.hb.returning_verb.next = self.chans.scan_verb.val();
        self.hb.returning.next = self.chans.scan_returning.val();
        self.chans.result_taken.next = self.hb.took_result.val();
        self.chans.result_taken_ch.next = self.hb.took_result_ch.val();
        self.chans.scan_took_return.next = self.hb.took_return.val();
        self.ev_return_r.d.next = self.hb.took_return.val();
        self.m_msg.data.next = self.hb.m_msg.data.val();
        self.m_msg.valid.next = self.hb.m_msg.valid.val();
        self.hb.m_msg.ready.next = self.m_msg.ready.val();

        // ---- Flushes (`ChannelState`): channel states the peer no longer shares ----
        self.chans.flush_local.next = self.ent.flush_local.val();
        self.chans.flush_peer.next = self.ent.flush_peer.val();
        self.chans.go_up.next = self.ent.go_up.val();
        self.chans.past_agreed.next = self.ent.past_agreed.val();

        // ---- Send: load payloads into idle channels ----
        self.send_dig.data.next = self.s_send.data.val().payload;
        self.chans.in_use.next = self.ent.in_use.val();
        self.chans.load_digest.next = self.send_dig.crc.val();
        self.chans.load_verb.next = self.s_send.data.val().verb;
        self.chans.load_want.next = self.s_send.valid.val();
        // Nothing loads while channels may be flushed (a reset, or going up
        // with fewer channels).
        self.s_send.ready.next =
            self.chans.load_ok.val() & !self.ent.flush_local.val() & !self.ent.go_up.val();
        self.chans.load.next = self.s_send.valid.val()
            & self.chans.load_ok.val()
            & !self.ent.flush_local.val()
            & !self.ent.go_up.val();
        // Into the channel's free buffer (`load_bit`).
        self.tx_ram_form_0.write_address.next = self.chans.load_ch.val();
        self.tx_ram_form_0.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_form_0.write_enable.next = self.chans.load.val() & !self.chans.load_bit.val();
        self.tx_ram_form_1.write_address.next = self.chans.load_ch.val();
        self.tx_ram_form_1.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_form_1.write_enable.next = self.chans.load.val() & self.chans.load_bit.val();
        self.tx_ram_ret_0.write_address.next = self.chans.load_ch.val();
        self.tx_ram_ret_0.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_ret_0.write_enable.next = self.chans.load.val() & !self.chans.load_bit.val();
        self.tx_ram_ret_1.write_address.next = self.chans.load_ch.val();
        self.tx_ram_ret_1.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_ret_1.write_enable.next = self.chans.load.val() & self.chans.load_bit.val();

        // ---- Send: form the next slot's record (`RecordForm`) ----
        self.form.clock.next = self.clock.val();
        self.form.reset.next = self.reset.val();
        self.chans.slot_ch.next = self.form.ch.val();
        self.form.state.next = self.chans.slot.val();
        self.form.payload_0.next = self.tx_ram_form_0.read_data.val();
        self.form.payload_1.next = self.tx_ram_form_1.read_data.val();
        self.form.result_0.next = self.res_ram_0.read_data.val();
        self.form.result_1.next = self.res_ram_1.read_data.val();
        self.form.up.next = self.ent.up.val();
        self.form.go_up.next = self.ent.go_up.val();
        self.form.active.next = self.ent.active.val();
        self.chans.clear_tx.next = self.form.clear_tx.val();
        self.chans.clear_rx.next = self.form.clear_rx.val();
        self.chans.flip_turn.next = self.form.flip_turn.val();
        self.chans.flip_pturn.next = self.form.flip_pturn.val();
        self.form.ent_fields.next = self.ent.fields.val();
        self.form.session.next = self.ent.session_tx.val();
        self.form.tx_ready.next = self.tx_ready.val();
        self.form.port_idle.next = self.port_idle.val();
        self.tx_ram_form_0.read_address.next = self.form.ch.val();
        self.tx_ram_form_1.read_address.next = self.form.ch.val();
        self.res_ram_0.read_address.next = self.form.ch.val();
        self.res_ram_1.read_address.next = self.form.ch.val();
        self.tx_data.next = self.form.tx_data.val();
        self.tx_valid.next = self.form.tx_valid.val();
    }
}
