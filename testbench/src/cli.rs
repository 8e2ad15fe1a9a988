//! What the command-line tools (`src/bin/`) share: printing that survives a
//! reader that went away, and numbers as an engineer types them.

use std::fmt;
use std::io::{self, Write};

/// Help for the ADDRESS argument of the tools that open a card.
pub const ADDRESS_HELP: &str = "The card: a PCIe address (0000:03:00.0 or 03:00.0), \
pci:VENDOR:DEVICE (the first card with these hex ids, e.g. pci:10ee:903f), or \
sim:/path/to/socket (the simulator process `pendulum-sim serve --socket /path/to/socket`)";

/// Writes one line to standard output, like `println!`, without its panic
/// when the write fails. A reader that closed early (`pendulum-ctl ADDR
/// pipes | head`: EPIPE, as Rust ignores SIGPIPE) ends the tool at once
/// with status 0 and nothing on stderr: no one is left to read the rest.
/// Any other write error ends it with status 1 and says why.
///
/// Use it through [`outln!`](crate::outln).
pub fn print_line(args: fmt::Arguments) {
    let mut out = io::stdout().lock();
    // Standard output is line-buffered: the newline pushes the line out, so
    // a write error shows up here and nothing is left behind at exit.
    let written = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            let tool = std::env::args().next().unwrap_or_default();
            let tool = tool.rsplit('/').next().unwrap_or("pendulum");
            eprintln!("{tool}: writing to standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!` for the tools: see [`cli::print_line`](crate::cli::print_line).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cli::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::print_line(format_args!($($arg)*))
    };
}

/// A number as typed on a command line: decimal, or hexadecimal after `0x`
/// (`4096`, `0x1000`). For clap's `value_parser`.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => s.replace('_', "").parse(),
    };
    r.map_err(|e| format!("`{s}` is not a number (decimal, or hex after 0x): {e}"))
}

/// [`parse_u64`] limited to 32 bits (a register offset or value).
pub fn parse_u32(s: &str) -> Result<u32, String> {
    let v = parse_u64(s)?;
    u32::try_from(v).map_err(|_| format!("`{s}` does not fit in 32 bits"))
}

/// A size in bytes: `1048576`, `64K`, `64M`, `1G` (powers of 1024), or hex
/// after `0x`. For clap's `value_parser`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, shift) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let n = parse_u64(num).map_err(|_| {
        format!("`{s}` is not a size in bytes (a number, or one with K, M or G after it)")
    })?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_decimal_or_hex_and_sizes_take_binary_suffixes() {
        assert_eq!(parse_u64("4096"), Ok(4096));
        assert_eq!(parse_u64("0x1000"), Ok(4096));
        assert_eq!(parse_u64("1_000"), Ok(1000));
        assert!(parse_u64("0x").is_err() && parse_u64("ten").is_err());
        assert_eq!(parse_u32("0xFFFFFFFF"), Ok(u32::MAX));
        assert!(parse_u32("0x100000000").is_err());
        assert_eq!(parse_bytes("64M"), Ok(64 << 20));
        assert_eq!(parse_bytes("32k"), Ok(32 << 10));
        assert_eq!(parse_bytes("1G"), Ok(1 << 30));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(parse_bytes("M").is_err() && parse_bytes("99999999999G").is_err());
    }
}
