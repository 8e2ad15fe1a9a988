#!/usr/bin/env python3
"""Walks the deepest paths of a Yosys netlist (`synth.py`'s netlist.json)
cell by cell, to see *why* a path is deep: every LUT, MUXF, CARRY and
LUT-RAM on it, the registers that feed each cell, and where the path
crosses a carry chain or a LUT-RAM read. ABC maps the logic on each side of
such a box on its own (the box's inputs are its outputs, its outputs its
inputs at time 0), so a path through one can come out deeper in the whole
core than in the block alone; `synth.py` reports the depth, this shows the
cells. Counting is `synth.py`'s: LUTs and LUT-RAM reads 1, MUXF/CARRY 0.

  python3 rtl-gen/scripts/depth_walk.py build/synth/alveo-u250/netlist.json
  python3 rtl-gen/scripts/depth_walk.py build/synth/alveo-u250/block_atomic/netlist.json \\
      --top pendulum_nic__atomic --min 8 --match w_data
"""
import argparse
import collections
import json
import re
import sys

SEQ = re.compile(r"^(FD|RAMB|URAM|IBUF|OBUF|BUFG|DSP)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("netlist")
    ap.add_argument("--top", default="pendulum_nic", help="module (pendulum_nic, or pendulum_nic__<block>)")
    ap.add_argument("--min", type=int, default=None, help="show endpoints at least this deep (default: the deepest)")
    ap.add_argument("--match", default="", help="only endpoints whose name contains this")
    ap.add_argument("--paths", type=int, default=4, help="at most this many paths")
    a = ap.parse_args()
    sys.setrecursionlimit(1_000_000)
    mod = json.load(open(a.netlist))["modules"][a.top]
    cells = mod["cells"]
    names = {}
    for n, v in mod["netnames"].items():
        for i, b in enumerate(v["bits"]):
            if isinstance(b, int):
                lab = n if len(v["bits"]) == 1 else f"{n}[{i}]"
                old = names.get(b)
                if old is None or (old.startswith("$") and not lab.startswith("$")) or (
                        len(lab) < len(old) and not lab.startswith("$")):
                    names[b] = lab
    driver, outbit = {}, {}
    for cn, c in cells.items():
        for p, bits in c["connections"].items():
            if c.get("port_directions", {}).get(p) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = cn
                        outbit.setdefault(cn, b)

    def inputs(cn):
        c = cells[cn]
        lutram = c["type"].startswith("RAM") and not c["type"].startswith("RAMB")
        for p, bits in c["connections"].items():
            if c.get("port_directions", {}).get(p) != "input":
                continue
            if lutram and not re.match(r"(ADDR|A\d|DPRA)", p):
                continue  # a LUT-RAM's read path starts at its address
            for b in bits:
                if isinstance(b, int):
                    yield b

    def weight(t):
        return 1 if re.fullmatch(r"LUT[1-6]", t) or (t.startswith("RAM") and not t.startswith("RAMB")) else 0

    arrival, via = {}, {}

    def arr(cn):
        if cn in arrival:
            return arrival[cn]
        arrival[cn] = 0
        best, arg = 0, None
        for b in inputs(cn):
            d = driver.get(b)
            if d is None or SEQ.match(cells[d]["type"]):
                continue
            v = arr(d)
            if v > best:
                best, arg = v, d
        arrival[cn] = best + weight(cells[cn]["type"])
        via[cn] = arg
        return arrival[cn]

    ends = collections.defaultdict(lambda: (0, None))
    for cn, c in cells.items():
        if not SEQ.match(c["type"]):
            continue
        for p, bits in c["connections"].items():
            if c.get("port_directions", {}).get(p) != "input":
                continue
            for b in bits:
                d = driver.get(b) if isinstance(b, int) else None
                if d is None or SEQ.match(cells[d]["type"]):
                    continue
                label = names.get(outbit.get(cn), "?") if c["type"].startswith("FD") else f"{c['type']}.{p}"
                base = label.split("[")[0]
                if arr(d) > ends[base][0]:
                    ends[base] = (arr(d), d, label)
    deepest = max(v[0] for v in ends.values())
    floor = deepest if a.min is None else a.min
    print(f"deepest: {deepest} LUT levels; endpoints at {floor} or more:")
    shown = 0
    for base, (lv, d, label) in sorted(ends.items(), key=lambda kv: -kv[1][0]):
        if lv < floor or a.match not in base:
            continue
        print(f"\n{lv} levels into {label}")
        chain = []
        while d:
            chain.append(d)
            d = via.get(d)
        for x in reversed(chain):
            t = cells[x]["type"]
            regs = sorted({names.get(b, "?") for b in inputs(x)
                           if driver.get(b) and SEQ.match(cells[driver[b]]["type"])})
            box = "  <- box: ABC maps each side alone" if t.startswith("CARRY") or (t.startswith("RAM") and not t.startswith("RAMB")) else ""
            if t.startswith("CARRY") and via.get(x) and cells[via[x]]["type"].startswith("CARRY"):
                continue  # one line per carry chain
            print(f"  {arrival[x]:2} {t:7} {names.get(outbit.get(x), '?')[:64]:64} {', '.join(regs[:4])}{box}")
        shown += 1
        if shown >= a.paths:
            break


if __name__ == "__main__":
    main()
