# Vivado non-project build of Pendulum for alveo-u280: run from the repository
# root as `vivado -mode batch -source constraints/alveo-u280/build.tcl` after
# `make verilog BOARD=alveo-u280` (`make bitstream BOARD=alveo-u280` does both).
set board alveo-u280
set part xcu280-fsvh2892-2L-e
set top pendulum_au280
# GT sites of each CMAC: the quads of the QSFP28 cages (pins.xdc).
set cmac_gt(0) {X0Y40~X0Y43}
set cmac_gt(1) {X0Y44~X0Y47}
set init_clk_mhz 100
source [file join [file dirname [info script]] .. alveo build_common.tcl]
