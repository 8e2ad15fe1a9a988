//! MMIO: the register file behind the BAR.

mod pipe_counter;
mod regs;

pub use pipe_counter::PipeCounter;
pub use regs::{RegFile, RxEvents, TxEvents, GATES, GATE_ATOMIC, GATE_LINK};
