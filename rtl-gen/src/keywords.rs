//! SystemVerilog's reserved words, which a rust-hdl field name must not be.
//!
//! rust-hdl names each instance after its field (and each signal after its
//! path), so a field called `global` becomes `pendulum_nic__regs__global
//! global(...)`: Verilator 5.006 took that, 5.048 does not (`global` is a
//! keyword since IEEE 1800-2009), and neither would a vendor tool in
//! SystemVerilog mode. [`check_names`] refuses such a name when the Verilog
//! is generated, naming the module and what to rename.

use std::collections::BTreeSet;

/// IEEE 1800-2017, Annex B (reserved keywords).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "accept_on", "alias", "always", "always_comb", "always_ff", "always_latch", "and", "assert",
    "assign", "assume", "automatic", "before", "begin", "bind", "bins", "binsof", "bit", "break",
    "buf", "bufif0", "bufif1", "byte", "case", "casex", "casez", "cell", "chandle", "checker",
    "class", "clocking", "cmos", "config", "const", "constraint", "context", "continue", "cover",
    "covergroup", "coverpoint", "cross", "deassign", "default", "defparam", "design", "disable",
    "dist", "do", "edge", "else", "end", "endcase", "endchecker", "endclass", "endclocking",
    "endconfig", "endfunction", "endgenerate", "endgroup", "endinterface", "endmodule",
    "endpackage", "endprimitive", "endprogram", "endproperty", "endspecify", "endsequence",
    "endtable", "endtask", "enum", "event", "eventually", "expect", "export", "extends", "extern",
    "final", "first_match", "for", "force", "foreach", "forever", "fork", "forkjoin", "function",
    "generate", "genvar", "global", "highz0", "highz1", "if", "iff", "ifnone", "ignore_bins",
    "illegal_bins", "implements", "implies", "import", "incdir", "include", "initial", "inout",
    "input", "inside", "instance", "int", "integer", "interconnect", "interface", "intersect",
    "join", "join_any", "join_none", "large", "let", "liblist", "library", "local", "localparam",
    "logic", "longint", "macromodule", "matches", "medium", "modport", "module", "nand", "negedge",
    "nettype", "new", "nexttime", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1",
    "null", "or", "output", "package", "packed", "parameter", "pmos", "posedge", "primitive",
    "priority", "program", "property", "protected", "pull0", "pull1", "pulldown", "pullup",
    "pulsestyle_ondetect", "pulsestyle_onevent", "pure", "rand", "randc", "randcase",
    "randsequence", "rcmos", "real", "realtime", "ref", "reg", "reject_on", "release", "repeat",
    "restrict", "return", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "s_always",
    "s_eventually", "s_nexttime", "s_until", "s_until_with", "scalared", "sequence", "shortint",
    "shortreal", "showcancelled", "signed", "small", "soft", "solve", "specify", "specparam",
    "static", "string", "strong", "strong0", "strong1", "struct", "super", "supply0", "supply1",
    "sync_accept_on", "sync_reject_on", "table", "tagged", "task", "this", "throughout", "time",
    "timeprecision", "timeunit", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand",
    "trior", "trireg", "type", "typedef", "union", "unique", "unique0", "unsigned", "until",
    "until_with", "untyped", "use", "uwire", "var", "vectored", "virtual", "void", "wait",
    "wait_order", "wand", "weak", "weak0", "weak1", "while", "wildcard", "wire", "with", "within",
    "wor", "xnor", "xor",
];

/// Refuses a module, instance, port or variable named with a reserved word.
pub(crate) fn check_names(verilog: &str) -> Result<(), String> {
    use crate::comb_split::{declared, instance_of, module_name};
    let keywords: BTreeSet<&str> = KEYWORDS.iter().copied().collect();
    let mut module = "";
    for line in verilog.lines() {
        module = module_name(line).unwrap_or(module);
        let named = instance_of(line)
            .map(|(_, inst)| inst)
            .or_else(|| declared(line).map(|d| d.name));
        if let Some(name) = named.filter(|n| keywords.contains(n)) {
            return Err(format!(
                "module {module}: '{name}' is a SystemVerilog keyword (IEEE 1800-2017); \
                 rename the rust-hdl field it comes from"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_instance_or_signal_is_refused() {
        let inst = "module top(a);\n    input wire  a;\n    top__global global(\n        .a(a)\n    );\nendmodule\n";
        let e = check_names(inst).unwrap_err();
        assert!(e.contains("module top") && e.contains("'global'"), "{e}");
        let sig = "module m(a);\n    input wire  a;\n    reg  [3:0] table;\nendmodule\n";
        assert!(check_names(sig).unwrap_err().contains("'table'"));
        let fine = "module m(a);\n    input wire  a;\n    reg  [3:0] globals;\n    m__c c(\n    );\nendmodule\n";
        assert_eq!(check_names(fine), Ok(()));
    }
}
