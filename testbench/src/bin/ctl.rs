//! `pendulum-ctl ADDRESS COMMAND`: look at a Pendulum card by hand, the
//! simulated one (`sim:/path/to/socket`) or a PCIe one (`0000:03:00.0`,
//! `pci:VENDOR:DEVICE`). Opening checks identity and version first.

use pendulum_driver::layout::{self, global, pipe, pipe_page};
use pendulum_driver::{AnyCard, Device};

const USAGE: &str = "usage: pendulum-ctl ADDRESS COMMAND

ADDRESS: 0000:03:00.0 | pci:VENDOR:DEVICE | sim:/path/to/socket
COMMAND:
  info                      identity, version, capabilities
  counters                  global counters (frames, bytes, drops, notifications, TX)
  pipes                     each pipe's RX and TX registers
  link [reset]              ACP link state and counters; `reset` drops the link state
  atomic VERB ADDR ARGS..   an atomic verb by hand, 32-bit operands: cas ADDR EXPECTED NEW,
                            fetch-add ADDR N, swap ADDR V, masked-cas ADDR EXP NEW CMASK SMASK,
                            masked-fetch-add ADDR N BOUNDARY
  reset [CYCLES]            simulated card only: reset it as a PCIe reset does
                            (the core's reset held CYCLES cycles, default 16)
  read OFFSET               one 32-bit register (hex with 0x)
  write OFFSET VALUE        one 32-bit register write, checked";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args[0] == "-h" || args[0] == "--help" {
        eprintln!("{USAGE}");
        std::process::exit(if args.is_empty() { 2 } else { 0 });
    }
    let code = match pendulum_driver::open(&args[0]) {
        Err(e) => {
            eprintln!("pendulum-ctl: {}: {e}", args[0]);
            1
        }
        Ok(mut dev) => match run(&mut dev, &args[1..]) {
            Ok(()) => 0,
            Err((code, e)) => {
                eprintln!("pendulum-ctl: {e}");
                code
            }
        },
    };
    std::process::exit(code);
}

type Failure = (i32, String);

fn e<E: std::fmt::Display>(err: E) -> Failure {
    (1, err.to_string())
}

fn num(s: &str) -> Result<u32, Failure> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| {
        (
            2,
            format!("`{s}` is not a number (decimal, or hex with 0x)"),
        )
    })
}

fn run(dev: &mut Device<AnyCard>, args: &[String]) -> Result<(), Failure> {
    match args[0].as_str() {
        "info" => {
            let v = dev.read(global::VERSION.offset).map_err(e)?;
            let kind = match dev.card_mut() {
                AnyCard::Pci(p) => format!(
                    "PCIe {} ({}, BAR 0 of {} bytes)",
                    p.address(),
                    if p.uses_vfio() { "VFIO" } else { "sysfs" },
                    p.bar_bytes()
                ),
                AnyCard::Sim(s) => format!(
                    "simulator process {} (host memory {})",
                    s.server_pid(),
                    s.mem_path()
                ),
            };
            println!("card              {kind}");
            println!("identity          PNDL");
            println!(
                "version           {}.{} (driver {}.{})",
                v >> 16,
                v & 0xFFFF,
                layout::VERSION_MAJOR,
                layout::VERSION_MINOR
            );
            for r in [
                global::CAP_PIPES,
                global::CAP_TX_PIPES,
                global::CAP_NOTIF_BUFS,
                global::CAP_LINK_CHANNELS,
                global::CAP_ATOMIC_BYTES,
                global::CAP_MAX_FRAME,
            ] {
                println!(
                    "{:<17} {}",
                    r.name.to_ascii_lowercase(),
                    dev.read(r.offset).map_err(e)?
                );
            }
        }
        "counters" => {
            let c = dev.counters().map_err(e)?;
            let (addr, cause) = dev.last_reg_error().map_err(e)?;
            println!("rx_frames          {}", c.rx_frames);
            println!("rx_bytes           {}", c.rx_bytes);
            println!("drop_ring_full     {}", c.drop_ring_full);
            println!("drop_malformed     {}", c.drop_malformed);
            println!("drop_pipe_off      {}", c.drop_pipe_off);
            println!("notifications      {}", c.notifications);
            println!("tx_frames          {}", c.tx_frames);
            println!("tx_bytes           {}", c.tx_bytes);
            println!("tx_drop_malformed  {}", c.tx_drop_malformed);
            println!("tx_completions     {}", c.tx_completions);
            println!("rx_overflow_drops  {}", c.rx_overflow_drops);
            println!("reg_errors         {}", c.reg_errors);
            if c.reg_errors > 0 {
                let why =
                    layout::RegError::from_code(cause).map_or("unknown cause", |c| c.describe());
                println!("last_reg_error     {addr:#08x}: {why}");
            }
        }
        "pipes" => {
            println!("pipe  rx: on ring_bytes   head   tail   frames  drops | tx: on ring_bytes   head   tail   frames  drops");
            let tx_pipes = dev.tx_pipes();
            for p in 0..dev.pipes() {
                let page = pipe_page(p);
                let mut r = |reg: layout::Reg| dev.read(page + reg.offset).map_err(e);
                let rx = format!(
                    "{p:>4}      {:>2} {:>10} {:>6} {:>6} {:>8} {:>6} |",
                    r(pipe::CTRL)? & 1,
                    r(pipe::RING_BYTES)?,
                    r(pipe::HEAD)?,
                    r(pipe::TAIL)?,
                    r(pipe::RX_FRAMES)?,
                    r(pipe::DROP_RING_FULL)?,
                );
                if p >= tx_pipes {
                    println!("{rx}     (no TX side)");
                    continue;
                }
                println!(
                    "{rx}     {:>2} {:>10} {:>6} {:>6} {:>8} {:>6}",
                    r(pipe::TX_CTRL)? & 1,
                    r(pipe::TX_RING_BYTES)?,
                    r(pipe::TX_HEAD)?,
                    r(pipe::TX_TAIL)?,
                    r(pipe::TX_FRAMES)?,
                    r(pipe::TX_DROPS)?,
                );
            }
        }
        "link" => {
            let ch = dev.read(global::CAP_LINK_CHANNELS.offset).map_err(e)?;
            if ch == 0 {
                return Err((3, "link: not built in this card (CAP_LINK_CHANNELS = 0: this bitstream has no ACP link yet)".into()));
            }
            let state = dev.link_state().map_err(e)?;
            let active = dev.read(global::LINK_ACTIVE_CHANNELS.offset).map_err(e)?;
            let rx_pipe = dev.read(global::LINK_RX_PIPE.offset).map_err(e)?;
            let c = dev.link_counters().map_err(e)?;
            println!("state              {state:?}");
            println!("channels           {active} in use of {ch} built");
            println!("rx pipe            {rx_pipe}");
            println!("records heard      {}", c.records);
            println!("bad check word     {}", c.bad_check);
            println!(
                "bad records        {} (unknown opcode or channel)",
                c.bad_record
            );
            println!("commits            {} (ours, decided)", c.commits);
            println!(
                "delivered          {} (the peer's, to the rx pipe)",
                c.delivered
            );
            println!("rejects            {}", c.rejects);
            println!("reversals          {}", c.reversals);
            println!("failures           {}", c.failures);
            println!("entanglements      {}", c.entangles);
            println!("handed back        {}", c.returned);
            if args.get(1).map(String::as_str) == Some("reset") {
                dev.reset_link().map_err(e)?;
                println!("link reset: held messages are handed back, re-entangling");
            }
        }
        "atomic" => {
            let bytes = dev.read(global::CAP_ATOMIC_BYTES.offset).map_err(e)?;
            if bytes == 0 {
                return Err((3, "atomic: not built in this card (CAP_ATOMIC_BYTES = 0: this bitstream has no atomic unit)".into()));
            }
            let verb = args.get(1).map(String::as_str).unwrap_or("");
            let nums = args[2.min(args.len())..]
                .iter()
                .map(|a| num(a))
                .collect::<Result<Vec<u32>, _>>()?;
            let need = match verb {
                "cas" => 3,
                "fetch-add" | "swap" => 2,
                "masked-cas" => 5,
                "masked-fetch-add" => 3,
                _ => return Err((2, format!("atomic: unknown verb `{verb}`\n{USAGE}"))),
            };
            if nums.len() != need {
                return Err((
                    2,
                    format!("atomic {verb} takes {need} numbers: ADDR and its operands\n{USAGE}"),
                ));
            }
            // The last pipe with both sides serves the verbs of this tool.
            let p = dev.pipes().min(dev.tx_pipes()) - 1;
            let mut at = dev.open_atomics(p, p, 4096).map_err(e)?;
            let n = |i: usize| nums[i] as u64;
            let old = match verb {
                "cas" => at.cas(dev, nums[0], n(1), n(2)),
                "fetch-add" => at.fetch_add(dev, nums[0], n(1)),
                "swap" => at.swap(dev, nums[0], n(1)),
                "masked-cas" => at.masked_cas(dev, nums[0], n(1), n(2), n(3), n(4)),
                _ => at.masked_fetch_add(dev, nums[0], n(1), n(2)),
            }
            .map_err(e)?;
            println!(
                "atomic {verb} at {:#x}: old value {old:#x} ({old})",
                nums[0]
            );
        }
        "reset" => {
            let hold = match args.get(1) {
                Some(a) => num(a)? as u64,
                None => 16,
            };
            match dev.card_mut() {
                AnyCard::Sim(s) => s.reset_card(hold).map_err(e)?,
                AnyCard::Pci(_) => {
                    return Err((3, "reset: only a simulated card can be reset from here; reset a PCIe card with its slot (echo 1 > /sys/bus/pci/devices/ADDRESS/reset)".into()))
                }
            }
            println!("card reset: reset held {hold} cycles; every open Device on it now reports CardReset");
        }
        "read" => {
            let off = num(args.get(1).ok_or((2, "read needs an OFFSET".to_string()))?)?;
            let v = dev.read(off).map_err(e)?;
            println!("{off:#06x} = {v:#010x} ({v})");
        }
        "write" => {
            let off = num(args
                .get(1)
                .ok_or((2, "write needs OFFSET VALUE".to_string()))?)?;
            let v = num(args
                .get(2)
                .ok_or((2, "write needs OFFSET VALUE".to_string()))?)?;
            dev.write_checked(off, v).map_err(e)?;
            println!("{off:#06x} <- {v:#010x}: accepted");
        }
        other => return Err((2, format!("unknown command `{other}`\n{USAGE}"))),
    }
    Ok(())
}
