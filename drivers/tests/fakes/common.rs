//! What several of the driver's test files build frames with.

use pendulum_driver::layout::frame::ETHERTYPE_IPV4;
use pendulum_driver::FlowKey;

/// A UDP frame of `key` (IPv4), `len` bytes, its payload filled with `fill`.
pub fn udp_frame(key: &FlowKey, len: usize, fill: u8) -> Vec<u8> {
    let mut f = vec![fill; len];
    f[..12].copy_from_slice(&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    f[14..34].fill(0);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    f[22] = 64;
    f[23] = key.proto;
    f[26..30].copy_from_slice(&key.src[..4]);
    f[30..34].copy_from_slice(&key.dst[..4]);
    f[34..36].copy_from_slice(&key.sport.to_be_bytes());
    f[36..38].copy_from_slice(&key.dport.to_be_bytes());
    f[38..40].copy_from_slice(&((len - 34) as u16).to_be_bytes());
    f
}

/// A frame of `len` bytes whose byte k is `tag + k` (wrapping), so any
/// misplaced byte shows. Any bytes go: the card delimits a frame by its
/// ring entry's header, not by its EtherType or IP length.
pub fn patterned_frame(tag: u8, len: usize) -> Vec<u8> {
    (0..len).map(|k| tag.wrapping_add(k as u8)).collect()
}
