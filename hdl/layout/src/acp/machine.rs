//! The channel machine: what one channel's state becomes when a side hears
//! a record on it. [`hear`] is the definition; `hdl/src/acp/channel_machine.rs`
//! implements it (its block test compares the two on every input),
//! `testbench/tests/acp.rs` checks every move the Verilated pair states
//! against [`moves`], and `testbench/spin/acp_link.pml` models it for SPIN
//! (`testbench/tests/spin.rs` generates tables of `hear` over the model's
//! inputs, and the model asserts that every move it makes is the one they
//! give).
//!
//! A side hears a channel record only if its check word passes under the
//! session of the current entanglement, and only while Up. Every
//! combination not listed changes nothing. E is the record's receiver field,
//! X = [`echo_check`](super::echo_check) of E and the record's result, d our
//! payload's digest.
//!
//! Sender role, on the peer's receiver-role state `(rs, rb)`:
//!
//! | from | heard | to | effect |
//! |---|---|---|---|
//! | IDLE b, holding | EXPECT b or TENTATIVE b | OFFER b | (TENTATIVE: a REJECT we heard was damaged) |
//! | IDLE b, not holding | TENTATIVE b, ECHO | REVERSE b, check !X | it holds what we never offered |
//! | OFFER b | TENTATIVE b, ECHO, E = d | COMMIT b, check X | decision: delivered |
//! | OFFER b | TENTATIVE b, ECHO, E ≠ d | REVERSE b, check !X | decision: not delivered |
//! | OFFER b | REJECT b | IDLE b | keep holding |
//! | COMMIT b | TENTATIVE b, ECHO, E = d | COMMIT b, check X | the check of the newest echo |
//! | COMMIT b | EXPECT or REJECT !b, STATE, X = d, last result handed up | IDLE !b | confirmed: free the copy; a verb's result (the record's) is final |
//! | REVERSE b | EXPECT b or REJECT b | IDLE b | keep holding; offered again |
//! | REVERSE b | TENTATIVE b, ECHO | REVERSE b, check !X | the check of the newest echo |
//!
//! A payload being handed back (its channel was flushed) is not offered.
//!
//! Receiver role, on the peer's sender-role state `(ts, tb)` and the
//! record's decision check D; x is the echo check of what we hold:
//!
//! | from | heard | to | effect |
//! |---|---|---|---|
//! | EXPECT b, peer heard at b before | OFFER b + payload, room | TENTATIVE b | store tentatively (a verb: run it), keep digest |
//! | EXPECT b, peer heard at b before | OFFER b + payload, no room | REJECT b | |
//! | TENTATIVE b | COMMIT b, STATE or ECHO, D = x | EXPECT !b | deliver (a verb: make it permanent); x is now the proof |
//! | TENTATIVE b | REVERSE b, STATE or ECHO, D = !x | EXPECT b | erase (a verb: undo it) |
//! | REJECT b | IDLE b | EXPECT b | |
//!
//! "Peer heard at b before": the last record heard on the channel stated
//! the sender role at our bit. Right after a delivery the sender is behind
//! (it waits for the proof), so one damaged record cannot make us store a
//! payload the sender never offered while we still owe it the proof.
//!
//! When both roles move on one record, the record's transition byte names
//! the receiver role's move.

use super::{rx_state as rs, tx_state as ts, OP_ECHO, OP_OFFER, OP_OFFER_VERB, OP_STATE};

/// The transition byte of a move (slice 0 byte 3): bit 7 reverse (an erase
/// or a REVERSE), bit 6 role (1 = receiver), bits 5..3 from, bits 2..0 to.
pub const fn transition_byte(reverse: bool, receiver: bool, from: u8, to: u8) -> u8 {
    (reverse as u8) << 7 | (receiver as u8) << 6 | (from & 7) << 3 | (to & 7)
}

/// The transition bytes of the moves, by name.
pub mod moves {
    use super::transition_byte as t;
    use crate::acp::{rx_state as rs, tx_state as ts};
    /// Sender: IDLE b → OFFER b.
    pub const OFFER: u8 = t(false, false, ts::IDLE, ts::OFFER);
    /// Sender: OFFER b → COMMIT b (the decision: delivered).
    pub const COMMIT: u8 = t(false, false, ts::OFFER, ts::COMMIT);
    /// Sender: OFFER b → REVERSE b (the decision: not delivered).
    pub const REVERSE: u8 = t(true, false, ts::OFFER, ts::REVERSE);
    /// Sender: IDLE b → REVERSE b (the peer holds what we never offered).
    pub const STRAY: u8 = t(true, false, ts::IDLE, ts::REVERSE);
    /// Sender: OFFER b → IDLE b (the offer was rejected).
    pub const REJECTED: u8 = t(false, false, ts::OFFER, ts::IDLE);
    /// Sender: COMMIT b → IDLE !b (the delivery is proven).
    pub const CONFIRMED: u8 = t(false, false, ts::COMMIT, ts::IDLE);
    /// Sender: REVERSE b → IDLE b (erased at the peer; offered again later).
    pub const REOFFER: u8 = t(true, false, ts::REVERSE, ts::IDLE);
    /// Receiver: EXPECT b → TENTATIVE b (stored tentatively).
    pub const STORE: u8 = t(false, true, rs::EXPECT, rs::TENTATIVE);
    /// Receiver: EXPECT b → REJECT b (no room).
    pub const REJECT: u8 = t(false, true, rs::EXPECT, rs::REJECT);
    /// Receiver: TENTATIVE b → EXPECT !b (delivered).
    pub const DELIVER: u8 = t(false, true, rs::TENTATIVE, rs::EXPECT);
    /// Receiver: TENTATIVE b → EXPECT b (erased).
    pub const ERASE: u8 = t(true, true, rs::TENTATIVE, rs::EXPECT);
    /// Receiver: REJECT b → EXPECT b (the sender stopped offering).
    pub const UNREJECT: u8 = t(false, true, rs::REJECT, rs::EXPECT);
    /// Every move, with its name (for traces and checks).
    pub const ALL: [(u8, &str); 12] = [
        (OFFER, "OFFER"),
        (COMMIT, "COMMIT"),
        (REVERSE, "REVERSE"),
        (STRAY, "STRAY"),
        (REJECTED, "REJECTED"),
        (CONFIRMED, "CONFIRMED"),
        (REOFFER, "REOFFER"),
        (STORE, "STORE"),
        (REJECT, "REJECT"),
        (DELIVER, "DELIVER"),
        (ERASE, "ERASE"),
        (UNREJECT, "UNREJECT"),
    ];
    /// The name of a transition byte, if it is a move.
    pub fn name(byte: u8) -> Option<&'static str> {
        ALL.iter().find(|(b, _)| *b == byte).map(|(_, n)| *n)
    }
}

/// Whether a channel record's transition byte fits its state byte (slice 0
/// bytes 3 and 2): 0 (no move since the channel was flushed), or one of
/// [`moves::ALL`] whose role stands at that move's to-state. Every record a
/// side sends fits; the link model checks it on every record.
pub fn stated_move_fits(state: u8, transition: u8) -> bool {
    if transition == 0 {
        return true;
    }
    if moves::name(transition).is_none() {
        return false;
    }
    let to = transition & 7;
    if transition & 0x40 != 0 {
        (state >> 4) & 3 == to
    } else {
        state & 7 == to
    }
}

/// What a side holds for one channel when it hears a record on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Channel {
    /// Sender role: state ([`tx_state`](super::tx_state)) and alternation bit.
    pub tx: u8,
    pub tx_bit: bool,
    /// Receiver role: state ([`rx_state`](super::rx_state)) and alternation bit.
    pub rx: u8,
    pub rx_bit: bool,
    /// Sender role: a payload is held.
    pub holding: bool,
    /// Sender role: the held payload is being handed back (the channel was flushed).
    pub returning: bool,
    /// Sender role: the last verb result is not yet handed up (a proof of
    /// the next transfer waits for it).
    pub result_pending: bool,
    /// Receiver role: the peer's sender role was last heard at the other
    /// bit (it waits for our proof).
    pub proof_due: bool,
}

/// What the heard record says, and how its checks compare with what we hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Heard {
    /// Its opcode (a channel record's: not ENTANGLE).
    pub op: u8,
    /// The peer's sender role: state and bit.
    pub tx: u8,
    pub tx_bit: bool,
    /// The peer's receiver role: state and bit.
    pub rx: u8,
    pub rx_bit: bool,
    /// Its receiver field is our payload's digest (E = d).
    pub receiver_is_digest: bool,
    /// Its echo check is our payload's digest (X = d).
    pub echo_check_is_digest: bool,
    /// Its decision check is the echo check of what we hold (D = x), or its
    /// complement (D = !x).
    pub decision_commits: bool,
    pub decision_reverses: bool,
}

/// What the receiver role can take now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Room {
    /// The message FIFO has room for a commit from every channel.
    pub store: bool,
    /// The atomic unit can take a verb, and its line is not held.
    pub verb: bool,
}

/// The decision check the sender role states from now on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionCheck {
    /// The heard record's echo check (COMMIT).
    Echo,
    /// Its complement (REVERSE).
    Complement,
}

/// A counted event of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Commit,
    Reverse,
    Reject,
}

/// What the channel becomes, and what else happens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Move {
    pub tx: u8,
    pub tx_bit: bool,
    pub rx: u8,
    pub rx_bit: bool,
    /// The transition byte of the move, if a state changed.
    pub transition: Option<u8>,
    /// The decision check is set (a decision, or the check of a newer echo).
    pub decision_check: Option<DecisionCheck>,
    pub event: Option<Event>,
    /// Sender role: the delivery is proven; free the copy (a verb's result is final).
    pub confirm: bool,
    /// Receiver role: store the offered payload tentatively (`exec`: it is a
    /// verb, hand it to the atomic unit); deliver it; erase it.
    pub store: bool,
    pub exec: bool,
    pub deliver: bool,
    pub erase: bool,
    /// Receiver role: the peer's sender role is behind ours (waits for our proof).
    pub proof_due: bool,
    /// Sender role, left IDLE: the record states the peer's receiver role at
    /// our bit and not REJECT, so hearing it again with a payload held would
    /// offer it. A payload loaded while this holds is offered at once
    /// ([`offers_on_load`]).
    pub peer_ready: bool,
}

/// The channel's move on hearing `heard` (the tables in the module docs).
pub fn hear(ch: Channel, heard: Heard, room: Room) -> Move {
    let mut m = Move {
        tx: ch.tx,
        tx_bit: ch.tx_bit,
        rx: ch.rx,
        rx_bit: ch.rx_bit,
        ..Move::default()
    };
    let echo = heard.op == OP_ECHO;
    let fields = heard.op == OP_STATE || echo;
    // Sender role, on the peer's receiver role.
    let at_bit = heard.rx_bit == ch.tx_bit;
    let mut sender = |to: u8, bit: bool, t: u8| {
        m.tx = to;
        m.tx_bit = bit;
        m.transition = Some(t);
    };
    match ch.tx {
        ts::IDLE if at_bit && ch.holding && !ch.returning && heard.rx != rs::REJECT => {
            sender(ts::OFFER, ch.tx_bit, moves::OFFER)
        }
        ts::IDLE if at_bit && !ch.holding && heard.rx == rs::TENTATIVE && echo => {
            sender(ts::REVERSE, ch.tx_bit, moves::STRAY);
            m.decision_check = Some(DecisionCheck::Complement);
            m.event = Some(Event::Reverse);
        }
        ts::OFFER if at_bit && heard.rx == rs::TENTATIVE && echo => {
            if heard.receiver_is_digest {
                sender(ts::COMMIT, ch.tx_bit, moves::COMMIT);
                m.decision_check = Some(DecisionCheck::Echo);
                m.event = Some(Event::Commit);
            } else {
                sender(ts::REVERSE, ch.tx_bit, moves::REVERSE);
                m.decision_check = Some(DecisionCheck::Complement);
                m.event = Some(Event::Reverse);
            }
        }
        ts::OFFER if at_bit && heard.rx == rs::REJECT => {
            sender(ts::IDLE, ch.tx_bit, moves::REJECTED);
            m.event = Some(Event::Reject);
        }
        ts::COMMIT if at_bit && heard.rx == rs::TENTATIVE && echo && heard.receiver_is_digest => {
            m.decision_check = Some(DecisionCheck::Echo);
        }
        ts::COMMIT
            if !at_bit
                && heard.op == OP_STATE
                && heard.rx != rs::TENTATIVE
                && heard.echo_check_is_digest
                && !ch.result_pending =>
        {
            sender(ts::IDLE, !ch.tx_bit, moves::CONFIRMED);
            m.confirm = true;
        }
        ts::REVERSE if at_bit && heard.rx != rs::TENTATIVE => {
            sender(ts::IDLE, ch.tx_bit, moves::REOFFER)
        }
        ts::REVERSE if at_bit && heard.rx == rs::TENTATIVE && echo => {
            m.decision_check = Some(DecisionCheck::Complement);
        }
        _ => {}
    }
    // Receiver role, on the peer's sender role (its move names the record's
    // transition when both roles move).
    if heard.tx_bit == ch.rx_bit {
        let offer = heard.op == OP_OFFER || heard.op == OP_OFFER_VERB;
        let verb = heard.op == OP_OFFER_VERB;
        match ch.rx {
            rs::EXPECT if heard.tx == ts::OFFER && offer && !ch.proof_due => {
                if room.store && (!verb || room.verb) {
                    m.rx = rs::TENTATIVE;
                    m.transition = Some(moves::STORE);
                    m.store = true;
                    m.exec = verb;
                } else {
                    m.rx = rs::REJECT;
                    m.transition = Some(moves::REJECT);
                }
            }
            rs::TENTATIVE if heard.tx == ts::COMMIT && fields && heard.decision_commits => {
                m.rx = rs::EXPECT;
                m.rx_bit = !ch.rx_bit;
                m.transition = Some(moves::DELIVER);
                m.deliver = true;
            }
            rs::TENTATIVE if heard.tx == ts::REVERSE && fields && heard.decision_reverses => {
                m.rx = rs::EXPECT;
                m.transition = Some(moves::ERASE);
                m.erase = true;
            }
            rs::REJECT if heard.tx == ts::IDLE => {
                m.rx = rs::EXPECT;
                m.transition = Some(moves::UNREJECT);
            }
            _ => {}
        }
    }
    m.proof_due = heard.tx_bit != m.rx_bit;
    m.peer_ready = m.tx == ts::IDLE && heard.rx_bit == m.tx_bit && heard.rx != rs::REJECT;
    m
}

/// Whether a payload loaded into an idle channel is offered at once: the
/// last record heard on it left `peer_ready` set. This is [`hear`] applied
/// to that record again, now with the payload held (the IDLE → OFFER rule),
/// so it makes no move `hear` could not make: the peer stating the same
/// state twice is what every slot may do. With slots by event the peer
/// restates an unchanged channel only in its share of restating slots, so
/// without this a channel freed by a confirmation would wait for that
/// share before its next offer.
pub fn offers_on_load(ch: Channel, peer_ready: bool) -> bool {
    peer_ready && ch.tx == ts::IDLE && !ch.returning
}

/// Calls `f` with every input of [`hear`] once (9,437,184 of them): both
/// roles' states and bits with every flag, every channel-record opcode,
/// every heard state and bit, and every outcome of the comparisons.
pub fn for_each_input(mut f: impl FnMut(Channel, Heard, Room)) {
    const OPS: [u8; 4] = [OP_STATE, OP_OFFER, OP_ECHO, OP_OFFER_VERB];
    for bits in 0u32..1 << 16 {
        let b = |i: u32| bits >> i & 1 == 1;
        let tx = (bits & 3) as u8;
        let rx = (bits >> 2 & 3) as u8;
        if rx > rs::REJECT {
            continue;
        }
        let ch = Channel {
            tx,
            tx_bit: b(4),
            rx,
            rx_bit: b(5),
            holding: b(6),
            returning: b(7),
            result_pending: b(8),
            proof_due: b(9),
        };
        let room = Room {
            store: b(10),
            verb: b(11),
        };
        let flags = (bits >> 12) as u8;
        for op in OPS {
            for htx in 0..4u8 {
                for hrx in 0..3u8 {
                    for hbits in 0..4u8 {
                        let heard = Heard {
                            op,
                            tx: htx,
                            tx_bit: hbits & 1 == 1,
                            rx: hrx,
                            rx_bit: hbits & 2 == 2,
                            receiver_is_digest: flags & 1 == 1,
                            echo_check_is_digest: flags & 2 == 2,
                            decision_commits: flags & 4 == 4,
                            decision_reverses: flags & 8 == 8,
                        };
                        f(ch, heard, room);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every move `hear` makes is one of the named moves, goes from the
    /// state it names to the state it names, and the tables' guards hold.
    #[test]
    fn every_move_is_a_named_move_between_its_states() {
        let mut seen = std::collections::BTreeSet::new();
        for_each_input(|ch, heard, room| {
            let m = hear(ch, heard, room);
            let sender_moved = (m.tx, m.tx_bit) != (ch.tx, ch.tx_bit);
            let receiver_moved = (m.rx, m.rx_bit) != (ch.rx, ch.rx_bit);
            assert_eq!(
                m.transition.is_some(),
                sender_moved || receiver_moved,
                "{ch:?} {heard:?}"
            );
            if let Some(t) = m.transition {
                assert!(moves::name(t).is_some(), "{t:#04x}");
                seen.insert(t);
                let receiver = t & 0x40 != 0;
                let (from, to) = (t >> 3 & 7, t & 7);
                if receiver {
                    assert!(receiver_moved);
                    assert_eq!((ch.rx, m.rx), (from, to), "{ch:?} {heard:?}");
                } else {
                    assert!(sender_moved && !receiver_moved);
                    assert_eq!((ch.tx, m.tx), (from, to), "{ch:?} {heard:?}");
                }
            }
            // A delivery or an erase needs the peer's decision with its check.
            if m.deliver {
                assert!(heard.decision_commits && heard.tx == ts::COMMIT);
            }
            if m.erase {
                assert!(heard.decision_reverses && heard.tx == ts::REVERSE);
            }
            // Nothing is stored while the peer waits for our proof.
            if m.store {
                assert!(!ch.proof_due && room.store);
            }
            // A confirmation needs a proof that matches our digest.
            if m.confirm {
                assert!(heard.echo_check_is_digest && !ch.result_pending);
            }
            // Loading after this record offers exactly when hearing it
            // again with the payload held would.
            if m.tx == ts::IDLE && !ch.returning {
                let again = Channel {
                    tx: m.tx,
                    tx_bit: m.tx_bit,
                    holding: true,
                    ..ch
                };
                assert_eq!(
                    offers_on_load(again, m.peer_ready),
                    hear(again, heard, room).tx == ts::OFFER,
                    "{ch:?} {heard:?}"
                );
            }
            // Only a record at our bit moves the sender role, except a proof.
            if sender_moved && !m.confirm {
                assert_eq!(heard.rx_bit, ch.tx_bit);
            }
        });
        assert_eq!(
            seen.len(),
            moves::ALL.len(),
            "every named move is reachable"
        );
    }

    #[test]
    fn a_stated_move_fits_only_its_own_to_state() {
        use crate::acp::state_byte;
        assert!(stated_move_fits(
            state_byte(ts::OFFER, false, rs::EXPECT, true),
            moves::OFFER
        ));
        assert!(!stated_move_fits(
            state_byte(ts::IDLE, false, rs::EXPECT, true),
            moves::OFFER
        ));
        assert!(stated_move_fits(
            state_byte(ts::IDLE, true, rs::TENTATIVE, false),
            moves::STORE
        ));
        assert!(!stated_move_fits(
            state_byte(ts::IDLE, true, rs::EXPECT, false),
            moves::STORE
        ));
        assert!(stated_move_fits(
            state_byte(ts::COMMIT, false, rs::REJECT, false),
            0
        ));
        assert!(!stated_move_fits(0, 0x3f));
    }

    #[test]
    fn transition_bytes_are_distinct() {
        let mut bytes: Vec<u8> = moves::ALL.iter().map(|(b, _)| *b).collect();
        bytes.sort();
        bytes.dedup();
        assert_eq!(bytes.len(), moves::ALL.len());
    }

    /// A transfer with no faults: offer, store, decide, deliver, confirm.
    #[test]
    fn a_clean_transfer_takes_the_moves_of_the_table() {
        let room = Room {
            store: true,
            verb: true,
        };
        let a = Channel {
            holding: true,
            ..Channel::default()
        };
        let b = Channel::default();
        // A hears B's EXPECT 0 and offers.
        let heard_b = Heard {
            op: OP_STATE,
            ..Heard::default()
        };
        let m = hear(a, heard_b, room);
        assert_eq!((m.tx, m.transition), (ts::OFFER, Some(moves::OFFER)));
        // B hears the offer and stores it.
        let offer = Heard {
            op: OP_OFFER,
            tx: ts::OFFER,
            ..Heard::default()
        };
        let mb = hear(b, offer, room);
        assert!(mb.store && mb.rx == rs::TENTATIVE);
        // A hears B's echo with its digest and commits.
        let a1 = Channel { tx: ts::OFFER, ..a };
        let echo = Heard {
            op: OP_ECHO,
            rx: rs::TENTATIVE,
            receiver_is_digest: true,
            ..Heard::default()
        };
        let m = hear(a1, echo, room);
        assert_eq!(m.event, Some(Event::Commit));
        assert_eq!(m.decision_check, Some(DecisionCheck::Echo));
        // B hears the COMMIT with its check and delivers, flipping its bit.
        let b1 = Channel {
            rx: rs::TENTATIVE,
            ..b
        };
        let commit = Heard {
            op: OP_STATE,
            tx: ts::COMMIT,
            decision_commits: true,
            ..Heard::default()
        };
        let mb = hear(b1, commit, room);
        assert!(mb.deliver && mb.rx_bit && mb.rx == rs::EXPECT);
        // A hears B's EXPECT 1 with the proof and is free again.
        let a2 = Channel {
            tx: ts::COMMIT,
            ..a
        };
        let proof = Heard {
            op: OP_STATE,
            tx: ts::COMMIT,
            rx_bit: true,
            echo_check_is_digest: true,
            ..Heard::default()
        };
        let m = hear(a2, proof, room);
        assert!(m.confirm && m.tx_bit && m.tx == ts::IDLE);
        // A damaged decision check delivers nothing.
        let damaged = Heard {
            decision_commits: false,
            ..commit
        };
        assert!(!hear(b1, damaged, room).deliver);
    }
}
