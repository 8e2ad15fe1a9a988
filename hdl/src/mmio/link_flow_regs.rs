use super::reg_stages::{c32, cause, off, RegStages, OFF_BITS, PAGE_BITS};
use super::{RegRead, RegWrite};
use crate::enso::FLOW_MATCH_BITS;
use crate::reset::SDFF;
use crate::stream::{Concat, Join};
use pendulum_layout::flow::{ENTRIES, FALLBACK_COUNT_LOG2_SHIFT, WRITE_VALID};
use pendulum_layout::params::{
    ACP_CHANNELS, ACP_CHANNEL_BITS as CB, FLOW_BUCKET_BITS, FLOW_SLOT_BITS, FLOW_WAYS, PIPES,
    PIPE_BITS,
};
use pendulum_layout::{global, RegError};
use rust_hdl::prelude::*;

/// Width of a channel count (0..=K).
const CB1: usize = CB + 1;
/// FLOW_KEY0..9; the table compares the first FLOW_MATCH_BITS of them, so
/// the last word gives only its low bytes.
const FLOW_KEY_WORDS: usize = global::FLOW_KEY_WORDS as usize;
const FLOW_FULL_WORDS: usize = FLOW_KEY_WORDS - 1;
const FLOW_LAST_BITS: usize = FLOW_MATCH_BITS - 32 * FLOW_FULL_WORDS;
/// The offsets a write is tested against, in the order of `wo_hit`.
const WRITABLE: usize = 12;

/// What the global page's link, atomic unit and flow director registers
/// set: the ACP link's controls, the atomic unit's and the link's RX pipes
/// (and whether they are reserved), and the flow director's table writes
/// and steering settings.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct LinkFlowSettings {
    /// The ACP link's controls.
    pub link_reset: Signal<Out, Bit>,
    pub link_seed: Signal<Out, Bits<32>>,
    pub link_seed_write: Signal<Out, Bit>,
    pub link_rx_pipe: Signal<Out, Bits<PIPE_BITS>>,
    /// Channels the link offers to use (LINK_CHANNELS, 0 meaning all).
    pub link_channels: Signal<Out, Bits<CB1>>,
    /// RX pipe receiving atomic results (ATOMIC_RX_PIPE).
    pub atomic_rx_pipe: Signal<Out, Bits<PIPE_BITS>>,
    /// The link's and the atomic unit's RX pipes are reserved
    /// (RX_PIPE_RESERVED): the flow director steers no frame there.
    pub link_rx_reserved: Signal<Out, Bit>,
    pub atomic_rx_reserved: Signal<Out, Bit>,
    /// The flow director's table writes (FLOW_WRITE, one cycle later, with
    /// the staged key and pipe) and steering settings.
    pub flow_table_wr: Signal<Out, Bit>,
    pub flow_table_slot: Signal<Out, Bits<FLOW_SLOT_BITS>>,
    pub flow_table_valid: Signal<Out, Bit>,
    pub flow_key: Signal<Out, Bits<FLOW_MATCH_BITS>>,
    pub flow_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_default_pipe: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_fallback_first: Signal<Out, Bits<PIPE_BITS>>,
    pub flow_fallback_mask: Signal<Out, Bits<PIPE_BITS>>,
}

/// The global page's ACP link, atomic unit and flow director registers:
/// LINK_CTRL, LINK_SEED, LINK_CHANNELS, LINK_RX_PIPE, ATOMIC_RX_PIPE,
/// FLOW_DEFAULT_PIPE, FLOW_PIPE, FLOW_FALLBACK, FLOW_WRITE, FLOW_KEY0..9, and
/// the read-only LINK_STATE, LINK_ACTIVE_CHANNELS and CAP_FLOW_TABLE as far
/// as writes go; and their part of a register read (all but LINK_STATE and
/// LINK_ACTIVE_CHANNELS, which are the link's inputs and answered by
/// `RegFile`).
///
/// Writes and reads come on `wr` and `rd` (`RegWrite`, `RegRead`) through
/// this block's copy of `RegFile`'s pipeline (`RegStages`: accept, check,
/// apply): in the apply cycle `wr.hit` says the write is to one of these
/// registers, `wr.err` whether it was refused.
///
/// A pipe named by ATOMIC_RX_PIPE or LINK_RX_PIPE with RX_PIPE_RESERVED set
/// is reserved (`atomic_rx_reserved`, `link_rx_reserved`): the flow director
/// steers no frame there, and writes that would make it a steering target
/// are refused (`RegError::PipeReserved`): FLOW_DEFAULT_PIPE naming it, a
/// FLOW_WRITE installing an entry whose FLOW_PIPE is it, and reserving the
/// pipe that is FLOW_DEFAULT_PIPE.
///
/// Every output comes from this block's registers only: a child's combinational
/// answer read back into `RegFile`'s one always block would be a loop that
/// Verilator evaluates once, and would read stale.
#[derive(LogicBlock)]
pub struct LinkFlowRegs {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`).
    pub reset: Signal<In, Bit>,
    /// Register writes (`RegWrite`) and reads (`RegRead`) from `RegFile`.
    pub wr: RegWrite,
    pub rd: RegRead,
    /// In the apply cycle: software named another pipe for the link's or the
    /// atomic unit's slot gate (LINK_RX_PIPE, ATOMIC_RX_PIPE).
    pub gate_load_link: Signal<Out, Bit>,
    pub gate_load_atomic: Signal<Out, Bit>,
    pub settings: LinkFlowSettings,

    link_rx_pipe_r: SDFF<Bits<32>>,
    link_seed_r: SDFF<Bits<32>>,
    // The write pulse, one cycle late so it meets the new value.
    link_seed_pulse: SDFF<Bit>,
    link_channels_r: SDFF<Bits<32>>,
    atomic_rx_pipe_r: SDFF<Bits<32>>,
    flow_key_r: [SDFF<Bits<32>>; FLOW_KEY_WORDS],
    flow_key_join: Join<FLOW_FULL_WORDS, 32, { 32 * FLOW_FULL_WORDS }>,
    flow_key_cat: Concat<FLOW_LAST_BITS, { 32 * FLOW_FULL_WORDS }, FLOW_MATCH_BITS>,
    flow_pipe_r: SDFF<Bits<32>>,
    flow_default_r: SDFF<Bits<32>>,
    // FLOW_FALLBACK as written; until the first write it reads as all pipes.
    flow_fallback_r: SDFF<Bits<32>>,
    flow_fallback_set: SDFF<Bit>,
    flow_fallback: Signal<Local, Bits<32>>,
    // FLOW_WRITE's value and its pulse, a cycle after the register write.
    flow_write_r: SDFF<Bits<32>>,
    flow_write_pulse: SDFF<Bit>,
    // The write: latched as it is accepted, checked the next cycle (into
    // `flow_fallback_ok_r`, `names_pipe_r` and `wo_hit`), applied the one
    // after, so the apply stage starts from flops.
    // The write pipeline's and read stage's registers (`RegStages`).
    stages: RegStages,
    flow_fallback_ok_r: SDFF<Bit>,
    // The value names a pipe (< PIPES): FLOW_DEFAULT_PIPE and FLOW_PIPE.
    names_pipe_r: SDFF<Bit>,
    // The value names a pipe in its pipe field, with nothing set above the
    // reserved bit: ATOMIC_RX_PIPE and LINK_RX_PIPE.
    names_rx_pipe_r: SDFF<Bit>,
    // The value's pipe field is a reserved pipe (FLOW_DEFAULT_PIPE); FLOW_PIPE
    // is one (FLOW_WRITE); the value reserves FLOW_DEFAULT_PIPE
    // (ATOMIC_RX_PIPE, LINK_RX_PIPE). Made in the check stage from the
    // registers the write before has already set (one write every third
    // cycle), so the apply stage tests flops.
    value_reserved_r: SDFF<Bit>,
    flow_pipe_reserved_r: SDFF<Bit>,
    reserves_default_r: SDFF<Bit>,
    value_pipe: Signal<Local, Bits<16>>,
    // The write's offset decoded in the check stage: LINK_CTRL, LINK_SEED,
    // LINK_CHANNELS, LINK_ACTIVE_CHANNELS, LINK_STATE, ATOMIC_RX_PIPE,
    // LINK_RX_PIPE, FLOW_DEFAULT_PIPE, FLOW_PIPE, FLOW_FALLBACK, FLOW_WRITE,
    // CAP_FLOW_TABLE.
    wo_hit: [SDFF<Bit>; WRITABLE],
    is_key: Signal<Local, Bit>,
    g_link_ctrl: Constant<Bits<OFF_BITS>>,
    g_link_seed: Constant<Bits<OFF_BITS>>,
    g_link_channels: Constant<Bits<OFF_BITS>>,
    g_link_active: Constant<Bits<OFF_BITS>>,
    g_link_state: Constant<Bits<OFF_BITS>>,
    g_atomic_rx_pipe: Constant<Bits<OFF_BITS>>,
    g_link_rx_pipe: Constant<Bits<OFF_BITS>>,
    g_flow_cap: Constant<Bits<OFF_BITS>>,
    g_flow_default: Constant<Bits<OFF_BITS>>,
    g_flow_fallback: Constant<Bits<OFF_BITS>>,
    g_flow_pipe: Constant<Bits<OFF_BITS>>,
    g_flow_write: Constant<Bits<OFF_BITS>>,
    g_flow_key: [Constant<Bits<OFF_BITS>>; FLOW_KEY_WORDS],
    g_flow_key_first: Constant<Bits<OFF_BITS>>,
    g_flow_key_last: Constant<Bits<OFF_BITS>>,
    flow_cap: Constant<Bits<32>>,
    flow_all_pipes: Constant<Bits<32>>,
    flow_write_reserved: Constant<Bits<32>>,
    flow_fallback_reserved: Constant<Bits<32>>,
    flow_max_log2: Constant<Bits<5>>,
    pipe_ones: Constant<Bits<PIPE_BITS>>,
    low16: Constant<Bits<32>>,
    channels_max: Constant<Bits<32>>,
    channels_all: Constant<Bits<CB1>>,
    pipes32: Constant<Bits<32>>,
    cause_value: Constant<Bits<32>>,
    cause_read_only: Constant<Bits<32>>,
    cause_reserved: Constant<Bits<32>>,
    rx_pipe_field: Constant<Bits<32>>,
    rx_pipe_allowed: Constant<Bits<32>>,
    at_write_valid: Constant<Bits<5>>,
    at_reserved: Constant<Bits<5>>,
    page0: Constant<Bits<PAGE_BITS>>,
    zero_off2: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
}

impl Default for LinkFlowRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            reset: Default::default(),
            gate_load_link: Default::default(),
            gate_load_atomic: Default::default(),
            settings: Default::default(),
            link_rx_pipe_r: Default::default(),
            link_seed_r: Default::default(),
            link_seed_pulse: Default::default(),
            link_channels_r: Default::default(),
            atomic_rx_pipe_r: Default::default(),
            flow_key_r: Default::default(),
            flow_key_join: Default::default(),
            flow_key_cat: Default::default(),
            flow_pipe_r: Default::default(),
            flow_default_r: Default::default(),
            flow_fallback_r: Default::default(),
            flow_fallback_set: Default::default(),
            flow_fallback: Default::default(),
            flow_write_r: Default::default(),
            flow_write_pulse: Default::default(),
            flow_fallback_ok_r: Default::default(),
            names_pipe_r: Default::default(),
            names_rx_pipe_r: Default::default(),
            value_reserved_r: Default::default(),
            flow_pipe_reserved_r: Default::default(),
            reserves_default_r: Default::default(),
            value_pipe: Default::default(),
            wo_hit: Default::default(),
            is_key: Default::default(),
            g_link_ctrl: off(global::LINK_CTRL),
            g_link_seed: off(global::LINK_SEED),
            g_link_channels: off(global::LINK_CHANNELS),
            g_link_active: off(global::LINK_ACTIVE_CHANNELS),
            g_link_state: off(global::LINK_STATE),
            g_atomic_rx_pipe: off(global::ATOMIC_RX_PIPE),
            g_link_rx_pipe: off(global::LINK_RX_PIPE),
            g_flow_cap: off(global::CAP_FLOW_TABLE),
            g_flow_default: off(global::FLOW_DEFAULT_PIPE),
            g_flow_fallback: off(global::FLOW_FALLBACK),
            g_flow_pipe: off(global::FLOW_PIPE),
            g_flow_write: off(global::FLOW_WRITE),
            g_flow_key: std::array::from_fn(|k| {
                Constant::new(((global::FLOW_KEY0.offset + 4 * k as u32) as u64).into())
            }),
            g_flow_key_first: off(global::FLOW_KEY0),
            g_flow_key_last: Constant::new(
                ((global::FLOW_KEY0.offset + 4 * (FLOW_KEY_WORDS as u32 - 1)) as u64).into(),
            ),
            flow_cap: c32((FLOW_WAYS as u32) << 16 | 1 << FLOW_BUCKET_BITS),
            flow_all_pipes: c32((PIPE_BITS as u32) << FALLBACK_COUNT_LOG2_SHIFT),
            flow_write_reserved: c32(!(WRITE_VALID | (ENTRIES as u32 - 1))),
            flow_fallback_reserved: c32(!((1 << (FALLBACK_COUNT_LOG2_SHIFT + 5)) - 1)),
            flow_max_log2: Constant::new((PIPE_BITS as u64).into()),
            pipe_ones: Constant::new(((1u64 << PIPE_BITS) - 1).into()),
            low16: c32(0xFFFF),
            channels_max: c32(ACP_CHANNELS as u32),
            channels_all: Constant::new((ACP_CHANNELS as u64).into()),
            pipes32: c32(PIPES as u32),
            cause_value: cause(RegError::BadValue),
            cause_read_only: cause(RegError::ReadOnly),
            cause_reserved: cause(RegError::PipeReserved),
            rx_pipe_field: c32(global::RX_PIPE_MASK),
            rx_pipe_allowed: c32(global::RX_PIPE_MASK | global::RX_PIPE_RESERVED),
            at_write_valid: Constant::new((WRITE_VALID.trailing_zeros() as u64).into()),
            at_reserved: Constant::new((global::RX_PIPE_RESERVED.trailing_zeros() as u64).into()),
            page0: Constant::new(0u64.into()),
            stages: Default::default(),
            zero_off2: Constant::new(0u64.into()),
            zero32: c32(0),
            one32: c32(1),
        }
    }
}

impl Logic for LinkFlowRegs {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..FLOW_KEY_WORDS {
            self.flow_key_r[k].clock.next = self.clock.val();
            self.flow_key_r[k].reset.next = self.reset.val();
            self.flow_key_r[k].d.next = self.flow_key_r[k].q.val();
        }
        for k in 0..WRITABLE {
            self.wo_hit[k].clock.next = self.clock.val();
            self.wo_hit[k].reset.next = self.reset.val();
        }
        dff_setup!(
            self,
            clock,
            link_rx_pipe_r,
            link_seed_r,
            link_seed_pulse,
            link_channels_r,
            atomic_rx_pipe_r,
            flow_pipe_r,
            flow_default_r,
            flow_fallback_r,
            flow_fallback_set,
            flow_write_r,
            flow_write_pulse,
            flow_fallback_ok_r,
            names_pipe_r,
            names_rx_pipe_r,
            value_reserved_r,
            flow_pipe_reserved_r,
            reserves_default_r
        );
        self.link_rx_pipe_r.reset.next = self.reset.val();
        self.link_seed_r.reset.next = self.reset.val();
        self.link_seed_pulse.reset.next = self.reset.val();
        self.link_channels_r.reset.next = self.reset.val();
        self.atomic_rx_pipe_r.reset.next = self.reset.val();
        self.flow_pipe_r.reset.next = self.reset.val();
        self.flow_default_r.reset.next = self.reset.val();
        self.flow_fallback_r.reset.next = self.reset.val();
        self.flow_fallback_set.reset.next = self.reset.val();
        self.flow_write_r.reset.next = self.reset.val();
        self.flow_write_pulse.reset.next = self.reset.val();
        self.flow_fallback_ok_r.reset.next = self.reset.val();
        self.names_pipe_r.reset.next = self.reset.val();
        self.names_rx_pipe_r.reset.next = self.reset.val();
        self.value_reserved_r.reset.next = self.reset.val();
        self.flow_pipe_reserved_r.reset.next = self.reset.val();
        self.reserves_default_r.reset.next = self.reset.val();

        // ---- Outputs ----
        self.settings.atomic_rx_pipe.next = self.atomic_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.settings.atomic_rx_reserved.next = self
            .atomic_rx_pipe_r
            .q
            .val()
            .get_bit(self.at_reserved.val().index());
        self.settings.link_rx_reserved.next = self
            .link_rx_pipe_r
            .q
            .val()
            .get_bit(self.at_reserved.val().index());
        self.settings.link_channels.next = self.link_channels_r.q.val().get_bits::<CB1>(0);
        if self.link_channels_r.q.val() == self.zero32.val() {
            self.settings.link_channels.next = self.channels_all.val();
        }
        self.settings.link_reset.next = false;
        self.settings.link_seed_write.next = self.link_seed_pulse.q.val();
        self.link_seed_pulse.d.next = false;
        self.settings.link_seed.next = self.link_seed_r.q.val();
        self.settings.link_rx_pipe.next = self.link_rx_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        for k in 0..FLOW_FULL_WORDS {
            self.flow_key_join.i[k].next = self.flow_key_r[k].q.val();
        }
        self.flow_key_cat.lo.next = self.flow_key_join.o.val();
        for k in FLOW_FULL_WORDS..FLOW_KEY_WORDS {
            self.flow_key_cat.hi.next = self.flow_key_r[k].q.val().get_bits::<FLOW_LAST_BITS>(0);
        }
        self.flow_fallback.next = self.flow_all_pipes.val();
        if self.flow_fallback_set.q.val() {
            self.flow_fallback.next = self.flow_fallback_r.q.val();
        }
        self.settings.flow_key.next = self.flow_key_cat.o.val();
        self.settings.flow_pipe.next = self.flow_pipe_r.q.val().get_bits::<PIPE_BITS>(0);
        self.settings.flow_default_pipe.next = self.flow_default_r.q.val().get_bits::<PIPE_BITS>(0);
        self.settings.flow_fallback_first.next = self.flow_fallback.val().get_bits::<PIPE_BITS>(0);
        self.settings.flow_fallback_mask.next =
            !(self.pipe_ones.val() << self.flow_fallback.val().get_bits::<5>(16));
        self.settings.flow_table_wr.next = self.flow_write_pulse.q.val();
        self.settings.flow_table_slot.next =
            self.flow_write_r.q.val().get_bits::<FLOW_SLOT_BITS>(0);
        self.settings.flow_table_valid.next = self.flow_write_r.q.val().get_bit(31);
        self.flow_write_pulse.d.next = false;

        // ---- Writes ----
        // Accepted (latched), checked the next cycle, applied the one after:
        // `RegFile` accepts at most one write every third cycle.
        self.stages.clock.next = self.clock.val();
        self.stages.reset.next = self.reset.val();
        self.stages.wr_take.next = self.wr.take.val();
        self.stages.wr_addr.next = self.wr.addr.val();
        self.stages.wr_data.next = self.wr.data.val();
        self.stages.rd_take.next = self.rd.take.val();
        self.stages.rd_addr.next = self.rd.addr.val();
        // FLOW_FALLBACK: count a power of two up to all pipes, first + count
        // within the pipes, reserved bits clear.
        self.flow_fallback_ok_r.d.next =
            ((self.stages.data.val() & self.flow_fallback_reserved.val()) == self.zero32.val())
                & (self.stages.data.val().get_bits::<5>(16) <= self.flow_max_log2.val())
                & (((self.stages.data.val() & self.low16.val())
                    + (self.one32.val() << self.stages.data.val().get_bits::<5>(16)))
                    <= self.pipes32.val());
        self.names_pipe_r.d.next = self.stages.data.val() < self.pipes32.val();
        self.names_rx_pipe_r.d.next = ((self.stages.data.val() & !self.rx_pipe_allowed.val())
            == self.zero32.val())
            & ((self.stages.data.val() & self.rx_pipe_field.val()) < self.pipes32.val());
        // Reserved pipes and FLOW_DEFAULT_PIPE compared on the pipe field
        // (every value they hold there is below PIPES).
        self.value_pipe.next = self.stages.data.val().get_bits::<16>(0);
        self.value_reserved_r.d.next = (self.settings.atomic_rx_reserved.val()
            & (self.value_pipe.val() == self.atomic_rx_pipe_r.q.val().get_bits::<16>(0)))
            | (self.settings.link_rx_reserved.val()
                & (self.value_pipe.val() == self.link_rx_pipe_r.q.val().get_bits::<16>(0)));
        self.flow_pipe_reserved_r.d.next = (self.settings.atomic_rx_reserved.val()
            & (self.flow_pipe_r.q.val().get_bits::<16>(0)
                == self.atomic_rx_pipe_r.q.val().get_bits::<16>(0)))
            | (self.settings.link_rx_reserved.val()
                & (self.flow_pipe_r.q.val().get_bits::<16>(0)
                    == self.link_rx_pipe_r.q.val().get_bits::<16>(0)));
        self.reserves_default_r.d.next = self
            .stages
            .data
            .val()
            .get_bit(self.at_reserved.val().index())
            & (self.value_pipe.val() == self.flow_default_r.q.val().get_bits::<16>(0));
        // The offsets the apply stage tests, decoded a cycle ahead.
        self.wo_hit[0].d.next = self.stages.wr_off.val() == self.g_link_ctrl.val();
        self.wo_hit[1].d.next = self.stages.wr_off.val() == self.g_link_seed.val();
        self.wo_hit[2].d.next = self.stages.wr_off.val() == self.g_link_channels.val();
        self.wo_hit[3].d.next = self.stages.wr_off.val() == self.g_link_active.val();
        self.wo_hit[4].d.next = self.stages.wr_off.val() == self.g_link_state.val();
        self.wo_hit[5].d.next = self.stages.wr_off.val() == self.g_atomic_rx_pipe.val();
        self.wo_hit[6].d.next = self.stages.wr_off.val() == self.g_link_rx_pipe.val();
        self.wo_hit[7].d.next = self.stages.wr_off.val() == self.g_flow_default.val();
        self.wo_hit[8].d.next = self.stages.wr_off.val() == self.g_flow_pipe.val();
        self.wo_hit[9].d.next = self.stages.wr_off.val() == self.g_flow_fallback.val();
        self.wo_hit[10].d.next = self.stages.wr_off.val() == self.g_flow_write.val();
        self.wo_hit[11].d.next = self.stages.wr_off.val() == self.g_flow_cap.val();
        self.is_key.next = (self.stages.wr_off.val() >= self.g_flow_key_first.val())
            & (self.stages.wr_off.val() <= self.g_flow_key_last.val());

        // An aligned offset on the global page that is one of these registers.
        self.wr.hit.next = self.stages.apply.val()
            & (self.stages.wr_off.val().get_bits::<2>(0) == self.zero_off2.val())
            & (self.stages.wr_page.val() == self.page0.val())
            & ((self.wo_hit[0].q.val())
                | (self.wo_hit[1].q.val())
                | (self.wo_hit[2].q.val())
                | (self.wo_hit[3].q.val())
                | (self.wo_hit[4].q.val())
                | (self.wo_hit[5].q.val())
                | (self.wo_hit[6].q.val())
                | (self.wo_hit[7].q.val())
                | (self.wo_hit[8].q.val())
                | (self.wo_hit[9].q.val())
                | (self.wo_hit[10].q.val())
                | (self.wo_hit[11].q.val())
                | self.is_key.val());
        self.wr.err.next = false;
        self.wr.err_cause.next = self.zero32.val();
        self.gate_load_link.next = false;
        self.gate_load_atomic.next = false;
        if self.wr.hit.val() {
            if self.wo_hit[0].q.val() {
                self.settings.link_reset.next = self.stages.data.val().get_bit(0);
            } else if self.wo_hit[1].q.val() {
                self.link_seed_r.d.next = self.stages.data.val();
                self.link_seed_pulse.d.next = true;
            } else if self.wo_hit[2].q.val() {
                if self.stages.data.val() <= self.channels_max.val() {
                    self.link_channels_r.d.next = self.stages.data.val();
                } else {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_value.val();
                }
            } else if (self.wo_hit[3].q.val()) | (self.wo_hit[4].q.val()) {
                self.wr.err.next = true;
                self.wr.err_cause.next = self.cause_read_only.val();
            } else if (self.wo_hit[5].q.val()) | (self.wo_hit[6].q.val()) {
                if !self.names_rx_pipe_r.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_value.val();
                } else if self.reserves_default_r.q.val() {
                    // Non-IP frames go to FLOW_DEFAULT_PIPE: it stays a pipe
                    // that may receive Ethernet frames.
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_reserved.val();
                } else if self.wo_hit[5].q.val() {
                    self.atomic_rx_pipe_r.d.next = self.stages.data.val();
                    self.gate_load_atomic.next = true;
                } else {
                    self.link_rx_pipe_r.d.next = self.stages.data.val();
                    self.gate_load_link.next = true;
                }
            } else if (self.wo_hit[7].q.val()) | (self.wo_hit[8].q.val()) {
                if !self.names_pipe_r.q.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_value.val();
                } else if self.wo_hit[7].q.val() {
                    if self.value_reserved_r.q.val() {
                        self.wr.err.next = true;
                        self.wr.err_cause.next = self.cause_reserved.val();
                    } else {
                        self.flow_default_r.d.next = self.stages.data.val();
                    }
                } else {
                    self.flow_pipe_r.d.next = self.stages.data.val();
                }
            } else if self.wo_hit[9].q.val() {
                if self.flow_fallback_ok_r.q.val() {
                    self.flow_fallback_r.d.next = self.stages.data.val();
                    self.flow_fallback_set.d.next = true;
                } else {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_value.val();
                }
            } else if self.wo_hit[10].q.val() {
                if (self.stages.data.val() & self.flow_write_reserved.val()) != self.zero32.val() {
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_value.val();
                } else if self
                    .stages
                    .data
                    .val()
                    .get_bit(self.at_write_valid.val().index())
                    & self.flow_pipe_reserved_r.q.val()
                {
                    // Installing an entry for a reserved pipe; emptying a
                    // slot is always allowed.
                    self.wr.err.next = true;
                    self.wr.err_cause.next = self.cause_reserved.val();
                } else {
                    self.flow_write_r.d.next = self.stages.data.val();
                    self.flow_write_pulse.d.next = true;
                }
            } else if self.is_key.val() {
                for k in 0..FLOW_KEY_WORDS {
                    if self.stages.wr_off.val() == self.g_flow_key[k].val() {
                        self.flow_key_r[k].d.next = self.stages.data.val();
                    }
                }
            } else {
                // CAP_FLOW_TABLE (the branch's offsets end here).
                self.wr.err.next = true;
                self.wr.err_cause.next = self.cause_read_only.val();
            }
        }

        // ---- Reads ----
        // Offsets are unique, so the hits are ORed together (see `RegFile`).
        self.rd.data.next = self.zero32.val();
        self.rd.hit.next = false;
        if self.stages.rd_page.val() == self.page0.val() {
            if self.stages.rd_off.val() == self.g_flow_cap.val() {
                self.rd.data.next = self.rd.data.val() | self.flow_cap.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_flow_default.val() {
                self.rd.data.next = self.rd.data.val() | self.flow_default_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_flow_fallback.val() {
                self.rd.data.next = self.rd.data.val() | self.flow_fallback.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_flow_pipe.val() {
                self.rd.data.next = self.rd.data.val() | self.flow_pipe_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_flow_write.val() {
                self.rd.hit.next = true;
            }
            for k in 0..FLOW_KEY_WORDS {
                if self.stages.rd_off.val() == self.g_flow_key[k].val() {
                    self.rd.data.next = self.rd.data.val() | self.flow_key_r[k].q.val();
                    self.rd.hit.next = true;
                }
            }
            if self.stages.rd_off.val() == self.g_link_ctrl.val() {
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_link_seed.val() {
                self.rd.data.next = self.rd.data.val() | self.link_seed_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_link_channels.val() {
                self.rd.data.next = self.rd.data.val() | self.link_channels_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_atomic_rx_pipe.val() {
                self.rd.data.next = self.rd.data.val() | self.atomic_rx_pipe_r.q.val();
                self.rd.hit.next = true;
            }
            if self.stages.rd_off.val() == self.g_link_rx_pipe.val() {
                self.rd.data.next = self.rd.data.val() | self.link_rx_pipe_r.q.val();
                self.rd.hit.next = true;
            }
        }
    }
}
