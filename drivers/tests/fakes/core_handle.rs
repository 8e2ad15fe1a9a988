//! Per-core handles (`Device::split`) on the mock card: each core owns its
//! notification buffer, the RX pipes that report into it, its TX pipes and
//! its flows; a handle refuses everything else with a typed error before
//! touching the card; handles move between threads.

use crate::common::udp_frame;
use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::mock::FakeCard;
use pendulum_driver::{CoreHandle, Device, Error, EthernetPort, FlowKey, RxPipe, TxPipe};

/// Handles, and the pipes they hand out, move into other threads: checked
/// by the compiler, not at run time.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<CoreHandle<FakeCard>>();
    assert_send::<RxPipe>();
    assert_send::<TxPipe>();
};

fn split(card: FakeCard, cores: usize) -> Vec<CoreHandle<FakeCard>> {
    Device::open(card).unwrap().split(cores).unwrap()
}

/// Register writes the card has seen so far.
fn writes(h: &CoreHandle<FakeCard>) -> usize {
    h.with_card(|c| c.writes.len()).unwrap()
}

fn flow(dport: u16) -> FlowKey {
    FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 5000, dport)
}

/// Asserts `r` is `NotThisCore` for `what` `index`, owned by `owner`.
fn assert_not_this_core<T: std::fmt::Debug>(
    r: pendulum_driver::Result<T>,
    what: &str,
    index: usize,
    owner: Option<usize>,
) {
    match r {
        Err(Error::NotThisCore {
            what: w,
            index: i,
            owner: o,
            ..
        }) if w == what && i == index && o == owner => {}
        other => panic!("expected NotThisCore for {what} {index} (owner {owner:?}), got {other:?}"),
    }
}

#[test]
fn core_k_owns_buffer_k_the_rx_pipes_that_report_into_it_and_tx_pipes_k_mod_cores() {
    // The card's shape: 1,024 RX pipes, 64 TX pipes, 64 notification buffers.
    let hs = split(FakeCard::with(1024, 64, 64), 4);
    let h = &hs[1];
    assert_eq!((h.core(), h.cores(), h.notif_buf()), (1, 4, 1));
    assert_eq!(h.rx_owner(1), Some(1));
    assert_eq!(h.rx_owner(65), Some(1));
    assert_eq!(h.rx_owner(1023), None, "buffer 63 went to no core");
    assert_eq!(h.tx_owner(5), 1);
    assert_eq!(h.tx_owner(63), 3);
    // The 64th core owns buffer 63 and with it RX pipe 1023.
    let hs = split(FakeCard::with(1024, 64, 64), 64);
    assert_eq!(hs[63].rx_owner(1023), Some(63));
    assert_eq!(hs[63].tx_owner(63), 63);
}

#[test]
fn split_refuses_no_cores_and_more_than_one_buffer_and_tx_pipe_each() {
    // 4 TX pipes, 64 notification buffers: at most 4 cores.
    for cores in [0, 5] {
        let dev = Device::open(FakeCard::new()).unwrap();
        match dev.split(cores) {
            Err(e @ Error::BadCoreCount { .. }) => {
                assert!(e.to_string().contains("ask for 1 to 4 cores"), "{e}")
            }
            other => panic!("{cores} cores: {other:?}"),
        }
    }
    assert_eq!(split(FakeCard::new(), 4).len(), 4);
}

#[test]
fn a_core_cannot_open_another_cores_pipes_and_the_card_is_not_touched() {
    let hs = split(FakeCard::new(), 2);
    let before = writes(&hs[0]);
    assert_not_this_core(hs[0].open_rx_pipe(1, 4096), "RX pipe", 1, Some(1));
    assert_not_this_core(hs[0].open_tx_pipe(1, 4096), "TX pipe", 1, Some(1));
    assert_not_this_core(hs[1].open_tx_pipe(2, 4096), "TX pipe", 2, Some(0));
    // Pipe 2 reports into buffer 2, which no core of two owns.
    assert_not_this_core(hs[0].open_rx_pipe(2, 4096), "RX pipe", 2, None);
    assert_eq!(writes(&hs[0]), before, "a refused open wrote registers");
    let e = hs[0].open_rx_pipe(1, 4096).unwrap_err().to_string();
    assert!(e.contains("use it through core 1's handle"), "{e}");
    // A pipe the card lacks is named as such, whoever would own it.
    assert!(matches!(
        hs[0].open_rx_pipe(64, 4096),
        Err(Error::NoSuchPipe { pipe: 64, .. })
    ));
    assert!(matches!(
        hs[0].open_tx_pipe(4, 4096),
        Err(Error::NoSuchTxPipe { pipe: 4, .. })
    ));
    // Each core opens its own.
    hs[0].open_rx_pipe(0, 4096).unwrap();
    hs[0].open_tx_pipe(2, 4096).unwrap();
    hs[1].open_rx_pipe(1, 4096).unwrap();
    hs[1].open_tx_pipe(1, 4096).unwrap();
}

#[test]
fn a_core_cannot_use_pipes_another_core_opened() {
    let hs = split(FakeCard::new(), 2);
    let mut rx1 = hs[1].open_rx_pipe(1, 4096).unwrap();
    let mut tx1 = hs[1].open_tx_pipe(1, 4096).unwrap();
    let before = writes(&hs[0]);
    assert_not_this_core(
        hs[0].recv_with(&mut rx1, |b| b.units()),
        "RX pipe",
        1,
        Some(1),
    );
    assert_not_this_core(hs[0].free(&mut rx1, 0), "RX pipe", 1, Some(1));
    assert_not_this_core(hs[0].wait(&mut rx1, 1), "RX pipe", 1, Some(1));
    assert_not_this_core(hs[0].bind_flow(flow(7), &rx1), "RX pipe", 1, Some(1));
    assert_not_this_core(
        hs[0].send(&mut tx1, &[&udp_frame(&flow(7), 64, 0)]),
        "TX pipe",
        1,
        Some(1),
    );
    assert_not_this_core(hs[0].wait_idle(&mut tx1, 1), "TX pipe", 1, Some(1));
    assert_not_this_core(
        hs[0].send_stamped(&mut tx1, &[&udp_frame(&flow(7), 64, 0)]),
        "TX pipe",
        1,
        Some(1),
    );
    assert_not_this_core(
        hs[0].stamps(&mut tx1, &mut Vec::new()),
        "TX pipe",
        1,
        Some(1),
    );
    assert_not_this_core(hs[0].open_tx_pipe_over(0, &rx1), "RX pipe", 1, Some(1));
    assert_eq!(writes(&hs[0]), before, "a refused call wrote registers");
    // The pipes still work through their own core.
    assert_eq!(hs[1].recv_with(&mut rx1, |b| b.units()).unwrap(), 0);
    assert_eq!(
        hs[1]
            .send(&mut tx1, &[&udp_frame(&flow(7), 64, 0)])
            .unwrap(),
        1
    );
    assert_eq!(
        hs[1]
            .send_stamped(&mut tx1, &[&udp_frame(&flow(7), 64, 1)])
            .unwrap(),
        1
    );
    assert_eq!(tx1.stamps_pending(), 1);
    assert_not_this_core(hs[0].close_rx_pipe(rx1), "RX pipe", 1, Some(1));
    assert_not_this_core(hs[0].close_tx_pipe(tx1), "TX pipe", 1, Some(1));
}

#[test]
fn a_core_cannot_take_over_or_unbind_another_cores_flow() {
    // The mock card has a flow table only with its MAC.
    let hs = split(FakeCard::new().with_mac(), 2);
    let rx0 = hs[0].open_rx_pipe(0, 4096).unwrap();
    let rx1 = hs[1].open_rx_pipe(1, 4096).unwrap();
    hs[1].bind_flow(flow(7), &rx1).unwrap();
    let what = "the flow steered to RX pipe";
    assert_not_this_core(hs[0].bind_flow(flow(7), &rx0), what, 1, Some(1));
    assert_not_this_core(hs[0].unbind_flow(flow(7)), what, 1, Some(1));
    // Core 0's own flows, and unbound keys, are its to bind and unbind.
    hs[0].bind_flow(flow(8), &rx0).unwrap();
    assert!(!hs[0].unbind_flow(flow(9)).unwrap());
    assert!(hs[0].unbind_flow(flow(8)).unwrap());
    // The flow stayed on core 1's pipe until core 1 let it go.
    assert!(hs[1].unbind_flow(flow(7)).unwrap());
    hs[0].bind_flow(flow(7), &rx0).unwrap();
}

#[test]
fn the_last_handle_gives_the_device_back() {
    let mut hs = split(FakeCard::new(), 2);
    let h1 = hs.pop().unwrap();
    let h0 = hs.pop().unwrap();
    let Err(h1) = h1.into_device() else {
        panic!("the device came back while core 0's handle is alive");
    };
    drop(h0);
    let dev = h1.into_device().expect("the last handle");
    assert_eq!(dev.tx_pipes(), 4);
}

#[test]
fn a_core_that_panics_holding_the_device_is_reported_to_the_others() {
    let mut hs = split(FakeCard::new(), 2);
    let h1 = hs.pop().unwrap();
    let h0 = hs.pop().unwrap();
    let t = std::thread::spawn(move || {
        h1.with_card(|_| panic!("core 1 fails while it holds the device"))
            .unwrap();
    });
    assert!(t.join().is_err());
    assert!(matches!(h0.counters(), Err(Error::CorePanicked)));
    assert!(matches!(h0.open_rx_pipe(0, 4096), Err(Error::CorePanicked)));
}

/// Receives `n` frames on `rx` and sends each batch back out on `tx`.
fn echo(h: &CoreHandle<FakeCard>, rx: &mut RxPipe, tx: &mut TxPipe, n: usize) {
    let mut echoed = 0;
    while echoed < n {
        assert!(
            h.wait(rx, 1000).unwrap(),
            "core {}: {echoed} of {n}",
            h.core()
        );
        let (frames, end) = h
            .recv_with(rx, |b| {
                let f: Vec<Vec<u8>> = b.iter().map(|f| f.unwrap().bytes.to_vec()).collect();
                (f, b.end_unit())
            })
            .unwrap();
        h.free(rx, end).unwrap();
        let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let mut sent = 0;
        while sent < refs.len() {
            sent += h.send(tx, &refs[sent..]).unwrap();
        }
        echoed += frames.len();
    }
    assert!(h.wait_idle(tx, 1000).unwrap());
}

#[test]
fn two_threads_echo_their_own_flows_through_their_own_handles() {
    let hs = split(FakeCard::new().with_mac(), 2);
    let mut inputs = Vec::new();
    let mut threads = Vec::new();
    for h in hs {
        let k = h.core();
        // Room for all 20 frames (548 units): either thread's polls run the
        // shared card, so while one thread is descheduled the other may
        // deliver every frame of both before it frees any. With 4096 bytes
        // the late one's ring filled and the card dropped frames for want
        // of room (seen once, on a loaded machine).
        let mut rx = h.open_rx_pipe(k, 16384).unwrap();
        let mut tx = h.open_tx_pipe(k, 4096).unwrap();
        h.bind_flow(flow(7 + k as u16), &rx).unwrap();
        let frames: Vec<Vec<u8>> = (0..20)
            .map(|i| udp_frame(&flow(7 + k as u16), 64 + 37 * i, i as u8))
            .collect();
        h.with_card(|c| c.inject(&frames)).unwrap().unwrap();
        let n = frames.len();
        inputs.push(frames);
        threads.push(std::thread::spawn(move || {
            echo(&h, &mut rx, &mut tx, n);
            h
        }));
    }
    let hs: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let out = hs[0].with_card(|c| c.collect()).unwrap().unwrap();
    assert_eq!(out.len(), inputs.iter().map(Vec::len).sum::<usize>());
    for frames in &inputs {
        let mine: Vec<&Vec<u8>> = out.iter().filter(|f| frames.contains(f)).collect();
        assert_eq!(
            mine,
            frames.iter().collect::<Vec<_>>(),
            "a flow out of order"
        );
    }
}
