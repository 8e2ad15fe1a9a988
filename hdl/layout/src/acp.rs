//! The ACP link record and channel states (`shared/ACP.md`, Pendulum's profile).
//!
//! A record is 64 bytes: slice 0 is the context slice, slices 1..=7 the
//! 56-byte payload. Slice 0, little-endian:
//!
//! | byte | field | meaning |
//! |---|---|---|
//! | 0 | opcode | what slices 1..=7 hold: [`OP_STATE`], [`OP_OFFER`], [`OP_OFFER_VERB`], [`OP_ECHO`], [`OP_ENTANGLE`] |
//! | 1 | liveness | the channel this slot belongs to (slot n carries channel n mod K) |
//! | 2 | state | bits 2..0 sender-role state, bit 3 its alternation bit; bits 5..4 receiver-role state, bit 6 its bit; bit 7 zero (a record with it set is ignored and counted) |
//! | 3 | transition | the channel's last move: bit 7 reverse (an erase or a REVERSE), bit 6 role (1 = receiver), bits 5..3 from-state, bits 2..0 to-state; for traces only, never acted on |
//! | 4..8 | operand | the check word: CRC-32C over bytes 0..4 and 8..64 |
//!
//! The spec leaves the check word's place to the layout; the operand is the
//! one field both wide enough and free in every record, so it holds it. The
//! receiver-role digest ("this is what I heard you say") then travels in the
//! payload slices, marked by the opcode [`OP_ECHO`]. When a side both offers a
//! payload and holds a tentative one on the same channel, its records carry
//! the payload and the digest in alternate rounds of that channel (see
//! [`carries_echo`]); every record still states both roles.
//!
//! The digest of a payload is the CRC-32C of its 56 bytes.

/// Bytes of a record.
pub const RECORD_BYTES: usize = 64;
/// Bytes of payload a record carries (slices 1..=7).
pub const PAYLOAD_BYTES: usize = 56;
/// Byte offset of the payload inside the record.
pub const PAYLOAD_OFFSET: usize = 8;

/// Slices 1..=7 are zero: the record states the channel, nothing more.
pub const OP_STATE: u8 = 0x01;
/// Slices 1..=7 carry the sender role's offered payload (its state is OFFER).
pub const OP_OFFER: u8 = 0x02;
/// Slice 1's low 32 bits carry the digest of the payload the receiver role
/// holds tentatively (its state is TENTATIVE). When that payload is an atomic
/// verb, the responder executed it tentatively and slices 2..=3 carry its
/// result ([`ECHO_RESULT_OFFSET`]); otherwise the rest is zero.
pub const OP_ECHO: u8 = 0x03;
/// Like [`OP_OFFER`], but the payload is an atomic verb for the peer's atomic
/// unit (the first 56 bytes of a `pendulum_layout::atomic` verb slot), not a
/// message for its host.
/// The channel's states and moves are those of any transfer.
pub const OP_OFFER_VERB: u8 = 0x05;
/// Where an ECHO record's payload holds a remote verb's result (payload
/// bytes 8..56, record bytes 16..64): the first 48 bytes of a result slot
/// (`pendulum_layout::atomic`: kind, op, tag, status, differ, then the old
/// value, or a COMMIT_WORDS' five old words).
pub const ECHO_RESULT_OFFSET: usize = 8;
/// Bytes of a remote verb's result in an ECHO record.
pub const ECHO_RESULT_BYTES: usize = 48;
/// Re-entanglement: slice 1 = nonce (low 32) | nonce heard from the peer (high
/// 32, 0 if none); slice 2 = incarnation (low 32: drawn when this side's
/// link state starts and at every reset of it; a peer whose incarnation is
/// not the one it last entangled with lost its state) | channels this side
/// offers to use (bits 47..32). Liveness and state are 0. Both sides use the
/// smaller channel count from the entanglement on.
pub const OP_ENTANGLE: u8 = 0x04;

/// Byte positions in slice 0.
pub const BYTE_OPCODE: usize = 0;
pub const BYTE_CHANNEL: usize = 1;
pub const BYTE_STATE: usize = 2;
pub const BYTE_TRANSITION: usize = 3;
pub const BYTE_CHECK: usize = 4;

/// Sender-role states (3 bits).
pub mod tx_state {
    /// Nothing offered (holding a payload, or none).
    pub const IDLE: u8 = 0;
    /// Offering the held payload; the record carries it when opcode is OFFER.
    pub const OFFER: u8 = 1;
    /// Decided: the digest matched; the payload is the receiver's once it hears this.
    pub const COMMIT: u8 = 2;
    /// Decided: the digest did not match; the receiver must erase.
    pub const REVERSE: u8 = 3;
    pub const NAMES: [&str; 4] = ["IDLE", "OFFER", "COMMIT", "REVERSE"];
}

/// Receiver-role states (2 bits).
pub mod rx_state {
    /// Ready for the offer with this bit.
    pub const EXPECT: u8 = 0;
    /// Holding an offer tentatively; the record echoes its digest when opcode is ECHO.
    pub const TENTATIVE: u8 = 1;
    /// No room: the offer was refused and nothing kept.
    pub const REJECT: u8 = 2;
    pub const NAMES: [&str; 3] = ["EXPECT", "TENTATIVE", "REJECT"];
}

/// Sender-role transitions, on hearing the peer's receiver-role state `(rs, rb)`.
/// Guarded by the alternation bit: every other combination changes nothing.
///
/// | from | heard | to | effect |
/// |---|---|---|---|
/// | IDLE b, holding | EXPECT b | OFFER b | |
/// | OFFER b | TENTATIVE b, digest = ours | COMMIT b | decision: delivered |
/// | OFFER b | TENTATIVE b, digest ≠ ours | REVERSE b | decision: not delivered |
/// | OFFER b | REJECT b | IDLE b | keep holding |
/// | COMMIT b | EXPECT !b | IDLE !b | free the copy (confirmed) |
/// | REVERSE b | EXPECT b | IDLE b | keep holding; offered again |
///
/// Receiver-role transitions, on hearing the peer's sender-role state `(ts, tb)`:
///
/// | from | heard | to | effect |
/// |---|---|---|---|
/// | EXPECT b | OFFER b + payload, room | TENTATIVE b | store tentatively, keep digest |
/// | EXPECT b | OFFER b + payload, no room | REJECT b | |
/// | TENTATIVE b | COMMIT b | EXPECT !b | deliver to the consumer |
/// | TENTATIVE b | REVERSE b | EXPECT b | erase |
/// | REJECT b | IDLE b | EXPECT b | |
pub const TRANSITIONS_DOC: () = ();

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

/// The sender-role state in a state byte.
pub const fn sender_state(state: u8) -> u8 {
    state & 7
}

/// A state byte with its sender-role state replaced (everything else kept).
pub const fn with_sender_state(state: u8, sender: u8) -> u8 {
    (state & !7) | (sender & 7)
}

/// Whether a side that offers on a channel and also holds the peer's offer
/// tentatively sends the digest (true) or the payload (false) in round `r` of
/// that channel (the number of slots since entanglement divided by K).
pub const fn carries_echo(offering: bool, tentative: bool, round: u64) -> bool {
    tentative && (!offering || round & 1 == 1)
}

/// CRC-32C (Castagnoli, reflected, init and final xor all ones), bitwise.
/// Written here because this crate has no dependencies; a test checks it
/// against the published check value and the `crc` crate.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The check word of a record: CRC-32C over bytes 0..4 and 8..64.
pub fn check_word(rec: &[u8; RECORD_BYTES]) -> u32 {
    let mut covered = [0u8; RECORD_BYTES - 4];
    covered[..4].copy_from_slice(&rec[..4]);
    covered[4..].copy_from_slice(&rec[8..]);
    crc32c(&covered)
}

/// Digest of a payload, as echoed by a tentative receiver.
pub fn digest(payload: &[u8; PAYLOAD_BYTES]) -> u32 {
    crc32c(payload)
}

/// A decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// A channel's states, with the payload (OFFER), the digest (ECHO), or neither.
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
    None,
    Payload([u8; PAYLOAD_BYTES]),
    /// An atomic verb offered to the peer's atomic unit.
    Verb([u8; PAYLOAD_BYTES]),
    Digest(u32),
}

/// Why a record was not heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The check word does not match: the record is not heard at all.
    BadCheck,
    /// The check passed but the opcode is not one of ours.
    UnknownOpcode(u8),
    /// The check passed but the channel is not below K.
    BadChannel(u8),
}

impl Record {
    /// Encodes with the check word filled in.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut r = [0u8; RECORD_BYTES];
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
                    Body::None => OP_STATE,
                    Body::Payload(p) => {
                        r[PAYLOAD_OFFSET..].copy_from_slice(&p);
                        OP_OFFER
                    }
                    Body::Verb(p) => {
                        r[PAYLOAD_OFFSET..].copy_from_slice(&p);
                        OP_OFFER_VERB
                    }
                    Body::Digest(d) => {
                        r[8..12].copy_from_slice(&d.to_le_bytes());
                        OP_ECHO
                    }
                };
            }
            Record::Entangle {
                nonce,
                heard,
                incarnation,
                channels,
            } => {
                r[BYTE_OPCODE] = OP_ENTANGLE;
                r[8..12].copy_from_slice(&nonce.to_le_bytes());
                r[12..16].copy_from_slice(&heard.to_le_bytes());
                r[16..20].copy_from_slice(&incarnation.to_le_bytes());
                r[20..22].copy_from_slice(&channels.to_le_bytes());
            }
        }
        let c = check_word(&r);
        r[BYTE_CHECK..BYTE_CHECK + 4].copy_from_slice(&c.to_le_bytes());
        r
    }

    /// Decodes a record heard on a link of `k` channels.
    pub fn from_bytes(r: &[u8; RECORD_BYTES], k: usize) -> Result<Record, RecordError> {
        let check = u32::from_le_bytes(r[BYTE_CHECK..BYTE_CHECK + 4].try_into().unwrap());
        if check != check_word(r) {
            return Err(RecordError::BadCheck);
        }
        let word = |o: usize| u32::from_le_bytes(r[o..o + 4].try_into().unwrap());
        let op = r[BYTE_OPCODE];
        if op == OP_ENTANGLE {
            let channels = u16::from_le_bytes([r[20], r[21]]);
            return Ok(Record::Entangle {
                nonce: word(8),
                heard: word(12),
                incarnation: word(16),
                channels,
            });
        }
        let body = match op {
            OP_STATE => Body::None,
            OP_OFFER => Body::Payload(r[PAYLOAD_OFFSET..].try_into().unwrap()),
            OP_OFFER_VERB => Body::Verb(r[PAYLOAD_OFFSET..].try_into().unwrap()),
            OP_ECHO => Body::Digest(word(8)),
            other => return Err(RecordError::UnknownOpcode(other)),
        };
        let channel = r[BYTE_CHANNEL];
        if channel as usize >= k {
            return Err(RecordError::BadChannel(channel));
        }
        let s = r[BYTE_STATE];
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
    /// Byte 0: one of ours, handed back: certainly not delivered (local reset).
    pub const KIND_NOT_DELIVERED: u8 = 0x02;
    /// Byte 0: one of ours, handed back: in doubt (decided COMMIT, but the
    /// peer lost its state before confirming).
    pub const KIND_IN_DOUBT: u8 = 0x03;
    /// Byte 0: the result of one of our remote verbs, returned at the commit
    /// decision; bytes 8..56 are the first 48 bytes of its result slot.
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
        ("0", "opcode", format!("0x{OP_STATE:02x} state only, 0x{OP_OFFER:02x} + payload, 0x{OP_OFFER_VERB:02x} + atomic verb, 0x{OP_ECHO:02x} + digest, 0x{OP_ENTANGLE:02x} entangle")),
        ("1", "liveness", "channel of this slot (slot n → channel n mod K)".to_string()),
        ("2", "state", format!(
            "bits 2..0 sender state ({}), bit 3 its bit; bits 5..4 receiver state ({}), bit 6 its bit",
            tx_state::NAMES.join("/"), rx_state::NAMES.join("/"))),
        ("3", "transition", "last move: bit 7 reverse, bit 6 receiver role, bits 5..3 from, 2..0 to (traces only)".to_string()),
        ("4..8", "operand", "check word: CRC-32C over bytes 0..4 and 8..64".to_string()),
        ("8..64", "slices 1–7", "OFFER: the 56-byte payload; OFFER_VERB: the verb; ECHO: digest (CRC-32C of the payload heard) in bytes 8..12, and a verb's result in bytes 16..64; ENTANGLE: nonce 8..12, nonce heard 12..16, incarnation 16..20, channels offered 20..22".to_string()),
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
    fn crc32c_check_value() {
        // The published check value of CRC-32C over "123456789".
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn records_round_trip_and_a_flipped_bit_is_not_heard() {
        let mut p = [0u8; PAYLOAD_BYTES];
        for (i, b) in p.iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let recs = [
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
                body: Body::Digest(0xdead_beef),
            },
            Record::Entangle {
                nonce: 5,
                heard: 9,
                incarnation: 12,
                channels: 3,
            },
        ];
        for r in recs {
            let b = r.to_bytes();
            assert_eq!(Record::from_bytes(&b, 4), Ok(r));
            for bit in [0, 9, 17, 40, 100, 511] {
                let mut c = b;
                c[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(
                    Record::from_bytes(&c, 4),
                    Err(RecordError::BadCheck),
                    "bit {bit}"
                );
            }
        }
        let b = recs[0].to_bytes();
        assert_eq!(Record::from_bytes(&b, 2), Err(RecordError::BadChannel(3)));
    }

    #[test]
    fn an_all_zero_slot_is_not_heard() {
        assert_eq!(
            Record::from_bytes(&[0; RECORD_BYTES], 4),
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
