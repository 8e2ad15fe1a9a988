//! Host randomness without a dependency, for the link's nonce seed and the
//! session token written at open.

use std::hash::{BuildHasher, Hasher};

/// 32 random bits: std's hasher keys come from the OS (and differ on every
/// call in a thread), mixed with the time and the process id.
pub(crate) fn host_random() -> u32 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish() as u32
}
