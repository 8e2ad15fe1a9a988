"""Simulation speed driven from Python, beside the same workload driven from Rust.

Workload: 64-byte and 100-byte frames (they fit the 2 MiB ring without freeing) streamed into one pipe, the host
receiving through the driver. Three ways, same Verilog, same run:
  rust_step      the whole run in one Rust call per chunk (no Python per cycle);
  python_edges   a Python coroutine awaits every rising edge and reads a port;
  python_driver  the Rust driver polled from Python (recv per batch).
And the baseline issue #27 names: cocotb 1.9 with Icarus Verilog on the same Verilog, a coroutine awaiting every
edge and reading a port (cocotb_icarus.py; skipped, and recorded as skipped, when either is not installed:
`make bench` installs both).
Prints a table and writes build/bench/python.json (cycles per wall second).
"""

import importlib.util
import json
import os
import shutil
import sys
import time

import pendulum_sim as ps
from pendulum_sim import RisingEdge

FRAMES = 20000
frame = ps._native.Sim.udp_frame


def bench_frame(i):
    """Frame `i` of the workload: 64 and 100 bytes in turn, all for pipe 0."""
    return frame(64 + 36 * (i % 2), pipe=0, seq=i)


def frames():
    return [bench_frame(i) for i in range(FRAMES)]


def loaded(sim):
    """The card opened by the driver, one pipe, every frame queued on the MAC side."""
    sim.open_device()
    sim.open_rx_pipe(0, 2 << 20)
    for f in frames():
        sim.eth_send(f)
    return sim


def rust_step():
    sim = loaded(ps._native.Sim())
    c0, t0 = sim.cycle(), time.perf_counter()
    while sim.eth_stats()[0]:
        sim.step(1000)
    sim.step(1000)
    cycles, secs = sim.cycle() - c0, time.perf_counter() - t0
    # Reactive notifications: the host sees the rest after each free.
    got = 0
    while got < FRAMES and sim.rx_wait(0, 100_000):
        got += len(sim.rx_recv(0))
    assert got == FRAMES, got
    return cycles, secs


def python_edges():
    out = {}

    async def bench(dut):
        sim = loaded(dut.sim)
        c0, t0 = dut.cycle, time.perf_counter()
        writes = 0
        while sim.eth_stats()[0]:
            await RisingEdge(dut.clk)
            writes += dut.dma_wr_valid.value
        out["cycles"], out["secs"] = dut.cycle - c0, time.perf_counter() - t0
        assert writes > FRAMES

    ps.run(bench)
    return out["cycles"], out["secs"]


def python_driver():
    sim = loaded(ps._native.Sim())
    c0, t0 = sim.cycle(), time.perf_counter()
    got = 0
    while got < FRAMES:
        if not sim.rx_wait(0, 1_000_000):
            raise TimeoutError(got)
        got += len(sim.rx_recv(0))
    return sim.cycle() - c0, time.perf_counter() - t0


# Icarus runs this NIC at a few hundred cycles a second: enough cycles for a steady rate, few enough for seconds.
COCOTB_CYCLES = 2000


def cocotb_icarus():
    """(cycles, seconds) of cocotb 1.9 + Icarus awaiting every edge, or None and why not."""
    if importlib.util.find_spec("cocotb") is None:
        return None, "cocotb is not installed (make bench installs cocotb 1.9 into .venv)"
    if shutil.which("iverilog") is None:
        return None, "Icarus Verilog (iverilog) is not installed (make bench installs it from Debian's packages)"
    import cocotb
    import cocotb_icarus as ci

    if not cocotb.__version__.startswith("1.9"):
        return None, f"cocotb {cocotb.__version__} is not the 1.9 the baseline names"
    frames = [bench_frame(i) for i in range(COCOTB_CYCLES)]
    cycles, secs, build = ci.run("build/rtl/sim/pendulum_nic.v", frames, COCOTB_CYCLES, "build/cocotb-icarus")
    print(f"  (cocotb {cocotb.__version__} + Icarus built the Verilog in {build:.1f} s)")
    return (cycles, secs), None


def main():
    rows = {}
    print(f"Simulation speed, {FRAMES} frames of 64 and 100 B into one pipe (cycles per wall second)")
    for name, fn in [("rust_step", rust_step), ("python_edges", python_edges), ("python_driver", python_driver)]:
        cycles, secs = fn()
        rows[name] = {"cycles": cycles, "seconds": round(secs, 4), "cycles_per_second": round(cycles / secs)}
        print(f"  {name:<14} {cycles:>10} cycles  {secs:8.3f} s  {cycles / secs:>12,.0f} cycles/s")
    ratio = rows["rust_step"]["cycles_per_second"] / rows["python_edges"]["cycles_per_second"]
    print(f"  Python awaiting every edge runs {ratio:.1f}x slower than Rust stepping")
    baseline, skipped = cocotb_icarus()
    over_cocotb = None
    if baseline is None:
        print(f"  cocotb_icarus  skipped: {skipped}")
    else:
        cycles, secs = baseline
        rows["cocotb_icarus"] = {"cycles": cycles, "seconds": round(secs, 4), "cycles_per_second": round(cycles / secs)}
        print(f"  {'cocotb_icarus':<14} {cycles:>10} cycles  {secs:8.3f} s  {cycles / secs:>12,.0f} cycles/s")
        over_cocotb = round(rows["python_edges"]["cycles_per_second"] / (cycles / secs), 1)
        print(f"  pendulum_sim awaiting every edge runs {over_cocotb}x cocotb 1.9 + Icarus (issue #27 asks 20x)")
    rev = ps._native.git_rev()
    os.makedirs("build/bench", exist_ok=True)
    with open("build/bench/python.json", "w") as f:
        json.dump({"bench": "python", "git_rev": rev, "verilator_version": ps._native.VERILATOR_VERSION, "frames": FRAMES, "results": rows,
                   "rust_over_python_edges": round(ratio, 2), "python_edges_over_cocotb_icarus": over_cocotb,
                   "cocotb_icarus_skipped": skipped, "python": sys.version.split()[0]}, f, indent=2)
    print("wrote build/bench/python.json")


if __name__ == "__main__":
    main()
