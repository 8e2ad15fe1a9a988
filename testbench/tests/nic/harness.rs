//! The harness itself: ports come from the manifest, waveforms can be written.

use pendulum_testbench::verilated::{PortDir, PORTS};
use pendulum_testbench::{NicSim, SimConfig, RTL_DIR};

#[test]
fn shim_ports_are_exactly_the_manifest_ports() {
    let text = std::fs::read_to_string(format!("{RTL_DIR}/manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ports = m["ports"].as_array().unwrap();
    assert_eq!(ports.len(), PORTS.len());
    for (want, have) in ports.iter().zip(PORTS) {
        assert_eq!(want["name"], have.name);
        assert_eq!(want["width"].as_u64().unwrap() as usize, have.width);
        let dir = if have.dir == PortDir::Input {
            "input"
        } else {
            "output"
        };
        assert_eq!(want["dir"], dir);
    }
}

#[test]
fn fst_waveform_is_written_on_request() {
    let path = std::env::temp_dir().join(format!("pendulum-wave-{}.fst", std::process::id()));
    {
        let mut sim = NicSim::new(SimConfig {
            waveform: Some(path.clone()),
            ..SimConfig::default()
        });
        sim.run(200);
    }
    let bytes = std::fs::read(&path).expect("waveform written");
    std::fs::remove_file(&path).ok();
    // An FST file opens with its header block (type 0) and is well past a few hundred bytes.
    assert_eq!(bytes[0], 0, "not an FST header block");
    assert!(bytes.len() > 300, "waveform only {} bytes", bytes.len());
}

#[test]
fn idle_nic_writes_nothing_to_host_memory() {
    let mut sim = NicSim::new(SimConfig {
        waveform: None,
        ..SimConfig::default()
    });
    sim.run(5_000);
    assert_eq!(sim.pcie.counters().dma_writes, 0);
    assert!(sim.pcie.idle());
}

/// The core's reset is a one-bit input named `reset` in the port manifest
/// (what a board top or another harness wires up).
#[test]
fn the_manifest_lists_the_reset_input() {
    let text = std::fs::read_to_string(format!("{RTL_DIR}/manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let reset = m["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "reset")
        .expect("no port named reset in manifest.json");
    assert_eq!(reset["dir"], "input");
    assert_eq!(reset["width"], 1);
}
