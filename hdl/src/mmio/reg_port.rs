use pendulum_layout::params::MMIO_ADDR_BITS;
use rust_hdl::prelude::*;

/// A register block's side of `RegFile`'s write pipeline (accept, check,
/// apply), as the block sees it.
///
/// `take` is high in the cycle `RegFile` accepts a write, with its byte
/// address and data; the block keeps its own copy of the pipeline from
/// there. In the write's apply cycle (two cycles later) `hit` says the write
/// named one of the block's registers, and `err`, `err_cause` whether the
/// block refused it (with its LAST_REG_ERROR cause). Every output comes from
/// the block's registers, so no answer loops back into `RegFile`
/// combinationally.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RegWrite {
    pub take: Signal<In, Bit>,
    pub addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub data: Signal<In, Bits<32>>,
    pub hit: Signal<Out, Bit>,
    pub err: Signal<Out, Bit>,
    pub err_cause: Signal<Out, Bits<32>>,
}

/// A register block's side of `RegFile`'s read: `take` high in the cycle a
/// read of byte address `addr` is accepted; the next cycle `data` holds the
/// block's answer (0 unless `hit`), ORed into `RegFile`'s. `data` and `hit`
/// come from the block's registers.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RegRead {
    pub take: Signal<In, Bit>,
    pub addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub data: Signal<Out, Bits<32>>,
    pub hit: Signal<Out, Bit>,
}
