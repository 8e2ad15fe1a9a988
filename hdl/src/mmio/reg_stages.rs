use crate::reset::SDFF;
use pendulum_layout::params::MMIO_ADDR_BITS;
use pendulum_layout::{Reg, RegError};
use rust_hdl::prelude::*;

/// Bits of a register's offset in its 4 KiB page.
pub const OFF_BITS: usize = pendulum_layout::PAGE_BYTES_LOG2 as usize;
/// Bits of a page number (page 0 global, page p + 1 pipe p's).
pub const PAGE_BITS: usize = MMIO_ADDR_BITS - OFF_BITS;

/// A register's offset in its page, as a constant for the decode.
pub(super) fn off(r: Reg) -> Constant<Bits<OFF_BITS>> {
    Constant::new((r.offset as u64).into())
}

/// A 32-bit constant.
pub(super) fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new((v as u64).into())
}

/// A refused write's LAST_REG_ERROR cause field.
pub(super) fn cause(e: RegError) -> Constant<Bits<32>> {
    c32((e as u32) << pendulum_layout::LAST_REG_ERROR_CAUSE_SHIFT)
}

/// A register block's copy of `RegFile`'s write pipeline and read stage,
/// from the block's `RegWrite` and `RegRead` inputs.
///
/// Writes: latched as `RegFile` accepts them (`wr_take`), checked the next
/// cycle (the block decodes the write into registers then), applied the one
/// after (`apply` high). `RegFile` accepts at most one write
/// every third cycle, so `wr_data`, `wr_page` and `wr_off` hold through both
/// stages. Reads: latched as accepted (`rd_take`), answered the next cycle
/// from `rd_page` and `rd_off`. Every output is a register or a slice of
/// one. Each block keeping its own copy (Yosys merges the duplicates) keeps
/// the blocks' answers free of combinational paths through `RegFile`.
#[derive(LogicBlock)]
pub struct RegStages {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    pub wr_take: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub rd_take: Signal<In, Bit>,
    pub rd_addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    /// The accepted write is in its apply stage this cycle.
    pub apply: Signal<Out, Bit>,
    /// The last accepted write's data, page and offset.
    pub data: Signal<Out, Bits<32>>,
    pub wr_page: Signal<Out, Bits<PAGE_BITS>>,
    pub wr_off: Signal<Out, Bits<OFF_BITS>>,
    /// The last accepted read's page and offset.
    pub rd_page: Signal<Out, Bits<PAGE_BITS>>,
    pub rd_off: Signal<Out, Bits<OFF_BITS>>,
    wr_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    wr_data_r: SDFF<Bits<32>>,
    check_r: SDFF<Bit>,
    apply_r: SDFF<Bit>,
    rd_addr_r: SDFF<Bits<MMIO_ADDR_BITS>>,
    // A bare const inside `hdl_gen` comes out as an undeclared name.
    off_bits: Constant<Bits<5>>,
}

impl Default for RegStages {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_take: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            rd_take: Default::default(),
            rd_addr: Default::default(),
            apply: Default::default(),
            data: Default::default(),
            wr_page: Default::default(),
            wr_off: Default::default(),
            rd_page: Default::default(),
            rd_off: Default::default(),
            wr_addr_r: Default::default(),
            wr_data_r: Default::default(),
            check_r: Default::default(),
            apply_r: Default::default(),
            rd_addr_r: Default::default(),
            off_bits: Constant::new((OFF_BITS as u64).into()),
        }
    }
}

impl Logic for RegStages {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_addr_r, wr_data_r, check_r, apply_r, rd_addr_r);
        self.wr_addr_r.reset.next = self.reset.val();
        self.wr_data_r.reset.next = self.reset.val();
        self.check_r.reset.next = self.reset.val();
        self.apply_r.reset.next = self.reset.val();
        self.rd_addr_r.reset.next = self.reset.val();
        self.check_r.d.next = self.wr_take.val();
        self.apply_r.d.next = self.check_r.q.val();
        if self.wr_take.val() {
            self.wr_addr_r.d.next = self.wr_addr.val();
            self.wr_data_r.d.next = self.wr_data.val();
        }
        if self.rd_take.val() {
            self.rd_addr_r.d.next = self.rd_addr.val();
        }
        self.apply.next = self.apply_r.q.val();
        self.data.next = self.wr_data_r.q.val();
        self.wr_page.next = self
            .wr_addr_r
            .q
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.wr_off.next = self.wr_addr_r.q.val().get_bits::<OFF_BITS>(0);
        self.rd_page.next = self
            .rd_addr_r
            .q
            .val()
            .get_bits::<PAGE_BITS>(self.off_bits.val().index());
        self.rd_off.next = self.rd_addr_r.q.val().get_bits::<OFF_BITS>(0);
    }
}
