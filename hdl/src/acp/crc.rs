use pendulum_layout::acp::crc32c;
use rust_hdl::prelude::*;

/// CRC-32C of `N / 8` bytes in one cycle (byte k is bits 8k+7..8k), purely
/// combinational.
///
/// CRC-32C with fixed init and final xor is affine in its input: each output
/// bit is the parity of a fixed subset of input bits, flipped by the CRC of
/// an all-zero message. The subsets are worked out here, at generation time,
/// from `pendulum_layout::acp::crc32c` itself, so the hardware and the
/// software check cannot disagree; the Verilog is one masked parity per bit
/// (a tree of about N/2 inputs, 4 LUT6 levels for N = 480).
#[derive(LogicBlock, Default)]
pub struct Crc32c<const N: usize> {
    pub data: Signal<In, Bits<N>>,
    pub crc: Signal<Out, Bits<32>>,
}

/// For `bits` input bits: which input bits feed each of the 32 output bits,
/// and the CRC of the all-zero message.
fn matrix(bits: usize) -> (Vec<Vec<bool>>, u32) {
    assert_eq!(bits % 8, 0, "Crc32c works on whole bytes");
    let bytes = bits / 8;
    let zero_crc = crc32c(&vec![0u8; bytes]);
    let mut masks = vec![vec![false; bits]; 32];
    let mut msg = vec![0u8; bytes];
    for j in 0..bits {
        msg[j / 8] = 1 << (j % 8);
        let col = crc32c(&msg) ^ zero_crc;
        msg[j / 8] = 0;
        for (i, m) in masks.iter_mut().enumerate() {
            m[j] = col >> i & 1 == 1;
        }
    }
    (masks, zero_crc)
}

fn hex(mask: &[bool]) -> String {
    (0..mask.len() / 4)
        .rev()
        .map(|nib| {
            let v = (0..4).fold(0, |v, k| v | (mask[nib * 4 + k] as u32) << k);
            char::from_digit(v, 16).unwrap()
        })
        .collect()
}

impl<const N: usize> Logic for Crc32c<N> {
    fn update(&mut self) {
        // rust-hdl's own simulator: the CRC of the bytes, as the software computes it.
        let d = self.data.val();
        let bytes: Vec<u8> = (0..N / 8)
            .map(|k| (0..8).fold(0u8, |b, j| b | (d.get_bit(8 * k + j) as u8) << j))
            .collect();
        self.crc.next = (crc32c(&bytes) as u64).into();
    }
    fn connect(&mut self) {
        self.crc.connect();
    }
    fn hdl(&self) -> Verilog {
        let (masks, zero_crc) = matrix(N);
        let mut v = String::from("always @(*) begin\n");
        for (i, m) in masks.iter().enumerate() {
            let flip = zero_crc >> i & 1;
            v += &format!("    crc[{i}] = (^(data & {N}'h{})) ^ 1'b{flip};\n", hex(m));
        }
        v += "end";
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_layout_crc_on_random_data() {
        // The parity matrix reproduces the CRC (what the Verilog computes).
        let (masks, zero_crc) = matrix(480);
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..50 {
            let mut bytes = [0u8; 60];
            for b in bytes.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            let mut got = zero_crc;
            for (i, m) in masks.iter().enumerate() {
                let parity = (0..480).filter(|&j| m[j] && bytes[j / 8] >> (j % 8) & 1 == 1).count() & 1;
                got ^= (parity as u32) << i;
            }
            assert_eq!(got, crc32c(&bytes));
        }
    }
}
