//! The channel machine block against its definition,
//! `pendulum_layout::acp::machine::hear`, on every input (rust-hdl's
//! simulator: the block is combinational; the Verilated pair in
//! `testbench/tests/nic/acp.rs` checks the moves the whole link states on the wire).

use pendulum_hdl::acp::ChannelMachine;
use pendulum_layout::acp::machine::{self, DecisionCheck, Event, Move};
use rust_hdl::prelude::*;

fn state4(state: u8, bit: bool) -> u64 {
    (state as u64) | (bit as u64) << 3
}

fn state3(state: u8, bit: bool) -> u64 {
    (state as u64) | (bit as u64) << 2
}

/// What the block says, as a `Move`.
fn block_move(uut: &ChannelMachine) -> Move {
    let tx = uut.n_tx.val().index() as u8;
    let rx = uut.n_rx.val().index() as u8;
    Move {
        tx: tx & 7,
        tx_bit: tx & 8 != 0,
        rx: rx & 3,
        rx_bit: rx & 4 != 0,
        transition: uut.moved.val().then(|| uut.transition.val().index() as u8),
        decision_check: uut.set_check.val().then(|| {
            if uut.check_complement.val() {
                DecisionCheck::Complement
            } else {
                DecisionCheck::Echo
            }
        }),
        event: match (
            uut.ev_commit.val(),
            uut.ev_reverse.val(),
            uut.ev_reject.val(),
        ) {
            (false, false, false) => None,
            (true, false, false) => Some(Event::Commit),
            (false, true, false) => Some(Event::Reverse),
            (false, false, true) => Some(Event::Reject),
            e => panic!("two events at once: {e:?}"),
        },
        confirm: uut.confirm.val(),
        confirm_by_echo: uut.confirm_by_echo.val(),
        store: uut.store.val(),
        exec: uut.exec.val(),
        deliver: uut.deliver.val(),
        erase: uut.erase.val(),
        proof_due: uut.n_proof_due.val(),
        not_heard: uut.not_heard.val(),
        peer_ready: uut.n_peer_ready.val(),
    }
}

/// On all 117,964,800 inputs, the merged decision's included.
#[test]
fn the_block_makes_the_moves_of_the_definition_on_every_input() {
    assert_eq!(compare(ChannelMachine::default()), 137_625_600);
}

/// Compares the block with `hear` on every input; returns how many.
fn compare(mut uut: ChannelMachine) -> u64 {
    uut.tx.connect();
    uut.rx.connect();
    uut.holding.connect();
    uut.next_held.connect();
    uut.returning.connect();
    uut.result_pending.connect();
    uut.proof_due.connect();
    uut.room.connect();
    uut.verb_room.connect();
    uut.h_op.connect();
    uut.h_tx.connect();
    uut.h_rx.connect();
    uut.receiver_is_digest.connect();
    uut.receiver_is_next_digest.connect();
    uut.decision_is_proof.connect();
    uut.echo_check_is_digest.connect();
    uut.decision_commits.connect();
    uut.decision_reverses.connect();
    uut.echo_folded.connect();
    uut.connect_all();
    let mut inputs = 0u64;
    let mut moved = 0u64;
    machine::for_each_input(|ch, heard, room| {
        uut.tx.next = state4(ch.tx, ch.tx_bit).into();
        uut.rx.next = state3(ch.rx, ch.rx_bit).into();
        uut.holding.next = ch.holding;
        uut.next_held.next = ch.next;
        uut.returning.next = ch.returning;
        uut.result_pending.next = ch.result_pending;
        uut.proof_due.next = ch.proof_due;
        uut.room.next = room.store;
        uut.verb_room.next = room.verb;
        uut.h_op.next = (heard.op as u64).into();
        uut.h_tx.next = state4(heard.tx, heard.tx_bit).into();
        uut.h_rx.next = state3(heard.rx, heard.rx_bit).into();
        uut.receiver_is_digest.next = heard.receiver_is_digest;
        uut.receiver_is_next_digest.next = heard.receiver_is_next_digest;
        uut.decision_is_proof.next = heard.decision_is_proof;
        uut.echo_check_is_digest.next = heard.echo_check_is_digest;
        uut.decision_commits.next = heard.decision_commits;
        uut.decision_reverses.next = heard.decision_reverses;
        uut.echo_folded.next = heard.echo_folded;
        assert!(simulate(&mut uut, 20), "the block settles");
        let want = machine::hear(ch, heard, room);
        assert_eq!(block_move(&uut), want, "{ch:?} {heard:?} {room:?}");
        inputs += 1;
        moved += want.transition.is_some() as u64;
    });
    assert!(moved > 0);
    inputs
}

#[test]
fn the_block_is_synthesizable() {
    let mut uut = ChannelMachine::default();
    uut.connect_all();
    yosys_validate("pendulum_acp_machine", &generate_verilog(&uut)).unwrap();
}
