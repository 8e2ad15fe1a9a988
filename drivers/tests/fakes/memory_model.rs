//! The memory model: records and ring entries a card writes while the
//! driver runs are read through `DmaView` and seen whole, headers included. The card's DMA is played by
//! another thread that writes host memory with atomic stores, a notification
//! record's COUNT last with release ordering, as a device's DMA writes
//! arrive; the driver reads with acquire loads and hands frames out only
//! behind them. (Before `Card::dma` returned a `DmaView`, such a card could
//! not be written: `dma` had to hand out a `&[u8]` of memory another thread
//! was writing.)

use pendulum_driver::mock::FakeCard;
use pendulum_driver::{Card, Device, DmaRegion, DmaView, DmaViewMut, RegionKind, Result};
use pendulum_layout::ring::{entry_units, EntryHeader, UNIT_BYTES};
use pendulum_layout::{notif, pipe, pipe_page};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The pipe the test receives on.
const PIPE: usize = 1;
/// Frames the writer thread sends.
const FRAMES: usize = 3000;
const RING_BYTES: usize = 4096;

/// Host memory of 32-bit cells another thread may write; registers from a
/// `FakeCard`, with HEAD and NBUF_HEAD passed on to the writer.
struct ThreadCard {
    regs: FakeCard,
    mem: Vec<(RegionKind, Arc<[AtomicU32]>)>,
    /// Software's HEAD of `PIPE` and NBUF_HEAD of its buffer, as written.
    head: Arc<AtomicU32>,
    nbuf_head: Arc<AtomicU32>,
}

impl Card for ThreadCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.regs.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        let cap = self.regs.regs[&pendulum_layout::global::CAP_NOTIF_BUFS.offset] as usize;
        if offset == pipe_page(PIPE) + pipe::HEAD.offset {
            self.head.store(value, Ordering::Release);
        }
        if offset == pipe_page(PIPE % cap) + pipe::NBUF_HEAD.offset {
            self.nbuf_head.store(value, Ordering::Release);
        }
        self.regs.write32(offset, value)
    }
    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        let view = if mirrored { 2 * len } else { len };
        let cells: Arc<[AtomicU32]> = (0..view / 4).map(|_| AtomicU32::new(0)).collect();
        self.mem.push((kind, cells));
        Ok(DmaRegion {
            id: self.mem.len() - 1,
            iova: (self.mem.len() as u64) << 32,
            len,
            mirrored,
        })
    }
    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        let cells = &self.mem[region.id].1;
        // SAFETY: the cells live as long as `self` (an `Arc` it holds), which
        // the view borrows. The writer thread writes them only with atomic
        // stores, and never the units of entries it announced and software
        // has not freed (it waits for HEAD), which are all `announced` hands
        // out.
        unsafe { DmaView::from_raw(cells.as_ptr() as *const u8, cells.len() * 4) }
    }
    fn dma_mut(&mut self, _: &DmaRegion) -> DmaViewMut<'_> {
        unimplemented!("this card only receives")
    }
    fn relax(&mut self) {
        std::thread::yield_now();
    }
}

/// Frame `k`: 1 to 250 bytes, each byte telling `k` and its place.
fn frame(k: usize) -> Vec<u8> {
    let len = 1 + (k * 37) % 250;
    (0..len).map(|i| (k * 7 + i) as u8).collect()
}

/// The header the card writes for frame `k`.
fn header(k: usize) -> EntryHeader {
    EntryHeader {
        len: frame(k).len() as u16,
        flags: k as u16 & 0x3FF,
        hash: (k as u32).wrapping_mul(0x9E37_79B9),
        timestamp: k as u64 + 1,
    }
}

/// Stores `bytes` from byte `at` of `cells` (4-byte aligned), word by word.
fn store(cells: &[AtomicU32], at: usize, bytes: &[u8]) {
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        cells[at / 4 + i].store(u32::from_le_bytes(w), Ordering::Relaxed);
    }
}

/// Stores `bytes` into the ring from unit `unit` on, wrapping at its end,
/// into both copies (the ring is mapped twice).
fn store_ring(ring: &[AtomicU32], unit: u32, bytes: &[u8]) {
    let at = unit as usize * UNIT_BYTES;
    let first = bytes.len().min(RING_BYTES - at);
    for copy in [0, RING_BYTES] {
        store(ring, copy + at, &bytes[..first]);
        store(ring, copy, &bytes[first..]);
    }
}

/// The card's side: writes `FRAMES` entries into `ring`, each announced by
/// its own notification record in `nbuf`, waiting for room in both as a
/// card would.
fn card_thread(
    ring: Arc<[AtomicU32]>,
    nbuf: Arc<[AtomicU32]>,
    head: Arc<AtomicU32>,
    nbuf_head: Arc<AtomicU32>,
) {
    let mask = (RING_BYTES / UNIT_BYTES) as u32 - 1;
    let records = (nbuf.len() * 4 / notif::BYTES) as u32;
    let mut tail = 0u32;
    for k in 0..FRAMES {
        let f = frame(k);
        let need = entry_units(f.len() as u32);
        // One unit stays free, so a full ring is not taken for an empty one.
        while need > mask - (tail.wrapping_sub(head.load(Ordering::Acquire)) & mask) {
            std::thread::yield_now();
        }
        let count = k as u32 + 1;
        while count - 1 - nbuf_head.load(Ordering::Acquire) >= records {
            std::thread::yield_now();
        }
        store_ring(&ring, tail, &header(k).to_bytes());
        store_ring(&ring, (tail + 1) & mask, &f);
        tail = (tail + need) & mask;
        let rec = ((count - 1) % records) as usize * notif::BYTES;
        let word = |f: notif::Field| rec + f.lsb / 8;
        store(&nbuf, word(notif::TAIL), &tail.to_le_bytes());
        store(&nbuf, word(notif::SEQ), &count.to_le_bytes());
        store(&nbuf, word(notif::PIPE), &(PIPE as u32).to_le_bytes());
        nbuf[word(notif::COUNT) / 4].store(count, Ordering::Release);
    }
}

#[test]
fn frames_written_by_another_thread_are_seen_whole_behind_their_notification() {
    let card = ThreadCard {
        regs: FakeCard::new(),
        mem: Vec::new(),
        head: Arc::default(),
        nbuf_head: Arc::default(),
    };
    let mut dev = Device::open(card).unwrap();
    let mut rx = dev.open_rx_pipe(PIPE, RING_BYTES as u32).unwrap();
    let region = |kind| {
        let c = dev.card();
        c.mem.iter().find(|(k, _)| *k == kind).unwrap().1.clone()
    };
    let (nbuf, ring) = (
        region(RegionKind::Notification),
        region(RegionKind::DataRing),
    );
    let (head, nbuf_head) = (dev.card().head.clone(), dev.card().nbuf_head.clone());
    let writer = std::thread::spawn(move || card_thread(ring, nbuf, head, nbuf_head));

    let deadline = Instant::now() + Duration::from_secs(60);
    let mut got = 0;
    while got < FRAMES {
        assert!(Instant::now() < deadline, "{got} of {FRAMES} frames came");
        let batch = rx.recv(&dev);
        let end = batch.end_unit();
        let mut n = 0;
        for f in batch.iter() {
            let f = f.unwrap();
            assert_eq!(f.bytes, frame(got + n), "frame {}", got + n);
            assert_eq!(f.header, header(got + n), "frame {}", got + n);
            n += 1;
        }
        if n == 0 {
            dev.relax().unwrap();
            continue;
        }
        got += n;
        rx.free(&mut dev, end).unwrap();
    }
    writer.join().unwrap();
    assert_eq!(dev.notif_records_ignored(), 0);
}
