use super::{StreamSink, StreamSource};
use crate::reset::SDFF;
use rust_hdl::prelude::*;

/// Index width inside the arbiter: up to 128 inputs.
const IDX_BITS: usize = 8;

/// Round-robin arbiter of `N` streams of packets onto one. A grant lasts
/// from a packet's first word to the word with `s_last` set, so packets are
/// never interleaved (tie `s_last` high for single-word packets). After input
/// i's packet, input i+1 (mod N) has the highest priority, so no input waits
/// more than `N - 1` packets. Combinational (latency 0); put a
/// [`super::SkidBuffer`] after it to register the output.
#[derive(LogicBlock)]
pub struct RoundRobinArbiter<T: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see `crate::reset`): every register returns to its
    /// power-up value.
    pub reset: Signal<In, Bit>,
    pub s: [StreamSink<T>; N],
    /// The word on input i ends its packet.
    pub s_last: [Signal<In, Bit>; N],
    pub m: StreamSource<T>,
    last: SDFF<Bits<IDX_BITS>>,
    // Mid-packet: the grant stays with input `last`.
    locked: SDFF<Bit>,
    grant: Signal<Local, Bits<IDX_BITS>>,
    found: Signal<Local, Bit>,
    // The input k-th in line: (last + k + 1) mod N. Signals of their own, so
    // the sums wrap at IDX_BITS: compared inline, Verilog would widen them.
    cand: [Signal<Local, Bits<IDX_BITS>>; N],
    offsets: [Constant<Bits<IDX_BITS>>; N],
    n: Constant<Bits<IDX_BITS>>,
    // The bits an index below N can use: `last` is masked with it, so
    // synthesis sees that its upper bits are 0 and the grant shrinks to a
    // LUT or two for a handful of inputs (unmasked: 7 LUT levels for N = 3).
    idx_mask: Constant<Bits<IDX_BITS>>,
}

impl<T: Synth, const N: usize> RoundRobinArbiter<T, N> {
    pub fn new() -> Self {
        assert!((1..=128).contains(&N), "RoundRobinArbiter: 1 to 128 inputs");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: std::array::from_fn(|_| Default::default()),
            s_last: std::array::from_fn(|_| Default::default()),
            m: Default::default(),
            last: Default::default(),
            locked: Default::default(),
            grant: Default::default(),
            found: Default::default(),
            cand: std::array::from_fn(|_| Default::default()),
            offsets: std::array::from_fn(|k| Constant::new((k as u64 + 1).into())),
            n: Constant::new((N as u64).into()),
            idx_mask: Constant::new((N.next_power_of_two() as u64 - 1).into()),
        }
    }
}

impl<T: Synth, const N: usize> Default for RoundRobinArbiter<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const N: usize> Logic for RoundRobinArbiter<T, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last, locked);
        self.last.reset.next = self.reset.val();
        self.locked.reset.next = self.reset.val();
        for k in 0..N {
            self.cand[k].next = (self.last.q.val() & self.idx_mask.val()) + self.offsets[k].val();
            if self.cand[k].val() >= self.n.val() {
                self.cand[k].next = (self.last.q.val() & self.idx_mask.val())
                    + self.offsets[k].val()
                    - self.n.val();
            }
        }
        self.found.next = false;
        self.grant.next = self.last.q.val() & self.idx_mask.val();
        if self.locked.q.val() {
            for i in 0..N {
                if (self.last.q.val() & self.idx_mask.val()).index() == i {
                    self.found.next = self.s[i].valid.val();
                }
            }
        } else {
            for k in 0..N {
                for i in 0..N {
                    if !self.found.val() & (self.cand[k].val().index() == i) & self.s[i].valid.val()
                    {
                        self.found.next = true;
                        self.grant.next = self.cand[k].val();
                    }
                }
            }
        }
        self.m.valid.next = self.found.val();
        self.m.data.next = self.s[0].data.val();
        for i in 0..N {
            self.s[i].ready.next = false;
            if self.grant.val().index() == i {
                self.m.data.next = self.s[i].data.val();
                self.s[i].ready.next = self.found.val() & self.m.ready.val();
            }
        }
        if self.found.val() & self.m.ready.val() {
            self.last.d.next = self.grant.val();
            for i in 0..N {
                if self.grant.val().index() == i {
                    self.locked.d.next = !self.s_last[i].val();
                }
            }
        }
    }
}
