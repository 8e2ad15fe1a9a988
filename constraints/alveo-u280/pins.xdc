# Pins of Pendulum's alveo-u280 top (pendulum_au280), part xcu280-fsvh2892-2L-e.
# Source of every location below: AMD UG1314 (Alveo U280 Data Center Accelerator Card User Guide), appendix "Xilinx Design Constraints (XDC) File" / tables of QSFP28, PCIe and clock connections.
# The same facts appear in corundum's fpga/mqnic/AU280/fpga_100g/fpga.xdc, used to cross-check.
# Not tried on hardware.
#
# GT pins: only the P side is placed; Vivado places the N side of a
# transceiver or reference-clock pair from it, so the *_n ports have no line.
# nopin: pcie_rx_n pcie_tx_n qsfp0_rx_n qsfp0_tx_n qsfp1_rx_n qsfp1_tx_n pcie_refclk_n qsfp0_refclk_n qsfp1_refclk_n -- N side of a GT pair, placed with its P side

# ---- PCIe Gen3 x16 (edge connector), lanes 0..15
set_property PACKAGE_PIN AL2   [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AM4   [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AN6   [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AN2   [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AP4   [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AR2   [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AT4   [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AU2   [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AV4   [get_ports {pcie_rx_p[8]}]
set_property PACKAGE_PIN AW6   [get_ports {pcie_rx_p[9]}]
set_property PACKAGE_PIN AW2   [get_ports {pcie_rx_p[10]}]
set_property PACKAGE_PIN AY4   [get_ports {pcie_rx_p[11]}]
set_property PACKAGE_PIN BA6   [get_ports {pcie_rx_p[12]}]
set_property PACKAGE_PIN BA2   [get_ports {pcie_rx_p[13]}]
set_property PACKAGE_PIN BB4   [get_ports {pcie_rx_p[14]}]
set_property PACKAGE_PIN BC2   [get_ports {pcie_rx_p[15]}]
set_property PACKAGE_PIN AL11  [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AM9   [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AN11  [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AP9   [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AR11  [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AR7   [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AT9   [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AU11  [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AU7   [get_ports {pcie_tx_p[8]}]
set_property PACKAGE_PIN AV9   [get_ports {pcie_tx_p[9]}]
set_property PACKAGE_PIN AW11  [get_ports {pcie_tx_p[10]}]
set_property PACKAGE_PIN AY9   [get_ports {pcie_tx_p[11]}]
set_property PACKAGE_PIN BA11  [get_ports {pcie_tx_p[12]}]
set_property PACKAGE_PIN BB9   [get_ports {pcie_tx_p[13]}]
set_property PACKAGE_PIN BC11  [get_ports {pcie_tx_p[14]}]
set_property PACKAGE_PIN BC7   [get_ports {pcie_tx_p[15]}]
# 100 MHz PCIe reference clock from the slot (MGTREFCLK0P_225, the x16 reference)
set_property PACKAGE_PIN AR15 [get_ports pcie_refclk_p]
# PERST# from the slot
set_property -dict {PACKAGE_PIN BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
# The IOSTANDARD of BH26 is taken as LVCMOS18 (bank voltage of the U280's other 1.8 V control pins); confirm in UG1314's XDC.

# ---- QSFP28 cage 0 (Ethernet port), quad 134, GTYE4_CHANNEL_X0Y40..X0Y43
set_property PACKAGE_PIN L53   [get_ports {qsfp0_rx_p[0]}]
set_property PACKAGE_PIN K51   [get_ports {qsfp0_rx_p[1]}]
set_property PACKAGE_PIN J53   [get_ports {qsfp0_rx_p[2]}]
set_property PACKAGE_PIN H51   [get_ports {qsfp0_rx_p[3]}]
set_property PACKAGE_PIN L48   [get_ports {qsfp0_tx_p[0]}]
set_property PACKAGE_PIN L44   [get_ports {qsfp0_tx_p[1]}]
set_property PACKAGE_PIN K46   [get_ports {qsfp0_tx_p[2]}]
set_property PACKAGE_PIN J48   [get_ports {qsfp0_tx_p[3]}]
# 161.1328125 MHz CMAC reference (MGTREFCLK1P_134, from the programmable clock chip)
set_property PACKAGE_PIN R40 [get_ports qsfp0_refclk_p]

# ---- QSFP28 cage 1 (ACP port), quad 135, GTYE4_CHANNEL_X0Y44..X0Y47
set_property PACKAGE_PIN G53   [get_ports {qsfp1_rx_p[0]}]
set_property PACKAGE_PIN F51   [get_ports {qsfp1_rx_p[1]}]
set_property PACKAGE_PIN E53   [get_ports {qsfp1_rx_p[2]}]
set_property PACKAGE_PIN D51   [get_ports {qsfp1_rx_p[3]}]
set_property PACKAGE_PIN G48   [get_ports {qsfp1_tx_p[0]}]
set_property PACKAGE_PIN E48   [get_ports {qsfp1_tx_p[1]}]
set_property PACKAGE_PIN C48   [get_ports {qsfp1_tx_p[2]}]
set_property PACKAGE_PIN A49   [get_ports {qsfp1_tx_p[3]}]
# 161.1328125 MHz CMAC reference (MGTREFCLK1P_135, from the programmable clock chip)
set_property PACKAGE_PIN M42 [get_ports qsfp1_refclk_p]

# ---- QSFP28 module control and reference-clock chip control
set_property -dict {PACKAGE_PIN H32 IOSTANDARD LVCMOS18} [get_ports {qsfp0_refclk_oe_b}]
set_property -dict {PACKAGE_PIN G32 IOSTANDARD LVCMOS18} [get_ports {qsfp0_refclk_fs}]
set_property -dict {PACKAGE_PIN H30 IOSTANDARD LVCMOS18} [get_ports {qsfp1_refclk_oe_b}]
set_property -dict {PACKAGE_PIN G33 IOSTANDARD LVCMOS18} [get_ports {qsfp1_refclk_fs}]

# ---- Free-running clock for the CMACs' init_clk and DRP clock (100 MHz system clock)
set_property -dict {PACKAGE_PIN G31 IOSTANDARD LVDS} [get_ports init_clk_p]
set_property -dict {PACKAGE_PIN F31 IOSTANDARD LVDS} [get_ports init_clk_n]

# No user LEDs: UG1314 lists none wired to the FPGA for user logic, so the top has no led port.
