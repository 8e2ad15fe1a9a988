"""Runs `pendulum-bench --rx-only` of several builds in turn, ROUNDS times
interleaved, each under `perf stat -e task-clock`. Prints, per build, the
median wall sim cycles/s of each frame size (the bench's own figure), and
the median and the least CPU seconds of the whole run (frame generation and setup
included: the same work in every build), which a busy machine inflates
less than wall time. Fails if the simulated cycle counts differ.

usage: compare_builds.py ROUNDS path/to/pendulum-bench-a path/to/pendulum-bench-b ...
(copy each build's target/release/pendulum-bench aside under its own name)"""
import json, os, re, statistics, subprocess, sys, tempfile
rounds, paths = int(sys.argv[1]), sys.argv[2:]
variants = [os.path.basename(p) for p in paths]
path_of = dict(zip(variants, (os.path.abspath(p) for p in paths)))
cwd = tempfile.mkdtemp()
res = {v: [] for v in variants}
for r in range(rounds):
    for v in variants:
        p = subprocess.run(['perf', 'stat', '-x,', '-e', 'task-clock', path_of[v], '--rx-only'],
                           capture_output=True, text=True, cwd=cwd, check=True)
        rows = {}
        for line in p.stdout.splitlines():
            m = re.match(r'\s*(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(\d+)\s*$', line)
            if m:
                rows[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        cpu_ms = float(p.stderr.strip().splitlines()[-1].split(',')[0])
        res[v].append({'rows': rows, 'cpu_s': cpu_ms / 1000})
        print(json.dumps({'round': r, 'variant': v, 'cpu_s': cpu_ms / 1000, 'rows': rows}), flush=True)
print()
base = variants[0]
sizes = sorted(res[base][0]['rows'])
cyc = {s: res[base][0]['rows'][s][0] for s in sizes}
hdr = f"{'build':<16}" + ''.join(f"{str(s)+' B c/s':>12}" for s in sizes) + f"{'CPU s':>9}{'vs first':>10}{'min CPU s':>11}{'vs first':>10}"
print(hdr)
cpu0 = statistics.median(x['cpu_s'] for x in res[base])
min0 = min(x['cpu_s'] for x in res[base])
for v in variants:
    for x in res[v]:
        assert all(x['rows'][s][0] == cyc[s] for s in sizes), f'{v}: cycle counts differ'
    meds = [statistics.median(x['rows'][s][1] for x in res[v]) for s in sizes]
    cpu = statistics.median(x['cpu_s'] for x in res[v])
    low = min(x['cpu_s'] for x in res[v])
    print(f"{v:<16}" + ''.join(f"{m:>12.0f}" for m in meds) + f"{cpu:>9.2f}{cpu0 / cpu:>9.2f}x{low:>11.2f}{min0 / low:>9.2f}x")
print('cycle counts equal in every run:', cyc)
