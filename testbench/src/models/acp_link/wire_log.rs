//! The opt-in log of the last slots that entered the wire, for debugging.

use super::{check_of, Injected, Rec, Side, LOG_PAYLOAD_BYTES};
use pendulum_layout::acp::{BYTE_CHANNEL, BYTE_OPCODE, BYTE_STATE, PAYLOAD_OFFSET, RECORD_BYTES};
use std::fmt;

/// One slot of the wire log: what a side sent and what the wire carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireEntry {
    /// The model's cycle (steps before this one) when the slot entered the wire.
    pub cycle: u64,
    /// The sending side (the slot travels towards its peer).
    pub from: Side,
    /// What the sender put on the wire, if anything.
    pub sent: Option<[u8; RECORD_BYTES]>,
    /// What the slot carries after the faults at entry (`None`: lost).
    pub carried: Option<[u8; RECORD_BYTES]>,
    /// Set when `carried` is a copy or a replayed record.
    pub injected: Option<Injected>,
}

impl fmt::Display for WireEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cycle {} {:?}->{:?} sent {}",
            self.cycle,
            self.from,
            self.from.peer(),
            RecordSummary(self.sent.as_ref())
        )?;
        match (self.injected, self.carried == self.sent) {
            (Some(kind), _) => write!(
                f,
                " carried {kind:?} {}",
                RecordSummary(self.carried.as_ref())
            ),
            (None, true) => Ok(()),
            (None, false) => write!(f, " carried {}", RecordSummary(self.carried.as_ref())),
        }
    }
}

/// A record's slice 0 and first payload bytes, in hex, for the wire log.
pub(super) struct RecordSummary<'a>(Option<&'a Rec>);

impl fmt::Display for RecordSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(r) = self.0 else {
            return write!(f, "-");
        };
        write!(
            f,
            "[op {:02x} ch {:02x} st {:02x} check {:08x} payload ",
            r[BYTE_OPCODE],
            r[BYTE_CHANNEL],
            r[BYTE_STATE],
            check_of(r)
        )?;
        for b in &r[PAYLOAD_OFFSET..PAYLOAD_OFFSET + LOG_PAYLOAD_BYTES] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "..]")
    }
}
