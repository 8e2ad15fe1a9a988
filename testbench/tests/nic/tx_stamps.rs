//! TX stamps on the Verilated NIC (issue #26), through the driver: a frame
//! sent with `TxPipe::send_stamped` gets the NIC's CYCLES in the cycle its
//! first beat left the core for the MAC, on the clock RX stamps with; frames
//! sent with `send` get none; the ring wraps and fills while stamps are
//! pending, and every frame still leaves byte for byte.

use pendulum_driver::{Card, Device, RxPipe, TxPipe, TxStamp};
use pendulum_testbench::models::{pad_to_min, Pacing};
use pendulum_testbench::rx_check::{receive_and_check_headers, take_batch, Expected};
use pendulum_testbench::{SimCard, SimConfig};
use std::collections::VecDeque;

/// A frame of an EtherType nobody steers (it goes to the default pipe).
fn frame(seq: u32, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len)
        .map(|i| (i as u8).wrapping_mul(13) ^ seq as u8)
        .collect();
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
    f[14..18].copy_from_slice(&seq.to_le_bytes());
    f
}

/// The harness cycle minus the NIC's CYCLES: measured on RX, where each
/// header's TIMESTAMP is the cycle its first beat entered the core.
fn rx_clock_offset(dev: &mut Device<SimCard>, rx: &mut RxPipe) -> u64 {
    dev.card_mut().sim.arrivals = Some(VecDeque::new());
    let mut exp: Expected = vec![VecDeque::new()];
    for i in 0..8 {
        let mut f = frame(i, 60 + 40 * i as usize);
        pad_to_min(&mut f);
        exp[0].push_back(f.clone());
        dev.card_mut().sim.eth.push(f);
    }
    let mut stamps = Vec::new();
    receive_and_check_headers(
        dev,
        std::slice::from_mut(rx),
        &mut exp,
        1_000_000,
        |_, _, h| {
            stamps.push(h.timestamp);
            Ok(())
        },
    )
    .unwrap();
    let starts = dev.card_mut().sim.arrivals.take().unwrap();
    let offsets: Vec<u64> = starts.iter().zip(&stamps).map(|(s, t)| s - t).collect();
    assert!(
        offsets.windows(2).all(|w| w[0] == w[1]),
        "RX offsets {offsets:?}"
    );
    offsets[0]
}

/// Sends `frames` in batches, stamped where `stamped[i]`, and collects the
/// stamps as they come (sending waits for room, and room waits for stamps);
/// returns them in send order.
fn send_and_collect(
    dev: &mut Device<SimCard>,
    tx: &mut TxPipe,
    frames: &[Vec<u8>],
    stamped: &[bool],
) -> Vec<TxStamp> {
    let mut stamps = Vec::new();
    let mut next = 0;
    let mut idle = 0u64;
    while next < frames.len() || tx.stamps_pending() > 0 {
        let before = stamps.len();
        tx.stamps(dev, &mut stamps).expect("stamps");
        let mut n = 0;
        if next < frames.len() {
            // A run of frames that are all stamped or all not, up to 7.
            let run = frames[next..]
                .iter()
                .zip(&stamped[next..])
                .take(7)
                .take_while(|(_, s)| **s == stamped[next])
                .count();
            let batch: Vec<&[u8]> = frames[next..next + run]
                .iter()
                .map(|f| f.as_slice())
                .collect();
            n = if stamped[next] {
                tx.send_stamped(dev, &batch).expect("send_stamped")
            } else {
                tx.send(dev, &batch).expect("send")
            };
            next += n;
        }
        if n == 0 && stamps.len() == before {
            dev.card_mut().relax();
            idle += 1;
            assert!(idle < 2_000_000, "TX or its stamps stuck at frame {next}");
        }
    }
    assert!(tx.wait_idle(dev, 1_000_000), "TX did not finish");
    stamps
}

#[test]
fn tx_stamps_are_the_cycle_each_first_beat_left_on_the_rx_clock() {
    // The MAC takes frames at 100 GbE, so first beats wait at the port.
    let cfg = SimConfig {
        tx_pacing: Pacing::LineRate {
            gbps: 100.0,
            clock_mhz: 250.0,
        },
        ..SimConfig::default()
    };
    let mut dev = Device::open(SimCard::new(cfg)).expect("open simulated card");
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    dev.set_default_pipe(0).unwrap();
    let offset = rx_clock_offset(&mut dev, &mut rx);

    // A 16 KiB ring: it wraps many times and fills, with stamps pending.
    let mut tx = dev.open_tx_pipe(0, 16 * 1024).unwrap();
    let sizes = [60, 64, 65, 127, 200, 1500, 61, 9000, 64, 64];
    let frames: Vec<Vec<u8>> = (0..400u32)
        .map(|i| frame(i, sizes[i as usize % sizes.len()]))
        .collect();
    // Stamped in runs: 0..5 of 8 frames, so stamped frames sit next to
    // frames that are not, in one doorbell and across doorbells.
    let stamped: Vec<bool> = (0..frames.len()).map(|i| i % 8 < 5).collect();
    dev.card_mut().sim.departures = Some(VecDeque::new());
    let before = dev.cycles().unwrap();
    let stamps = send_and_collect(&mut dev, &mut tx, &frames, &stamped);
    let after = dev.cycles().unwrap();

    let out = dev.card_mut().sim.eth_tx.take_frames();
    assert_eq!(out.len(), frames.len());
    for (i, (got, sent)) in out.iter().zip(&frames).enumerate() {
        assert!(got == sent, "frame {i}: not what was sent");
    }
    let departures: Vec<u64> = dev.card_mut().sim.departures.take().unwrap().into();
    assert_eq!(departures.len(), frames.len());
    let due: Vec<usize> = (0..frames.len()).filter(|&i| stamped[i]).collect();
    assert_eq!(stamps.len(), due.len(), "one stamp per stamped frame");
    for (s, &i) in stamps.iter().zip(&due) {
        assert_eq!(usize::from(s.len), frames[i].len(), "frame {i}: LEN");
        assert_eq!(
            departures[i] - s.cycles,
            offset,
            "frame {i}: stamp {}, first beat out at harness cycle {}",
            s.cycles,
            departures[i]
        );
    }
    assert!(
        stamps.windows(2).all(|w| w[0].cycles < w[1].cycles),
        "stamps increase"
    );
    assert!(before < stamps[0].cycles && stamps[stamps.len() - 1].cycles < after);
    let c = dev.counters().unwrap();
    assert_eq!((c.tx_frames, c.tx_drop_malformed), (400, 0));
}

#[test]
fn stamps_wait_for_room_while_rx_keeps_the_dma_write_port_busy() {
    // MAC unpaced both ways: RX ring writes take most of the DMA write
    // port, TX sends 64-byte frames as fast as it can, each asking for a
    // stamp, so the stamp queue fills and first beats wait at the MAC port.
    let mut dev = Device::open(SimCard::new(SimConfig::default())).expect("open simulated card");
    let mut rx = dev.open_rx_pipe(0, 1 << 20).unwrap();
    dev.set_default_pipe(0).unwrap();
    let mut tx = dev.open_tx_pipe(1, 64 * 1024).unwrap();
    const N: u32 = 3000;
    let mut rx_due: VecDeque<Vec<u8>> = (0..N).map(|i| frame(i, 64)).collect();
    for f in &rx_due {
        dev.card_mut().sim.eth.push(f.clone());
    }
    let frames: Vec<Vec<u8>> = (0..N).map(|i| frame(N + i, 64)).collect();
    dev.card_mut().sim.departures = Some(VecDeque::new());
    let (mut next, mut stamps, mut idle, mut rx_seen) = (0, Vec::new(), 0u64, 0u64);
    while next < frames.len() || tx.stamps_pending() > 0 || !rx_due.is_empty() {
        let before = (next, stamps.len(), rx_due.len());
        if next < frames.len() {
            let batch: Vec<&[u8]> = frames[next..]
                .iter()
                .take(64)
                .map(|f| f.as_slice())
                .collect();
            next += tx.send_stamped(&mut dev, &batch).expect("send_stamped");
        }
        tx.stamps(&dev, &mut stamps).expect("stamps");
        take_batch(
            &mut dev,
            &mut rx,
            &mut rx_due,
            &mut rx_seen,
            &mut |_, _, _| Ok(()),
        )
        .expect("RX");
        if before == (next, stamps.len(), rx_due.len()) {
            dev.card_mut().relax();
            idle += 1;
            assert!(
                idle < 2_000_000,
                "stuck: {next} sent, {} stamps",
                stamps.len()
            );
        }
    }
    let out = dev.card_mut().sim.eth_tx.take_frames();
    assert!(out == frames, "TX frames out of order or altered");
    let departures: Vec<u64> = dev.card_mut().sim.departures.take().unwrap().into();
    assert_eq!(stamps.len(), frames.len(), "a stamp per frame");
    let offset = departures[0] - stamps[0].cycles;
    for (i, (s, d)) in stamps.iter().zip(&departures).enumerate() {
        assert_eq!(d - s.cycles, offset, "frame {i}: stamp against departure");
    }
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drop_ring_full), (u64::from(N), 0));
}
