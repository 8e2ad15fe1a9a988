//! The atomic unit: on-NIC memory and verbs on it (`pendulum_layout::atomic`).

mod result_queue;
mod unit;

pub use unit::AtomicUnit;
