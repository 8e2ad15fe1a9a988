//! The two-core echo (`examples/two_core_echo.rs`): two threads, each with
//! its own handle of one split device, echo their own flows, and the
//! program's report, checked here byte for byte, says that every frame came
//! back out exactly once, unchanged, each flow in order. It runs unchanged
//! on the Verilated NIC in process, on the simulator process and on the
//! mock card.

use pendulum_driver::Device;
use pendulum_testbench::{SimCard, SimConfig};

use crate::common;
#[path = "../../examples/two_core_echo.rs"]
#[allow(dead_code)] // its `main` is the example's, not the test's
#[allow(clippy::module_inception)] // the example, in the module of its tests
mod two_core_echo;

/// What the example prints: its pipes and flows, then what it checked.
const REPORT: &str = "\
core 0: RX pipe 0, TX pipe 0, notification buffer 0, flow udp 10.0.0.1:5000 -> 10.0.0.2:7000
core 1: RX pipe 1, TX pipe 1, notification buffer 1, flow udp 10.0.0.1:5000 -> 10.0.0.2:7001
core 0: received its flow's 24 frames, in order, and sent them back
core 1: received its flow's 24 frames, in order, and sent them back
flow 0: 24 frames in, the same 24 out, unchanged and in order
flow 1: 24 frames in, the same 24 out, unchanged and in order
48 frames in, 48 out: each exactly once
";

#[test]
fn two_cores_echo_their_own_flows_on_the_verilated_nic() {
    let dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
    assert_eq!(two_core_echo::two_core_echo(dev).unwrap(), REPORT);
}

#[test]
fn two_cores_echo_their_own_flows_on_the_simulator_process() {
    let s = common::Server::start("two-core-echo");
    assert_eq!(two_core_echo::two_core_echo(s.open()).unwrap(), REPORT);
}

#[test]
fn two_cores_echo_their_own_flows_on_the_mock_card() {
    let dev = Device::open(pendulum_driver::mock::FakeCard::new().with_mac()).unwrap();
    assert_eq!(two_core_echo::two_core_echo(dev).unwrap(), REPORT);
}

/// Without the split each thread would need `&mut Device`; with it, the
/// handle of the in-process card moves into a thread.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<pendulum_driver::CoreHandle<SimCard>>();
    assert_send::<pendulum_driver::CoreHandle<pendulum_driver::AnyCard>>();
};
