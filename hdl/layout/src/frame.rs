//! Where a frame ends in a data ring.
//!
//! Ensō places frames back to back in a ring, each starting on a 64-byte
//! boundary, and carries no per-frame descriptor: software finds the end of a
//! frame from its own headers. The RX engine applies the same rule in hardware
//! and drops (and counts) every frame whose length it cannot derive or whose
//! wire length disagrees, so the ring is always parseable by this function.
//!
//! Rule (Ethernet II, FCS already stripped by the MAC), on the EtherType
//! past at most two VLAN tags (802.1Q 0x8100 or 802.1ad 0x88A8, 4 bytes
//! each, in either order; `t` below is their bytes: 0, 4 or 8):
//! - IPv4 (EtherType 0x0800): 14 + t + IPv4 total length (bytes 16+t..18+t).
//! - IPv6 (EtherType 0x86DD): 14 + t + 40 + IPv6 payload length (bytes 18+t..20+t).
//! - ARP (EtherType 0x0806): 42 + t.
//! - anything else, and a third tag: unknown (dropped by the NIC as malformed).
//!
//! A frame padded to the 60-byte minimum keeps its header length: the driver
//! hands out the header length, the padding is not part of the packet.

/// Bytes of the Ethernet header (no VLAN tag).
pub const ETH_HEADER_BYTES: u32 = 14;
pub const ETHERTYPE_OFFSET: usize = 12;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// The TPIDs of the VLAN tags the rule looks past: 802.1Q's (customer
/// VLAN) and 802.1ad's (service VLAN, the outer tag of QinQ).
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const ETHERTYPE_QINQ: u16 = 0x88A8;
/// Bytes of one VLAN tag (TPID and tag control), and the most tags the rule
/// looks past.
pub const VLAN_TAG_BYTES: usize = 4;
pub const MAX_VLAN_TAGS: usize = 2;
/// Offset of the IPv4 total-length field in an untagged frame (add the tag
/// bytes for a tagged one; likewise every offset past the EtherType).
pub const IPV4_LEN_OFFSET: usize = 16;
/// Offset of the IPv6 payload-length field in an untagged frame.
pub const IPV6_LEN_OFFSET: usize = 18;
/// IPv6 fixed header.
pub const IPV6_HEADER_BYTES: u32 = 40;
/// IPv4 fixed header (IHL 5; options make it longer).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// Length of an ARP frame for IPv4 over Ethernet.
pub const ARP_FRAME_BYTES: u32 = 42;

/// Whether an EtherType is a VLAN tag's TPID (the rule looks past it).
pub const fn is_vlan_tpid(ethertype: u16) -> bool {
    ethertype == ETHERTYPE_VLAN || ethertype == ETHERTYPE_QINQ
}

/// The EtherType past a frame's VLAN tags (at most [`MAX_VLAN_TAGS`]), and
/// the tags' bytes (0, 4 or 8): every header offset past the EtherType
/// moves by them. With a third tag the EtherType returned is that tag's
/// TPID, which no rule takes. `None` when the frame is too short to tell.
pub fn inner_ethertype(head: &[u8]) -> Option<(u16, usize)> {
    let be16 = |o: usize| head.get(o..o + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let mut tags = 0;
    loop {
        let et = be16(ETHERTYPE_OFFSET + tags)?;
        if tags == MAX_VLAN_TAGS * VLAN_TAG_BYTES || !is_vlan_tpid(et) {
            return Some((et, tags));
        }
        tags += VLAN_TAG_BYTES;
    }
}

/// The frame length the header states, or `None` when the rule above does not
/// apply (too short to tell, or an EtherType without a length).
pub fn frame_len_from_header(head: &[u8]) -> Option<u32> {
    let be16 = |o: usize| {
        head.get(o..o + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as u32)
    };
    let (ethertype, t) = inner_ethertype(head)?;
    let tags = t as u32;
    match ethertype {
        ETHERTYPE_IPV4 => Some(ETH_HEADER_BYTES + tags + be16(IPV4_LEN_OFFSET + t)?),
        ETHERTYPE_IPV6 => {
            Some(ETH_HEADER_BYTES + tags + IPV6_HEADER_BYTES + be16(IPV6_LEN_OFFSET + t)?)
        }
        ETHERTYPE_ARP => Some(ARP_FRAME_BYTES + tags),
        _ => None,
    }
}

/// `frame` with VLAN tags inserted after its MAC addresses: `(TPID, tag
/// control)` each, outermost first (a TPID of [`ETHERTYPE_QINQ`] then one
/// of [`ETHERTYPE_VLAN`] for QinQ). Every header behind them moves by
/// [`VLAN_TAG_BYTES`] per tag, which the rule above follows.
///
/// # Panics
/// If `frame` is shorter than the two MAC addresses (12 bytes).
pub fn with_vlan_tags(frame: &[u8], tags: &[(u16, u16)]) -> Vec<u8> {
    let mut t = Vec::with_capacity(frame.len() + VLAN_TAG_BYTES * tags.len());
    t.extend_from_slice(&frame[..ETHERTYPE_OFFSET]);
    for (tpid, tci) in tags {
        t.extend_from_slice(&tpid.to_be_bytes());
        t.extend_from_slice(&tci.to_be_bytes());
    }
    t.extend_from_slice(&frame[ETHERTYPE_OFFSET..]);
    t
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

#[cfg(test)]
mod tests {
    use super::*;

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

    fn tagged(f: &[u8], tpids: &[u16]) -> Vec<u8> {
        let tags: Vec<(u16, u16)> = tpids.iter().map(|&p| (p, 100)).collect();
        with_vlan_tags(f, &tags)
    }

    #[test]
    fn lengths_past_vlan_tags() {
        let v4 = frame(0x0800, 16, 1500);
        let v6 = frame(0x86DD, 18, 1000);
        let arp = frame(0x0806, 16, 0);
        for tpids in [
            &[0x8100][..],
            &[0x88A8],
            &[0x88A8, 0x8100],
            &[0x8100, 0x8100],
        ] {
            let t = 4 * tpids.len() as u32;
            assert_eq!(frame_len_from_header(&tagged(&v4, tpids)), Some(1514 + t));
            assert_eq!(frame_len_from_header(&tagged(&v6, tpids)), Some(1054 + t));
            assert_eq!(frame_len_from_header(&tagged(&arp, tpids)), Some(42 + t));
            assert_eq!(
                inner_ethertype(&tagged(&v4, tpids)),
                Some((0x0800, t as usize))
            );
        }
        // A third tag, a tag with nothing after it, a custom EtherType inside.
        let three = tagged(&v4, &[0x88A8, 0x8100, 0x8100]);
        assert_eq!(inner_ethertype(&three), Some((0x8100, 8)));
        assert_eq!(frame_len_from_header(&three), None);
        assert_eq!(frame_len_from_header(&tagged(&v4, &[0x8100])[..17]), None);
        assert_eq!(
            frame_len_from_header(&tagged(&frame(0x88B5, 16, 9), &[0x8100])),
            None
        );
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
