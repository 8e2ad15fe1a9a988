//! Frames found in the NIC's stream of DMA writes, for benches that time
//! when a frame lands in host memory (a `NicSim::dma_tap` sees each write
//! beat as it is accepted).
//!
//! Ring entries start on any 16-byte unit (`pendulum_layout::ring`), so a
//! frame may start in the middle of one write and end in the next, and its
//! header may sit at the end of the line before. The driver's ring walk
//! needs the ring's position, which a tap does not have; this reassembler
//! needs none: it keeps every line written, and takes a unit as a frame's
//! start when the unit before it reads as an entry header (LEN from 1 to
//! the MTU, reserved flag bits clear) and the frame's first byte is the one
//! the caller names (a message kind). Payload bytes could pass for such a
//! pair; the benches check what they find (an ACP payload's id, a verb
//! result's kind), and a bench's frames are all of the kind it names.

use pendulum_layout::params::MAX_FRAME_BYTES;
use pendulum_layout::ring::{flags, FLAGS, HEADER_BYTES, LEN, UNIT_BYTES};
use std::collections::HashMap;

const LINE: u64 = 64;
const UNITS: usize = 64 / UNIT_BYTES;

/// Reassembles frames from DMA write beats (see the module comment).
pub struct EntryTap {
    first_byte: u8,
    /// Every line written: its bytes, and which of them were written.
    lines: HashMap<u64, ([u8; 64], u64)>,
    /// Frames begun and not yet whole, by the line address they need next:
    /// the bytes so far and the frame's length.
    open: HashMap<u64, (Vec<u8>, usize)>,
}

impl EntryTap {
    /// A tap for frames whose first byte is `first_byte`.
    pub fn new(first_byte: u8) -> Self {
        Self {
            first_byte,
            lines: HashMap::new(),
            open: HashMap::new(),
        }
    }

    /// Takes one write beat (64-byte aligned `addr`, byte enables `strb`)
    /// and returns the frames it completes, whole.
    pub fn write(&mut self, addr: u64, data: &[u8; 64], strb: u64) -> Vec<Vec<u8>> {
        let line = {
            let (bytes, mask) = self.lines.entry(addr).or_insert(([0; 64], 0));
            for (i, b) in data.iter().enumerate() {
                if strb >> i & 1 == 1 {
                    bytes[i] = *b;
                }
            }
            *mask |= strb;
            *bytes
        };
        let mut done = Vec::new();
        // A frame begun in the line before goes on from byte 0.
        if let Some((mut bytes, len)) = self.open.remove(&addr) {
            let take = (len - bytes.len()).min(64);
            bytes.extend_from_slice(&line[..take]);
            self.finish(addr, bytes, len, &mut done);
        }
        for u in 0..UNITS {
            let at = u * UNIT_BYTES;
            if strb >> at & 1 == 0 || line[at] != self.first_byte {
                continue;
            }
            let Some(len) = self.header_before(addr, u, &line) else {
                continue;
            };
            let take = len.min(64 - at);
            self.finish(addr, line[at..at + take].to_vec(), len, &mut done);
        }
        done
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
        let ok = (1..=MAX_FRAME_BYTES as usize).contains(&len)
            && FLAGS.read(&unit) as u16 & flags::RESERVED == 0;
        ok.then_some(len)
    }

    fn finish(&mut self, addr: u64, bytes: Vec<u8>, len: usize, done: &mut Vec<Vec<u8>>) {
        if bytes.len() == len {
            done.push(bytes);
        } else {
            self.open.insert(addr + LINE, (bytes, len));
        }
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
        let mut tap = EntryTap::new(0xA5);
        let mut got = Vec::new();
        for (n, chunk) in ring[..at.next_multiple_of(64)].chunks(64).enumerate() {
            let line: [u8; 64] = chunk.try_into().unwrap();
            let valid = (at - n * 64).min(64);
            let strb = if valid == 64 {
                u64::MAX
            } else {
                (1 << valid) - 1
            };
            got.extend(tap.write(0x1000 + 64 * n as u64, &line, strb));
        }
        assert_eq!(got, frames);
    }
}
