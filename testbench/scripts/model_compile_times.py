"""How long the Verilated model takes to build, file by file.

Verilates the NIC as testbench/build.rs does (its options, plus any given
here), then compiles each C++ file alone with build.rs's g++ flags, one at a
time. Prints, as JSON, CPU seconds (user + sys: a busy machine inflates them
less than wall time): verilating, each file, their sum (what one job waits),
and the makespan on 2 jobs computed from the measured per-file times (longest
first), since the shared build machine must not run parallel builds.
FAST_OPT / SLOW_OPT set the optimisation of the per-cycle files and of the
run-once `*_SLOW` files (default -O2 both).

usage: model_compile_times.py VERILATOR RTL_DIR WORK_DIR [verilator options]
RTL_DIR holds pendulum_nic.v and lint.vlt (`make verilog`: build/rtl/sim)."""
import os, resource, subprocess, sys, json, heapq

v, rtl, work, *extra = sys.argv[1:]
root = subprocess.run([v, '--getenv', 'VERILATOR_ROOT'], capture_output=True, text=True, check=True).stdout.strip()
subprocess.run(['rm', '-rf', work], check=True)
os.makedirs(work)

def cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

obj = os.path.join(work, 'obj')
t_v = cpu([v, '--cc', '-O3', '--x-assign', 'fast', '--x-initial', 'fast', '--noassert', '--trace-fst', '-Wall',
           '--top-module', 'pendulum_nic', '--prefix', 'Vnic', '--Mdir', obj, *extra,
           os.path.join(rtl, 'lint.vlt'), os.path.join(rtl, 'pendulum_nic.v')])
def mk_list(names):
    out, on = [], False
    for line in open(os.path.join(obj, 'Vnic_classes.mk')):
        line = line.strip()
        if any(line.startswith(n + ' +=') for n in names):
            on = True
        elif on and line:
            out.append(line.rstrip('\\').strip())
        else:
            on = False
    return out
runtime = mk_list(['VM_GLOBAL_FAST', 'VM_GLOBAL_SLOW'])
slow = set(mk_list(['VM_CLASSES_SLOW', 'VM_SUPPORT_SLOW']))
FAST_OPT = os.environ.get('FAST_OPT', '-O2')
SLOW_OPT = os.environ.get('SLOW_OPT', '-O2')
files = sorted(os.path.join(obj, f) for f in os.listdir(obj) if f.endswith('.cpp'))
files += [os.path.join(root, 'include', r + '.cpp') for r in runtime]
times = {}
for f in files:
    opt = SLOW_OPT if os.path.basename(f)[:-4] in slow else FAST_OPT
    times[os.path.basename(f)] = cpu(['g++', '-std=c++17', opt, '-w', '-faligned-new', '-fcf-protection=none',
        '-ffunction-sections', '-fdata-sections', '-fPIC', '-m64', '-DVM_TRACE=1', '-DVM_TRACE_FST=1',
        '-DVL_IGNORE_UNKNOWN_ARCH', '-I' + os.path.join(root, 'include'), '-I' + os.path.join(root, 'include', 'vltstd'),
        '-I' + obj, '-c', f, '-o', os.path.join(work, os.path.basename(f) + '.o')])
jobs = [0.0, 0.0]
for t in sorted(times.values(), reverse=True):
    heapq.heapreplace(jobs, jobs[0] + t)
print(json.dumps({'options': ' '.join(extra), 'fast_opt': FAST_OPT, 'slow_opt': SLOW_OPT, 'slow_files': sorted(slow), 'verilate_cpu_s': round(t_v, 1), 'files': len(times),
                  'compile_cpu_s': round(sum(times.values()), 1), 'longest_file_s': round(max(times.values()), 1),
                  'makespan_2_jobs_s': round(max(jobs), 1),
                  'per_file_s': {k: round(t, 1) for k, t in sorted(times.items(), key=lambda x: -x[1])}}))
