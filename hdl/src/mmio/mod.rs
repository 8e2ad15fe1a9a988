//! MMIO: the register file behind the BAR.

mod counters;
mod events;
mod global_regs;
mod link_flow_regs;
mod nbuf_regs;
mod pipe_counter;
mod reg_port;
mod reg_stages;
mod regs;
mod rx_pipe_bank;
mod rx_pipe_state;
mod tx_pipe_state;
mod tx_regs;

pub use events::{LinkEvents, RxEvents, TxEvents};
pub use pipe_counter::PipeCounter;
pub use reg_port::{RegRead, RegWrite};
pub use regs::{RegFile, GATES, GATE_ATOMIC, GATE_LINK};
pub use rx_pipe_state::{RxPipeState, RxRingPort, RxRingUser};
