//! The testbench's integration tests, in one test binary (`--test nic`):
//! each file here was its own test binary, and each linked the whole
//! Verilated NIC model and every dependency again (issue #27). One file is
//! one module, so a test's name starts with its file's:
//! `cargo test -p pendulum-testbench --test nic serve::` runs `serve.rs`
//! (a filter matches anywhere in the name: `atomics::` runs
//! `remote_atomics.rs` too).
//!
//! A new file of tests goes here, with its `mod` line below (a file in
//! `tests/` itself would be a binary of its own again). All the tests share
//! one process: a temporary path with the pid in it needs the test's name
//! too (`common::Server::start` takes one).
//!
//! Proptest keeps each module's regressions in
//! `tests/proptest-regressions/<file>.txt` (beside this directory, as it
//! does for a crate whose root is `main.rs`).

mod common;

mod acp;
mod acp_bad_input;
mod acp_damage;
mod acp_merged;
mod acp_resets;
mod acp_soak;
mod atomics;
mod first_program;
mod flow;
mod frame_kinds;
mod harness;
mod l4_checksums;
mod many_pipes;
mod mmio_fuzz;
mod remote_atomics;
mod remote_atomics_faults;
mod reserved_pipes;
mod reset;
mod rx;
mod serve;
mod spin;
mod traffic;
mod two_core_echo;
mod tx;
mod tx_stamps;
