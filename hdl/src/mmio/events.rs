use pendulum_layout::params::{PIPE_BITS, SLOT_BITS, TX_PIPE_BITS};
use rust_hdl::prelude::*;

/// Events the RX datapath reports for counting, one frame at a time.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RxEvents {
    /// The pipe the other fields are about.
    pub pipe: Signal<In, Bits<PIPE_BITS>>,
    /// A frame was written to the pipe's ring; its length is `frame_bytes`,
    /// and the pipe's tail is now `tail`.
    pub frame: Signal<In, Bit>,
    pub frame_bytes: Signal<In, Bits<16>>,
    pub tail: Signal<In, Bits<SLOT_BITS>>,
    pub drop_ring_full: Signal<In, Bit>,
    pub drop_malformed: Signal<In, Bit>,
    pub drop_pipe_off: Signal<In, Bit>,
    /// The RX engine applied a restart of the pipe (its tail is 0, with this
    /// ring size and on/off), in order with its `frame` events: never in the
    /// same cycle as one, and none for the old ring after it.
    pub restart: Signal<In, Bit>,
    pub restart_mask: Signal<In, Bits<SLOT_BITS>>,
    pub restart_enable: Signal<In, Bit>,
    /// A notification was written (for any pipe).
    pub notification: Signal<In, Bit>,
}

/// Events the TX datapath reports for counting.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct TxEvents {
    pub pipe: Signal<In, Bits<TX_PIPE_BITS>>,
    /// A frame went out on the Ethernet TX port; its length is `frame_bytes`.
    pub frame: Signal<In, Bit>,
    pub frame_bytes: Signal<In, Bits<16>>,
    pub drop_malformed: Signal<In, Bit>,
    /// A TX completion record was written (for any pipe).
    pub completion: Signal<In, Bit>,
}

/// Events the ACP link reports for counting (one-cycle pulses).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct LinkEvents {
    pub record: Signal<In, Bit>,
    pub bad_check: Signal<In, Bit>,
    pub bad_record: Signal<In, Bit>,
    pub commit: Signal<In, Bit>,
    pub deliver: Signal<In, Bit>,
    pub reject: Signal<In, Bit>,
    pub reverse: Signal<In, Bit>,
    pub failure: Signal<In, Bit>,
    pub entangle: Signal<In, Bit>,
    pub returned: Signal<In, Bit>,
}
