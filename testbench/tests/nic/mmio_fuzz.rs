//! Register fuzzing mixed with traffic, on the Verilated NIC: whatever
//! software writes, the NIC never hangs, never writes host memory outside a
//! ring or notification buffer it was given, and never loses a frame without
//! counting it; and a reset among the writes leaves a card that works.

use pendulum_driver::{Card, Device, DmaRegion, RegionKind};
use pendulum_layout::params::{NOTIF_BUFS, RING_MAX_BYTES};

/// The pipes the fuzzer works on (the build has more; each needs two
/// regions of the largest ring size: its ring, and its notification buffer).
const PIPES: usize = 4;
// Pipe p reports into notification buffer p mod NOTIF_BUFS: here, its own.
const _: () = assert!(PIPES <= NOTIF_BUFS);
use pendulum_layout::{global, pipe, pipe_page, PAGE_BYTES};
use pendulum_testbench::models::FrameGen;
use pendulum_testbench::{SimCard, SimConfig};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    /// A register write: page (0 = global, 1..=PIPES pipes, more = nothing),
    /// register index or raw offset, value choice.
    Write {
        page: u32,
        reg: usize,
        raw_off: u32,
        value: Value,
    },
    /// A read of any address.
    Read { addr: u32 },
    /// Frames onto the wire.
    Traffic { frames: u8, len: u16, pipe: u8 },
    /// Let time pass.
    Wait { cycles: u16 },
    /// A reset of the card, held this many cycles; software then opens it
    /// again and sets its pipes up as at the start.
    Reset { hold: u8 },
}

#[derive(Clone, Debug)]
enum Value {
    /// The bus address of one of the regions the test allocated (low or high half).
    Region {
        which: u8,
        high: bool,
    },
    /// A ring size, legal or not.
    Size {
        log2: u8,
        plus: u8,
    },
    Small(u16),
    Any(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let value = prop_oneof![
        (any::<u8>(), any::<bool>()).prop_map(|(which, high)| Value::Region { which, high }),
        (10u8..23, 0u8..3).prop_map(|(log2, plus)| Value::Size { log2, plus }),
        any::<u16>().prop_map(Value::Small),
        any::<u32>().prop_map(Value::Any),
    ];
    prop_oneof![
        6 => (0u32..=PIPES as u32 + 1, 0usize..64, 0u32..0x1000, value).prop_map(|(page, reg, raw_off, value)| Op::Write { page, reg, raw_off, value }),
        1 => (0u32..0x8000).prop_map(|addr| Op::Read { addr }),
        3 => (1u8..20, 42u16..2000, 0u8..4).prop_map(|(frames, len, pipe)| Op::Traffic { frames, len, pipe }),
        1 => (1u16..2000).prop_map(|cycles| Op::Wait { cycles }),
        1 => (1u8..50).prop_map(|hold| Op::Reset { hold }),
    ]
}

/// Starts from working pipes, so that traffic flows while the fuzzer writes:
/// each with its notification buffer (on its own page) switched on first, as
/// a pipe cannot be enabled without it.
fn set_up_pipes(dev: &mut Device<SimCard>, regions: &[DmaRegion]) {
    for p in 0..PIPES {
        let page = pipe_page(p);
        let (ring, nbuf) = (regions[p].iova, regions[PIPES + p].iova);
        for (reg, v) in [
            (pipe::NBUF_BASE_LO, nbuf as u32),
            (pipe::NBUF_BASE_HI, (nbuf >> 32) as u32),
            (pipe::NBUF_BYTES, 4096 << p),
            (pipe::NBUF_CTRL, pipe::NBUF_CTRL_ON),
            (pipe::RING_BASE_LO, ring as u32),
            (pipe::RING_BASE_HI, (ring >> 32) as u32),
            (pipe::RING_BYTES, 4096 << p),
            (pipe::CTRL, pipe::CTRL_ENABLE),
        ] {
            dev.write_checked(page + reg.offset, v).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn register_fuzzing_with_traffic_keeps_the_nic_sound(ops in prop::collection::vec(op(), 1..60)) {
        let mut dev = Device::open(SimCard::new(SimConfig::default())).unwrap();
        // Regions software may point the NIC at. Each is as large as the
        // largest legal ring (and notification buffer), so any base the
        // fuzzer picks with any size the NIC accepts stays inside memory the
        // NIC was given.
        let regions: Vec<_> = (0..2 * PIPES)
            .map(|i| {
                let kind = if i < PIPES { RegionKind::DataRing } else { RegionKind::Notification };
                dev.card_mut().alloc_dma(RING_MAX_BYTES as usize, kind, false).unwrap()
            })
            .collect();
        set_up_pipes(&mut dev, &regions);
        let mut g = FrameGen::new(ops.len() as u64);
        let mut sent_before_reset = 0;
        for op in &ops {
            match op {
                Op::Write { page, reg, raw_off, value } => {
                    // The global page's plain registers and the flow director's
                    // (key words, table writes, default and fallback pipes).
                    let global_regs: Vec<_> = global::ALL.iter().chain(global::FLOW).copied().collect();
                    let regs = if *page == 0 { &global_regs[..] } else { pipe::ALL };
                    // Half the time a real register, half a raw offset (unknown ones too).
                    let off = if reg % 2 == 0 { regs[reg / 2 % regs.len()].offset } else { raw_off & !3 };
                    // Base registers only ever get a region's address (or a
                    // misaligned one, which the NIC must refuse): a garbage
                    // base would be software's fault, not the NIC's.
                    let is_base = *page > 0 && regs.iter().any(|r| r.offset == off && r.name.contains("BASE"));
                    let value = if is_base && !matches!(value, Value::Region { .. }) {
                        &Value::Region { which: *raw_off as u8, high: off % 8 == 4 }
                    } else {
                        value
                    };
                    let v = match value {
                        Value::Region { which, high } => {
                            let iova = regions[*which as usize % regions.len()].iova;
                            // Now and then misaligned, to be refused.
                            let skew = if which % 7 == 3 { 4 } else { 0 };
                            if *high { (iova >> 32) as u32 } else { iova as u32 + skew }
                        }
                        Value::Size { log2, plus } => (1u32 << log2) + *plus as u32,
                        Value::Small(v) => *v as u32,
                        Value::Any(v) => *v,
                    };
                    dev.write(page * PAGE_BYTES + off, v).unwrap();
                }
                Op::Read { addr } => {
                    dev.read(*addr & !3).unwrap();
                }
                Op::Traffic { frames, len, pipe } => {
                    for _ in 0..*frames {
                        let f = g.frame(*len as usize, *pipe as usize);
                        dev.card_mut().sim.eth.push(f);
                    }
                }
                Op::Wait { cycles } => dev.card_mut().sim.run(*cycles as u64),
                Op::Reset { hold } => {
                    dev.card_mut().sim.reset_card(*hold as u64);
                    // Counters start over at the reset: only frames sent
                    // after it are counted (those cut short by it never
                    // finished; those inside the core are gone with it).
                    sent_before_reset = dev.card().sim.eth.frames_sent();
                    dev = Device::open(dev.into_card()).unwrap();
                    set_up_pipes(&mut dev, &regions);
                }
            }
        }
        // Never hangs: everything sent is taken off the wire and the link goes quiet.
        prop_assert!(dev.card_mut().sim.drain(2_000_000), "the NIC stopped taking frames");
        // Never writes outside what it was given: every ring or notification
        // buffer address the fuzzer could set is one of the regions, so a
        // stray write would be a NIC bug. Nor breaks the TLP rules.
        let pcie = dev.card().sim.pcie.counters().clone();
        prop_assert_eq!(pcie.stray_writes, 0);
        prop_assert_eq!(pcie.tlp_errors, 0);
        // Never loses a frame without counting it.
        let sent = dev.card().sim.eth.frames_sent() - sent_before_reset;
        prop_assert_eq!(dev.card().sim.outputs_in_reset(), 0, "the core let something out during a reset");
        let c = dev.counters().unwrap();
        prop_assert_eq!(sent, c.rx_frames + c.drops(), "{:?}", c);
        // And still works: a freshly set-up pipe receives. Steering is global
        // state the fuzzer may have changed (FLOW_FALLBACK, the default pipe,
        // table entries), so software starts over as a restarted driver does:
        // `Device::open` resets it. (The driver switches the notification
        // buffer off and on again with its own memory, whatever the fuzzer
        // left there, NBUF_HEAD included.)
        for p in 0..PIPES {
            dev.write(pipe_page(p) + pipe::CTRL.offset, 0).unwrap();
        }
        let mut dev = Device::open(dev.into_card()).unwrap();
        let mut rx = dev.open_rx_pipe(0, 4096).unwrap();
        let f = g.frame(300, 0);
        dev.card_mut().sim.eth.push(f.clone());
        prop_assert!(rx.wait(&mut dev, 100_000), "no frame after re-configuring");
        let got: Vec<Vec<u8>> = rx.recv(&dev).iter().map(|x| x.unwrap().bytes.to_vec()).collect();
        prop_assert_eq!(got, vec![f]);
    }
}
