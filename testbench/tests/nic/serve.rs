//! The simulated card as its own process: `pendulum-sim serve` is spawned,
//! and the driver opens it with `pendulum_driver::open("sim:...")`, as an
//! application would. RX, TX and echo run through it; killing it mid-run
//! gives a clear error and no hang.

use pendulum_driver::{AnyCard, Card, Device, Error, EthernetPort, RxPipe};
use pendulum_testbench::echo::echo_batch;
use pendulum_testbench::models::FrameGen;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Server;

/// Receives on `pipes` until every expected frame arrived, checking each.
fn receive_all(
    dev: &mut Device<AnyCard>,
    pipes: &mut [RxPipe],
    expected: &mut [VecDeque<Vec<u8>>],
) -> Result<u64, String> {
    let mut got = 0;
    let mut idle_polls = 0;
    while expected.iter().any(|q| !q.is_empty()) {
        let mut any = false;
        for pipe in pipes.iter_mut() {
            let p = pipe.index();
            let end = {
                let batch = pipe.recv(dev);
                if batch.is_empty() {
                    continue;
                }
                for f in batch.iter() {
                    let f = f.map_err(|e| e.to_string())?.bytes;
                    let want = expected[p]
                        .pop_front()
                        .ok_or(format!("pipe {p}: an extra frame"))?;
                    if f != want.as_slice() {
                        return Err(format!("pipe {p}: frame {got} differs"));
                    }
                    got += 1;
                }
                batch.end_unit()
            };
            pipe.free(dev, end).map_err(|e| e.to_string())?;
            any = true;
        }
        if !any {
            idle_polls += 1;
            if idle_polls > 1_000_000 {
                return Err("timed out".into());
            }
            dev.card_mut().relax();
            dev.card().check().map_err(|e| e.to_string())?;
        }
    }
    Ok(got)
}

#[test]
fn opens_with_one_string_and_checks_identity() {
    let s = Server::start("open");
    let mut dev = s.open();
    assert_eq!(dev.pipes(), pendulum_layout::params::PIPES);
    assert_eq!(dev.max_frame_bytes(), 9728);
    dev.write_checked(pendulum_driver::layout::global::SCRATCH.offset, 77)
        .unwrap();
    assert_eq!(
        dev.read(pendulum_driver::layout::global::SCRATCH.offset)
            .unwrap(),
        77
    );
    // A refused write comes back with the card's reason, across the socket.
    let e = dev
        .write_checked(pendulum_driver::layout::global::CAP_PIPES.offset, 1)
        .unwrap_err();
    assert!(matches!(e, Error::RegisterRefused { .. }), "{e}");
    // One client at a time: a second one is told so at once.
    let t = Instant::now();
    let text = match pendulum_driver::open(&s.address()) {
        Ok(_) => panic!("a second client was let in"),
        Err(e) => e.to_string(),
    };
    assert!(text.contains("serving another client"), "{text}");
    assert!(t.elapsed() < Duration::from_secs(5));
    // The card keeps its state for the next client.
    drop(dev);
    let mut dev = s.open();
    assert_eq!(
        dev.read(pendulum_driver::layout::global::SCRATCH.offset)
            .unwrap(),
        77
    );
}

#[test]
fn rx_through_the_simulator_process() {
    let s = Server::start("rx");
    let mut dev = s.open();
    let mut pipes: Vec<RxPipe> = (0..4)
        .map(|p| dev.open_rx_pipe(p, 64 * 1024).unwrap())
        .collect();
    let mut gen = FrameGen::new(11);
    let mut expected = vec![VecDeque::new(); 4];
    let mut frames = Vec::new();
    for i in 0..2000 {
        let len = if i % 5 == 4 {
            gen.random_len(60, 1518)
        } else {
            64 + 64 * (i % 3)
        };
        let f = gen.frame(len, i % 4);
        expected[i % 4].push_back(f.clone());
        frames.push(f);
    }
    dev.card_mut().inject(&frames).unwrap();
    let got = receive_all(&mut dev, &mut pipes, &mut expected).unwrap();
    assert_eq!(got, 2000);
    let c = dev.counters().unwrap();
    assert_eq!((c.rx_frames, c.drops(), c.reg_errors), (2000, 0, 0));
}

#[test]
fn tx_through_the_simulator_process() {
    let s = Server::start("tx");
    let mut dev = s.open();
    let mut tx = dev.open_tx_pipe(1, 16 * 1024).unwrap();
    let mut gen = FrameGen::new(12);
    let frames: Vec<Vec<u8>> = (0..600)
        .map(|i| gen.frame(if i % 7 == 0 { 1500 } else { 64 + 64 * (i % 3) }, 1))
        .collect();
    let mut sent = 0;
    while sent < frames.len() {
        let refs: Vec<&[u8]> = frames[sent..].iter().map(Vec::as_slice).collect();
        let n = tx.send(&mut dev, &refs).unwrap();
        sent += n;
        if n == 0 {
            dev.card_mut().relax();
        }
    }
    assert!(tx.wait_idle(&mut dev, 1_000_000));
    let card = dev.card_mut();
    assert!(card.drain(1_000_000).unwrap());
    assert_eq!(card.collect().unwrap(), frames);
    let c = dev.counters().unwrap();
    assert_eq!((c.tx_frames, c.tx_drop_malformed), (600, 0));
}

#[test]
fn echo_through_the_simulator_process() {
    let s = Server::start("echo");
    let mut dev = s.open();
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let mut gen = FrameGen::new(13);
    let frames: Vec<Vec<u8>> = (0..1500).map(|i| gen.frame(64 + 64 * (i % 4), 0)).collect();
    dev.card_mut().inject(&frames).unwrap();
    let mut echoed = 0;
    let mut polls = 0;
    while echoed < frames.len() {
        let n = echo_batch(&mut dev, &mut rx, &mut tx, 100_000).unwrap();
        echoed += n;
        if n == 0 {
            polls += 1;
            assert!(polls < 1_000_000, "echo stalled at {echoed}");
            dev.card_mut().relax();
        }
    }
    assert!(tx.wait_idle(&mut dev, 1_000_000));
    let card = dev.card_mut();
    assert!(card.drain(1_000_000).unwrap());
    assert_eq!(card.collect().unwrap(), frames);
}

#[test]
fn the_echo_application_and_ctl_run_against_the_simulator() {
    let s = Server::start("apps");
    let out = Command::new(env!("CARGO_BIN_EXE_pendulum-echo"))
        .arg(s.address())
        .args(["--self-test", "2000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("self-test OK: 2000 frames"), "{text}");

    let ctl = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pendulum-ctl"))
            .arg(s.address())
            .args(args)
            .output()
            .unwrap()
    };
    let info = ctl(&["info"]);
    assert!(info.status.success());
    assert!(String::from_utf8_lossy(&info.stdout).contains("identity          PNDL"));
    let counters = String::from_utf8_lossy(&ctl(&["counters"]).stdout).into_owned();
    assert!(
        counters.contains("rx_frames          2000")
            && counters.contains("tx_frames          2000"),
        "{counters}"
    );
    // Atomic verbs by hand, through the simulator process.
    let o = ctl(&["atomic", "swap", "0x40", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = ctl(&["atomic", "fetch-add", "0x40", "5"]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("old value 0x7 (7)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = ctl(&["atomic", "fetch-add", "0x44", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a multiple of 8"));
    // The ACP link is built; alone, the simulated card has no peer (no signal).
    let link = ctl(&["link"]);
    let text = String::from_utf8_lossy(&link.stdout);
    assert!(link.status.success(), "{text}");
    assert!(
        text.contains("state              Down")
            && text.contains(&format!(
                "of {} built",
                pendulum_layout::params::ACP_CHANNELS
            )),
        "{text}"
    );
}

#[test]
fn killing_the_simulator_mid_run_gives_a_clear_error_quickly() {
    let mut s = Server::start("kill");
    let mut dev = s.open();
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    let mut tx = dev.open_tx_pipe(0, 64 * 1024).unwrap();
    let mut gen = FrameGen::new(14);
    let frames: Vec<Vec<u8>> = (0..5000).map(|_| gen.frame(64, 0)).collect();
    dev.card_mut().inject(&frames).unwrap();
    let mut echoed = 0;
    while echoed < 500 {
        let n = echo_batch(&mut dev, &mut rx, &mut tx, 100_000).unwrap();
        echoed += n;
        if n == 0 {
            dev.card_mut().relax();
        }
    }
    let pid = dev.card_mut().as_sim().unwrap().server_pid();
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let t = Instant::now();
    // The echo loop goes on until the card fails; relax cannot return an
    // error, so the loop checks the card as a polling application should.
    let err = loop {
        match echo_batch(&mut dev, &mut rx, &mut tx, 100_000) {
            Err(e) => break e,
            Ok(0) => {
                dev.card_mut().relax();
                if let Err(e) = dev.card().check() {
                    break e;
                }
            }
            Ok(_) => {}
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "no error 5 s after the simulator died"
        );
    };
    assert!(t.elapsed() < Duration::from_secs(2));
    let text = err.to_string();
    assert!(matches!(err, Error::NoResponse(_)), "{text}");
    assert!(
        text.contains(&format!("simulator process {pid}"))
            && text.contains("exited")
            && text.contains("restart"),
        "{text}"
    );
    // Every later call fails the same way at once.
    assert!(matches!(dev.read(0), Err(Error::NoResponse(_))));
    assert!(dev.counters().is_err());
}

#[test]
fn atomic_verbs_against_the_simulator_process_match_the_reference_model() {
    use pendulum_layout::atomic::{execute, Verb};
    let s = Server::start("atomics");
    let mut dev = s.open();
    let mut at = dev.open_atomics(2, 2, 64 * 1024).unwrap();
    let mut model = vec![0u64; pendulum_layout::params::ATOMIC_BYTES as usize / 8];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let verbs: Vec<Verb> = (0..400u16)
        .map(|tag| {
            let r = rnd();
            let opc = 1 + (r % 5) as u8;
            let addr = [0u32, 8, 16, 24, 12][(r >> 8) as usize % 5];
            Verb {
                op: opc,
                tag,
                addr,
                operands: [rnd() % 4, rnd(), rnd(), rnd()],
                reserved_set: false,
            }
        })
        .collect();
    let expect: Vec<_> = verbs.iter().map(|v| execute(&mut model, v)).collect();
    let mut got = Vec::new();
    let mut next = 0;
    while got.len() < verbs.len() {
        if next < verbs.len() {
            next += at.submit(&mut dev, &verbs[next..]).unwrap();
        }
        let r = at.results(&mut dev).unwrap();
        if r.is_empty() {
            dev.card_mut().relax();
            dev.card().check().unwrap();
        }
        got.extend(r);
    }
    assert_eq!(got, expect);
    assert_eq!(at.fetch_add(&mut dev, 16, 0).unwrap(), model[2]);
}

/// A reset of the simulated card under a driver that has it open (through
/// the driver's own connection) is reported as CardReset at its next polls;
/// `pendulum-ctl ADDRESS reset` resets it from the command line; and the
/// card opens again and works.
#[test]
fn a_reset_of_the_simulated_card_is_reported_and_it_opens_again() {
    let s = Server::start("reset");
    let mut dev = s.open();
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    dev.card_mut().as_sim().unwrap().reset_card(8).unwrap();
    let mut polls = 0;
    let err = loop {
        match rx.recv_checked(&mut dev) {
            Ok(b) => assert!(b.is_empty(), "a frame on a card that was reset"),
            Err(e) => break e,
        }
        polls += 1;
        assert!(
            polls <= 2 * pendulum_driver::POLLS_PER_RESET_CHECK,
            "no error after {polls} polls"
        );
    };
    assert!(matches!(err, Error::CardReset), "{err}");
    drop(dev);
    let out = Command::new(env!("CARGO_BIN_EXE_pendulum-ctl"))
        .args([&s.address(), "reset", "8"])
        .output()
        .expect("run pendulum-ctl");
    assert!(
        out.status.success(),
        "pendulum-ctl reset failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut dev = s.open();
    assert_eq!(
        dev.read(pendulum_driver::layout::global::REG_ERRORS.offset)
            .unwrap(),
        0
    );
    let mut rx = dev.open_rx_pipe(0, 64 * 1024).unwrap();
    let f = FrameGen::new(5).frame(300, 0);
    dev.card_mut().inject(std::slice::from_ref(&f)).unwrap();
    assert!(rx.wait(&mut dev, 100_000), "no frame after opening again");
    let got: Vec<Vec<u8>> = rx
        .recv(&dev)
        .iter()
        .map(|x| x.unwrap().bytes.to_vec())
        .collect();
    assert_eq!(got, vec![f]);
}

/// `pendulum-ctl ADDRESS ARGS..`, run to its end.
fn ctl(s: &Server, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pendulum-ctl"))
        .arg(s.address())
        .args(args)
        .output()
        .expect("run pendulum-ctl")
}

/// `pendulum-ctl ADDR pipes | head -1`: the reader goes away after one
/// line; the tool stops at its next write without a panic, exit status 0.
#[test]
fn ctl_into_a_reader_that_closes_early_ends_quietly() {
    let s = Server::start("epipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pendulum-ctl"))
        .args([&s.address(), "pipes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pendulum-ctl");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("pipe "), "{line:?}");
    // One line per pipe, far more than a pipe buffer holds: it writes
    // again after this.
    const { assert!(pendulum_layout::params::PIPES * 80 > 64 * 1024) };
    drop(out);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{:?}: {err}", o.status);
    assert!(err.is_empty(), "{err}");
}

/// The pipe `pendulum-ctl ADDR atomic ..` borrows for the verbs (the last
/// one with both sides).
fn ctl_atomic_pipe_ctrl(s: &Server) -> (u32, u32) {
    use pendulum_driver::layout::{pipe, pipe_page};
    use pendulum_layout::params::{PIPES, TX_PIPES};
    let page = pipe_page(PIPES.min(TX_PIPES) - 1);
    let mut dev = s.open();
    (
        dev.read(page + pipe::CTRL.offset).unwrap(),
        dev.read(page + pipe::TX_CTRL.offset).unwrap(),
    )
}

/// `atomic` opens a pipe pair for the verbs; after it (whether the verb ran
/// or the card refused it) both sides are off again, as they were.
#[test]
fn ctl_atomic_leaves_the_pipes_it_borrowed_off() {
    let s = Server::start("atomic-off");
    assert_eq!(ctl_atomic_pipe_ctrl(&s), (0, 0));
    let o = ctl(&s, &["atomic", "swap", "0x40", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(ctl_atomic_pipe_ctrl(&s), (0, 0), "after a verb that ran");
    let o = ctl(&s, &["atomic", "fetch-add", "0x44", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(ctl_atomic_pipe_ctrl(&s), (0, 0), "after a verb refused");
    // And the next run finds the value the first one left.
    let o = ctl(&s, &["atomic", "fetch-add", "0x40", "1"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("old value 0x7 (7)"), "{out}");
}

/// A pipe that is already on belongs to someone: `atomic` refuses to take
/// it over and leaves it on.
#[test]
fn ctl_atomic_refuses_a_pipe_that_is_in_use() {
    let s = Server::start("atomic-busy");
    let p = pendulum_layout::params::PIPES.min(pendulum_layout::params::TX_PIPES) - 1;
    {
        let mut dev = s.open();
        // Left on when this client goes, as an application still using it would.
        let _rx = dev.open_rx_pipe(p, 64 * 1024).unwrap();
    }
    let o = ctl(&s, &["atomic", "swap", "0x40", "7"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("pipe {p} is in use")), "{err}");
    assert_eq!(ctl_atomic_pipe_ctrl(&s), (1, 0));
}

/// Bad arguments: clap's message and status 2, no panic, no card touched.
#[test]
fn ctl_bad_arguments_exit_2_with_a_message() {
    let s = Server::start("ctl-args");
    for args in [
        &["atomic", "swap", "0x40"][..],
        &["atomic", "frobnicate", "0x40", "1"],
        &["read", "0xZZ"],
        &["write", "0x10"],
        &["reset", "-1"],
        &["nonsense"],
    ] {
        let o = ctl(&s, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("error:") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let o = ctl(&s, &["--help"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("sim:/path/to/socket"));
}

/// Sends `signal` (a name for kill(1)) to the simulator; its socket and
/// host-memory file must be gone once it has exited.
fn signal_removes_the_files(signal: &str) {
    let mut s = Server::start(&format!("sig{signal}"));
    let mem = s.dir.join("host.mem");
    assert!(s.socket.exists() && mem.exists());
    let status = Command::new("kill")
        .args(["-s", signal, &s.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let t = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(!status.success());
    assert!(!s.socket.exists(), "socket left behind after SIG{signal}");
    assert!(!mem.exists(), "host memory left behind after SIG{signal}");
}

#[test]
fn sigterm_removes_the_socket_and_host_memory() {
    signal_removes_the_files("TERM");
}

#[test]
fn sigint_removes_the_socket_and_host_memory() {
    signal_removes_the_files("INT");
}

/// What a simulator killed with SIGKILL leaves: its socket, and host memory
/// at the default path, named after its pid. The next one starts on the same
/// socket, and removes the host memory of simulators that are gone.
#[test]
fn a_simulator_starts_over_files_left_by_one_that_was_killed() {
    let dir = Server::fresh_dir("stale");
    let socket = dir.join("sim.sock");
    // A socket nobody listens on any more.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    // A pid that is no longer running: that of a process that exited.
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let shm = pendulum_testbench::server::ServeOptions::default_mem_path();
    let stale_mem = shm
        .parent()
        .unwrap()
        .join(format!("pendulum-sim-{gone_pid}.mem"));
    std::fs::write(&stale_mem, b"left by a simulator killed with SIGKILL").unwrap();
    let s = Server::start_in(dir, None);
    let removed = !stale_mem.exists();
    let _ = std::fs::remove_file(&stale_mem);
    let mut dev = s.open();
    assert_eq!(dev.pipes(), pendulum_layout::params::PIPES);
    dev.write_checked(pendulum_driver::layout::global::SCRATCH.offset, 5)
        .unwrap();
    assert!(removed, "{} is still there", stale_mem.display());
    // Its own host memory, at the default path: Drop kills it with SIGKILL.
    let own_mem = stale_mem.with_file_name(format!("pendulum-sim-{}.mem", s.child.id()));
    drop(dev);
    drop(s);
    let _ = std::fs::remove_file(own_mem);
}

/// `--help` of every tool says what it does and exits 0, without starting
/// a simulation; unknown options are refused with status 2.
#[test]
fn every_tool_answers_help_and_refuses_unknown_options() {
    for (exe, words) in [
        (env!("CARGO_BIN_EXE_pendulum-ctl"), "ADDRESS"),
        (env!("CARGO_BIN_EXE_pendulum-sim"), "serve"),
        (env!("CARGO_BIN_EXE_pendulum-echo"), "--self-test"),
        (env!("CARGO_BIN_EXE_pendulum-demo"), "PENDULUM_WAVE"),
        (env!("CARGO_BIN_EXE_pendulum-bench"), "build/bench/rx.json"),
        (
            env!("CARGO_BIN_EXE_pendulum-card-bench"),
            "build/bench/card.json",
        ),
        (
            env!("CARGO_BIN_EXE_pendulum-acp-bench"),
            "build/bench/acp.json",
        ),
        (
            env!("CARGO_BIN_EXE_pendulum-atomics-bench"),
            "build/bench/atomics.json",
        ),
        (
            env!("CARGO_BIN_EXE_pendulum-enso-bench"),
            "build/bench/enso.json",
        ),
    ] {
        let o = Command::new(exe).arg("--help").output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{exe} --help: {:?}", o.status);
        assert!(
            out.contains(words) && out.contains("Example"),
            "{exe}: {out}"
        );
        let o = Command::new(exe).arg("--no-such-option").output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{exe}");
    }
}
