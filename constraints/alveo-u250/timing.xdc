# Timing of Pendulum's alveo-u250 top. Not tried on hardware.
#
# Clocks at the pins. The core clock (QDMA axi_aclk, 250 MHz) and each CMAC's
# user clock (gt_txusrclk2, 322.27 MHz) are created by the IPs' own
# constraints from these references.
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
create_clock -period 6.206 -name qsfp1_refclk [get_ports qsfp1_refclk_p]
create_clock -period 6.400 -name init_clk [get_ports init_clk_p]

set core_clk [get_clocks -of_objects [get_pins pcie/axi_aclk]]
set mac_clk  [get_clocks -of_objects [get_pins mac0/gt_txusrclk2]]
set acp_clk  [get_clocks -of_objects [get_pins mac1/gt_txusrclk2]]

# ---- Crossings. Every signal between the core clock and a MAC clock goes
# through a dual-clock FIFO (hdl/src/stream/async_fifo.rs): pendulum_cdc_rx /
# pendulum_cdc_tx (instances cdc_rx, cdc_tx) for CMAC 0, pendulum_cdc_acp_rx /
# pendulum_cdc_acp_tx (acp_cdc_rx, acp_cdc_tx) for CMAC 1: Gray-coded
# pointers into two-flop synchronizers (*_meta, *_sync), and RAM data read
# only after the pointer covering it has been synchronized. pendulum_cdc_tx
# (hdl/src/stream/async_frame_fifo.rs) also passes its Gray-coded count of
# complete frames the same way (frames_gray_meta, frames_gray_sync), and
# pendulum_cdc_rx (hdl/src/stream/async_frame_drop_fifo.rs) its counts of
# committed and of dropped frames (frames_gray_*, drops_gray_*). The one other
# crossing is CMAC 1's stat_rx_aligned, a level, through the two flip-flops
# of acp_link_sync (rust-hdl's BitSynchronizer: dff0, dff1) into the core clock.
# The synchronizer flops are kept together and away from retiming:
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {NAME =~ *cdc_*/*_gray_meta* || NAME =~ *cdc_*/*_gray_sync*}]
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {NAME =~ acp_link_sync/dff*}]
# The reset (QDMA's axi_aresetn, on core_clk) reaches the core and each MAC
# clock through its own two-flop synchronizer (core_reset_sync,
# mac_reset_sync, acp_reset_sync); the crossings into the MAC clocks are
# bounded by the set_max_delay below like every other.
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {NAME =~ *_reset_sync/dff*}]
# Rather than a clock group (which would leave the Gray pointers' skew
# unbounded), each direction is bounded to one period of the faster clock,
# data path only: a pointer's bits then arrive within one sampling period,
# which keeps the Gray code's one-bit-at-a-time guarantee.
set_max_delay -datapath_only -from $core_clk -to $mac_clk 3.100
set_max_delay -datapath_only -from $mac_clk -to $core_clk 3.100
set_max_delay -datapath_only -from $core_clk -to $acp_clk 3.100
set_max_delay -datapath_only -from $acp_clk -to $core_clk 3.100
# Clocks with no path between them at all: the two CMACs' user clocks (each
# port crosses only to the core clock), and init_clk, which only runs the
# CMACs' state machines and DRP. Asynchronous. The core clock and the MAC
# clocks stay in one group against init_clk: a clock group overrides
# set_max_delay, so grouping them apart would unbound the crossings above.
set_clock_groups -asynchronous -group $mac_clk -group $acp_clk
set_clock_groups -asynchronous -group [get_clocks init_clk] -group [list $core_clk $mac_clk $acp_clk]

# ---- False paths, each justified:
# PERST# is asynchronous; the QDMA IP synchronizes it internally.
set_false_path -from [get_ports pcie_reset_n]
# The module-control and LED outputs are static or slow status, read by eye or
# by a module; no clock samples them.
set_false_path -to [get_ports {qsfp*_resetl qsfp*_lpmode qsfp*_modsell qsfp*_refclk_reset qsfp*_fs[*] led[*]}]
