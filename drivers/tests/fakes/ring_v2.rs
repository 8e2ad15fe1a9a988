//! Ring format v2 end to end against the fake card: every frame length
//! round-trips with its header, entries wrap the ring's end, a corrupt
//! header is a typed error, `send` checks lengths before queuing anything
//! and takes any EtherType, the card drops a bad TX entry alone, and link
//! messages and atomic results are one entry each (a commit's 128 bytes).

use crate::common::{patterned_frame, udp_frame};

use pendulum_driver::layout::flow::PROTO_UDP;
use pendulum_driver::layout::ring::{entry_units, rx_flags, rx_header};
use pendulum_driver::mock::{FakeCard, MAX_FRAME_BYTES};
use pendulum_driver::{
    Device, EntryHeader, Error, EthernetPort, FlowKey, LinkMsg, MsgKind, RegionKind, RxPipe,
};
use pendulum_layout::acp::{message, PAYLOAD_BYTES};
use pendulum_layout::atomic::{op, Commit, Request, Verb, LINE_WORDS};
use pendulum_layout::{pipe, pipe_page};

/// A frame of `len` bytes that is not IP (EtherType 0x88B5, local
/// experimental, once it is long enough to have one): the card steers it
/// to the default pipe whatever its other bytes say.
fn raw_frame(tag: u8, len: usize) -> Vec<u8> {
    let mut f = patterned_frame(tag, len);
    if len >= 14 {
        f[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
    }
    f
}

/// A received frame, owned.
struct Got {
    unit: u32,
    end_unit: u32,
    header: EntryHeader,
    bytes: Vec<u8>,
}

/// Receives `n` frames on `rx`, freeing each batch.
fn receive(dev: &mut Device<FakeCard>, rx: &mut RxPipe, n: usize) -> Vec<Got> {
    let mut got = Vec::new();
    while got.len() < n {
        assert!(rx.wait(dev, 10), "{} of {n} frames came", got.len());
        let batch = rx.recv(dev);
        for f in batch.iter() {
            let f = f.unwrap();
            got.push(Got {
                unit: f.unit,
                end_unit: f.end_unit,
                header: f.header,
                bytes: f.bytes.to_vec(),
            });
        }
        let end = batch.end_unit();
        rx.free(dev, end).unwrap();
    }
    got
}

/// Sends every frame of `frames` on TX pipe `tx`, waiting for room.
fn send_all(dev: &mut Device<FakeCard>, tx: &mut pendulum_driver::TxPipe, frames: &[Vec<u8>]) {
    let mut next = 0;
    while next < frames.len() {
        let refs: Vec<&[u8]> = frames[next..].iter().map(Vec::as_slice).collect();
        next += tx.send(dev, &refs).unwrap();
        assert!(tx.wait_idle(dev, 10));
    }
}

#[test]
fn frames_of_every_length_round_trip_through_the_mac_with_their_headers() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    // Rings smaller than the traffic, so both wrap several times.
    let mut rx = dev.open_rx_pipe(0, 32 << 10).unwrap();
    let mut tx = dev.open_tx_pipe(1, 16 << 10).unwrap();
    let lens = (1..=200).chain([1514, 1518, 4000, 9000, MAX_FRAME_BYTES as usize, 3]);
    let frames: Vec<Vec<u8>> = lens
        .enumerate()
        .map(|(k, n)| raw_frame(k as u8, n))
        .collect();
    send_all(&mut dev, &mut tx, &frames);
    let out = dev.card_mut().collect().unwrap();
    assert!(out == frames, "frames went out other than they were sent");

    dev.card_mut().inject(&out).unwrap();
    let got = receive(&mut dev, &mut rx, frames.len());
    assert_eq!(got.len(), frames.len());
    let mut last_stamp = 0;
    for (g, f) in got.iter().zip(&frames) {
        assert_eq!(g.bytes, *f, "frame of {} bytes", f.len());
        let expected = EntryHeader {
            timestamp: g.header.timestamp,
            ..rx_header(f, false, 0)
        };
        assert_eq!(g.header, expected, "frame of {} bytes", f.len());
        assert_eq!(usize::from(g.header.len), f.len());
        assert!(g.header.timestamp > last_stamp, "timestamps increase");
        last_stamp = g.header.timestamp;
        let units = (g.end_unit + rx.ring_units() - g.unit) % rx.ring_units();
        assert_eq!(units, entry_units(f.len() as u32));
    }
    // Some entries straddle the ring's end: their frame continues at unit 0.
    assert!(got.iter().any(|g| 0 < g.end_unit && g.end_unit < g.unit));
    assert!(dev.card().cycle() >= last_stamp);
    let c = dev.counters().unwrap();
    let n = frames.len() as u64;
    assert_eq!((c.rx_frames, c.drops(), c.tx_frames), (n, 0, n));
    assert_eq!(c.tx_drop_malformed, 0);
}

#[test]
fn the_flow_hit_flags_and_hash_of_a_bound_flow_reach_the_iterator() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut rx = dev.open_rx_pipe(1, 4096).unwrap();
    let key = FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 4000, 5000);
    rx.bind(&mut dev, key).unwrap();
    let frames = [udp_frame(&key, 100, 1), udp_frame(&key, 60, 2)];
    dev.card_mut().inject(&frames).unwrap();
    let got = receive(&mut dev, &mut rx, 2);
    for (g, f) in got.iter().zip(&frames) {
        assert!(g.header.flow_hit());
        assert_eq!(g.header.flags, rx_flags(f, true));
        assert_eq!(g.header.hash, key.hash());
        assert_eq!(g.header.l3(), pendulum_layout::ring::L3Kind::Ipv4);
    }
    assert!(got[1].header.timestamp > got[0].header.timestamp);
}

#[test]
fn freeing_inside_a_received_entry_is_refused_and_its_end_is_taken() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut rx = dev.open_rx_pipe(0, 4096).unwrap();
    let frames: Vec<Vec<u8>> = (0..3).map(|k| raw_frame(k, 100)).collect();
    dev.card_mut().inject(&frames).unwrap();
    assert!(dev.card_mut().drain(10).unwrap());
    // Reactive notifications: the first frame was announced alone; a
    // prefetch announces the rest.
    rx.prefetch(&mut dev).unwrap();
    let firsts: Vec<(u32, u32)> = rx
        .recv(&dev)
        .iter()
        .map(|f| f.map(|f| (f.unit, f.end_unit)).unwrap())
        .collect();
    assert_eq!(firsts, [(0, 8), (8, 16), (16, 24)]);
    for inside in [1, 7, 9, 23] {
        let e = rx.free(&mut dev, inside).unwrap_err();
        assert!(
            matches!(e, Error::FreeInsideFrame { pipe: 0, to, .. } if to == inside),
            "{e}"
        );
    }
    assert_eq!(rx.head(), 0);
    rx.free(&mut dev, 8).unwrap();
    let rest: Vec<Vec<u8>> = rx
        .recv(&dev)
        .iter()
        .map(|f| f.unwrap().bytes.to_vec())
        .collect();
    assert!(rest == frames[1..]);
}

/// A card without a MAC with RX pipe 0 open: entries are written by hand.
fn open_rx() -> (Device<FakeCard>, RxPipe) {
    let mut dev = Device::open(FakeCard::with(8, 4, 2)).unwrap();
    let rx = dev.open_rx_pipe(0, 4096).unwrap();
    (dev, rx)
}

fn header(len: u16) -> EntryHeader {
    EntryHeader {
        len,
        ..Default::default()
    }
}

#[test]
fn a_corrupt_header_is_a_typed_error_naming_the_pipe_and_its_unit() {
    let bad = [
        (0, "0 bytes"),
        (MAX_FRAME_BYTES as u16 + 1, "9729 bytes"),
        (u16::MAX, "65535 bytes"),
    ];
    for (len, says) in bad {
        let (mut dev, mut rx) = open_rx();
        let ring = *rx.ring_region();
        let good = raw_frame(1, 50);
        let at = dev.card_mut().write_entry(&ring, 0, &header(50), &good);
        dev.card_mut()
            .write_ring(&ring, at, &header(len).to_bytes());
        assert!(dev.card_mut().post(0, 1, at + 20));
        let batch = rx.recv(&dev);
        let mut walk = batch.iter();
        assert_eq!(walk.next().unwrap().unwrap().bytes, &good[..]);
        let e = walk.next().unwrap().unwrap_err();
        assert!(
            matches!(e, Error::CorruptRing { pipe: 0, unit, .. } if unit == at),
            "{e}"
        );
        assert!(e.to_string().contains(says), "{e}");
        assert!(
            walk.next().is_none(),
            "the walk goes on past a corrupt entry"
        );
        // Freeing past it walks the same entries, and says the same.
        let e = rx.free(&mut dev, at + 1).unwrap_err();
        assert!(
            matches!(e, Error::CorruptRing { unit, .. } if unit == at),
            "{e}"
        );
        // So does taking records from it.
        let e = rx.take_records(&mut dev, |b| Ok(b.len())).unwrap_err();
        assert!(
            matches!(e, Error::CorruptRing { unit, .. } if unit == at),
            "{e}"
        );
        assert_eq!(rx.head(), 0, "nothing freed");
    }
}

#[test]
fn an_entry_running_past_the_announced_tail_is_corrupt() {
    let (mut dev, mut rx) = open_rx();
    let ring = *rx.ring_region();
    // An entry of 8 units, announced up to its 5th: a tail inside an entry.
    let f = raw_frame(2, 100);
    dev.card_mut().write_entry(&ring, 0, &header(100), &f);
    assert!(dev.card_mut().post(0, 1, 5));
    let e = rx.recv(&dev).iter().next().unwrap().unwrap_err();
    assert!(
        matches!(
            e,
            Error::CorruptRing {
                pipe: 0,
                unit: 0,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("8 units"), "{e}");
    // The batch's end is the announced tail, which is taken as it is.
    rx.free(&mut dev, 5).unwrap();
}

#[test]
fn send_checks_every_length_before_queuing_and_takes_any_ethertype() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut tx = dev.open_tx_pipe(2, 64 << 10).unwrap();
    let doorbell = pipe_page(2) + pipe::TX_TAIL.offset;
    let good = |k: u8| udp_frame(&FlowKey::v4([1; 4], [2; 4], PROTO_UDP, 1, 2), 80, k);
    let too_long = vec![0u8; MAX_FRAME_BYTES as usize + 1];
    for bad in [&[][..], &too_long[..]] {
        let e = tx
            .send(&mut dev, &[&good(1), bad, &good(2), &good(3)])
            .unwrap_err();
        assert!(
            matches!(e, Error::BadFrameLength { index: 1, len, max: MAX_FRAME_BYTES } if len == bad.len()),
            "{e}"
        );
    }
    assert_eq!(tx.tail(), 0, "something was queued");
    assert!(dev.card().writes_to(doorbell).is_empty(), "a doorbell rang");
    assert!(dev.card_mut().collect().unwrap().is_empty());

    // 802.1Q, three VLAN tags, LLDP: the card delimits by the entry's
    // length, so every EtherType goes.
    let mut vlan = good(4);
    vlan[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
    let mut qinqinq = raw_frame(5, 90);
    for t in 0..3 {
        qinqinq[12 + 4 * t..14 + 4 * t].copy_from_slice(&0x88A8u16.to_be_bytes());
    }
    let mut lldp = raw_frame(6, 70);
    lldp[12..14].copy_from_slice(&0x88CCu16.to_be_bytes());
    let frames = [good(1), vlan, good(2), qinqinq, lldp, good(3)];
    let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
    assert_eq!(tx.send(&mut dev, &refs).unwrap(), frames.len());
    assert!(tx.wait_idle(&mut dev, 1));
    assert!(dev.card_mut().collect().unwrap() == frames);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 0);
}

/// The units of an entry whose header states `len` bytes, then `body`
/// padded to a whole unit.
fn entry(len: u16, body: &[u8]) -> Vec<u8> {
    let mut units = header(len).to_bytes().to_vec();
    units.extend_from_slice(body);
    units.resize(units.len().next_multiple_of(16), 0);
    units
}

#[test]
fn the_card_drops_a_bad_tx_entry_alone_and_counts_it() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut tx = dev.open_tx_pipe(2, 64 << 10).unwrap();
    let goods: Vec<Vec<u8>> = (0..4).map(|k| raw_frame(k, 100 + k as usize)).collect();
    // One doorbell: good, length 0, good, over the MTU (skipped by its
    // length: 610 units), good; then a good one and one whose header says
    // more than was posted before the tail (everything to the tail goes).
    let too_long = vec![0xEE; MAX_FRAME_BYTES as usize + 1];
    let mut units = entry(goods[0].len() as u16, &goods[0]);
    units.extend(entry(0, &[]));
    units.extend(entry(goods[1].len() as u16, &goods[1]));
    units.extend(entry(too_long.len() as u16, &too_long));
    units.extend(entry(goods[2].len() as u16, &goods[2]));
    tx.send_raw(&mut dev, &units).unwrap();
    let mut units = entry(goods[3].len() as u16, &goods[3]);
    units.extend(entry(100, &[0xDD; 16]));
    tx.send_raw(&mut dev, &units).unwrap();
    assert!(
        tx.wait_idle(&mut dev, 1),
        "the card stopped short of the tail"
    );
    assert!(dev.card_mut().collect().unwrap() == goods);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 3);
    assert_eq!(dev.read(pipe_page(2) + pipe::TX_DROPS.offset).unwrap(), 3);
    assert_eq!(
        dev.read(pipe_page(2) + pipe::TX_HEAD.offset).unwrap(),
        tx.tail()
    );
    // The same through send_raw_entry: each bad entry alone.
    tx.send_raw_entry(&mut dev, &[]).unwrap();
    tx.send_raw_entry(&mut dev, &too_long).unwrap();
    tx.send(&mut dev, &[&goods[0]]).unwrap();
    assert!(tx.wait_idle(&mut dev, 1));
    assert!(dev.card_mut().collect().unwrap() == goods[..1]);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 5);
}

#[test]
fn completions_come_per_kib_of_units_and_at_the_tail() {
    let mut dev = Device::open(FakeCard::new().with_mac()).unwrap();
    let mut tx = dev.open_tx_pipe(2, 64 << 10).unwrap();
    // 10 entries of 17 units: 170 units cross 64 and 128 on the way.
    let frames: Vec<Vec<u8>> = (0..10).map(|k| raw_frame(k, 256)).collect();
    send_all(&mut dev, &mut tx, &frames);
    assert_eq!(tx.head(), 170);
    assert_eq!(dev.counters().unwrap().tx_completions, 3);
}

#[test]
fn a_commit_is_one_entry_each_way_and_its_result_decodes() {
    let mut dev = Device::open(FakeCard::with_atomics(512)).unwrap();
    let mut at = dev.open_atomics(1, 1, 4096).unwrap();
    let line = 0x40;
    let new: [u64; LINE_WORDS] = std::array::from_fn(|i| 100 + i as u64);
    let (wrote, old) = at
        .commit(&mut dev, line, 0, [0; LINE_WORDS], 0xFF, new)
        .unwrap();
    assert_eq!((wrote, old), (true, [0; LINE_WORDS]));
    // The verb ring (the second data ring) holds one entry of 192 bytes,
    // the result ring one of 128.
    let ring = |dev: &mut Device<FakeCard>, n| {
        dev.card_mut().region(RegionKind::DataRing, n)[..16].to_vec()
    };
    let head = |b: Vec<u8>| EntryHeader::from_bytes(b[..].try_into().unwrap());
    assert_eq!(head(ring(&mut dev, 1)).len, 192);
    let result = head(ring(&mut dev, 0));
    assert_eq!(result.len, 128);
    assert!(result.timestamp > 0, "results are stamped");
    // A failed compare returns the current line; mixed with verbs, in order.
    let fetch_add = |tag| Verb {
        op: op::FETCH_ADD,
        tag,
        addr: line,
        operands: [1, 0, 0, 0],
        reserved_set: false,
    };
    let commit = Commit {
        tag: 2,
        addr: line,
        compare_mask: 1,
        write_mask: 1,
        compare: [7; LINE_WORDS],
        write: [0; LINE_WORDS],
        reserved_set: false,
    };
    let requests = [
        Request::Verb(fetch_add(1)),
        Request::Commit(commit),
        Request::Verb(fetch_add(3)),
    ];
    assert_eq!(at.submit_requests(&mut dev, &requests).unwrap(), 3);
    // Notifications are reactive: the first result is announced alone, the
    // others once its entry is freed.
    let mut results = Vec::new();
    for _ in 0..10 {
        results.extend(at.results(&mut dev).unwrap());
    }
    let tags: Vec<(u16, u8)> = results.iter().map(|r| (r.tag, r.op)).collect();
    assert_eq!(
        tags,
        [(1, op::FETCH_ADD), (2, op::COMMIT), (3, op::FETCH_ADD)]
    );
    assert_eq!((results[0].old, results[2].old), (100, 101));
    let mut current = new;
    current[0] = 101;
    assert_eq!(results[1].line, current);
    // A commit's slots cut to 128 bytes are no request: dropped, counted.
    at.submit_raw(&mut dev, &commit.to_slots()[..128]).unwrap();
    assert_eq!(at.fetch_add(&mut dev, line, 0).unwrap(), 102);
    assert_eq!(dev.counters().unwrap().tx_drop_malformed, 1);
}

#[test]
fn link_messages_are_one_64_byte_entry_each_way() {
    let mut dev = Device::open(FakeCard::with(8, 4, 2)).unwrap();
    let mut link = dev.open_link_seeded(1, 1, 4096, 7).unwrap();
    let payload = [0x5A; PAYLOAD_BYTES];
    assert_eq!(link.send(&mut dev, &[payload]).unwrap(), 1);
    // The TX ring (the second data ring): a header of 64, the slot after it.
    let tx_ring = dev.card_mut().region(RegionKind::DataRing, 1).clone();
    assert_eq!(
        EntryHeader::from_bytes(tx_ring[..16].try_into().unwrap()),
        header(64)
    );
    assert_eq!(tx_ring[16], message::KIND_SEND);
    assert_eq!(&tx_ring[16 + message::PAYLOAD_OFFSET..80], &payload[..]);
    let doorbell = pipe_page(1) + pipe::TX_TAIL.offset;
    assert_eq!(dev.card().writes_to(doorbell), [5]);

    // The card delivers a message: one entry of 64 bytes, in the RX ring
    // (the first data ring; the fake puts region `id` at (id + 1) << 32).
    let card = dev.card();
    let id = card
        .regions
        .iter()
        .position(|(k, _)| *k == RegionKind::DataRing)
        .unwrap();
    let ring = pendulum_driver::DmaRegion {
        id,
        iova: (id as u64 + 1) << 32,
        len: 4096,
        mirrored: true,
    };
    let mut slot = [0u8; 64];
    slot[0] = message::KIND_DELIVERED;
    slot[message::BYTE_CHANNEL] = 3;
    slot[message::PAYLOAD_OFFSET..].copy_from_slice(&payload);
    let end = dev.card_mut().write_entry(&ring, 0, &header(64), &slot);
    assert!(dev.card_mut().post(1, 1, end));
    let got = link.recv(&mut dev).unwrap();
    let expected = LinkMsg {
        kind: MsgKind::Delivered,
        channel: 3,
        verb: false,
        payload,
    };
    assert_eq!(got, [expected]);
    // An entry of another length is no message: a corrupt ring.
    let mut long = slot.to_vec();
    long.extend_from_slice(&slot);
    let next = dev.card_mut().write_entry(&ring, end, &header(128), &long);
    assert!(dev.card_mut().post(1, 2, next));
    let e = link.recv(&mut dev).unwrap_err();
    assert!(
        matches!(e, Error::CorruptRing { pipe: 1, unit, .. } if unit == end),
        "{e}"
    );
}
