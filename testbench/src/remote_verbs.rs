//! Remote atomic verbs from A's host to B's atomic unit over the ACP link of
//! an [`AcpTraffic`] pair, and the bookkeeping of what came back to A: a
//! result (final: the verb was applied exactly once) or the verb handed back
//! (not delivered: never applied; in doubt: maybe). Shared by the tests.

use crate::acp_traffic::AcpTraffic;
use pendulum_driver::{Atomics, MsgKind};
use pendulum_layout::atomic::{Request, Verb, VerbResult};
use std::collections::BTreeMap;

/// What came back to A for its remote verbs.
#[derive(Default)]
pub struct VerbOutcomes {
    /// Results by tag, with the cycle A's host saw each.
    pub results: BTreeMap<u16, (VerbResult, u64)>,
    /// Verbs handed back instead, with why.
    pub returned: Vec<(Verb, MsgKind)>,
    /// Anything else on A's link pipe: messages, booked on A's endpoint
    /// (`Endpoint::note`) for the traffic checks.
    pub other: usize,
}

impl VerbOutcomes {
    /// Takes what waits on A's link pipe. Panics on a second outcome for a
    /// tag: a verb gets exactly one (a result, or a hand-back). Anything
    /// else is booked on A's endpoint.
    pub fn take(&mut self, t: &mut AcpTraffic) {
        let cycle = t.cycle();
        for m in t.a.link.recv(&mut t.a.dev).unwrap() {
            if let Some(r) = m.verb_result() {
                assert!(
                    !self.returned.iter().any(|(v, _)| v.tag == r.tag),
                    "verb {} got a result after it was handed back",
                    r.tag
                );
                assert!(
                    self.results.insert(r.tag, (r, cycle)).is_none(),
                    "a second result for tag {}",
                    r.tag
                );
            } else if let Some(v) = m.returned_verb() {
                assert!(
                    !self.results.contains_key(&v.tag),
                    "verb {} was handed back ({:?}) after its result came",
                    v.tag,
                    m.kind
                );
                self.returned.push((v, m.kind));
            } else {
                self.other += 1;
                t.a.note(m);
            }
        }
    }

    /// Verbs with an outcome.
    pub fn accounted(&self) -> usize {
        self.results.len() + self.returned.len()
    }

    /// How verb `tag` ended, if it has.
    pub fn outcome(&self, tag: u16) -> Option<Outcome> {
        if let Some((r, _)) = self.results.get(&tag) {
            return Some(Outcome::Result(*r));
        }
        self.returned
            .iter()
            .find(|(v, _)| v.tag == tag)
            .map(|&(_, k)| match k {
                MsgKind::InDoubt => Outcome::InDoubt,
                _ => Outcome::NotDelivered,
            })
    }
}

/// One verb's end, as A's driver reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Applied exactly once, with this result.
    Result(VerbResult),
    /// Handed back: never applied.
    NotDelivered,
    /// Handed back: applied once or not at all.
    InDoubt,
}

/// Posts `verbs` on A's link (as many per doorbell as fit), reading A's
/// link pipe every `read_every_cycles`, until each has an outcome or
/// `max_cycles` pass. Returns the outcomes and the cycle each verb was posted.
pub fn run_remote<Q: Copy + Into<Request>>(
    t: &mut AcpTraffic,
    verbs: &[Q],
    read_every_cycles: u64,
    max_cycles: u64,
) -> (VerbOutcomes, Vec<u64>) {
    let verbs: Vec<Request> = verbs.iter().map(|&q| q.into()).collect();
    let mut out = VerbOutcomes::default();
    let mut posted = Vec::new();
    let end = t.cycle() + max_cycles;
    let mut next_read = t.cycle();
    while out.accounted() < verbs.len() && t.cycle() < end {
        if posted.len() < verbs.len() {
            let n =
                t.a.link
                    .send_requests(&mut t.a.dev, &verbs[posted.len()..])
                    .unwrap();
            let now = t.cycle();
            posted.extend(std::iter::repeat(now).take(n));
        }
        if t.cycle() >= next_read {
            out.take(t);
            next_read = t.cycle() + read_every_cycles;
        }
        t.pair.borrow_mut().run(8);
    }
    (out, posted)
}

/// B's words at `addrs`, read by B's host (fetch-and-add 0).
pub fn b_words(t: &mut AcpTraffic, at: &mut Atomics, addrs: &[u32]) -> Vec<u64> {
    addrs
        .iter()
        .map(|&a| at.fetch_add(&mut t.b.dev, a, 0).unwrap())
        .collect()
}
