//! The ring format's tables for the README, generated from the definitions
//! in this module so the README cannot drift from them.

use super::{flags, FLAGS, HASH, LEN, TIMESTAMP};
use crate::frame::{ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_QINQ, ETHERTYPE_VLAN};
use crate::notif::markdown;
use crate::params::MAX_FRAME_BYTES;

/// The entry header (16 bytes, little-endian).
pub fn header_markdown() -> String {
    markdown(&[
        ("LEN", LEN, "the frame's bytes, FCS excluded: 1 to MAX_FRAME_BYTES (u16); the entry takes 1 + ceil(LEN / 16) units"),
        ("FLAGS", FLAGS, "RX: what the NIC found in the frame (table below); TX: bit 15, TX_STAMP, asks for a TX stamp (`tx_stamp`), the rest is ignored (u16)"),
        ("HASH", HASH, "RX: the RSS (Toeplitz) hash of the frame's flow key, 0 without one; TX: ignored (u32)"),
        ("TIMESTAMP", TIMESTAMP, "RX: the NIC's CYCLES counter in the cycle the frame's first beat entered the core; TX: ignored (u64)"),
    ])
}

/// The FLAGS bits.
pub fn flags_markdown() -> String {
    let field = |f: super::Field| {
        if f.width == 1 {
            format!("{}", f.lsb)
        } else {
            format!("{}..{}", f.lsb, f.lsb + f.width)
        }
    };
    let bit = |m: u16| m.trailing_zeros();
    let rows = [
        (field(flags::TAGS), "TAGS", "VLAN tags (0x8100, 0x88A8) looked past: 0, 1 or 2; 3: a third tag, where parsing stops".to_string()),
        (field(flags::L3), "L3", "the EtherType past the tags: 0 other, 1 IPv4, 2 IPv6, 3 ARP".to_string()),
        (field(flags::L4), "L4", "IPv4 (not a fragment) or IPv6 protocol: 0 other, 1 TCP, 2 UDP".to_string()),
        (bit(flags::IP4_CSUM_OK).to_string(), "IP4_CSUM_OK", "the IPv4 header checksum verifies (header within the frame's first 64 bytes)".to_string()),
        (bit(flags::L4_CSUM_OK).to_string(), "L4_CSUM_OK", "the TCP or UDP checksum verifies (pseudo-header included); 0 also when the NIC cannot tell: L4 header past the frame's first 64 bytes, or bytes past the IP datagram in a frame longer than 64 (`rx_flags`' first-beat rules)".to_string()),
        (bit(flags::FLOW_HIT).to_string(), "FLOW_HIT", "the flow director matched a bound flow-table entry".to_string()),
        (bit(flags::FRAGMENT).to_string(), "FRAGMENT", "an IPv4 fragment (MF or a fragment offset)".to_string()),
        (format!("{}..16", bit(flags::RESERVED)), "", "reserved, 0".to_string()),
    ];
    let mut s = String::from("| bits | flag | meaning |\n|---|---|---|\n");
    for (b, name, what) in rows {
        s += &format!("| {b} | {name} | {what} |\n");
    }
    s
}

/// The frame kinds a ring carries, and what the NIC reads of each.
pub fn kinds_markdown() -> String {
    let mut s = String::from("| frame | RX | TX |\n|---|---|---|\n");
    s += &format!("| IPv4 (0x{ETHERTYPE_IPV4:04X}), IPv6 (0x{ETHERTYPE_IPV6:04X}) | carried; steered by the flow table or the hash; FLAGS L3, L4, IP4_CSUM_OK, L4_CSUM_OK, FRAGMENT; HASH | carried |\n");
    s += &format!(
        "| ARP (0x{ETHERTYPE_ARP:04X}) | carried to FLOW_DEFAULT_PIPE; L3 ARP | carried |\n"
    );
    s += &format!("| one or two VLAN tags (0x{ETHERTYPE_VLAN:04X}, 0x{ETHERTYPE_QINQ:04X}), then any of these | as the frame inside; TAGS 1 or 2 | carried |\n");
    s += "| any other EtherType (LLDP 0x88CC, PTP 0x88F7, custom), a third tag, a runt | carried to FLOW_DEFAULT_PIPE; L3 other | carried |\n";
    s += &format!("| over MAX_FRAME_BYTES ({MAX_FRAME_BYTES}) | dropped, counted in DROP_MALFORMED | refused by the driver (`Error::BadFrameLen`); an entry whose LEN is 0 or over it is dropped alone, counted in TX_DROP_MALFORMED, and the entries after it are sent |\n");
    s += &format!("| ACP messages, atomic verbs and results | one 64-byte entry each ({} units); a commit's result 128 bytes | 64-byte entries; a commit 192 bytes |\n", super::entry_units(64));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_ring_tables_are_current() {
        crate::check_readme_section(
            "<!-- ring header begin -->\n",
            "<!-- ring header end -->",
            &header_markdown(),
        );
        crate::check_readme_section(
            "<!-- ring flags begin -->\n",
            "<!-- ring flags end -->",
            &flags_markdown(),
        );
        crate::check_readme_section(
            "<!-- frame kinds begin -->\n",
            "<!-- frame kinds end -->",
            &kinds_markdown(),
        );
    }
}
