//! `pendulum-ctl ADDRESS COMMAND`: look at a Pendulum card by hand, the
//! simulated one (`sim:/path/to/socket`) or a PCIe one (`0000:03:00.0`,
//! `pci:VENDOR:DEVICE`). Opening checks identity and version first.

use clap::{Parser, Subcommand, ValueEnum};
use pendulum_driver::layout::{self, global, pipe, pipe_page};
use pendulum_driver::{AnyCard, Atomics, Device};
use pendulum_testbench::cli::{parse_u32, parse_u64, ADDRESS_HELP};
use pendulum_testbench::outln;

/// Look at a Pendulum card and poke it by hand: identity, counters, pipes,
/// the ACP link, atomic verbs, single registers.
///
/// Opening the card checks its identity ("PNDL") and register-map version
/// first, and refuses a card it does not know. Numbers are decimal, or
/// hexadecimal after 0x. Register offsets are in bytes from the start of
/// BAR 0 (the global page at 0, pipe P's page at (P + 1) x 4096; see
/// docs/regmap.md).
#[derive(Parser)]
#[command(
    name = "pendulum-ctl",
    version,
    after_help = "\
Exit status: 0 done; 1 the card or the driver refused (the message says why);
2 bad arguments; 3 the card has no such block, or the command needs another
kind of card, or the resources it needs are in use.

Examples:
  pendulum-ctl sim:/tmp/pendulum.sock info
  pendulum-ctl 0000:03:00.0 counters
  pendulum-ctl sim:/tmp/pendulum.sock pipes | head -5
  pendulum-ctl sim:/tmp/pendulum.sock atomic fetch-add 0x40 5
  pendulum-ctl sim:/tmp/pendulum.sock read 0x4"
)]
struct Cli {
    #[arg(help = ADDRESS_HELP)]
    address: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Identity, register-map version, and capabilities: pipes (RX, TX),
    /// notification buffers, ACP link channels, atomic memory (bytes),
    /// largest frame (bytes).
    Info,
    /// Global counters: frames and bytes received and sent, drops per cause,
    /// notifications, TX completions, refused register writes (with the last
    /// one's offset and cause).
    Counters,
    /// One line per pipe: RX and TX side each with enabled (1/0), ring size
    /// (bytes), head and tail (64-byte slots), frames and drops.
    Pipes,
    /// ACP link state (Down, Entangling, Up ...), channels in use, and the
    /// link's counters (records, bad check words, commits, reversals ...).
    Link {
        /// `reset`: after printing, drop the link state; held messages are
        /// handed back to their senders and the link re-entangles.
        #[arg(value_enum)]
        action: Option<LinkAction>,
    },
    /// Run one atomic verb on the card's atomic memory and print the old
    /// value. Borrows the last pipe with both an RX and a TX side for the
    /// request and its result, and turns it off again afterwards; refuses
    /// (exit 3) if that pipe is already on.
    Atomic {
        #[command(subcommand)]
        verb: Verb,
    },
    /// Simulated card only: reset it as a PCIe reset does (the core's reset
    /// held for CYCLES cycles). Every Device open on it then reports
    /// CardReset.
    Reset {
        /// How long the reset is held, in core clock cycles.
        #[arg(default_value_t = 16, value_parser = parse_u64)]
        cycles: u64,
    },
    /// Read one 32-bit register.
    Read {
        /// Byte offset in BAR 0 (a multiple of 4).
        #[arg(value_parser = parse_u32)]
        offset: u32,
    },
    /// Write one 32-bit register and check the card accepted it (a refused
    /// write is reported with the card's reason, exit 1).
    Write {
        /// Byte offset in BAR 0 (a multiple of 4).
        #[arg(value_parser = parse_u32)]
        offset: u32,
        /// The 32-bit value.
        #[arg(value_parser = parse_u32)]
        value: u32,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum LinkAction {
    Reset,
}

/// Atomic verbs. ADDR is a byte offset into the atomic memory, a multiple
/// of 8 (words are 64 bits); operands are 64-bit.
#[derive(Subcommand)]
enum Verb {
    /// Compare-and-swap: writes NEW if the word equals EXPECTED.
    Cas {
        /// Byte offset in the atomic memory, a multiple of 8 (words are 64 bits).
        #[arg(value_parser = parse_u32)]
        addr: u32,
        /// The value the word must hold (64-bit).
        #[arg(value_parser = parse_u64)]
        expected: u64,
        /// The value to write (64-bit).
        #[arg(value_parser = parse_u64)]
        new: u64,
    },
    /// Adds N to the word (wrapping).
    FetchAdd {
        /// Byte offset in the atomic memory, a multiple of 8 (words are 64 bits).
        #[arg(value_parser = parse_u32)]
        addr: u32,
        /// The amount to add (64-bit).
        #[arg(value_parser = parse_u64)]
        n: u64,
    },
    /// Writes VALUE.
    Swap {
        /// Byte offset in the atomic memory, a multiple of 8 (words are 64 bits).
        #[arg(value_parser = parse_u32)]
        addr: u32,
        /// The value to write (64-bit).
        #[arg(value_parser = parse_u64)]
        value: u64,
    },
    /// Masked CAS (Linux semantics): compares the bits in COMPARE_MASK with
    /// EXPECTED; if equal, writes the bits in SWAP_MASK from NEW.
    MaskedCas {
        /// Byte offset in the atomic memory, a multiple of 8 (words are 64 bits).
        #[arg(value_parser = parse_u32)]
        addr: u32,
        /// The value the word must hold (64-bit).
        #[arg(value_parser = parse_u64)]
        expected: u64,
        /// The value to write (64-bit).
        #[arg(value_parser = parse_u64)]
        new: u64,
        /// Bits compared (64-bit).
        #[arg(value_parser = parse_u64)]
        compare_mask: u64,
        /// Bits written (64-bit).
        #[arg(value_parser = parse_u64)]
        swap_mask: u64,
    },
    /// Masked fetch-and-add: adds N field by field; BOUNDARY has a 1 at each
    /// field's top bit, and carries stop there.
    MaskedFetchAdd {
        /// Byte offset in the atomic memory, a multiple of 8 (words are 64 bits).
        #[arg(value_parser = parse_u32)]
        addr: u32,
        /// The amount to add (64-bit).
        #[arg(value_parser = parse_u64)]
        n: u64,
        /// A 1 at each field's top bit (64-bit).
        #[arg(value_parser = parse_u64)]
        boundary: u64,
    },
}

impl Verb {
    fn name(&self) -> &'static str {
        match self {
            Verb::Cas { .. } => "cas",
            Verb::FetchAdd { .. } => "fetch-add",
            Verb::Swap { .. } => "swap",
            Verb::MaskedCas { .. } => "masked-cas",
            Verb::MaskedFetchAdd { .. } => "masked-fetch-add",
        }
    }

    fn addr(&self) -> u32 {
        match *self {
            Verb::Cas { addr, .. }
            | Verb::FetchAdd { addr, .. }
            | Verb::Swap { addr, .. }
            | Verb::MaskedCas { addr, .. }
            | Verb::MaskedFetchAdd { addr, .. } => addr,
        }
    }

    /// Runs the verb; returns the word's old value.
    fn run(&self, at: &mut Atomics, dev: &mut Device<AnyCard>) -> pendulum_driver::Result<u64> {
        match *self {
            Verb::Cas {
                addr,
                expected,
                new,
            } => at.cas(dev, addr, expected, new),
            Verb::FetchAdd { addr, n } => at.fetch_add(dev, addr, n),
            Verb::Swap { addr, value } => at.swap(dev, addr, value),
            Verb::MaskedCas {
                addr,
                expected,
                new,
                compare_mask,
                swap_mask,
            } => at.masked_cas(dev, addr, expected, new, compare_mask, swap_mask),
            Verb::MaskedFetchAdd { addr, n, boundary } => {
                at.masked_fetch_add(dev, addr, n, boundary)
            }
        }
    }
}

fn main() {
    let cli = Cli::parse();
    let code = match pendulum_driver::open(&cli.address) {
        Err(e) => {
            eprintln!("pendulum-ctl: {}: {e}", cli.address);
            1
        }
        Ok(mut dev) => match run(&mut dev, &cli.command) {
            Ok(()) => 0,
            Err(Failure { code, message }) => {
                eprintln!("pendulum-ctl: {message}");
                code
            }
        },
    };
    std::process::exit(code);
}

/// Why a command failed, and the exit status that says so.
struct Failure {
    code: i32,
    message: String,
}

impl Failure {
    /// Exit 3: the card lacks what the command needs, or it is in use.
    fn unavailable(message: String) -> Self {
        Failure { code: 3, message }
    }
}

/// The card or the driver refused: exit 1.
impl From<pendulum_driver::Error> for Failure {
    fn from(e: pendulum_driver::Error) -> Self {
        Failure {
            code: 1,
            message: e.to_string(),
        }
    }
}

fn run(dev: &mut Device<AnyCard>, command: &Command) -> Result<(), Failure> {
    match command {
        Command::Info => info(dev),
        Command::Counters => counters(dev),
        Command::Pipes => pipes(dev),
        Command::Link { action } => link(dev, action.is_some()),
        Command::Atomic { verb } => atomic(dev, verb),
        Command::Reset { cycles } => {
            match dev.card_mut() {
                AnyCard::Sim(s) => s.reset_card(*cycles)?,
                AnyCard::Pci(_) => {
                    return Err(Failure::unavailable("reset: only a simulated card can be reset from here; reset a PCIe card with its slot (echo 1 > /sys/bus/pci/devices/ADDRESS/reset)".into()))
                }
            }
            outln!("card reset: reset held {cycles} cycles; every open Device on it now reports CardReset");
            Ok(())
        }
        Command::Read { offset } => {
            let v = dev.read(*offset)?;
            outln!("{offset:#06x} = {v:#010x} ({v})");
            Ok(())
        }
        Command::Write { offset, value } => {
            dev.write_checked(*offset, *value)?;
            outln!("{offset:#06x} <- {value:#010x}: accepted");
            Ok(())
        }
    }
}

fn info(dev: &mut Device<AnyCard>) -> Result<(), Failure> {
    let v = dev.read(global::VERSION.offset)?;
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
    outln!("card              {kind}");
    outln!("identity          PNDL");
    outln!(
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
        outln!(
            "{:<17} {}",
            r.name.to_ascii_lowercase(),
            dev.read(r.offset)?
        );
    }
    Ok(())
}

fn counters(dev: &mut Device<AnyCard>) -> Result<(), Failure> {
    let c = dev.counters()?;
    let (addr, cause) = dev.last_reg_error()?;
    outln!("cycles             {}", dev.cycles()?);
    outln!("rx_frames          {}", c.rx_frames);
    outln!("rx_bytes           {}", c.rx_bytes);
    outln!("drop_ring_full     {}", c.drop_ring_full);
    outln!("drop_malformed     {}", c.drop_malformed);
    outln!("drop_pipe_off      {}", c.drop_pipe_off);
    outln!("notifications      {}", c.notifications);
    outln!("tx_frames          {}", c.tx_frames);
    outln!("tx_bytes           {}", c.tx_bytes);
    outln!("tx_drop_malformed  {}", c.tx_drop_malformed);
    outln!("tx_completions     {}", c.tx_completions);
    outln!("rx_overflow_drops  {}", c.rx_overflow_drops);
    outln!("reg_errors         {}", c.reg_errors);
    if c.reg_errors > 0 {
        let why = layout::RegError::from_code(cause).map_or("unknown cause", |c| c.describe());
        outln!("last_reg_error     {addr:#08x}: {why}");
    }
    Ok(())
}

fn pipes(dev: &mut Device<AnyCard>) -> Result<(), Failure> {
    outln!("pipe  rx: on ring_bytes   head   tail   frames  drops | tx: on ring_bytes   head   tail   frames  drops");
    let tx_pipes = dev.tx_pipes();
    for p in 0..dev.pipes() {
        let page = pipe_page(p);
        let mut r = |reg: layout::Reg| dev.read(page + reg.offset);
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
            outln!("{rx}     (no TX side)");
            continue;
        }
        outln!(
            "{rx}     {:>2} {:>10} {:>6} {:>6} {:>8} {:>6}",
            r(pipe::TX_CTRL)? & 1,
            r(pipe::TX_RING_BYTES)?,
            r(pipe::TX_HEAD)?,
            r(pipe::TX_TAIL)?,
            r(pipe::TX_FRAMES)?,
            r(pipe::TX_DROPS)?,
        );
    }
    Ok(())
}

fn link(dev: &mut Device<AnyCard>, reset: bool) -> Result<(), Failure> {
    let ch = dev.read(global::CAP_LINK_CHANNELS.offset)?;
    if ch == 0 {
        return Err(Failure::unavailable("link: not built in this card (CAP_LINK_CHANNELS = 0: this bitstream has no ACP link yet)".into()));
    }
    let state = dev.link_state()?;
    let active = dev.read(global::LINK_ACTIVE_CHANNELS.offset)?;
    let rx_pipe = dev.read(global::LINK_RX_PIPE.offset)?;
    let rx_pipe = format!(
        "{}{}",
        rx_pipe & global::RX_PIPE_MASK,
        if rx_pipe & global::RX_PIPE_RESERVED != 0 {
            " (reserved)"
        } else {
            ""
        }
    );
    let c = dev.link_counters()?;
    outln!("state              {state:?}");
    outln!("channels           {active} in use of {ch} built");
    outln!("rx pipe            {rx_pipe}");
    outln!("records heard      {}", c.records);
    outln!("bad check word     {}", c.bad_check);
    outln!(
        "bad records        {} (unknown opcode or channel)",
        c.bad_record
    );
    outln!("commits            {} (ours, decided)", c.commits);
    outln!(
        "delivered          {} (the peer's, to the rx pipe)",
        c.delivered
    );
    outln!("rejects            {}", c.rejects);
    outln!("reversals          {}", c.reversals);
    outln!("failures           {}", c.failures);
    outln!("entanglements      {}", c.entangles);
    outln!("handed back        {}", c.returned);
    if reset {
        dev.reset_link()?;
        outln!("link reset: held messages are handed back, re-entangling");
    }
    Ok(())
}

/// Runs `verb` on a pipe pair borrowed for it, and leaves that pair off, as
/// it found it, whatever the verb's outcome.
fn atomic(dev: &mut Device<AnyCard>, verb: &Verb) -> Result<(), Failure> {
    if dev.read(global::CAP_ATOMIC_BYTES.offset)? == 0 {
        return Err(Failure::unavailable("atomic: not built in this card (CAP_ATOMIC_BYTES = 0: this bitstream has no atomic unit)".into()));
    }
    // The last pipe with both sides serves the verbs of this tool. A pipe
    // that is on belongs to an application: taking it over would break it.
    let p = dev.pipes().min(dev.tx_pipes()) - 1;
    let page = pipe_page(p);
    for (side, reg) in [("RX", pipe::CTRL), ("TX", pipe::TX_CTRL)] {
        if dev.read(page + reg.offset)? & 1 != 0 {
            return Err(Failure::unavailable(format!(
                "atomic: pipe {p} is in use ({side} side on); the verbs need it. \
                 Stop the application using it, or turn it off with \
                 `pendulum-ctl ADDRESS write {:#x} 0`",
                page + reg.offset
            )));
        }
    }
    let mut at = dev.open_atomics(p, p, 4096)?;
    let old = verb.run(&mut at, dev);
    // Close even when the verb failed; its error is the one to report.
    let closed = dev.close_atomics(at);
    let old = old?;
    closed?;
    outln!(
        "atomic {} at {:#x}: old value {old:#x} ({old})",
        verb.name(),
        verb.addr()
    );
    Ok(())
}
