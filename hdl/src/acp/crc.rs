use crate::xor_matrix;
use pendulum_layout::acp::{crc32, crc32c};
use rust_hdl::prelude::*;

/// A CRC of `N / 8` bytes in one cycle (byte k is bits 8k+7..8k), purely
/// combinational, for each CRC the layout defines.
///
/// A CRC with fixed init and final xor is affine in its input: each output
/// bit is the parity of a fixed subset of input bits, flipped by the CRC of
/// an all-zero message. The subsets are worked out at generation time from
/// the layout's own function (see `xor_matrix`); the Verilog is one masked
/// parity per bit (a tree of about N/2 inputs, 4 LUT6 levels for N = 480).
macro_rules! crc_block {
    ($(#[$doc:meta])* $name:ident, $f:path) => {
        $(#[$doc])*
        #[derive(LogicBlock, Default)]
        pub struct $name<const N: usize> {
            pub data: Signal<In, Bits<N>>,
            pub crc: Signal<Out, Bits<32>>,
        }

        impl<const N: usize> Logic for $name<N> {
            fn update(&mut self) {
                // rust-hdl's own simulator: the CRC of the bytes, as the software computes it.
                self.crc.next = ($f(&xor_matrix::bytes_of(self.data.val())) as u64).into();
            }
            fn connect(&mut self) {
                self.crc.connect();
            }
            fn hdl(&self) -> Verilog {
                let (masks, zero_crc) = xor_matrix::matrix(N, $f);
                Verilog::Custom(xor_matrix::verilog("data", "crc", N, &masks, zero_crc))
            }
        }
    };
}

crc_block!(
    /// CRC-32C (`pendulum_layout::acp::crc32c`): check words, session terms.
    Crc32c,
    crc32c
);
crc_block!(
    /// CRC-32, IEEE polynomial (`pendulum_layout::acp::crc32`): digests and
    /// echo checks.
    Crc32,
    crc32
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_layout_crcs_on_random_data() {
        // The parity matrix reproduces each CRC (what the Verilog computes).
        for f in [crc32c as fn(&[u8]) -> u32, crc32] {
            let (masks, zero_crc) = xor_matrix::matrix(480, f);
            let mut x = 0x1234_5678_9abc_def0u64;
            for _ in 0..50 {
                let mut bytes = [0u8; 60];
                for b in bytes.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *b = x as u8;
                }
                assert_eq!(xor_matrix::apply(&masks, zero_crc, &bytes), f(&bytes));
            }
        }
    }
}
