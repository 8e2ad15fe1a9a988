//! `rtl-gen [TARGET] [--out DIR]`: writes `DIR/pendulum_nic.v` and `DIR/manifest.json`
//! (default target `sim`, default DIR `build/rtl/<TARGET>`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut target = "sim".to_string();
    let mut out: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!(
                    "usage: rtl-gen [TARGET] [--out DIR]\ntargets: {}",
                    pendulum_rtl_gen::TARGETS.join(", ")
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
