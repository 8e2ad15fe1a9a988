//! The Promela model of the ACP channel machine (`testbench/spin/acp_channel.pml`),
//! checked by SPIN: the same state codes as the HDL, no safety violation
//! (exactly once, nothing uncommitted or corrupted delivered, order, every
//! token delivered or handed back), termination under weak fairness, and
//! seeded bugs that SPIN must find, so the properties are known to bite.

use std::path::{Path, PathBuf};
use std::process::Command;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spin/acp_channel.pml");

/// Bounds of the safety run: tokens each way and fault budgets. About six
/// million states, ten seconds.
const SAFETY: &[&str] = &[
    "-DNTOK_A=2",
    "-DNTOK_B=2",
    "-DMAX_LOSS=1",
    "-DMAX_CORRUPT=1",
    "-DMAX_NOROOM=1",
    "-DMAX_CUTS=2",
];
/// Smaller bounds for the liveness run (acceptance cycles cost more).
const LIVENESS: &[&str] = &[
    "-DNTOK_A=2",
    "-DNTOK_B=1",
    "-DMAX_LOSS=1",
    "-DMAX_CORRUPT=1",
    "-DMAX_NOROOM=1",
    "-DMAX_CUTS=1",
];

fn model() -> String {
    std::fs::read_to_string(MODEL).expect("testbench/spin/acp_channel.pml")
}

fn workdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pendulum-spin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Generates, compiles and runs the verifier; returns pan's output.
fn check(name: &str, source: &str, defines: &[&str], liveness: bool) -> String {
    if Command::new("spin").arg("-V").output().is_err() {
        panic!("spin is missing: run `make setup` (installs Debian's spin)");
    }
    let dir = workdir(name);
    std::fs::write(dir.join("model.pml"), source).unwrap();
    let run = |cmd: &mut Command, what: &str| {
        let out = cmd
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() || what == "pan",
            "{what} failed:\n{text}"
        );
        text
    };
    run(
        Command::new("spin")
            .arg("-a")
            .args(defines)
            .arg("model.pml"),
        "spin -a",
    );
    let mut gcc = Command::new("gcc");
    gcc.args(["-O2", "-o", "pan", "pan.c"]);
    if !liveness {
        gcc.arg("-DSAFETY");
    }
    run(&mut gcc, "gcc pan.c");
    let mut pan = Command::new(Path::new(".").join("pan"));
    pan.arg("-m200000");
    if liveness {
        pan.args(["-a", "-f"]);
    }
    let out = run(&mut pan, "pan");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn errors(out: &str) -> u64 {
    let at = out
        .find("errors: ")
        .unwrap_or_else(|| panic!("no verdict in pan's output:\n{out}"));
    out[at + 8..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn states(out: &str) -> &str {
    out.lines()
        .find(|l| l.contains("states, stored"))
        .unwrap_or("?")
        .trim()
}

#[test]
fn the_model_uses_the_layouts_state_codes() {
    use pendulum_layout::acp::{rx_state, tx_state, OP_ECHO, OP_OFFER, OP_STATE};
    let src = model();
    let def = |name: &str| -> u8 {
        let line = src
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["#define", name]))
            .unwrap_or_else(|| panic!("the model has no #define {name}"));
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    for (name, code) in [
        ("TX_IDLE", tx_state::IDLE),
        ("TX_OFFER", tx_state::OFFER),
        ("TX_COMMIT", tx_state::COMMIT),
        ("TX_REVERSE", tx_state::REVERSE),
        ("RX_EXPECT", rx_state::EXPECT),
        ("RX_TENTATIVE", rx_state::TENTATIVE),
        ("RX_REJECT", rx_state::REJECT),
        ("OP_STATE", OP_STATE),
        ("OP_OFFER", OP_OFFER),
        ("OP_ECHO", OP_ECHO),
    ] {
        assert_eq!(def(name), code, "{name}");
    }
}

#[test]
fn spin_finds_no_violation_and_every_run_settles() {
    let out = check("safety", &model(), SAFETY, false);
    assert_eq!(errors(&out), 0, "safety violation:\n{out}");
    println!("safety: {}", states(&out));
    let out = check("liveness", &model(), LIVENESS, true);
    assert_eq!(errors(&out), 0, "a run that never settles:\n{out}");
    println!("liveness: {}", states(&out));
}

/// Seeded bugs on the lines marked MUTATION in the model: SPIN must find each.
#[test]
fn seeded_bugs_are_found() {
    let src = model();
    for (what, from, to) in [
        (
            "deliver on hearing OFFER instead of COMMIT",
            "rx[s] == RX_TENTATIVE && ht == TX_COMMIT -> /* MUTATION: deliver-on */",
            "rx[s] == RX_TENTATIVE && ht == TX_OFFER -> /* MUTATION: deliver-on */",
        ),
        (
            "ignore that the peer lost its state",
            "flushA = (peerinc[A] != 0 && inc[B] != peerinc[A]); /* MUTATION: session-A */",
            "flushA = 0; /* MUTATION: session-A */",
        ),
    ] {
        assert!(
            src.contains(from),
            "the model no longer has the line for `{what}`"
        );
        let out = check("mutant", &src.replace(from, to), LIVENESS, false);
        assert!(errors(&out) > 0, "SPIN did not catch: {what}\n{out}");
    }
}
