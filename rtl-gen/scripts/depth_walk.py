#!/usr/bin/env python3
"""Walks the deepest paths of a Yosys netlist (`synth.py`'s netlist.json)
cell by cell, to see *why* a path is deep: every LUT, MUXF, CARRY and
LUT-RAM on it, the registers that feed each cell, and where the path
crosses a carry chain or a LUT-RAM read. ABC maps the logic on each side of
such a box on its own (the box's inputs are its outputs, its outputs its
inputs at time 0), so a path through one can come out deeper in the whole
core than in the block alone; `synth.py` reports the depth, this shows the
cells. The walk is `synth.py`'s own (`DepthWalk`), so the two always agree.

  python3 rtl-gen/scripts/depth_walk.py build/synth/alveo-u250/netlist.json
  python3 rtl-gen/scripts/depth_walk.py build/synth/alveo-u250/block_atomic/netlist.json \\
      --top pendulum_nic__atomic --min 8 --match w_data
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synth import SEQUENTIAL, DepthWalk, _net_names  # noqa: E402


def endpoints(walk, names):
    """The deepest path into each named register (or other sequential
    cell's input): {base name: (levels, last combinational cell, label)}."""
    ends = {}
    for cn, c in walk.cells.items():
        if not SEQUENTIAL.match(c["type"]):
            continue
        outbit = next((b for p, bits in c["connections"].items()
                       if c.get("port_directions", {}).get(p) == "output"
                       for b in bits if isinstance(b, int)), None)
        for p, bits in c["connections"].items():
            if c.get("port_directions", {}).get(p) != "input":
                continue
            for b in bits:
                d = walk.driver.get(b) if isinstance(b, int) else None
                if d is None or SEQUENTIAL.match(walk.cells[d]["type"]):
                    continue
                label = names.get(outbit, "?") if c["type"].startswith("FD") else f"{c['type']}.{p}"
                base = label.split("[")[0]
                levels = walk.memo[d][0]
                if base not in ends or levels > ends[base][0]:
                    ends[base] = (levels, d, label)
    return ends


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("netlist")
    ap.add_argument("--top", default="pendulum_nic", help="module (pendulum_nic, or pendulum_nic__<block>)")
    ap.add_argument("--min", type=int, default=None, help="show endpoints at least this deep (default: the deepest)")
    ap.add_argument("--match", default="", help="only endpoints whose name contains this")
    ap.add_argument("--paths", type=int, default=4, help="at most this many paths")
    a = ap.parse_args()
    mods = json.load(open(a.netlist))["modules"]
    if a.top not in mods:
        sys.exit(f"depth_walk: no module {a.top} in {a.netlist}; it has {', '.join(sorted(mods)[:8])}")
    mod = mods[a.top]
    walk = DepthWalk(mod)
    names = _net_names(mod)
    ends = endpoints(walk, names)
    if not ends:
        sys.exit("depth_walk: no register-to-register path in this netlist")
    deepest = max(v[0] for v in ends.values())
    floor = deepest if a.min is None else a.min
    print(f"deepest: {deepest} LUT levels; endpoints at {floor} or more:")
    shown = 0
    for base, (levels, last, label) in sorted(ends.items(), key=lambda kv: -kv[1][0]):
        if levels < floor or a.match not in base:
            continue
        print(f"\n{levels} levels into {label}")
        for x in walk.chain(last):
            c = walk.cells[x]
            t = c["type"]
            via = walk.via.get(x)
            if t.startswith("CARRY") and via and walk.cells[via[1]]["type"].startswith("CARRY"):
                continue  # one line per carry chain
            regs = sorted({names.get(b, "?") for b in walk.path_inputs(x)
                           if walk.driver.get(b) and SEQUENTIAL.match(walk.cells[walk.driver[b]]["type"])})
            out = next((b for p, bits in c["connections"].items()
                        if c.get("port_directions", {}).get(p) == "output"
                        for b in bits if isinstance(b, int)), None)
            box = "  <- box: ABC maps each side alone" if t.startswith("CARRY") or (
                t.startswith("RAM") and not t.startswith("RAMB")) else ""
            print(f"  {walk.memo[x][0]:2} {t:7} {names.get(out, '?')[:64]:64} {', '.join(regs[:4])}{box}")
        shown += 1
        if shown >= a.paths:
            break


if __name__ == "__main__":
    main()
