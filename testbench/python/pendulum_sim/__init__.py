"""pendulum_sim: cocotb-style test benches on Pendulum's Verilated NIC.

Tests are ``async def`` functions that take the DUT, await clock edges and
read or drive its ports by name; the simulation itself (the Verilated model
and the models of host memory, PCIe and Ethernet) runs in Rust. While every
coroutine waits, the scheduler advances the model in one Rust call up to the
next wake-up, so waiting costs no Python per cycle::

    import pendulum_sim as ps

    @ps.test()
    async def test_identity(dut):
        mmio = ps.Mmio(dut)
        assert await mmio.read(ps.layout.GLOBAL["IDENTITY"]) == ps.layout.IDENTITY

Timing: one step is one full clock cycle. After ``await RisingEdge(dut.clk)``
the registers hold their new values; a value written to an input port is
applied from the next cycle on and held until ``release()``.
"""

from __future__ import annotations

import functools
import inspect
from collections import deque
from types import SimpleNamespace
from typing import Any, Awaitable, Callable, Coroutine, Optional

from . import _native
from ._native import DriverError, SimulationEnded

__all__ = [
    "Dut", "Port", "RisingEdge", "ClockCycles", "Task", "start_soon", "run", "test",
    "layout", "DriverError", "SimulationEnded",
    "EthernetSource", "EthernetSink", "Mmio", "HostMemory", "Driver", "Atomics",
]


def _ring_layout(raw) -> SimpleNamespace:
    """The v2 ring format: 16-byte units, a 16-byte header per entry."""
    return SimpleNamespace(
        UNIT_BYTES=raw["unit_bytes"],
        HEADER_BYTES=raw["header_bytes"],
        FIELDS=dict(raw["fields"]),
        FLAGS=dict(raw["flags"]),
        NIC_FLAGS=raw["nic_flags"],
        TX_FLAGS=dict(raw["tx_flags"]),
    )


def _tx_stamp_layout(raw) -> SimpleNamespace:
    """The TX stamp record: one 16-byte slot per ring unit after the
    completion record (FIRST_SLOT + BYTES * unit from TX_COMPL_BASE)."""
    return SimpleNamespace(
        BYTES=raw["bytes"],
        FIRST_SLOT=raw["first_slot"],
        FIELDS=dict(raw["fields"]),
    )


def _make_layout() -> SimpleNamespace:
    raw = _native.Sim.layout()
    params = dict(raw["params"])
    return SimpleNamespace(
        IDENTITY=raw["identity"],
        VERSION=raw["version"],
        PAGE_BYTES=raw["page_bytes"],
        BEAT_BYTES=raw["beat_bytes"],
        LAST_REG_ERROR_CAUSE_SHIFT=raw["last_reg_error_cause_shift"],
        FLOW_KEY_WORDS=raw["flow_key_words"],
        GLOBAL=dict(raw["global"]),
        PIPE=dict(raw["pipe"]),
        BITS=dict(raw["bits"]),
        OP=dict(raw["op"]),
        STATUS=dict(raw["status"]),
        REG_ERROR={name: code for name, (code, _) in raw["reg_error"].items()},
        REG_ERROR_MEANING={code: meaning for code, meaning in raw["reg_error"].values()},
        PARAMS=params,
        RESET_CLEAR_CYCLES=params["RESET_CLEAR_CYCLES"],
        RING=_ring_layout(raw["ring"]),
        TX_STAMP=_tx_stamp_layout(raw["tx_stamp"]),
        pipe_page=_native.Sim.pipe_page,
    )


#: pendulum-layout, the definition the HDL and the driver use: register
#: offsets (``GLOBAL``, ``PIPE``, ``pipe_page(p)``), bit fields and
#: alignments (``BITS``), atomic opcodes and statuses (``OP``, ``STATUS``),
#: register-refusal causes (``REG_ERROR``, ``REG_ERROR_MEANING``), build
#: parameters (``PARAMS``), the ring format (``RING``: units, header
#: fields, FLAGS bits, the TX_FLAGS software sets) and the TX stamp record
#: (``TX_STAMP``). Python code takes every code from here.
layout = _make_layout()

_PORTS = {name: (direction, width) for name, direction, width in _native.Sim.ports()}
_CLOCK = "clock"


class Port:
    """One port of the NIC top. ``value`` is an int (wide ports too)."""

    def __init__(self, dut: "Dut", name: str):
        self._dut = dut
        self.name = name
        self.direction, self.width = _PORTS[name]

    @property
    def value(self) -> int:
        return int.from_bytes(self._dut._sim.get(self.name), "little")

    @value.setter
    def value(self, v: int) -> None:
        if self.name == _CLOCK:
            raise ValueError("the clock is driven by the scheduler; await RisingEdge(dut.clk) instead")
        if self.direction != "input":
            raise ValueError(f"{self.name} is an output of the NIC; only inputs can be driven")
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            raise TypeError(f"{self.name}.value takes an int, not {type(v).__name__}")
        if v < 0 or v >> self.width:
            raise ValueError(f"{self.name} is {self.width} bits wide; {v:#x} does not fit")
        self._dut._sim.force(self.name, v.to_bytes((self.width + 7) // 8, "little"))

    def release(self) -> None:
        """Hands the port back to the model that drives its interface."""
        self._dut._sim.release(self.name)

    def __repr__(self) -> str:
        return f"<Port {self.name} {self.direction} [{self.width - 1}:0]>"


class Dut:
    """The NIC top: its ports as attributes (``dut.eth_rx_tvalid``); ``dut.clk`` is the clock."""

    def __init__(self, sim: "_native.Sim"):
        object.__setattr__(self, "_sim", sim)
        object.__setattr__(self, "_ports", {})

    def __getattr__(self, name: str) -> Port:
        key = _CLOCK if name == "clk" else name
        if key not in _PORTS:
            known = ", ".join(sorted(_PORTS))
            raise AttributeError(f"pendulum_nic has no port {name!r}; its ports are: {known}")
        ports = object.__getattribute__(self, "_ports")
        if key not in ports:
            ports[key] = Port(self, key)
        return ports[key]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"set a port with dut.{name}.value = ..., not dut.{name} = ...")

    @property
    def cycle(self) -> int:
        """Clock cycles simulated so far."""
        return self._sim.cycle()

    @property
    def sim(self) -> "_native.Sim":
        """The native simulation, for the bus drivers."""
        return self._sim


# ---- Triggers -------------------------------------------------------------

class _Trigger:
    def __await__(self):
        return (yield self)


class RisingEdge(_Trigger):
    """Resumes after the next rising edge of the clock."""

    def __init__(self, signal: Port):
        if not isinstance(signal, Port) or signal.name != _CLOCK:
            raise ValueError("RisingEdge takes the clock (dut.clk); the NIC has one clock")
        self.cycles = 1


class ClockCycles(_Trigger):
    """Resumes after ``n`` rising edges of the clock."""

    def __init__(self, signal: Port, n: int):
        if not isinstance(signal, Port) or signal.name != _CLOCK:
            raise ValueError("ClockCycles takes the clock (dut.clk)")
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"ClockCycles needs a positive count, not {n!r}")
        self.cycles = n


class Task(_Trigger):
    """A coroutine running beside others; ``await task`` waits for its result."""

    def __init__(self, coro: Coroutine, name: str = ""):
        self._coro = coro
        self.name = name or getattr(coro, "__qualname__", "task")
        self.done = False
        self._result: Any = None
        self._error: Optional[BaseException] = None
        self._joiners: list = []

    def result(self) -> Any:
        if not self.done:
            raise RuntimeError(f"task {self.name} has not finished")
        if self._error is not None:
            raise self._error
        return self._result

    def cancel(self) -> None:
        if not self.done:
            self._coro.close()
            self.done = True
            self._error = RuntimeError(f"task {self.name} was cancelled")

    def __await__(self):
        if not self.done:
            yield self
        return self.result()


class _Scheduler:
    def __init__(self, sim: "_native.Sim"):
        self.sim = sim
        self.ready: deque = deque()
        self.sleeping: list = []  # (wake_cycle, task)

    def start_soon(self, coro: Coroutine) -> Task:
        if not inspect.iscoroutine(coro):
            raise TypeError(f"start_soon takes a coroutine (call the async function), not {type(coro).__name__}")
        task = Task(coro)
        self.ready.append((task, None))
        return task

    def _resume(self, task: Task, value: Any) -> None:
        try:
            trigger = task._coro.send(value)
        except StopIteration as stop:
            self._finish(task, stop.value, None)
            return
        except BaseException as err:  # the test's own failure, handed to whoever awaits it
            self._finish(task, None, err)
            return
        if isinstance(trigger, Task):
            if trigger.done:
                self.ready.append((task, None))
            else:
                trigger._joiners.append(task)
        elif isinstance(trigger, (RisingEdge, ClockCycles)):
            self.sleeping.append((self.sim.cycle() + trigger.cycles, task))
        else:
            self._finish(task, None, TypeError(f"task {task.name} awaited {trigger!r}, which is not a pendulum_sim trigger"))

    def _finish(self, task: Task, result: Any, error: Optional[BaseException]) -> None:
        task.done, task._result, task._error = True, result, error
        for j in task._joiners:
            self.ready.append((j, None))
        task._joiners.clear()

    def run(self, main: Task, max_cycles: int) -> Any:
        while True:
            while self.ready:
                task, value = self.ready.popleft()
                if not task.done:
                    self._resume(task, value)
            if main.done:
                return main.result()
            if not self.sleeping:
                raise RuntimeError(f"deadlock: {main.name} waits on a task that waits on nothing")
            wake = min(w for w, _ in self.sleeping)
            now = self.sim.cycle()
            if wake > max_cycles:
                raise TimeoutError(f"{main.name} still running after {max_cycles} cycles")
            if wake > now:
                # Every coroutine sleeps until `wake`: the model runs there in Rust.
                self.sim.step(wake - now)
            woken = [t for w, t in self.sleeping if w <= wake]
            self.sleeping = [(w, t) for w, t in self.sleeping if w > wake]
            self.ready.extend((t, None) for t in woken)


_current: Optional[_Scheduler] = None


def start_soon(coro: Coroutine) -> Task:
    """Runs ``coro`` beside the caller; returns its Task (``await`` it to join)."""
    if _current is None:
        raise RuntimeError("start_soon is for use inside a running pendulum_sim test")
    return _current.start_soon(coro)


def run(test_fn: Callable[[Dut], Awaitable[Any]], *, waveform: Optional[str] = None,
        max_cycles: int = 50_000_000, **sim_args: Any) -> Any:
    """Builds a fresh NIC, runs ``await test_fn(dut)`` to completion, closes the NIC."""
    global _current
    sim = _native.Sim(waveform=waveform, **sim_args)
    dut = Dut(sim)
    sched = _Scheduler(sim)
    previous, _current = _current, sched
    try:
        main = sched.start_soon(test_fn(dut))
        main.name = getattr(test_fn, "__name__", "test")
        return sched.run(main, max_cycles)
    finally:
        _current = previous
        sim.close()


def test(**sim_args: Any):
    """Marks ``async def test_x(dut)`` as a test pytest collects; arguments go to ``run``."""
    def wrap(fn):
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"@pendulum_sim.test decorates an async def, not {fn!r}")

        @functools.wraps(fn)
        def runner():
            return run(fn, **sim_args)
        # pytest must not see the coroutine's `dut` parameter as a fixture.
        runner.__signature__ = inspect.Signature()
        return runner
    return wrap


from .drivers import Atomics, Driver, EthernetSink, EthernetSource, HostMemory, Mmio  # noqa: E402  (they use the names above)
