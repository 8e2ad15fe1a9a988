//! The Promela model of the ACP link (`testbench/spin/acp_link.pml`),
//! checked by SPIN: the same state codes as the HDL; no safety violation
//! (exactly once, nothing uncommitted or damaged delivered, order, every
//! token delivered or handed back, nothing delivered that was handed back as
//! not delivered, a final result only for a token applied); progress under
//! weak fairness (once the faults stop, both sides come Up and every token
//! ends); and seeded bugs that SPIN must find, so the properties are known
//! to bite. Each check is a handful of seconds; bigger bounds are in the
//! model's README, to run by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spin/acp_link.pml");

/// What SPIN checks: assertions (safety) or acceptance cycles of the
/// `done` claim under weak fairness (progress).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Check {
    Safety,
    Progress,
}

fn model() -> String {
    std::fs::read_to_string(MODEL).expect("testbench/spin/acp_link.pml")
}

fn workdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pendulum-spin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Generates, compiles and runs the verifier with `defines`; returns pan's output.
fn check(name: &str, defines: &[&str], what: Check) -> String {
    if Command::new("spin").arg("-V").output().is_err() {
        panic!("spin is missing: run `make setup` (installs Debian's spin)");
    }
    let dir = workdir(name);
    std::fs::write(dir.join("model.pml"), model()).unwrap();
    let run = |cmd: &mut Command, step: &str| {
        let out = cmd
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("{step}: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() || step == "pan",
            "{step} failed:\n{text}"
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
    // COLLAPSE: compressed state vectors, about a third of the memory.
    gcc.args(["-O2", "-DCOLLAPSE", "-o", "pan", "pan.c"]);
    if what == Check::Safety {
        gcc.arg("-DSAFETY");
    }
    run(&mut gcc, "gcc pan.c");
    let mut pan = Command::new(Path::new(".").join("pan"));
    pan.args(["-m200000", "-c1"]);
    if what == Check::Progress {
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

/// Runs a check that must pass, and prints its size.
fn passes(name: &str, defines: &[&str], what: Check) {
    let out = check(name, defines, what);
    assert_eq!(errors(&out), 0, "{what:?} {defines:?}:\n{out}");
    println!("{what:?} {defines:?}: {}", states(&out));
}

#[test]
fn the_model_uses_the_layouts_state_codes() {
    use pendulum_layout::acp::{
        link_state, rx_state, tx_state, OP_ECHO, OP_ENTANGLE, OP_OFFER, OP_STATE,
    };
    let src = model();
    let def = |name: &str| -> u32 {
        let line = src
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["#define", name]))
            .unwrap_or_else(|| panic!("the model has no #define {name}"));
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    for (name, code) in [
        ("TX_IDLE", tx_state::IDLE as u32),
        ("TX_OFFER", tx_state::OFFER as u32),
        ("TX_COMMIT", tx_state::COMMIT as u32),
        ("TX_REVERSE", tx_state::REVERSE as u32),
        ("RX_EXPECT", rx_state::EXPECT as u32),
        ("RX_TENTATIVE", rx_state::TENTATIVE as u32),
        ("RX_REJECT", rx_state::REJECT as u32),
        ("OP_STATE", OP_STATE as u32),
        ("OP_OFFER", OP_OFFER as u32),
        ("OP_ECHO", OP_ECHO as u32),
        ("OP_ENTANGLE", OP_ENTANGLE as u32),
        ("LS_DOWN", link_state::DOWN),
        ("LS_ENTANGLING", link_state::ENTANGLING),
        ("LS_UP", link_state::UP),
    ] {
        assert_eq!(def(name), code, "{name}");
    }
}

/// Both directions at once, with loss, a receiver without room and one
/// record damaged past the check (in one field, or another channel's).
#[test]
fn safety_with_damage_in_both_directions() {
    passes(
        "safety-damage",
        &["-DNTOK_A=2", "-DNTOK_B=1", "-DMAX_RESETS=0"],
        Check::Safety,
    );
}

/// One direction, one damaged record and a reset of either side at any
/// moment: nothing a final result was given for is undone.
#[test]
fn safety_with_damage_and_a_reset() {
    passes(
        "safety-damage-reset",
        &["-DNTOK_A=2", "-DNTOK_B=0", "-DMAX_RESETS=1"],
        Check::Safety,
    );
}

/// A reset, a one-sided loss of signal and a record of an earlier
/// entanglement delivered again: never acted on.
#[test]
fn safety_with_resets_loss_of_signal_and_stale_records() {
    passes(
        "safety-stale",
        &[
            "-DNTOK_A=1",
            "-DNTOK_B=0",
            "-DMAX_DAMAGE=0",
            "-DMAX_RESETS=1",
            "-DMAX_STALE=1",
        ],
        Check::Safety,
    );
}

/// Once the faults stop, both sides come Up and every token ends: after
/// damage in both directions; after damage and a reset; after resets of
/// both sides at any interleaving; after a reset and a loss of signal.
#[test]
fn progress_once_the_faults_stop() {
    for defines in [
        &["-DNTOK_A=1", "-DNTOK_B=1", "-DMAX_RESETS=0"][..],
        &["-DNTOK_A=1", "-DNTOK_B=0", "-DMAX_RESETS=1"],
        &[
            "-DNTOK_A=1",
            "-DNTOK_B=0",
            "-DMAX_DAMAGE=0",
            "-DMAX_RESETS=2",
        ],
        &[
            "-DNTOK_A=1",
            "-DNTOK_B=0",
            "-DMAX_DAMAGE=0",
            "-DMAX_RESETS=1",
            "-DMAX_LOS=1",
        ],
    ] {
        passes("progress", defines, Check::Progress);
    }
}

/// Seeded bugs (the model's BUG_* defines): each restores a rule the link
/// once had, or drops one it needs; SPIN must find each.
#[test]
fn seeded_bugs_are_found() {
    for (bug, bounds, what, finding) in [
        (
            "BUG_NO_SESSION",
            &[
                "-DNTOK_A=1",
                "-DNTOK_B=0",
                "-DMAX_DAMAGE=0",
                "-DMAX_RESETS=2",
            ][..],
            Check::Progress,
            "acceptance cycle",
        ),
        (
            "BUG_CONFIRM_WITHOUT_PROOF",
            &["-DNTOK_A=2", "-DNTOK_B=0", "-DMAX_RESETS=1"],
            Check::Safety,
            "assertion violated",
        ),
        (
            "BUG_UNCHECKED_DECISION",
            &["-DNTOK_A=2", "-DNTOK_B=0", "-DMAX_RESETS=0"],
            Check::Progress,
            "acceptance cycle",
        ),
        (
            "BUG_STORE_BEFORE_SEEN",
            &["-DNTOK_A=2", "-DNTOK_B=0", "-DMAX_RESETS=0"],
            Check::Progress,
            "acceptance cycle",
        ),
        (
            "BUG_IGNORE_PEER_RESET",
            &[
                "-DNTOK_A=2",
                "-DNTOK_B=0",
                "-DMAX_RESETS=1",
                "-DMAX_DAMAGE=0",
            ],
            Check::Progress,
            "acceptance cycle",
        ),
        (
            "BUG_RESULT_AT_DECISION",
            &[
                "-DNTOK_A=2",
                "-DNTOK_B=0",
                "-DMAX_RESETS=1",
                "-DMAX_DAMAGE=0",
            ],
            Check::Safety,
            "assertion violated",
        ),
    ] {
        let bug_define = format!("-D{bug}");
        let mut defines = vec![bug_define.as_str()];
        defines.extend_from_slice(bounds);
        let out = check("bug", &defines, what);
        assert!(errors(&out) > 0, "SPIN did not catch {bug}:\n{out}");
        assert!(
            out.contains(finding),
            "{bug}: SPIN found something, but not an {finding}:\n{out}"
        );
    }
}
