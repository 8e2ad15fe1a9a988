"""Reads `perf script` output (samples with call stacks) and splits the samples
taken inside the timed receive loop (receive_and_check) into: the Verilated
model, the C shim's port accessors, and the Rust harness by module."""
import re, sys, collections
samples = []
cur = None
for line in sys.stdin:
    if not line.strip():
        if cur is not None: samples.append(cur)
        cur = None
        continue
    if not line.startswith((' ', '\t')):
        cur = []
        continue
    m = re.match(r'\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', line)
    if m and cur is not None:
        cur.append(m.group(1))
if cur: samples.append(cur)

def cls(stack):
    # stack[0] is the leaf; the first frame, from the leaf up, that is the
    # model's (Vnic*, Verilated*) or the shim's (pnd_*) decides.
    for f in stack:
        if f.startswith(('Vnic', 'Verilated')):
            return 'model: Verilated eval (Vnic::eval and below)'
        if f.startswith('pnd_'):
            return 'shim: pnd_* port accessors'
    for f in stack:
        for key, name in [('models::pcie', 'harness: PCIe model (pcie::*)'),
                          ('models::host_mem', 'harness: host memory (host_mem::*)'),
                          ('models::ethernet', 'harness: Ethernet MAC model (ethernet::*)'),
                          ('rx_check', 'harness: checking (rx_check::*)'),
                          ('pendulum_driver', 'harness: driver (pendulum_driver::*)'),
                          ('nic_sim::NicSim::step', 'harness: NicSim::step own code (port copies, handshakes)'),
                          ('nic_sim', 'harness: NicSim other')]:
            if key in f:
                return name
    return 'other: ' + (stack[0] if stack else '?')

total = 0
groups = collections.Counter()
leaf = collections.Counter()
for s in samples:
    if not any('receive_and_check' in f for f in s):
        continue
    total += 1
    c = cls(s)
    groups[c] += 1
    if c.startswith('model'):
        leaf[s[0]] += 1
print(f'samples in receive_and_check: {total} of {len(samples)}')
for k, v in groups.most_common():
    print(f'{100*v/total:6.1f}%  {k}')
print('\nmodel functions (self time, share of the timed loop):')
for k, v in leaf.most_common(15):
    print(f'{100*v/total:6.1f}%  {k}')

regions = collections.Counter()
for f, v in leaf.items():
    if '_act' in f or 'triggers__act' in f:
        r = 'act region: change triggers and the logic they re-run (circular logic)'
    elif '_nba' in f:
        r = 'nba region: clocked logic and what depends on it'
    elif '_ico' in f:
        r = 'ico region: logic from the inputs'
    else:
        r = 'scheduler and other: ' + f
    regions[r] += v
print('\nmodel time by Verilator scheduling region (share of the timed loop):')
for k, v in regions.most_common(8):
    print(f'{100*v/total:6.1f}%  {k}')
