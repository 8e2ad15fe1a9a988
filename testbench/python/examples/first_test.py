"""A first Pendulum test bench in Python: run it with `.venv/bin/python testbench/python/examples/first_test.py`
or collect it with pytest."""

import pendulum_sim as ps
from pendulum_sim import ClockCycles, RisingEdge


@ps.test()
async def test_first_frames(dut):
    # Register access goes over the PCIe model: a read takes a round trip.
    assert await ps.Mmio(dut).read(ps.layout.GLOBAL["IDENTITY"]) == ps.layout.IDENTITY

    # Open the card and a pipe with the real Rust driver.
    drv = ps.Driver(dut)
    drv.open()
    pipe = drv.rx_pipe(0, ring_bytes=16 * 1024)

    # Watch the DMA write port while frames stream in.
    beats = 0

    async def count_dma_writes():
        nonlocal beats
        while True:
            await RisingEdge(dut.clk)
            beats += dut.dma_wr_valid.value & dut.dma_wr_ready.value

    ps.start_soon(count_dma_writes())
    frames = [ps._native.Sim.udp_frame(length, pipe=0, seq=i) for i, length in enumerate([60, 200, 1500])]
    src = ps.EthernetSource(dut)
    for f in frames:
        src.send(f)
    await src.wait_idle()
    await ClockCycles(dut.clk, 300)

    # Notifications are reactive: recv_n frees each batch, which brings the next.
    assert pipe.recv_n(len(frames)) == frames
    print(f"{len(frames)} frames received after {dut.cycle} cycles; {beats} DMA writes seen")


if __name__ == "__main__":
    test_first_frames()
