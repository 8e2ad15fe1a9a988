//! The ACP link record and channel states (`shared/ACP.md`, Pendulum's profile).
//!
//! A record is 64 bytes: slice 0 is the context slice, slices 1..=7 the
//! 56-byte payload. Slice 0, little-endian:
//!
//! | byte | field | meaning |
//! |---|---|---|
//! | 0 | opcode | what slices 1..=7 hold: [`OP_STATE`], [`OP_OFFER`], [`OP_OFFER_VERB`], [`OP_ECHO`], [`OP_ENTANGLE`] |
//! | 1 | liveness | the channel this record states (any slot may carry any channel: slots go by event, `shared/ACP.md`) |
//! | 2 | state | bits 2..0 sender-role state (IDLE..COMMIT_OFFER; 5..7 no state), bit 3 its alternation bit; bits 5..4 receiver-role state (EXPECT..REJECT; 3 no state), bit 6 its bit; bit 7 [`STATE_ECHO_FOLDED`] (only in an OFFER or OFFER_VERB record stating TENTATIVE). A record with a state that is none is ignored and counted |
//! | 3 | transition | the channel's last move: bit 7 reverse (an erase or a REVERSE), bit 6 role (1 = receiver), bits 5..3 from-state, bits 2..0 to-state ([`machine::moves`]); for traces only, never acted on |
//! | 4..8 | operand | the check word ([`check_word`]) |
//!
//! **The check word binds a record to its entanglement.** It is the CRC-32C
//! of bytes 0..4 and 8..64, XORed for a channel record with the session term
//! of the entanglement it belongs to ([`session_term`] of the sender's and the
//! receiver's nonces). A record of an earlier entanglement (in flight when a
//! side re-entangled, or replayed by a faulty link) fails the check and is
//! never acted on; so does a channel record heard before entangling has named
//! both nonces, which is what makes going Up on a channel record safe.
//! ENTANGLE records carry no session (their term is 0).
//!
//! **Payload slices of the records that offer nothing** (opcodes
//! [`OP_STATE`] and [`OP_ECHO`]); [`OP_OFFER`] and [`OP_OFFER_VERB`] fill all
//! 56 bytes with the offered payload:
//!
//! | payload bytes | record bytes | field |
//! |---|---|---|
//! | 0..4 | 8..12 | receiver role: ECHO, the digest of the payload it holds tentatively XOR its proof (below) when it stored it; STATE, the proof of its last delivery (that transfer's echo check, 0 if none) |
//! | 4..8 | 12..16 | sender role, while COMMIT or REVERSE: the decision check (the echo check it decided on; its complement for REVERSE) |
//! | 8..56 | 16..64 | ECHO: the result of the verb held tentatively; STATE: the result of the last delivery's verb; 0 for messages |
//!
//! **Why the checks.** A record damaged past the check word must not make a
//! side act on what its peer never stated. The receiver role acts on a
//! decision only if its check is the echo check of what it holds ([`echo_check`]:
//! the digest it echoed and the result it produced), so a COMMIT damaged into
//! a REVERSE, or the decision of another channel, is ignored and restated. A
//! sender frees its copy (and hands a verb's result up as final) only on a
//! proof whose echo check matches its own payload's digest with the result
//! the proof carries, so a damaged echo can neither confirm a transfer nor
//! hand up a wrong result. The result itself travels under the decision
//! check: the responder commits only if the requester heard its result
//! exactly.
//!
//! **An echo beside a payload.** When a side both offers a payload and
//! holds a message tentatively, its OFFER records carry the echo in the
//! check word: the state byte's [`STATE_ECHO_FOLDED`] bit is set and the
//! echo (the receiver field an ECHO record would carry: digest XOR proof)
//! is XORed into the check word, beside a COMMIT_OFFER's decision check
//! if there is one ([`check_word`]). The peer hears such a record only if
//! the residue is the echo it expects (its payload's at the record's
//! receiver bit, its next payload's at the other), so a heard record
//! stands for a matching echo and a payload at once: with both directions
//! loaded a channel moves a payload each way per record. An echo that does
//! not match is not heard, so it cannot make the peer REVERSE: the
//! explicit ECHO record still goes out in the rounds of that channel whose
//! records carry the receiver's fields ([`carries_echo`]; the two forms
//! alternate while the channel restates). A verb's echo carries its
//! 48-byte result and is never folded. Every record still states both
//! roles.
//!
//! The digest of a payload is the CRC-32 (IEEE 802.3 polynomial) of its 56
//! bytes, and an echo check XORs in the CRC-32 of the result bytes: not the
//! check word's CRC-32C. **How likely a damaged payload is delivered.** It
//! must pass the record's check word, then the sender's comparison of the
//! echoed digest with its own. Were both CRC-32C, every error the check
//! word misses (a multiple of CRC-32C's generator polynomial, 2^-32 of
//! random errors) would leave the digest unchanged too, and the payload
//! would be delivered: 2^-32 per damaged record. The two generators share
//! no factor (CRC-32C's has x + 1 and an even number of terms, CRC-32's an
//! odd number and no such factor; both otherwise irreducible factors of
//! different polynomials), so an error must be a multiple of their product,
//! of degree 64: a random error passes both with probability 2^-64, below
//! the 2^-56 per record issue #25 asks for. Bursts of up to 32 bits are
//! caught by each. A COMMIT_OFFER's OFFER record (`machine`'s merged
//! decision) folds its decision check into its
//! check word: it is heard only if the CRC-32C XOR the session XOR its
//! check word is the check its receiver expects, a 32-bit match like any
//! record's, and its payload still has to pass the echo comparison; the
//! same 2^-64. The same holds for a verb's result, which travels under
//! the check word and the echo check (a damaged echo's result cannot be
//! committed, a damaged proof's cannot be handed up). A folded echo
//! keeps the bound: the sender decides COMMIT on a damaged payload only
//! if the echo it hears equals its own payload's, and folded that echo is
//! heard only if the record's residue is exactly the expected echo, the
//! same 32-bit comparison an ECHO's receiver field gets. So a damaged
//! payload is still delivered only if its damage passed the check word
//! (2^-32) and left its CRC-32 unchanged (2^-32, independent: the
//! generators share no factor): 2^-64 per record, below 2^-56.

/// Bytes of a record.
pub const RECORD_BYTES: usize = 64;
/// Bytes of payload a record carries (slices 1..=7).
pub const PAYLOAD_BYTES: usize = 56;
/// Byte offset of the payload inside the record.
pub const PAYLOAD_OFFSET: usize = 8;

/// Slices 1..=7 carry the receiver role's proof and the sender role's
/// decision check (see the module docs); nothing is offered or echoed.
pub const OP_STATE: u8 = 0x01;
/// Slices 1..=7 carry the sender role's offered payload (its state is OFFER).
pub const OP_OFFER: u8 = 0x02;
/// The receiver role holds a payload tentatively (its state is TENTATIVE):
/// slice 1's low 32 bits carry its digest XOR the receiver's proof of its
/// last delivery as it stood when it stored the payload (0 after a flush):
/// the sender expects its digest XOR the proof it last heard, so an echo
/// is tied to the transfer before it, and two transfers of the same
/// message on a channel have different echo checks (a decision on one can
/// never be taken for the other). When that payload is an atomic
/// verb, the responder executed it tentatively and slices 2..=7 carry its
/// result ([`ECHO_RESULT_OFFSET`]); otherwise they are zero.
pub const OP_ECHO: u8 = 0x03;
/// Like [`OP_OFFER`], but the payload is an atomic verb for the peer's atomic
/// unit (the first 56 bytes of a `pendulum_layout::atomic` verb slot), not a
/// message for its host.
/// The channel's states and moves are those of any transfer.
pub const OP_OFFER_VERB: u8 = 0x05;
/// Where a record that offers nothing holds a verb's result (payload bytes
/// 8..56, record bytes 16..64): the first 48 bytes of a result slot
/// (`pendulum_layout::atomic`: kind, op, tag, status, differ, then the old
/// value, or a COMMIT_WORDS' five old words).
pub const ECHO_RESULT_OFFSET: usize = 8;
/// Bytes of a remote verb's result in a record.
pub const ECHO_RESULT_BYTES: usize = 48;
/// Payload offset of the receiver role's field: an ECHO's digest, a STATE's proof.
pub const RECEIVER_FIELD_OFFSET: usize = 0;
/// Payload offset of the sender role's decision check.
pub const DECISION_OFFSET: usize = 4;
/// Re-entanglement: payload bytes 0..4 nonce, 4..8 nonce heard from the
/// peer (0 if none), 8..12 incarnation (drawn when this side's link state
/// starts and at every reset of it; a peer whose incarnation is not the one
/// it last entangled with lost its state), 12..14 channels this side offers
/// to use (latched when it draws its nonce), 14 [`PROTOCOL_VERSION`]; and
/// the same 15 bytes again at [`ENTANGLE_COPY_OFFSET`]. A record whose two
/// copies differ, or whose version is not ours, is ignored and counted: one
/// field damaged past the check cannot make a side drop (or keep) what it
/// shares with its peer. Liveness and state are 0. Both sides use the smaller
/// channel count from the entanglement on.
pub const OP_ENTANGLE: u8 = 0x04;
/// Bytes of an ENTANGLE record's fields (payload bytes 0..15).
pub const ENTANGLE_FIELD_BYTES: usize = 15;
/// Payload offset of the copy of an ENTANGLE record's fields.
pub const ENTANGLE_COPY_OFFSET: usize = 32;
/// The link protocol's version, stated in ENTANGLE records: 2 since records
/// carry a session, decision checks and proofs (#22); 3 since digests and
/// echo checks are CRC-32, not CRC-32C (#25); 4 since an echo carries the
/// proof of the last delivery beside the digest (#25); 5 since a record may
/// state COMMIT_OFFER, a decision merged with the next offer (#25); 6
/// since an OFFER record may carry its side's echo in the check word
/// ([`STATE_ECHO_FOLDED`], #25).
pub const PROTOCOL_VERSION: u8 = 6;

/// State byte bit 7: this OFFER or OFFER_VERB record also carries its
/// side's echo of the message it holds tentatively (it states TENTATIVE),
/// XORed into the check word: the receiver field an ECHO record would
/// carry (module docs, "An echo beside a payload"). In any other record
/// the bit makes the state byte state no state.
pub const STATE_ECHO_FOLDED: u8 = 0x80;

/// Byte positions in slice 0.
pub const BYTE_OPCODE: usize = 0;
pub const BYTE_CHANNEL: usize = 1;
pub const BYTE_STATE: usize = 2;
pub const BYTE_TRANSITION: usize = 3;
pub const BYTE_CHECK: usize = 4;

/// Sender-role states (3 bits; 4..7 are no state).
pub mod tx_state {
    /// Nothing offered (holding a payload, or none).
    pub const IDLE: u8 = 0;
    /// Offering the held payload; the record carries it when opcode is OFFER.
    pub const OFFER: u8 = 1;
    /// Decided: the digest matched; the payload is the receiver's once it hears this.
    pub const COMMIT: u8 = 2;
    /// Decided: the digest did not match; the receiver must erase.
    pub const REVERSE: u8 = 3;
    /// Decided COMMIT b and offering the next payload at the other bit in
    /// the same records (the state byte's bit is b, the decision's): an
    /// OFFER record in this state carries the next payload, with the
    /// decision check folded into its check word ([`super::check_word`]).
    pub const COMMIT_OFFER: u8 = 4;
    pub const NAMES: [&str; 5] = ["IDLE", "OFFER", "COMMIT", "REVERSE", "COMMIT_OFFER"];
}

/// Receiver-role states (2 bits; 3 is no state).
pub mod rx_state {
    /// Ready for the offer with this bit.
    pub const EXPECT: u8 = 0;
    /// Holding an offer tentatively; the record echoes its digest when opcode is ECHO.
    pub const TENTATIVE: u8 = 1;
    /// No room: the offer was refused and nothing kept.
    pub const REJECT: u8 = 2;
    pub const NAMES: [&str; 3] = ["EXPECT", "TENTATIVE", "REJECT"];
}

pub mod machine;

/// Link states (the LINK_STATE register).
pub mod link_state {
    /// The physical layer reports no signal.
    pub const DOWN: u32 = 0;
    /// Exchanging nonces.
    pub const ENTANGLING: u32 = 1;
    /// Entangled: channels state their states every slot.
    pub const UP: u32 = 2;
    pub const NAMES: [&str; 3] = ["DOWN", "ENTANGLING", "UP"];
}

/// Packs slice 0's state byte.
pub const fn state_byte(tx: u8, tx_bit: bool, rx: u8, rx_bit: bool) -> u8 {
    (tx & 7) | ((tx_bit as u8) << 3) | ((rx & 3) << 4) | ((rx_bit as u8) << 6)
}

/// Whether a state byte states a state in both roles in a record of
/// opcode `op` (a record whose byte does not is ignored and counted):
/// [`STATE_ECHO_FOLDED`] only in an offer that states TENTATIVE.
pub const fn state_byte_is_valid(op: u8, state: u8) -> bool {
    let folded_ok = state & STATE_ECHO_FOLDED == 0
        || ((op == OP_OFFER || op == OP_OFFER_VERB) && (state >> 4) & 3 == rx_state::TENTATIVE);
    folded_ok && state & 7 <= tx_state::COMMIT_OFFER && (state >> 4) & 3 <= rx_state::REJECT
}

/// The sender-role state in a state byte.
pub const fn sender_state(state: u8) -> u8 {
    state & 7
}

/// A state byte with its sender-role state replaced (everything else kept).
pub const fn with_sender_state(state: u8, sender: u8) -> u8 {
    (state & !7) | (sender & 7)
}

/// Whether a side that offers on a channel and also needs the payload
/// slices for its receiver role (an echo, or a proof its peer waits for)
/// sends the receiver's fields (true) or the payload (false) in round `r`
/// of that channel (the number of slots since entanglement divided by K).
pub const fn carries_echo(offering: bool, receiver_needs: bool, round: u64) -> bool {
    receiver_needs && (!offering || round & 1 == 1)
}

/// A reflected CRC-32 with init and final xor all ones, bitwise, for the
/// reflected polynomial `poly`. Written here because this crate has no
/// dependencies; tests check both CRCs against their published check values.
fn crc32_reflected(poly: u32, bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// CRC-32C (Castagnoli): the check word and the session term.
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc32_reflected(0x82F6_3B78, bytes)
}

/// CRC-32 (the IEEE 802.3 polynomial): digests and echo checks. A
/// different polynomial from the check word's on purpose: an error the
/// check word cannot see (a multiple of CRC-32C's generator) leaves a
/// CRC-32C of the same bytes unchanged too, but not, except by chance
/// (2^-32), their CRC-32.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_reflected(0xEDB8_8320, bytes)
}

/// The session term of a channel record sent by the side whose nonce is
/// `sender` to the side whose nonce is `receiver`: the CRC-32C of the two
/// nonces, little-endian, sender first. Two entanglements share a term with
/// probability 2^-32.
pub fn session_term(sender: u32, receiver: u32) -> u32 {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&sender.to_le_bytes());
    b[4..].copy_from_slice(&receiver.to_le_bytes());
    crc32c(&b)
}

/// The check word of a record: CRC-32C over bytes 0..4 and 8..64, XOR
/// `session` (a channel record's [`session_term`]; 0 for ENTANGLE records).
/// An OFFER record stating COMMIT_OFFER XORs in its decision check too, and
/// one with [`STATE_ECHO_FOLDED`] its echo: the caller folds those in.
pub fn check_word(rec: &[u8; RECORD_BYTES], session: u32) -> u32 {
    let mut covered = [0u8; RECORD_BYTES - 4];
    covered[..4].copy_from_slice(&rec[..4]);
    covered[4..].copy_from_slice(&rec[8..]);
    crc32c(&covered) ^ session
}

/// Digest of a payload, as echoed by a tentative receiver: its [`crc32`].
pub fn digest(payload: &[u8; PAYLOAD_BYTES]) -> u32 {
    crc32(payload)
}

/// The echo check of an echo: its digest XOR the [`crc32`] of its result
/// bytes (48 zero bytes for a message). A decision states it (COMMIT) or
/// its complement (REVERSE); a proof of delivery is the delivered transfer's.
pub fn echo_check(digest: u32, result: &[u8; ECHO_RESULT_BYTES]) -> u32 {
    digest ^ crc32(result)
}

/// A decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// A channel's states, with the payload (OFFER), or the two roles' fields.
    Channel {
        channel: u8,
        tx: u8,
        tx_bit: bool,
        rx: u8,
        rx_bit: bool,
        transition: u8,
        body: Body,
    },
    Entangle {
        nonce: u32,
        heard: u32,
        incarnation: u32,
        channels: u16,
    },
}

/// What slices 1..=7 of a channel record hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// The sender role's offered payload (OFFER).
    Payload([u8; PAYLOAD_BYTES]),
    /// An atomic verb offered to the peer's atomic unit (OFFER_VERB).
    Verb([u8; PAYLOAD_BYTES]),
    /// Nothing offered (STATE when `echo` is false, ECHO when true):
    /// `receiver` is the digest echoed or the proof of the last delivery,
    /// `decision` the sender role's decision check, `result` a verb's result.
    Fields {
        echo: bool,
        receiver: u32,
        decision: u32,
        result: [u8; ECHO_RESULT_BYTES],
    },
}

/// Why a record was not heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The check word does not match (under the session given, for a
    /// channel record): the record is not heard at all.
    BadCheck,
    /// The check passed but the opcode is not one of ours.
    UnknownOpcode(u8),
    /// The check passed but the channel is not below K.
    BadChannel(u8),
    /// The check passed but the state byte states no state.
    BadState(u8),
    /// An ENTANGLE record whose two copies differ or whose version is not ours.
    BadEntangle,
}

impl Record {
    /// Encodes with the check word filled in; `session` is the channel
    /// record's [`session_term`] (ignored for ENTANGLE records).
    pub fn to_bytes(&self, session: u32) -> [u8; RECORD_BYTES] {
        let mut r = [0u8; RECORD_BYTES];
        let mut term = session;
        let p = PAYLOAD_OFFSET;
        match *self {
            Record::Channel {
                channel,
                tx,
                tx_bit,
                rx,
                rx_bit,
                transition,
                body,
            } => {
                r[BYTE_CHANNEL] = channel;
                r[BYTE_STATE] = state_byte(tx, tx_bit, rx, rx_bit);
                r[BYTE_TRANSITION] = transition;
                r[BYTE_OPCODE] = match body {
                    Body::Payload(pl) => {
                        r[p..].copy_from_slice(&pl);
                        OP_OFFER
                    }
                    Body::Verb(pl) => {
                        r[p..].copy_from_slice(&pl);
                        OP_OFFER_VERB
                    }
                    Body::Fields {
                        echo,
                        receiver,
                        decision,
                        result,
                    } => {
                        let rf = p + RECEIVER_FIELD_OFFSET;
                        let df = p + DECISION_OFFSET;
                        let rs = p + ECHO_RESULT_OFFSET;
                        r[rf..rf + 4].copy_from_slice(&receiver.to_le_bytes());
                        r[df..df + 4].copy_from_slice(&decision.to_le_bytes());
                        r[rs..rs + ECHO_RESULT_BYTES].copy_from_slice(&result);
                        if echo {
                            OP_ECHO
                        } else {
                            OP_STATE
                        }
                    }
                };
            }
            Record::Entangle {
                nonce,
                heard,
                incarnation,
                channels,
            } => {
                term = 0;
                r[BYTE_OPCODE] = OP_ENTANGLE;
                let mut f = [0u8; ENTANGLE_FIELD_BYTES];
                f[0..4].copy_from_slice(&nonce.to_le_bytes());
                f[4..8].copy_from_slice(&heard.to_le_bytes());
                f[8..12].copy_from_slice(&incarnation.to_le_bytes());
                f[12..14].copy_from_slice(&channels.to_le_bytes());
                f[14] = PROTOCOL_VERSION;
                r[p..p + ENTANGLE_FIELD_BYTES].copy_from_slice(&f);
                let c = p + ENTANGLE_COPY_OFFSET;
                r[c..c + ENTANGLE_FIELD_BYTES].copy_from_slice(&f);
            }
        }
        let c = check_word(&r, term);
        r[BYTE_CHECK..BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
        r
    }

    /// Decodes a record heard on a link of `k` channels, a channel record
    /// under session term `session`.
    pub fn from_bytes(
        r: &[u8; RECORD_BYTES],
        k: usize,
        session: u32,
    ) -> Result<Record, RecordError> {
        let check = u32::from_le_bytes(r[BYTE_CHECK..BYTE_CHECK + 4].try_into().unwrap());
        let op = r[BYTE_OPCODE];
        let term = if op == OP_ENTANGLE { 0 } else { session };
        if check != check_word(r, term) {
            return Err(RecordError::BadCheck);
        }
        let word = |o: usize| u32::from_le_bytes(r[o..o + 4].try_into().unwrap());
        let p = PAYLOAD_OFFSET;
        if op == OP_ENTANGLE {
            let f = &r[p..p + ENTANGLE_FIELD_BYTES];
            let c = p + ENTANGLE_COPY_OFFSET;
            if f != &r[c..c + ENTANGLE_FIELD_BYTES] || f[14] != PROTOCOL_VERSION {
                return Err(RecordError::BadEntangle);
            }
            return Ok(Record::Entangle {
                nonce: word(p),
                heard: word(p + 4),
                incarnation: word(p + 8),
                channels: u16::from_le_bytes([r[p + 12], r[p + 13]]),
            });
        }
        let fields = |echo| Body::Fields {
            echo,
            receiver: word(p + RECEIVER_FIELD_OFFSET),
            decision: word(p + DECISION_OFFSET),
            result: r[p + ECHO_RESULT_OFFSET..].try_into().unwrap(),
        };
        let body = match op {
            OP_STATE => fields(false),
            OP_ECHO => fields(true),
            OP_OFFER => Body::Payload(r[p..].try_into().unwrap()),
            OP_OFFER_VERB => Body::Verb(r[p..].try_into().unwrap()),
            other => return Err(RecordError::UnknownOpcode(other)),
        };
        let channel = r[BYTE_CHANNEL];
        if channel as usize >= k {
            return Err(RecordError::BadChannel(channel));
        }
        let s = r[BYTE_STATE];
        if !state_byte_is_valid(op, s) {
            return Err(RecordError::BadState(s));
        }
        Ok(Record::Channel {
            channel,
            tx: s & 7,
            tx_bit: s & 8 != 0,
            rx: (s >> 4) & 3,
            rx_bit: s & 0x40 != 0,
            transition: r[BYTE_TRANSITION],
            body,
        })
    }
}

/// How a host message looks in a TX pipe bound to the link, and how a
/// delivered (or returned) one looks in the RX pipe that receives them: one
/// 64-byte slot each, an 8-byte header then the 56-byte payload.
pub mod message {
    /// Byte 0 of a message the host posts: anything else is dropped and counted.
    pub const KIND_SEND: u8 = 0xAC;
    /// Byte 0 of a remote atomic verb the host posts: the payload is the
    /// first 56 bytes of a verb slot (`pendulum_layout::atomic::Verb`), run
    /// by the peer's atomic unit tentatively and made permanent on commit.
    pub const KIND_SEND_VERB: u8 = 0xAD;
    /// Byte 0 of a slot in the receiving RX pipe: delivered by the peer.
    pub const KIND_DELIVERED: u8 = 0x01;
    /// Byte 0: one of our messages, handed back: certainly not delivered
    /// (our reset, or its channel dropped before we decided).
    pub const KIND_NOT_DELIVERED: u8 = 0x02;
    /// Byte 0: one of our messages, handed back: in doubt (decided COMMIT, but the
    /// peer lost its state, or the channel was dropped, before it proved
    /// the delivery).
    pub const KIND_IN_DOUBT: u8 = 0x03;
    /// Byte 0: one of our remote verbs (posted as [`KIND_SEND_VERB`]),
    /// handed back: certainly not applied. The hand-back kinds name what the
    /// payload was, so a message whose first byte happens to read as a verb
    /// is never taken for one.
    pub const KIND_VERB_NOT_DELIVERED: u8 = 0x05;
    /// Byte 0: one of our remote verbs, handed back in doubt: applied once
    /// or not at all, never twice.
    pub const KIND_VERB_IN_DOUBT: u8 = 0x06;
    /// Byte 0: the result of one of our remote verbs, returned when the
    /// peer's proof of delivery arrives (final: applied exactly once); bytes
    /// 8..56 are the first 48 bytes of its result slot, as the proof carried them.
    pub const KIND_VERB_RESULT: u8 = 0x04;
    /// Byte 1 of a received slot: the channel it travelled on.
    pub const BYTE_CHANNEL: usize = 1;
    /// Bytes 8..64: the payload, exactly as posted.
    pub const PAYLOAD_OFFSET: usize = 8;
}

/// The record layout as a Markdown table, for the README.
pub fn layout_markdown() -> String {
    let mut s = String::from("| bytes | field | contents |\n|---|---|---|\n");
    let rows = [
        ("0", "opcode", format!("0x{OP_STATE:02x} state (proof and decision check), 0x{OP_OFFER:02x} + payload, 0x{OP_OFFER_VERB:02x} + atomic verb, 0x{OP_ECHO:02x} + digest echo, 0x{OP_ENTANGLE:02x} entangle")),
        ("1", "liveness", "the channel this record states (any slot may carry any channel)".to_string()),
        ("2", "state", format!(
            "bits 2..0 sender state ({}), bit 3 its bit; bits 5..4 receiver state ({}), bit 6 its bit; bit 7 the echo is folded into the check word (OFFER records stating TENTATIVE only); anything else is ignored and counted",
            tx_state::NAMES.join("/"), rx_state::NAMES.join("/"))),
        ("3", "transition", "last move: bit 7 reverse, bit 6 receiver role, bits 5..3 from, 2..0 to (traces only)".to_string()),
        ("4..8", "operand", "check word: CRC-32C over bytes 0..4 and 8..64, XOR the session term (CRC-32C of the sender's and the receiver's nonce) for a channel record; an OFFER record stating COMMIT_OFFER also XORs in its decision check, one with state bit 7 its echo (digest XOR proof)".to_string()),
        ("8..64", "slices 1–7, OFFER / OFFER_VERB", "the 56-byte payload, or the verb".to_string()),
        ("8..12", "STATE / ECHO: receiver field", "ECHO: digest (CRC-32, IEEE polynomial) of the payload held tentatively, XOR the proof of the last delivery; STATE: proof of the last delivery (its echo check: digest XOR CRC-32 of the result bytes)".to_string()),
        ("12..16", "STATE / ECHO: decision check", "while COMMIT or COMMIT_OFFER: the echo check decided on; while REVERSE: its complement".to_string()),
        ("16..64", "STATE / ECHO: result", "ECHO: the tentative verb's result; STATE: the last delivered verb's; 0 for messages".to_string()),
        ("8..23, 40..55", "ENTANGLE", format!("nonce 8..12, nonce heard 12..16, incarnation 16..20, channels offered 20..22, protocol version ({PROTOCOL_VERSION}) 22; the same 15 bytes again at 40..55")),
    ];
    for (b, f, c) in rows {
        s += &format!("| {b} | {f} | {c} |\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_kinds_are_distinct() {
        use message::*;
        let mut kinds = [
            KIND_SEND,
            KIND_SEND_VERB,
            KIND_DELIVERED,
            KIND_NOT_DELIVERED,
            KIND_IN_DOUBT,
            KIND_VERB_NOT_DELIVERED,
            KIND_VERB_IN_DOUBT,
            KIND_VERB_RESULT,
        ];
        kinds.sort_unstable();
        assert!(kinds.windows(2).all(|w| w[0] != w[1]), "{kinds:?}");
    }

    #[test]
    fn crc32c_check_value() {
        // The published check values over "123456789".
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    fn sample_records() -> [Record; 4] {
        let mut p = [0u8; PAYLOAD_BYTES];
        for (i, b) in p.iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let mut result = [0u8; ECHO_RESULT_BYTES];
        result[0] = 0xA7;
        result[47] = 3;
        [
            Record::Channel {
                channel: 3,
                tx: tx_state::OFFER,
                tx_bit: true,
                rx: rx_state::TENTATIVE,
                rx_bit: false,
                transition: 0x8a,
                body: Body::Payload(p),
            },
            Record::Channel {
                channel: 0,
                tx: tx_state::COMMIT,
                tx_bit: false,
                rx: rx_state::TENTATIVE,
                rx_bit: true,
                transition: 0,
                body: Body::Fields {
                    echo: true,
                    receiver: 0xdead_beef,
                    decision: 0x1234_5678,
                    result,
                },
            },
            Record::Channel {
                channel: 1,
                tx: tx_state::REVERSE,
                tx_bit: true,
                rx: rx_state::EXPECT,
                rx_bit: true,
                transition: 0,
                body: Body::Fields {
                    echo: false,
                    receiver: 7,
                    decision: 9,
                    result: [0; ECHO_RESULT_BYTES],
                },
            },
            Record::Entangle {
                nonce: 5,
                heard: 9,
                incarnation: 12,
                channels: 3,
            },
        ]
    }

    #[test]
    fn records_round_trip_and_a_flipped_bit_is_not_heard() {
        let session = session_term(0x1111, 0x2222);
        for r in sample_records() {
            let b = r.to_bytes(session);
            assert_eq!(Record::from_bytes(&b, 4, session), Ok(r));
            for bit in [0, 9, 17, 40, 100, 511] {
                let mut c = b;
                c[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(
                    Record::from_bytes(&c, 4, session),
                    Err(RecordError::BadCheck),
                    "bit {bit}"
                );
            }
        }
        let b = sample_records()[0].to_bytes(session);
        assert_eq!(
            Record::from_bytes(&b, 2, session),
            Err(RecordError::BadChannel(3))
        );
    }

    #[test]
    fn a_channel_record_of_another_session_is_not_heard_an_entangle_record_is() {
        let ours = session_term(0x1111, 0x2222);
        for other in [
            session_term(0x2222, 0x1111),
            session_term(0x1111, 0x2223),
            0,
        ] {
            for r in sample_records() {
                let heard = Record::from_bytes(&r.to_bytes(other), 4, ours);
                match r {
                    Record::Entangle { .. } => assert_eq!(heard, Ok(r)),
                    Record::Channel { .. } => assert_eq!(heard, Err(RecordError::BadCheck)),
                }
            }
        }
    }

    #[test]
    fn a_state_byte_that_states_no_state_is_not_heard() {
        let s = session_term(1, 2);
        for bad in [0x80u8, 0x90, 0x05, 0x07, 0x30] {
            let mut b = sample_records()[2].to_bytes(s);
            b[BYTE_STATE] = bad;
            let c = check_word(&b, s);
            b[BYTE_CHECK..BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
            assert_eq!(
                Record::from_bytes(&b, 4, s),
                Err(RecordError::BadState(bad))
            );
        }
    }

    #[test]
    fn the_echo_fold_bit_is_a_state_only_in_an_offer_stating_tentative() {
        let tentative = state_byte(tx_state::OFFER, false, rx_state::TENTATIVE, true);
        let expect = state_byte(tx_state::OFFER, false, rx_state::EXPECT, true);
        for op in [OP_OFFER, OP_OFFER_VERB] {
            assert!(state_byte_is_valid(op, tentative | STATE_ECHO_FOLDED));
            assert!(!state_byte_is_valid(op, expect | STATE_ECHO_FOLDED));
        }
        for op in [OP_STATE, OP_ECHO] {
            assert!(state_byte_is_valid(op, tentative));
            assert!(!state_byte_is_valid(op, tentative | STATE_ECHO_FOLDED));
        }
    }

    #[test]
    fn an_entangle_record_with_one_field_damaged_is_not_heard() {
        let e = sample_records()[3].to_bytes(0);
        for pos in [8usize, 13, 17, 20, 22, 40, 54] {
            let mut b = e;
            b[pos] ^= 0x10;
            let c = check_word(&b, 0);
            b[BYTE_CHECK..BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
            assert_eq!(
                Record::from_bytes(&b, 4, 0),
                Err(RecordError::BadEntangle),
                "byte {pos}"
            );
        }
    }

    /// An error pattern the check word cannot see (a CRC-32C codeword)
    /// leaves a CRC-32C of the payload unchanged, but not its digest.
    #[test]
    fn an_error_the_check_word_misses_changes_the_digest() {
        let zeros = [0u8; PAYLOAD_BYTES];
        let linear = |b: &[u8]| crc32c(b) ^ crc32c(&zeros[..b.len()]);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100 {
            // A codeword: 52 random bytes, then their linear CRC-32C (little-endian).
            let mut e = [0u8; PAYLOAD_BYTES];
            for b in e[..PAYLOAD_BYTES - 4].iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            let c = linear(&e[..PAYLOAD_BYTES - 4]);
            e[PAYLOAD_BYTES - 4..].copy_from_slice(&c.to_le_bytes());
            let payload: [u8; PAYLOAD_BYTES] = std::array::from_fn(|i| (i * 7) as u8);
            let damaged: [u8; PAYLOAD_BYTES] = std::array::from_fn(|i| payload[i] ^ e[i]);
            assert_eq!(
                crc32c(&damaged),
                crc32c(&payload),
                "the check word misses it"
            );
            assert_ne!(digest(&damaged), digest(&payload), "the digest does not");
        }
    }

    #[test]
    fn a_decision_check_tells_commit_from_reverse_and_covers_the_result() {
        let mut r = [0u8; ECHO_RESULT_BYTES];
        let x = echo_check(0x5555_aaaa, &r);
        assert_ne!(x, !x);
        // A message's check is not its digest (the result bytes count).
        assert_ne!(x, 0x5555_aaaa);
        r[20] = 1;
        assert_ne!(
            echo_check(0x5555_aaaa, &r),
            x,
            "a changed result changes the check"
        );
    }

    #[test]
    fn an_all_zero_slot_is_not_heard() {
        assert_eq!(
            Record::from_bytes(&[0; RECORD_BYTES], 4, 0),
            Err(RecordError::BadCheck)
        );
    }

    #[test]
    fn echo_alternates_only_when_both_roles_need_the_slices() {
        assert!(!carries_echo(true, false, 1));
        assert!(carries_echo(false, true, 0));
        assert!(!carries_echo(true, true, 0));
        assert!(carries_echo(true, true, 1));
    }
}

#[cfg(test)]
mod readme {
    /// The README's table is generated from this crate; run with
    /// PENDULUM_BLESS=1 to rewrite it after a layout change.
    #[test]
    fn readme_record_table_is_current() {
        crate::check_readme_section(
            "<!-- acp record begin -->\n",
            "<!-- acp record end -->",
            &super::layout_markdown(),
        );
    }
}
