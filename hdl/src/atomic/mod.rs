//! The atomic unit: on-NIC memory and verbs on it (`pendulum_layout::atomic`).

mod unit;

pub use unit::AtomicUnit;
