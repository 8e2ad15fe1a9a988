//! The transition bytes of the moves, by name.

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
/// Sender: OFFER b → COMMIT_OFFER b (the decision, with the next payload offered).
pub const COMMIT_NEXT: u8 = t(false, false, ts::OFFER, ts::COMMIT_OFFER);
/// Sender: COMMIT b → COMMIT_OFFER b (the next payload joins the decision).
pub const OFFER_NEXT: u8 = t(false, false, ts::COMMIT, ts::COMMIT_OFFER);
/// Sender: COMMIT_OFFER b → COMMIT !b (the echo of the next payload
/// proves b delivered and decides the next: delivered).
pub const PASSED: u8 = t(false, false, ts::COMMIT_OFFER, ts::COMMIT);
/// Sender: COMMIT_OFFER b → OFFER !b (b's proof heard; the next payload is offered).
pub const CONFIRMED_OFFERING: u8 = t(false, false, ts::COMMIT_OFFER, ts::OFFER);
/// Sender: COMMIT_OFFER b → IDLE !b (b's proof heard; the next payload was refused).
pub const CONFIRMED_REJECTED: u8 = t(false, false, ts::COMMIT_OFFER, ts::IDLE);
/// Receiver: TENTATIVE b → TENTATIVE !b (delivered, and the next payload stored).
pub const DELIVER_STORE: u8 = t(false, true, rs::TENTATIVE, rs::TENTATIVE);
/// Receiver: TENTATIVE b → REJECT !b (delivered; no room for the next payload).
pub const DELIVER_REJECT: u8 = t(false, true, rs::TENTATIVE, rs::REJECT);
/// Every move, with its name (for traces and checks).
pub const ALL: [(u8, &str); 19] = [
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
    (COMMIT_NEXT, "COMMIT_NEXT"),
    (OFFER_NEXT, "OFFER_NEXT"),
    (PASSED, "PASSED"),
    (CONFIRMED_OFFERING, "CONFIRMED_OFFERING"),
    (CONFIRMED_REJECTED, "CONFIRMED_REJECTED"),
    (DELIVER_STORE, "DELIVER_STORE"),
    (DELIVER_REJECT, "DELIVER_REJECT"),
];
/// The moves of the merged decision (`tx_state::COMMIT_OFFER`).
pub const MERGED: [u8; 7] = [
    COMMIT_NEXT,
    OFFER_NEXT,
    PASSED,
    CONFIRMED_OFFERING,
    CONFIRMED_REJECTED,
    DELIVER_STORE,
    DELIVER_REJECT,
];
/// The name of a transition byte, if it is a move.
pub fn name(byte: u8) -> Option<&'static str> {
    ALL.iter().find(|(b, _)| *b == byte).map(|(_, n)| *n)
}
