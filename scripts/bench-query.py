#!/usr/bin/env python3
"""make bench-query: KALLSYMS_QUERY against parsing /proc/kallsyms, in the guest.

Boots the Rust kernel (plain TCG) with the guest side, bench_query, which runs
each client as a fresh process (text: parse the file into a sorted table, then
look up; ioctl: one query per distinct address, cached), 5 interleaved runs
per workload, median. Prints a table and writes build/bench/query.json.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BPF_KSYM_BUILD') or os.path.join(ROOT, 'build')
LINE = re.compile(r'BENCH query workload=(\w+) n=(\d+) text=([\d.]+) ioctl=([\d.]+) unit=(\w+)')


def main():
    env = dict(os.environ, BPF_KSYM='rust', GUEST_TIMEOUT='900')
    subprocess.run(['bash', os.path.join(ROOT, 'scripts/boot.sh'), 'bench-query'],
                   env=env, check=True)
    log = os.path.join(BUILD, 'guest-rust-bench-query.log')
    records = []
    for line in open(log, errors='replace'):
        m = LINE.search(line)
        if m:
            records.append({'workload': m.group(1), 'n': int(m.group(2)),
                            'text': float(m.group(3)), 'ioctl': float(m.group(4)),
                            'unit': m.group(5)})
    if len(records) != 4:
        sys.exit('bench-query: expected 4 figures from the guest, got %d; see %s'
                 % (len(records), log))
    print('\n%-14s %6s %12s %12s %9s' % ('workload', 'n', 'text', 'ioctl', 'text/ioctl'))
    for r in records:
        print('%-14s %6d %10.3f %s %10.3f %s %8.1fx' % (
            r['workload'], r['n'], r['text'], r['unit'][:2], r['ioctl'], r['unit'][:2],
            r['text'] / r['ioctl']))
    os.makedirs(os.path.join(BUILD, 'bench'), exist_ok=True)
    out = os.path.join(BUILD, 'bench', 'query.json')
    with open(out, 'w') as f:
        json.dump(records, f, indent=1)
    print('\n(plain TCG; each client times itself from its first touch of /proc/kallsyms to its last answer; medians of 5 interleaved runs)\n'
          'wrote %s' % out)


if __name__ == '__main__':
    main()
