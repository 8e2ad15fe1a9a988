# Shared Vivado non-project flow of the Alveo boards; sourced by
# constraints/<board>/build.tcl, which sets board, part, top, cmac_gt(0..1)
# and init_clk_mhz. Not tried: no Vivado was available where this was written.
# The IP property names follow the IP product guides (PG203 CMAC, PG302 QDMA);
# check them with `report_property [get_ips <name>]` on first use.
set rtl  build/rtl/$board
set out  build/vivado/$board
file mkdir $out/ip
create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# ---- The IP, generated from Tcl.
foreach n {0 1} {
    create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_usplus_$n -dir $out/ip
    set_property -dict [list \
        CONFIG.CMAC_CAUI4_MODE {1} \
        CONFIG.NUM_LANES {4x25} \
        CONFIG.GT_REF_CLK_FREQ {161.1328125} \
        CONFIG.USER_INTERFACE {AXIS} \
        CONFIG.GT_DRP_CLK $init_clk_mhz \
        CONFIG.GT_GROUP_SELECT $cmac_gt($n) \
        CONFIG.INCLUDE_RS_FEC {0} \
        CONFIG.ENABLE_AXI_INTERFACE {0} \
        CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    ] [get_ips cmac_usplus_$n]
}
create_ip -name qdma -vendor xilinx.com -library ip -module_name qdma_0 -dir $out/ip
set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pl_link_cap_max_link_width {X16} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.axi_data_width {512_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.dma_intf_sel_qdma {AXI_MM} \
    CONFIG.pf0_bar0_type_qdma {AXI_Lite_Master} \
    CONFIG.pf0_bar0_scale_qdma {Megabytes} \
    CONFIG.pf0_bar0_size_qdma {16} \
    CONFIG.axibar_num {1} \
    CONFIG.en_axi_slave_if {true} \
] [get_ips qdma_0]
generate_target all [get_ips]
synth_ip [get_ips]

# ---- Pendulum's Verilog (the core, then the top with adapters and CDC FIFOs).
# vendor_stubs.v is for lint only and is not read here.
read_verilog $rtl/pendulum_nic.v $rtl/$top.v
read_xdc constraints/$board/pins.xdc
read_xdc constraints/$board/timing.xdc

synth_design -top $top -part $part
opt_design
place_design
phys_opt_design
route_design
report_utilization -file $out/utilization.rpt
report_timing_summary -file $out/timing.rpt
write_bitstream -force $out/$top.bit
puts "bitstream: $out/$top.bit"
