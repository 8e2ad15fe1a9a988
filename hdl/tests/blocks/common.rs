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
