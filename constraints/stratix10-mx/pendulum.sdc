# Timing of Pendulum's stratix10-mx top. Not tried on hardware.
# Clocks at the pins; the PCIe IP's coreclkout_hip (250 MHz, the core clock)
# and the Ethernet IP's o_clk_pll_div64 (the MAC clock) come from the IPs' own
# SDC files, and derive_pll_clocks picks up the rest.
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk]
create_clock -name qsfp0_refclk -period 6.400 [get_ports qsfp0_refclk]
create_clock -name clk_100m -period 10.000 [get_ports clk_100m]
derive_pll_clocks -create_base_clocks
derive_clock_uncertainty

set core_clk [get_clocks -of_objects [get_pins -compatibility_mode {pcie|coreclkout_hip}]]
set mac_clk  [get_clocks -of_objects [get_pins -compatibility_mode {mac0|o_clk_pll_div64}]]

# ---- Crossings: only through pendulum_cdc_rx / pendulum_cdc_tx (Gray
# pointers, pendulum_cdc_tx's Gray count of complete frames, pendulum_cdc_rx's
# Gray counts of committed and dropped frames; two-flop synchronizers). Bound each direction to one period of
# the faster clock, data path only, so the Gray code's one-bit change holds;
# a clock group would leave that skew unbounded.
set_max_delay -from $core_clk -to $mac_clk 2.400
set_max_delay -from $mac_clk -to $core_clk 2.400
set_min_delay -from $core_clk -to $mac_clk -5.000
set_min_delay -from $mac_clk -to $core_clk -5.000
# The board clock only reconfigures the Ethernet IP: no path to the core.
# The core and MAC clocks stay in one group: as separate groups they would cut
# the crossings above and void their max/min delays.
set_clock_groups -asynchronous -group [get_clocks clk_100m] -group [list $core_clk $mac_clk]

# ---- False paths, each justified:
# PERST# is asynchronous; the PCIe hard IP synchronizes it.
set_false_path -from [get_ports pcie_perst_n]
# The core's reset comes from the hard IP's app_nreset_status (core clock)
# through two-flop synchronizers into the core and MAC clocks
# (core_reset_sync, mac_reset_sync); the crossing into mac_clk is bounded
# like the CDC paths above.
# LEDs are read by eye.
set_false_path -to [get_ports {led[*]}]
