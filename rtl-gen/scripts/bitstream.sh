#!/usr/bin/env bash
# `make bitstream BOARD=<board>`: runs the vendor flow if its tool is on the
# PATH, else says what is missing. The Verilog must already be generated
# (the Makefile runs `make verilog BOARD=<board>` first).
set -euo pipefail
board=${1:?usage: bitstream.sh BOARD}
case "$board" in
  alveo-u250|alveo-u280)
    if ! command -v vivado >/dev/null 2>&1; then
      echo "bitstream: 'vivado' is not on the PATH. $board needs AMD Vivado (2022.2 or later, with the" >&2
      echo "  UltraScale+ devices; the CMAC needs AMD's no-charge licence key, QDMA comes with Vivado)." >&2
      echo "  Source its settings64.sh, then run: make bitstream BOARD=$board" >&2
      echo "  The Verilog and constraints are ready: build/rtl/$board/, constraints/$board/." >&2
      exit 2
    fi
    mkdir -p "build/vivado/$board"
    exec vivado -mode batch -nojournal -log "build/vivado/$board/vivado.log" -source "constraints/$board/build.tcl"
    ;;
  stratix10-mx)
    if ! command -v quartus_sh >/dev/null 2>&1; then
      echo "bitstream: 'quartus_sh' is not on the PATH. $board needs Intel Quartus Prime Pro (19.3 or later," >&2
      echo "  with Stratix 10 support; the PCIe and E-tile Ethernet hard IP need no extra licence)." >&2
      echo "  Put its bin directory on the PATH, then run: make bitstream BOARD=$board" >&2
      echo "  The Verilog and constraints are ready: build/rtl/$board/, constraints/$board/." >&2
      exit 2
    fi
    exec quartus_sh -t constraints/stratix10-mx/flow.tcl
    ;;
  *)
    echo "bitstream: no vendor flow for BOARD=$board; boards: alveo-u250 alveo-u280 stratix10-mx" >&2
    exit 2
    ;;
esac
