//! MMIO: the register file behind the BAR.

mod regs;

pub use regs::{RegFile, RxEvents, TxEvents};
