//! Steering received frames to RX pipes: the flow table, the default pipe
//! for non-IP frames and the fallback pipes for flow table misses.

use super::Device;
use crate::{Card, Error, Result};
use pendulum_layout::flow::{FlowKey, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::global;

impl<C: Card> Device<C> {
    /// Empties the flow table and sends misses over all pipes and non-IP
    /// frames to pipe 0, as after power-up: the table is the driver's to
    /// fill, and a previous owner's entries would steer to pipes this one
    /// never opened.
    pub(super) fn reset_steering(&mut self) -> Result<()> {
        for s in 0..self.flows.len() {
            self.write(global::FLOW_WRITE.offset, s as u32)?;
        }
        self.write_checked(global::FLOW_DEFAULT_PIPE.offset, 0)?;
        self.default_pipe = 0;
        self.set_fallback_pipes(0, self.pipes)
    }

    /// Steers `key`'s frames to `pipe` (replacing any earlier binding of the
    /// key). [`Error::FlowTableFull`] when every slot the key can occupy is
    /// taken; [`Error::PipeReserved`] for the atomic unit's or the link's
    /// RX pipe.
    pub fn bind_flow(&mut self, key: FlowKey, pipe: usize) -> Result<()> {
        if pipe >= self.pipes {
            return Err(Error::NoSuchPipe {
                pipe,
                pipes: self.pipes,
            });
        }
        self.refuse_reserved(pipe)?;
        let slot = self.flows.place(&key)?;
        for (k, w) in key.words().iter().enumerate() {
            self.write(global::FLOW_KEY0.offset + 4 * k as u32, *w)?;
        }
        self.write_checked(global::FLOW_PIPE.offset, pipe as u32)?;
        self.write_checked(global::FLOW_WRITE.offset, WRITE_VALID | slot as u32)?;
        self.flows.set(slot, Some((key, pipe)));
        Ok(())
    }

    /// Removes `key`'s binding; its frames go to the fallback pipes again.
    /// False if it was not bound.
    pub fn unbind_flow(&mut self, key: FlowKey) -> Result<bool> {
        let Some(slot) = self.flows.find(&key) else {
            return Ok(false);
        };
        self.write_checked(global::FLOW_WRITE.offset, slot as u32)?;
        self.flows.set(slot, None);
        Ok(true)
    }

    /// The pipe `key` is bound to, if any.
    pub fn flow_pipe(&self, key: &FlowKey) -> Option<usize> {
        self.flows.pipe_of(key)
    }

    /// Flows bound, and the table's size.
    pub fn flows_bound(&self) -> (usize, usize) {
        (self.flows.installed(), self.flows.len())
    }

    /// Frames that are not IPv4 or IPv6 go to `pipe`; not the atomic
    /// unit's or the link's RX pipe ([`Error::PipeReserved`]).
    pub fn set_default_pipe(&mut self, pipe: usize) -> Result<()> {
        if pipe >= self.pipes {
            return Err(Error::NoSuchPipe {
                pipe,
                pipes: self.pipes,
            });
        }
        self.refuse_reserved(pipe)?;
        self.write_checked(global::FLOW_DEFAULT_PIPE.offset, pipe as u32)?;
        self.default_pipe = pipe;
        Ok(())
    }

    /// The pipe frames that are not IPv4 or IPv6 go to.
    pub fn default_pipe(&self) -> usize {
        self.default_pipe
    }

    /// IP frames that miss the flow table go to pipes `first..first + count`
    /// by their RSS hash (`count` a power of two). The card skips the atomic
    /// unit's and the link's RX pipes inside the range
    /// (`pendulum_layout::flow::steer`); a range of nothing but those is
    /// [`Error::PipeReserved`].
    pub fn set_fallback_pipes(&mut self, first: usize, count: usize) -> Result<()> {
        if !count.is_power_of_two() || first + count > self.pipes {
            return Err(Error::BadFallback {
                first,
                count,
                pipes: self.pipes,
            });
        }
        if let Some(by) = (first..first + count)
            .map(|p| self.reserved_for(p))
            .collect::<Option<Vec<_>>>()
        {
            return Err(Error::PipeReserved {
                pipe: first,
                by: by[0],
            });
        }
        let v = (first as u32) | count.trailing_zeros() << FALLBACK_COUNT_LOG2_SHIFT;
        self.write_checked(global::FLOW_FALLBACK.offset, v)
    }
}
