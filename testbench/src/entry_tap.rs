//! Frames found in the NIC's stream of DMA writes, for benches that time
//! when a frame lands in host memory (a `NicSim::dma_tap` sees each write
//! beat as it is accepted).
//!
//! Ring entries start on any 16-byte unit (`pendulum_layout::ring`), so a
//! frame may start in the middle of one write and end in the next, and its
//! header may sit at the end of the line before. The driver's ring walk
//! needs the ring's position, which a tap does not have; this reassembler
//! needs none: it keeps every line written, and takes a unit as a frame's
//! start when the unit before it reads as an entry header (LEN one of the
//! lengths the caller names, reserved flag bits clear) and the frame's
//! first byte is the one the caller names (a message kind). Other bytes
//! could pass for such a pair (a notification record's tail reads as a
//! LEN); the exact lengths make that unlikely, and the benches check what
//! they find where they can (an ACP payload's id). An entry that wraps
//! past the ring's end is not followed (the tap does not know the ring).

use pendulum_layout::ring::{flags, FLAGS, HEADER_BYTES, LEN, UNIT_BYTES};
use std::collections::HashMap;

const LINE: u64 = 64;
const UNITS: usize = 64 / UNIT_BYTES;

/// Reassembles frames from DMA write beats (see the module comment).
pub struct EntryTap {
    first_byte: u8,
    lens: Vec<usize>,
    /// Every line written: its bytes, and which of them were written.
    lines: HashMap<u64, ([u8; 64], u64)>,
    /// Frames begun and not yet whole, by the line address they need next:
    /// the bytes so far, the frame's length, and the byte of that line
    /// they go on from (a line may be written in parts).
    open: HashMap<u64, (Vec<u8>, usize, usize)>,
}

impl EntryTap {
    /// A tap for frames whose first byte is `first_byte` and whose length
    /// is one of `lens`.
    pub fn new(first_byte: u8, lens: &[usize]) -> Self {
        Self {
            first_byte,
            lens: lens.to_vec(),
            lines: HashMap::new(),
            open: HashMap::new(),
        }
    }

    /// Takes one write beat (64-byte aligned `addr`, byte enables `strb`)
    /// and returns the frames it completes, whole.
    pub fn write(&mut self, addr: u64, data: &[u8; 64], strb: u64) -> Vec<Vec<u8>> {
        let (line, mask) = {
            let (bytes, mask) = self.lines.entry(addr).or_insert(([0; 64], 0));
            for (i, b) in data.iter().enumerate() {
                if strb >> i & 1 == 1 {
                    bytes[i] = *b;
                }
            }
            *mask |= strb;
            (*bytes, *mask)
        };
        let mut done = Vec::new();
        // A frame begun earlier goes on where it stopped.
        if let Some((bytes, len, from)) = self.open.remove(&addr) {
            self.take(addr, &line, mask, bytes, len, from, &mut done);
        }
        for u in 0..UNITS {
            let at = u * UNIT_BYTES;
            if strb >> at & 1 == 0 || line[at] != self.first_byte {
                continue;
            }
            if let Some(len) = self.header_before(addr, u, &line) {
                self.take(addr, &line, mask, Vec::new(), len, at, &mut done);
            }
        }
        done
    }

    /// Adds to a frame's `bytes` what the line at `addr` holds of it from
    /// byte `from` on (as far as it is written), and completes it or leaves
    /// it open where it stopped.
    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        addr: u64,
        line: &[u8; 64],
        mask: u64,
        mut bytes: Vec<u8>,
        len: usize,
        from: usize,
        done: &mut Vec<Vec<u8>>,
    ) {
        let mut i = from;
        while i < 64 && bytes.len() < len && mask >> i & 1 == 1 {
            bytes.push(line[i]);
            i += 1;
        }
        if bytes.len() == len {
            done.push(bytes);
        } else if i == 64 {
            self.open.insert(addr + LINE, (bytes, len, 0));
        } else {
            self.open.insert(addr, (bytes, len, i));
        }
    }

    /// The frame length in the header unit before unit `u` of the line at
    /// `addr`, if that unit was written and reads as a header.
    fn header_before(&self, addr: u64, u: usize, line: &[u8; 64]) -> Option<usize> {
        let unit: [u8; HEADER_BYTES] = if u > 0 {
            line[(u - 1) * UNIT_BYTES..u * UNIT_BYTES]
                .try_into()
                .unwrap()
        } else {
            let (prev, mask) = self.lines.get(&addr.checked_sub(LINE)?)?;
            let last = 64 - UNIT_BYTES;
            if mask >> last & 0xFFFF != 0xFFFF {
                return None;
            }
            prev[last..].try_into().unwrap()
        };
        let len = LEN.read(&unit) as usize;
        let ok = self.lens.contains(&len) && FLAGS.read(&unit) as u16 & flags::RESERVED == 0;
        ok.then_some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::ring::{write_entry, EntryHeader};

    /// Entries written back to back into a ring image, then replayed as
    /// line writes with byte enables for the bytes each line holds: every
    /// frame comes out whole, once, whatever unit it starts on.
    #[test]
    fn frames_at_every_unit_offset_come_out_whole() {
        let frames: Vec<Vec<u8>> = (0..12u8)
            .map(|i| {
                let mut f = vec![0xA5; 60 + 7 * i as usize];
                f[1] = i;
                f
            })
            .collect();
        let mut ring = vec![0u8; 4096];
        let mut unit = 0u32;
        for f in &frames {
            let header = EntryHeader {
                len: f.len() as u16,
                flags: 0,
                hash: 7,
                timestamp: 9,
            };
            unit = write_entry(&mut ring, unit, &header, f);
        }
        let at = unit as usize * UNIT_BYTES;
        // Each line whole, or in two writes (a line written in parts, as
        // the packer writes a partly filled line and then the rest of it).
        for split in [64, 32, 16] {
            let lens: Vec<usize> = frames.iter().map(Vec::len).collect();
            let mut tap = EntryTap::new(0xA5, &lens);
            let mut got = Vec::new();
            for (n, chunk) in ring[..at.next_multiple_of(64)].chunks(64).enumerate() {
                let line: [u8; 64] = chunk.try_into().unwrap();
                let valid = (at - n * 64).min(64);
                let strb = if valid == 64 {
                    u64::MAX
                } else {
                    (1 << valid) - 1
                };
                let low = if split == 64 {
                    u64::MAX
                } else {
                    (1 << split) - 1
                };
                let addr = 0x1000 + 64 * n as u64;
                got.extend(tap.write(addr, &line, strb & low));
                if strb & !low != 0 {
                    got.extend(tap.write(addr, &line, strb & !low));
                }
            }
            assert_eq!(got, frames, "lines written in parts of {split} bytes");
        }
    }
}
