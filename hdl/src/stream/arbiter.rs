use super::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Round-robin arbiter of `2^B` streams onto one, one word per grant.
/// After input i wins, input i+1 has the highest priority, so no input waits
/// more than `2^B - 1` words. Combinational (latency 0); put a
/// [`super::SkidBuffer`] after it to register the output.
#[derive(LogicBlock)]
pub struct RoundRobinArbiter<T: Synth, const B: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    /// The inputs; `N` must be `2^B` (checked in `new()`).
    pub s: [StreamSink<T>; N],
    pub m: StreamSource<T>,
    last: DFF<Bits<B>>,
    grant: Signal<Local, Bits<B>>,
    found: Signal<Local, Bit>,
    // The input k-th in line. A signal of B bits, so the sum wraps: compared
    // inline, Verilog would widen it to 32 bits first.
    cand: [Signal<Local, Bits<B>>; N],
    offsets: [Constant<Bits<B>>; N],
}

impl<T: Synth, const B: usize, const N: usize> RoundRobinArbiter<T, B, N> {
    pub fn new() -> Self {
        assert_eq!(N, 1 << B, "RoundRobinArbiter: N must be 2^B");
        Self {
            clock: Default::default(),
            s: std::array::from_fn(|_| Default::default()),
            m: Default::default(),
            last: Default::default(),
            grant: Default::default(),
            found: Default::default(),
            cand: std::array::from_fn(|_| Default::default()),
            // offsets[k] = k + 1: input (last + k + 1) is the k-th in line.
            offsets: std::array::from_fn(|k| Constant::new(((k as u64 + 1) % N as u64).into())),
        }
    }
}

impl<T: Synth, const B: usize, const N: usize> Default for RoundRobinArbiter<T, B, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const B: usize, const N: usize> Logic for RoundRobinArbiter<T, B, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last);
        self.found.next = false;
        self.grant.next = self.last.q.val();
        for k in 0..N {
            self.cand[k].next = self.last.q.val() + self.offsets[k].val();
        }
        for k in 0..N {
            for i in 0..N {
                if !self.found.val() & (self.cand[k].val().index() == i) & self.s[i].valid.val() {
                    self.found.next = true;
                    self.grant.next = self.cand[k].val();
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
        }
    }
}
