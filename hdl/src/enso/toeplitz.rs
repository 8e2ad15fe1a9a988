use crate::xor_matrix;
use pendulum_layout::flow::{toeplitz, RSS_KEY};
use rust_hdl::prelude::*;

/// The RSS Toeplitz hash (`pendulum_layout::flow::toeplitz` with the
/// standard key) of `N / 8` bytes in one cycle; byte k of the input (in wire
/// order) is bits 8k+7..8k. Purely combinational.
///
/// With a fixed key the hash is linear in its input, so each output bit is
/// the parity of a fixed subset of input bits, worked out at generation time
/// from the software function (`xor_matrix`): about N/2 inputs per bit, 4
/// LUT6 levels for the 288-bit IPv6 input.
#[derive(LogicBlock, Default)]
pub struct Toeplitz<const N: usize> {
    pub data: Signal<In, Bits<N>>,
    pub hash: Signal<Out, Bits<32>>,
}

fn rss(bytes: &[u8]) -> u32 {
    toeplitz(&RSS_KEY, bytes)
}

impl<const N: usize> Logic for Toeplitz<N> {
    fn update(&mut self) {
        self.hash.next = (rss(&xor_matrix::bytes_of(self.data.val())) as u64).into();
    }
    fn connect(&mut self) {
        self.hash.connect();
    }
    fn hdl(&self) -> Verilog {
        let (masks, zero) = xor_matrix::matrix(N, rss);
        assert_eq!(zero, 0, "the Toeplitz hash is linear");
        Verilog::Custom(xor_matrix::verilog("data", "hash", N, &masks, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::flow::{FlowKey, PROTO_UDP};

    #[test]
    fn the_parity_matrix_reproduces_the_rss_hash() {
        let (masks, zero) = xor_matrix::matrix(96, rss);
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..50 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = FlowKey::v4(
                (x as u32).to_be_bytes(),
                ((x >> 32) as u32).to_be_bytes(),
                PROTO_UDP,
                x as u16,
                (x >> 16) as u16,
            );
            assert_eq!(xor_matrix::apply(&masks, zero, &k.hash_input()), k.hash());
        }
    }
}
