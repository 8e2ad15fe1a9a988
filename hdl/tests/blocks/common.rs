//! Helpers shared by the block tests in rust-hdl's simulator.

use pendulum_layout::params::PIPES;
use rand::Rng;

/// The pipes a block test uses: a few, spread so the pipe index's high bits
/// change too (the build has many more).
pub const USED_PIPES: [usize; 4] = [0, 1, PIPES / 2 + 1, PIPES - 1];

/// One of [`USED_PIPES`], at random.
pub fn pick(rng: &mut impl Rng) -> usize {
    USED_PIPES[rng.gen_range(0..USED_PIPES.len())]
}
