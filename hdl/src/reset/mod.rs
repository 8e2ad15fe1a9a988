//! The core's synchronous reset: the flip-flop every block is built from,
//! which a reset returns to its power-up value, and the sweep that clears
//! the tables kept in RAM after a reset.

mod clear_sweep;
mod sdff;

pub use clear_sweep::{Clear, ClearSweep, CLEAR_CYCLES};
pub use sdff::SDFF;
