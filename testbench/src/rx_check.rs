//! A receiving application for tests, the demo and the benchmark: it drains
//! RX pipes through the driver and checks every frame, byte for byte and in
//! order, against what the MAC side sent to that pipe.

use crate::SimCard;
use pendulum_driver::{Device, EntryHeader, RxPipe};
use std::collections::VecDeque;

/// What a receive run saw.
#[derive(Clone, Debug, Default)]
pub struct RxReport {
    pub frames: u64,
    pub bytes: u64,
    /// Batches handed out by `recv` (more frames per batch = fewer notifications).
    pub batches: u64,
    /// Cycles from the start of the run to the last frame received.
    pub cycles: u64,
}

/// Frames the MAC side sent, per pipe, in order, waiting to be seen by the host.
pub type Expected = Vec<VecDeque<Vec<u8>>>;

/// Receives until every expected frame has arrived (or `max_cycles` pass),
/// freeing each batch after checking it. Any missing, extra, reordered or
/// altered frame is an error naming the pipe and position.
pub fn receive_and_check(
    dev: &mut Device<SimCard>,
    pipes: &mut [RxPipe],
    expected: &mut Expected,
    max_cycles: u64,
) -> Result<RxReport, String> {
    receive_and_check_headers(dev, pipes, expected, max_cycles, |_, _, _| Ok(()))
}

/// [`receive_and_check`], and `check(pipe, frame, header)` on each frame as
/// it arrives (after its bytes were found right): an `Err` stops the run.
pub fn receive_and_check_headers(
    dev: &mut Device<SimCard>,
    pipes: &mut [RxPipe],
    expected: &mut Expected,
    max_cycles: u64,
    mut check: impl FnMut(usize, &[u8], &EntryHeader) -> Result<(), String>,
) -> Result<RxReport, String> {
    let start = dev.card().sim.cycle();
    let mut rep = RxReport::default();
    let mut seen = vec![0u64; pipes.len()];
    loop {
        let outstanding: usize = expected.iter().map(|q| q.len()).sum();
        if outstanding == 0 {
            break;
        }
        if dev.card().sim.cycle() - start > max_cycles {
            return Err(format!(
                "timed out after {max_cycles} cycles with {outstanding} frames not received ({:?} per pipe)",
                expected.iter().map(|q| q.len()).collect::<Vec<_>>()
            ));
        }
        let mut any = false;
        for (i, pipe) in pipes.iter_mut().enumerate() {
            let p = pipe.index();
            let (frames, bytes) =
                take_batch(dev, pipe, &mut expected[p], &mut seen[i], &mut check)?;
            if frames > 0 {
                rep.frames += frames;
                rep.bytes += bytes;
                rep.batches += 1;
                any = true;
            }
        }
        if !any {
            use pendulum_driver::Card;
            dev.card_mut().relax();
        }
    }
    rep.cycles = dev.card().sim.cycle() - start;
    Ok(rep)
}

/// Takes the batch waiting on `pipe`, if any: checks each frame against
/// `due` (what was sent to this pipe, in order; `seen` counts the frames
/// taken so far, for messages), calls `check(pipe, frame, header)` on each,
/// and frees the batch. Returns its frames and bytes, (0, 0) if none.
pub fn take_batch(
    dev: &mut Device<SimCard>,
    pipe: &mut RxPipe,
    due: &mut VecDeque<Vec<u8>>,
    seen: &mut u64,
    check: &mut impl FnMut(usize, &[u8], &EntryHeader) -> Result<(), String>,
) -> Result<(u64, u64), String> {
    let p = pipe.index();
    let (mut frames, mut bytes) = (0, 0);
    let end = {
        let batch = pipe.recv(dev);
        if batch.is_empty() {
            return Ok((0, 0));
        }
        for frame in batch.iter() {
            let entry = frame.map_err(|e| e.to_string())?;
            let frame = entry.bytes;
            if usize::from(entry.header.len) != frame.len() {
                return Err(format!(
                    "pipe {p}: frame {seen}: header LEN {} for {} bytes",
                    entry.header.len,
                    frame.len()
                ));
            }
            let want = due.pop_front().ok_or_else(|| {
                format!("pipe {p}: frame {seen} arrived but nothing more was sent to this pipe")
            })?;
            if frame != want.as_slice() {
                return Err(format!(
                    "pipe {p}: frame {seen} differs: got {} bytes, sent {} bytes{}",
                    frame.len(),
                    want.len(),
                    first_difference(frame, &want)
                ));
            }
            check(p, frame, &entry.header).map_err(|e| format!("pipe {p}: frame {seen}: {e}"))?;
            *seen += 1;
            frames += 1;
            bytes += frame.len() as u64;
        }
        batch.end_unit()
    };
    pipe.free(dev, end).map_err(|e| e.to_string())?;
    Ok((frames, bytes))
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            ", first difference at byte {i} (got {:#04x}, sent {:#04x})",
            a[i], b[i]
        ),
        None => String::new(),
    }
}
