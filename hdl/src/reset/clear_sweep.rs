use super::SDFF;
use pendulum_layout::params::{PIPES, PIPE_BITS, RESET_CLEAR_CYCLES};
use rust_hdl::prelude::*;

/// Cycles the tables stay closed after a reset: one per entry of the
/// largest table, the RX pipes'.
pub const CLEAR_CYCLES: usize = RESET_CLEAR_CYCLES;
const _: () = assert!(CLEAR_CYCLES == PIPES && CLEAR_CYCLES == 1 << PIPE_BITS);

/// The tables a reset clears, and for how long: one entry per cycle, every
/// table at once.
///
/// Block RAM has no reset, so the per-pipe, per-buffer and flow tables (ring
/// state, on/off bits, counters, notification buffers, flow entries) are
/// cleared by writing zero to entry `addr` of each while `active` is high,
/// `addr` counting 0, 1, … up to the largest table (smaller tables use its
/// low bits, and see each entry several times). A block that keeps a table
/// takes this as its `clear` input and gives the sweep its RAMs' write ports
/// while `active` is high; the core keeps its register port and its Ethernet
/// input closed until then, so no reader sees a half-cleared table.
/// `A` is the block's largest table's address width (at most `PIPE_BITS`):
/// it takes the sweep's low `A` bits.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct Clear<const A: usize> {
    pub active: Signal<In, Bit>,
    pub addr: Signal<In, Bits<A>>,
}

/// Drives [`Clear`]: `active` from reset until [`CLEAR_CYCLES`] cycles after
/// it is released. Not at power-up: the RAMs' initial contents are zero then
/// (in the bitstream as in simulation), so the core is ready at once.
#[derive(LogicBlock)]
pub struct ClearSweep {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// High while the tables are being cleared.
    pub active: Signal<Out, Bit>,
    /// The entry cleared this cycle.
    pub addr: Signal<Out, Bits<PIPE_BITS>>,
    // The entry being cleared (0 after a reset), and whether a sweep is
    // under way: set by reset, cleared after the last entry. A plain DFF (no
    // reset pin): its power-up value, 0, means no sweep at power-up, which an
    // SDFF could not tell from a reset.
    count: SDFF<Bits<PIPE_BITS>>,
    sweeping: DFF<Bit>,
    last: Constant<Bits<PIPE_BITS>>,
    one: Constant<Bits<PIPE_BITS>>,
}

impl Default for ClearSweep {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            addr: Default::default(),
            count: Default::default(),
            sweeping: Default::default(),
            last: Constant::new(((1u64 << PIPE_BITS) - 1).into()),
            one: Constant::new(1u64.into()),
        }
    }
}

impl Logic for ClearSweep {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, sweeping);
        self.count.reset.next = self.reset.val();
        self.active.next = self.sweeping.q.val();
        self.addr.next = self.count.q.val();
        if self.sweeping.q.val() {
            self.count.d.next = self.count.q.val() + self.one.val();
            if self.count.q.val() == self.last.val() {
                self.sweeping.d.next = false;
            }
        }
        if self.reset.val() {
            self.sweeping.d.next = true;
        }
    }
}
