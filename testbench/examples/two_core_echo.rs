//! Echo on two cores, each with its own handle: the device is split in two
//! (`Device::split`), and each thread owns its notification buffer, its RX
//! pipe (which reports into that buffer), its TX pipe and its flow, steered
//! to its pipe. Frames of both flows arrive interleaved on the card's
//! Ethernet port; each thread echoes its own; the program checks that
//! every frame came back out exactly once, unchanged, each flow in order,
//! and prints what it checked.
//!
//! cargo run --release -p pendulum-testbench --example two_core_echo

use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::{Card, CoreHandle, Device, EthernetPort, FlowKey, RxPipe, TxPipe};
use pendulum_testbench::models::flow_frame;
use pendulum_testbench::{SimCard, SimConfig};
use std::fmt::Write;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const CORES: usize = 2;
const FRAMES_PER_FLOW: usize = 24;
const RING_BYTES: u32 = 64 * 1024;
const MAX_POLLS: u64 = 100_000;

fn main() -> Result<()> {
    let report = two_core_echo(Device::open(SimCard::new(SimConfig::default()))?)?;
    print!("{report}");
    Ok(())
}

/// Core `k`'s flow: UDP from 10.0.0.1:5000 to 10.0.0.2 port 7000 + k.
fn flow_of(core: usize) -> FlowKey {
    FlowKey::v4(
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        PROTO_UDP,
        5000,
        7000 + core as u16,
    )
}

/// Runs the echo on `dev` and returns the report of what it checked.
pub fn two_core_echo<C: Card + EthernetPort + Send + 'static>(dev: Device<C>) -> Result<String> {
    let mut report = String::new();
    let mut handles = dev.split(CORES)?;

    // Each core opens its own pipes: RX pipe k reports into notification
    // buffer k, which only core k reads. Its flow is steered to that pipe.
    let mut pipes = Vec::new();
    for h in &handles {
        let k = h.core();
        let rx = h.open_rx_pipe(k, RING_BYTES)?;
        let tx = h.open_tx_pipe(k, RING_BYTES)?;
        h.bind_flow(flow_of(k), &rx)?;
        writeln!(
            report,
            "core {k}: RX pipe {}, TX pipe {}, notification buffer {}, flow {}",
            rx.index(),
            tx.index(),
            h.notif_buf(),
            flow_of(k)
        )?;
        pipes.push((rx, tx));
    }

    // Both flows' frames, of many sizes, interleaved on the one port.
    let flows: Vec<Vec<Vec<u8>>> = (0..CORES)
        .map(|k| {
            (0..FRAMES_PER_FLOW)
                .map(|i| flow_frame(&flow_of(k), i as u64, 64 + (i * 97 + k * 31) % 1437))
                .collect()
        })
        .collect();
    let wire: Vec<Vec<u8>> = (0..FRAMES_PER_FLOW)
        .flat_map(|i| flows.iter().map(move |f| f[i].clone()))
        .collect();
    handles[0].with_card(|c| c.inject(&wire))??;

    // Each core echoes on its own thread, through its own handle.
    let threads: Vec<_> = handles
        .drain(..)
        .zip(pipes)
        .map(|(h, (mut rx, mut tx))| {
            std::thread::spawn(move || {
                let got = echo(&h, &mut rx, &mut tx, FRAMES_PER_FLOW)?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>((h, got))
            })
        })
        .collect();
    for (k, t) in threads.into_iter().enumerate() {
        let (h, got) = t
            .join()
            .map_err(|_| format!("core {k}'s thread panicked"))??;
        if got != flows[k] {
            return Err(format!("core {k} received other frames than its flow's").into());
        }
        writeln!(
            report,
            "core {k}: received its flow's {} frames, in order, and sent them back",
            got.len()
        )?;
        handles.push(h);
    }

    // What the card sent on its Ethernet port.
    let h = &handles[0];
    if !h.with_card(|c| c.drain(MAX_POLLS))?? {
        return Err("the card did not finish sending".into());
    }
    let out = h.with_card(|c| c.collect())??;
    for (k, frames) in flows.iter().enumerate() {
        let mine: Vec<&Vec<u8>> = out.iter().filter(|f| frames.contains(f)).collect();
        if mine != frames.iter().collect::<Vec<_>>() {
            return Err(format!("flow {k}: {} frames in, not the same out", frames.len()).into());
        }
        writeln!(
            report,
            "flow {k}: {} frames in, the same {} out, unchanged and in order",
            frames.len(),
            mine.len()
        )?;
    }
    let strays = out
        .iter()
        .filter(|f| !flows.iter().any(|fs| fs.contains(f)))
        .count();
    if strays > 0 || out.len() != wire.len() {
        return Err(format!(
            "{} frames in, {} out, {strays} unknown",
            wire.len(),
            out.len()
        )
        .into());
    }
    writeln!(
        report,
        "{} frames in, {} out: each exactly once",
        wire.len(),
        out.len()
    )?;
    Ok(report)
}

/// Core `h`'s loop: receives `n` frames on `rx` and sends each batch back
/// out on `tx`, then waits until the card has sent them. Returns the frames
/// received, in order.
fn echo<C: Card>(
    h: &CoreHandle<C>,
    rx: &mut RxPipe,
    tx: &mut TxPipe,
    n: usize,
) -> Result<Vec<Vec<u8>>> {
    let mut got: Vec<Vec<u8>> = Vec::new();
    while got.len() < n {
        if !h.wait(rx, MAX_POLLS)? {
            return Err(format!("core {}: {} of {n} frames arrived", h.core(), got.len()).into());
        }
        // Copy the batch while the device is locked, then free it.
        let (copies, end) = h.recv_with(rx, |batch| {
            let copies = batch
                .iter()
                .map(|frame| frame.map(|f| f.bytes.to_vec()))
                .collect::<pendulum_driver::Result<Vec<_>>>();
            (copies, batch.end_unit())
        })?;
        let copies = copies?;
        h.free(rx, end)?;
        let refs: Vec<&[u8]> = copies.iter().map(Vec::as_slice).collect();
        let mut sent = 0;
        while sent < refs.len() {
            let k = h.send(tx, &refs[sent..])?;
            if k == 0 {
                h.relax()?; // the TX ring is full: let the card send
            }
            sent += k;
        }
        got.extend(copies);
    }
    if !h.wait_idle(tx, MAX_POLLS)? {
        return Err(format!("core {}: the card did not send everything", h.core()).into());
    }
    Ok(got)
}
