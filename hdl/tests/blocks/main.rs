//! The hdl crate's integration tests, in one test binary (`--test blocks`):
//! the blocks in rust-hdl's simulator and through Yosys' reader. Each file
//! was its own test binary, each linked with rust-hdl, and they ran one
//! after another: the minute of `acp_channel_machine.rs` had a core to
//! itself. Here the other files' tests run beside it (issue #27). One file
//! is one module, so a test's name starts with its file's: `cargo test -p
//! pendulum-hdl --test blocks boards::` runs `boards.rs`.
//!
//! A new file of tests goes here, with its `mod` line below (a file in
//! `tests/` itself would be a binary of its own again). All the tests share
//! one process, and Yosys' checks (`yosys_validate`) write to a directory
//! of the temporary directory named after the block: each needs a name of
//! its own.

mod common;

mod acp_channel_machine;
mod acp_load_choice;
mod acp_slot_choice;
mod boards;
mod first_set;
mod notif_writer;
mod reg_file;
mod ring_packer;
mod ring_unpacker;
mod rx_engine;
mod rx_flags;
mod rx_front;
mod sized_frame_fifo;
mod stream_blocks;
mod tx_chain;
mod tx_entry_framer;
mod tx_stamp_writer;
