//! The Ensō streaming DMA engine: frames land back to back in per-pipe data
//! rings in host memory, and notifications carry each pipe's new tail.

mod frame_len;
mod notif;
mod rx;
mod rx_parse;
mod slot_gate;
mod tx_fetch;
mod tx_framer;
mod tx_parse;

pub use frame_len::FrameLenParser;
pub use notif::NotifWriter;
pub use rx::RxEngine;
pub use rx_parse::RxParse;
pub use slot_gate::SlotGate;
pub use tx_fetch::TxFetcher;
pub use tx_framer::TxFramer;
pub use tx_parse::TxParse;
