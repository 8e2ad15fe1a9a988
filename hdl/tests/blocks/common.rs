//! Helpers shared by the block tests in rust-hdl's simulator.

use pendulum_layout::params::PIPES;
use rand::Rng;
use rust_hdl::prelude::Bits;

/// The pipes a block test uses: a few, spread so the pipe index's high bits
/// change too (the build has many more).
pub const USED_PIPES: [usize; 4] = [0, 1, PIPES / 2 + 1, PIPES - 1];

/// One of [`USED_PIPES`], at random.
pub fn pick(rng: &mut impl Rng) -> usize {
    USED_PIPES[rng.gen_range(0..USED_PIPES.len())]
}

/// A 64-byte beat from bytes (byte k in bits 8k+7..8k; missing bytes 0).
pub fn bits512(bytes: &[u8]) -> Bits<512> {
    let mut b = Bits::<512>::default();
    for k in 0..8 {
        let mut limb = [0u8; 8];
        for (i, x) in limb.iter_mut().enumerate() {
            *x = bytes.get(8 * k + i).copied().unwrap_or(0);
        }
        b.set_bits::<64>(64 * k, u64::from_le_bytes(limb).into());
    }
    b
}

/// A 64-byte beat's bytes.
pub fn bytes512(b: Bits<512>) -> [u8; 64] {
    let mut out = [0u8; 64];
    for k in 0..8 {
        out[8 * k..8 * k + 8].copy_from_slice(&b.get_bits::<64>(64 * k).to_u64().to_le_bytes());
    }
    out
}

/// A last beat's byte enables for `n` bytes (all 64 from 64 up).
pub fn keep_of(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The ones'-complement checksum of `b` (RFC 1071), written here apart
/// from the layout's model, which the tests check the hardware against.
pub fn checksum(b: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for w in b.chunks(2) {
        s += u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0));
    }
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}
