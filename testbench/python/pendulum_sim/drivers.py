"""Bus drivers and monitors for the NIC's interfaces, cocotb-extension style.

Each one attaches to a ``Dut`` and talks to the Rust model of its interface,
so the per-cycle work stays in Rust. The high-level ``Driver`` is the real
Rust userspace driver; its calls run simulated time while they work, as a
CPU would, without yielding to other coroutines.
"""

from __future__ import annotations

from typing import NamedTuple, Any, Dict, List, Optional, Tuple

from . import ClockCycles, RisingEdge, layout


def _frame_bytes(frame: Any) -> bytes:
    """Accepts bytes-like objects and scapy packets (anything ``bytes()`` takes)."""
    if isinstance(frame, (bytes, bytearray, memoryview)):
        return bytes(frame)
    try:
        return bytes(frame)  # scapy's Packet defines __bytes__
    except TypeError:
        raise TypeError(f"a frame must be bytes or a scapy packet, not {type(frame).__name__}") from None


class EthernetSource:
    """Sends frames into the NIC's eth_rx port through the Rust MAC model."""

    def __init__(self, dut):
        self._dut = dut

    def send(self, frame: Any) -> None:
        """Queues a frame (bytes or a scapy packet); it goes out beat by beat."""
        self._dut.sim.eth_send(_frame_bytes(frame))

    async def wait_idle(self, poll_cycles: int = 16) -> None:
        """Returns once every queued frame has been accepted by the NIC."""
        while self._dut.sim.eth_stats()[0]:
            await ClockCycles(self._dut.clk, poll_cycles)

    @property
    def frames_sent(self) -> int:
        return self._dut.sim.eth_stats()[1]

    @property
    def stall_cycles(self) -> int:
        return self._dut.sim.eth_stats()[3]


class EthernetSink:
    """Frames the NIC sends on its eth_tx port, as the Rust MAC model rebuilt them."""

    def __init__(self, dut):
        self._dut = dut
        self._frames: List[bytes] = []

    def _collect(self) -> None:
        self._frames.extend(self._dut.sim.eth_tx_take())

    async def recv(self, timeout_cycles: int = 1_000_000, poll_cycles: int = 16) -> bytes:
        """The next frame, waiting for it in simulated time."""
        waited = 0
        while True:
            self._collect()
            if self._frames:
                return self._frames.pop(0)
            if waited >= timeout_cycles:
                raise TimeoutError(f"no frame on eth_tx within {timeout_cycles} cycles")
            await ClockCycles(self._dut.clk, poll_cycles)
            waited += poll_cycles

    def frames(self) -> List[bytes]:
        """Every frame received and not yet taken."""
        self._collect()
        out, self._frames = self._frames, []
        return out

    @property
    def protocol_errors(self) -> int:
        return self._dut.sim.eth_tx_stats()[2]


class Mmio:
    """Register access over the PCIe model: a write is posted, a read a round trip."""

    def __init__(self, dut, timeout_cycles: int = 100_000):
        self._dut = dut
        self.timeout_cycles = timeout_cycles

    def write(self, addr: int, value: int) -> None:
        if not 0 <= value < 1 << 32:
            raise ValueError(f"registers are 32 bits; {value:#x} does not fit")
        self._dut.sim.mmio_write(addr, value)

    async def read(self, addr: int) -> int:
        sim = self._dut.sim
        sim.mmio_read_start(addr)
        for _ in range(self.timeout_cycles):
            await RisingEdge(self._dut.clk)
            v = sim.mmio_read_poll()
            if v is not None:
                return v
        raise TimeoutError(f"register read at {addr:#x} not answered in {self.timeout_cycles} cycles")


class HostMemory:
    """Host memory behind the PCIe model, and the model's byte counters."""

    def __init__(self, dut):
        self._dut = dut

    def alloc(self, length: int, kind: str = "other", mirrored: bool = False) -> int:
        """Returns the bus address of ``length`` new zeroed bytes."""
        _, iova = self._dut.sim.mem_alloc(length, kind, mirrored)
        return iova

    def read(self, iova: int, length: int) -> bytes:
        return self._dut.sim.mem_read(iova, length)

    def pcie_counters(self) -> Dict[str, int]:
        return self._dut.sim.pcie_counters()


class RxEntry(NamedTuple):
    """A received frame and its ring header's fields (``layout.RING``):
    FLAGS (``layout.RING.FLAGS`` names the bits), the flow's RSS hash, and
    the NIC's cycle counter when its first beat entered the core."""

    frame: bytes
    flags: int
    hash: int
    timestamp: int


class RxPipe:
    """A receive pipe opened through the Rust driver."""

    def __init__(self, driver: "Driver", index: int):
        self._driver = driver
        self.index = index

    def bind(self, src: str, dst: str, proto: int, sport: int = 0, dport: int = 0) -> None:
        """Steers a flow here (flow director exact match): addresses as text, IPv4 or IPv6."""
        import ipaddress
        s, d = ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed
        self._driver._sim.bind_flow(self.index, s, d, proto, sport, dport)

    def wait(self, max_polls: int = 100_000) -> bool:
        """Polls (running simulated time) until frames wait; False if none came."""
        return self._driver._sim.rx_wait(self.index, max_polls)

    def recv(self) -> List[bytes]:
        """The frames waiting now, in order; they are freed in the ring."""
        return self._driver._sim.rx_recv(self.index)

    def recv_entries(self) -> List[RxEntry]:
        """The frames waiting now with their ring headers, in order; freed."""
        return [RxEntry(*e) for e in self._driver._sim.rx_recv_entries(self.index)]

    def recv_n(self, n: int, max_polls: int = 1_000_000) -> List[bytes]:
        """Exactly ``n`` frames, or TimeoutError with how many came."""
        return [e.frame for e in self.recv_entries_n(n, max_polls)]

    def recv_entries_n(self, n: int, max_polls: int = 1_000_000) -> List[RxEntry]:
        """Exactly ``n`` frames with their headers, or TimeoutError."""
        got: List[RxEntry] = []
        while len(got) < n:
            if not self.wait(max_polls):
                raise TimeoutError(f"pipe {self.index}: {len(got)} of {n} frames arrived")
            got.extend(self.recv_entries())
        return got


class TxPipe:
    """A transmit pipe opened through the Rust driver."""

    def __init__(self, driver: "Driver", index: int):
        self._driver = driver
        self.index = index

    def send(self, frames: List[Any]) -> int:
        """Queues frames (bytes or scapy packets) with one doorbell; returns how many fit."""
        return self._driver._sim.tx_send(self.index, [_frame_bytes(f) for f in frames])

    def send_all(self, frames: List[Any], max_polls: int = 1_000_000) -> None:
        """Queues every frame, waiting for room as the NIC completes earlier ones."""
        pending = [_frame_bytes(f) for f in frames]
        while pending:
            n = self._driver._sim.tx_send(self.index, pending)
            pending = pending[n:]
            if pending and not n and not self.wait_idle(max_polls):
                raise TimeoutError(f"TX pipe {self.index} made no room")

    def send_stamped(self, frames: List[Any]) -> int:
        """Queues frames asking a TX stamp for each; returns how many fit.
        Take the stamps with ``stamps()``: until then their ring space stays
        held."""
        return self._driver._sim.tx_send_stamped(self.index, [_frame_bytes(f) for f in frames])

    def stamps(self) -> List[Tuple[int, int, int]]:
        """The TX stamps that have come, in send order: (entry unit, length,
        cycles), cycles being the NIC's clock when the frame's first beat
        left for the MAC (the clock of RX timestamps and ``CYCLES``)."""
        return self._driver._sim.tx_stamps(self.index)

    def wait_idle(self, max_polls: int = 1_000_000) -> bool:
        """Polls (running simulated time) until everything posted is sent or dropped."""
        return self._driver._sim.tx_wait_idle(self.index, max_polls)


class Driver:
    """The Rust userspace driver on the simulated card (pipes, counters, registers)."""

    def __init__(self, dut):
        self._dut = dut
        self._sim = dut.sim

    def open(self) -> None:
        """Checks identity and version, as ``Device::open`` does; raises DriverError."""
        self._sim.open_device()

    def rx_pipe(self, index: int, ring_bytes: int = 64 * 1024) -> RxPipe:
        self._sim.open_rx_pipe(index, ring_bytes)
        return RxPipe(self, index)

    def tx_pipe(self, index: int, ring_bytes: int = 64 * 1024) -> TxPipe:
        self._sim.open_tx_pipe(index, ring_bytes)
        return TxPipe(self, index)

    def counters(self) -> Dict[str, int]:
        return self._sim.counters()

    def cycles(self) -> int:
        """The NIC's CYCLES counter: the clock RX and TX stamps are taken on."""
        return self._sim.nic_cycles()

    def write_checked(self, addr: int, value: int) -> None:
        self._sim.write_checked(addr, value)

    def atomics(self, rx: int = 3, tx: int = 3, ring_bytes: int = 16 * 1024) -> "Atomics":
        """Binds TX pipe ``tx`` to the atomic unit and RX pipe ``rx`` to its results."""
        self._sim.open_atomics(rx, tx, ring_bytes)
        return Atomics(self)

    def per_packet_notifications(self, on: bool) -> None:
        self._sim.set_per_packet_notifications(on)

    @staticmethod
    def pipe_reg(pipe: int, name: str) -> int:
        return layout.pipe_page(pipe) + layout.PIPE[name]


class Atomics:
    """Local atomic verbs on the card's memory (8-byte words, naturally
    aligned). Each returns the old value; a misaligned or out-of-range address
    raises DriverError. Opcodes as in ``pendulum_layout::atomic::op``."""

    CAS = layout.OP["CAS"]
    FETCH_ADD = layout.OP["FETCH_ADD"]
    SWAP = layout.OP["SWAP"]
    MASKED_CAS = layout.OP["MASKED_CAS"]
    MASKED_FETCH_ADD = layout.OP["MASKED_FETCH_ADD"]

    def __init__(self, driver: "Driver"):
        self._sim = driver._sim

    def _run(self, op: int, addr: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> int:
        mask = (1 << 64) - 1
        _status, old = self._sim.atomic(op, addr, [a & mask, b & mask, c & mask, d & mask])
        return old

    def cas(self, addr: int, expected: int, new: int) -> int:
        return self._run(self.CAS, addr, expected, new)

    def fetch_add(self, addr: int, n: int) -> int:
        return self._run(self.FETCH_ADD, addr, n)

    def swap(self, addr: int, value: int) -> int:
        return self._run(self.SWAP, addr, value)

    def masked_cas(self, addr: int, expected: int, new: int, compare_mask: int, swap_mask: int) -> int:
        return self._run(self.MASKED_CAS, addr, expected, new, compare_mask, swap_mask)

    def masked_fetch_add(self, addr: int, n: int, boundary: int) -> int:
        return self._run(self.MASKED_FETCH_ADD, addr, n, boundary)

    def commit(self, addr: int, compare: dict, write: dict) -> "tuple[bool, list[int]]":
        """Multi-word commit on the 64-byte line at ``addr``: ``compare`` and
        ``write`` map word numbers (0..7) to values. If every compared word
        holds its value, every written word is set, all or nothing. Returns
        (wrote, the line's eight words as they were)."""
        mask = (1 << 64) - 1
        for words in (compare, write):
            bad = [w for w in words if not 0 <= w < 8]
            if bad:
                raise ValueError(f"word numbers must be 0..7, got {bad}")
        cmask = sum(1 << w for w in compare)
        wmask = sum(1 << w for w in write)
        cmp_line = [compare.get(w, 0) & mask for w in range(8)]
        new_line = [write.get(w, 0) & mask for w in range(8)]
        wrote, old = self._sim.commit(addr, cmask, cmp_line, wmask, new_line)
        return wrote, list(old)
