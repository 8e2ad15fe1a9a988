//! `rtl-gen [TARGET] [--out DIR]`: writes `DIR/pendulum_nic.v` and `DIR/manifest.json`
//! (default target `sim`, default DIR `build/rtl/<TARGET>`).
//! `rtl-gen --staged DIR`: writes `DIR/pendulum_<name>.v` for each block
//! built before the core uses it (`STAGED_BLOCKS`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut target = "sim".to_string();
    let mut out: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().map(PathBuf::from),
            "--staged" => {
                let dir = PathBuf::from(args.next().unwrap_or_else(|| "build/rtl/staged".into()));
                return write_staged(&dir);
            }
            "-h" | "--help" => {
                println!(
                    "usage: rtl-gen [TARGET] [--out DIR]\n       rtl-gen --staged [DIR]\n\
                     targets: {}\nstaged blocks (not yet in the core): {}",
                    pendulum_rtl_gen::TARGETS.join(", "),
                    pendulum_rtl_gen::STAGED_BLOCKS.join(", ")
                );
                return ExitCode::SUCCESS;
            }
            t => target = t.to_string(),
        }
    }
    let out = out.unwrap_or_else(|| PathBuf::from("build/rtl").join(&target));
    match pendulum_rtl_gen::generate(&target).and_then(|g| {
        let path = pendulum_rtl_gen::write(&g, &out)
            .map_err(|e| format!("writing {}: {e}", out.display()))?;
        Ok((path, g.manifest.ports.len()))
    }) {
        Ok((path, n)) => {
            println!(
                "rtl-gen: wrote {} ({n} ports) and its manifest.json",
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rtl-gen: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes each staged block's Verilog into `dir`.
fn write_staged(dir: &std::path::Path) -> ExitCode {
    let result = std::fs::create_dir_all(dir)
        .map_err(|e| format!("creating {}: {e}", dir.display()))
        .and_then(|()| {
            for name in pendulum_rtl_gen::STAGED_BLOCKS {
                let path = dir.join(format!("pendulum_{name}.v"));
                let v = pendulum_rtl_gen::staged_block(name)?;
                std::fs::write(&path, v).map_err(|e| format!("writing {}: {e}", path.display()))?;
                println!("rtl-gen: wrote {}", path.display());
            }
            Ok(())
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rtl-gen: {e}");
            ExitCode::FAILURE
        }
    }
}
