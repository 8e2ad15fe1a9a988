"""The baseline for pendulum_sim's speed: cocotb 1.9 with Icarus Verilog on the NIC's simulation Verilog.

Issue #27 asks that a pendulum_sim coroutine awaiting every edge and reading a port run at 20 times or more the
speed of cocotb 1.9 with Icarus (or Verilator) on the same Verilog. This file is both halves of that measurement:

- run as a program, it builds build/rtl/sim/pendulum_nic.v with Icarus through cocotb's runner and runs the test
  below in it, then prints and writes the figure (`bench_speed.py` calls it; `make bench` installs Icarus and
  cocotb 1.9 first);
- imported by cocotb inside the simulator, it is that test: a clock, a reset, the frames bench_speed.py streams
  (read from FRAMES_FILE, so the bytes are the same), and a coroutine that awaits every rising edge and reads
  `dma_wr_valid`, as bench_speed.py's `python_edges` does.

cocotb 1.9 does not run under Debian's Verilator 5.006 (it needs 5.036 or later), hence Icarus. The cocotb run
opens no pipe, so the NIC parses the frames and drops them (counted) instead of writing them to host memory: it
does less work per cycle than the pendulum_sim run it is compared with, which favours cocotb.
"""

import json
import os
import sys
import time

# Set by the runner below for the test inside the simulator.
FRAMES_FILE = "PENDULUM_COCOTB_FRAMES"
RESULT_FILE = "PENDULUM_COCOTB_RESULT"
CYCLES = "PENDULUM_COCOTB_CYCLES"
BEAT = 64  # bytes per beat of the MAC port (eth_rx_tdata is 512 bits)


def beats(frame):
    """(tdata, tkeep, tlast) of each beat of one frame, byte 0 in the low bits, as the MAC presents it."""
    out = []
    for at in range(0, len(frame), BEAT):
        chunk = frame[at:at + BEAT]
        out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, at + BEAT >= len(frame)))
    return out


# The test half exists only inside the simulator the runner below starts (cocotb's triggers need the simulator).
if FRAMES_FILE in os.environ:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, RisingEdge

    @cocotb.test()
    async def edges_and_a_port(dut):
        with open(os.environ[FRAMES_FILE]) as f:
            frames = [bytes.fromhex(line) for line in f.read().split()]
        cycles = int(os.environ[CYCLES])
        cocotb.start_soon(Clock(dut.clock, 4, units="ns").start())
        for port in ("eth_rx_tvalid", "eth_tx_tready", "dma_rd_req_ready", "dma_rd_cpl_valid", "mmio_wr_valid",
                     "mmio_rd_valid", "acp_rx_valid", "acp_link_up", "acp_tx_ready", "eth_rx_overflow_drops"):
            getattr(dut, port).value = 0
        dut.dma_wr_ready.value = 1
        dut.mmio_rsp_ready.value = 1
        # Icarus starts every register at X, so the core is reset first; it then clears its tables for a
        # thousand cycles with its inputs closed (`ClearSweep`), which the measurement does not count.
        dut.reset.value = 1
        await ClockCycles(dut.clock, 4)
        dut.reset.value = 0
        for _ in range(4 * 1024):
            await RisingEdge(dut.clock)
            if dut.eth_rx_tready.value.is_resolvable and int(dut.eth_rx_tready.value):
                break
        else:
            raise RuntimeError("the NIC never opened its Ethernet input after reset")

        taken = 0

        async def ethernet_source():
            """Frames back to back on the MAC port, each beat held until the NIC takes it."""
            nonlocal taken
            for frame in frames:
                for data, keep, last in beats(frame):
                    dut.eth_rx_tdata.value = data
                    dut.eth_rx_tkeep.value = keep
                    dut.eth_rx_tlast.value = int(last)
                    dut.eth_rx_tvalid.value = 1
                    # What the NIC's tready was at the edge, as cocotbext-axi's sources read it.
                    await RisingEdge(dut.clock)
                    while not int(dut.eth_rx_tready.value):
                        await RisingEdge(dut.clock)
                taken += 1
            dut.eth_rx_tvalid.value = 0

        cocotb.start_soon(ethernet_source())
        writes = 0
        start = time.perf_counter()
        for _ in range(cycles):
            await RisingEdge(dut.clock)
            writes += int(dut.dma_wr_valid.value)
        secs = time.perf_counter() - start
        with open(os.environ[RESULT_FILE], "w") as f:
            json.dump({"cycles": cycles, "seconds": secs, "frames_taken": taken, "dma_writes": writes}, f)


def run(verilog, frames, cycles, build_dir):
    """Build `verilog` with Icarus, run the test above for `cycles` cycles; returns (cycles, seconds, build s)."""
    from cocotb.runner import get_runner

    os.makedirs(build_dir, exist_ok=True)
    frames_file = os.path.join(build_dir, "frames.hex")
    result_file = os.path.join(build_dir, "result.json")
    with open(frames_file, "w") as f:
        f.write("\n".join(frame.hex() for frame in frames))
    runner = get_runner("icarus")
    t0 = time.perf_counter()
    runner.build(verilog_sources=[os.path.abspath(verilog)], hdl_toplevel="pendulum_nic", build_dir=build_dir,
                 always=True, timescale=("1ns", "1ps"), log_file=os.path.join(build_dir, "build.log"))
    build_secs = time.perf_counter() - t0
    here = os.path.dirname(os.path.abspath(__file__))
    runner.test(test_module="cocotb_icarus", hdl_toplevel="pendulum_nic", build_dir=build_dir, test_dir=build_dir,
                extra_env={"PYTHONPATH": here, FRAMES_FILE: os.path.abspath(frames_file),
                           RESULT_FILE: os.path.abspath(result_file), CYCLES: str(cycles)},
                log_file=os.path.join(build_dir, "test.log"))
    with open(result_file) as f:
        got = json.load(f)
    # A NIC that took nothing would make the baseline an idle design's speed.
    if got["frames_taken"] == 0:
        raise RuntimeError(f"the NIC under Icarus took no frame in {got['cycles']} cycles: see {build_dir}/test.log")
    return got["cycles"], got["seconds"], build_secs


if __name__ == "__main__":
    import cocotb
    from bench_speed import bench_frame

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    frames = [bench_frame(i) for i in range(n)]
    cycles, secs, build = run("build/rtl/sim/pendulum_nic.v", frames, n, "build/cocotb-icarus")
    print(f"cocotb {cocotb.__version__} + Icarus: {cycles} cycles in {secs:.2f} s: {cycles / secs:,.0f} cycles/s "
          f"(build {build:.1f} s)")
