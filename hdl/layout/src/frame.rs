//! Where a frame ends in a data ring.
//!
//! Ensō places frames back to back in a ring, each starting on a 64-byte
//! boundary, and carries no per-frame descriptor: software finds the end of a
//! frame from its own headers. The RX engine applies the same rule in hardware
//! and drops (and counts) every frame whose length it cannot derive or whose
//! wire length disagrees, so the ring is always parseable by this function.
//!
//! Rule (untagged Ethernet II, FCS already stripped by the MAC):
//! - IPv4 (EtherType 0x0800): 14 + IPv4 total length (bytes 16..18).
//! - IPv6 (EtherType 0x86DD): 14 + 40 + IPv6 payload length (bytes 18..20).
//! - ARP (EtherType 0x0806): 42.
//! - anything else: unknown (dropped by the NIC as malformed).
//!
//! A frame padded to the 60-byte minimum keeps its header length: the driver
//! hands out the header length, the padding is not part of the packet.

/// Bytes of the Ethernet header (no VLAN tag).
pub const ETH_HEADER_BYTES: u32 = 14;
pub const ETHERTYPE_OFFSET: usize = 12;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// Offset of the IPv4 total-length field in the frame.
pub const IPV4_LEN_OFFSET: usize = 16;
/// Offset of the IPv6 payload-length field in the frame.
pub const IPV6_LEN_OFFSET: usize = 18;
/// IPv6 fixed header.
pub const IPV6_HEADER_BYTES: u32 = 40;
/// Length of an ARP frame for IPv4 over Ethernet.
pub const ARP_FRAME_BYTES: u32 = 42;

/// The frame length the header states, or `None` when the rule above does not
/// apply (too short to tell, or an EtherType without a length).
pub fn frame_len_from_header(head: &[u8]) -> Option<u32> {
    let be16 = |o: usize| {
        head.get(o..o + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as u32)
    };
    match be16(ETHERTYPE_OFFSET)? as u16 {
        ETHERTYPE_IPV4 => Some(ETH_HEADER_BYTES + be16(IPV4_LEN_OFFSET)?),
        ETHERTYPE_IPV6 => Some(ETH_HEADER_BYTES + IPV6_HEADER_BYTES + be16(IPV6_LEN_OFFSET)?),
        ETHERTYPE_ARP => Some(ARP_FRAME_BYTES),
        _ => None,
    }
}

/// Slots (64-byte units) a frame of `len` bytes occupies in a ring.
pub const fn slots_for(len: u32) -> u32 {
    len.div_ceil(crate::BEAT_BYTES as u32)
}

/// Whether a frame received with `wire_len` bytes agrees with the `header_len`
/// its headers state: equal, or padded up to the minimum frame size.
pub fn wire_len_matches(header_len: u32, wire_len: u32) -> bool {
    let min = crate::params::MIN_FRAME_BYTES;
    wire_len == header_len || (header_len < min && wire_len == min)
}

/// The frame kinds a ring carries, as a Markdown table for the README
/// (the rule of [`frame_len_from_header`], with its offsets).
pub fn kinds_markdown() -> String {
    let mut s = String::from(
        "| EtherType (bytes 12..14) | frame | length (bytes) | RX | TX |\n|---|---|---|---|---|\n",
    );
    let rows = [
        (
            format!("0x{ETHERTYPE_IPV4:04X}"),
            "IPv4",
            format!(
                "{ETH_HEADER_BYTES} + total length (bytes {IPV4_LEN_OFFSET}..{})",
                IPV4_LEN_OFFSET + 2
            ),
        ),
        (
            format!("0x{ETHERTYPE_IPV6:04X}"),
            "IPv6",
            format!(
                "{ETH_HEADER_BYTES} + {IPV6_HEADER_BYTES} + payload length (bytes {IPV6_LEN_OFFSET}..{})",
                IPV6_LEN_OFFSET + 2
            ),
        ),
        (
            format!("0x{ETHERTYPE_ARP:04X}"),
            "ARP (IPv4 over Ethernet)",
            format!("{ARP_FRAME_BYTES}"),
        ),
    ];
    for (et, what, len) in rows {
        s += &format!("| {et} | {what} | {len} | carried | carried |\n");
    }
    s += "| any other (VLAN 0x8100/0x88A8, LLDP, PTP, custom) | | none | dropped, counted in DROP_MALFORMED | refused by the driver (`Error::UndelimitedFrame`); raw data the card cannot delimit is dropped and counted in TX_DROP_MALFORMED |\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_frame_kinds_are_current() {
        crate::check_readme_section(
            "<!-- frame kinds begin -->\n",
            "<!-- frame kinds end -->",
            &kinds_markdown(),
        );
    }

    fn frame(ethertype: u16, len_at: usize, len: u16) -> Vec<u8> {
        let mut f = vec![0u8; 64];
        f[12..14].copy_from_slice(&ethertype.to_be_bytes());
        f[len_at..len_at + 2].copy_from_slice(&len.to_be_bytes());
        f
    }

    #[test]
    fn lengths_by_ethertype() {
        assert_eq!(frame_len_from_header(&frame(0x0800, 16, 1500)), Some(1514));
        assert_eq!(frame_len_from_header(&frame(0x86DD, 18, 1000)), Some(1054));
        assert_eq!(frame_len_from_header(&frame(0x0806, 16, 0)), Some(42));
        assert_eq!(frame_len_from_header(&frame(0x88B5, 16, 100)), None);
        assert_eq!(frame_len_from_header(&[0u8; 13]), None);
    }

    #[test]
    fn padding_and_slots() {
        assert!(wire_len_matches(42, 60));
        assert!(wire_len_matches(100, 100));
        assert!(!wire_len_matches(100, 101));
        assert!(!wire_len_matches(61, 60));
        assert_eq!(slots_for(60), 1);
        assert_eq!(slots_for(64), 1);
        assert_eq!(slots_for(65), 2);
        assert_eq!(slots_for(9600), 150);
    }
}
