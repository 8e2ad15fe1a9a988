#!/usr/bin/env python3
"""README tables from `pendulum-acp-bench`'s JSON (build/bench/acp.json).

    python3 testbench/scripts/acp_tables.py [build/bench/acp.json]

Prints three Markdown tables: goodput (bytes per cycle, and its share of
issue #25's bound) by round trip and channels in use, one direction and
both, unpaced (one record a cycle) and paced at 100 GbE; remote verbs per
cycle by op; and the cycles from an offer on the wire to its decision.
Every figure is read from the rows the bench wrote (their keys are the ones
issue #25 names), so the README can quote a run without retyping it.
"""

import json
import sys


def pct(share):
    return f"{100 * share:.0f} %"


def goodput_table(rows):
    by = {}
    for r in rows:
        by.setdefault((r["rtt_cycles"], r["k"], r["paced"], r["directions"]), []).append(r)
    keys = sorted({(rtt, k) for rtt, k, _, _ in by})
    out = [
        "| RTT | K | one way, unpaced | one way, paced | both ways, unpaced (each) | both ways, paced (each) | bound unpaced / paced | hosts' bound |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(rtt, k, paced, dirs):
        rs = by.get((rtt, k, paced, dirs))
        if not rs:
            return "–"
        g = " / ".join(f"{r['goodput_bytes_per_cycle']:.1f}" for r in rs)
        return f"{g} ({pct(min(r['share_of_bound'] for r in rs))})"

    for rtt, k in keys:
        if (rtt, k, True, 1) not in by:
            continue  # the K = 1 and 4 rows: unpaced one way only
        bound = lambda paced: by[(rtt, k, paced, 1)][0]["bound_bytes_per_cycle"]
        host = by[(rtt, k, False, 1)][0]["host_bound_bytes_per_cycle"]
        out.append(
            f"| {rtt} | {k} | {cell(rtt, k, False, 1)} | {cell(rtt, k, True, 1)} | "
            f"{cell(rtt, k, False, 2)} | {cell(rtt, k, True, 2)} | "
            f"{bound(False):.1f} / {bound(True):.1f} | {host:.1f} |"
        )
    return "\n".join(out)


def verbs_table(rows):
    by = {}
    for r in rows:
        by[(r["rtt_cycles"], r["k"], r["paced"], r["op"])] = r
    ops = sorted({op for *_, op in by})
    keys = sorted({(rtt, k) for rtt, k, _, _ in by})
    head = "| RTT | K | " + " | ".join(
        f"{op}, {'paced' if paced else 'unpaced'}" for op in ops for paced in (False, True)
    ) + " | bound unpaced / paced |"
    out = [head, "|---:|---:|" + "---:|" * (2 * len(ops) + 1)]
    for rtt, k in keys:
        cells = []
        for op in ops:
            for paced in (False, True):
                r = by.get((rtt, k, paced, op))
                cells.append(
                    f"{r['verbs_per_cycle']:.3f} ({pct(r['share_of_bound'])})" if r else "–"
                )
        b = [by.get((rtt, k, p, ops[0])) for p in (False, True)]
        bound = " / ".join(f"{x['bound_verbs_per_cycle']:.3f}" if x else "–" for x in b)
        out.append(f"| {rtt} | {k} | " + " | ".join(cells) + f" | {bound} |")
    return "\n".join(out)


def latency_table(rows):
    by = {}
    for r in rows:
        by.setdefault((r["rtt_cycles"], r["kind"]), {})[r["k"]] = r["decision_cycles"]
    ks = sorted({k for v in by.values() for k in v})
    out = [
        "| RTT | kind | " + " | ".join(f"K = {k}" for k in ks) + " |",
        "|---:|---|" + "---:|" * len(ks),
    ]
    for (rtt, kind), v in sorted(by.items()):
        out.append(
            f"| {rtt} | {kind} | "
            + " | ".join(f"RTT + {v[k] - rtt}" if k in v else "–" for k in ks)
            + " |"
        )
    return "\n".join(out)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "build/bench/acp.json"
    if path in ("-h", "--help"):
        print(__doc__.strip())
        return
    d = json.load(open(path))
    print(f"acp.json at {d['git_revision']}, K = {d['channels_built']} built, "
          f"hosts {d['host_pcie']}\n")
    print(goodput_table(d["goodput"]) + "\n")
    print(verbs_table(d["remote_verbs"]) + "\n")
    print(latency_table(d["decision_latency"]))


if __name__ == "__main__":
    main()
