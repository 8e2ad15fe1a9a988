//! The simulated card in another process: `pendulum-sim serve` runs the
//! Verilated NIC and this [`Card`] talks to it over a Unix socket, with host
//! memory in a file both processes map.
//!
//! The simulator is driven by its client: simulated time advances only while
//! a register read completes or [`Card::relax`] asks for it, so what the
//! application sees is the same, cycle for cycle, as with the in-process card.
//! One client at a time; the card keeps its state between clients, as a real
//! one does.

use crate::sim_proto::{self as proto, Alloc, Fields, Hello, Request};
use crate::sys::SharedMem;
use crate::{Card, DmaRegion, DmaView, DmaViewMut, Error, EthernetPort, RegionKind, Result};
use std::fs::OpenOptions;
use std::io;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one request may take before the simulator is declared hung.
/// `PENDULUM_SIM_TIMEOUT_MS` overrides it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A simulated card served by `pendulum-sim serve` in another process.
pub struct SimClientCard {
    stream: UnixStream,
    socket: PathBuf,
    hello: Hello,
    mem: SharedMem,
    /// Per region: offset in the host-memory file and bytes of the view.
    regions: Vec<(usize, usize)>,
    /// Set once the connection broke; every later request fails with it.
    dead: Option<String>,
    /// Cycles per `relax` (0: the server's polling interval).
    relax_cycles: u64,
}

impl SimClientCard {
    /// Connects to the simulator listening on `socket` and maps its host memory.
    pub fn connect(socket: impl AsRef<Path>) -> Result<Self> {
        let socket = socket.as_ref().to_path_buf();
        let stream = UnixStream::connect(&socket).map_err(|e| {
            let why = match e.kind() {
                io::ErrorKind::NotFound => "no such socket".to_string(),
                io::ErrorKind::ConnectionRefused => "nothing listens there (a simulator that exited left it)".to_string(),
                _ => e.to_string(),
            };
            Error::SimConnect(format!(
                "cannot connect to the simulator at {}: {why}; start one with `pendulum-sim serve --socket {}`",
                socket.display(),
                socket.display()
            ))
        })?;
        let timeout = std::env::var("PENDULUM_SIM_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT);
        stream
            .set_read_timeout(Some(timeout))
            .map_err(|e| Error::SimConnect(e.to_string()))?;
        stream
            .set_write_timeout(Some(timeout))
            .map_err(|e| Error::SimConnect(e.to_string()))?;
        let mut raw = RawConn {
            stream,
            socket: socket.clone(),
            pid: None,
        };
        let body = raw.call(&Request::Hello {
            proto: proto::PROTO_VERSION,
        })?;
        let mut f = Fields::new(&body);
        let bad = |e: String| {
            Error::SimConnect(format!(
                "the simulator's greeting is malformed ({e}); is {} a pendulum-sim socket?",
                socket.display()
            ))
        };
        let proto_v = f.u32().map_err(bad)?;
        let pid = f.u32().map_err(bad)?;
        let mem_bytes = f.u64().map_err(bad)?;
        let mem_path = f.rest_str();
        if proto_v != proto::PROTO_VERSION {
            return Err(Error::SimConnect(format!(
                "the simulator speaks protocol {proto_v}, this driver {}: rebuild pendulum-sim and the application from the same tree",
                proto::PROTO_VERSION
            )));
        }
        let file = OpenOptions::new().read(true).write(true).open(&mem_path).map_err(|e| {
            Error::SimConnect(format!("cannot open the simulator's host memory {mem_path}: {e}; the simulator and the application must share a file system (and user)"))
        })?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len < mem_bytes {
            return Err(Error::SimConnect(format!(
                "host memory {mem_path} has {len} bytes, the simulator announced {mem_bytes}"
            )));
        }
        let mem = SharedMem::map(&file)
            .map_err(|e| Error::SimConnect(format!("cannot map {mem_path}: {e}")))?;
        Ok(Self {
            stream: raw.stream,
            socket,
            hello: Hello {
                proto: proto_v,
                pid,
                mem_bytes,
                mem_path,
            },
            mem,
            regions: Vec::new(),
            dead: None,
            relax_cycles: 0,
        })
    }

    /// Process id of the simulator.
    pub fn server_pid(&self) -> u32 {
        self.hello.pid
    }

    /// Path of the shared host-memory file.
    pub fn mem_path(&self) -> &str {
        &self.hello.mem_path
    }

    /// Cycles each `relax` advances; 0 (the default) uses the server's polling interval.
    pub fn set_relax_cycles(&mut self, cycles: u64) {
        self.relax_cycles = cycles;
    }

    /// Why the card stopped answering, if it did. `relax` cannot return an
    /// error, so a polling loop that only relaxes should check this.
    pub fn failure(&self) -> Option<&str> {
        self.dead.as_deref()
    }

    /// Fails with the card's failure if it has one.
    pub fn check(&self) -> Result<()> {
        match &self.dead {
            Some(why) => Err(Error::NoResponse(why.clone())),
            None => Ok(()),
        }
    }

    fn call(&mut self, req: &Request) -> Result<Vec<u8>> {
        self.check()?;
        let mut raw = RawConn {
            stream: self
                .stream
                .try_clone()
                .map_err(|e| Error::NoResponse(e.to_string()))?,
            socket: self.socket.clone(),
            pid: Some(self.hello.pid),
        };
        match raw.call(req) {
            Err(Error::NoResponse(why)) => {
                self.dead = Some(why.clone());
                let _ = self.stream.shutdown(std::net::Shutdown::Both);
                Err(Error::NoResponse(why))
            }
            other => other,
        }
    }

    /// Advances simulated time by `cycles`.
    pub fn run(&mut self, cycles: u64) -> Result<()> {
        self.call(&Request::Relax {
            cycles: cycles.max(1),
        })
        .map(drop)
    }

    /// Resets the simulated card (its core's reset held `hold_cycles`
    /// cycles, with the PCIe link and the MAC), as a PCIe reset does on a
    /// board. A `Device` open on it then reports [`crate::Error::CardReset`].
    pub fn reset_card(&mut self, hold_cycles: u64) -> Result<()> {
        self.call(&Request::Reset { hold_cycles }).map(drop)
    }

    /// Asks the simulator process to exit.
    pub fn shutdown(mut self) -> Result<()> {
        self.call(&Request::Shutdown).map(drop)
    }

    fn malformed(&mut self, e: String) -> Error {
        let why = format!(
            "malformed reply from the simulator at {} ({e})",
            self.socket.display()
        );
        self.dead = Some(why.clone());
        Error::NoResponse(why)
    }
}

/// One request/reply exchange on the socket, with the errors worded for the user.
struct RawConn {
    stream: UnixStream,
    socket: PathBuf,
    pid: Option<u32>,
}

impl RawConn {
    fn call(&mut self, req: &Request) -> Result<Vec<u8>> {
        let who = match self.pid {
            Some(pid) => format!("simulator process {pid} (socket {})", self.socket.display()),
            None => format!("simulator at {}", self.socket.display()),
        };
        let lost = |e: io::Error| {
            Error::NoResponse(match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => format!(
                    "{who} did not answer within the timeout (PENDULUM_SIM_TIMEOUT_MS); it may be hung: restart it"
                ),
                io::ErrorKind::UnexpectedEof | io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => {
                    format!("{who} exited (connection closed); restart `pendulum-sim serve` and reopen the card")
                }
                _ => format!("{who}: {e}; restart `pendulum-sim serve` and reopen the card"),
            })
        };
        proto::write_msg(&mut self.stream, &req.encode()).map_err(lost)?;
        let body = proto::read_msg(&mut self.stream)
            .map_err(lost)?
            .ok_or_else(|| lost(io::ErrorKind::UnexpectedEof.into()))?;
        match body.split_first() {
            Some((&proto::OK, rest)) => Ok(rest.to_vec()),
            Some((&proto::ERR, msg)) => {
                Err(Error::Simulator(String::from_utf8_lossy(msg).into_owned()))
            }
            _ => Err(Error::NoResponse(format!("{who} sent a malformed reply"))),
        }
    }
}

impl Card for SimClientCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        let body = self.call(&Request::Read32 { offset })?;
        Fields::new(&body).u32().map_err(|e| self.malformed(e))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.call(&Request::Write32 { offset, value }).map(drop)
    }

    fn alloc_dma(&mut self, len: usize, kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        let body = self.call(&Request::AllocDma {
            len: len as u64,
            kind: proto::kind_code(kind),
            mirrored,
        })?;
        let mut f = Fields::new(&body);
        let a = (|| -> std::result::Result<Alloc, String> {
            Ok(Alloc {
                iova: f.u64()?,
                file_offset: f.u64()?,
                view_bytes: f.u64()?,
            })
        })()
        .map_err(|e| self.malformed(e))?;
        let want_view = if mirrored { 2 * len } else { len };
        let (off, view) = (a.file_offset as usize, a.view_bytes as usize);
        if view != want_view
            || off
                .checked_add(view)
                .map_or(true, |end| end > self.mem.len())
        {
            return Err(Error::dma(format!(
                "the simulator placed a region of {view} bytes at offset {off} of a {}-byte host memory ({want_view} bytes asked): restart it",
                self.mem.len()
            )));
        }
        self.regions.push((off, view));
        Ok(DmaRegion {
            id: self.regions.len() - 1,
            iova: a.iova,
            len,
            mirrored,
        })
    }

    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        // The simulator writes the shared memory only while a request of
        // ours is in flight, which takes `&mut self` (see `SharedMem::map`).
        DmaView::from_slice(match self.regions.get(region.id) {
            Some(&(off, view)) => &self.mem.bytes()[off..off + view],
            None => &[],
        })
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        DmaViewMut::from_slice(match self.regions.get(region.id) {
            Some(&(off, view)) => &mut self.mem.bytes_mut()[off..off + view],
            None => &mut [],
        })
    }

    fn relax(&mut self) {
        // A failure is kept in `self.dead`: the next register access reports it.
        let _ = self.call(&Request::Relax {
            cycles: self.relax_cycles,
        });
    }
}

/// The server queues and takes the frames on its `NicSim`'s MAC models, as
/// the in-process card does (`EthSend`, `EthTxTake`, `Drain`, `Cycle`).
impl EthernetPort for SimClientCard {
    fn inject(&mut self, frames: &[Vec<u8>]) -> Result<()> {
        self.call(&Request::EthSend {
            frames: frames.to_vec(),
        })
        .map(drop)
    }

    fn collect(&mut self) -> Result<Vec<Vec<u8>>> {
        let body = self.call(&Request::EthTxTake)?;
        Fields::new(&body).frames().map_err(|e| self.malformed(e))
    }

    fn drain(&mut self, max_cycles: u64) -> Result<bool> {
        let body = self.call(&Request::Drain { max_cycles })?;
        Fields::new(&body)
            .u8()
            .map(|d| d != 0)
            .map_err(|e| self.malformed(e))
    }

    fn cycles(&mut self) -> Result<u64> {
        let body = self.call(&Request::Cycle)?;
        Fields::new(&body).u64().map_err(|e| self.malformed(e))
    }
}
