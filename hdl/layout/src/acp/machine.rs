//! The channel machine: what one channel's state becomes when a side hears
//! a record on it. [`hear`] is the definition; `hdl/src/acp/channel_machine.rs`
//! implements it (its block test compares the two on every input),
//! `testbench/tests/nic/acp.rs` checks every move the Verilated pair states
//! against [`moves`], and `testbench/spin/acp_link.pml` models it for SPIN
//! (`testbench/tests/nic/spin.rs` generates tables of `hear` over the model's
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
//! | COMMIT b | EXPECT or REJECT !b, STATE, X = d, last result handed up | IDLE !b | confirmed: free the copy; a verb's result (the record's) is final; the next payload, if held, is the one held now |
//! | REVERSE b | EXPECT b or REJECT b | IDLE b | keep holding; offered again |
//! | REVERSE b | TENTATIVE b, ECHO | REVERSE b, check !X | the check of the newest echo |
//!
//! A payload being handed back (its channel was flushed) is not offered.
//!
//! **Decisions merged with the next offer** (`shared/ACP.md`: "a record
//! carries a decision and the next offer together"). Defined here and
//! checked in SPIN (`testbench/spin`), and made by the HDL for messages
//! and verbs alike (for a verb the sender keeps the result of the echo it
//! decided on, which PASSED makes final, and the receiver keeps the
//! delivered verb's result beside the next one's for its proof). The
//! sender role may
//! hold a second payload, the next one (`next`), which it offers at the
//! other bit in the records that state its decision: the state
//! COMMIT_OFFER b. An OFFER record in that state carries the next payload,
//! and its decision check D (the echo check of b's echo) rides in the check
//! word, so the receiver hears the record only if D is the check it
//! expects. A receiver that stored the next payload states TENTATIVE !b,
//! which it can reach only by delivering b, and its echo carries the proof
//! of that delivery: every echo's receiver field is the digest XOR the
//! receiver's proof (the echo check of its last delivery, 0 after a
//! flush), and the sender expects its digest XOR the proof it last heard
//! (`key`), or, in COMMIT_OFFER b, XOR its decision check for b. So one
//! record of each side per payload: a channel moves one payload per round
//! trip. The rows the merge adds (E' = the next payload's echo, d' its
//! digest; "E' = d'" means E' = d' XOR our decision check):
//!
//! | from | heard | to | effect |
//! |---|---|---|---|
//! | OFFER b, next held | TENTATIVE b, ECHO, E = d | COMMIT_OFFER b, check X | decision: delivered; the next payload offered in the same records |
//! | COMMIT_OFFER b | TENTATIVE b, ECHO, E = d | COMMIT_OFFER b, check X | the check of the newest echo |
//! | COMMIT_OFFER b | TENTATIVE !b, ECHO, E' = d', last result handed up | COMMIT !b, check X' | b confirmed (its result, kept from the echo decided on, is final) and the next payload decided: delivered |
//! | COMMIT_OFFER b | EXPECT or TENTATIVE !b, STATE, X = d, last result handed up | OFFER !b | b confirmed by its proof; the next payload is the one offered |
//! | COMMIT_OFFER b | REJECT !b, STATE, X = d, last result handed up | IDLE !b | b confirmed; the next payload was refused for lack of room |
//!
//! A next payload loaded while COMMIT b joins the decision at once
//! ([`offers_next_on_load`], the OFFER_NEXT move).
//!
//! **Every other record plain.** Of a COMMIT_OFFER side's records of a
//! channel, every other one states the decision check in the payload
//! slices (a STATE record, or the receiver role's echo or proof), as a
//! COMMIT does. Its receiver hears those whatever check it expects, so it
//! can go Up on them and counts no run of records that fail their check:
//! an entangling side goes Up only on a record whose check passes, and a
//! COMMIT_OFFER whose check the receiver does not expect (after a damaged
//! echo changed it, say) would otherwise never be heard. SPIN finds both
//! without it (`BUG_ALL_FOLDED`).
//!
//! A COMMIT_OFFER's OFFER record is heard only if its folded check is the
//! one the receiver expects: D = x at the receiver's bit, D = p at the
//! other ([`Move::not_heard`]); it then stands for what that check proves.
//!
//! **An echo beside the offer** (protocol 6, `super`'s "An echo beside a
//! payload"). An OFFER or OFFER_VERB record stating TENTATIVE may carry
//! the echo of the message its side holds in the check word (state bit 7,
//! [`Heard::echo_folded`]). It is heard only if that echo is the one we
//! expect: E = d at our bit, E' = d' at the other (otherwise
//! [`Move::not_heard`]), and then it is an ECHO record to the sender role
//! and an offer to the receiver role, both at once: its X is the echo
//! check of E with 48 zero result bytes. So every sender row above that
//! reads "ECHO, E = d" (or "E' = d'") also takes a heard folded offer,
//! and no row that needs a mismatching echo (a REVERSE) ever sees one: a
//! mismatch is carried only by the explicit ECHO records, which a side
//! that folds still sends while it restates.
//!
//! An echo E' that does not match is not a proof: the sender waits for the
//! receiver's STATE proof, which a receiver sends, alternating with its
//! echo, while it is TENTATIVE and its peer is heard behind it.
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
//! | TENTATIVE b | COMMIT_OFFER b, OFFER, D = x, room | TENTATIVE !b | deliver b, store the next payload tentatively (a verb: run it) |
//! | TENTATIVE b | COMMIT_OFFER b, OFFER, D = x, no room | REJECT !b | deliver b |
//! | TENTATIVE b | COMMIT_OFFER b, STATE or ECHO, D = x | EXPECT !b | deliver b |
//! | EXPECT !b | COMMIT_OFFER b, OFFER, D = p, room | TENTATIVE !b | store the next payload (the proof check stands for "peer heard at our bit": D is the proof of what we delivered last) |
//! | EXPECT !b | COMMIT_OFFER b, OFFER, D = p, no room | REJECT !b | |
//!
//! p is our proof, the echo check of our last delivery.
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

pub mod moves;

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
    /// Sender role: the next payload is held too (offered with the
    /// decision on the one held: COMMIT_OFFER).
    pub next: bool,
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
    /// Its receiver field is the echo we expect of our payload (E = d: its
    /// digest XOR the proof we last heard).
    pub receiver_is_digest: bool,
    /// Its receiver field is the echo we expect of our next payload while
    /// COMMIT_OFFER (E' = d': its digest XOR our decision check).
    pub receiver_is_next_digest: bool,
    /// Its echo check is our payload's digest (X = d).
    pub echo_check_is_digest: bool,
    /// Its decision check is the echo check of what we hold (D = x), or its
    /// complement (D = !x).
    pub decision_commits: bool,
    pub decision_reverses: bool,
    /// Its decision check is our proof, the echo check of our last
    /// delivery (D = p).
    pub decision_is_proof: bool,
    /// An offer (OFFER or OFFER_VERB) that carries the peer's echo in its
    /// check word (state bit 7, [`STATE_ECHO_FOLDED`](super::STATE_ECHO_FOLDED)):
    /// heard as an ECHO too, and only if the echo folded is the one we
    /// expect (`receiver_is_digest` at our bit, `receiver_is_next_digest`
    /// at the other). Ignored in any other record.
    pub echo_folded: bool,
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
    /// Sender role: the delivery is proven; free the copy (a verb's result
    /// is final: the record's, or with `confirm_by_echo` the one kept from
    /// the echo the decision was made on). The next payload, if held, is
    /// now the one held.
    pub confirm: bool,
    pub confirm_by_echo: bool,
    /// Receiver role: store the offered payload tentatively (`exec`: it is a
    /// verb, hand it to the atomic unit); deliver it; erase it.
    pub store: bool,
    pub exec: bool,
    pub deliver: bool,
    pub erase: bool,
    /// Receiver role: the peer's sender role is behind ours (waits for our proof).
    pub proof_due: bool,
    /// The record is not heard: a COMMIT_OFFER's OFFER record whose folded
    /// decision check is not the one expected (`decision_commits` at our
    /// bit, `decision_is_proof` at the other), which is what damage past
    /// its check word looks like. Nothing changes; it counts as a record
    /// that failed its check.
    pub not_heard: bool,
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
    let offer = heard.op == OP_OFFER || heard.op == OP_OFFER_VERB;
    let folded_check = if heard.tx_bit == ch.rx_bit {
        heard.decision_commits
    } else {
        heard.decision_is_proof
    };
    let at_bit = heard.rx_bit == ch.tx_bit;
    let echo_folded = offer && heard.echo_folded;
    let folded_echo = if at_bit {
        heard.receiver_is_digest
    } else {
        heard.receiver_is_next_digest
    };
    if (heard.tx == ts::COMMIT_OFFER && offer && !folded_check) || (echo_folded && !folded_echo) {
        m.not_heard = true;
        m.proof_due = ch.proof_due;
        return m;
    }
    let echo = heard.op == OP_ECHO || echo_folded;
    let fields = heard.op == OP_STATE || heard.op == OP_ECHO;
    // Sender role, on the peer's receiver role.
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
            if heard.receiver_is_digest && ch.next {
                sender(ts::COMMIT_OFFER, ch.tx_bit, moves::COMMIT_NEXT);
                m.decision_check = Some(DecisionCheck::Echo);
                m.event = Some(Event::Commit);
            } else if heard.receiver_is_digest {
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
        ts::COMMIT | ts::COMMIT_OFFER
            if at_bit && heard.rx == rs::TENTATIVE && echo && heard.receiver_is_digest =>
        {
            m.decision_check = Some(DecisionCheck::Echo);
        }
        ts::COMMIT_OFFER
            if !at_bit
                && heard.rx == rs::TENTATIVE
                && echo
                && heard.receiver_is_next_digest
                && !ch.result_pending =>
        {
            sender(ts::COMMIT, !ch.tx_bit, moves::PASSED);
            m.confirm = true;
            m.confirm_by_echo = true;
            m.decision_check = Some(DecisionCheck::Echo);
            m.event = Some(Event::Commit);
        }
        ts::COMMIT_OFFER
            if !at_bit
                && heard.op == OP_STATE
                && heard.echo_check_is_digest
                && !ch.result_pending =>
        {
            if heard.rx == rs::REJECT {
                sender(ts::IDLE, !ch.tx_bit, moves::CONFIRMED_REJECTED);
                m.event = Some(Event::Reject);
            } else {
                sender(ts::OFFER, !ch.tx_bit, moves::CONFIRMED_OFFERING);
            }
            m.confirm = true;
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
    let verb = heard.op == OP_OFFER_VERB;
    let room_for_it = room.store && (!verb || room.verb);
    let at_our_bit = heard.tx_bit == ch.rx_bit;
    // An offer at our bit, once the peer was heard there before; or the
    // next payload of a merged decision on the transfer we delivered last:
    // its folded check is our proof, so the peer is heard at our bit in all
    // but the state byte.
    let takes_offer = ch.rx == rs::EXPECT
        && offer
        && if at_our_bit {
            heard.tx == ts::OFFER && !ch.proof_due
        } else {
            heard.tx == ts::COMMIT_OFFER && heard.decision_is_proof
        };
    if takes_offer {
        if room_for_it {
            m.rx = rs::TENTATIVE;
            m.transition = Some(moves::STORE);
            m.store = true;
            m.exec = verb;
        } else {
            m.rx = rs::REJECT;
            m.transition = Some(moves::REJECT);
        }
    } else if at_our_bit {
        match ch.rx {
            rs::TENTATIVE if heard.tx == ts::COMMIT && fields && heard.decision_commits => {
                m.rx = rs::EXPECT;
                m.rx_bit = !ch.rx_bit;
                m.transition = Some(moves::DELIVER);
                m.deliver = true;
            }
            rs::TENTATIVE if heard.tx == ts::COMMIT_OFFER && heard.decision_commits => {
                m.rx_bit = !ch.rx_bit;
                m.deliver = true;
                if offer && room_for_it {
                    m.rx = rs::TENTATIVE;
                    m.transition = Some(moves::DELIVER_STORE);
                    m.store = true;
                    m.exec = verb;
                } else if offer {
                    m.rx = rs::REJECT;
                    m.transition = Some(moves::DELIVER_REJECT);
                } else {
                    m.rx = rs::EXPECT;
                    m.transition = Some(moves::DELIVER);
                }
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

/// Whether a next payload loaded beside a held one joins the decision at
/// once: COMMIT b becomes COMMIT_OFFER b (the OFFER_NEXT move, the only
/// move not made on hearing a record). Without it the next payload would
/// wait for the proof of b and a round trip more. The decision on b is
/// fixed already, so offering the next payload with it changes nothing the
/// peer has acted on, and the check it states is the one it stated. The
/// HDL also makes it in the cycle of a PASSED move, with a payload loaded
/// into the buffer PASSED frees, so while payloads wait a decision is
/// never stated without the next offer (SPIN's host may load right after
/// a record is heard, before the next is formed: the same sequence).
pub fn offers_next_on_load(ch: Channel) -> bool {
    ch.tx == ts::COMMIT && ch.holding && !ch.returning
}

/// Calls `f` with every input of [`hear`] once (137,625,600 of them): both
/// roles' states and bits with every flag, every channel-record opcode
/// (an offer stating TENTATIVE also with its echo folded in), every heard
/// state and bit, and every outcome of the comparisons.
pub fn for_each_input(mut f: impl FnMut(Channel, Heard, Room)) {
    const OPS: [u8; 4] = [OP_STATE, OP_OFFER, OP_ECHO, OP_OFFER_VERB];
    for tx in 0..=ts::COMMIT_OFFER {
        for bits in 0u32..1 << 17 {
            let b = |i: u32| bits >> i & 1 == 1;
            let rx = (bits & 3) as u8;
            if rx > rs::REJECT {
                continue;
            }
            let ch = Channel {
                tx,
                tx_bit: b(2),
                rx,
                rx_bit: b(3),
                holding: b(4),
                next: b(5),
                returning: b(6),
                result_pending: b(7),
                proof_due: b(8),
            };
            let room = Room {
                store: b(9),
                verb: b(10),
            };
            let flags = (bits >> 11) as u8;
            for op in OPS {
                for htx in 0..=ts::COMMIT_OFFER {
                    for hrx in 0..3u8 {
                        for hbits in 0..4u8 {
                            let heard = Heard {
                                op,
                                tx: htx,
                                tx_bit: hbits & 1 == 1,
                                rx: hrx,
                                rx_bit: hbits & 2 == 2,
                                receiver_is_digest: flags & 1 == 1,
                                receiver_is_next_digest: flags & 2 == 2,
                                echo_check_is_digest: flags & 4 == 4,
                                decision_commits: flags & 8 == 8,
                                decision_reverses: flags & 16 == 16,
                                decision_is_proof: flags & 32 == 32,
                                echo_folded: false,
                            };
                            f(ch, heard, room);
                            // The same offer with an echo folded in (only
                            // a TENTATIVE receiver role folds one).
                            if (op == OP_OFFER || op == OP_OFFER_VERB) && hrx == rs::TENTATIVE {
                                f(
                                    ch,
                                    Heard {
                                        echo_folded: true,
                                        ..heard
                                    },
                                    room,
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
