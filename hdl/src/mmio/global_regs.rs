use super::reg_stages::{c32, off, RegStages, OFF_BITS, PAGE_BITS};
use super::{RegRead, RegWrite};
use crate::reset::SDFF;
use crate::stream::{Concat, ZeroExtend};
use pendulum_layout::params::{ACP_CHANNEL_BITS as CB, MMIO_ADDR_BITS};
use pendulum_layout::{global, Reg};
use rust_hdl::prelude::*;

/// Width of a channel count (0..=K).
const CB1: usize = CB + 1;
/// Registers on the global page that hold constants (identity and capabilities).
const CONST_REGS: usize = 9;

/// The global page's own registers: identity and capabilities (constants),
/// CTRL, SCRATCH, SESSION, REG_ERRORS and LAST_REG_ERROR, and the read-only
/// LINK_STATE, LINK_ACTIVE_CHANNELS and RX_OVERFLOW_DROPS. (The link's,
/// atomic unit's and flow director's registers on the same page are
/// `LinkFlowRegs`'; the counters `GlobalCounters`'.)
///
/// Writes and reads come on `wr` and `rd` (`RegWrite`, `RegRead`) through
/// this block's copy of `RegFile`'s pipeline (`RegStages`): in a write's
/// apply cycle `wr.hit` says it named CTRL, SCRATCH or SESSION, which it
/// then sets (these are never refused). `RegFile` decides every other
/// write's refusal and reports it here (`refused`, with its
/// LAST_REG_ERROR cause, in the write's apply cycle); it is counted a cycle
/// later in REG_ERRORS, and LAST_REG_ERROR takes the cause beside the
/// write's byte address.
#[derive(LogicBlock)]
pub struct GlobalRegs {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    pub wr: RegWrite,
    pub rd: RegRead,
    /// A write refused in its apply cycle, and why (`RegError` in the
    /// LAST_REG_ERROR cause field).
    pub refused: Signal<In, Bit>,
    pub refused_cause: Signal<In, Bits<32>>,
    /// What the read-only registers read.
    pub link_state: Signal<In, Bits<2>>,
    pub link_active: Signal<In, Bits<CB1>>,
    pub rx_overflow_drops: Signal<In, Bits<32>>,
    /// CTRL bit 0: a notification per frame (the per-packet baseline).
    pub per_packet_notif: Signal<Out, Bit>,

    stages: RegStages,
    ctrl_r: SDFF<Bits<32>>,
    scratch: SDFF<Bits<32>>,
    // SESSION: the opener's token; a reset clears it.
    session: SDFF<Bits<32>>,
    reg_errors: SDFF<Bits<32>>,
    last_err: SDFF<Bits<32>>,
    // A refused write and its LAST_REG_ERROR word, counted a cycle later.
    err_r: SDFF<Bit>,
    err_word: SDFF<Bits<32>>,
    wr_addr: Concat<PAGE_BITS, OFF_BITS, MMIO_ADDR_BITS>,
    wr_addr32: ZeroExtend<MMIO_ADDR_BITS, 32>,
    // The write's offset decoded in the check stage: CTRL, SCRATCH, SESSION.
    wo_hit: [SDFF<Bit>; 3],
    link_state32: ZeroExtend<2, 32>,
    link_active32: ZeroExtend<CB1, 32>,

    const_off: [Constant<Bits<OFF_BITS>>; CONST_REGS],
    const_val: [Constant<Bits<32>>; CONST_REGS],
    g_ctrl: Constant<Bits<OFF_BITS>>,
    g_scratch: Constant<Bits<OFF_BITS>>,
    g_session: Constant<Bits<OFF_BITS>>,
    g_reg_errors: Constant<Bits<OFF_BITS>>,
    g_last_err: Constant<Bits<OFF_BITS>>,
    g_rx_overflow_drops: Constant<Bits<OFF_BITS>>,
    g_link_state: Constant<Bits<OFF_BITS>>,
    g_link_active: Constant<Bits<OFF_BITS>>,
    page0: Constant<Bits<PAGE_BITS>>,
    zero_off2: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
}

impl GlobalRegs {
    /// `cap_*` describe the blocks this NIC has, for the capability registers.
    pub fn new(cap_link_channels: u32, cap_atomic_bytes: u32) -> Self {
        use pendulum_layout::params::*;
        let consts: [(Reg, u32); CONST_REGS] = [
            (global::IDENTITY, pendulum_layout::IDENTITY),
            (global::VERSION, pendulum_layout::VERSION),
            (global::NEXT, 0),
            (global::CAP_PIPES, PIPES as u32),
            (global::CAP_NOTIF_BUFS, NOTIF_BUFS as u32),
            (global::CAP_LINK_CHANNELS, cap_link_channels),
            (global::CAP_ATOMIC_BYTES, cap_atomic_bytes),
            (global::CAP_MAX_FRAME, MAX_FRAME_BYTES),
            (global::CAP_TX_PIPES, TX_PIPES as u32),
        ];
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            refused: Default::default(),
            refused_cause: Default::default(),
            link_state: Default::default(),
            link_active: Default::default(),
            rx_overflow_drops: Default::default(),
            per_packet_notif: Default::default(),
            stages: Default::default(),
            ctrl_r: Default::default(),
            scratch: Default::default(),
            session: Default::default(),
            reg_errors: Default::default(),
            last_err: Default::default(),
            err_r: Default::default(),
            err_word: Default::default(),
            wr_addr: Default::default(),
            wr_addr32: Default::default(),
            wo_hit: Default::default(),
            link_state32: Default::default(),
            link_active32: Default::default(),
            const_off: std::array::from_fn(|k| off(consts[k].0)),
            const_val: std::array::from_fn(|k| c32(consts[k].1)),
            g_ctrl: off(global::CTRL),
            g_scratch: off(global::SCRATCH),
            g_session: off(global::SESSION),
            g_reg_errors: off(global::REG_ERRORS),
            g_last_err: off(global::LAST_REG_ERROR),
            g_rx_overflow_drops: off(global::RX_OVERFLOW_DROPS),
            g_link_state: off(global::LINK_STATE),
            g_link_active: off(global::LINK_ACTIVE_CHANNELS),
            page0: Constant::new(0u64.into()),
            zero_off2: Constant::new(0u64.into()),
            zero32: c32(0),
            one32: c32(1),
        }
    }
}

impl Logic for GlobalRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ctrl_r, scratch, session, reg_errors, last_err, err_r, err_word);
        self.ctrl_r.reset.next = self.reset.val();
        self.scratch.reset.next = self.reset.val();
        self.session.reset.next = self.reset.val();
        self.reg_errors.reset.next = self.reset.val();
        self.last_err.reset.next = self.reset.val();
        self.err_r.reset.next = self.reset.val();
        self.err_word.reset.next = self.reset.val();
        for k in 0..3 {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        self.stages.clock.next = self.clock.val();
        self.stages.reset.next = self.reset.val();
        self.stages.wr_take.next = self.wr.take.val();
        self.stages.wr_addr.next = self.wr.addr.val();
        self.stages.wr_data.next = self.wr.data.val();
        self.stages.rd_take.next = self.rd.take.val();
        self.stages.rd_addr.next = self.rd.addr.val();
        self.per_packet_notif.next = self.ctrl_r.q.val().get_bit(0);
        self.link_state32.i.next = self.link_state.val();
        self.link_active32.i.next = self.link_active.val();

        // ---- Writes ----
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.g_ctrl.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.g_scratch.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.g_session.val();
        self.wr.hit.next = self.stages.apply.val()
            & (self.stages.wr_page.val() == self.page0.val())
            & (self.stages.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.wo_hit[0].q.val() | self.wo_hit[1].q.val() | self.wo_hit[2].q.val());
        self.wr.err.next = false;
        self.wr.err_cause.next = self.zero32.val();
        if self.wr.hit.val() {
            if self.wo_hit[0].q.val() {
                self.ctrl_r.d.next = self.stages.data.val();
            }
            if self.wo_hit[1].q.val() {
                self.scratch.d.next = self.stages.data.val();
            }
            if self.wo_hit[2].q.val() {
                self.session.d.next = self.stages.data.val();
            }
        }
        // A refused write is counted a cycle later.
        self.wr_addr.hi.next = self.stages.wr_page.val();
        self.wr_addr.lo.next = self.stages.wr_off.val();
        self.wr_addr32.i.next = self.wr_addr.o.val();
        self.err_r.d.next = self.refused.val();
        self.err_word.d.next = self.refused_cause.val() | self.wr_addr32.o.val();
        if self.err_r.q.val() {
            self.reg_errors.d.next = self.reg_errors.q.val() + self.one32.val();
            self.last_err.d.next = self.err_word.q.val();
        }

        // ---- Reads ----
        // Offsets are unique, so the hits are ORed together: an OR of
        // AND-terms that synthesis balances into a shallow tree, where a chain
        // of if/else would be one mux deep per register.
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.stages.rd_page.val() == self.page0.val() {
            for k in 0..CONST_REGS {
                if self.stages.rd_off.val() == self.const_off[k].val() {
                    self.rd.data.next = self.rd.data.val() | self.const_val[k].val();
                    self.rd.hit.next = true;
                }
            }
            if self.stages.rd_off.val() == self.g_ctrl.val() {
                self.rd.data.next = self.rd.data.val() | self.ctrl_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_scratch.val() {
                self.rd.data.next = self.rd.data.val() | self.scratch.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_session.val() {
                self.rd.data.next = self.rd.data.val() | self.session.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_reg_errors.val() {
                self.rd.data.next = self.rd.data.val() | self.reg_errors.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_last_err.val() {
                self.rd.data.next = self.rd.data.val() | self.last_err.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_rx_overflow_drops.val() {
                self.rd.data.next = self.rd.data.val() | self.rx_overflow_drops.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_link_state.val() {
                self.rd.data.next = self.rd.data.val() | self.link_state32.o.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_link_active.val() {
                self.rd.data.next = self.rd.data.val() | self.link_active32.o.val();
                self.rd.hit.next = true;
            }
        }
    }
}
