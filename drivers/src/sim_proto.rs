//! The wire protocol between [`SimClientCard`](crate::SimClientCard) and the
//! simulator process (`pendulum-sim serve` in `pendulum-testbench`), defined
//! once here so both ends use the same encoding.
//!
//! Register access, DMA allocation and time go over a Unix stream socket, one
//! request and one reply at a time. DMA memory does not: it is a file both
//! processes map (host memory), so frames are never copied through the socket.
//!
//! Framing: every message is a little-endian `u32` body length, then the
//! body. A request body is one opcode byte and its fields; a reply body is a
//! status byte ([`OK`] or [`ERR`]) and the fields, or, for [`ERR`], a UTF-8
//! message. Integers are little-endian. Hand-written because it is a dozen
//! fixed-size messages: a serialisation crate would add more than it saves.

use std::io::{self, Read, Write};

/// Bumped whenever a message changes; the client checks it in [`Request::Hello`].
pub const PROTO_VERSION: u32 = 1;
/// Reply status: success, fields follow.
pub const OK: u8 = 0;
/// Reply status: failure, a UTF-8 message follows.
pub const ERR: u8 = 1;
/// Largest message body accepted (a batch of frames for `EthSend`).
pub const MAX_BODY_BYTES: usize = 64 << 20;

/// What a client asks of the simulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// First request on a connection. Reply: [`Hello`].
    Hello { proto: u32 },
    /// Reply: `u32` value. Simulated time runs until the read completes.
    Read32 { offset: u32 },
    /// Posted register write. Reply: empty.
    Write32 { offset: u32, value: u32 },
    /// Reply: [`Alloc`].
    AllocDma { len: u64, kind: u8, mirrored: bool },
    /// Advance simulated time by `cycles` (0: the server's polling interval). Reply: empty.
    Relax { cycles: u64 },
    /// Reply: `u64` cycles simulated so far.
    Cycle,
    /// Queue frames on the MAC's RX side (into the NIC). Tests and tools only. Reply: empty.
    EthSend { frames: Vec<Vec<u8>> },
    /// Take the frames the NIC sent on its Ethernet TX port so far. Reply: frames.
    EthTxTake,
    /// Run until the MAC side is idle and the PCIe link quiet, at most `max_cycles`. Reply: `u8` drained.
    Drain { max_cycles: u64 },
    /// Stop the server after replying. Reply: empty.
    Shutdown,
    /// Reset the card as a board's PCIe reset does: the core's reset held
    /// `hold_cycles` cycles (at least 1), with the PCIe link and the MAC
    /// (what was in flight is dropped). Tests and tools only. Reply: empty.
    Reset { hold_cycles: u64 },
}

/// Reply to [`Request::Hello`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub proto: u32,
    /// Process id of the simulator, for messages.
    pub pid: u32,
    /// Size of the host-memory file in bytes.
    pub mem_bytes: u64,
    /// Path of the host-memory file the client maps.
    pub mem_path: String,
}

/// Reply to [`Request::AllocDma`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    /// Bus address the NIC uses.
    pub iova: u64,
    /// Where the region's bytes start in the host-memory file.
    pub file_offset: u64,
    /// Bytes of the view (`2 * len` for a mirrored region).
    pub view_bytes: u64,
}

mod op {
    pub const HELLO: u8 = 1;
    pub const READ32: u8 = 2;
    pub const WRITE32: u8 = 3;
    pub const ALLOC: u8 = 4;
    pub const RELAX: u8 = 5;
    pub const CYCLE: u8 = 6;
    pub const ETH_SEND: u8 = 7;
    pub const ETH_TX_TAKE: u8 = 8;
    pub const DRAIN: u8 = 9;
    pub const SHUTDOWN: u8 = 10;
    pub const RESET: u8 = 11;
}

/// Reads fields from a message body; every read is bounds-checked, so a
/// short or malformed message is an error, never a panic.
pub struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub fn new(body: &'a [u8]) -> Self {
        Self { rest: body }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.rest.len() < n {
            return Err(format!(
                "message too short: {} bytes left, {n} needed",
                self.rest.len()
            ));
        }
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, String> {
        let lo = self.u32()? as u64;
        let hi = self.u32()? as u64;
        Ok(hi << 32 | lo)
    }

    /// A `u32` length, then that many bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// Whatever is left, as UTF-8.
    pub fn rest_str(&mut self) -> String {
        let s = String::from_utf8_lossy(self.rest).into_owned();
        self.rest = &[];
        s
    }

    /// A list: `u32` count, then each item as [`bytes`](Self::bytes).
    pub fn frames(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let n = self.u32()? as usize;
        let mut out = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            out.push(self.bytes()?.to_vec());
        }
        Ok(out)
    }
}

/// Appends fields to a message body.
#[derive(Default)]
pub struct Body(pub Vec<u8>);

impl Body {
    pub fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(mut self, b: &[u8]) -> Self {
        self = self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
        self
    }
    pub fn str(mut self, s: &str) -> Self {
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    pub fn frames<F: AsRef<[u8]>>(mut self, frames: &[F]) -> Self {
        self = self.u32(frames.len() as u32);
        for f in frames {
            self = self.bytes(f.as_ref());
        }
        self
    }
}

impl Request {
    pub fn encode(&self) -> Vec<u8> {
        let b = Body::default();
        match self {
            Request::Hello { proto } => b.u8(op::HELLO).u32(*proto),
            Request::Read32 { offset } => b.u8(op::READ32).u32(*offset),
            Request::Write32 { offset, value } => b.u8(op::WRITE32).u32(*offset).u32(*value),
            Request::AllocDma {
                len,
                kind,
                mirrored,
            } => b.u8(op::ALLOC).u64(*len).u8(*kind).u8(*mirrored as u8),
            Request::Relax { cycles } => b.u8(op::RELAX).u64(*cycles),
            Request::Cycle => b.u8(op::CYCLE),
            Request::EthSend { frames } => b.u8(op::ETH_SEND).frames(frames),
            Request::EthTxTake => b.u8(op::ETH_TX_TAKE),
            Request::Drain { max_cycles } => b.u8(op::DRAIN).u64(*max_cycles),
            Request::Shutdown => b.u8(op::SHUTDOWN),
            Request::Reset { hold_cycles } => b.u8(op::RESET).u64(*hold_cycles),
        }
        .0
    }

    pub fn decode(body: &[u8]) -> Result<Self, String> {
        let mut f = Fields::new(body);
        Ok(match f.u8()? {
            op::HELLO => Request::Hello { proto: f.u32()? },
            op::READ32 => Request::Read32 { offset: f.u32()? },
            op::WRITE32 => Request::Write32 {
                offset: f.u32()?,
                value: f.u32()?,
            },
            op::ALLOC => Request::AllocDma {
                len: f.u64()?,
                kind: f.u8()?,
                mirrored: f.u8()? != 0,
            },
            op::RELAX => Request::Relax { cycles: f.u64()? },
            op::CYCLE => Request::Cycle,
            op::ETH_SEND => Request::EthSend {
                frames: f.frames()?,
            },
            op::ETH_TX_TAKE => Request::EthTxTake,
            op::DRAIN => Request::Drain {
                max_cycles: f.u64()?,
            },
            op::SHUTDOWN => Request::Shutdown,
            op::RESET => Request::Reset {
                hold_cycles: f.u64()?,
            },
            other => return Err(format!("unknown request opcode {other}")),
        })
    }
}

/// Region kinds on the wire.
pub fn kind_code(kind: crate::RegionKind) -> u8 {
    match kind {
        crate::RegionKind::DataRing => 0,
        crate::RegionKind::Notification => 1,
        crate::RegionKind::Other => 2,
    }
}

/// The inverse of [`kind_code`]; unknown codes are `Other`.
pub fn kind_from_code(code: u8) -> crate::RegionKind {
    match code {
        0 => crate::RegionKind::DataRing,
        1 => crate::RegionKind::Notification,
        _ => crate::RegionKind::Other,
    }
}

/// Writes one message (length, then body).
pub fn write_msg(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(4 + body.len());
    buf.extend_from_slice(&(body.len() as u32).to_le_bytes());
    buf.extend_from_slice(body);
    w.write_all(&buf)?;
    w.flush()
}

/// Reads one message body. `Ok(None)` when the peer closed the connection
/// cleanly before a new message began.
pub fn read_msg(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let n = u32::from_le_bytes(len) as usize;
    if n > MAX_BODY_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("message of {n} bytes exceeds {MAX_BODY_BYTES}"),
        ));
    }
    let mut body = vec![0u8; n];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip() {
        let all = [
            Request::Hello {
                proto: PROTO_VERSION,
            },
            Request::Read32 { offset: 0x1024 },
            Request::Write32 {
                offset: 4,
                value: 0xdead_beef,
            },
            Request::AllocDma {
                len: 1 << 20,
                kind: 1,
                mirrored: true,
            },
            Request::Relax { cycles: 8 },
            Request::Cycle,
            Request::EthSend {
                frames: vec![vec![1, 2, 3], vec![], vec![9; 1500]],
            },
            Request::EthTxTake,
            Request::Drain {
                max_cycles: 1_000_000,
            },
            Request::Shutdown,
            Request::Reset { hold_cycles: 16 },
        ];
        for r in all {
            assert_eq!(Request::decode(&r.encode()).unwrap(), r);
        }
    }

    #[test]
    fn malformed_requests_are_errors() {
        assert!(Request::decode(&[]).is_err());
        assert!(Request::decode(&[op::READ32, 1]).is_err());
        assert!(Request::decode(&[200]).is_err());
        assert!(Request::decode(&Body::default().u8(op::ETH_SEND).u32(1).u32(10).0).is_err());
    }

    #[test]
    fn messages_frame_and_detect_eof() {
        let mut buf = Vec::new();
        write_msg(&mut buf, b"hello").unwrap();
        let mut r = &buf[..];
        assert_eq!(read_msg(&mut r).unwrap().unwrap(), b"hello");
        assert!(read_msg(&mut r).unwrap().is_none());
        let mut cut = &buf[..6];
        assert!(read_msg(&mut cut).is_err());
    }
}
