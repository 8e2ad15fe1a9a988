//! A first Pendulum program: open a card, steer a flow to a pipe, feed
//! frames into the card's Ethernet port, receive them, echo them back out,
//! and check what the card sent.
//!
//! cargo run --release -p pendulum-testbench --example first_program
//! cargo run --release -p pendulum-testbench --example first_program -- sim:/tmp/pendulum.sock

use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::{Card, Device, EthernetPort, FlowKey};
use pendulum_testbench::models::flow_frame;
use pendulum_testbench::{SimCard, SimConfig};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let out = match std::env::args().nth(1) {
        // The simulator process (`pendulum-sim serve --socket /tmp/pendulum.sock`).
        Some(address) => echo_first_frames(pendulum_driver::open(&address)?)?,
        // The Verilated NIC in this process.
        None => echo_first_frames(Device::open(SimCard::new(SimConfig::default()))?)?,
    };
    println!("{} frames in, echoed, and out unchanged", out.len());
    Ok(())
}

/// Everything after the open line, the same on every card whose Ethernet
/// port software can drive. Returns the frames the card sent.
pub fn echo_first_frames<C: Card + EthernetPort>(mut dev: Device<C>) -> Result<Vec<Vec<u8>>> {
    let mut rx = dev.open_rx_pipe(0, 64 * 1024)?;
    let mut tx = dev.open_tx_pipe(0, 64 * 1024)?;

    // Steering: an IP frame that no flow binding matches goes to one of all
    // the card's pipes by its RSS hash (`Device::set_fallback_pipes`), most
    // likely to one nobody opened, where it is dropped. So bind our flow to
    // the pipe we opened. (Frames that are not IP go to the default pipe,
    // `Device::set_default_pipe`, pipe 0 unless set.)
    let flow = FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 5000, 7);
    rx.bind(&mut dev, flow)?;

    // Three UDP frames of that flow arrive on the card's Ethernet port.
    let frames: Vec<Vec<u8>> = [64, 300, 1500]
        .iter()
        .enumerate()
        .map(|(seq, &len)| flow_frame(&flow, seq as u64, len))
        .collect();
    dev.card_mut().inject(&frames)?;

    // Receive each batch without copying, send copies back out, free it.
    let mut echoed = 0;
    while echoed < frames.len() {
        if !rx.wait(&mut dev, 100_000) {
            dev.check_card()?;
            return Err(format!("{echoed} of {} frames arrived", frames.len()).into());
        }
        let batch = rx.recv(&dev);
        let copies = batch
            .iter()
            .map(|frame| frame.map(|f| f.bytes.to_vec()))
            .collect::<pendulum_driver::Result<Vec<_>>>()?;
        let end = batch.end_unit();
        rx.free(&mut dev, end)?; // moves the head, re-arms the notification
        let refs: Vec<&[u8]> = copies.iter().map(Vec::as_slice).collect();
        let mut sent = 0;
        while sent < refs.len() {
            let n = tx.send(&mut dev, &refs[sent..])?; // copies into the TX ring, one doorbell
            if n == 0 {
                dev.relax()?; // the TX ring is full: let the card send
            }
            sent += n;
        }
        echoed += copies.len();
    }

    // Collect what the card sent on its Ethernet port, and check it.
    if !tx.wait_idle(&mut dev, 100_000) || !dev.card_mut().drain(100_000)? {
        return Err("the card did not finish sending".into());
    }
    let out = dev.card_mut().collect()?;
    if out != frames {
        return Err(format!(
            "{} frames in, {} out, not the same",
            frames.len(),
            out.len()
        )
        .into());
    }
    Ok(out)
}
