//! Pendulum NIC hardware, written with rust-hdl.
//!
//! One module per block, laid out as the block diagram in `DESIGN.md`:
//! `stream` (shared valid/ready pieces), `mmio` (registers), `enso` (the
//! streaming DMA engine), and `nic` (the top that wires them).

pub mod acp;
pub mod atomic;
pub mod boards;
pub mod enso;
pub mod first_set;
pub mod lut_ram;
pub mod mmio;
pub mod nic;
pub mod reset;
pub mod stream;
pub mod types;
pub mod word_sum;
mod xor_matrix;

pub use nic::PendulumNic;

use rust_hdl::prelude::{Bits, Constant};

/// A constant of `N` bits holding `v`: the one helper every block's `new`
/// uses for its literals (rust-hdl's `Constant::new` takes a `Bits`).
pub(crate) fn konst<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// The `N` constants of `N` bits with one bit set, bit `i` in the `i`th:
/// the masks a block ORs into a vector a bit per channel or per field bit
/// (`N` may exceed 64, which `konst` cannot reach).
pub(crate) fn one_hots<const N: usize>() -> [Constant<Bits<N>>; N] {
    std::array::from_fn(|i| Constant::new(Bits::<N>::default().replace_bit(i, true)))
}
