# Quartus Prime Pro flow for Pendulum on the Stratix 10 MX development kit:
# `quartus_sh -t constraints/stratix10-mx/flow.tcl` from the repository root,
# after `make verilog BOARD=stratix10-mx` (`make bitstream` does both).
# The two IP variants are generated from Tcl with qsys-script / ip-deploy
# before the compile. Not tried: no Quartus was available where this was written.
# Parameter names follow the IP user guides; check them with
# `ip-deploy --component-name=<ip> --list-parameters` (or the IP editor) on first use.
package require ::quartus::project
package require ::quartus::flow
set here [file normalize [file dirname [info script]]]
set work [file normalize build/quartus/stratix10-mx]
file mkdir $work/ip
file copy -force $here/pendulum.qsf $work/pendulum.qsf
file copy -force $here/pendulum.sdc $work/pendulum.sdc
cd $work

# PCIe: L-/H-tile Avalon-MM+ (Gen3 x16, 512-bit, 250 MHz), bursting master for
# BAR 0 (16 MiB) and bursting slave for card-initiated host access.
exec ip-deploy --family=Stratix\ 10 --part=1SM21BHU2F53E1VG \
    --component-name=altera_pcie_s10_hip_avmm_bridge_512 --output-name=pcie_avmmp \
    --component-parameter=pcie_link_width_hwtcl=x16 \
    --component-parameter=pcie_gen_hwtcl=Gen3 \
    --component-parameter=bar0_address_width_hwtcl=24 \
    --output-directory=ip
# Ethernet: E-tile Hard IP for Ethernet, 100GE MAC+PCS, Avalon-ST client.
# The top's adapters (hdl/src/boards/avalon_st_eth_*.rs) expect, to confirm in
# the IP editor on first use: TX ready latency 0; the FCS inserted on TX and
# stripped on RX (the core's frames carry none); no preamble pass-through.
exec ip-deploy --family=Stratix\ 10 --part=1SM21BHU2F53E1VG \
    --component-name=alt_ehipc2 --output-name=alt_ehipc2 \
    --component-parameter=ACTIVE_CHANNEL=0 \
    --component-parameter=core_variant=3 \
    --output-directory=ip

project_open pendulum -force
execute_flow -compile
project_close
puts "bitstream: $work/output_files/pendulum.sof"
