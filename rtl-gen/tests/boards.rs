//! Board targets: each top lints clean under `verilator -Wall` with the vendor
//! blocks as stubs from their documented ports, and its constraint files
//! agree with it: every port they name exists (and every bit index is in
//! range), and every top port has a pin or a `# nopin:` reason.

use pendulum_rtl_gen::boards::{generate_board, lint_waivers, Board, BOARDS};
use pendulum_rtl_gen::Port;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `(port, bit)` references in a constraint line: `get_ports {a[3]}`,
/// `get_ports a`, `-to a[3]` (Quartus), with `*` meaning every bit.
fn port_refs(line: &str) -> Vec<(String, Option<String>)> {
    let quartus = line.trim_start().starts_with("set_location_assignment")
        || line.trim_start().starts_with("set_instance_assignment");
    let keys: &[&str] = if quartus { &["-to "] } else { &["get_ports "] };
    let mut out = Vec::new();
    for key in keys {
        let mut rest = line;
        while let Some(at) = rest.find(key) {
            rest = &rest[at + key.len()..];
            let arg = rest.trim_start();
            let names: Vec<String> = if let Some(inner) = arg.strip_prefix('{') {
                inner[..inner.find('}').expect("unclosed {")]
                    .split_whitespace()
                    .map(String::from)
                    .collect()
            } else {
                let tok = arg.split_whitespace().next().unwrap_or("");
                let tok = if tok.contains('[') {
                    tok.to_string()
                } else {
                    tok.trim_end_matches(']').to_string()
                };
                let tok = if tok.matches('[').count() < tok.matches(']').count() {
                    tok[..tok.len() - 1].to_string()
                } else {
                    tok
                };
                vec![tok]
            };
            for t in names {
                let (name, bit) = match t.split_once('[') {
                    Some((n, b)) => (n.to_string(), Some(b.trim_end_matches(']').to_string())),
                    None => (t, None),
                };
                out.push((name, bit));
            }
        }
    }
    out
}

fn files(board: &Board) -> Vec<PathBuf> {
    let dir = repo().join("constraints").join(board.constraints);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("xdc" | "qsf" | "sdc")
            )
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no constraint files in {}", dir.display());
    v
}

fn glob_match(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((a, b)) => {
            name.starts_with(a)
                && name.len() >= a.len() + b.len()
                && glob_match(
                    &format!("*{b}").replacen('*', "", 1),
                    &name[name.len() - b.len()..],
                )
        }
    }
}

#[test]
fn constraints_name_only_ports_of_the_top_and_every_port_has_a_pin_or_a_reason() {
    for board in BOARDS {
        let g = generate_board(board).unwrap();
        let ports: BTreeMap<&str, &Port> = g.ports.iter().map(|p| (p.name.as_str(), p)).collect();
        // Bits placed, per port; ports excused with a reason.
        let mut placed: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        let mut excused: BTreeSet<String> = BTreeSet::new();
        for f in files(board) {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let at = format!("{}:{}", f.display(), n + 1);
                if let Some(rest) = line.trim().strip_prefix("# nopin:") {
                    let (names, reason) = rest
                        .split_once("--")
                        .unwrap_or_else(|| panic!("{at}: nopin without a reason"));
                    assert!(reason.trim().len() > 10, "{at}: give a real reason");
                    for n in names.split_whitespace() {
                        assert!(
                            ports.contains_key(n),
                            "{at}: nopin names {n}, not a port of {}",
                            board.top
                        );
                        excused.insert(n.to_string());
                    }
                    continue;
                }
                let code = line.split('#').next().unwrap();
                if code.trim().is_empty() {
                    continue;
                }
                let is_pin =
                    code.contains("PACKAGE_PIN") || code.contains("set_location_assignment");
                for (name, bit) in port_refs(code) {
                    // Patterns (qsfp*_lpmode) must match at least one port.
                    let matching: Vec<&&Port> = ports
                        .iter()
                        .filter(|(n, _)| glob_match(&name, n))
                        .map(|(_, p)| p)
                        .collect();
                    assert!(
                        !matching.is_empty(),
                        "{at}: '{name}' is not a port of {}",
                        board.top
                    );
                    for p in matching {
                        let bits: Vec<usize> = match bit.as_deref() {
                            None | Some("*") => (0..p.width).collect(),
                            Some(b) => {
                                let b: usize =
                                    b.parse().unwrap_or_else(|_| panic!("{at}: bad bit '{b}'"));
                                assert!(
                                    b < p.width && p.width > 1,
                                    "{at}: {}[{b}] is out of range (width {})",
                                    p.name,
                                    p.width
                                );
                                vec![b]
                            }
                        };
                        if is_pin {
                            placed.entry(p.name.clone()).or_default().extend(bits);
                        }
                    }
                }
            }
        }
        for p in &g.ports {
            if excused.contains(&p.name) {
                continue;
            }
            let got = placed.get(&p.name).map(|s| s.len()).unwrap_or(0);
            assert_eq!(
                got, p.width,
                "{}: port {} has {got} of {} bits placed and no '# nopin:' reason",
                board.target, p.name, p.width
            );
        }
    }
}

#[test]
fn board_tops_lint_clean_with_vendor_stubs() {
    if std::process::Command::new("verilator")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("verilator not found: skipped (make setup installs it)");
        return;
    }
    let core = pendulum_rtl_gen::generate("sim").unwrap();
    for board in BOARDS {
        let g = generate_board(board).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "pendulum-lint-{}-{}",
            board.target,
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let w = |n: &str, t: &str| {
            let p = dir.join(n);
            std::fs::write(&p, t).unwrap();
            p
        };
        let vlt = w("board_lint.vlt", &lint_waivers(board));
        let stubs = w("vendor_stubs.v", &g.stubs);
        let nic = w("pendulum_nic.v", &core.verilog);
        let top = w(&format!("{}.v", board.top), &g.top_verilog);
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", board.top])
            .args([&vlt, &stubs, &nic, &top])
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}: verilator -Wall:\n{}",
            board.target,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_board_is_a_target_and_generates() {
    for board in BOARDS {
        assert!(pendulum_rtl_gen::TARGETS.contains(&board.target));
        let g = generate_board(board).unwrap();
        assert!(g.top_verilog.contains(&format!("module {}(", board.top)));
        assert!(
            g.top_verilog.contains("pendulum_nic nic ("),
            "{}: core not instantiated",
            board.target
        );
        assert!(
            g.top_verilog.contains("pendulum_cdc_rx cdc_rx")
                && g.top_verilog.contains("pendulum_cdc_tx cdc_tx")
        );
        // The ACP port goes through its own crossings where the board has a second MAC.
        if board.target.starts_with("alveo") {
            for inst in [
                "pendulum_cdc_acp_rx acp_cdc_rx",
                "pendulum_cdc_acp_tx acp_cdc_tx",
                "pendulum_sync_bit acp_link_sync",
            ] {
                assert!(
                    g.top_verilog.contains(inst),
                    "{}: no `{inst}`",
                    board.target
                );
            }
        }
        assert!(!g.top_verilog.contains('$'));
    }
}
