//! The Ensō streaming DMA engine: frames land back to back in per-pipe data
//! rings in host memory, and notifications carry each pipe's new tail.

mod entry_lens;
mod flow_director;
mod flow_key;
mod notif;
mod notif_buffers;
mod notif_queues;
mod ring_packer;
mod ring_unpacker;
mod rx;
mod rx_flags;
mod rx_flags_merge;
mod rx_intake;
mod rx_l4_check;
mod slot_gate;
mod toeplitz;
mod tx_entry_framer;
mod tx_fetch;
mod tx_stamp;

pub use entry_lens::EntryLens;
pub use flow_director::{FlowDirector, MATCH_BITS as FLOW_MATCH_BITS};
pub use flow_key::FlowKeyParser;
pub use notif::{NotifWriter, RxNotifWriter, TxComplWriter};
pub use notif_buffers::NotifBuffers;
pub use notif_queues::NotifQueues;
pub use ring_packer::RingPacker;
pub use ring_unpacker::RingUnpacker;
pub use rx::RxEngine;
pub use rx_flags::{FirstBeat, RxFlagsParser};
pub use rx_flags_merge::RxFlagsMerge;
pub use rx_intake::RxIntake;
pub use rx_l4_check::RxL4Check;
pub use slot_gate::SlotGate;
pub use toeplitz::Toeplitz;
pub use tx_entry_framer::TxEntryFramer;
pub use tx_fetch::TxFetcher;
pub use tx_stamp::TxStampWriter;
