use super::check::{RecordCheck, ENTANGLE_FIELD_BITS};
use super::entangle::Entangle;
use super::Crc32c;
use crate::reset::SDFF;
use crate::stream::{Concat, SkidBuffer, StreamFifo, StreamSink, StreamSource, ZeroExtend};
use crate::types::{AcpMsg, AcpSend, RemoteResult, RemoteVerb};
use pendulum_layout::acp::{self, message, rx_state as rs, tx_state as ts};
use pendulum_layout::params::{
    ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB, ACP_MSG_FIFO_DEPTH_LOG2 as MF, ATOMIC_LINE_BITS,
};
use rust_hdl::prelude::*;

/// Width of a channel count, 0..=K.
const CB1: usize = CB + 1;

// The payload slices start at bit 64 (after slice 0).
// The receiver field and the decision check lie in the first payload slice.
const _: () = assert!(acp::RECEIVER_FIELD_OFFSET + 4 <= 8 && acp::DECISION_OFFSET + 4 <= 8);
const _: () = assert!(acp::PAYLOAD_OFFSET * 8 == 64);
const _: () = assert!(1 << CB == K, "ACP_CHANNELS must be 2^ACP_CHANNEL_BITS");
const _: () = assert!(
    K + 1 < 1 << MF,
    "the message FIFO must hold a commit from every channel"
);

/// The ACP link engine (`shared/ACP.md`, layout and move tables in
/// `pendulum_layout::acp`).
///
/// K token channels (the first `active` of them, agreed when entangling)
/// share the port's record slots in a fixed rotation: the record sent in slot
/// n states channel n mod active, both roles at once. A side changes a
/// channel's state only on hearing the peer's state, guarded by the
/// alternation bits, and acts on a decision or a confirmation only when its
/// check matches what it holds (`pendulum_layout::acp::TRANSITIONS_DOC`), so
/// lost, garbled, repeated or damaged records cost time and nothing else.
/// There is no timer. `RecordCheck` checks what arrives (a record of another
/// entanglement fails its check word), `Entangle` keeps the link state.
///
/// - Sender role: payloads from `s_send` are loaded into idle channels (one
///   56-byte buffer each, kept until the peer proves the delivery), offered,
///   committed or reversed on the peer's digest echo, and freed on the
///   peer's proof of delivery.
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
/// while channels are flushed) is not heard: the peer restates it (with two
/// channels or more its rotation never sends one channel twice in a row).
/// The record sent is formed one cycle ahead of the port. Event pulses
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

    // ---- Per channel ----
    /// Sender role: {bit, state}.
    tx_sb: [SDFF<Bits<4>>; K],
    /// Receiver role: {bit, state}.
    rx_sb: [SDFF<Bits<3>>; K],
    holding: [SDFF<Bit>; K],
    /// Sender role: the digest of the held payload, and the decision check
    /// it states while COMMIT or REVERSE.
    tx_digest: [SDFF<Bits<32>>; K],
    auth: [SDFF<Bits<32>>; K],
    /// Receiver role: the digest of the payload held tentatively; the echo
    /// check a decision on it must state; the proof of the last delivery.
    rx_digest: [SDFF<Bits<32>>; K],
    rx_x: [SDFF<Bits<32>>; K],
    proof: [SDFF<Bits<32>>; K],
    /// Receiver role: the peer's sender role was last heard at the other
    /// bit (it waits for our proof; we store no new offer meanwhile).
    proof_due: [SDFF<Bit>; K],
    /// Payload buffers in block RAM: what each channel sends (two copies,
    /// one read by record formation, one by the hand-back scanner) and what
    /// it holds tentatively.
    tx_ram_form: RAM<Bits<448>, CB>,
    tx_ram_ret: RAM<Bits<448>, CB>,
    rx_ram: RAM<Bits<448>, CB>,
    trans: [SDFF<Bits<8>>; K],
    ret_pending: [SDFF<Bit>; K],
    ret_doubt: [SDFF<Bit>; K],
    /// Sender role: the held payload is a verb. Receiver role: the tentative
    /// payload is a verb, and its result is in `res_ram`.
    tx_verb: [SDFF<Bit>; K],
    rx_verb: [SDFF<Bit>; K],
    res_ready: [SDFF<Bit>; K],
    res_ram: RAM<Bits<384>, CB>,
    /// The result of a tentative verb, for its echo check.
    res_crc: Crc32c<384>,
    res_digest: Signal<Local, Bits<32>>,
    /// Sender role: a verb's result from the proof of its delivery, to hand up.
    vres_ram: RAM<Bits<384>, CB>,
    vres_pending: [SDFF<Bit>; K],
    /// The channel whose result was written last cycle: the scanner's read
    /// of it that cycle saw the RAM from before the write.
    vres_wr_valid: SDFF<Bit>,
    vres_wr_ch: SDFF<Bits<CB>>,
    /// Likewise for `res_ram` and record formation's read of it.
    res_wr_valid: SDFF<Bit>,
    res_wr_ch: SDFF<Bits<CB>>,

    // ---- Rotation and hand-back ----
    rot_ch: SDFF<Bits<CB>>,
    rot_round: SDFF<Bit>,
    rot_last: Signal<Local, Bit>,
    rot_next: Signal<Local, Bits<CB>>,
    rot_ext: ZeroExtend<CB, CB1>,
    rot_count: Signal<Local, Bits<CB1>>,
    c_one_cb1: Constant<Bits<CB1>>,
    /// The first idle channel in use: where the next payload goes.
    load_sel: Signal<Local, Bits<CB>>,
    chan_id: [Constant<Bits<CB>>; K],
    chan_num: [Constant<Bits<CB1>>; K],
    ret_ptr: SDFF<Bits<CB>>,
    msg_used: SDFF<Bits<8>>,

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
    e_commit: Signal<Local, Bit>,
    e_deliver: Signal<Local, Bit>,
    e_reject: Signal<Local, Bit>,
    e_reverse: Signal<Local, Bit>,

    // ---- Receive, in the check cycle: the heard channel's state, read and compared ----
    s_tx: Signal<Local, Bits<4>>,
    s_rx: Signal<Local, Bits<3>>,
    s_holding: Signal<Local, Bit>,
    s_ret: Signal<Local, Bit>,
    s_digest: Signal<Local, Bits<32>>,
    s_rx_x: Signal<Local, Bits<32>>,
    s_proof_due: Signal<Local, Bit>,
    s_tx_verb: Signal<Local, Bit>,
    s_rx_verb: Signal<Local, Bit>,
    s_vres_pending: Signal<Local, Bit>,
    h_receiver_field: Signal<Local, Bits<32>>,
    h_decision: Signal<Local, Bits<32>>,
    /// The heard record's echo check: its receiver field XOR the CRC of its result.
    x_heard: Signal<Local, Bits<32>>,
    /// Read and compared in the check cycle: the channel's state, and the
    /// comparisons the decision needs.
    /// The record decided on while this one was checked changed the same channel.
    p_hazard: SDFF<Bit>,
    p_tx: SDFF<Bits<4>>,
    p_rx: SDFF<Bits<3>>,
    p_holding: SDFF<Bit>,
    p_ret: SDFF<Bit>,
    p_rx_x: SDFF<Bits<32>>,
    p_proof_due: SDFF<Bit>,
    p_tx_verb: SDFF<Bit>,
    p_rx_verb: SDFF<Bit>,
    p_vres_pending: SDFF<Bit>,
    p_verb_ok: SDFF<Bit>,
    /// The receiver field is the digest we hold; the echo check is.
    p_rf_is_digest: SDFF<Bit>,
    p_x_is_digest: SDFF<Bit>,
    /// The decision check states COMMIT, or REVERSE, of our echo.
    p_commit_ok: SDFF<Bit>,
    p_reverse_ok: SDFF<Bit>,
    /// A rollback started last cycle (`q_held` was read before it).
    rb_started: SDFF<Bit>,

    // ---- Receive, the decision: what the heard channel's state becomes ----
    applying: Signal<Local, Bit>,
    is_offer: Signal<Local, Bit>,
    h_verb: Signal<Local, Bit>,
    is_echo: Signal<Local, Bit>,
    is_state: Signal<Local, Bit>,
    /// The echo check of the record decided on (its receiver field XOR the CRC of its result).
    h_x: Signal<Local, Bits<32>>,
    new_proof_due: Signal<Local, Bit>,
    h_ts: Signal<Local, Bits<3>>,
    h_rs: Signal<Local, Bits<2>>,
    our_ts: Signal<Local, Bits<3>>,
    our_rs: Signal<Local, Bits<2>>,
    n_tx: Signal<Local, Bits<4>>,
    n_rx: Signal<Local, Bits<3>>,
    n_trans: Signal<Local, Bits<8>>,
    moved: Signal<Local, Bit>,
    set_auth: Signal<Local, Bit>,
    new_auth: Signal<Local, Bits<32>>,
    do_confirm: Signal<Local, Bit>,
    do_store: Signal<Local, Bit>,
    do_deliver: Signal<Local, Bit>,
    do_erase: Signal<Local, Bit>,
    do_exec: Signal<Local, Bit>,
    verb_ok: Signal<Local, Bit>,
    tb_match: Signal<Local, Bit>,
    rb_match: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    flush_any: Signal<Local, Bit>,

    // ---- Send ----
    send_dig: Crc32c<448>,
    load_ok: Signal<Local, Bit>,

    // ---- Hand-back scanner and message FIFO ----
    msg_fifo: StreamFifo<AcpMsg, MF, { MF + 1 }>,
    msg_out: SkidBuffer<AcpMsg>,
    ret_go: Signal<Local, Bit>,
    ret_buf: Signal<Local, Bits<448>>,
    ret_is_doubt: Signal<Local, Bit>,
    vres_go: Signal<Local, Bit>,
    vres448: ZeroExtend<384, 448>,
    ret_chan8: ZeroExtend<CB, 8>,
    h_chan8: ZeroExtend<CB, 8>,
    push: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,

    // ---- Record formation ----
    t_ch: Signal<Local, Bits<CB>>,
    t_tx: Signal<Local, Bits<4>>,
    t_rx: Signal<Local, Bits<3>>,
    t_trans: Signal<Local, Bits<8>>,
    t_buf: Signal<Local, Bits<448>>,
    t_rdig: Signal<Local, Bits<32>>,
    t_proof: Signal<Local, Bits<32>>,
    t_auth: Signal<Local, Bits<32>>,
    t_proof_due: Signal<Local, Bit>,
    t_offering: Signal<Local, Bit>,
    t_tentative: Signal<Local, Bit>,
    t_deciding: Signal<Local, Bit>,
    t_echo_ready: Signal<Local, Bit>,
    t_fields_turn: Signal<Local, Bit>,
    t_tx_verb: Signal<Local, Bit>,
    t_rx_verb: Signal<Local, Bit>,
    t_res_ready: Signal<Local, Bit>,
    t_res: Signal<Local, Bits<384>>,
    t_receiver_field: Signal<Local, Bits<32>>,
    t_decision: Signal<Local, Bits<32>>,
    fields_lo: Concat<32, 32, 64>,
    fields: Concat<384, 64, 448>,
    t_op: Signal<Local, Bits<8>>,
    t_payload: Signal<Local, Bits<448>>,
    t_head: Signal<Local, Bits<32>>,
    advance: Signal<Local, Bit>,
    state7: Concat<3, 4, 7>,
    state8: ZeroExtend<7, 8>,
    chan8: ZeroExtend<CB, 8>,
    head_hi: Concat<8, 8, 16>,
    head_lo: Concat<8, 8, 16>,
    head: Concat<16, 16, 32>,
    op_head: ZeroExtend<8, 32>,
    ent_first: ZeroExtend<ENTANGLE_FIELD_BITS, 256>,
    ent_both: Concat<ENTANGLE_FIELD_BITS, 256, 376>,
    ent448: ZeroExtend<376, 448>,
    o_body_payload: SDFF<Bits<448>>,
    o_body_head: SDFF<Bits<32>>,
    /// The record formed is an ENTANGLE record (its check word has no session term).
    o_is_entangle: SDFF<Bit>,
    /// A record has been formed (the port is silent only before the first).
    o_started: SDFF<Bit>,
    tx_cat: Concat<448, 32, 480>,
    tx_check: Crc32c<480>,
    o_term: Signal<Local, Bits<32>>,
    o_check_head: Concat<32, 32, 64>,
    o_record: Concat<448, 64, 512>,

    // ---- Constants ----
    at_receiver_field: Constant<Bits<9>>,
    /// The same two, in the first payload slice (`RecordCheck::peek_slice1`).
    at_receiver_field_s1: Constant<Bits<6>>,
    at_decision_s1: Constant<Bits<6>>,
    at_result: Constant<Bits<9>>,
    c_tx_idle: Constant<Bits<3>>,
    c_tx_offer: Constant<Bits<3>>,
    c_tx_commit: Constant<Bits<3>>,
    c_tx_reverse: Constant<Bits<3>>,
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
    c_zero4: Constant<Bits<4>>,
    c_zero3: Constant<Bits<3>>,
    c_op_state: Constant<Bits<8>>,
    c_op_offer: Constant<Bits<8>>,
    c_op_echo: Constant<Bits<8>>,
    c_op_offer_verb: Constant<Bits<8>>,
    c_op_entangle: Constant<Bits<8>>,
    c_kind_verb_result: Constant<Bits<8>>,
    c_kind_delivered: Constant<Bits<8>>,
    c_kind_not_delivered: Constant<Bits<8>>,
    c_kind_in_doubt: Constant<Bits<8>>,
    c_zero384: Constant<Bits<384>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_zero_cb: Constant<Bits<CB>>,
    c_one_cb: Constant<Bits<CB>>,
    c_zero32: Constant<Bits<32>>,
    /// CRC-32C of a message's result bytes (48 zero bytes).
    c_crc_no_result: Constant<Bits<32>>,
    c_room_max: Constant<Bits<8>>,
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
}

/// The transition byte: reverse flag, role (1 = receiver), from, to.
fn trans(reverse: bool, receiver: bool, from: u8, to: u8) -> Constant<Bits<8>> {
    let v = (reverse as u64) << 7 | (receiver as u64) << 6 | (from as u64) << 3 | to as u64;
    Constant::new(v.into())
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
            release: Default::default(),
            rollback: Default::default(),
            check: RecordCheck::new(),
            ent: Entangle::new(),
            tx_sb: std::array::from_fn(|_| Default::default()),
            rx_sb: std::array::from_fn(|_| Default::default()),
            holding: std::array::from_fn(|_| Default::default()),
            tx_digest: std::array::from_fn(|_| Default::default()),
            auth: std::array::from_fn(|_| Default::default()),
            rx_digest: std::array::from_fn(|_| Default::default()),
            rx_x: std::array::from_fn(|_| Default::default()),
            proof: std::array::from_fn(|_| Default::default()),
            proof_due: std::array::from_fn(|_| Default::default()),
            tx_ram_form: Default::default(),
            tx_ram_ret: Default::default(),
            rx_ram: Default::default(),
            trans: std::array::from_fn(|_| Default::default()),
            ret_pending: std::array::from_fn(|_| Default::default()),
            ret_doubt: std::array::from_fn(|_| Default::default()),
            tx_verb: std::array::from_fn(|_| Default::default()),
            rx_verb: std::array::from_fn(|_| Default::default()),
            res_ready: std::array::from_fn(|_| Default::default()),
            res_ram: Default::default(),
            res_crc: Default::default(),
            res_digest: Default::default(),
            vres_ram: Default::default(),
            vres_pending: std::array::from_fn(|_| Default::default()),
            vres_wr_valid: Default::default(),
            vres_wr_ch: Default::default(),
            res_wr_valid: Default::default(),
            res_wr_ch: Default::default(),
            rot_ch: Default::default(),
            rot_round: Default::default(),
            rot_last: Default::default(),
            rot_next: Default::default(),
            rot_ext: Default::default(),
            rot_count: Default::default(),
            c_one_cb1: c(1),
            load_sel: Default::default(),
            chan_id: std::array::from_fn(|i| c(i as u64)),
            chan_num: std::array::from_fn(|i| c(i as u64)),
            ret_ptr: Default::default(),
            msg_used: Default::default(),
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
            e_commit: Default::default(),
            e_deliver: Default::default(),
            e_reject: Default::default(),
            e_reverse: Default::default(),
            p_hazard: Default::default(),
            p_tx: Default::default(),
            p_rx: Default::default(),
            p_holding: Default::default(),
            p_ret: Default::default(),
            p_rx_x: Default::default(),
            p_proof_due: Default::default(),
            p_tx_verb: Default::default(),
            p_rx_verb: Default::default(),
            p_vres_pending: Default::default(),
            p_verb_ok: Default::default(),
            p_rf_is_digest: Default::default(),
            p_x_is_digest: Default::default(),
            p_commit_ok: Default::default(),
            p_reverse_ok: Default::default(),
            rb_started: Default::default(),
            applying: Default::default(),
            is_offer: Default::default(),
            h_verb: Default::default(),
            is_echo: Default::default(),
            is_state: Default::default(),
            h_x: Default::default(),
            new_proof_due: Default::default(),
            s_tx: Default::default(),
            s_rx: Default::default(),
            s_holding: Default::default(),
            s_ret: Default::default(),
            s_digest: Default::default(),
            s_rx_x: Default::default(),
            s_proof_due: Default::default(),
            s_tx_verb: Default::default(),
            s_rx_verb: Default::default(),
            s_vres_pending: Default::default(),
            h_ts: Default::default(),
            h_rs: Default::default(),
            our_ts: Default::default(),
            our_rs: Default::default(),
            h_receiver_field: Default::default(),
            h_decision: Default::default(),
            x_heard: Default::default(),
            n_tx: Default::default(),
            n_rx: Default::default(),
            n_trans: Default::default(),
            moved: Default::default(),
            set_auth: Default::default(),
            new_auth: Default::default(),
            do_confirm: Default::default(),
            do_store: Default::default(),
            do_deliver: Default::default(),
            do_erase: Default::default(),
            do_exec: Default::default(),
            verb_ok: Default::default(),
            tb_match: Default::default(),
            rb_match: Default::default(),
            room: Default::default(),
            flush_any: Default::default(),
            send_dig: Default::default(),
            load_ok: Default::default(),
            msg_fifo: StreamFifo::new(),
            msg_out: Default::default(),
            ret_go: Default::default(),
            ret_buf: Default::default(),
            ret_is_doubt: Default::default(),
            vres_go: Default::default(),
            vres448: Default::default(),
            ret_chan8: Default::default(),
            h_chan8: Default::default(),
            push: Default::default(),
            push_ok: Default::default(),
            pop: Default::default(),
            t_ch: Default::default(),
            t_tx: Default::default(),
            t_rx: Default::default(),
            t_trans: Default::default(),
            t_buf: Default::default(),
            t_rdig: Default::default(),
            t_proof: Default::default(),
            t_auth: Default::default(),
            t_proof_due: Default::default(),
            t_offering: Default::default(),
            t_tentative: Default::default(),
            t_deciding: Default::default(),
            t_echo_ready: Default::default(),
            t_fields_turn: Default::default(),
            t_tx_verb: Default::default(),
            t_rx_verb: Default::default(),
            t_res_ready: Default::default(),
            t_res: Default::default(),
            t_receiver_field: Default::default(),
            t_decision: Default::default(),
            fields_lo: Default::default(),
            fields: Default::default(),
            t_op: Default::default(),
            t_payload: Default::default(),
            t_head: Default::default(),
            advance: Default::default(),
            state7: Default::default(),
            state8: Default::default(),
            chan8: Default::default(),
            head_hi: Default::default(),
            head_lo: Default::default(),
            head: Default::default(),
            op_head: Default::default(),
            ent_first: Default::default(),
            ent_both: Default::default(),
            ent448: Default::default(),
            o_body_payload: Default::default(),
            o_body_head: Default::default(),
            o_is_entangle: Default::default(),
            o_started: Default::default(),
            tx_cat: Default::default(),
            tx_check: Default::default(),
            o_term: Default::default(),
            o_check_head: Default::default(),
            o_record: Default::default(),
            at_receiver_field: c((8 * acp::RECEIVER_FIELD_OFFSET) as u64),
            at_receiver_field_s1: c((8 * acp::RECEIVER_FIELD_OFFSET) as u64),
            at_decision_s1: c((8 * acp::DECISION_OFFSET) as u64),
            at_result: c((8 * acp::ECHO_RESULT_OFFSET) as u64),
            c_tx_idle: c(ts::IDLE as u64),
            c_tx_offer: c(ts::OFFER as u64),
            c_tx_commit: c(ts::COMMIT as u64),
            c_tx_reverse: c(ts::REVERSE as u64),
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
            c_zero4: c(0),
            c_zero3: c(0),
            c_op_state: c(acp::OP_STATE as u64),
            c_op_offer: c(acp::OP_OFFER as u64),
            c_op_echo: c(acp::OP_ECHO as u64),
            c_op_offer_verb: c(acp::OP_OFFER_VERB as u64),
            c_op_entangle: c(acp::OP_ENTANGLE as u64),
            c_kind_verb_result: c(message::KIND_VERB_RESULT as u64),
            c_kind_delivered: c(message::KIND_DELIVERED as u64),
            c_kind_not_delivered: c(message::KIND_NOT_DELIVERED as u64),
            c_kind_in_doubt: c(message::KIND_IN_DOUBT as u64),
            c_zero384: c(0),
            c_zero8: c(0),
            c_one8: c(1),
            c_zero_cb: c(0),
            c_one_cb: c(1),
            c_zero32: c(0),
            c_crc_no_result: c(acp::crc32c(&[0; acp::ECHO_RESULT_BYTES]) as u64),
            // A store needs room for a commit from every channel: used + K <= depth.
            c_room_max: c(((1 << MF) - K) as u64),
            c_t_offer: trans(false, false, ts::IDLE, ts::OFFER),
            c_t_commit: trans(false, false, ts::OFFER, ts::COMMIT),
            c_t_reverse: trans(true, false, ts::OFFER, ts::REVERSE),
            c_t_stray: trans(true, false, ts::IDLE, ts::REVERSE),
            c_t_rejected: trans(false, false, ts::OFFER, ts::IDLE),
            c_t_confirmed: trans(false, false, ts::COMMIT, ts::IDLE),
            c_t_reoffer: trans(true, false, ts::REVERSE, ts::IDLE),
            c_t_store: trans(false, true, rs::EXPECT, rs::TENTATIVE),
            c_t_reject: trans(false, true, rs::EXPECT, rs::REJECT),
            c_t_deliver: trans(false, true, rs::TENTATIVE, rs::EXPECT),
            c_t_erase: trans(true, true, rs::TENTATIVE, rs::EXPECT),
            c_t_unreject: trans(false, true, rs::REJECT, rs::EXPECT),
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
            rot_ch,
            rot_round,
            ret_ptr,
            msg_used,
            o_body_payload,
            o_body_head,
            o_is_entangle,
            o_started,
            vres_wr_valid,
            vres_wr_ch,
            res_wr_valid,
            res_wr_ch,
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
            p_tx,
            p_rx,
            p_holding,
            p_ret,
            p_rx_x,
            p_proof_due,
            p_tx_verb,
            p_rx_verb,
            p_vres_pending,
            p_verb_ok,
            p_rf_is_digest,
            p_x_is_digest,
            p_commit_ok,
            p_reverse_ok,
            rb_started
        );
        self.rot_ch.reset.next = self.reset.val();
        self.rot_round.reset.next = self.reset.val();
        self.ret_ptr.reset.next = self.reset.val();
        self.msg_used.reset.next = self.reset.val();
        self.o_body_payload.reset.next = self.reset.val();
        self.o_body_head.reset.next = self.reset.val();
        self.o_is_entangle.reset.next = self.reset.val();
        self.o_started.reset.next = self.reset.val();
        self.vres_wr_valid.reset.next = self.reset.val();
        self.vres_wr_ch.reset.next = self.reset.val();
        self.res_wr_valid.reset.next = self.reset.val();
        self.res_wr_ch.reset.next = self.reset.val();
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
        self.p_tx.reset.next = self.reset.val();
        self.p_rx.reset.next = self.reset.val();
        self.p_holding.reset.next = self.reset.val();
        self.p_ret.reset.next = self.reset.val();
        self.p_rx_x.reset.next = self.reset.val();
        self.p_proof_due.reset.next = self.reset.val();
        self.p_tx_verb.reset.next = self.reset.val();
        self.p_rx_verb.reset.next = self.reset.val();
        self.p_vres_pending.reset.next = self.reset.val();
        self.p_verb_ok.reset.next = self.reset.val();
        self.p_rf_is_digest.reset.next = self.reset.val();
        self.p_x_is_digest.reset.next = self.reset.val();
        self.p_commit_ok.reset.next = self.reset.val();
        self.p_reverse_ok.reset.next = self.reset.val();
        self.rb_started.reset.next = self.reset.val();
        self.check.clock.next = self.clock.val();
        self.check.reset.next = self.reset.val();
        self.ent.clock.next = self.clock.val();
        self.ent.reset.next = self.reset.val();
        self.msg_fifo.clock.next = self.clock.val();
        self.msg_fifo.reset.next = self.reset.val();
        self.msg_out.clock.next = self.clock.val();
        self.msg_out.reset.next = self.reset.val();
        self.tx_ram_form.read_clock.next = self.clock.val();
        self.tx_ram_form.write_clock.next = self.clock.val();
        self.tx_ram_ret.read_clock.next = self.clock.val();
        self.tx_ram_ret.write_clock.next = self.clock.val();
        self.rx_ram.read_clock.next = self.clock.val();
        self.rx_ram.write_clock.next = self.clock.val();
        self.res_ram.read_clock.next = self.clock.val();
        self.res_ram.write_clock.next = self.clock.val();
        self.vres_ram.read_clock.next = self.clock.val();
        self.vres_ram.write_clock.next = self.clock.val();
        for i in 0..K {
            self.tx_sb[i].clock.next = self.clock.val();
            self.tx_sb[i].reset.next = self.reset.val();
            self.rx_sb[i].clock.next = self.clock.val();
            self.rx_sb[i].reset.next = self.reset.val();
            self.holding[i].clock.next = self.clock.val();
            self.holding[i].reset.next = self.reset.val();
            self.tx_digest[i].clock.next = self.clock.val();
            self.tx_digest[i].reset.next = self.reset.val();
            self.auth[i].clock.next = self.clock.val();
            self.auth[i].reset.next = self.reset.val();
            self.rx_digest[i].clock.next = self.clock.val();
            self.rx_digest[i].reset.next = self.reset.val();
            self.rx_x[i].clock.next = self.clock.val();
            self.rx_x[i].reset.next = self.reset.val();
            self.proof[i].clock.next = self.clock.val();
            self.proof[i].reset.next = self.reset.val();
            self.proof_due[i].clock.next = self.clock.val();
            self.proof_due[i].reset.next = self.reset.val();
            self.trans[i].clock.next = self.clock.val();
            self.trans[i].reset.next = self.reset.val();
            self.ret_pending[i].clock.next = self.clock.val();
            self.ret_pending[i].reset.next = self.reset.val();
            self.ret_doubt[i].clock.next = self.clock.val();
            self.ret_doubt[i].reset.next = self.reset.val();
            self.tx_verb[i].clock.next = self.clock.val();
            self.tx_verb[i].reset.next = self.reset.val();
            self.rx_verb[i].clock.next = self.clock.val();
            self.rx_verb[i].reset.next = self.reset.val();
            self.res_ready[i].clock.next = self.clock.val();
            self.res_ready[i].reset.next = self.reset.val();
            self.vres_pending[i].clock.next = self.clock.val();
            self.vres_pending[i].reset.next = self.reset.val();
            self.tx_sb[i].d.next = self.tx_sb[i].q.val();
            self.rx_sb[i].d.next = self.rx_sb[i].q.val();
            self.holding[i].d.next = self.holding[i].q.val();
            self.tx_digest[i].d.next = self.tx_digest[i].q.val();
            self.auth[i].d.next = self.auth[i].q.val();
            self.rx_digest[i].d.next = self.rx_digest[i].q.val();
            self.rx_x[i].d.next = self.rx_x[i].q.val();
            self.proof[i].d.next = self.proof[i].q.val();
            self.proof_due[i].d.next = self.proof_due[i].q.val();
            self.trans[i].d.next = self.trans[i].q.val();
            self.ret_pending[i].d.next = self.ret_pending[i].q.val();
            self.ret_doubt[i].d.next = self.ret_doubt[i].q.val();
            self.tx_verb[i].d.next = self.tx_verb[i].q.val();
            self.rx_verb[i].d.next = self.rx_verb[i].q.val();
            self.res_ready[i].d.next = self.res_ready[i].q.val();
            self.vres_pending[i].d.next = self.vres_pending[i].q.val();
            self.release[i].next = false;
            self.rollback[i].next = false;
        }
        self.ev_return_r.d.next = false;

        // ---- Receive, stage 1 (RecordCheck) and the link state (Entangle) ----
        self.check.rx_data.next = self.rx_data.val();
        self.check.rx_valid.next = self.rx_valid.val();
        self.check.session.next = self.ent.session_rx.val();
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
        self.s_tx.next = self.tx_sb[0].q.val();
        self.s_rx.next = self.rx_sb[0].q.val();
        self.s_holding.next = self.holding[0].q.val();
        self.s_ret.next = self.ret_pending[0].q.val();
        self.s_digest.next = self.tx_digest[0].q.val();
        self.s_rx_x.next = self.rx_x[0].q.val();
        self.s_proof_due.next = self.proof_due[0].q.val();
        self.s_tx_verb.next = self.tx_verb[0].q.val();
        self.s_rx_verb.next = self.rx_verb[0].q.val();
        self.s_vres_pending.next = self.vres_pending[0].q.val();
        for i in 0..K {
            if self.check.peek_channel.val().index() == i {
                self.s_tx.next = self.tx_sb[i].q.val();
                self.s_rx.next = self.rx_sb[i].q.val();
                self.s_holding.next = self.holding[i].q.val();
                self.s_ret.next = self.ret_pending[i].q.val();
                self.s_digest.next = self.tx_digest[i].q.val();
                self.s_rx_x.next = self.rx_x[i].q.val();
                self.s_proof_due.next = self.proof_due[i].q.val();
                self.s_tx_verb.next = self.tx_verb[i].q.val();
                self.s_rx_verb.next = self.rx_verb[i].q.val();
                self.s_vres_pending.next = self.vres_pending[i].q.val();
            }
        }
        // The heard channel's tentative payload, ready with the decision.
        self.rx_ram.read_address.next = self.check.peek_channel.val();
        self.p_tx.d.next = self.s_tx.val();
        self.p_rx.d.next = self.s_rx.val();
        self.p_holding.d.next = self.s_holding.val();
        self.p_ret.d.next = self.s_ret.val();
        self.p_rx_x.d.next = self.s_rx_x.val();
        self.p_proof_due.d.next = self.s_proof_due.val();
        self.p_tx_verb.d.next = self.s_tx_verb.val();
        self.p_rx_verb.d.next = self.s_rx_verb.val();
        self.p_vres_pending.d.next = self.s_vres_pending.val();
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
        self.p_rf_is_digest.d.next = self.h_receiver_field.val() == self.s_digest.val();
        self.p_x_is_digest.d.next = self.x_heard.val() == self.s_digest.val();
        self.p_commit_ok.d.next = self.h_decision.val() == self.s_rx_x.val();
        self.p_reverse_ok.d.next = self.h_decision.val() == !self.s_rx_x.val();

        // ---- Receive, the next cycle: decide and act, from registers ----
        // Moves apply to a channel record heard while Up, not in a reset cycle.
        self.applying.next = self.check.valid.val()
            & (self.check.op.val() != self.c_op_entangle.val())
            & self.ent.up.val()
            & !self.reset_link.val()
            & !self.p_hazard.q.val();
        self.is_offer.next = self.check.op.val() == self.c_op_offer.val();
        self.h_verb.next = self.check.op.val() == self.c_op_offer_verb.val();
        self.is_echo.next = self.check.op.val() == self.c_op_echo.val();
        self.is_state.next = self.check.op.val() == self.c_op_state.val();
        self.h_x.next = self
            .check
            .payload
            .val()
            .get_bits::<32>(self.at_receiver_field.val().index())
            ^ self.check.result_crc.val();
        self.h_ts.next = self.check.tx.val().get_bits::<3>(0);
        self.h_rs.next = self.check.rx.val().get_bits::<2>(0);
        self.our_ts.next = self.p_tx.q.val().get_bits::<3>(0);
        self.our_rs.next = self.p_rx.q.val().get_bits::<2>(0);
        // The peer's receiver bit against our sender bit, and the reverse.
        self.tb_match.next = self.check.rx.val().get_bit(2) == self.p_tx.q.val().get_bit(3);
        self.rb_match.next = self.check.tx.val().get_bit(3) == self.p_rx.q.val().get_bit(2);
        self.room.next = self.msg_used.q.val() <= self.c_room_max.val();
        self.verb_ok.next =
            self.p_verb_ok.q.val() & self.verb_free.val() & !self.rb_started.q.val();

        // Sender role, on the peer's receiver state (pendulum_layout::acp::TRANSITIONS_DOC).
        self.n_tx.next = self.p_tx.q.val();
        self.n_trans.next = self.c_zero8.val();
        self.moved.next = false;
        self.set_auth.next = false;
        self.new_auth.next = self.h_x.val();
        self.do_confirm.next = false;
        self.e_commit.next = false;
        self.e_reverse.next = false;
        self.e_reject.next = false;
        if self.our_ts.val() == self.c_tx_idle.val() {
            if self.tb_match.val()
                & self.p_holding.q.val()
                & !self.p_ret.q.val()
                & ((self.h_rs.val() == self.c_rx_expect.val())
                    | (self.h_rs.val() == self.c_rx_tentative.val()))
            {
                // (TENTATIVE: the REJECT we heard was damaged; offer again and decide.)
                self.n_tx.next = (self.p_tx.q.val() & self.c_bit4.val()) | self.c_offer4.val();
                self.n_trans.next = self.c_t_offer.val();
                self.moved.next = true;
            } else if self.tb_match.val()
                & !self.p_holding.q.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.is_echo.val()
            {
                // It holds what we never offered (a damaged record stored it): have it erased.
                self.n_tx.next = (self.p_tx.q.val() & self.c_bit4.val()) | self.c_reverse4.val();
                self.n_trans.next = self.c_t_stray.val();
                self.set_auth.next = true;
                self.new_auth.next = !self.h_x.val();
                self.e_reverse.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_offer.val() {
            if self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.is_echo.val()
            {
                // The decision: the commit point of the transfer.
                self.set_auth.next = true;
                if self.p_rf_is_digest.q.val() {
                    self.n_tx.next = (self.p_tx.q.val() & self.c_bit4.val()) | self.c_commit4.val();
                    self.n_trans.next = self.c_t_commit.val();
                    self.e_commit.next = true;
                } else {
                    self.n_tx.next =
                        (self.p_tx.q.val() & self.c_bit4.val()) | self.c_reverse4.val();
                    self.n_trans.next = self.c_t_reverse.val();
                    self.new_auth.next = !self.h_x.val();
                    self.e_reverse.next = true;
                }
                self.moved.next = true;
            } else if self.tb_match.val() & (self.h_rs.val() == self.c_rx_reject.val()) {
                self.n_tx.next = self.p_tx.q.val() & self.c_bit4.val();
                self.n_trans.next = self.c_t_rejected.val();
                self.e_reject.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_commit.val() {
            if self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.is_echo.val()
                & self.p_rf_is_digest.q.val()
            {
                // The check of the newest echo (the one we decided on may
                // have reached us with its result damaged).
                self.set_auth.next = true;
            } else if !self.tb_match.val()
                & self.is_state.val()
                & (self.h_rs.val() != self.c_rx_tentative.val())
                & self.p_x_is_digest.q.val()
                & !self.p_vres_pending.q.val()
            {
                // The proof of delivery: the peer delivered what we offered,
                // with the result this record carries. (Taken only once the
                // channel's last result is handed up: the peer restates it.)
                self.n_tx.next = (self.p_tx.q.val() & self.c_bit4.val()) ^ self.c_bit4.val();
                self.n_trans.next = self.c_t_confirmed.val();
                self.do_confirm.next = true;
                self.moved.next = true;
            }
        } else if self.our_ts.val() == self.c_tx_reverse.val() {
            if self.tb_match.val() & (self.h_rs.val() != self.c_rx_tentative.val()) {
                // Erased at the peer (or never stored): hold it and offer it again.
                self.n_tx.next = self.p_tx.q.val() & self.c_bit4.val();
                self.n_trans.next = self.c_t_reoffer.val();
                self.moved.next = true;
            } else if self.tb_match.val()
                & (self.h_rs.val() == self.c_rx_tentative.val())
                & self.is_echo.val()
            {
                self.set_auth.next = true;
                self.new_auth.next = !self.h_x.val();
            }
        }

        // Receiver role, on the peer's sender state and decision check.
        self.n_rx.next = self.p_rx.q.val();
        self.do_store.next = false;
        self.do_deliver.next = false;
        self.do_erase.next = false;
        self.do_exec.next = false;
        if self.rb_match.val() {
            if self.our_rs.val() == self.c_rx_expect.val() {
                // An offer is stored only once the sender was heard at our
                // bit before: right after a delivery it is behind (waiting for
                // our proof), so a damaged record cannot make us store then.
                if (self.h_ts.val() == self.c_tx_offer.val())
                    & (self.is_offer.val() | self.h_verb.val())
                    & !self.p_proof_due.q.val()
                {
                    // A verb also needs the atomic unit free and its line not held.
                    if self.room.val() & (!self.h_verb.val() | self.verb_ok.val()) {
                        self.n_rx.next =
                            (self.p_rx.q.val() & self.c_bit3.val()) | self.c_tent3.val();
                        self.n_trans.next = self.c_t_store.val();
                        self.do_store.next = true;
                        self.do_exec.next = self.h_verb.val();
                    } else {
                        self.n_rx.next =
                            (self.p_rx.q.val() & self.c_bit3.val()) | self.c_reject3.val();
                        self.n_trans.next = self.c_t_reject.val();
                    }
                    self.moved.next = true;
                }
            } else if self.our_rs.val() == self.c_rx_tentative.val() {
                if (self.h_ts.val() == self.c_tx_commit.val())
                    & (self.is_state.val() | self.is_echo.val())
                    & self.p_commit_ok.q.val()
                {
                    self.n_rx.next = (self.p_rx.q.val() & self.c_bit3.val()) ^ self.c_bit3.val();
                    self.n_trans.next = self.c_t_deliver.val();
                    self.do_deliver.next = true;
                    self.moved.next = true;
                } else if (self.h_ts.val() == self.c_tx_reverse.val())
                    & (self.is_state.val() | self.is_echo.val())
                    & self.p_reverse_ok.q.val()
                {
                    self.n_rx.next = self.p_rx.q.val() & self.c_bit3.val();
                    self.n_trans.next = self.c_t_erase.val();
                    self.do_erase.next = true;
                    self.moved.next = true;
                }
            } else if self.h_ts.val() == self.c_tx_idle.val() {
                self.n_rx.next = self.p_rx.q.val() & self.c_bit3.val();
                self.n_trans.next = self.c_t_unreject.val();
                self.moved.next = true;
            }
        }

        // A tentative verb's result, back from our unit. It is ready to echo
        // at once; its echo check (the result's CRC) is taken a cycle later,
        // from registers: a decision on the echo comes a round trip after it.
        self.res_ram.write_enable.next = self.res_valid.val();
        self.res_wr_valid.d.next = self.res_valid.val();
        self.res_wr_ch.d.next = self.res.val().channel;
        self.res_ram.write_address.next = self.res.val().channel;
        self.res_ram.write_data.next = self.res.val().result;
        self.res_got.d.next = self.res_valid.val();
        self.res_got_ch.d.next = self.res.val().channel;
        self.res_got_result.d.next = self.res.val().result;
        for i in 0..K {
            if self.res_valid.val() & (self.res.val().channel.index() == i) {
                self.res_ready[i].d.next = true;
            }
        }
        self.res_crc.data.next = self.res_got_result.q.val();
        self.res_digest.next = self.rx_digest[0].q.val();
        for i in 0..K {
            if self.res_got_ch.q.val().index() == i {
                self.res_digest.next = self.rx_digest[i].q.val();
            }
        }
        for i in 0..K {
            if self.res_got.q.val() & (self.res_got_ch.q.val().index() == i) {
                self.rx_x[i].d.next = self.res_digest.val() ^ self.res_crc.crc.val();
            }
        }

        // Apply the heard channel's moves.
        self.new_proof_due.next = self.check.tx.val().get_bit(3) != self.n_rx.val().get_bit(2);
        self.push.next = false;
        self.verb_valid.next = false;
        self.verb.next.payload = self.check.payload.val();
        self.verb.next.channel = self.check.channel.val();
        // The result the proof of delivery of a verb of ours carries.
        self.vres_ram.write_enable.next = false;
        self.vres_wr_valid.d.next = false;
        self.vres_wr_ch.d.next = self.check.channel.val();
        self.vres_ram.write_address.next = self.check.channel.val();
        self.vres_ram.write_data.next = self
            .check
            .payload
            .val()
            .get_bits::<384>(self.at_result.val().index());
        self.rx_ram.write_enable.next = false;
        self.rx_ram.write_address.next = self.check.channel.val();
        self.rx_ram.write_data.next = self.check.payload.val();
        self.msg_fifo.s.data.next.kind = self.c_kind_delivered.val();
        self.h_chan8.i.next = self.check.channel.val();
        self.msg_fifo.s.data.next.channel = self.h_chan8.o.val();
        self.msg_fifo.s.data.next.payload = self.rx_ram.read_data.val();
        self.e_deliver.next = false;
        self.rb_started.d.next = false;
        if self.applying.val() {
            for i in 0..K {
                if self.check.channel.val().index() == i {
                    self.tx_sb[i].d.next = self.n_tx.val();
                    self.rx_sb[i].d.next = self.n_rx.val();
                    if self.moved.val() {
                        self.trans[i].d.next = self.n_trans.val();
                    }
                    if self.set_auth.val() {
                        self.auth[i].d.next = self.new_auth.val();
                    }
                    if self.do_confirm.val() {
                        self.holding[i].d.next = false;
                        if self.p_tx_verb.q.val() {
                            self.vres_pending[i].d.next = true;
                        }
                    }
                    if self.do_store.val() {
                        self.rx_digest[i].d.next = self.check.digest.val();
                        self.rx_verb[i].d.next = self.h_verb.val();
                        self.res_ready[i].d.next = false;
                        // A message's echo check; a verb's follows its result.
                        self.rx_x[i].d.next = self.check.digest.val() ^ self.c_crc_no_result.val();
                    }
                    if self.do_deliver.val() {
                        self.proof[i].d.next = self.p_rx_x.q.val();
                    }
                    // Behind us: the sender waits for our proof.
                    self.proof_due[i].d.next = self.new_proof_due.val();
                    // A tentative verb is made permanent, or undone.
                    self.release[i].next = self.do_deliver.val() & self.p_rx_verb.q.val();
                    self.rollback[i].next = self.do_erase.val() & self.p_rx_verb.q.val();
                }
            }
            self.rb_started.d.next = self.do_erase.val() & self.p_rx_verb.q.val();
            if self.do_deliver.val() & !self.p_rx_verb.q.val() {
                self.push.next = true;
                self.e_deliver.next = true;
            }
            self.verb_valid.next = self.do_exec.val();
            self.vres_ram.write_enable.next = self.do_confirm.val() & self.p_tx_verb.q.val();
            self.vres_wr_valid.d.next = self.do_confirm.val() & self.p_tx_verb.q.val();
            // A commit for this channel comes at least a link round trip
            // after the store, so the RAM's read-before-write never matters.
            self.rx_ram.write_enable.next = self.do_store.val();
        }
        // The record decided on changes the same channel: what was read
        // for the record being checked is stale, so this one is not heard (it is restated).
        // So is every record read while channels are flushed (going Up, or
        // our reset).
        self.p_hazard.d.next = (self.applying.val()
            & (self.moved.val() | (self.new_proof_due.val() != self.p_proof_due.q.val()))
            & (self.check.channel.val() == self.check.peek_channel.val()))
            | self.ent.go_up.val()
            | self.ent.flush_local.val();
        self.ev_commit_r.d.next = self.applying.val() & self.e_commit.val();
        self.ev_reverse_r.d.next = self.applying.val() & self.e_reverse.val();
        self.ev_reject_r.d.next = self.applying.val() & self.e_reject.val();
        self.ev_deliver_r.d.next = self.e_deliver.val();

        // ---- Hand-back scanner: one channel a cycle, when no delivery needs the FIFO ----
        // The RAM read is registered: address the channel scanned next cycle.
        // It also hands up the results of our verbs whose delivery was proven.
        self.tx_ram_ret.read_address.next = self.ret_ptr.q.val() + self.c_one_cb.val();
        self.vres_ram.read_address.next = self.ret_ptr.q.val() + self.c_one_cb.val();
        self.ret_buf.next = self.tx_ram_ret.read_data.val();
        self.vres448.i.next = self.vres_ram.read_data.val();
        self.ret_is_doubt.next = self.ret_doubt[0].q.val();
        self.ret_go.next = false;
        self.vres_go.next = false;
        for i in 0..K {
            if self.ret_ptr.q.val().index() == i {
                self.ret_is_doubt.next = self.ret_doubt[i].q.val();
                self.ret_go.next = self.ret_pending[i].q.val();
                self.vres_go.next = self.vres_pending[i].q.val()
                    & !(self.vres_wr_valid.q.val()
                        & (self.vres_wr_ch.q.val() == self.ret_ptr.q.val()));
            }
        }
        self.ret_chan8.i.next = self.ret_ptr.q.val();
        self.ret_ptr.d.next = self.ret_ptr.q.val() + self.c_one_cb.val();
        if self.vres_go.val() & !self.push.val() & (self.msg_used.q.val() < self.c_room_max.val()) {
            self.push.next = true;
            self.msg_fifo.s.data.next.channel = self.ret_chan8.o.val();
            self.msg_fifo.s.data.next.payload = self.vres448.o.val();
            self.msg_fifo.s.data.next.kind = self.c_kind_verb_result.val();
            for i in 0..K {
                if self.ret_ptr.q.val().index() == i {
                    self.vres_pending[i].d.next = false;
                }
            }
        } else if self.ret_go.val()
            & !self.push.val()
            & (self.msg_used.q.val() < self.c_room_max.val())
        {
            self.push.next = true;
            self.ev_return_r.d.next = true;
            self.msg_fifo.s.data.next.channel = self.ret_chan8.o.val();
            self.msg_fifo.s.data.next.payload = self.ret_buf.val();
            self.msg_fifo.s.data.next.kind = self.c_kind_not_delivered.val();
            if self.ret_is_doubt.val() {
                self.msg_fifo.s.data.next.kind = self.c_kind_in_doubt.val();
            }
            for i in 0..K {
                if self.ret_ptr.q.val().index() == i {
                    self.ret_pending[i].d.next = false;
                    self.holding[i].d.next = false;
                }
            }
        }
        self.msg_fifo.s.valid.next = self.push.val();
        // Out through a skid buffer: `m_msg.ready` (the host side's
        // arbitration) reaches only registers.
        self.msg_out.s.data.next = self.msg_fifo.m.data.val();
        self.msg_out.s.valid.next = self.msg_fifo.m.valid.val();
        self.msg_fifo.m.ready.next = self.msg_out.s.ready.val();
        self.m_msg.data.next = self.msg_out.m.data.val();
        self.m_msg.valid.next = self.msg_out.m.valid.val();
        self.msg_out.m.ready.next = self.m_msg.ready.val();
        self.pop.next = self.msg_fifo.m.valid.val() & self.msg_out.s.ready.val();
        // `push` never meets a full FIFO (a store reserves room for every
        // channel's commit); counting by the handshake keeps `msg_used` exact regardless.
        self.push_ok.next = self.push.val() & self.msg_fifo.s.ready.val();
        if self.push_ok.val() & !self.pop.val() {
            self.msg_used.d.next = self.msg_used.q.val() + self.c_one8.val();
        }
        if self.pop.val() & !self.push_ok.val() {
            self.msg_used.d.next = self.msg_used.q.val() - self.c_one8.val();
        }

        // ---- Flushes: channel states the peer no longer shares ----
        // Our reset, a peer that lost its state, and (on going up) the
        // channels past the count agreed.
        self.flush_any.next = self.ent.flush_local.val() | self.ent.flush_peer.val();
        for i in 0..K {
            if self.flush_any.val()
                | (self.ent.go_up.val() & (self.chan_num[i].val() >= self.ent.agreed.val()))
            {
                self.tx_sb[i].d.next = self.c_zero4.val();
                self.rx_sb[i].d.next = self.c_zero3.val();
                self.auth[i].d.next = self.c_zero32.val();
                self.rx_x[i].d.next = self.c_zero32.val();
                self.proof[i].d.next = self.c_zero32.val();
                self.proof_due[i].d.next = false;
                // A tentative verb the flush erases is undone.
                if self.rx_verb[i].q.val()
                    & (self.rx_sb[i].q.val().get_bits::<2>(0) == self.c_rx_tentative.val())
                {
                    self.rollback[i].next = true;
                }
            }
            if self.holding[i].q.val() & !self.ret_pending[i].q.val() {
                if self.ent.flush_local.val()
                    | (self.ent.go_up.val() & (self.chan_num[i].val() >= self.ent.agreed.val()))
                {
                    // Ours, dropped by our own reset or with its channel:
                    // certainly not delivered unless we had decided COMMIT
                    // (the peer drops the channel's tentative payload too).
                    self.ret_pending[i].d.next = true;
                    self.ret_doubt[i].d.next =
                        self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit.val();
                } else if self.ent.flush_peer.val()
                    & (self.tx_sb[i].q.val().get_bits::<3>(0) == self.c_tx_commit.val())
                {
                    // Decided COMMIT, never proven delivered, and the peer lost its state.
                    self.ret_pending[i].d.next = true;
                    self.ret_doubt[i].d.next = true;
                }
            }
        }

        // ---- Send: load payloads into idle channels ----
        self.send_dig.data.next = self.s_send.data.val().payload;
        // Any idle channel in use takes the next payload (first one found):
        // a channel is back in service as soon as its last transfer is proven.
        self.load_ok.next = false;
        self.load_sel.next = self.c_zero_cb.val();
        for i in 0..K {
            if !self.load_ok.val()
                & !self.holding[i].q.val()
                & !self.ret_pending[i].q.val()
                & (self.chan_num[i].val() < self.ent.active.val())
            {
                self.load_ok.next = true;
                self.load_sel.next = self.chan_id[i].val();
            }
        }
        // Nothing loads while channels may be flushed (a reset, or going up
        // with fewer channels).
        self.s_send.ready.next =
            self.load_ok.val() & !self.ent.flush_local.val() & !self.ent.go_up.val();
        self.tx_ram_form.write_address.next = self.load_sel.val();
        self.tx_ram_form.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_form.write_enable.next = false;
        self.tx_ram_ret.write_address.next = self.load_sel.val();
        self.tx_ram_ret.write_data.next = self.s_send.data.val().payload;
        self.tx_ram_ret.write_enable.next = false;
        if self.s_send.valid.val()
            & self.load_ok.val()
            & !self.ent.flush_local.val()
            & !self.ent.go_up.val()
        {
            self.tx_ram_form.write_enable.next = true;
            self.tx_ram_ret.write_enable.next = true;
            for i in 0..K {
                if self.load_sel.val().index() == i {
                    self.holding[i].d.next = true;
                    self.tx_digest[i].d.next = self.send_dig.crc.val();
                    self.tx_verb[i].d.next = self.s_send.data.val().verb;
                }
            }
        }

        // ---- Send: form the next slot's record ----
        self.t_ch.next = self.rot_ch.q.val();
        self.t_tx.next = self.tx_sb[0].q.val();
        self.t_rx.next = self.rx_sb[0].q.val();
        self.t_trans.next = self.trans[0].q.val();
        self.t_buf.next = self.tx_ram_form.read_data.val();
        self.t_rdig.next = self.rx_digest[0].q.val();
        self.t_proof.next = self.proof[0].q.val();
        self.t_auth.next = self.auth[0].q.val();
        self.t_proof_due.next = self.proof_due[0].q.val();
        self.t_tx_verb.next = self.tx_verb[0].q.val();
        self.t_rx_verb.next = self.rx_verb[0].q.val();
        self.t_res_ready.next = self.res_ready[0].q.val();
        for i in 0..K {
            if self.t_ch.val().index() == i {
                self.t_tx.next = self.tx_sb[i].q.val();
                self.t_rx.next = self.rx_sb[i].q.val();
                self.t_trans.next = self.trans[i].q.val();
                self.t_rdig.next = self.rx_digest[i].q.val();
                self.t_proof.next = self.proof[i].q.val();
                self.t_auth.next = self.auth[i].q.val();
                self.t_proof_due.next = self.proof_due[i].q.val();
                self.t_tx_verb.next = self.tx_verb[i].q.val();
                self.t_rx_verb.next = self.rx_verb[i].q.val();
                self.t_res_ready.next = self.res_ready[i].q.val();
            }
        }
        self.t_offering.next = self.t_tx.val().get_bits::<3>(0) == self.c_tx_offer.val();
        self.t_deciding.next = (self.t_tx.val().get_bits::<3>(0) == self.c_tx_commit.val())
            | (self.t_tx.val().get_bits::<3>(0) == self.c_tx_reverse.val());
        self.t_tentative.next = self.t_rx.val().get_bits::<2>(0) == self.c_rx_tentative.val();
        // A tentative verb is echoed only once its result is back from the
        // unit, and read from the RAM after it was written there.
        self.t_echo_ready.next = self.t_tentative.val()
            & (!self.t_rx_verb.val()
                | (self.t_res_ready.val()
                    & !(self.res_wr_valid.q.val() & (self.res_wr_ch.q.val() == self.t_ch.val()))));
        // The receiver role needs the payload slices for its echo, or for the
        // proof its peer waits for; when the sender role offers too, the two
        // take turns by round (pendulum_layout::acp::carries_echo).
        self.t_fields_turn.next = (self.t_echo_ready.val()
            | (!self.t_tentative.val() & self.t_proof_due.val()))
            & (!self.t_offering.val() | self.rot_round.q.val());
        // The fields of a record that offers nothing: the receiver role's
        // digest or proof, the sender role's decision check, a verb's result.
        self.t_res.next = self.c_zero384.val();
        if self.t_rx_verb.val() {
            self.t_res.next = self.res_ram.read_data.val();
        }
        self.t_receiver_field.next = self.t_proof.val();
        if self.t_tentative.val() {
            self.t_receiver_field.next = self.t_rdig.val();
        }
        self.t_decision.next = self.c_zero32.val();
        if self.t_deciding.val() {
            self.t_decision.next = self.t_auth.val();
        }
        self.fields_lo.hi.next = self.t_decision.val();
        self.fields_lo.lo.next = self.t_receiver_field.val();
        self.fields.hi.next = self.t_res.val();
        self.fields.lo.next = self.fields_lo.o.val();

        self.t_op.next = self.c_op_state.val();
        self.t_payload.next = self.fields.o.val();
        if self.t_fields_turn.val() {
            if self.t_echo_ready.val() {
                self.t_op.next = self.c_op_echo.val();
            }
        } else if self.t_offering.val() {
            self.t_op.next = self.c_op_offer.val();
            if self.t_tx_verb.val() {
                self.t_op.next = self.c_op_offer_verb.val();
            }
            self.t_payload.next = self.t_buf.val();
        }
        self.state7.hi.next = self.t_rx.val();
        self.state7.lo.next = self.t_tx.val();
        self.state8.i.next = self.state7.o.val();
        self.chan8.i.next = self.t_ch.val();
        self.head_hi.hi.next = self.t_trans.val();
        self.head_hi.lo.next = self.state8.o.val();
        self.head_lo.hi.next = self.chan8.o.val();
        self.head_lo.lo.next = self.t_op.val();
        self.head.hi.next = self.head_hi.o.val();
        self.head.lo.next = self.head_lo.o.val();
        self.t_head.next = self.head.o.val();
        // Not up: every slot carries our ENTANGLE record, its fields twice.
        self.ent_first.i.next = self.ent.fields.val();
        self.ent_both.hi.next = self.ent.fields.val();
        self.ent_both.lo.next = self.ent_first.o.val();
        self.ent448.i.next = self.ent_both.o.val();
        self.op_head.i.next = self.c_op_entangle.val();
        if !self.ent.up.val() {
            self.t_head.next = self.op_head.o.val();
            self.t_payload.next = self.ent448.o.val();
        }

        // One record per slot, checked at the port side of the register.
        // Slots rotate over the channels in use; the payload RAM is
        // addressed with the channel of the next slot (its read is registered).
        self.advance.next = self.tx_ready.val();
        self.rot_ext.i.next = self.rot_ch.q.val();
        self.rot_count.next = self.rot_ext.o.val() + self.c_one_cb1.val();
        self.rot_last.next = self.rot_count.val() >= self.ent.active.val();
        self.rot_next.next = self.rot_ch.q.val();
        if self.advance.val() {
            self.o_body_payload.d.next = self.t_payload.val();
            self.o_body_head.d.next = self.t_head.val();
            self.o_is_entangle.d.next = !self.ent.up.val();
            self.o_started.d.next = true;
            self.rot_next.next = self.rot_ch.q.val() + self.c_one_cb.val();
            if self.rot_last.val() {
                self.rot_next.next = self.c_zero_cb.val();
                self.rot_round.d.next = !self.rot_round.q.val();
            }
        }
        if self.ent.go_up.val() {
            self.rot_next.next = self.c_zero_cb.val();
        }
        self.rot_ch.d.next = self.rot_next.val();
        self.tx_ram_form.read_address.next = self.rot_next.val();
        self.res_ram.read_address.next = self.rot_next.val();
        // The check word: a channel record's carries our session's term.
        self.tx_cat.hi.next = self.o_body_payload.q.val();
        self.tx_cat.lo.next = self.o_body_head.q.val();
        self.tx_check.data.next = self.tx_cat.o.val();
        self.o_term.next = self.ent.session_tx.val();
        if self.o_is_entangle.q.val() {
            self.o_term.next = self.c_zero32.val();
        }
        self.o_check_head.hi.next = self.tx_check.crc.val() ^ self.o_term.val();
        self.o_check_head.lo.next = self.o_body_head.q.val();
        self.o_record.hi.next = self.o_body_payload.q.val();
        self.o_record.lo.next = self.o_check_head.o.val();
        self.tx_data.next = self.o_record.o.val();
        self.tx_valid.next = self.o_started.q.val();
    }
}
