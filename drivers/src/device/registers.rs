//! Register access: plain reads and writes, and writes checked against the
//! card's REG_ERRORS count.

use super::Device;
use crate::{Card, Error, Result};
use pendulum_layout::{self as layout, global, RegError};

impl<C: Card> Device<C> {
    /// Reads a 32-bit register ([`Error::CardReset`] once a reset was seen).
    pub fn read(&mut self, offset: u32) -> Result<u32> {
        self.not_reset()?;
        self.close_dropped()?;
        self.card.read32(offset)
    }

    /// Writes a 32-bit register without checking whether the card took it
    /// ([`Error::CardReset`] once a reset was seen).
    pub fn write(&mut self, offset: u32, value: u32) -> Result<()> {
        self.not_reset()?;
        self.close_dropped()?;
        self.card.write32(offset, value)
    }

    /// The last refused register write: its byte address and cause code.
    pub fn last_reg_error(&mut self) -> Result<(u32, u32)> {
        let v = self.read(global::LAST_REG_ERROR.offset)?;
        Ok((v & 0xFF_FFFF, v >> layout::LAST_REG_ERROR_CAUSE_SHIFT))
    }

    /// Writes a register and confirms the card accepted it; a refusal comes
    /// back as [`Error::RegisterRefused`] with the card's reason, or as
    /// [`Error::CardReset`] when the card was reset: a reset forgets what the
    /// driver set up (and zeroes REG_ERRORS), which is why writes are refused.
    pub fn write_checked(&mut self, offset: u32, value: u32) -> Result<()> {
        self.write_checked_all(&[(offset, value)])
    }

    /// [`Device::write_checked`] for each `(offset, value)` in order,
    /// stopping at the first refusal (the writes after it are not made).
    /// Each write's check read is the next write's starting count, so a run
    /// of n writes takes n + 1 reads instead of 2n: a register read is a
    /// round trip over PCIe, and opening a pipe is mostly those. Each
    /// interval between two reads holds exactly one of the writes, as in
    /// `write_checked`, so a refusal is blamed on the same write.
    pub fn write_checked_all(&mut self, writes: &[(u32, u32)]) -> Result<()> {
        let mut before = self.read(global::REG_ERRORS.offset)?;
        for &(offset, value) in writes {
            self.write(offset, value)?;
            // The read is ordered behind the write, so it sees the write's outcome.
            let after = self.read(global::REG_ERRORS.offset)?;
            if after != before {
                self.check_card()?;
                let (addr, code) = self.last_reg_error()?;
                return Err(match RegError::from_code(code) {
                    Some(cause) => Error::RegisterRefused { addr, cause },
                    None => Error::RegisterRefusedUnknown { addr, code },
                });
            }
            before = after;
        }
        Ok(())
    }
}
