//! Splits each module's combinational block where a value leaves the module
//! and another comes back, so that Verilator sees no false loop (UNOPTFLAT).
//!
//! rust-hdl emits a module's `update` as one `always @(*)` block. When that
//! block writes a child's input (a `ZeroExtend`, a skid buffer) or its own
//! output, and a later statement reads the child's output or one of the
//! module's inputs that depends on it, the one block is both before and
//! after the child: Verilator reports a loop and settles it by evaluating
//! the block again, which costs simulation speed.
//!
//! The pass cuts a block before a statement that reads such an incoming
//! value when the statements above it in the same piece have written an
//! outgoing one. Each piece becomes an `always @(*)` block of its own, and
//! every variable a piece assigns gets its own version (static single
//! assignment by piece), so each block drives only its own variables:
//!
//! * a piece that assigns `v` writes `v__segK`, starting from the version
//!   before it (`v__segK = v__segJ;`), or from zero if it is the first;
//! * the last piece that assigns `v` writes `v` itself, so ports, child
//!   connections and other modules see the same names as before;
//! * a read of `v` takes the latest version above it, or `v` (the block's
//!   final value) if no piece above assigns it, which is what the one
//!   block computed once it had settled.
//!
//! Checked by the whole test suite on the result and by `make bench`'s cycle
//! counts; the pass refuses (an error, not a guess) any statement outside
//! the shapes rust-hdl emits: assignments and `if`/`else` with
//! `begin`/`end`. A Verilog parser crate would take on the whole language
//! to read these few shapes, so the pass reads them itself.

use crate::tokens;
use std::collections::{BTreeMap, BTreeSet};

const BLOCK_BEGIN: &str = "    always @(*) begin";
const BLOCK_END: &str = "    end";

/// A variable's declaration: `reg`/`wire`, a port direction, its width.
struct Decl {
    port: Option<&'static str>,
    wire: bool,
    width: usize,
}

/// Applies the split to every module of `text`.
pub(crate) fn split_comb_blocks(text: &str) -> Result<String, String> {
    let registered = registered_modules(text);
    let mut out = String::with_capacity(text.len() * 5 / 4);
    let mut module: Vec<&str> = Vec::new();
    for line in text.split_inclusive('\n') {
        if line.starts_with("module ") {
            module.clear();
        }
        if !module.is_empty() || line.starts_with("module ") {
            module.push(line);
            if line.starts_with("endmodule") {
                split_module(&module, &registered, &mut out)?;
                module.clear();
            }
            continue;
        }
        out.push_str(line);
    }
    if !module.is_empty() {
        return Err("a module has no endmodule".into());
    }
    Ok(out)
}

/// `module name(...`: the module's name.
pub(crate) fn module_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("module ")?;
    Some(&rest[..rest.find('(').unwrap_or(rest.len())])
}

/// Modules whose outputs are all registers: no combinational block, no
/// continuous assignment, no child (rust-hdl's flip-flops). Nothing written
/// into one comes out in the same cycle, so they close no loop.
fn registered_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for module in text.split("\nmodule ").skip(1) {
        let body = &module[..module.find("\nendmodule").unwrap_or(module.len())];
        let name = &body[..body.find('(').unwrap_or(0)];
        let clocked = body.contains("always @(posedge");
        let comb = body.contains("always @(*)") || body.contains(" assign ");
        let children = body.lines().any(|l| instance_of(l).is_some());
        if clocked && !comb && !children {
            out.insert(name.to_string());
        }
    }
    out
}

/// `    type name(`: an instance's module type and name.
pub(crate) fn instance_of(line: &str) -> Option<(&str, &str)> {
    let (ty, rest) = line.trim_end().strip_prefix("    ")?.split_once(' ')?;
    let inst = rest.strip_suffix('(')?;
    let ident = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (ident(ty) && ident(inst) && ty != "module").then_some((ty, inst))
}

fn split_module(
    lines: &[&str],
    registered: &BTreeSet<String>,
    out: &mut String,
) -> Result<(), String> {
    let name = module_name(lines[0]).unwrap_or_default();
    let err = |what: String| format!("comb split, module {name}: {what}");
    let decls = declarations(lines);
    // Signals connected to a child that can pass a value through in the
    // same cycle, and the outputs of registered children.
    let mut connected = BTreeSet::new();
    let mut from_register = BTreeSet::new();
    let mut child_registered = false;
    let mut idents = BTreeSet::new();
    for line in lines {
        idents.extend(names(line).into_iter().map(|(_, n)| n.to_string()));
        if let Some((ty, _)) = instance_of(line) {
            child_registered = registered.contains(ty);
        }
        // `.port(name)` in an instance.
        let t = line.trim();
        if let Some((port, signal)) = t
            .strip_prefix('.')
            .and_then(|t| t.split_once('('))
            .and_then(|(p, r)| Some((p, r.split_once(')')?.0)))
        {
            if !child_registered {
                connected.insert(signal.to_string());
            } else if port == "q" {
                from_register.insert(signal.to_string());
            }
        }
    }
    let incoming: BTreeSet<&str> = decls
        .iter()
        .filter(|(n, d)| {
            d.port == Some("input")
                || (d.port.is_none() && d.wire && !from_register.contains(n.as_str()))
        })
        .map(|(n, _)| n.as_str())
        .collect();
    let outgoing: BTreeSet<&str> = decls
        .iter()
        .filter(|(n, d)| {
            d.port == Some("output") || (d.port.is_none() && !d.wire && connected.contains(*n))
        })
        .map(|(n, _)| n.as_str())
        .collect();
    let mut i = 0;
    while i < lines.len() {
        // rust-hdl marks the block it generates; custom Verilog blocks
        // (`// Update code (custom)`) are written by hand and kept as they are.
        let generated = i > 0 && lines[i - 1].trim_end() == "    // Update code";
        if !generated || lines[i].trim_end() != BLOCK_BEGIN {
            out.push_str(lines[i]);
            i += 1;
            continue;
        }
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim_end() == BLOCK_END)
            .ok_or_else(|| err("an always block has no end".into()))?;
        let body = &lines[i + 1..end];
        let split = Split {
            decls: &decls,
            idents: &idents,
            incoming: &incoming,
            outgoing: &outgoing,
        };
        split.block(body, out).map_err(err)?;
        i = end + 1;
    }
    Ok(())
}

/// A `reg`/`wire`/port declaration: its direction if a port, `wire` or
/// `reg`, its width if a plain `[msb:0]`, its name, and whether it is a
/// plain `name;` (not a memory `mem[0:255]`, not `wire x = expr;`).
pub(crate) struct Declared<'a> {
    pub port: Option<&'static str>,
    pub wire: bool,
    pub width: Option<usize>,
    pub name: &'a str,
    pub plain: bool,
}

/// The declaration on `line`, if it is one.
pub(crate) fn declared(line: &str) -> Option<Declared<'_>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (port, rest) = match *words.first()? {
        "input" => (Some("input"), &words[1..]),
        "output" => (Some("output"), &words[1..]),
        "reg" | "wire" => (None, &words[..]),
        _ => return None,
    };
    let wire = match *rest.first()? {
        "wire" => true,
        "reg" => false,
        _ => return None,
    };
    let (width, name) = match rest.get(1)? {
        r if r.starts_with('[') => {
            let msb = r
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(":0]"))
                .and_then(|m| m.parse::<usize>().ok());
            (msb.map(|m| m + 1), *rest.get(2)?)
        }
        other => (Some(1), *other),
    };
    let plain = name.ends_with(';') && !name.contains('[') && rest.len() <= 3;
    let name = name.trim_end_matches([';', ',']);
    let name = name.split(['[', '=']).next().unwrap_or(name);
    Some(Declared {
        port,
        wire,
        width,
        name,
        plain,
    })
}

/// Every plain `reg`/`wire`/port declared with a plain `[msb:0]` width:
/// what a block may assign (`wire x = expr;` and memories never are).
fn declarations(lines: &[&str]) -> BTreeMap<String, Decl> {
    lines
        .iter()
        .filter_map(|l| declared(l))
        .filter(|d| d.plain)
        .filter_map(|d| {
            let decl = Decl {
                port: d.port,
                wire: d.wire,
                width: d.width?,
            };
            Some((d.name.to_string(), decl))
        })
        .collect()
}

struct Split<'a> {
    decls: &'a BTreeMap<String, Decl>,
    idents: &'a BTreeSet<String>,
    incoming: &'a BTreeSet<&'a str>,
    outgoing: &'a BTreeSet<&'a str>,
}

/// One top-level statement of a block: its lines, what it assigns, what it reads.
struct Statement<'a> {
    lines: Vec<&'a str>,
    writes: BTreeSet<String>,
    reads: BTreeSet<String>,
}

impl Split<'_> {
    fn block(&self, body: &[&str], out: &mut String) -> Result<(), String> {
        let statements = statements(body)?;
        // Cut where a statement reads an incoming value after the piece
        // wrote an outgoing one.
        let mut pieces: Vec<Vec<Statement>> = vec![Vec::new()];
        let mut wrote_out = false;
        for st in statements {
            let reads_in = st.reads.iter().any(|r| self.incoming.contains(r.as_str()));
            if wrote_out && reads_in {
                pieces.push(Vec::new());
                wrote_out = false;
            }
            wrote_out |= st.writes.iter().any(|w| self.outgoing.contains(w.as_str()));
            pieces.last_mut().unwrap().push(st);
        }
        let assigns: Vec<BTreeSet<&str>> = pieces
            .iter()
            .map(|p| {
                p.iter()
                    .flat_map(|s| s.writes.iter().map(String::as_str))
                    .collect()
            })
            .collect();
        let mut last_piece: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, names) in assigns.iter().enumerate() {
            for n in names {
                last_piece.insert(n, k);
            }
        }
        // The version of each variable the next piece reads.
        let mut current: BTreeMap<&str, String> = BTreeMap::new();
        let mut decls_out = String::new();
        let mut blocks = String::new();
        for (k, piece) in pieces.iter().enumerate() {
            let mut rename: BTreeMap<&str, String> = current.clone();
            let mut prologue = String::new();
            for &v in &assigns[k] {
                let decl = self
                    .decls
                    .get(v)
                    .ok_or_else(|| format!("'{v}' is assigned but not declared as a plain reg"))?;
                let name = if last_piece[v] == k {
                    v.to_string()
                } else {
                    let n = format!("{v}__seg{k}");
                    if self.idents.contains(&n) {
                        return Err(format!("version name '{n}' is taken"));
                    }
                    let range = if decl.width == 1 {
                        String::new()
                    } else {
                        format!("[{}:0] ", decl.width - 1)
                    };
                    decls_out.push_str(&format!("    reg  {range}{n};\n"));
                    n
                };
                match current.get(v) {
                    Some(prev) => prologue.push_str(&format!("        {name} = {prev};\n")),
                    None if name != v => prologue
                        .push_str(&format!("        {name} = {{{}{{1'b0}}}};\n", decl.width)),
                    None => {}
                }
                rename.insert(v, name);
            }
            blocks.push_str(BLOCK_BEGIN);
            blocks.push('\n');
            blocks.push_str(&prologue);
            for st in piece {
                for line in &st.lines {
                    blocks.push_str(&rename_line(line, &rename));
                }
            }
            blocks.push_str(BLOCK_END);
            blocks.push('\n');
            for &v in &assigns[k] {
                current.insert(v, rename[v].clone());
            }
        }
        out.push_str(&decls_out);
        out.push_str(&blocks);
        Ok(())
    }
}

/// Identifier tokens of a line that name variables: not the letters of a
/// sized literal's base and digits (`8'h3f`), not numbers.
fn names(line: &str) -> Vec<(usize, &str)> {
    let toks = tokens(line);
    let mut at = 0;
    let mut out = Vec::new();
    for (i, (is_id, t)) in toks.iter().enumerate() {
        let literal = i > 0 && toks[i - 1].1.ends_with('\'');
        if *is_id && !literal && !t.starts_with(|c: char| c.is_ascii_digit()) {
            out.push((at, *t));
        }
        at += t.len();
    }
    out
}

fn rename_line(line: &str, rename: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let mut from = 0;
    for (at, name) in names(line) {
        if let Some(new) = rename.get(name) {
            out.push_str(&line[from..at]);
            out.push_str(new);
            from = at + name.len();
        }
    }
    out.push_str(&line[from..]);
    out
}

const KEYWORDS: &[&str] = &["if", "else", "begin", "end"];

/// Cuts a block's body into top-level statements, checking each line is a
/// shape rust-hdl emits.
fn statements<'a>(body: &[&'a str]) -> Result<Vec<Statement<'a>>, String> {
    let mut out: Vec<Statement> = Vec::new();
    let mut depth = 0usize;
    for line in body {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let continues = t.starts_with("else");
        if depth == 0 && !continues {
            out.push(Statement {
                lines: Vec::new(),
                writes: BTreeSet::new(),
                reads: BTreeSet::new(),
            });
        }
        let st = out
            .last_mut()
            .ok_or_else(|| format!("a block starts with '{t}'"))?;
        st.lines.push(line);
        let words = names(t);
        if t == "end" {
            depth = depth.checked_sub(1).ok_or("an 'end' closes nothing")?;
        } else if (t.starts_with("if (") || t.starts_with("else if (")) && t.ends_with(") begin")
            || t == "else begin"
        {
            depth += 1;
        } else if let Some((lhs, _)) = t.split_once(" = ").filter(|_| t.ends_with(';')) {
            let (target, _) = names(lhs)
                .first()
                .copied()
                .ok_or_else(|| format!("no target in '{t}'"))?;
            if target != 0 {
                return Err(format!("unexpected assignment '{t}'"));
            }
            st.writes.insert(names(lhs)[0].1.to_string());
        } else {
            return Err(format!("unexpected statement '{t}'"));
        }
        st.reads.extend(
            words
                .into_iter()
                .map(|(_, w)| w)
                .filter(|w| !KEYWORDS.contains(w))
                .map(str::to_string),
        );
    }
    if depth != 0 {
        return Err("a block ends inside a branch".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "\
module m(a,y);
    input wire  [3:0] a;
    output reg  [3:0] y;
    reg  [3:0] t;
    reg  [3:0] c__i;
    wire  [4:0] c__o;
    m__c c(
        .i(c__i),
        .o(c__o)
    );
    // Update code
    always @(*) begin
        t = a;
        if (a[0]) begin
            t = 4'hf;
        end
        c__i = t;
        y = t;
        if (c__o[4]) begin
            y = c__o[3:0];
        end
        t = 4'h0;
    end
endmodule
";

    #[test]
    fn a_block_is_cut_where_a_child_output_comes_back() {
        let out = split_comb_blocks(PARENT).unwrap();
        assert_eq!(out.matches(BLOCK_BEGIN).count(), 2, "{out}");
        // The first piece writes versions of its own, the last the names.
        assert!(out.contains("    reg  [3:0] t__seg0;\n"), "{out}");
        assert!(out.contains("        t__seg0 = {4{1'b0}};\n"), "{out}");
        assert!(out.contains("            t__seg0 = 4'hf;\n"), "{out}");
        assert!(out.contains("        c__i = t__seg0;\n"), "{out}");
        assert!(out.contains("        y__seg0 = t__seg0;\n"), "{out}");
        // The second piece starts from the first's versions.
        assert!(out.contains("        t = t__seg0;\n"), "{out}");
        assert!(out.contains("        y = y__seg0;\n"), "{out}");
        assert!(out.contains("            y = c__o[3:0];\n"), "{out}");
        // Literals are not renamed.
        assert!(out.contains("4'hf") && !out.contains("4'hf__seg"), "{out}");
    }

    #[test]
    fn a_block_with_nothing_coming_back_is_unchanged() {
        let text = PARENT
            .replace("if (c__o[4])", "if (t[1])")
            .replace("y = c__o[3:0]", "y = t");
        assert_eq!(split_comb_blocks(&text).unwrap(), text);
    }

    #[test]
    fn shapes_rust_hdl_does_not_emit_are_refused() {
        let text = PARENT.replace(
            "        t = 4'h0;\n",
            "        case (a) default: t = 0; endcase\n",
        );
        let e = split_comb_blocks(&text).unwrap_err();
        assert!(e.contains("module m") && e.contains("unexpected"), "{e}");
    }
}
