//! The ACP link (`shared/ACP.md`): K token channels over the NIC's ACP port,
//! exactly-once and reversible, with no timers.
//!
//! - `channel_machine`: what a channel's state becomes on a record heard.
//! - `channel_state`: the channels' state, both roles (reads and writers).
//! - `channel_reads`: the read ports of the channels' flags (vector indexes, balanced trees).
//! - `channel_words`: the channels' 32-bit words (keys, checks, digests), in LUT-RAM.
//! - `channel_views`: what the decision and the record formation read of a channel.
//! - `load_choice`: where a payload loads (a channel chosen a cycle ahead).
//! - `offer_events`: which channels the offers made without a record heard are checked on.
//! - `check`: the record check (check word with the session term, decode).
//! - `entangle`: the link state (nonces, incarnations, sessions, failure).
//! - `record_form`: record formation.
//! - `slot_choice`: which channel each record slot states.
//! - `hand_back`: what the link hands its host (deliveries, results, hand-backs).
//! - `link`: the channels (the move tables), record formation, hand-back.

mod channel_machine;
mod channel_reads;
mod channel_state;
mod channel_views;
mod channel_words;
mod check;
mod crc;
mod entangle;
mod hand_back;
mod link;
mod load_choice;
mod offer_events;
mod record_form;
mod slot_choice;

pub use channel_machine::ChannelMachine;
pub use channel_state::ChannelState;
pub use check::RecordCheck;
pub use crc::{Crc32, Crc32c};
pub use entangle::Entangle;
pub use hand_back::HandBack;
pub use link::AcpLink;
pub use load_choice::LoadChoice;
pub use record_form::RecordForm;
pub use slot_choice::SlotChoice;
