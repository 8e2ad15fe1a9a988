//! `pendulum-sim serve`: the Verilated NIC as its own process, exposed the
//! way a device is. Host memory is a file the application maps (the NIC's
//! DMA lands there, and frames to send are read from there); register access,
//! DMA allocation and time go over a Unix socket, in the protocol of
//! [`pendulum_driver::sim_proto`]. The driver's card for it is
//! [`pendulum_driver::SimClientCard`], opened as `sim:/path/to/socket`.
//!
//! The server is driven by its client: simulated time advances only while it
//! serves a register read (a PCIe round trip), a `relax`, or a `drain`, just
//! as the in-process [`SimCard`](crate::SimCard) does, so runs are the same
//! cycle for cycle. One client at a time; the card keeps its state (pipes,
//! counters, memory) from one client to the next, like a real card.

use crate::models::{HostMemory, RegionKind as MemKind};
use crate::{NicSim, SimConfig};
use pendulum_driver::sim_proto::{self as proto, Body, Request};
use pendulum_driver::{EthernetPort, RegionKind};
use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Unix socket to listen on.
    pub socket: PathBuf,
    /// Host-memory file to create (truncated); the application maps it.
    pub mem: PathBuf,
    /// Size of host memory in bytes.
    pub mem_bytes: u64,
    pub sim: SimConfig,
    /// On SIGINT and SIGTERM, remove the socket and host memory and end the
    /// process. For a process that is only the simulator (`pendulum-sim`):
    /// it takes those signals for the whole process.
    pub stop_on_signals: bool,
}

impl ServeOptions {
    /// Host memory in `/dev/shm` (RAM) when it exists, else the temp dir,
    /// named after this process: `pendulum-sim-<pid>.mem`.
    pub fn default_mem_path() -> PathBuf {
        default_mem_dir().join(format!("{MEM_PREFIX}{}{MEM_SUFFIX}", std::process::id()))
    }

    /// Removes the socket and the host-memory file: what [`serve`] leaves
    /// behind when it is stopped. Files already gone are not an error.
    pub fn remove_files(&self) {
        let _ = std::fs::remove_file(&self.socket);
        let _ = std::fs::remove_file(&self.mem);
    }
}

const MEM_PREFIX: &str = "pendulum-sim-";
const MEM_SUFFIX: &str = ".mem";

fn default_mem_dir() -> PathBuf {
    let dir = PathBuf::from("/dev/shm");
    if dir.is_dir() {
        dir
    } else {
        std::env::temp_dir()
    }
}

/// Removes host-memory files at the default path whose simulator is no
/// longer running (killed with SIGKILL, or before it could clean up): they
/// hold RAM in `/dev/shm` until the next boot. The pid in the name tells
/// whose a file is; a file whose pid runs (a live simulator, or a pid since
/// reused) is left alone. Without `/proc`, nothing can be told: nothing is
/// removed.
fn remove_stale_default_mem_files() {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(default_mem_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(MEM_PREFIX))
            .and_then(|n| n.strip_suffix(MEM_SUFFIX))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            // Another user's file in a sticky /dev/shm is not ours to remove.
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// On SIGINT or SIGTERM, removes `opts`' files and ends the process as the
/// signal would have. For the process that is the simulator
/// ([`ServeOptions::stop_on_signals`]): the serving loop waits in blocking
/// reads, so a thread of its own takes the signals.
fn remove_files_on_signals(opts: &ServeOptions) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let opts = opts.clone();
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            opts.remove_files();
            // Ends the process with the signal's own status (killed by it).
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}

/// Default host memory: room for every pipe's RX and TX rings at 2 MiB, mirrored.
pub const DEFAULT_MEM_BYTES: u64 = 64 << 20;

/// Creates host memory and the socket, then serves clients one after another
/// until one sends `Shutdown`. `ready` is called once the socket accepts.
///
/// Files a killed simulator left behind do not stop it: a socket nobody
/// listens on is replaced, and host memory at the default path whose
/// simulator is gone is removed. It removes its own files when it returns,
/// and on SIGINT and SIGTERM if [`ServeOptions::stop_on_signals`].
pub fn serve(opts: &ServeOptions, ready: impl FnOnce()) -> io::Result<()> {
    if UnixStream::connect(&opts.socket).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!("another simulator is serving {}", opts.socket.display()),
        ));
    }
    // A socket file left by a simulator that was killed; anything else at
    // that path is not ours to remove.
    match std::fs::symlink_metadata(&opts.socket) {
        Ok(m) if m.file_type().is_socket() => std::fs::remove_file(&opts.socket)?,
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists and is not a socket; choose another --socket path",
                    opts.socket.display()
                ),
            ))
        }
        Err(_) => {}
    }
    remove_stale_default_mem_files();
    // From here on both paths are ours: whatever happens, remove them.
    if opts.stop_on_signals {
        remove_files_on_signals(opts)?;
    }
    let result = create_and_serve(opts, ready);
    opts.remove_files();
    result
}

/// [`serve`] once the paths are known to be free.
fn create_and_serve(opts: &ServeOptions, ready: impl FnOnce()) -> io::Result<()> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&opts.mem)?;
    file.set_len(opts.mem_bytes)?;
    let mut sim = NicSim::new(opts.sim.clone());
    sim.mem = HostMemory::with_shared_file(&file)?;
    let listener = UnixListener::bind(&opts.socket)?;
    ready();
    let mut server = Server {
        sim,
        mem_path: opts.mem.to_string_lossy().into_owned(),
        mem_bytes: opts.mem_bytes,
    };
    // Connections are accepted on a thread of their own, so a second client
    // gets a clear "busy" answer at once instead of waiting in the backlog.
    let busy = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let acceptor_busy = busy.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            // A client that just closed may not be finished with yet: give it a moment.
            let mut free = !acceptor_busy.swap(true, Ordering::SeqCst);
            for _ in 0..50 {
                if free {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
                free = !acceptor_busy.swap(true, Ordering::SeqCst);
            }
            if !free {
                let msg = Body::default().u8(proto::ERR).str(&format!(
                    "the simulator (pid {}) is serving another client; it serves one at a time",
                    std::process::id()
                ));
                let _ = proto::write_msg(&mut conn, &msg.0);
                continue;
            }
            if tx.send(conn).is_err() {
                break;
            }
        }
    });
    for conn in rx.iter() {
        let flow = server.serve_client(conn);
        busy.store(false, Ordering::SeqCst);
        if flow? == Flow::Stop {
            break;
        }
    }
    Ok(())
}

#[derive(PartialEq, Eq)]
enum Flow {
    Next,
    Stop,
}

struct Server {
    sim: NicSim,
    mem_path: String,
    mem_bytes: u64,
}

impl Server {
    fn serve_client(&mut self, mut conn: UnixStream) -> io::Result<Flow> {
        loop {
            let body = match proto::read_msg(&mut conn) {
                Ok(Some(b)) => b,
                // The client went away (closed, or died): wait for the next one.
                Ok(None) | Err(_) => return Ok(Flow::Next),
            };
            let (reply, flow) = match Request::decode(&body) {
                Ok(req) => {
                    let stop = req == Request::Shutdown;
                    let reply = self.handle(req);
                    (reply, if stop { Flow::Stop } else { Flow::Next })
                }
                Err(e) => (Err(e), Flow::Next),
            };
            let msg = match reply {
                Ok(b) => {
                    let mut v = vec![proto::OK];
                    v.extend_from_slice(&b.0);
                    v
                }
                Err(e) => Body::default().u8(proto::ERR).str(&e).0,
            };
            if proto::write_msg(&mut conn, &msg).is_err() {
                return Ok(Flow::Next);
            }
            if flow == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
    }

    fn handle(&mut self, req: Request) -> Result<Body, String> {
        let b = Body::default();
        let sim = &mut self.sim;
        Ok(match req {
            Request::Hello { .. } => b
                .u32(proto::PROTO_VERSION)
                .u32(std::process::id())
                .u64(self.mem_bytes)
                .str(&self.mem_path),
            Request::Read32 { offset } => b.u32(sim.mmio_read(offset)?),
            Request::Write32 { offset, value } => {
                sim.mmio_write(offset, value);
                b
            }
            Request::AllocDma {
                len,
                kind,
                mirrored,
            } => {
                let len = usize::try_from(len).map_err(|_| "region too large".to_string())?;
                if len == 0 {
                    return Err("cannot allocate an empty region".into());
                }
                let kind = match proto::kind_from_code(kind) {
                    RegionKind::DataRing => MemKind::DataRing,
                    RegionKind::Notification => MemKind::Notification,
                    RegionKind::Other => MemKind::Other,
                };
                let (id, iova) = sim
                    .mem
                    .try_alloc(len, kind, mirrored)
                    .map_err(|e| e.to_string())?;
                let off = sim
                    .mem
                    .region_file_offset(id)
                    .ok_or("host memory is not shared")?;
                b.u64(iova).u64(off).u64(sim.mem.region(id).len() as u64)
            }
            Request::Relax { cycles } => {
                let n = if cycles == 0 {
                    sim.cfg.poll_interval_cycles
                } else {
                    cycles
                };
                sim.run(n);
                b
            }
            // The MAC side through `NicSim`'s `EthernetPort`, which the
            // in-process `SimCard` calls too.
            Request::Cycle => b.u64(sim.cycles().map_err(|e| e.to_string())?),
            Request::EthSend { frames } => {
                sim.inject(&frames).map_err(|e| e.to_string())?;
                b
            }
            Request::EthTxTake => b.frames(&sim.collect().map_err(|e| e.to_string())?),
            Request::Drain { max_cycles } => {
                let drained = EthernetPort::drain(sim, max_cycles).map_err(|e| e.to_string())?;
                b.u8(drained as u8)
            }
            Request::Shutdown => b,
            Request::Reset { hold_cycles } => {
                sim.reset_card(hold_cycles);
                b
            }
        })
    }
}
