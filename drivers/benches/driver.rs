//! The driver's cost per packet (issue #24), against the in-memory card
//! (`pendulum_driver::mock::FakeCard`).
//!
//! Every case runs the driver's real code (`RxPipe::recv`/`free`,
//! `RxBatch::iter`, `TxPipe::send`, `TxPipe::send_through`,
//! `Device::next_pipe_with_data`). The card's part (the frames' headers
//! written into the RX ring, notification records, TX completion records)
//! runs before each timed region, never inside it: each case times only the
//! driver's calls, one `Instant` pair per batch, and the cost of that pair
//! (`timer_overhead`, measured in the same run) is subtracted in the report.
//!
//! The goal (issue #24): 100 GbE at 64 B is one frame every 6.7 ns, so an
//! echo on one core spends at most that per frame, RX and TX together
//! (`echo_*`; Ensō's echo is `echo_zero_copy`). `notif_poll` is per poll
//! (one record found), not per packet: a record announces a whole batch.
//!
//! What the in-memory card leaves out: a register write is a call into the
//! fake (counted and reported per packet, `reg_writes_per_packet`), not a
//! posted MMIO write over PCIe; and the ring is hot in cache, where a real
//! card's DMA writes reach at best the last-level cache.
//!
//! `cargo bench -p pendulum-driver` prints criterion's figures (elements/s
//! is packets/s), then a table, and writes `build/bench/driver.json`.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Device, EntryHeader, RxPipe, TxPipe};
use pendulum_layout::frame::{ETHERTYPE_IPV4, ETHERTYPE_OFFSET, ETH_HEADER_BYTES};
use pendulum_layout::ring::entry_units;
use pendulum_layout::{frame::IPV4_LEN_OFFSET, BEAT_BYTES};
use serde::Serialize;

/// Frames per batch: per notification on RX, per `send` on TX.
const BATCH: usize = 32;
const FRAME_SIZES: [usize; 2] = [64, 1518];
/// Data rings: 8,192 units, more than two batches of 1518 B frames.
const RING_BYTES: u32 = 128 << 10;
/// Pipes open while polling notifications; one of them has a record.
const POLL_PIPES: [usize; 3] = [1, 64, 1024];
/// Rings of the polled pipes: the smallest the card takes.
const POLL_RING_BYTES: u32 = 4096;
/// The card's notification buffers (the 1,024-pipe build's 64).
const NOTIF_BUFS: u32 = 64;
/// 100 GbE at 64 B: 1 / 148.81 Mpps.
const BUDGET_NS: f64 = 6.7;
const SEED: u64 = 0x5EED_2024;

/// An IPv4 frame of `len` bytes whose header states that length.
fn frame(len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|k| k as u8).collect();
    f[ETHERTYPE_OFFSET..ETHERTYPE_OFFSET + 2].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    let ip_len = (len as u32 - ETH_HEADER_BYTES) as u16;
    f[IPV4_LEN_OFFSET..IPV4_LEN_OFFSET + 2].copy_from_slice(&ip_len.to_be_bytes());
    f
}

/// A card with `pipes` pipes whose register accesses are counted, not recorded.
fn open(pipes: u32) -> Device<FakeCard> {
    let mut card = FakeCard::with(pipes, 4, NOTIF_BUFS);
    card.quiet = true;
    Device::open(card).expect("open the in-memory card")
}

/// The card's RX side for one pipe: where it writes next (unit), the
/// sequence number of its last notification and its last timestamp.
struct CardRx {
    tail: u32,
    seq: u32,
    stamp: u64,
}

impl CardRx {
    /// The card receives `BATCH` frames like `frame` into `rx`'s ring and
    /// announces them. Only each entry's header and the frame's first line
    /// are written (what the driver reads of a frame it does not copy; the
    /// rest of the ring holds bytes from earlier), so the untimed part stays
    /// short at 1518 B.
    fn arrive(&mut self, dev: &mut Device<FakeCard>, rx: &RxPipe, frame: &[u8]) {
        let ring = *rx.ring_region();
        let units = entry_units(frame.len() as u32);
        let mut head = EntryHeader {
            len: frame.len() as u16,
            ..Default::default()
        }
        .to_bytes()
        .to_vec();
        head.extend_from_slice(&frame[..frame.len().min(BEAT_BYTES)]);
        for _ in 0..BATCH {
            self.stamp += 1;
            head[8..16].copy_from_slice(&self.stamp.to_le_bytes());
            dev.card_mut().write_ring(&ring, self.tail, &head);
            self.tail = (self.tail + units) % rx.ring_units();
        }
        self.seq += 1;
        assert!(
            dev.card_mut().post(rx.index(), self.seq, self.tail),
            "notification buffer full: the driver stopped reporting its reads"
        );
    }
}

/// The card's TX side: it has sent everything up to the pipe's tail and says
/// so in the completion record (the `n`th notification region).
struct CardTx {
    compl_region: usize,
    seq: u32,
}

impl CardTx {
    fn complete(&mut self, dev: &mut Device<FakeCard>, tx: &TxPipe) {
        self.seq += 1;
        dev.card_mut()
            .complete(self.compl_region, tx.tail(), self.seq);
    }
}

/// What one case measured, besides criterion's estimate.
struct Case {
    group: &'static str,
    param: String,
    /// Packets each timed operation handles (criterion's elements).
    packets_per_op: u64,
    /// Register writes in the timed part, per operation.
    reg_writes_per_op: f64,
    /// Whether the timed region is one `Instant` pair per operation (its cost
    /// is then subtracted), or criterion's own loop.
    timed_per_op: bool,
}

#[derive(Default)]
struct Cases(RefCell<Vec<Case>>);

impl Cases {
    /// Records a case that ran (`writes` is `None` when criterion's filter
    /// skipped it: its estimates on disk would be an older run's).
    fn add(&self, group: &'static str, param: impl ToString, packets: usize, writes: Option<f64>) {
        let Some(writes) = writes else {
            return;
        };
        let param = param.to_string();
        let mut v = self.0.borrow_mut();
        v.retain(|c| !(c.group == group && c.param == param));
        v.push(Case {
            group,
            param,
            packets_per_op: packets as u64,
            reg_writes_per_op: writes,
            timed_per_op: group != "fake_card",
        });
    }
}

/// Runs `iters` operations: `card` before each (untimed), then `sw` timed;
/// returns the time in `sw` and records its register writes per operation.
fn timed<S>(
    iters: u64,
    state: &mut S,
    dev: impl Fn(&S) -> &Device<FakeCard>,
    mut card: impl FnMut(&mut S),
    mut sw: impl FnMut(&mut S),
    writes: &mut Option<f64>,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut w = 0;
    for _ in 0..iters {
        card(state);
        let before = dev(state).card().reg_writes;
        let t = Instant::now();
        sw(state);
        total += t.elapsed();
        w += dev(state).card().reg_writes - before;
    }
    *writes = Some(w as f64 / iters.max(1) as f64);
    total
}

/// One group of cases, one per frame size: state from `new(len)`, then per
/// batch `card` (the card's part, untimed) and `sw` (the driver's, timed;
/// it gets the frame size), as [`timed`] runs them.
fn per_size<S>(
    c: &mut Criterion,
    cases: &Cases,
    group: &'static str,
    mut new: impl FnMut(usize) -> S,
    dev: impl Fn(&S) -> &Device<FakeCard> + Copy,
    card: impl FnMut(&mut S) + Copy,
    sw: impl Fn(&mut S, usize) + Copy,
) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(BATCH as u64));
    for len in FRAME_SIZES {
        let mut s = new(len);
        let mut writes = None;
        g.bench_with_input(BenchmarkId::from_parameter(len), &len, |b, _| {
            b.iter_custom(|iters| timed(iters, &mut s, dev, card, |s| sw(s, len), &mut writes))
        });
        cases.add(group, len, BATCH, writes);
    }
    g.finish();
}

fn timer_overhead(c: &mut Criterion, cases: &Cases) {
    let mut g = c.benchmark_group("timer_overhead");
    g.throughput(Throughput::Elements(1));
    let mut ran = None;
    g.bench_function("instant_pair", |b| {
        ran = Some(0.0);
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                black_box(());
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
    cases.add("timer_overhead", "instant_pair", 1, ran);
}

/// What a register write costs in the fake card (not in the totals: a real
/// card's posted MMIO write costs what it costs on the bus).
fn fake_card(c: &mut Criterion, cases: &Cases) {
    let mut dev = open(4);
    let doorbell = pendulum_layout::pipe_page(0) + pendulum_layout::pipe::TX_TAIL.offset;
    let mut g = c.benchmark_group("fake_card");
    g.throughput(Throughput::Elements(1));
    let mut ran = None;
    g.bench_function("reg_write", |b| {
        ran = Some(1.0);
        let mut v = 0u32;
        b.iter(|| {
            v = v.wrapping_add(1);
            pendulum_driver::Card::write32(dev.card_mut(), black_box(doorbell), v).unwrap()
        })
    });
    g.finish();
    cases.add("fake_card", "reg_write", 1, ran);
}

struct Rx {
    dev: Device<FakeCard>,
    rx: RxPipe,
    card: CardRx,
    frame: Vec<u8>,
}

impl Rx {
    fn new(len: usize) -> Self {
        let mut dev = open(4);
        let rx = dev.open_rx_pipe(0, RING_BYTES).unwrap();
        Self {
            dev,
            rx,
            card: CardRx {
                tail: 0,
                seq: 0,
                stamp: 0,
            },
            frame: frame(len),
        }
    }

    fn arrive(&mut self) {
        self.card.arrive(&mut self.dev, &self.rx, &self.frame);
    }
}

fn rx(c: &mut Criterion, cases: &Cases) {
    per_size(
        c,
        cases,
        "rx_batch_free",
        Rx::new,
        |s| &s.dev,
        Rx::arrive,
        |s, len| {
            let end = {
                let batch = s.rx.recv(&s.dev);
                debug_assert_eq!(batch.units() as usize, BATCH * frame_units(len));
                black_box(batch.end_unit())
            };
            s.rx.free(&mut s.dev, end).unwrap();
        },
    );

    // Iteration alone: `recv` and `free` run, untimed, around it.
    let mut g = c.benchmark_group("rx_iter");
    g.throughput(Throughput::Elements(BATCH as u64));
    for len in FRAME_SIZES {
        let mut s = Rx::new(len);
        let mut ran = None;
        g.bench_with_input(BenchmarkId::from_parameter(len), &len, |b, _| {
            ran = Some(0.0);
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    s.arrive();
                    let end = {
                        let batch = s.rx.recv(&s.dev);
                        let t = Instant::now();
                        let mut bytes = 0;
                        for f in batch.iter() {
                            bytes += f.unwrap().bytes.len();
                        }
                        black_box(bytes);
                        total += t.elapsed();
                        debug_assert_eq!(bytes, BATCH * len);
                        batch.end_unit()
                    };
                    s.rx.free(&mut s.dev, end).unwrap();
                }
                total
            })
        });
        cases.add("rx_iter", len, BATCH, ran);
    }
    g.finish();
}

fn frame_units(len: usize) -> usize {
    entry_units(len as u32) as usize
}

struct Tx {
    dev: Device<FakeCard>,
    tx: TxPipe,
    card: CardTx,
    frames: Vec<Vec<u8>>,
}

fn tx_copy(c: &mut Criterion, cases: &Cases) {
    let new = |len| {
        let mut dev = open(4);
        let tx = dev.open_tx_pipe(0, RING_BYTES).unwrap();
        // Regions so far: none of kind Notification but the completion record.
        Tx {
            dev,
            tx,
            card: CardTx {
                compl_region: 0,
                seq: 0,
            },
            frames: (0..BATCH).map(|_| frame(len)).collect(),
        }
    };
    per_size(
        c,
        cases,
        "tx_copy_send",
        new,
        |s| &s.dev,
        |s| s.card.complete(&mut s.dev, &s.tx),
        |s, _| {
            let refs: [&[u8]; BATCH] = std::array::from_fn(|k| &s.frames[k][..]);
            let sent = s.tx.send(&mut s.dev, &refs).unwrap();
            debug_assert_eq!(sent, BATCH);
            black_box(sent);
        },
    );
}

/// An RX pipe and a TX pipe, over its ring (`Device::open_tx_pipe_over`) or
/// with a ring of its own.
struct Echo {
    dev: Device<FakeCard>,
    rx: RxPipe,
    tx: TxPipe,
    card_rx: CardRx,
    card_tx: CardTx,
    frame: Vec<u8>,
}

impl Echo {
    /// With `over`, the TX pipe sends from the RX ring (zero copy); else it
    /// has a ring of its own.
    fn new(len: usize, over: bool) -> Self {
        let mut dev = open(4);
        let rx = dev.open_rx_pipe(0, RING_BYTES).unwrap();
        let tx = if over {
            dev.open_tx_pipe_over(0, &rx)
        } else {
            dev.open_tx_pipe(0, RING_BYTES)
        }
        .unwrap();
        // Notification regions: the notification buffer, then the completion record.
        Self {
            dev,
            rx,
            tx,
            card_rx: CardRx {
                tail: 0,
                seq: 0,
                stamp: 0,
            },
            card_tx: CardTx {
                compl_region: 1,
                seq: 0,
            },
            frame: frame(len),
        }
    }

    /// The card sends what was posted and receives a new batch.
    fn card(&mut self) {
        self.card_tx.complete(&mut self.dev, &self.tx);
        self.card_rx.arrive(&mut self.dev, &self.rx, &self.frame);
    }
}

fn tx_zero_copy(c: &mut Criterion, cases: &Cases) {
    // `send_through` alone: receiving and freeing run untimed around it.
    per_size(
        c,
        cases,
        "tx_zero_copy",
        |len| Echo::new(len, true),
        |s| &s.dev,
        |s| {
            s.card();
            s.tx.free_units(&s.dev);
            if s.tx.head() != s.rx.head() {
                s.rx.free(&mut s.dev, s.tx.head()).unwrap();
            }
            s.rx.recv(&s.dev);
        },
        |s, _| {
            let end = s.rx.tail();
            s.tx.send_through(&mut s.dev, &s.rx, end).unwrap();
        },
    );
}

fn echo(c: &mut Criterion, cases: &Cases) {
    // Ensō's echo: receive, post the same entries for TX, free the RX units
    // the card has sent (the previous batch: a free short of the tail walks
    // the entries' headers to check it ends on an entry).
    per_size(
        c,
        cases,
        "echo_zero_copy",
        |len| Echo::new(len, true),
        |s| &s.dev,
        Echo::card,
        |s, _| {
            let end = s.rx.recv(&s.dev).end_unit();
            s.tx.send_through(&mut s.dev, &s.rx, end).unwrap();
            s.tx.free_units(&s.dev);
            let sent = s.tx.head();
            if sent != s.rx.head() {
                s.rx.free(&mut s.dev, sent).unwrap();
            }
        },
    );

    // With copies: a batch borrows the Device and `send` needs it mutably,
    // so the frames go through the application's buffer on their way to
    // the TX ring (two copies per frame).
    per_size(
        c,
        cases,
        "echo_copy",
        |len| {
            (
                Echo::new(len, false),
                vec![0u8; BATCH * len],
                Vec::<(usize, usize)>::with_capacity(BATCH),
            )
        },
        |s| &s.0.dev,
        |s| s.0.card(),
        |(s, buf, spans), _| {
            spans.clear();
            let end = {
                let batch = s.rx.recv(&s.dev);
                let mut at = 0;
                for f in batch.iter() {
                    let f = f.unwrap().bytes;
                    buf[at..at + f.len()].copy_from_slice(f);
                    spans.push((at, f.len()));
                    at += f.len();
                }
                batch.end_unit()
            };
            s.rx.free(&mut s.dev, end).unwrap();
            let refs: [&[u8]; BATCH] = std::array::from_fn(|k| {
                let (at, n) = spans[k];
                &buf[at..at + n]
            });
            let sent = s.tx.send(&mut s.dev, &refs).unwrap();
            debug_assert_eq!(sent, BATCH);
        },
    );
}

/// A small seeded generator (xorshift64*), so every run polls the same pipes.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn notif_poll(c: &mut Criterion, cases: &Cases) {
    // One pipe of P, drawn at random, has a notification (one frame); the
    // timed part is finding it. Freeing it runs untimed.
    let mut g = c.benchmark_group("notif_poll");
    g.throughput(Throughput::Elements(1));
    for pipes in POLL_PIPES {
        let mut dev = open(pipes as u32);
        let rxs: Vec<RxPipe> = (0..pipes)
            .map(|p| dev.open_rx_pipe(p, POLL_RING_BYTES).unwrap())
            .collect();
        let mut s = (dev, rxs, vec![0u32; pipes], Rng(SEED), 0usize, 0usize);
        let mut writes = None;
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{pipes}_pipes")),
            &pipes,
            |b, _| {
                b.iter_custom(|iters| {
                    timed(
                        iters,
                        &mut s,
                        |s| &s.0,
                        |(dev, rxs, seqs, rng, after, want)| {
                            // The pipe found last time is served (untimed).
                            let rx = &mut rxs[*after];
                            if rx.tail() != rx.head() {
                                let end = rx.tail();
                                rx.free(dev, end).unwrap();
                            }
                            *want = rng.below(rxs.len());
                            let rx = &rxs[*want];
                            seqs[*want] += 1;
                            let tail = (rx.head() + 1) % rx.ring_units();
                            assert!(dev.card_mut().post(*want, seqs[*want], tail));
                        },
                        |(dev, rxs, _, _, after, want)| {
                            let found = dev.next_pipe_with_data(rxs, *after);
                            debug_assert_eq!(found, Some(*want));
                            *after = black_box(found).unwrap_or(0);
                        },
                        &mut writes,
                    )
                })
            },
        );
        cases.add("notif_poll", format!("{pipes}_pipes"), 1, writes);
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let cases = Cases::default();
    timer_overhead(&mut c, &cases);
    fake_card(&mut c, &cases);
    rx(&mut c, &cases);
    tx_copy(&mut c, &cases);
    tx_zero_copy(&mut c, &cases);
    echo(&mut c, &cases);
    notif_poll(&mut c, &cases);
    c.final_summary();
    report(&cases.0.into_inner());
}

#[derive(Serialize)]
struct Row {
    case: String,
    frame_bytes: Option<usize>,
    pipes: Option<usize>,
    packets_per_op: u64,
    ns_per_op_mean: f64,
    ns_per_op_median: f64,
    /// Mean per operation, less the timer pair, per packet.
    ns_per_packet: f64,
    ns_per_packet_median: f64,
    budget_ns_per_packet: f64,
    reg_writes_per_packet: f64,
}

#[derive(Serialize)]
struct Report {
    bench: &'static str,
    /// `git_rev` is every bench file's key; `git_revision` is kept for
    /// earlier readers.
    git_rev: String,
    git_revision: String,
    batch_frames: usize,
    frame_sizes_bytes: Vec<usize>,
    poll_pipes: Vec<usize>,
    ring_bytes: u32,
    poll_ring_bytes: u32,
    notif_bufs: u32,
    seed: u64,
    budget_ns_per_packet: f64,
    timer_overhead_ns: f64,
    note: &'static str,
    cases: Vec<Row>,
}

/// Criterion's (mean, median) in ns per iteration for `group/param`, from
/// its estimates.json.
fn estimate(group: &str, param: &str) -> Option<(f64, f64)> {
    let home = std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("criterion"))
        })
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/criterion"))
        });
    let path = home.join(group).join(param).join("new/estimates.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let point = |k: &str| v[k]["point_estimate"].as_f64();
    Some((point("mean")?, point("median")?))
}

/// HEAD, with `-dirty` when tracked files differ from it, so a figure taken
/// with uncommitted changes is not credited to the commit. (The testbench
/// has the same as `pendulum_testbench::git_rev`, which this crate cannot
/// depend on: the testbench depends on the driver.)
fn git_revision() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    let Some(rev) = git(&["rev-parse", "HEAD"])
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
    else {
        return "unknown".into();
    };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|o| !o.stdout.is_empty());
    if dirty {
        format!("{rev}-dirty")
    } else {
        rev
    }
}

fn report(cases: &[Case]) {
    let timer = estimate("timer_overhead", "instant_pair").map_or(0.0, |e| e.0);
    let mut rows = Vec::new();
    for case in cases {
        // Cases filtered out of this run (criterion's filter argument) have
        // no closure run; their estimates would be an older run's.
        let Some((mean, median)) = estimate(case.group, &case.param) else {
            continue;
        };
        let less = if case.timed_per_op && case.group != "timer_overhead" {
            timer
        } else {
            0.0
        };
        let per = |ns: f64| (ns - less).max(0.0) / case.packets_per_op as f64;
        rows.push(Row {
            case: format!("{}/{}", case.group, case.param),
            frame_bytes: case.param.parse().ok(),
            pipes: case
                .param
                .strip_suffix("_pipes")
                .and_then(|p| p.parse().ok()),
            packets_per_op: case.packets_per_op,
            ns_per_op_mean: mean,
            ns_per_op_median: median,
            ns_per_packet: per(mean),
            ns_per_packet_median: per(median),
            budget_ns_per_packet: BUDGET_NS,
            reg_writes_per_packet: case.reg_writes_per_op / case.packets_per_op as f64,
        });
    }
    if rows.is_empty() {
        // `--test` mode, or every case filtered out: keep the last report.
        return;
    }
    println!(
        "\n{:<28} {:>8} {:>12} {:>12} {:>10} {:>8} {:>11}",
        "case", "pkts/op", "ns/op mean", "ns/pkt mean", "ns/pkt med", "budget", "wr/pkt"
    );
    for r in &rows {
        println!(
            "{:<28} {:>8} {:>12.1} {:>12.2} {:>10.2} {:>8.1} {:>11.3}",
            r.case,
            r.packets_per_op,
            r.ns_per_op_mean,
            r.ns_per_packet,
            r.ns_per_packet_median,
            r.budget_ns_per_packet,
            r.reg_writes_per_packet
        );
    }
    println!(
        "(timer pair {timer:.1} ns, subtracted per op; notif_poll is per poll; \
         budget: RX + TX of an echo at 64 B)"
    );
    let rev = git_revision();
    let report = Report {
        bench: "driver",
        git_rev: rev.clone(),
        git_revision: rev,
        batch_frames: BATCH,
        frame_sizes_bytes: FRAME_SIZES.to_vec(),
        poll_pipes: POLL_PIPES.to_vec(),
        ring_bytes: RING_BYTES,
        poll_ring_bytes: POLL_RING_BYTES,
        notif_bufs: NOTIF_BUFS,
        seed: SEED,
        budget_ns_per_packet: BUDGET_NS,
        timer_overhead_ns: timer,
        note: "in-memory card (mock::FakeCard): the card's part runs outside the timed region; register writes are calls into the fake, not MMIO; rings hot in cache",
        cases: rows,
    };
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../build/bench"));
    std::fs::create_dir_all(&dir).expect("create build/bench");
    let path = dir.join("driver.json");
    let json = serde_json::to_string_pretty(&report).expect("serialise the report");
    std::fs::write(&path, json + "\n").expect("write build/bench/driver.json");
    println!("wrote {}", path.display());
}
