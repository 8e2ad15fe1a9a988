//! Stream pieces shared by every block: one valid/ready shape everywhere.
//!
//! A word moves when `valid && ready` on a rising clock edge; `valid` never
//! waits on `ready`, and `data` holds while `valid && !ready`.

mod arbiter;
mod async_fifo;
mod async_frame_drop_fifo;
mod async_frame_fifo;
mod fifo;
mod frame_sum;
mod resize;
mod sized_frame_fifo;
mod skid;

pub use arbiter::RoundRobinArbiter;
pub use async_fifo::AsyncStreamFifo;
pub use async_frame_drop_fifo::AsyncFrameDropFifo;
pub use async_frame_fifo::AsyncFrameFifo;
pub use fifo::StreamFifo;
pub use frame_sum::FrameSum;
pub use resize::{Concat, Join, ZeroExtend};
pub use sized_frame_fifo::SizedFrameFifo;
pub use skid::SkidBuffer;

use rust_hdl::prelude::*;

/// The consuming side of a stream (data and valid in, ready out).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct StreamSink<T: Synth> {
    pub data: Signal<In, T>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The producing side of a stream (data and valid out, ready in).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct StreamSource<T: Synth> {
    pub data: Signal<Out, T>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}
