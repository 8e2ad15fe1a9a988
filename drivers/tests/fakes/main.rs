//! The driver's integration tests, in one test binary (`--test fakes`):
//! the driver against fakes, the in-memory card (`pendulum_driver::mock`)
//! and a fake PCIe host, without hardware or Verilator. Each file was its
//! own test binary, each linked again (issue #27). One file is one module,
//! so a test's name starts with its file's: `cargo test -p pendulum-driver
//! --test fakes pci_fake::` runs `pci_fake.rs`.
//!
//! A new file of tests goes here, with its `mod` line below (a file in
//! `tests/` itself would be a binary of its own again). All the tests share
//! one process: a temporary path with the pid in it needs the test's name
//! too (`pci_fake.rs`'s `FakeHost::new` takes one).

mod common;

mod atomics;
mod core_handle;
mod drop;
mod memory_model;
mod open;
mod pci_fake;
mod reset;
mod ring_v2;
mod rx;
mod traffic;
mod tx;
mod tx_stamps;
