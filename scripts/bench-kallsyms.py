#!/usr/bin/env python3
"""make bench-kallsyms: full reads of /proc/kallsyms, Rust registry against C.

Boots the Rust and the C kernel alternately (interleaved, so drift on this
shared machine hits both alike), RUNS times each per mode, loads 0 and each N
programs in the guest and times full reads (median of 5 per boot, then median
over boots). Prints a table and writes build/bench/kallsyms.json.
Modes: tcg (plain TCG wall time) and icount (-icount shift=0 -smp 1).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, 'build')
NS = [int(x) for x in os.environ.get('BENCH_N', '1000,10000').split(',')]
RUNS = int(os.environ.get('BENCH_RUNS', '3'))
MODES = os.environ.get('BENCH_MODES', 'tcg,icount').split(',')
LINE = re.compile(r'BENCH kallsyms_read n=(\d+) ms=([\d.]+) lines=(\d+) bpf_lines=(\d+)')


def boot(variant, mode):
    env = dict(os.environ, BPF_KSYM=variant, GUEST_TIMEOUT='1500',
               GUEST_CMDLINE='ksym_bench=%s' % ','.join(map(str, NS)))
    if mode == 'icount':
        env['QEMU_EXTRA'] = '-icount shift=0 -smp 1'
    t0 = time.time()
    subprocess.run(['bash', os.path.join(ROOT, 'scripts/boot.sh'), 'bench-kallsyms'],
                   env=env, check=True, stderr=subprocess.DEVNULL)
    log = os.path.join(BUILD, 'guest-%s-bench-kallsyms.log' % variant)
    got = {}
    for line in open(log, errors='replace'):
        m = LINE.search(line)
        if m:
            got[int(m.group(1))] = (float(m.group(2)), int(m.group(3)), int(m.group(4)))
    missing = [n for n in [0] + NS if n not in got]
    if missing:
        sys.exit('bench: the %s guest gave no figure for N=%s; see %s' % (variant, missing, log))
    print('    %-4s %-6s boot done in %3.0fs: %s' % (
        variant, mode, time.time() - t0,
        ', '.join('N=%d %.1f ms' % (n, got[n][0]) for n in sorted(got))), flush=True)
    return got


def main():
    results = {}
    for mode in MODES:
        for run in range(RUNS):
            for variant in (('rust', 'c') if run % 2 == 0 else ('c', 'rust')):
                got = boot(variant, mode)
                for n, v in got.items():
                    results.setdefault((mode, variant, n), []).append(v)
    records = []
    print()
    print('%-7s %6s %10s %10s %8s %18s %14s' % (
        'mode', 'N', 'C ms', 'Rust ms', 'C/Rust', 'Rust ns/BPF line', 'ns/core line'))
    for mode in MODES:
        runs = {v: {n: [x[0] for x in results[(mode, v, n)]] for n in [0] + NS}
                for v in ('rust', 'c')}
        lines0 = results[(mode, 'rust', 0)][0][1]
        # Per-line costs from differences within one boot: drift between boots cancels.
        per_core = statistics.median(t / lines0 * 1e6 for t in runs['rust'][0])
        for n in [0] + NS:
            c, rust = statistics.median(runs['c'][n]), statistics.median(runs['rust'][n])
            per_bpf = (statistics.median((tn - t0) / n * 1e6 for tn, t0 in
                                         zip(runs['rust'][n], runs['rust'][0]))
                       if n else float('nan'))
            print('%-7s %6d %10.1f %10.1f %7.1fx %18.0f %14.0f' % (
                mode, n, c, rust, c / rust, per_bpf, per_core))
            records.append({'workload': 'kallsyms_read', 'n': n, 'mode': mode,
                            'c': c, 'rust': rust, 'unit': 'ms'})
    os.makedirs(os.path.join(BUILD, 'bench'), exist_ok=True)
    out = os.path.join(BUILD, 'bench', 'kallsyms.json')
    with open(out, 'w') as f:
        json.dump(records, f, indent=1)
    print('\n(medians over %d boots per variant and mode, each the median of 5 reads; '
          'C/Rust > 1 means Rust is faster)\nwrote %s' % (RUNS, out))


if __name__ == '__main__':
    main()
