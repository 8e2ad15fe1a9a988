# Vivado non-project build of Pendulum for alveo-u250: run from the repository
# root as `vivado -mode batch -source constraints/alveo-u250/build.tcl` after
# `make verilog BOARD=alveo-u250` (`make bitstream BOARD=alveo-u250` does both).
set board alveo-u250
set part xcu250-figd2104-2L-e
set top pendulum_au250
# GT sites of each CMAC: the quads of the QSFP28 cages (pins.xdc).
set cmac_gt(0) {X1Y44~X1Y47}
set cmac_gt(1) {X1Y40~X1Y43}
set init_clk_mhz 156.25
source [file join [file dirname [info script]] .. alveo build_common.tcl]
