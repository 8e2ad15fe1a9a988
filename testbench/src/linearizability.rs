//! A linearizability checker for histories of atomic verbs (Wing & Gong,
//! "Testing and verifying concurrent objects", 1993: search for a sequential
//! order that respects real time and reproduces every result; with Lowe's
//! memoisation of visited (linearized set, state) pairs).
//!
//! Written here rather than taken from `stateright` because its tester wants
//! the history recorded through its own actor model; ours comes from cycle
//! stamps of the Verilated NICs, and the sequential specification is
//! `pendulum_layout::atomic::execute` itself.

use pendulum_layout::atomic::{execute, Verb, VerbResult};
use std::collections::{BTreeMap, HashSet};

/// One completed verb: when it was invoked and when its result was seen
/// (any clock, as long as both ends use the same one), and what it returned.
#[derive(Clone, Debug)]
pub struct Op {
    pub invoked: u64,
    pub returned: u64,
    pub verb: Verb,
    pub result: VerbResult,
}

/// Memory as the sequential specification sees it: the words touched, by
/// index; untouched words read as their initial value.
type State = BTreeMap<usize, u64>;

/// Whether some order of `ops` that respects real time (an op that returned
/// before another was invoked comes first) gives every op its recorded
/// result, starting from `initial` (word index → value; other words 0).
/// At most 64 ops.
pub fn linearizable(ops: &[Op], initial: &BTreeMap<usize, u64>) -> bool {
    assert!(
        ops.len() <= 64,
        "the checker takes at most 64 ops per history"
    );
    let mut seen = HashSet::new();
    search(ops, 0, initial.clone(), &mut seen)
}

fn search(ops: &[Op], done: u64, state: State, seen: &mut HashSet<(u64, State)>) -> bool {
    if done.count_ones() as usize == ops.len() {
        return true;
    }
    if !seen.insert((done, state.clone())) {
        return false;
    }
    let pending = |i: usize| done & (1 << i) == 0;
    // An op can go next only if no pending op returned before it was invoked.
    let first_return = (0..ops.len())
        .filter(|&i| pending(i))
        .map(|i| ops[i].returned)
        .min()
        .unwrap();
    for i in (0..ops.len()).filter(|&i| pending(i) && ops[i].invoked <= first_return) {
        let (result, next) = apply(&state, &ops[i].verb);
        if result == ops[i].result && search(ops, done | 1 << i, next, seen) {
            return true;
        }
    }
    false
}

/// Runs `verb` on the words of `state` with the reference semantics.
fn apply(state: &State, verb: &Verb) -> (VerbResult, State) {
    let idx = verb.addr as usize / 8;
    if idx >= pendulum_layout::params::ATOMIC_BYTES as usize / 8 {
        return (execute(&mut [], verb), state.clone());
    }
    // The one word it touches, as a memory of one word (same alignment).
    let mut word = [state.get(&idx).copied().unwrap_or(0)];
    let r = execute(
        &mut word,
        &Verb {
            addr: verb.addr % 8,
            ..*verb
        },
    );
    let mut next = state.clone();
    next.insert(idx, word[0]);
    (r, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pendulum_layout::atomic::{op, status};

    fn fadd(tag: u16, add: u64, invoked: u64, returned: u64, old: u64) -> Op {
        let verb = Verb {
            op: op::FETCH_ADD,
            tag,
            addr: 8,
            operands: [add, 0, 0, 0],
            reserved_set: false,
        };
        let result = VerbResult {
            op: op::FETCH_ADD,
            tag,
            status: status::OK,
            old,
            ..VerbResult::default()
        };
        Op {
            invoked,
            returned,
            verb,
            result,
        }
    }

    #[test]
    fn overlapping_ops_may_go_in_either_order() {
        // Both overlap: B (add 2) can go first, so A sees 2.
        let h = [fadd(1, 1, 0, 10, 2), fadd(2, 2, 1, 9, 0)];
        assert!(linearizable(&h, &BTreeMap::new()));
    }

    #[test]
    fn real_time_order_is_enforced() {
        // A returned before B was invoked, yet A saw B's add: not linearizable.
        let h = [fadd(1, 1, 0, 5, 2), fadd(2, 2, 6, 9, 0)];
        assert!(!linearizable(&h, &BTreeMap::new()));
        // The same values with the real-time order reversed are fine.
        let h = [fadd(1, 1, 6, 9, 2), fadd(2, 2, 0, 5, 0)];
        assert!(linearizable(&h, &BTreeMap::new()));
    }

    #[test]
    fn a_value_nobody_wrote_is_caught() {
        let h = [fadd(1, 1, 0, 10, 0), fadd(2, 1, 0, 10, 0)];
        assert!(
            !linearizable(&h, &BTreeMap::new()),
            "two adds both saw 0: one was applied twice or lost"
        );
        let mut init = BTreeMap::new();
        init.insert(1, 5);
        assert!(linearizable(&[fadd(1, 1, 0, 1, 5)], &init));
    }
}
