//! The ACP link (`shared/ACP.md`): K token channels over the NIC's ACP port,
//! exactly-once and reversible, with no timers.
//!
//! - `check`: the record check (check word with the session term, decode).
//! - `entangle`: the link state (nonces, incarnations, sessions, failure).
//! - `link`: the channels (the move tables), record formation, hand-back.

mod check;
mod crc;
mod entangle;
mod link;

pub use check::RecordCheck;
pub use crc::Crc32c;
pub use entangle::Entangle;
pub use link::AcpLink;
