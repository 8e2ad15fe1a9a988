//! The vendor blocks the board tops instantiate (AMD's CMAC, QDMA and clock
//! buffers; Intel's PCIe and Ethernet hard IP): each one's documented ports,
//! and from them its lint stub and its instance in a top.

use crate::Dir;

/// A vendor block: its module name as the vendor documents it, and the ports
/// the top connects (the block has more, for statistics and options, which
/// stay unconnected and default as the document says).
pub struct VendorIp {
    pub module: &'static str,
    pub source: &'static str,
    pub ports: &'static [(&'static str, Dir, usize)],
}

use Dir::{Input as I, Output as O};

/// The ports of AMD's UltraScale+ integrated 100G Ethernet subsystem
/// (PG203) that the tops connect, generated with the GT inside, the
/// AXI4-Stream user interface, RS-FEC off and static (ctl_*) configuration.
const CMAC_PORTS: &[(&str, Dir, usize)] = &[
    ("gt_ref_clk_p", I, 1),
    ("gt_ref_clk_n", I, 1),
    ("gt_rxp_in", I, 4),
    ("gt_rxn_in", I, 4),
    ("gt_txp_out", O, 4),
    ("gt_txn_out", O, 4),
    ("init_clk", I, 1),
    ("sys_reset", I, 1),
    ("core_rx_reset", I, 1),
    ("core_tx_reset", I, 1),
    ("core_drp_reset", I, 1),
    ("drp_clk", I, 1),
    ("drp_addr", I, 10),
    ("drp_di", I, 16),
    ("drp_en", I, 1),
    ("drp_we", I, 1),
    ("gt_loopback_in", I, 12),
    ("gt_txusrclk2", O, 1),
    ("rx_clk", I, 1),
    ("rx_axis_tvalid", O, 1),
    ("rx_axis_tdata", O, 512),
    ("rx_axis_tlast", O, 1),
    ("rx_axis_tkeep", O, 64),
    ("tx_axis_tready", O, 1),
    ("tx_axis_tvalid", I, 1),
    ("tx_axis_tdata", I, 512),
    ("tx_axis_tlast", I, 1),
    ("tx_axis_tkeep", I, 64),
    ("tx_axis_tuser", I, 1),
    ("tx_preamblein", I, 56),
    ("ctl_rx_enable", I, 1),
    ("ctl_rx_force_resync", I, 1),
    ("ctl_rx_test_pattern", I, 1),
    ("ctl_tx_enable", I, 1),
    ("ctl_tx_send_idle", I, 1),
    ("ctl_tx_send_rfi", I, 1),
    ("ctl_tx_send_lfi", I, 1),
    ("ctl_tx_test_pattern", I, 1),
    ("stat_rx_aligned", O, 1),
];

/// CMAC of QSFP28 cage 0 (Ethernet): one IP per cage, since each names its GT quad.
pub const CMAC: VendorIp = VendorIp {
    module: "cmac_usplus_0",
    source: "AMD PG203 (UltraScale+ Integrated 100G Ethernet), port descriptions",
    ports: CMAC_PORTS,
};

/// CMAC of QSFP28 cage 1 (the ACP port).
pub const CMAC_ACP: VendorIp = VendorIp {
    module: "cmac_usplus_1",
    source: "AMD PG203 (UltraScale+ Integrated 100G Ethernet), port descriptions",
    ports: CMAC_PORTS,
};

/// AMD QDMA subsystem for PCI Express (PG302), generated as `qdma_0`: Gen3
/// x16, 512-bit AXI at 250 MHz, AXI-Lite master for BAR access, AXI slave
/// bridge for card-initiated host access.
pub const QDMA: VendorIp = VendorIp {
    module: "qdma_0",
    source: "AMD PG302 (QDMA Subsystem for PCI Express), port descriptions",
    ports: &[
        ("sys_clk", I, 1),
        ("sys_clk_gt", I, 1),
        ("sys_rst_n", I, 1),
        ("pci_exp_rxp", I, 16),
        ("pci_exp_rxn", I, 16),
        ("pci_exp_txp", O, 16),
        ("pci_exp_txn", O, 16),
        ("axi_aclk", O, 1),
        ("axi_aresetn", O, 1),
        ("user_lnk_up", O, 1),
        ("m_axil_awaddr", O, 32),
        ("m_axil_awvalid", O, 1),
        ("m_axil_awready", I, 1),
        ("m_axil_wdata", O, 32),
        ("m_axil_wvalid", O, 1),
        ("m_axil_wready", I, 1),
        ("m_axil_bresp", I, 2),
        ("m_axil_bvalid", I, 1),
        ("m_axil_bready", O, 1),
        ("m_axil_araddr", O, 32),
        ("m_axil_arvalid", O, 1),
        ("m_axil_arready", I, 1),
        ("m_axil_rdata", I, 32),
        ("m_axil_rresp", I, 2),
        ("m_axil_rvalid", I, 1),
        ("m_axil_rready", O, 1),
        ("s_axib_awid", I, 4),
        ("s_axib_awaddr", I, 64),
        ("s_axib_awlen", I, 8),
        ("s_axib_awsize", I, 3),
        ("s_axib_awburst", I, 2),
        ("s_axib_awvalid", I, 1),
        ("s_axib_awready", O, 1),
        ("s_axib_wdata", I, 512),
        ("s_axib_wstrb", I, 64),
        ("s_axib_wlast", I, 1),
        ("s_axib_wvalid", I, 1),
        ("s_axib_wready", O, 1),
        ("s_axib_bready", I, 1),
        ("s_axib_arid", I, 4),
        ("s_axib_araddr", I, 64),
        ("s_axib_arlen", I, 8),
        ("s_axib_arsize", I, 3),
        ("s_axib_arburst", I, 2),
        ("s_axib_arvalid", I, 1),
        ("s_axib_arready", O, 1),
        ("s_axib_rdata", O, 512),
        ("s_axib_rlast", O, 1),
        ("s_axib_rvalid", O, 1),
        ("s_axib_rready", I, 1),
    ],
};

/// UltraScale+ GT reference clock buffer (UG974, IBUFDS_GTE4).
pub const IBUFDS_GTE4: VendorIp = VendorIp {
    module: "IBUFDS_GTE4",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), IBUFDS_GTE4",
    ports: &[
        ("I", I, 1),
        ("IB", I, 1),
        ("CEB", I, 1),
        ("O", O, 1),
        ("ODIV2", O, 1),
    ],
};

/// UltraScale+ differential input buffer (UG974, IBUFDS).
pub const IBUFDS: VendorIp = VendorIp {
    module: "IBUFDS",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), IBUFDS",
    ports: &[("I", I, 1), ("IB", I, 1), ("O", O, 1)],
};

/// UltraScale+ global clock buffer (UG974, BUFG).
pub const BUFG: VendorIp = VendorIp {
    module: "BUFG",
    source: "AMD UG974 (UltraScale Architecture Libraries Guide), BUFG",
    ports: &[("I", I, 1), ("O", O, 1)],
};

/// Intel L-/H-Tile Avalon-MM+ IP for PCI Express, generated as `pcie_avmmp`
/// (Gen3 x16, 512-bit, 250 MHz): bursting master `bam_*` for BARs, bursting
/// slave `bas_*` for card-initiated host access.
pub const S10_PCIE: VendorIp = VendorIp {
    module: "pcie_avmmp",
    source:
        "Intel L- and H-tile Avalon Memory-mapped+ IP for PCI Express User Guide, interface signals",
    ports: &[
        ("refclk", I, 1),
        ("pin_perst", I, 1),
        ("npor", I, 1),
        ("rx_in", I, 16),
        ("tx_out", O, 16),
        ("coreclkout_hip", O, 1),
        ("app_nreset_status", O, 1),
        ("link_up_o", O, 1),
        ("bam_address_o", O, 32),
        ("bam_read_o", O, 1),
        ("bam_write_o", O, 1),
        ("bam_writedata_o", O, 512),
        ("bam_waitrequest_i", I, 1),
        ("bam_readdata_i", I, 512),
        ("bam_readdatavalid_i", I, 1),
        ("bas_address_i", I, 64),
        ("bas_byteenable_i", I, 64),
        ("bas_burstcount_i", I, 4),
        ("bas_read_i", I, 1),
        ("bas_write_i", I, 1),
        ("bas_writedata_i", I, 512),
        ("bas_waitrequest_o", O, 1),
        ("bas_readdata_o", O, 512),
        ("bas_readdatavalid_o", O, 1),
    ],
};

/// Intel E-tile Hard IP for Ethernet, 100GE MAC+PCS, generated as
/// `alt_ehipc2` (the name Ensō's design uses for it) with the Avalon-ST client interface.
pub const S10_ETH: VendorIp = VendorIp {
    module: "alt_ehipc2",
    source: "Intel E-tile Hard IP for Ethernet User Guide, interface signals",
    ports: &[
        ("i_clk_ref", I, 1),
        ("i_rx_serial", I, 4),
        ("o_tx_serial", O, 4),
        ("i_csr_rst_n", I, 1),
        ("i_tx_rst_n", I, 1),
        ("i_rx_rst_n", I, 1),
        ("i_reconfig_clk", I, 1),
        ("i_reconfig_reset", I, 1),
        ("o_clk_pll_div64", O, 1),
        ("i_clk_tx", I, 1),
        ("i_clk_rx", I, 1),
        ("o_rx_pcs_ready", O, 1),
        ("o_tx_lanes_stable", O, 1),
        // Avalon-ST client, 100GE, 512 bits (not the segmented MAC interface);
        // first byte on the wire in the most significant byte. Names and widths
        // as in the guide's RX and TX client tables (they agree with a generated
        // 100GE component declared in CESNET's ndk-core); confirm in the E-tile
        // user guide, with TX ready latency 0, on first use.
        ("o_rx_data", O, 512),
        ("o_rx_valid", O, 1),
        ("o_rx_startofpacket", O, 1),
        ("o_rx_endofpacket", O, 1),
        ("o_rx_empty", O, 6),
        ("o_rx_error", O, 6),
        ("i_tx_data", I, 512),
        ("i_tx_valid", I, 1),
        ("i_tx_startofpacket", I, 1),
        ("i_tx_endofpacket", I, 1),
        ("i_tx_empty", I, 6),
        ("i_tx_error", I, 1),
        ("i_tx_skip_crc", I, 1),
        ("o_tx_ready", O, 1),
    ],
};

/// A stub with the vendor block's ports, for lint only (never given to the vendor tool).
pub fn stub(ip: &VendorIp) -> String {
    let mut s = format!(
        "// Lint stub of {} from {}.\n// Outputs are tied low; the real block comes from the vendor's IP.\n",
        ip.module, ip.source
    );
    s += "/* verilator lint_off UNUSEDSIGNAL */\n";
    s += &format!("module {}(\n", ip.module);
    let decls: Vec<String> = ip
        .ports
        .iter()
        .map(|(n, d, w)| {
            let dir = if *d == Dir::Input {
                "input wire"
            } else {
                "output wire"
            };
            let range = if *w > 1 {
                format!("[{}:0] ", w - 1)
            } else {
                String::new()
            };
            format!("    {dir} {range}{n}")
        })
        .collect();
    s += &decls.join(",\n");
    s += "\n);\n";
    for (n, d, w) in ip.ports {
        if *d == Dir::Output {
            s += &format!("    assign {n} = {w}'b0;\n");
        }
    }
    s += "endmodule\n/* verilator lint_on UNUSEDSIGNAL */\n";
    s
}

/// Writes `.name(expr)` connections for every listed port of `ip`, in its order.
pub(super) fn instance(
    ip: &VendorIp,
    inst: &str,
    conns: &[(String, String)],
) -> Result<String, String> {
    for (p, _) in conns {
        if !ip.ports.iter().any(|(n, _, _)| n == p) {
            return Err(format!("{}: no port {p} in its documented list", ip.module));
        }
    }
    // Every input must be driven; outputs the top does not use are left off the instance.
    let mut lines = Vec::new();
    for (n, d, _) in ip.ports {
        match conns.iter().find(|(p, e)| p == n && !e.is_empty()) {
            Some((_, e)) => lines.push(format!("        .{n}({e})")),
            None if *d == Dir::Input => {
                return Err(format!(
                    "{}: input {n} of instance {inst} is not driven",
                    ip.module
                ))
            }
            None => {}
        }
    }
    Ok(format!(
        "    {} {inst} (\n{}\n    );\n",
        ip.module,
        lines.join(",\n")
    ))
}

pub(super) fn c(p: &str, e: &str) -> (String, String) {
    (p.to_string(), e.to_string())
}
