//! Linear (XOR) functions of a bit vector, turned into Verilog at generation
//! time: each output bit is the parity of a fixed subset of the input bits.
//! The CRC of the ACP link and the flow director's Toeplitz hash are both of
//! this kind; their subsets are worked out from the software function itself
//! (`pendulum-layout`), so hardware and software cannot disagree.

/// For a function `f` of `bits / 8` bytes to a 32-bit value that is affine
/// over GF(2) (`f(a ^ b) = f(a) ^ f(b) ^ f(0)`): which input bits feed each
/// output bit (byte k of the input is bits 8k+7..8k), and `f(0)`.
pub(crate) fn matrix(bits: usize, f: impl Fn(&[u8]) -> u32) -> (Vec<Vec<bool>>, u32) {
    assert_eq!(bits % 8, 0, "xor_matrix works on whole bytes");
    let bytes = bits / 8;
    let zero = f(&vec![0u8; bytes]);
    let mut masks = vec![vec![false; bits]; 32];
    let mut msg = vec![0u8; bytes];
    for j in 0..bits {
        msg[j / 8] = 1 << (j % 8);
        let col = f(&msg) ^ zero;
        msg[j / 8] = 0;
        for (i, m) in masks.iter_mut().enumerate() {
            m[j] = col >> i & 1 == 1;
        }
    }
    (masks, zero)
}

/// The bytes of a `Bits<N>` value, byte k from bits 8k+7..8k.
pub(crate) fn bytes_of<const N: usize>(d: rust_hdl::prelude::Bits<N>) -> Vec<u8> {
    (0..N / 8)
        .map(|k| (0..8).fold(0u8, |b, j| b | (d.get_bit(8 * k + j) as u8) << j))
        .collect()
}

/// The inverse of [`bytes_of`]: byte k into bits 8k+7..8k (missing bytes are 0).
pub(crate) fn bits_of<const N: usize>(bytes: &[u8]) -> rust_hdl::prelude::Bits<N> {
    let mut bits = rust_hdl::prelude::Bits::<N>::default();
    for (i, b) in bytes.iter().enumerate().take(N / 8) {
        for j in 0..8 {
            bits = bits.replace_bit(8 * i + j, b >> j & 1 == 1);
        }
    }
    bits
}

/// The Verilog: `output[i] = ^(input & mask_i) ^ flip_i`, one line per bit.
pub(crate) fn verilog(
    input: &str,
    output: &str,
    bits: usize,
    masks: &[Vec<bool>],
    flip: u32,
) -> String {
    let mut v = String::from("always @(*) begin\n");
    for (i, m) in masks.iter().enumerate() {
        let f = flip >> i & 1;
        v += &format!(
            "    {output}[{i}] = (^({input} & {bits}'h{})) ^ 1'b{f};\n",
            hex(m)
        );
    }
    v += "end";
    v
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

/// What the Verilog computes, evaluated in software (for tests).
#[cfg(test)]
pub(crate) fn apply(masks: &[Vec<bool>], flip: u32, bytes: &[u8]) -> u32 {
    let mut got = flip;
    for (i, m) in masks.iter().enumerate() {
        let parity = (0..m.len())
            .filter(|&j| m[j] && bytes[j / 8] >> (j % 8) & 1 == 1)
            .count()
            & 1;
        got ^= (parity as u32) << i;
    }
    got
}
