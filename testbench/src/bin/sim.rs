//! `pendulum-sim serve --socket PATH [--mem PATH] [--mem-bytes N] [--poll-cycles N]`:
//! the Verilated NIC as its own process. Applications open it with
//! `pendulum_driver::open("sim:PATH")`. See `pendulum_testbench::server`.

use clap::{Args, Parser, Subcommand};
use pendulum_testbench::cli::parse_bytes;
use pendulum_testbench::server::{serve, ServeOptions, DEFAULT_MEM_BYTES};
use pendulum_testbench::SimConfig;
use std::io::Write;
use std::path::PathBuf;

/// The simulated Pendulum card (the generated Verilog, Verilated,
/// cycle-accurate) as a process of its own, which applications open with
/// the driver as `sim:SOCKET`, the way they open a PCIe card.
#[derive(Parser)]
#[command(
    name = "pendulum-sim",
    version,
    after_help = "\
Example (see `pendulum-sim serve --help`):
  pendulum-sim serve --socket /tmp/pendulum.sock &
  pendulum-ctl sim:/tmp/pendulum.sock info"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the simulated card on a Unix socket until a client asks it to
    /// shut down, or SIGINT/SIGTERM.
    ///
    /// Host memory is a file that the simulator and the application both
    /// map: the NIC's DMA lands there and frames to send are read from
    /// there. Register access, DMA allocation and time go over the socket.
    /// Simulated time advances only when the client asks (a register read
    /// is a PCIe round trip; relax() runs --poll-cycles cycles). One client
    /// at a time; the card keeps its state (pipes, counters, memory) from
    /// one client to the next.
    ///
    /// Prints one line, "pendulum-sim: serving sim:SOCKET ...", once the
    /// socket accepts. On exit, SIGINT or SIGTERM it removes the socket and
    /// the host-memory file; at start it replaces a socket nobody listens
    /// on, and removes default-path host memory of simulators that are gone.
    #[command(after_help = "\
Example:
  pendulum-sim serve --socket /tmp/pendulum.sock &
  pendulum-ctl sim:/tmp/pendulum.sock info")]
    Serve(ServeArgs),
}

#[derive(Args)]
struct ServeArgs {
    /// Unix socket to listen on; applications open the card as sim:PATH.
    #[arg(long, value_name = "PATH")]
    socket: PathBuf,
    /// Host-memory file to create (truncated) and share with the client
    /// (default: `/dev/shm/pendulum-sim-<pid>.mem`, or in the temp dir
    /// without /dev/shm).
    #[arg(long, value_name = "PATH")]
    mem: Option<PathBuf>,
    /// Host memory size in bytes; K, M, G multiply by 1024, 1024², 1024³
    /// (64M). Every ring and notification buffer the client allocates comes
    /// from it.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MEM_BYTES, value_parser = parse_bytes)]
    mem_bytes: u64,
    /// Simulated cycles (4 ns each at 250 MHz) one relax() of the client
    /// runs: the polling interval of its loops.
    #[arg(long, value_name = "CYCLES", default_value_t = SimConfig::default().poll_interval_cycles)]
    poll_cycles: u64,
    /// Write an FST waveform of the whole run here (slows the simulation
    /// down a lot).
    #[arg(long, value_name = "PATH", env = "PENDULUM_WAVE")]
    wave: Option<PathBuf>,
}

fn main() {
    let Command::Serve(args) = Cli::parse().command;
    let sim = SimConfig {
        poll_interval_cycles: args.poll_cycles,
        waveform: args.wave,
        ..SimConfig::default()
    };
    let opts = ServeOptions {
        socket: args.socket,
        mem: args.mem.unwrap_or_else(ServeOptions::default_mem_path),
        mem_bytes: args.mem_bytes,
        sim,
        stop_on_signals: true,
    };
    let served = serve(&opts, || {
        // A notice: if no one reads it, the simulator serves all the same.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "pendulum-sim: serving sim:{} (pid {}, host memory {} of {} bytes)",
            opts.socket.display(),
            std::process::id(),
            opts.mem.display(),
            opts.mem_bytes
        );
        let _ = out.flush();
    });
    if let Err(e) = served {
        eprintln!("pendulum-sim: {e}");
        std::process::exit(1);
    }
}
