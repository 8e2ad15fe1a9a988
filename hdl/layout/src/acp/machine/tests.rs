//! The channel machine's tests: every input's move against the tables'
//! guards, and whole transfers, plain and merged.

use super::*;

/// Room for a message and a verb.
const ROOM: Room = Room {
    store: true,
    verb: true,
};

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
            assert!(heard.decision_commits);
            assert!(heard.tx == ts::COMMIT || heard.tx == ts::COMMIT_OFFER);
            assert_eq!(ch.rx, rs::TENTATIVE);
        }
        // A store needs an offer at our bit, or the next payload of a
        // merged decision whose check is our proof.
        if m.store {
            let at_our_bit = heard.tx == ts::OFFER && heard.tx_bit == ch.rx_bit;
            let merged = heard.tx == ts::COMMIT_OFFER
                && (heard.tx_bit == ch.rx_bit && heard.decision_commits
                    || heard.tx_bit != ch.rx_bit && heard.decision_is_proof);
            assert!(at_our_bit || merged, "{ch:?} {heard:?}");
        }
        // COMMIT_OFFER is entered (on hearing) only by a decision on
        // an echo that matched, with the next payload held.
        if m.tx == ts::COMMIT_OFFER && ch.tx != ts::COMMIT_OFFER {
            assert!(ch.tx == ts::OFFER && ch.next && heard.receiver_is_digest);
        }
        // A record that is not heard changes nothing.
        if m.not_heard {
            assert!(m.transition.is_none() && m.decision_check.is_none());
            assert!(!(m.store || m.deliver || m.erase || m.confirm));
        }
        // A confirmation by echo needs the next payload's echo to match
        // (it carries the proof of b).
        if m.confirm_by_echo {
            assert!(m.confirm && heard.receiver_is_next_digest && ch.tx == ts::COMMIT_OFFER);
        }
        // A side that holds no next payload and hears no merged decision
        // never makes a merged move: the merge is opt-in for each sender.
        let unmerged = ch.tx != ts::COMMIT_OFFER
            && heard.tx != ts::COMMIT_OFFER
            && !ch.next
            && !heard.receiver_is_next_digest
            && !heard.decision_is_proof;
        if unmerged {
            if let Some(t) = m.transition {
                assert!(!moves::MERGED.contains(&t), "{ch:?} {heard:?}");
            }
            assert!(m.tx != ts::COMMIT_OFFER);
        }
        if m.erase {
            assert!(heard.decision_reverses && heard.tx == ts::REVERSE);
        }
        // Nothing is stored while the peer waits for our proof, but the
        // next payload of a merged decision (its check is the proof).
        if m.store {
            assert!(room.store);
            assert!(!ch.proof_due || heard.tx == ts::COMMIT_OFFER);
        }
        // A confirmation needs a proof that matches our digest, or the
        // echo of the next payload that carries it.
        if m.confirm {
            assert!(heard.echo_check_is_digest || m.confirm_by_echo);
            assert!(!ch.result_pending);
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
        // Only a record at our bit moves the sender role, except a proof
        // (or the next payload's echo that carries it).
        if sender_moved && !m.confirm {
            assert_eq!(heard.rx_bit, ch.tx_bit);
        }
    });
    // OFFER_NEXT is made on loading, not on hearing.
    assert!(!seen.contains(&moves::OFFER_NEXT));
    assert_eq!(
        seen.len() + 1,
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
    let room = ROOM;
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

/// Three payloads with decisions merged: one record each way per
/// payload once the pipeline runs; the fallbacks when the next
/// payload's echo does not match, or the receiver delivered first.
#[test]
fn merged_transfers_take_the_moves_of_the_table() {
    let room = ROOM;
    // A offers payload 1 at bit 0 with payload 2 held next, and hears
    // B's echo of payload 1.
    let a = Channel {
        tx: ts::OFFER,
        holding: true,
        next: true,
        ..Channel::default()
    };
    let echo1 = Heard {
        op: OP_ECHO,
        rx: rs::TENTATIVE,
        receiver_is_digest: true,
        ..Heard::default()
    };
    let m = hear(a, echo1, room);
    assert_eq!((m.tx, m.tx_bit), (ts::COMMIT_OFFER, false));
    assert_eq!(m.transition, Some(moves::COMMIT_NEXT));
    assert_eq!(m.event, Some(Event::Commit));
    // B, TENTATIVE 0, hears COMMIT_OFFER 0 with payload 2 and the check
    // of its echo: delivers 1 and stores 2 at bit 1.
    let b = Channel {
        rx: rs::TENTATIVE,
        ..Channel::default()
    };
    let merged = Heard {
        op: OP_OFFER,
        tx: ts::COMMIT_OFFER,
        decision_commits: true,
        ..Heard::default()
    };
    let mb = hear(b, merged, room);
    assert!(mb.deliver && mb.store);
    assert_eq!((mb.rx, mb.rx_bit), (rs::TENTATIVE, true));
    assert_eq!(mb.transition, Some(moves::DELIVER_STORE));
    // Without the check (damaged, or of another transfer) nothing.
    let unchecked = hear(
        b,
        Heard {
            decision_commits: false,
            ..merged
        },
        room,
    );
    assert_eq!(unchecked.transition, None);
    // A hears B's echo of payload 2 at bit 1, which carries the proof
    // of 1: 1 is confirmed and 2 decided, in one move.
    let a1 = Channel {
        tx: ts::COMMIT_OFFER,
        ..a
    };
    let echo2 = Heard {
        op: OP_ECHO,
        rx: rs::TENTATIVE,
        rx_bit: true,
        receiver_is_next_digest: true,
        ..Heard::default()
    };
    let m = hear(a1, echo2, room);
    assert_eq!((m.tx, m.tx_bit), (ts::COMMIT, true));
    assert_eq!(m.transition, Some(moves::PASSED));
    assert!(m.confirm && m.confirm_by_echo);
    assert_eq!(m.decision_check, Some(DecisionCheck::Echo));
    // Payload 3 loaded now joins the decision on 2.
    let a2 = Channel {
        tx: ts::COMMIT,
        tx_bit: true,
        holding: true,
        next: false,
        ..a
    };
    assert!(offers_next_on_load(a2));
    // An echo of 2 that does not match is no proof: A waits for B's
    // STATE proof, then offers 2 on its own.
    let m = hear(
        a1,
        Heard {
            receiver_is_next_digest: false,
            ..echo2
        },
        room,
    );
    assert_eq!(m.transition, None);
    let proof = Heard {
        op: OP_STATE,
        rx: rs::TENTATIVE,
        rx_bit: true,
        echo_check_is_digest: true,
        ..Heard::default()
    };
    let m = hear(a1, proof, room);
    assert_eq!((m.tx, m.tx_bit), (ts::OFFER, true));
    assert_eq!(m.transition, Some(moves::CONFIRMED_OFFERING));
    assert!(m.confirm && !m.confirm_by_echo);
    let m = hear(
        a1,
        Heard {
            rx: rs::REJECT,
            ..proof
        },
        room,
    );
    assert_eq!(
        (m.tx, m.transition),
        (ts::IDLE, Some(moves::CONFIRMED_REJECTED))
    );
    // B had delivered 1 already (EXPECT 1): it stores 2 from the merged
    // record only with the check of its proof, though A is heard at 0.
    let b_done = Channel {
        rx: rs::EXPECT,
        rx_bit: true,
        proof_due: true,
        ..Channel::default()
    };
    let mb = hear(
        b_done,
        Heard {
            decision_commits: false,
            decision_is_proof: true,
            ..merged
        },
        room,
    );
    assert!(mb.store && !mb.deliver);
    assert_eq!((mb.rx, mb.rx_bit), (rs::TENTATIVE, true));
    assert_eq!(hear(b_done, merged, room).transition, None);
}

/// Both directions loaded (protocol 6): an offer that carries the peer's
/// echo in its check word moves both roles in one record, and a folded
/// echo that is not the one expected is not heard at all, so only the
/// explicit ECHO can bring the REVERSE a damaged payload needs.
#[test]
fn an_offer_with_the_echo_folded_in_moves_both_roles_at_once() {
    let room = ROOM;
    // A offers at bit 0 and is ready for B's offer; B offers at bit 0
    // while it holds A's payload tentatively, its echo folded in.
    let a = Channel {
        tx: ts::OFFER,
        holding: true,
        ..Channel::default()
    };
    let offer_with_echo = Heard {
        op: OP_OFFER,
        tx: ts::OFFER,
        rx: rs::TENTATIVE,
        receiver_is_digest: true,
        echo_folded: true,
        ..Heard::default()
    };
    let m = hear(a, offer_with_echo, room);
    assert!(!m.not_heard);
    assert_eq!((m.tx, m.event), (ts::COMMIT, Some(Event::Commit)));
    assert_eq!(m.decision_check, Some(DecisionCheck::Echo));
    assert!(m.store && m.rx == rs::TENTATIVE);
    assert_eq!(
        m.transition,
        Some(moves::STORE),
        "the receiver's move is named"
    );
    // The same echo, not the one expected: nothing at all, not even the
    // offer, and never a REVERSE.
    let mismatch = Heard {
        receiver_is_digest: false,
        ..offer_with_echo
    };
    let m = hear(a, mismatch, room);
    assert!(m.not_heard && !m.store && m.transition.is_none());
    // The explicit ECHO of the same mismatch reverses.
    let explicit = Heard {
        op: OP_ECHO,
        tx: ts::IDLE,
        echo_folded: false,
        ..mismatch
    };
    assert_eq!(hear(a, explicit, room).tx, ts::REVERSE);
    // A merged decision: the echo of the next payload, folded into the
    // peer's offer at the other bit, confirms and decides (PASSED).
    let a_merged = Channel {
        tx: ts::COMMIT_OFFER,
        next: true,
        ..a
    };
    let next_echo = Heard {
        rx_bit: true,
        receiver_is_digest: false,
        receiver_is_next_digest: true,
        ..offer_with_echo
    };
    let m = hear(a_merged, next_echo, room);
    assert_eq!(m.transition, Some(moves::STORE));
    assert!(m.confirm && m.confirm_by_echo && m.tx == ts::COMMIT && m.tx_bit);
    // The fold bit means nothing in a record that is not an offer.
    let state = Heard {
        op: OP_STATE,
        ..mismatch
    };
    assert!(!hear(a, state, room).not_heard);
}
