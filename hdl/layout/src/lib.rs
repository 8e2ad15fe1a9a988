//! Every Pendulum register and record layout, defined once.
//!
//! The HDL (`pendulum-hdl`), the driver (`pendulum-driver`) and the test models
//! all take offsets, widths and codes from here, so a layout change is one edit.
//! This crate has no dependencies on purpose: the driver must never pull in
//! `rust-hdl` or Verilator.

#![forbid(unsafe_code)]

pub mod acp;
pub mod atomic;
pub mod flow;
pub mod frame;
pub mod regs;
pub mod ring;

pub use regs::*;

/// Identity register value: the ASCII bytes "PNDL" read as a little-endian u32.
pub const IDENTITY: u32 = u32::from_le_bytes(*b"PNDL");
/// Major version: the driver refuses a card whose major differs from its own.
/// 2: ring format version 2 ([`ring`]): entries with a 16-byte header, ring
/// positions in 16-byte units.
pub const VERSION_MAJOR: u16 = 2;
/// Minor version: features added without breaking the register map.
/// 1: SESSION (0x038) and the core's reset.
pub const VERSION_MINOR: u16 = 1;
/// Value of the VERSION register.
pub const VERSION: u32 = ((VERSION_MAJOR as u32) << 16) | VERSION_MINOR as u32;

/// Bytes moved per beat on every 512-bit stream (Ethernet, DMA).
pub const BEAT_BYTES: usize = 64;
/// log2 of [`BEAT_BYTES`].
pub const BEAT_BYTES_LOG2: u32 = 6;

/// Build parameters of the default (simulation) NIC.
pub mod params {
    /// Number of RX pipes (data rings). Each has its own 4 KiB register page.
    pub const PIPES: usize = 1024;
    /// Bits needed for a pipe index.
    pub const PIPE_BITS: usize = 10;
    /// Cycles after a reset during which the core clears its tables in RAM
    /// (at power-up they are zero already), one entry of each per cycle: it answers no
    /// register access and takes no frame until then (4 µs at 250 MHz).
    pub const RESET_CLEAR_CYCLES: usize = PIPES;
    /// Number of TX pipes (pipes 0..TX_PIPES have a TX side): as many as
    /// notification buffers, so each core that owns a buffer can also own a
    /// TX pipe. Their ring state is in RAM (like the RX pipes'), and the TX
    /// engine serves the pipes that software rang, in the order it rang them.
    pub const TX_PIPES: usize = 64;
    /// Bits of a TX pipe index (the TX read tag holds it).
    pub const TX_PIPE_BITS: usize = 6;
    /// Notification buffers (Ensō's): rings of notification records in host
    /// memory, each shared by the pipes p with p mod NOTIF_BUFS = b, so one
    /// thread polls one buffer for all of its pipes.
    pub const NOTIF_BUFS: usize = 64;
    /// Bits of a notification buffer index (the low bits of a pipe index).
    pub const NOTIF_BUF_BITS: usize = 6;
    /// TX completion records are coalesced: one is written when a TX pipe's
    /// head reaches the tail software rang (everything posted is sent), or
    /// crosses a multiple of this many 16-byte units (1 KiB) on the way, not
    /// at every frame (which at 64 B cost a fifth of the host-bound PCIe
    /// link).
    pub const TX_COMPL_UNITS: u32 = 64;
    /// Width of a ring position register: the index of a 16-byte unit
    /// ([`crate::ring`]), so a 2 MiB ring's 131,072 units need 17 bits.
    pub const SLOT_BITS: usize = 17;
    /// Smallest ring: one page.
    pub const RING_MIN_BYTES: u32 = 4096;
    /// Largest ring, as Ensō allows: 2 MiB = 131,072 units.
    pub const RING_MAX_BYTES: u32 = 2 << 20;
    /// Largest frame the RX engine accepts (bytes, without FCS).
    pub const MAX_FRAME_BYTES: u32 = 9728;
    /// Smallest frame on the wire (bytes, without FCS); shorter frames are padded to this.
    pub const MIN_FRAME_BYTES: u32 = 60;
    /// Width of the MMIO byte address (the BAR is 16 MiB).
    pub const MMIO_ADDR_BITS: usize = 24;
    /// Depth of the Ethernet RX FIFO in front of the engine, in beats: it
    /// stores and forwards, so it holds a frame of the MTU (152 beats), and
    /// each frame's length is known at its first beat (the ring header).
    pub const ETH_RX_FIFO_DEPTH_LOG2: usize = 8;
    /// Largest DMA read the TX engine asks for, bytes (PCIe max read request 512 B).
    pub const DMA_READ_MAX_BYTES: u32 = 512;
    /// No DMA request crosses a multiple of this: PCIe and AXI forbid a
    /// request across a 4 KiB boundary of its address.
    pub const DMA_BOUNDARY_BYTES: u32 = 4096;
    /// Beats of read completions the TX engine can hold: it keeps at most this
    /// many beats requested and not yet consumed, so completions never stall the
    /// link. It must cover the PCIe round trip: 200 cycles at one beat per cycle
    /// needs ~200 beats in flight; 64 capped TX at 64 beats / 200 cycles (41 Gb/s).
    pub const TX_CPL_FIFO_DEPTH_LOG2: usize = 8;
    /// ACP token channels (K), a build parameter: 2^`ACP_CHANNEL_BITS`.
    /// Each has a sender buffer and a tentative receive buffer of 56 bytes,
    /// in block RAM. A channel moves one payload per link round trip (the
    /// decision travels with the next offer, and slots go to channels by
    /// event), so goodput is about K x 56 B / RTT until the record rate
    /// bounds it. The default, 16, keeps the simulation fast; the channel
    /// state is in registers, read through K:1 multiplexers in one cycle,
    /// so more channels cost logic depth (64 synthesise 19 LUT levels deep,
    /// over the budget) until the block-RAM rework of issue #25.
    pub const ACP_CHANNELS: usize = 1 << ACP_CHANNEL_BITS;
    /// Bits of a channel index: `PENDULUM_ACP_CHANNEL_BITS` at build time
    /// (1 to 8: a record's channel field is one byte), 4 if unset. The HDL,
    /// the Verilog, the testbench and the driver all read it from here, so
    /// one build has one K; build another K in its own target directory
    /// (`make ... ACP_CHANNEL_BITS=6`), or every crate rebuilds at each switch.
    pub const ACP_CHANNEL_BITS: usize = match option_env!("PENDULUM_ACP_CHANNEL_BITS") {
        Some(bits) => channel_bits(bits),
        None => 4,
    };
    /// `PENDULUM_ACP_CHANNEL_BITS`, checked when the crate compiles.
    const fn channel_bits(s: &str) -> usize {
        let b = s.as_bytes();
        assert!(
            b.len() == 1 && b[0] >= b'1' && b[0] <= b'8',
            "PENDULUM_ACP_CHANNEL_BITS must be one digit from 1 to 8 (K = 2 to 256 channels)"
        );
        (b[0] - b'0') as usize
    }
    /// log2 of the restating share: one slot in 2^this is kept for restating
    /// channels round-robin even when channels whose state changed are
    /// waiting. The share yields its slot to them when the channel it visits
    /// was stated since its last visit, so every channel is stated at least
    /// once every 2 x 2^this x K slots (a lost record costs bounded time
    /// under full load) and the share costs no slot news could use.
    pub const ACP_RESTATE_SHARE_LOG2: usize = 3;
    /// Undecodable records in a row after which the link is declared failed
    /// and re-entangled (the event-based failure detector; no timer).
    pub const ACP_FAIL_AFTER: u32 = 32;
    /// log2 of the delivery FIFO depth (messages between the link and the RX engine).
    /// It holds a commit from every channel (K) plus room for hand-backs:
    /// at least 4 K places, and never fewer than 128.
    pub const ACP_MSG_FIFO_DEPTH_LOG2: usize = if ACP_CHANNEL_BITS + 2 > 7 {
        ACP_CHANNEL_BITS + 2
    } else {
        7
    };
    /// Bytes of on-NIC atomic memory (64-bit words in 64-byte lines, in block RAM).
    pub const ATOMIC_BYTES: u32 = 64 * 1024;
    /// Bits of a line index into the atomic memory (the memory is one line wide,
    /// so a multi-word commit reads and writes its line in one cycle).
    pub const ATOMIC_LINE_BITS: usize = 10;
    /// Ways of the flow director's exact-match table (one block RAM each).
    pub const FLOW_WAYS: usize = 4;
    /// log2 of the buckets per way: 4 x 256 = 1,024 flows.
    pub const FLOW_BUCKET_BITS: usize = 8;
    /// Bits of a table slot number (FLOW_WRITE's index).
    pub const FLOW_SLOT_BITS: usize = FLOW_BUCKET_BITS + 2;

    /// Every parameter above, by name, for code outside Rust (the Python
    /// harness's `pendulum_sim.layout.PARAMS`).
    pub const ALL: &[(&str, u64)] = &[
        ("PIPES", PIPES as u64),
        ("PIPE_BITS", PIPE_BITS as u64),
        ("RESET_CLEAR_CYCLES", RESET_CLEAR_CYCLES as u64),
        ("TX_PIPES", TX_PIPES as u64),
        ("TX_PIPE_BITS", TX_PIPE_BITS as u64),
        ("NOTIF_BUFS", NOTIF_BUFS as u64),
        ("NOTIF_BUF_BITS", NOTIF_BUF_BITS as u64),
        ("TX_COMPL_UNITS", TX_COMPL_UNITS as u64),
        ("SLOT_BITS", SLOT_BITS as u64),
        ("RING_MIN_BYTES", RING_MIN_BYTES as u64),
        ("RING_MAX_BYTES", RING_MAX_BYTES as u64),
        ("MAX_FRAME_BYTES", MAX_FRAME_BYTES as u64),
        ("MIN_FRAME_BYTES", MIN_FRAME_BYTES as u64),
        ("MMIO_ADDR_BITS", MMIO_ADDR_BITS as u64),
        ("ETH_RX_FIFO_DEPTH_LOG2", ETH_RX_FIFO_DEPTH_LOG2 as u64),
        ("DMA_READ_MAX_BYTES", DMA_READ_MAX_BYTES as u64),
        ("DMA_BOUNDARY_BYTES", DMA_BOUNDARY_BYTES as u64),
        ("TX_CPL_FIFO_DEPTH_LOG2", TX_CPL_FIFO_DEPTH_LOG2 as u64),
        ("ACP_CHANNELS", ACP_CHANNELS as u64),
        ("ACP_CHANNEL_BITS", ACP_CHANNEL_BITS as u64),
        ("ACP_RESTATE_SHARE_LOG2", ACP_RESTATE_SHARE_LOG2 as u64),
        ("ACP_FAIL_AFTER", ACP_FAIL_AFTER as u64),
        ("ACP_MSG_FIFO_DEPTH_LOG2", ACP_MSG_FIFO_DEPTH_LOG2 as u64),
        ("ATOMIC_BYTES", ATOMIC_BYTES as u64),
        ("ATOMIC_LINE_BITS", ATOMIC_LINE_BITS as u64),
        ("FLOW_WAYS", FLOW_WAYS as u64),
        ("FLOW_BUCKET_BITS", FLOW_BUCKET_BITS as u64),
        ("FLOW_SLOT_BITS", FLOW_SLOT_BITS as u64),
    ];
}

/// The notification record: written by the NIC into a notification buffer
/// (a ring of records in host memory, shared by the pipes p with
/// p mod NOTIF_BUFS = b) each time it announces a pipe's new tail. 16 bytes,
/// little-endian fields. The NIC writes the buffer's records in order, the
/// n-th (from 0) at slot n mod records; COUNT tells software a slot holds a
/// record of this lap.
pub mod notif {
    /// Bytes of one notification record (one DMA write with 16 byte enables).
    pub const BYTES: usize = 16;
    /// Field: new tail of the data ring (a 16-byte unit's index,
    /// [`crate::ring`]), u32 at byte 0.
    pub const TAIL: Field = Field { lsb: 0, width: 32 };
    /// Field: sequence number, starts at 1 after the pipe is enabled and counts
    /// every notification of this pipe. u32 at byte 4.
    pub const SEQ: Field = Field { lsb: 32, width: 32 };
    /// Field: the pipe this notification is for. u32 at byte 8.
    pub const PIPE: Field = Field { lsb: 64, width: 32 };
    /// Field: the record's number in its buffer plus one (1 for the first
    /// record after the buffer is switched on; wraps at 2^32), so a slot
    /// holds a new record when its COUNT is the one software expects next
    /// (0 means never written). u32 at byte 12.
    pub const COUNT: Field = Field { lsb: 96, width: 32 };

    /// A bit field inside a record.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Field {
        /// Least significant bit, counted from bit 0 of byte 0.
        pub lsb: usize,
        /// Width in bits.
        pub width: usize,
    }

    impl Field {
        /// Reads the field from a little-endian record (at most 64 bits).
        ///
        /// Byte by byte, not bit by bit: the driver reads four fields of every
        /// notification and completion record it polls, and a loop over 32
        /// bits each was most of its cost per packet (the `driver` bench).
        /// With the field a constant, this folds to one load (`inline`, so
        /// it can across crates).
        #[inline]
        pub fn read(&self, rec: &[u8]) -> u64 {
            debug_assert!(self.width <= 64, "a field of at most 64 bits");
            let bytes = &rec[self.lsb / 8..(self.lsb + self.width).div_ceil(8)];
            let mut v = 0u128;
            for (k, b) in bytes.iter().enumerate() {
                v |= (*b as u128) << (8 * k);
            }
            let v = (v >> (self.lsb % 8)) as u64;
            match self.width {
                64 => v,
                w => v & ((1u64 << w) - 1),
            }
        }

        /// Writes `v` into the field of a little-endian record: its low
        /// `width` bits, as whole bytes (every field of the records written
        /// whole, the ring header's and the stamp's, is whole bytes).
        #[inline]
        pub fn write(&self, rec: &mut [u8], v: u64) {
            debug_assert!(
                self.lsb % 8 == 0 && self.width % 8 == 0 && self.width <= 64,
                "a field of whole bytes"
            );
            let (at, n) = (self.lsb / 8, self.width / 8);
            rec[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }

    /// A record's fields as a Markdown table for the README: `fields` are
    /// (name, field, meaning) in byte order.
    pub fn markdown(fields: &[(&str, Field, &str)]) -> String {
        let mut s = String::from("| bytes | field | meaning |\n|---|---|---|\n");
        for (name, f, meaning) in fields {
            let (a, b) = (f.lsb / 8, (f.lsb + f.width).div_ceil(8));
            s += &format!("| {a}..{b} | {name} | {meaning} |\n");
        }
        s
    }

    /// The notification record, for the README.
    pub fn record_markdown() -> String {
        markdown(&[
            ("TAIL", TAIL, "the pipe's new tail: the data ring's 16-byte unit after its last entry (u32)"),
            ("SEQ", SEQ, "this pipe's notification count: 1 for the first after the pipe is enabled (u32)"),
            ("PIPE", PIPE, "the pipe it announces (u32)"),
            ("COUNT", COUNT, "the record's number in its buffer plus one (wraps at 2^32; 0: never written): software waits for the COUNT it expects next in the slot it expects it"),
        ])
    }

    #[cfg(test)]
    mod tests {
        use super::Field;

        #[test]
        fn readme_record_is_current() {
            crate::check_readme_section(
                "<!-- notification record begin -->\n",
                "<!-- notification record end -->",
                &super::record_markdown(),
            );
        }

        /// The bit-by-bit definition of a field's value.
        fn reference(f: &Field, rec: &[u8]) -> u64 {
            (0..f.width)
                .filter(|i| rec[(f.lsb + i) / 8] >> ((f.lsb + i) % 8) & 1 == 1)
                .fold(0, |v, i| v | 1 << i)
        }

        #[test]
        fn read_agrees_with_the_bit_by_bit_definition_at_any_offset_and_width() {
            let rec: Vec<u8> = (0..20u32).map(|k| (k * 0x9D + 0x35) as u8).collect();
            for lsb in 0..80 {
                for width in 0..=64 {
                    let f = Field { lsb, width };
                    assert_eq!(f.read(&rec), reference(&f, &rec), "lsb {lsb} width {width}");
                }
            }
        }
    }
}

/// The TX completion record: written by the NIC into a TX pipe's completion
/// record (one record, rewritten in place) when its TX head moves. Same shape
/// as a notification: the HEAD field sits where a notification has its TAIL.
pub mod tx_compl {
    pub use super::notif::{Field, BYTES, COUNT, PIPE, SEQ};
    /// Field: the NIC's new TX head (a 16-byte unit), u32 at byte 0.
    pub const HEAD: Field = super::notif::TAIL;

    /// The completion record, for the README.
    pub fn record_markdown() -> String {
        super::notif::markdown(&[
            ("HEAD", HEAD, "the NIC's TX head: the ring's 16-byte unit after the last entry it has read; software may reuse every unit before it (u32)"),
            ("SEQ", SEQ, "this pipe's completion count: 1 for the first after the pipe is enabled (u32)"),
            ("PIPE", PIPE, "the TX pipe (u32)"),
            ("COUNT", COUNT, "the record's number plus one in the pipe's one-record completion buffer, which counts the records written like SEQ (u32)"),
        ])
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn readme_record_is_current() {
            crate::check_readme_section(
                "<!-- completion record begin -->\n",
                "<!-- completion record end -->",
                &super::record_markdown(),
            );
        }
    }
}

/// TX stamps: the cycle a frame's first beat left for the MAC, written back
/// per frame that asks for one (FLAGS bit [`ring::tx_flags::STAMP`], on a
/// TX pipe whose TX_CTRL has [`pipe::TX_CTRL_STAMPS`]).
///
/// A stamp cannot ride the completion record: HEAD moves when the NIC has
/// *read* an entry, before its frame leaves, and one record covers many
/// entries. So each ring unit has a 16-byte stamp slot of its own, after
/// the completion record: the stamp of the entry that starts at unit `u` is
/// written at `TX_COMPL_BASE + `[`offset`]`(u)`, one DMA write of 16 bytes
/// with DONE 1, and the completion area of a pipe with stamps is
/// [`area_bytes`]`(TX_RING_BYTES)` long. Software clears DONE before it
/// posts the entry and reads the stamp once DONE is 1, and does not reuse
/// the entry's units before then (the stamp may come after HEAD has passed
/// them). An entry the NIC drops (TX_DROPS) gets no stamp.
pub mod tx_stamp {
    pub use super::notif::Field;
    /// Bytes of a stamp record (one DMA write with 16 byte enables).
    pub const BYTES: usize = 16;
    /// Field: the NIC's CYCLES in the cycle the frame's first beat left the
    /// core for the MAC, u64 at byte 0.
    pub const CYCLES: Field = Field { lsb: 0, width: 64 };
    /// Field: the entry's first unit in the TX ring, u32 at byte 8.
    pub const ENTRY: Field = Field { lsb: 64, width: 32 };
    /// Field: the frame's LEN, u16 at byte 12.
    pub const LEN: Field = Field { lsb: 96, width: 16 };
    /// Field: 1 once the NIC has written the record, u16 at byte 14.
    pub const DONE: Field = Field {
        lsb: 112,
        width: 16,
    };

    /// Where the stamp of the entry at ring unit `unit` is written, from
    /// TX_COMPL_BASE: after the completion record, one slot per unit.
    pub const fn offset(unit: u32) -> u64 {
        (super::tx_compl::BYTES as u64) + BYTES as u64 * unit as u64
    }

    /// Bytes of the completion area of a pipe with stamps: the completion
    /// record and a slot per unit of its ring of `ring_bytes`.
    pub const fn area_bytes(ring_bytes: u32) -> usize {
        super::tx_compl::BYTES + BYTES * (ring_bytes as usize / super::ring::UNIT_BYTES)
    }

    /// The record the NIC writes for a frame of `len` bytes whose entry
    /// starts at `entry` and whose first beat left at `cycles`, with DONE
    /// `done` (1 as the NIC writes it; tests write others).
    pub fn record(cycles: u64, entry: u32, len: u16, done: u16) -> [u8; BYTES] {
        let mut rec = [0u8; BYTES];
        CYCLES.write(&mut rec, cycles);
        ENTRY.write(&mut rec, entry.into());
        LEN.write(&mut rec, len.into());
        DONE.write(&mut rec, done.into());
        rec
    }

    /// The stamp record, for the README.
    pub fn record_markdown() -> String {
        super::notif::markdown(&[
            ("CYCLES", CYCLES, "the NIC's CYCLES counter in the cycle the frame's first beat left the core for the MAC (u64)"),
            ("ENTRY", ENTRY, "the entry's first 16-byte unit in the TX ring (u32)"),
            ("LEN", LEN, "the entry's LEN (u16)"),
            ("DONE", DONE, "1: written (software clears it before it posts the entry) (u16)"),
        ])
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn slots_follow_the_record_and_fill_the_area() {
            assert_eq!(offset(0), 16);
            assert_eq!(offset(1), 32);
            let units = 4096 / crate::ring::UNIT_BYTES as u32;
            assert_eq!(offset(units - 1) as usize + BYTES, area_bytes(4096));
            // 16-byte slots at a 16-byte aligned base never cross a 64-byte line.
            assert_eq!(crate::pipe::NOTIF_ALIGN as usize % BYTES, 0);
        }

        #[test]
        fn fields_fill_the_record_once() {
            let mut bits = 0u128;
            for f in [CYCLES, ENTRY, LEN, DONE] {
                let m = ((1u128 << f.width) - 1) << f.lsb;
                assert_eq!(bits & m, 0, "{f:?} overlaps");
                bits |= m;
            }
            assert_eq!(bits, u128::MAX);
        }

        #[test]
        fn a_record_reads_back_field_by_field() {
            let rec = record(0x0102_0304_0506_0708, 0x1_FFFF, 9728, 1);
            assert_eq!(CYCLES.read(&rec), 0x0102_0304_0506_0708);
            assert_eq!(ENTRY.read(&rec), 0x1_FFFF);
            assert_eq!(LEN.read(&rec), 9728);
            assert_eq!(DONE.read(&rec), 1);
        }

        #[test]
        fn readme_record_is_current() {
            crate::check_readme_section(
                "<!-- tx stamp record begin -->\n",
                "<!-- tx stamp record end -->",
                &super::record_markdown(),
            );
        }
    }
}

/// Checks that the README section between two markers holds `table`
/// (generated from this crate); with PENDULUM_BLESS set, rewrites it.
#[cfg(test)]
pub(crate) fn check_readme_section(begin: &str, end: &str, table: &str) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let a = readme
        .find(begin)
        .unwrap_or_else(|| panic!("README has no `{begin}`"))
        + begin.len();
    let b = readme
        .find(end)
        .unwrap_or_else(|| panic!("README has no `{end}`"));
    if std::env::var_os("PENDULUM_BLESS").is_some() {
        std::fs::write(path, format!("{}{}{}", &readme[..a], table, &readme[b..])).unwrap();
    } else {
        assert_eq!(
            &readme[a..b],
            table,
            "README section {begin} is stale: run PENDULUM_BLESS=1 cargo test -p pendulum-layout"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_reads_as_pndl() {
        assert_eq!(&IDENTITY.to_le_bytes(), b"PNDL");
    }

    #[test]
    fn notif_fields_fit_the_record_and_do_not_overlap() {
        let fields = [notif::TAIL, notif::SEQ, notif::PIPE, notif::COUNT];
        for f in fields {
            assert!(f.lsb + f.width <= notif::BYTES * 8);
        }
        for (i, a) in fields.iter().enumerate() {
            for b in &fields[i + 1..] {
                assert!(a.lsb + a.width <= b.lsb || b.lsb + b.width <= a.lsb);
            }
        }
    }

    #[test]
    fn ring_limits_are_powers_of_two_and_fit_the_position_register() {
        use params::*;
        assert!(RING_MIN_BYTES.is_power_of_two() && RING_MAX_BYTES.is_power_of_two());
        // The largest position of the largest ring fits the register.
        assert!((RING_MAX_BYTES as usize / ring::UNIT_BYTES - 1) < (1 << SLOT_BITS));
        assert_eq!(1 << PIPE_BITS, PIPES);
        assert_eq!(1 << TX_PIPE_BITS, TX_PIPES);
        const { assert!(TX_PIPES <= PIPES && TX_PIPE_BITS <= 8) };
        assert_eq!(1 << NOTIF_BUF_BITS, NOTIF_BUFS);
        const { assert!(NOTIF_BUFS <= PIPES) };
        assert!(
            TX_COMPL_UNITS.is_power_of_two()
                && TX_COMPL_UNITS <= RING_MIN_BYTES / ring::UNIT_BYTES as u32
        );
    }

    #[test]
    fn dma_requests_can_be_split_at_the_4k_boundary() {
        use params::*;
        // A full read, a 256-byte write block and a ring each fit a whole
        // number of times between two boundaries, so splitting at one never
        // leaves a request that is not whole beats.
        assert!(DMA_BOUNDARY_BYTES.is_power_of_two());
        assert_eq!(DMA_BOUNDARY_BYTES % DMA_READ_MAX_BYTES, 0);
        assert_eq!(DMA_BOUNDARY_BYTES % 256, 0);
        assert_eq!(DMA_BOUNDARY_BYTES as usize % BEAT_BYTES, 0);
        const { assert!(RING_MIN_BYTES >= DMA_BOUNDARY_BYTES) };
    }
}
