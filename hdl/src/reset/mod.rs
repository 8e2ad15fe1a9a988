//! The core's synchronous reset: the flip-flop every block is built from,
//! which a reset returns to its power-up value, and the sweep that clears
//! the tables kept in RAM after a reset.

mod clear_sweep;
mod sdff;

pub use clear_sweep::{Clear, ClearSweep, CLEAR_CYCLES};
pub use sdff::SDFF;

use rust_hdl::prelude::{Synth, RAM};

/// A RAM of `2^A` words, zero at power-up (its initial contents, in the
/// bitstream as in simulation); after a reset the sweep clears it again.
pub fn zero_ram<T: Synth + Default, const A: usize>() -> RAM<T, A> {
    (0..1usize << A).map(|_| T::default()).into()
}
