//! What the Verilator tests share: the simulated card as its own process.

use pendulum_driver::{AnyCard, Device};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A `pendulum-sim serve` process in a temporary directory, killed on drop.
pub struct Server {
    pub child: Child,
    pub dir: PathBuf,
    pub socket: PathBuf,
}

impl Server {
    pub fn start(name: &str) -> Self {
        let dir = Self::fresh_dir(name);
        Self::start_in(dir.clone(), Some(&dir.join("host.mem")))
    }

    /// An empty temporary directory for the test `name`.
    pub fn fresh_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("pendulum-serve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Serves `dir/sim.sock`, host memory in `mem` (the simulator's default
    /// path when `None`).
    pub fn start_in(dir: PathBuf, mem: Option<&Path>) -> Self {
        let socket = dir.join("sim.sock");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pendulum-sim"));
        cmd.args(["serve", "--socket"]).arg(&socket);
        if let Some(mem) = mem {
            cmd.arg("--mem").arg(mem);
        }
        let child = cmd
            .args(["--mem-bytes", "32M"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn pendulum-sim");
        // The server prints one line once the socket accepts connections.
        let mut child = child;
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(
            line.starts_with("pendulum-sim: serving"),
            "pendulum-sim did not start: {line:?}"
        );
        Self { child, dir, socket }
    }

    pub fn address(&self) -> String {
        format!("sim:{}", self.socket.display())
    }

    pub fn open(&self) -> Device<AnyCard> {
        pendulum_driver::open(&self.address()).expect("open the simulated card")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
