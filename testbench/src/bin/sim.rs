//! `pendulum-sim serve --socket PATH [--mem PATH] [--mem-bytes N] [--poll-cycles N]`:
//! the Verilated NIC as its own process. Applications open it with
//! `pendulum_driver::open("sim:PATH")`. See `pendulum_testbench::server`.

use pendulum_testbench::server::{serve, ServeOptions, DEFAULT_MEM_BYTES};
use pendulum_testbench::SimConfig;
use std::io::Write;
use std::path::PathBuf;

const USAGE: &str =
    "usage: pendulum-sim serve --socket PATH [--mem PATH] [--mem-bytes N] [--poll-cycles N]

  --socket PATH     Unix socket to listen on (applications open \"sim:PATH\")
  --mem PATH        host-memory file to create (default /dev/shm/pendulum-sim-<pid>.mem)
  --mem-bytes N     host memory size (default 64 MiB)
  --poll-cycles N   cycles one relax() of the client advances (default 8)

The simulation advances only when its client asks (register reads, relax);
one client at a time; the card keeps its state between clients.";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("pendulum-sim: {e}");
            std::process::exit(2);
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) != Some("serve") {
        return Err(USAGE.into());
    }
    let mut socket = None;
    let mut mem = None;
    let mut mem_bytes = DEFAULT_MEM_BYTES;
    let mut sim = SimConfig::default();
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--socket" => socket = Some(PathBuf::from(val()?)),
            "--mem" => mem = Some(PathBuf::from(val()?)),
            "--mem-bytes" => mem_bytes = parse_size(&val()?)?,
            "--poll-cycles" => {
                sim.poll_interval_cycles =
                    val()?.parse().map_err(|e| format!("--poll-cycles: {e}"))?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    let socket = socket.ok_or_else(|| format!("--socket is required\n{USAGE}"))?;
    let opts = ServeOptions {
        socket,
        mem: mem.unwrap_or_else(ServeOptions::default_mem_path),
        mem_bytes,
        sim,
    };
    serve(&opts, || {
        println!(
            "pendulum-sim: serving sim:{} (pid {}, host memory {} of {} bytes)",
            opts.socket.display(),
            std::process::id(),
            opts.mem.display(),
            opts.mem_bytes
        );
        let _ = std::io::stdout().flush();
    })
    .map_err(|e| e.to_string())
}

/// `1048576`, `64K`, `64M`, `1G` (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let (num, mul) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .map(|n| n * mul)
        .map_err(|e| format!("bad size {s}: {e}"))
}
