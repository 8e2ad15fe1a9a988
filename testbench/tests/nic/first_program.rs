//! The README's first program is `examples/first_program.rs`, word for word
//! (checked here; `PENDULUM_BLESS=1` copies the file into the README), and it
//! runs on the Verilated NIC in process and on the simulator process (and
//! on the mock card), with only the line that opens the card differing.

use pendulum_driver::Device;
use pendulum_testbench::{SimCard, SimConfig};

use crate::common;
#[path = "../../examples/first_program.rs"]
#[allow(dead_code)] // its `main` is the example's, not the test's
#[allow(clippy::module_inception)] // the example, in the module of its tests
mod first_program;

const BEGIN: &str = "<!-- first program begin -->\n";
const END: &str = "<!-- first program end -->";

#[test]
fn the_readme_shows_the_first_program_word_for_word() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let code = include_str!("../../examples/first_program.rs");
    let want = format!("```rust\n{code}```\n");
    let a = readme.find(BEGIN).expect("README has no first program") + BEGIN.len();
    let b = readme
        .find(END)
        .expect("README has no end of the first program");
    if std::env::var_os("PENDULUM_BLESS").is_some() {
        std::fs::write(path, format!("{}{want}{}", &readme[..a], &readme[b..])).unwrap();
    } else {
        assert!(
            readme[a..b] == want,
            "the README's first program differs from testbench/examples/first_program.rs: \
             run PENDULUM_BLESS=1 cargo test -p pendulum-testbench --test nic first_program::"
        );
    }
}

#[test]
fn the_first_program_runs_in_process() {
    let dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    let out = first_program::echo_first_frames(dev).unwrap();
    assert_eq!(out.len(), 3);
}

#[test]
fn the_first_program_runs_on_the_simulator_process() {
    let s = common::Server::start("first-program");
    let dev = pendulum_driver::open(&s.address()).unwrap();
    let out = first_program::echo_first_frames(dev).unwrap();
    assert_eq!(out.len(), 3);
}

/// The mock card has an Ethernet port too (`FakeCard::with_mac`): the same
/// function runs on it, without Verilator.
#[test]
fn the_first_program_runs_on_the_mock_card() {
    let dev = Device::open(pendulum_driver::mock::FakeCard::new().with_mac()).unwrap();
    let out = first_program::echo_first_frames(dev).unwrap();
    assert_eq!(out.len(), 3);
}

/// Why the program binds its flow: left to the fallback (IP frames spread
/// over all the card's pipes by RSS hash, as after open), its frames go to
/// a pipe nobody opened and are dropped there, and pipe 0 receives nothing.
#[test]
fn without_the_binding_the_first_programs_frames_miss_its_pipe() {
    use pendulum_driver::layout::flow::{fallback_pipe, PROTO_UDP};
    use pendulum_driver::layout::params::PIPE_BITS;
    use pendulum_driver::{EthernetPort, FlowKey};
    let flow = FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 5000, 7);
    assert_ne!(fallback_pipe(flow.hash(), 0, PIPE_BITS as u32), 0);
    let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    let frames: Vec<Vec<u8>> = [64, 300, 1500]
        .iter()
        .enumerate()
        .map(|(seq, &len)| pendulum_testbench::models::flow_frame(&flow, seq as u64, len))
        .collect();
    dev.card_mut().inject(&frames).unwrap();
    assert!(dev.card_mut().drain(100_000).unwrap());
    assert!(!rx.wait(&mut dev, 1_000), "a frame reached pipe 0");
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.flow_misses, c.drop_pipe_off), (0, 3, 3));
}
