use crate::reset::SDFF;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// Which channels `ChannelState`'s writer 4 (offers made without a record
/// heard) checks this cycle: those a load, a move applied or the
/// scanner's hand-back named last cycle, the only writers that can make
/// its condition true, and one whose check was put off because it was
/// being heard (`retry`: a damaged record is heard without a move, so no
/// later event would name it). A channel being decided on needs no retry:
/// its move names it again.
#[derive(LogicBlock)]
pub struct OfferEvents {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub load_ch: Signal<In, Bits<CB>>,
    pub apply: Signal<In, Bit>,
    pub apply_ch: Signal<In, Bits<CB>>,
    pub scan: Signal<In, Bit>,
    pub scan_ch: Signal<In, Bits<CB>>,
    /// The channel read for the decision next cycle (writer 4 skips it).
    pub heard_ch: Signal<In, Bits<CB>>,
    /// Per channel: an event names it.
    pub check: [Signal<Out, Bit>; K],

    ev_load: SDFF<Bit>,
    ev_load_ch: SDFF<Bits<CB>>,
    ev_apply: SDFF<Bit>,
    ev_apply_ch: SDFF<Bits<CB>>,
    ev_scan: SDFF<Bit>,
    ev_scan_ch: SDFF<Bits<CB>>,
    retry: SDFF<Bit>,
    retry_ch: SDFF<Bits<CB>>,
}

// By hand: `Default` is derived for arrays of at most 32, and K is 256 in
// the bench's build.
impl Default for OfferEvents {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            load_ch: Default::default(),
            apply: Default::default(),
            apply_ch: Default::default(),
            scan: Default::default(),
            scan_ch: Default::default(),
            heard_ch: Default::default(),
            check: std::array::from_fn(|_| Default::default()),
            ev_load: Default::default(),
            ev_load_ch: Default::default(),
            ev_apply: Default::default(),
            ev_apply_ch: Default::default(),
            ev_scan: Default::default(),
            ev_scan_ch: Default::default(),
            retry: Default::default(),
            retry_ch: Default::default(),
        }
    }
}

impl Logic for OfferEvents {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            ev_load,
            ev_load_ch,
            ev_apply,
            ev_apply_ch,
            ev_scan,
            ev_scan_ch,
            retry,
            retry_ch
        );
        self.ev_load.reset.next = self.reset.val();
        self.ev_load_ch.reset.next = self.reset.val();
        self.ev_apply.reset.next = self.reset.val();
        self.ev_apply_ch.reset.next = self.reset.val();
        self.ev_scan.reset.next = self.reset.val();
        self.ev_scan_ch.reset.next = self.reset.val();
        self.retry.reset.next = self.reset.val();
        self.retry_ch.reset.next = self.reset.val();
        self.ev_load.d.next = self.load.val();
        self.ev_load_ch.d.next = self.load_ch.val();
        self.ev_apply.d.next = self.apply.val();
        self.ev_apply_ch.d.next = self.apply_ch.val();
        self.ev_scan.d.next = self.scan.val();
        self.ev_scan_ch.d.next = self.scan_ch.val();
        self.retry.d.next = false;
        self.retry_ch.d.next = self.heard_ch.val();
        for i in 0..K {
            self.check[i].next = (self.ev_load.q.val() & (self.ev_load_ch.q.val().index() == i))
                | (self.ev_apply.q.val() & (self.ev_apply_ch.q.val().index() == i))
                | (self.ev_scan.q.val() & (self.ev_scan_ch.q.val().index() == i))
                | (self.retry.q.val() & (self.retry_ch.q.val().index() == i));
            if self.check[i].val() & (self.heard_ch.val().index() == i) {
                self.retry.d.next = true;
            }
        }
    }
}
