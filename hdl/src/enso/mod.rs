//! The Ensō streaming DMA engine: frames land back to back in per-pipe data
//! rings in host memory, and notifications carry each pipe's new tail.

mod notif;
mod rx;

pub use notif::NotifWriter;
pub use rx::RxEngine;
