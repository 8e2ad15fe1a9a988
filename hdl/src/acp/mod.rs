//! The ACP link (`shared/ACP.md`): K token channels over the NIC's ACP port,
//! exactly-once and reversible, with no timers.

mod crc;
mod link;

pub use crc::Crc32c;
pub use link::AcpLink;
