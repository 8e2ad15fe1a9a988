//! The RX flags parser alone, in rust-hdl's simulator, against the layout's
//! model (`pendulum_layout::ring::rx_flags`): random first beats of frames
//! behind 0 to 3 random tags (TPIDs 0x8100, 0x88A8 and 0x9100, which is
//! none), IPv4 with random IHL, options, fragment bits, protocol and a
//! right or wrong header checksum, IPv6, ARP, LLDP and random EtherTypes,
//! cut at random lengths, with random bytes past the frame's end; the input
//! idles and the output stalls at random. Frames run up to 200 bytes (the
//! parser sees the first beat, the length and the frame's sum), their IP
//! length fields mostly right, and their TCP or UDP checksums mostly right
//! (some then damaged). The parser's flags must be the model's, less
//! FLOW_HIT (the flow director's).

use crate::common::checksum;
use pendulum_hdl::enso::{FirstBeat, RxFlagsParser};
use pendulum_layout::ring::{flags, rx_flags};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Bytes 12..64 of a beat, as the parser takes them.
fn from_ethertype_on(beat: &[u8]) -> Bits<416> {
    let mut b = Bits::<416>::default();
    for (k, chunk) in beat[12..64].chunks(4).enumerate() {
        let word = u32::from_le_bytes(chunk.try_into().unwrap());
        b.set_bits::<32>(32 * k, (word as u64).into());
    }
    b
}

/// A random frame of up to 64 bytes (the first beat is all the parser
/// sees), and the beat it came in: past the frame's end, the bytes of the
/// frame before it was cut, or random ones.
fn random_frame(rng: &mut impl Rng) -> (Vec<u8>, Vec<u8>) {
    let mut f: Vec<u8> = (0..12).map(|_| rng.gen()).collect();
    for _ in 0..[0, 0, 1, 2, 3][rng.gen_range(0..5)] {
        let tpid: u16 = [0x8100, 0x88A8, 0x9100][rng.gen_range(0..3)];
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
    }
    let kind = rng.gen_range(0..10);
    let ethertype: u16 = match kind {
        0..=4 => 0x0800,
        5 | 6 => 0x86DD,
        7 => 0x0806,
        8 => 0x88CC,
        _ => rng.gen(),
    };
    f.extend_from_slice(&ethertype.to_be_bytes());
    let ip_at = f.len();
    match kind {
        0..=4 => {
            let ihl: u8 = if rng.gen_bool(0.6) {
                5
            } else {
                rng.gen_range(0..16)
            };
            let mut h: Vec<u8> = (0..(ihl as usize * 4).max(20)).map(|_| rng.gen()).collect();
            h[0] = if rng.gen_bool(0.9) {
                0x40 | ihl
            } else {
                rng.gen::<u8>() & 0xF0 | ihl
            };
            h[6] = if rng.gen_bool(0.7) { 0x40 } else { rng.gen() };
            h[7] = if rng.gen_bool(0.7) { 0 } else { rng.gen() };
            h[9] = [6, 17, 1, rng.gen()][rng.gen_range(0..4)];
            let n = (ihl as usize * 4).max(20);
            if ihl >= 5 && rng.gen_bool(0.7) {
                h[10] = 0;
                h[11] = 0;
                let c = checksum(&h[..ihl as usize * 4]);
                h[10..12].copy_from_slice(&c.to_be_bytes());
            }
            f.extend_from_slice(&h[..n]);
        }
        5 | 6 => {
            let mut h: Vec<u8> = (0..40).map(|_| rng.gen()).collect();
            h[6] = [6, 17, 58, rng.gen()][rng.gen_range(0..4)];
            f.extend_from_slice(&h);
        }
        _ => {}
    }
    // Cut at random: frames fill a beat, run past it, or end inside the
    // headers.
    let len = match rng.gen_range(0..10) {
        0..=2 => 64,
        3..=5 => rng.gen_range(1..=64),
        _ => rng.gen_range(65..=200),
    };
    while f.len() < len.max(64) {
        f.push(rng.gen());
    }
    let mut beat = f.clone();
    beat.truncate(64);
    f.truncate(len);
    if kind <= 6 && rng.gen_bool(0.8) {
        fix_l4(&mut f, ip_at, kind >= 5, rng);
    }
    beat[..f.len().min(64)].copy_from_slice(&f[..f.len().min(64)]);
    if rng.gen_bool(0.5) {
        for b in beat.iter_mut().skip(len) {
            *b = rng.gen();
        }
    }
    (f, beat)
}

/// Sets the IP length field of the frame (IPv4 or IPv6 at `ip_at`) to
/// what it holds (or, at times, a little less: a trailer), then the IPv4
/// header checksum if it was right, then the TCP or UDP checksum (at
/// times damaged after). Leaves a frame too short for the headers alone.
fn fix_l4(f: &mut [u8], ip_at: usize, v6: bool, rng: &mut impl Rng) {
    if f.len() < ip_at + 40 {
        return;
    }
    let ihl = if v6 {
        40
    } else {
        (f[ip_at] & 0x0F) as usize * 4
    };
    let good = !v6 && ihl >= 20 && f.len() >= ip_at + ihl && checksum(&f[ip_at..ip_at + ihl]) == 0;
    // Mostly TCP or UDP, and not a fragment.
    let at = ip_at + if v6 { 6 } else { 9 };
    if rng.gen_bool(0.8) {
        f[at] = [6, 17][rng.gen_range(0..2)];
        if !v6 {
            f[ip_at + 6] &= !0x3F;
            f[ip_at + 7] = 0;
        }
    }
    let proto = f[at];
    let field = match proto {
        6 => 16,
        17 => 6,
        _ => return,
    };
    let l4_at = ip_at + ihl;
    if (!v6 && ihl < 20) || f.len() < l4_at + field + 2 {
        return;
    }
    let trailer = if rng.gen_bool(0.2) {
        rng.gen_range(1..=4).min(f.len() - l4_at - field - 2)
    } else {
        0
    };
    let end = f.len() - trailer;
    let dgram = end - ip_at;
    if v6 {
        f[ip_at + 4..ip_at + 6].copy_from_slice(&((dgram - 40) as u16).to_be_bytes());
    } else {
        f[ip_at + 2..ip_at + 4].copy_from_slice(&(dgram as u16).to_be_bytes());
        if good {
            f[ip_at + 10..ip_at + 12].fill(0);
            let c = checksum(&f[ip_at..l4_at]);
            f[ip_at + 10..ip_at + 12].copy_from_slice(&c.to_be_bytes());
        }
    }
    let mut pseudo = if v6 {
        f[ip_at + 8..ip_at + 40].to_vec()
    } else {
        f[ip_at + 12..ip_at + 20].to_vec()
    };
    pseudo.extend_from_slice(&((end - l4_at) as u32).to_be_bytes());
    pseudo.extend_from_slice(&[0, 0, 0, proto]);
    f[l4_at + field..l4_at + field + 2].fill(0);
    let mut all = pseudo;
    all.extend_from_slice(&f[l4_at..end]);
    if all.len() % 2 == 1 {
        all.push(0);
    }
    let mut c = checksum(&all);
    if c == 0 && proto == 17 {
        c = 0xFFFF;
    }
    f[l4_at + field..l4_at + field + 2].copy_from_slice(&c.to_be_bytes());
    // At times a UDP checksum of 0 ("none") on a segment whose sum
    // verifies all the same: the checksum moved into a data word.
    if proto == 17 && end >= l4_at + 10 && rng.gen_bool(0.15) {
        let at = l4_at + 8;
        let w = u32::from(u16::from_be_bytes([f[at], f[at + 1]])) + u32::from(c);
        let w = ((w & 0xFFFF) + (w >> 16)) as u16;
        f[at..at + 2].copy_from_slice(&w.to_be_bytes());
        f[l4_at + field..l4_at + field + 2].fill(0);
        return;
    }
    if rng.gen_bool(0.15) {
        let at = rng.gen_range(l4_at..end);
        f[at] ^= 1 << rng.gen_range(0..8);
    }
}

/// The frame's sum as `stream::FrameSum` makes it: bytes 12 on as
/// little-endian 16-bit words.
fn frame_sum(f: &[u8]) -> u64 {
    f.get(12..)
        .unwrap_or(&[])
        .chunks(2)
        .map(|w| u64::from(w[0]) | u64::from(*w.get(1).unwrap_or(&0)) << 8)
        .sum()
}

fn run(seed: u64, n: usize) -> usize {
    let mut uut = RxFlagsParser::new();
    uut.s.data.connect();
    uut.s.valid.connect();
    uut.m.ready.connect();
    uut.reset.connect();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RxFlagsParser>| {
        x.clock.next = !x.clock.val()
    });
    let checked = Arc::new(Mutex::new(0));
    let out = checked.clone();
    sim.add_testbench(move |mut sim: Sim<RxFlagsParser>| {
        let mut x = sim.init()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut want: VecDeque<(Vec<u8>, u16)> = VecDeque::new();
        let mut offer: Option<(Vec<u8>, Vec<u8>)> = None;
        let mut sent = 0;
        let mut got = 0;
        let mut ip4_ok_seen = 0;
        let mut l4_ok_seen = 0;
        let mut l4_bad_seen = 0;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        wait_clock_false!(sim, clock, x);
        let mut cycles = 0;
        while got < n {
            cycles += 1;
            assert!(
                cycles < 20 * n + 100,
                "the parser stopped: {got} of {n} out"
            );
            if offer.is_none() && sent < n {
                offer = Some(random_frame(&mut rng));
            }
            if let Some((f, beat)) = &offer {
                x.s.data.next = FirstBeat {
                    data: from_ethertype_on(beat),
                    len: (f.len() as u64).into(),
                    sum: frame_sum(f).into(),
                };
            }
            x.s.valid.next = offer.is_some() && rng.gen_bool(0.8);
            x.m.ready.next = rng.gen_bool(0.7);
            x = sim.wait(1, x)?;
            if x.s.valid.val() && x.s.ready.val() {
                let (f, _) = offer.take().unwrap();
                let model = rx_flags(&f, false);
                want.push_back((f, model));
                sent += 1;
            }
            if x.m.valid.val() && x.m.ready.val() {
                let (f, model) = want.pop_front().expect("flags for no frame");
                let flags_out = x.m.data.val().index() as u16;
                assert_eq!(
                    flags_out,
                    model,
                    "frame {got} ({} bytes) {:02x?}: flags {flags_out:#06x}, model {model:#06x}",
                    f.len(),
                    f
                );
                if model & flags::IP4_CSUM_OK != 0 {
                    ip4_ok_seen += 1;
                }
                if model & flags::L4_CSUM_OK != 0 {
                    l4_ok_seen += 1;
                } else if flags::get(model, flags::L4) != 0 {
                    l4_bad_seen += 1;
                }
                got += 1;
            }
            wait_clock_true!(sim, clock, x);
            wait_clock_false!(sim, clock, x);
        }
        assert!(
            ip4_ok_seen > n / 10,
            "too few good IPv4 headers: {ip4_ok_seen}"
        );
        assert!(
            l4_ok_seen > n / 15 && l4_bad_seen > n / 20,
            "too few TCP/UDP checksums: {l4_ok_seen} good, {l4_bad_seen} not"
        );
        *out.lock().unwrap() = got;
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000_000).unwrap();
    let got = *checked.lock().unwrap();
    got
}

#[test]
fn flags_are_the_models_for_random_first_beats() {
    for seed in 1..=3 {
        assert_eq!(run(seed, 1500), 1500);
    }
}
