//! The flow director's table, as the driver keeps it: the card only looks
//! keys up, so the driver decides which slot each key occupies (the first
//! free one of the key's candidates, `pendulum_layout::flow`) and remembers it.

use crate::{Error, Result};
use pendulum_layout::flow::{bucket, slot, FlowKey};

#[derive(Debug)]
pub(crate) struct FlowTable {
    ways: usize,
    buckets: usize,
    /// Slot number → the key and pipe installed there.
    slots: Vec<Option<(FlowKey, usize)>>,
}

impl FlowTable {
    /// An empty table of the card's shape (CAP_FLOW_TABLE).
    pub(crate) fn new(ways: usize, buckets: usize) -> Self {
        Self {
            ways,
            buckets,
            slots: vec![None; ways * buckets],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    fn candidates(&self, key: &FlowKey) -> impl Iterator<Item = usize> + '_ {
        let hash = key.hash();
        (0..self.ways).map(move |w| slot(w, bucket(hash, w, self.buckets), self.buckets))
    }

    /// The slot holding `key`, if it is installed.
    pub(crate) fn find(&self, key: &FlowKey) -> Option<usize> {
        self.candidates(key)
            .find(|&s| matches!(self.slots[s], Some((k, _)) if k == *key))
    }

    /// The pipe `key` is bound to.
    pub(crate) fn pipe_of(&self, key: &FlowKey) -> Option<usize> {
        self.find(key).and_then(|s| self.slots[s].map(|(_, p)| p))
    }

    /// Where `key` goes: its own slot if installed, else its first free candidate.
    pub(crate) fn place(&self, key: &FlowKey) -> Result<usize> {
        self.find(key)
            .or_else(|| self.candidates(key).find(|&s| self.slots[s].is_none()))
            .ok_or(Error::FlowTableFull {
                key: *key,
                ways: self.ways,
            })
    }

    pub(crate) fn set(&mut self, slot: usize, entry: Option<(FlowKey, usize)>) {
        self.slots[slot] = entry;
    }

    /// Flows bound to `pipe`.
    pub(crate) fn bound_to(&self, pipe: usize) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s, Some((_, p)) if *p == pipe))
            .count()
    }

    /// Flows installed.
    pub(crate) fn installed(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::flow::PROTO_UDP;

    fn key(port: u16) -> FlowKey {
        FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], PROTO_UDP, 1234, port)
    }

    #[test]
    fn a_key_fills_its_candidates_then_the_table_is_full_for_it() {
        // With one bucket per way every key shares the same four slots.
        let mut t = FlowTable::new(4, 1);
        for p in 0..4 {
            let s = t.place(&key(p)).unwrap();
            t.set(s, Some((key(p), p as usize)));
        }
        assert!(matches!(
            t.place(&key(9)),
            Err(Error::FlowTableFull { ways: 4, .. })
        ));
        // Re-binding an installed key reuses its slot.
        assert_eq!(t.place(&key(2)).unwrap(), t.find(&key(2)).unwrap());
        assert_eq!(t.pipe_of(&key(3)), Some(3));
        assert_eq!(t.installed(), 4);
    }
}
