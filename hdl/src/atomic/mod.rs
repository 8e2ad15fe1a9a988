//! The atomic unit: on-NIC memory and verbs on it (`pendulum_layout::atomic`).

mod line_execute;
mod line_locks;
mod result_queue;
mod unit;
mod verb_decode;

pub use unit::AtomicUnit;
