# Pins of Pendulum's alveo-u250 top (pendulum_au250), part xcu250-figd2104-2L-e.
# Source of every location below: AMD UG1289 (Alveo U250 Data Center Accelerator Card User Guide), appendix "Xilinx Design Constraints (XDC) File" / tables of QSFP28, PCIe, clock and LED connections.
# The same facts appear in corundum's fpga/mqnic/AU250/fpga_100g/fpga.xdc, used to cross-check.
# Not tried on hardware.
#
# GT pins: only the P side is placed; Vivado places the N side of a
# transceiver or reference-clock pair from it, so the *_n ports have no line.
# nopin: pcie_rx_n pcie_tx_n qsfp0_rx_n qsfp0_tx_n qsfp1_rx_n qsfp1_tx_n pcie_refclk_n qsfp0_refclk_n qsfp1_refclk_n -- N side of a GT pair, placed with its P side

# ---- PCIe Gen3 x16 (edge connector), lanes 0..15
set_property PACKAGE_PIN AF2   [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AG4   [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AH2   [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AJ4   [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AK2   [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AL4   [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AM2   [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AN4   [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AP2   [get_ports {pcie_rx_p[8]}]
set_property PACKAGE_PIN AR4   [get_ports {pcie_rx_p[9]}]
set_property PACKAGE_PIN AT2   [get_ports {pcie_rx_p[10]}]
set_property PACKAGE_PIN AU4   [get_ports {pcie_rx_p[11]}]
set_property PACKAGE_PIN AV2   [get_ports {pcie_rx_p[12]}]
set_property PACKAGE_PIN AW4   [get_ports {pcie_rx_p[13]}]
set_property PACKAGE_PIN BA2   [get_ports {pcie_rx_p[14]}]
set_property PACKAGE_PIN BC2   [get_ports {pcie_rx_p[15]}]
set_property PACKAGE_PIN AF7   [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AG9   [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AH7   [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AJ9   [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AK7   [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AL9   [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AM7   [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AN9   [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AP7   [get_ports {pcie_tx_p[8]}]
set_property PACKAGE_PIN AR9   [get_ports {pcie_tx_p[9]}]
set_property PACKAGE_PIN AT7   [get_ports {pcie_tx_p[10]}]
set_property PACKAGE_PIN AU9   [get_ports {pcie_tx_p[11]}]
set_property PACKAGE_PIN AV7   [get_ports {pcie_tx_p[12]}]
set_property PACKAGE_PIN BB5   [get_ports {pcie_tx_p[13]}]
set_property PACKAGE_PIN BD5   [get_ports {pcie_tx_p[14]}]
set_property PACKAGE_PIN BF5   [get_ports {pcie_tx_p[15]}]
# 100 MHz PCIe reference clock from the slot (MGTREFCLK0P_226)
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
# PERST# from the slot
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_reset_n]

# ---- QSFP28 cage 0 (Ethernet port), quad 231, GTYE4_CHANNEL_X1Y44..X1Y47
set_property PACKAGE_PIN N4    [get_ports {qsfp0_rx_p[0]}]
set_property PACKAGE_PIN M2    [get_ports {qsfp0_rx_p[1]}]
set_property PACKAGE_PIN L4    [get_ports {qsfp0_rx_p[2]}]
set_property PACKAGE_PIN K2    [get_ports {qsfp0_rx_p[3]}]
set_property PACKAGE_PIN N9    [get_ports {qsfp0_tx_p[0]}]
set_property PACKAGE_PIN M7    [get_ports {qsfp0_tx_p[1]}]
set_property PACKAGE_PIN L9    [get_ports {qsfp0_tx_p[2]}]
set_property PACKAGE_PIN K7    [get_ports {qsfp0_tx_p[3]}]
# 161.1328125 MHz CMAC reference (MGTREFCLK1P_231, from the programmable clock chip)
set_property PACKAGE_PIN K11 [get_ports qsfp0_refclk_p]

# ---- QSFP28 cage 1 (ACP port), quad 230, GTYE4_CHANNEL_X1Y40..X1Y43
set_property PACKAGE_PIN U4    [get_ports {qsfp1_rx_p[0]}]
set_property PACKAGE_PIN T2    [get_ports {qsfp1_rx_p[1]}]
set_property PACKAGE_PIN R4    [get_ports {qsfp1_rx_p[2]}]
set_property PACKAGE_PIN P2    [get_ports {qsfp1_rx_p[3]}]
set_property PACKAGE_PIN U9    [get_ports {qsfp1_tx_p[0]}]
set_property PACKAGE_PIN T7    [get_ports {qsfp1_tx_p[1]}]
set_property PACKAGE_PIN R9    [get_ports {qsfp1_tx_p[2]}]
set_property PACKAGE_PIN P7    [get_ports {qsfp1_tx_p[3]}]
# 161.1328125 MHz CMAC reference (MGTREFCLK1P_230, from the programmable clock chip)
set_property PACKAGE_PIN P11 [get_ports qsfp1_refclk_p]

# ---- QSFP28 module control and reference-clock chip control
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12} [get_ports {qsfp0_modsell}]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12} [get_ports {qsfp0_resetl}]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12} [get_ports {qsfp0_lpmode}]
set_property -dict {PACKAGE_PIN AT22 IOSTANDARD LVCMOS12} [get_ports {qsfp0_refclk_reset}]
set_property -dict {PACKAGE_PIN AT20 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[0]}]
set_property -dict {PACKAGE_PIN AU22 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[1]}]
set_property -dict {PACKAGE_PIN AY20 IOSTANDARD LVCMOS12} [get_ports {qsfp1_modsell}]
set_property -dict {PACKAGE_PIN BC18 IOSTANDARD LVCMOS12} [get_ports {qsfp1_resetl}]
set_property -dict {PACKAGE_PIN AV22 IOSTANDARD LVCMOS12} [get_ports {qsfp1_lpmode}]
set_property -dict {PACKAGE_PIN AR21 IOSTANDARD LVCMOS12} [get_ports {qsfp1_refclk_reset}]
set_property -dict {PACKAGE_PIN AR22 IOSTANDARD LVCMOS12} [get_ports {qsfp1_fs[0]}]
set_property -dict {PACKAGE_PIN AU20 IOSTANDARD LVCMOS12} [get_ports {qsfp1_fs[1]}]

# ---- Free-running clock for the CMACs' init_clk and DRP clock (SI570 user clock, 156.25 MHz at power-up)
set_property -dict {PACKAGE_PIN AU19 IOSTANDARD LVDS} [get_ports init_clk_p]
set_property -dict {PACKAGE_PIN AV19 IOSTANDARD LVDS} [get_ports init_clk_n]

# ---- User LEDs: PCIe link up, Ethernet aligned, RX overflow at either port's crossing (Ethernet or ACP)
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
